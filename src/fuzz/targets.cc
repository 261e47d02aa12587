#include "fuzz/targets.h"
#include "parse/profile_toml.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "commands/ncu_words.h"
#include "engine/engine.h"
#include "parse/csv.h"
#include "core/error.h"
#include "parse/expr.h"
#include "core/gpu.h"
#include "core/lines.h"
#include "core/collective.h"
#include "core/little.h"
#include "core/nccl_tests.h"
#include "core/ncu_check.h"
#include "core/ncu_report.h"
#include "core/occupancy.h"
#include "parse/quantity.h"
#include "core/roofline.h"
#include "core/waves.h"

namespace gpucalc {
namespace {

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A broken invariant is a finding: it escapes as an exception the targets never catch.
void expect(bool ok, std::string_view what, std::string_view input) {
  if (!ok) throw FuzzFinding(fmt::format("{} (input '{}')", what, input));
}

constexpr Unit kAllUnits[] = {Unit::count,    Unit::bytes,        Unit::onchip_bytes,     Unit::seconds,
                              Unit::bytes_per_second, Unit::flops, Unit::flops_per_second, Unit::fraction,
                              Unit::flop_per_byte, Unit::cycles,  Unit::text,             Unit::boolean};

std::vector<std::string> split_lines(std::string_view text, std::size_t most) {
  std::vector<std::string> lines;
  while (lines.size() < most) {
    std::size_t nl = text.find('\n');
    lines.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

}  // namespace

int fuzz_quantity(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  for (Unit unit : kAllUnits) {
    try {
      const double value = parse_quantity(text, unit, "--x");
      expect(std::isfinite(value), "parse_quantity returned a value that is not finite", text);
      expect(!format_quantity(value, unit).empty() && !format_number(value).empty(), "empty rendering", text);
    } catch (const InputError& e) {
      expect(std::string_view(e.what()).find("--x") != std::string_view::npos, "message does not name the option", text);
    }
  }
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  const std::pair<std::int64_t, std::int64_t> ranges[] = {
      {0, hi}, {lo, hi}, {1, std::int64_t{1} << 62}, {1, std::int64_t{1} << 53}, {-5, 5}, {0, 0}, {1, 1024}};
  for (Unit unit : {Unit::count, Unit::bytes, Unit::onchip_bytes}) {
    for (const auto& [min, max] : ranges) {
      try {
        const std::int64_t n = parse_integer(text, unit, "--n", min, max);
        expect(n >= min && n <= max, "parse_integer returned a value outside its range", text);
        const double value = parse_quantity(text, unit, "--n");
        expect(static_cast<double>(n) == value, "parse_integer disagrees with parse_quantity", text);
      } catch (const InputError& e) {
        expect(std::string_view(e.what()).find("--n") != std::string_view::npos, "message does not name the option", text);
      }
    }
  }
  return 0;
}

namespace {

// A calculator whose results have every unit a requirement can name, and a row of them.
const Calculator& sample_calculator() {
  static const Calculator calc{"sample",
                               {},
                               {{"blocks_per_sm"},
                                {"occupancy", Unit::fraction},
                                {"fused_time", Unit::seconds},
                                {"bytes_fetched", Unit::bytes},
                                {"tile_smem_bytes", Unit::onchip_bytes},
                                {"attainable", Unit::flops_per_second},
                                {"bandwidth", Unit::bytes_per_second},
                                {"naive_reads", Unit::flops},
                                {"intensity", Unit::flop_per_byte},
                                {"latency", Unit::cycles},
                                {"ridge", Unit::flop_per_byte},
                                {"limiter", Unit::text},
                                {"fits", Unit::boolean},
                                {"limits.registers"},
                                {"limits.threads"},
                                {"one_more_block.smem", Unit::onchip_bytes}},
                               nullptr};
  return calc;
}

Row sample_row() {
  Row r;
  r.results = {Value::num("blocks_per_sm", 3),
               Value::num("occupancy", 0.375, Unit::fraction),
               Value::num("fused_time", 1.2e-4, Unit::seconds),
               Value::num("bytes_fetched", 4096, Unit::bytes),
               Value::num("tile_smem_bytes", 65536, Unit::onchip_bytes),
               Value::num("attainable", 9.894e14, Unit::flops_per_second),
               Value::num("bandwidth", 3.35e12, Unit::bytes_per_second),
               Value::num("naive_reads", 1.37e11, Unit::flops),
               Value::num("intensity", 64, Unit::flop_per_byte),
               Value::num("latency", 480, Unit::cycles),
               Value::num("ridge", std::numeric_limits<double>::infinity(), Unit::flop_per_byte),
               Value::word("limiter", "registers"),
               Value::boolean("fits", true),
               Value::num("limits.registers", 3),
               Value::num("limits.threads", std::numeric_limits<double>::infinity()),
               Value::none("one_more_block.smem", Unit::onchip_bytes)};
  return r;
}

}  // namespace

int fuzz_require(const std::uint8_t* data, std::size_t size) {
  static const Row row = sample_row();
  const Calculator& calc = sample_calculator();
  const std::string_view text = as_text(data, size);
  std::vector<Requirement> all;
  for (const std::string& line : split_lines(text, 8)) {
    try {
      Requirement r = parse_requirement(calc, line);
      expect(r.text == line && r.key != nullptr && !r.value.empty(), "parse_requirement lost a part", line);
      expect(r.op == ">=" || r.op == "<=" || r.op == ">" || r.op == "<" || r.op == "==" || r.op == "!=",
             "parse_requirement returned an unknown operator", line);
      all.push_back(r);
      std::vector<std::string> failures = check_requirements({r}, row, " at threads=32");
      expect(failures.size() <= 1, "more failures than requirements", line);
      for (const std::string& f : failures) {
        expect(f.rfind("requirement failed: ", 0) == 0 && f.find('\n') == std::string::npos,
               "a failure is not one 'requirement failed:' line", line);
      }
    } catch (const InputError& e) {
      expect(std::string_view(e.what()).rfind("--require", 0) == 0, "message does not name --require", line);
      expect(std::string_view(e.what()).find('\n') == std::string_view::npos, "message is not one line", line);
    }
  }
  // All together, as the engine checks them.
  expect(check_requirements(all, row).size() <= all.size(), "more failures than requirements", text);
  return 0;
}

int fuzz_csv(const std::uint8_t* data, std::size_t size) {
  const std::string_view line = as_text(data, size);
  try {
    const std::vector<std::string> cells = parse_csv_record(line, "--batch line 2");
    std::size_t commas = 0;
    for (char c : line) commas += c == ',' ? 1 : 0;
    expect(!cells.empty() && cells.size() <= commas + 1, "cell count out of range", line);
    // Quoting every cell and parsing again gives the same cells.
    std::string quoted;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      quoted += i ? ",\"" : "\"";
      for (char c : cells[i]) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      quoted += '"';
    }
    expect(parse_csv_record(quoted, "--batch line 2") == cells, "re-quoted cells parse differently", line);
  } catch (const InputError& e) {
    expect(std::string_view(e.what()).rfind("--batch line 2", 0) == 0, "message does not name the line", line);
  }
  return 0;
}

namespace {

// The values of `text` for lanes 0..31, or nothing when it is refused.
std::optional<std::vector<std::int64_t>> lanes_of(std::string_view text) {
  try {
    LaneExpression e(text, "--words");
    std::vector<std::int64_t> values;
    for (std::int64_t t = 0; t < 32; ++t) values.push_back(e.evaluate(t));
    return values;
  } catch (const InputError& error) {
    expect(std::string_view(error.what()).rfind("--words", 0) == 0, "message does not name the option", text);
    return std::nullopt;
  }
}

}  // namespace

int fuzz_expr(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  try {
    LaneExpression e(text, "--words");
    std::vector<std::int64_t> values;
    for (std::int64_t t = 0; t < 32; ++t) {
      try {
        values.push_back(e.evaluate(t));
      } catch (const InputError&) {
        break;
      }
    }
    if (values.size() == 32) {
      if (!e.uses_lane()) {
        for (std::int64_t v : values) expect(v == values[0], "an expression without t differs between lanes", text);
      }
      // Parentheses around a whole expression change nothing.
      std::string parenthesized(1, '(');  // (not "(" + text: GCC 12 warns falsely about that)
      parenthesized.append(text).push_back(')');
      auto wrapped = lanes_of(parenthesized);
      if (wrapped) expect(*wrapped == values, "(E) evaluates differently from E", text);
    }
  } catch (const InputError& error) {
    expect(std::string_view(error.what()).rfind("--words", 0) == 0, "message does not name the option", text);
  }
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();
  const std::pair<std::int64_t, std::int64_t> ranges[] = {{0, big}, {-big - 1, big}, {0, (std::int64_t{1} << 40)}, {0, 31}};
  for (const auto& [min, max] : ranges) {
    try {
      std::vector<std::int64_t> values = lane_values(text, "--addresses", 32, min, max);
      expect(values.size() <= 32, "more values than lanes", text);
      for (std::int64_t v : values) expect(v >= min && v <= max, "a lane value outside its range", text);
      if (text.find(',') == std::string_view::npos) {
        auto direct = lanes_of(text);
        expect(direct && *direct == values, "lane_values disagrees with the expression", text);
      }
    } catch (const InputError& error) {
      expect(std::string_view(error.what()).rfind("--addresses", 0) == 0, "message does not name the option", text);
    }
  }
  return 0;
}

namespace {

// The h100 profile with "FIELD = VALUE" lines of `edits` put in as { value = VALUE, ... }.
std::string edited_profile(std::string_view edits) {
  std::string base;
  for (const BuiltinProfile& p : builtin_profiles()) {
    if (std::string_view(p.key) == "h100") base = "# h100\n" + profile_toml(p.make());
  }
  for (const std::string& edit : split_lines(edits, 16)) {
    std::size_t eq = edit.find(" = ");
    if (eq == std::string::npos || eq == 0) continue;
    std::string field = edit.substr(0, eq);
    std::string line = fmt::format("{} = {{ value = {}, kind = \"spec\", source = \"fuzz\" }}", field,
                                   edit.substr(eq + 3));
    std::size_t at = base.find("\n" + field + " = ");
    if (at == std::string::npos) {
      base += line + "\n";
    } else {
      std::size_t end = base.find('\n', at + 1);
      base.replace(at + 1, end == std::string::npos ? std::string::npos : end - at - 1, line);
    }
  }
  return base;
}

void check_occupancy(const OccupancyInput& in, const Gpu& gpu, std::string_view text) {
  try {
    OccupancyResult r = occupancy(in, gpu);
    expect(r.blocks_per_sm >= 0 && r.warps_per_sm >= 0 && r.threads_per_sm >= 0, "negative residency", text);
    expect(r.occupancy >= 0 && r.occupancy <= 1,
           fmt::format("occupancy {} outside 0..1 at threads {} regs {} smem {} ({})", r.occupancy, in.threads,
                       in.registers, in.shared_memory, in.model == OccupancyModel::exact ? "exact" : "simple"),
           text);
    expect(r.fits == (r.blocks_per_sm > 0), "fits disagrees with blocks_per_sm", text);
    if (in.model == OccupancyModel::exact) {
      expect(r.warps_per_sm <= gpu.max_threads_per_sm / gpu.warp_size, "more warps than the SM holds", text);
    }
  } catch (const InputError&) {
  }
}

// A profile that parsed must not break a model: every model runs on it.
void run_models(const Gpu& gpu, std::string_view text) {
  for (int threads : {1, 32, 33, 256, gpu.max_threads_per_block}) {
    for (int regs : {1, 33, 64, gpu.max_registers_per_thread}) {
      for (std::int64_t smem : {std::int64_t{0}, std::int64_t{1}, gpu.shared_memory_per_block,
                                gpu.shared_memory_per_block_optin}) {
        for (OccupancyModel model : {OccupancyModel::exact, OccupancyModel::simple}) {
          check_occupancy(OccupancyInput{threads, regs, smem, -1, model}, gpu, text);
        }
      }
    }
  }
  check_occupancy(OccupancyInput{256, 64, 1, 0, OccupancyModel::exact}, gpu, text);
  check_occupancy(OccupancyInput{256, 64, 1, 100, OccupancyModel::exact}, gpu, text);
  try {
    one_more_block(OccupancyInput{256, 64, gpu.shared_memory_per_block, -1, OccupancyModel::exact}, gpu);
  } catch (const InputError&) {
  }
  // Up to the 10^12 blocks the CLI accepts (beyond 2^53, blocks / (waves x blocks per wave) rounds).
  for (std::int64_t blocks : {std::int64_t{1}, std::int64_t{133}, std::int64_t{1000000000000}}) {
    for (int per_sm : {1, gpu.max_blocks_per_sm}) {
      try {
        WavesResult w = waves(WavesInput{blocks, per_sm, 1e-6}, gpu);
        expect(w.waves >= 1 && w.last_wave_blocks >= 1 && w.last_wave_blocks <= w.blocks_per_wave,
               "waves out of range", text);
        expect(w.efficiency > 0 && w.efficiency <= 1, "wave efficiency outside 0..1", text);
      } catch (const InputError&) {
      }
    }
  }
  try {
    LittleResult l = little(LittleInput{gpu.memory_bandwidth, gpu.latency_hbm_cycles / gpu.boost_clock, 128, 4, 4, 400}, gpu);
    expect(l.bytes_in_flight_per_sm >= 0 && !std::isnan(l.loads_in_flight_per_sm), "little out of range", text);
  } catch (const InputError&) {
  }
  for (const Dtype& d : known_dtypes()) {
    for (ComputeUnit unit : {ComputeUnit::cuda, ComputeUnit::tensor}) {
      try {
        RooflineResult r = roofline(RooflineInput{1.37e11, 1.01e8, 0, d.name, unit, 0, 0, false, {}, 0}, gpu);
        expect(!std::isnan(r.attainable) && !std::isnan(r.time), "roofline gave NaN", text);
      } catch (const InputError&) {
      }
    }
  }
}

}  // namespace

int fuzz_profile(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  constexpr std::string_view marker = "#fields\n";
  const std::string toml = text.substr(0, marker.size()) == marker ? edited_profile(text.substr(marker.size()))
                                                                   : std::string(text);
  try {
    Gpu gpu = parse_gpu(toml, "fuzz", "fuzz.toml");
    expect(gpu.sm_count > 0 && gpu.warp_size == 32 && gpu.max_threads_per_block <= gpu.max_threads_per_sm,
           "a parsed profile breaks a relation", text);
    expect(std::isfinite(gpu.memory_bandwidth) && gpu.memory_bandwidth > 0 && gpu.boost_clock > 0,
           "a parsed profile has a rate that is not finite and positive", text);
    expect(!gpu.shared_memory_carveouts.empty(), "a parsed profile has no carveouts", text);
    run_models(gpu, text);
  } catch (const InputError& e) {
    expect(std::string_view(e.what()).rfind("profile fuzz.toml", 0) == 0, "message does not name the file", text);
  }
  return 0;
}

int fuzz_ncu(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  NcuReport report;
  try {
    report = parse_ncu_report(text);
  } catch (const InputError&) {
    return 0;
  }
  expect(!report.kernels.empty(), "a report parsed without a kernel", text);
  // Read a kernel at a time (gpucalc ncu's way), the same kernels, or a report that cannot be streamed.
  std::vector<NcuKernel> streamed;
  bool scattered = false;
  try {
    TextLines lines(text);
    NcuReader reader(lines);
    NcuKernel k;
    while (reader.next(k) && streamed.size() <= report.kernels.size()) streamed.push_back(k);
  } catch (const NcuScattered&) {
    scattered = true;  // a details page whose kernel's rows come apart: read whole only
  }
  if (!scattered) {
    expect(streamed.size() == report.kernels.size(), "streamed another number of kernels than read whole", text);
    for (std::size_t i = 0; i < streamed.size(); ++i) {
      const NcuKernel &k = streamed[i], &whole = report.kernels[i];
      expect(k.id == whole.id && k.name == whole.name && k.line == whole.line, "a streamed kernel differs from the whole's", text);
      for (std::size_t f = 0; f < kNcuFields; ++f) {
        expect(k.value[f] == whole.value[f] || (std::isnan(k.value[f]) && std::isnan(whole.value[f])),
               "a streamed figure differs from the whole's", text);
      }
    }
  }
  static const Gpu gpus[] = {load_gpu("h100"), load_gpu("v100")};
  for (const NcuKernel& k : report.kernels) {
    for (const Gpu& gpu : gpus) {
      try {
        const NcuCheck c = check_ncu_kernel(k, gpu);
        expect(c.occupancy.blocks_per_sm >= 0 && c.occupancy.blocks_per_sm <= gpu.max_blocks_per_sm, "blocks per SM out of range", text);
        expect(c.occupancy.occupancy >= 0 && c.occupancy.occupancy <= 1, "occupancy out of 0..1", text);
        expect(!(c.waves.waves_exact < 0) && !std::isnan(c.waves.waves_exact), "waves not a count", text);
        expect(!ncu_words::verdict(k, c, gpu).empty(), "no verdict", text);
      } catch (const InputError&) {
        // A launch the model refuses (no Launch Statistics, a block too large): the expected answer.
      }
    }
  }
  return 0;
}

int fuzz_nccl(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  NcclLog log;
  try {
    log = read_nccl_log(text);
  } catch (const InputError&) {
    return 0;
  }
  expect(!log.rows.empty(), "a log read without a row", text);
  expect(log.rows.size() <= kNcclMaxRows, "more rows than the limit", text);
  for (const NcclRow& row : log.rows) {
    for (const NcclPlacement* p : {&row.out_of_place, &row.in_place}) {
      expect(std::isfinite(p->time) && p->time >= 0 && std::isfinite(p->busbw) && p->busbw >= 0, "a row's numbers not finite", text);
    }
    // the model at the row's size, over an H100 node's NVLink: a finite, positive time
    CollectiveInput c;
    c.op = log.op_known ? log.op : CollectiveOp::allreduce;
    c.size = row.size;
    c.gpus = 8;
    c.links.link_bandwidth = 450e9;
    c.links.link_latency = 0.6e-6;
    const CollectiveResult r = collective(c);
    expect(std::isfinite(r.chosen.time) && r.chosen.time >= 0 && std::isfinite(r.busbw), "the model's time not finite", text);
  }
  return 0;
}

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> targets = {
      {"quantity", fuzz_quantity},
      {"require", fuzz_require},
      {"csv", fuzz_csv},
      {"profile", fuzz_profile},
      {"expr", fuzz_expr},
      {"ncu", fuzz_ncu},
      {"nccl", fuzz_nccl},
  };
  return targets;
}

}  // namespace gpucalc
