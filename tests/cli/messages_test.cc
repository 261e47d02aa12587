// Messages, notes and explain lines that must be true for the case at hand (issue 24): range
// errors whose examples lie in the range, a bank-conflict note computed from the case, little's
// scheduler form from --wait-cycles, whole warps, messages that quote what the user typed, and
// "no limit" as a value of its own in every format.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../approx.h"
#include "commands/commands.h"
#include "core/gpu.h"
#include "engine/engine.h"
#include "measure/measure.h"
#include "../verify_helpers.h"

namespace gpucalc {
namespace {

using testing::json_number;
using testing::run_gpucalc;

TEST_CASE("range errors of --regs, --cluster, --mask and --active list no example outside the range") {
  testing::Run regs = run_gpucalc({"occupancy", "--threads", "256", "--regs", "256"});
  CHECK(regs.exit_code == 2);
  CHECK(regs.err == "gpucalc: --regs: '256' is out of range: expected a whole number, 1 to 255, registers per thread (h100)\n");
  testing::Run cluster = run_gpucalc({"occupancy", "--threads", "128", "--regs", "32", "--gpu", "h200", "--cluster", "17"});
  CHECK(cluster.exit_code == 2);
  CHECK(cluster.err.find("--cluster: '17' is out of range: expected a whole number, 1 to 16,") != std::string::npos);
  testing::Run mask = run_gpucalc({"banks", "--width", "32", "--access", "column", "--mask", "0x0"});
  CHECK(mask.exit_code == 2);
  CHECK(mask.err.find("--mask: '0x0' is out of range: expected a whole number, 1 to 4,294,967,295,") != std::string::npos);
  testing::Run active = run_gpucalc({"sectors", "--stride", "1", "--active", "0"});
  CHECK(active.exit_code == 2);
  CHECK(active.err.find("--active: '0' is out of range: expected a whole number, 1 to 32,") != std::string::npos);
  // A malformed value: the examples that lie in the range (0xff is 255; 256, 2^24 and 16,384 are not).
  testing::Run malformed = run_gpucalc({"occupancy", "--threads", "256", "--regs", "x"});
  CHECK(malformed.err.find("expected a whole number (0xff), 1 to 255") != std::string::npos);
  testing::Run threads = run_gpucalc({"occupancy", "--threads", "x", "--regs", "32"});
  CHECK(threads.err.find("expected a whole number (256 or 0xff), 1 to 1,024") != std::string::npos);
}

/// The options of `note`'s advice: each "--opt value ... gives N wavefront(s)" piece.
struct Advice {
  std::vector<std::string> options;
  int wavefronts = 0;
};

std::vector<Advice> advice_in(const std::string& note) {
  std::vector<Advice> out;
  std::size_t at = note.find("); ");
  if (at == std::string::npos) return out;
  std::string rest = note.substr(at + 3);
  for (std::size_t piece = 0; piece < rest.size();) {
    const std::size_t gives = rest.find(" gives ", piece);
    if (gives == std::string::npos) break;
    Advice a;
    std::string words = rest.substr(piece, gives - piece);
    for (std::size_t w = 0; w < words.size();) {
      const std::size_t space = words.find(' ', w);
      const std::string word = words.substr(w, space == std::string::npos ? std::string::npos : space - w);
      if (!word.empty()) a.options.push_back(word);
      if (space == std::string::npos) break;
      w = space + 1;
    }
    a.wavefronts = std::stoi(rest.substr(gives + 7));
    out.push_back(a);
    const std::size_t comma = rest.find(", ", gives);
    if (comma == std::string::npos) break;
    piece = comma + 2;
  }
  return out;
}

TEST_CASE("a value the model needs and nobody typed is required, not an invalid '' or '0' (issue 36)") {
  // decode --experts without --experts-per-token: the adversarial run's "invalid value '0'".
  testing::Run k = run_gpucalc({"decode", "--model", "llama-3-8b", "--experts", "4", "--active-params", "1e9"});
  CHECK(k.exit_code == 2);
  CHECK(k.err == "gpucalc: --experts-per-token is required: the routed experts a token uses, 1 to fewer than --experts, "
                 "for a model with --experts\n");
  testing::Run active = run_gpucalc({"decode", "--model", "llama-3-8b", "--experts", "4", "--experts-per-token", "2"});
  CHECK(active.exit_code == 2);
  CHECK(active.err == "gpucalc: --active-params is required: the parameters a token uses, for a model with --experts\n");
  // A preset's value that the typed option makes wrong is quoted: it is the model's.
  testing::Run preset = run_gpucalc({"decode", "--model", "deepseek-v3", "--experts", "4"});
  CHECK(preset.exit_code == 2);
  CHECK(preset.err.find("--experts-per-token: invalid value '8': expected 1 to 3 routed experts a token") != std::string::npos);
}

TEST_CASE("the bank-conflict note advises only what the case accepts, and each piece of advice gives what it says") {
  // --words: --pad and --swizzle are refused there, so the note names a stride of the expression.
  testing::Run words = run_gpucalc({"banks", "--words", "32*t"});
  REQUIRE(words.exit_code == 0);
  CHECK(words.out.find("--pad") == std::string::npos);
  CHECK(words.out.find("--swizzle") == std::string::npos);
  CHECK(words.out.find("note: 32-way bank conflict: 32 wavefronts where 1 would do (32x); --words '33*t' gives 1 wavefront, "
                       "--words '31*t' gives 1 wavefront\n") != std::string::npos);
  testing::Run list = run_gpucalc({"banks", "--words", "0,32,64,96"});
  CHECK(list.out.find("--pad") == std::string::npos);
  CHECK(list.out.find("spread the lanes' words over the 32 banks") != std::string::npos);
  // A tile: padding and the swizzle, each tried.
  testing::Run column = run_gpucalc({"banks", "--width", "32", "--access", "column"});
  CHECK(column.out.find("(32x); --pad 1 gives 1 wavefront, --swizzle xor gives 1 wavefront\n") != std::string::npos);
  // Both already applied (2-way): not advised again.
  testing::Run both = run_gpucalc({"banks", "--width", "32", "--access", "column", "--pad", "1", "--swizzle", "xor"});
  REQUIRE(both.out.find("note: 2-way bank conflict") != std::string::npos);
  CHECK(both.out.find("--swizzle xor gives") == std::string::npos);
  CHECK(both.out.find("--pad 1 gives") == std::string::npos);
  // Random tiles and words: every piece of advice, applied, gives the wavefronts it promises.
  std::mt19937 rng(24);
  int advised = 0;
  for (int i = 0; i < 40; ++i) {
    std::vector<std::string> args;
    if (i % 4 == 3) {
      args = {"banks", "--words", fmt::format("{}*t+{}", 1 + rng() % 70, rng() % 9), "--elem", std::to_string(4 << (rng() % 3))};
    } else {
      static const char* kAccess[] = {"row", "column", "diagonal"};
      const char* access = kAccess[rng() % 3];
      // (the diagonal needs 32 columns)
      const int width = static_cast<int>(1u << ((access[0] == 'd' ? 5 : 2) + rng() % 3)) + (rng() % 3 == 0 ? static_cast<int>(rng() % 5) : 0);
      args = {"banks", "--width", std::to_string(width), "--rows", "64", "--access", access, "--elem", std::to_string(1 << (rng() % 5))};
      if (rng() % 2) args.insert(args.end(), {"--pad", std::to_string(rng() % 3)});
      if (rng() % 3 == 0 && (width & (width - 1)) == 0) args.insert(args.end(), {"--swizzle", "xor"});
    }
    const testing::Run r = run_gpucalc(args);
    INFO(fmt::format("{}", fmt::join(args, " ")) << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::size_t note = r.out.find("bank conflict:");
    if (note == std::string::npos) continue;
    const std::string line = r.out.substr(note, r.out.find('\n', note) - note);
    CHECK(line.find("wavefronts where") != std::string::npos);
    for (const Advice& a : advice_in(line)) {
      std::vector<std::string> changed = args;
      for (std::size_t k = 0; k < a.options.size(); ++k) {
        const std::string& o = a.options[k];
        if (o == "without") {
          // "--pad 1 without --swizzle xor": the swizzle goes
          changed.erase(std::remove(changed.begin(), changed.end(), std::string("xor")), changed.end());
          changed.erase(std::remove(changed.begin(), changed.end(), std::string("--swizzle")), changed.end());
          break;
        }
        if (o.rfind("--", 0) != 0 || k + 1 >= a.options.size()) continue;
        std::string value = a.options[k + 1];
        if (value.size() >= 2 && value.front() == '\'') value = value.substr(1, value.size() - 2);
        auto at = std::find(changed.begin(), changed.end(), o);
        if (at != changed.end()) {
          *(at + 1) = value;
        } else {
          changed.insert(changed.end(), {o, value});
        }
      }
      changed.insert(changed.end(), {"--format", "json"});
      const testing::Run applied = run_gpucalc(changed);
      INFO(fmt::format("{}", fmt::join(changed, " ")) << "\n" << applied.err);
      REQUIRE(applied.exit_code == 0);
      CHECK(json_number(applied.out, "results.wavefronts") == a.wavefronts);
      ++advised;
    }
  }
  CHECK(advised > 5);
}

TEST_CASE("little's scheduler form: bytes in flight from --wait-cycles at the profile's clock, unless --latency is given") {
  const Gpu h100 = load_gpu("h100");
  testing::Run r = run_gpucalc({"little", "--warps", "4", "--issue-cycles", "10", "--wait-cycles", "500", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  // bytes in flight = bandwidth x L / clock
  const double latency = 500 / h100.boost_clock;
  CHECK(json_number(r.out, "inputs.latency") == gpucalc::testing::approx(latency));
  CHECK(json_number(r.out, "results.bytes_in_flight") == gpucalc::testing::approx(h100.memory_bandwidth * latency));
  CHECK(json_number(r.out, "results.bytes_in_flight") != gpucalc::testing::approx(1.34e6));
  testing::Run text = run_gpucalc({"little", "--warps", "4", "--issue-cycles", "10", "--wait-cycles", "500", "--explain"});
  CHECK(text.out.find(fmt::format("latency = L / boost clock = 500 cycles / {} MHz", format_number(h100.boost_clock / 1e6))) !=
        std::string::npos);
  // Both given: --latency, and a note that they differ.
  testing::Run both = run_gpucalc({"little", "--latency", "400ns", "--warps", "4", "--issue-cycles", "10", "--wait-cycles", "500"});
  CHECK(both.out.find("1.34 MB") != std::string::npos);
  CHECK(both.out.find("note: bytes in flight use --latency 400 ns; --wait-cycles 500 is") != std::string::npos);
  // L = 0: nothing waits, nothing in flight.
  testing::Run none = run_gpucalc({"little", "--warps", "1", "--issue-cycles", "10", "--wait-cycles", "0", "--format", "json"});
  REQUIRE(none.exit_code == 0);
  CHECK(json_number(none.out, "results.bytes_in_flight") == 0);
}

TEST_CASE("little's explain never shows a rounded figure beside a different exact one (3 B (3.03 B))") {
  testing::Run r = run_gpucalc({"little", "--bandwidth", "1GB/s", "--explain"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("per SM = 400 B / 132 SMs = 3.03 B\n") != std::string::npos);
  CHECK(r.out.find("loads in flight per SM = 3.03 B / 128 B per load = 0.0237") != std::string::npos);
  CHECK(r.out.find("3 B (") == std::string::npos);
  testing::Run h100 = run_gpucalc({"little", "--explain"});
  CHECK(h100.out.find("per SM = 1,340,000 B / 132 SMs = 10,152 B (10.2 KB)") != std::string::npos);
  // Over many bandwidths: "N B (X)" only where X is N's readable form (K, M or G bytes).
  for (double bw = 1e6; bw < 1e14; bw *= 3.7) {
    testing::Run each = run_gpucalc({"little", "--bandwidth", fmt::format("{}B/s", bw), "--explain"});
    INFO(each.out);
    REQUIRE(each.exit_code == 0);
    CHECK(each.out.find(" B (0") == std::string::npos);
    for (std::size_t at = each.out.find(" B ("); at != std::string::npos; at = each.out.find(" B (", at + 1)) {
      CHECK(std::string("KMGT").find(each.out[each.out.find_first_of("KMGT", at + 4)]) != std::string::npos);
      CHECK(each.out.find_first_of("KMGT", at + 4) < each.out.find(')', at));
    }
  }
}

TEST_CASE("little's warps_needed is a whole number of warps, and warps_needed_exact keeps (c + L) / c") {
  // c = 11, L = 111: (c + L) / c = 122 / 11 = 11.09, so 12 warps are needed
  testing::Run r = run_gpucalc({"little", "--warps", "1", "--issue-cycles", "11", "--wait-cycles", "111", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_number(r.out, "results.warps_needed") == 12);
  CHECK(json_number(r.out, "results.warps_needed_exact") == gpucalc::testing::approx(122.0 / 11));
  // A ratio that is whole stays whole (0.6 / 0.1 is 6 within a rounding).
  testing::Run whole = run_gpucalc({"little", "--warps", "1", "--issue-cycles", "0.1", "--wait-cycles", "0.5", "--format", "json"});
  CHECK(json_number(whole.out, "results.warps_needed") == 6);
  testing::Run text = run_gpucalc({"little", "--warps", "1", "--issue-cycles", "11", "--wait-cycles", "111", "--explain"});
  CHECK(text.out.find("warps needed = ceil((c + L) / c) = ceil(122 / 11) = ceil(11.09) = 12") != std::string::npos);
}

TEST_CASE("messages quote what the user typed: a sweep's axis, --gemm as written, --explain with many rows") {
  testing::Run sweep = run_gpucalc({"waves", "--gemm", "4096,4096", "--tile", "128", "--sweep", "blocks"});
  CHECK(sweep.exit_code == 2);
  CHECK(sweep.err.rfind("gpucalc: --sweep: invalid value 'blocks': expected either --blocks or --gemm, not both", 0) == 0);
  CHECK(sweep.err.find("(the sweep sets --blocks 1)") != std::string::npos);
  testing::Run gemm = run_gpucalc({"waves", "--gemm", "2^20,2^20", "--tile", "1"});
  CHECK(gemm.exit_code == 2);
  CHECK(gemm.err.rfind("gpucalc: --gemm: invalid value '2^20,2^20': expected a GEMM of at most 10^12 tiles", 0) == 0);
  testing::Run explain = run_gpucalc({"occupancy", "--threads", "256", "--regs", "32", "--sweep", "threads", "--explain"});
  CHECK(explain.exit_code == 2);
  CHECK(explain.err.find("invalid value ''") == std::string::npos);
  CHECK(explain.err.rfind("gpucalc: --explain: not in text output of many rows: one case, or --format json", 0) == 0);
  testing::Run measure = run_gpucalc({"measure"});
  CHECK(measure.exit_code == 2);
  CHECK(measure.err.find("invalid value ''") == std::string::npos);
  CHECK(measure.err.rfind("gpucalc: measure: a case is required: one of ", 0) == 0);
}

TEST_CASE("occupancy --explain with no shared memory on a profile that reserves none: no limit, not 2147483647 blocks") {
  testing::Run r = run_gpucalc({"occupancy", "--gpu", "v100", "--threads", "256", "--regs", "33", "--explain"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("3. shared memory: 0 B, nothing reserved per block: no limit (unlimited)") != std::string::npos);
  CHECK(r.out.find("2147483647") == std::string::npos);
  // Where a block's bytes are reserved ones (sm_80+), the step still divides.
  testing::Run h = run_gpucalc({"occupancy", "--gpu", "h100", "--threads", "256", "--regs", "33", "--explain"});
  CHECK(h.out.find("3. shared memory: 0 B + 1 KiB reserved = 1 KiB per block; carveout 228 KiB: floor(228 KiB / 1 KiB) = 228 blocks") != std::string::npos);
}

TEST_CASE("no limit is 'unlimited' in text and CSV, null in JSON (a numeric key stays a number or null: issue 36)") {
  // On a V100 nothing is reserved per block: no shared memory, no limit from it.
  const std::vector<std::string> args = {"occupancy", "--gpu", "v100", "--threads", "256", "--regs", "32", "--smem", "0"};
  testing::Run text = run_gpucalc(args);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("limits.shared_memory     unlimited") != std::string::npos);
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  testing::Run json = run_gpucalc(json_args);
  CHECK(json.out.find("\"shared_memory\":null") != std::string::npos);
  CHECK(json.out.find("unlimited") == std::string::npos);
  std::vector<std::string> csv_args = args;
  csv_args.insert(csv_args.end(), {"--format", "csv"});
  testing::Run csv = run_gpucalc(csv_args);
  CHECK(csv.out.find(",unlimited,") != std::string::npos);
  // A sweep's rows too, and a requirement's "got".
  std::vector<std::string> swept = args;
  swept.insert(swept.end(), {"--sweep", "threads=128:256:128", "--format", "json"});
  CHECK(run_gpucalc(swept).out.find("\"shared_memory\":null") != std::string::npos);
  std::vector<std::string> required = args;
  required.insert(required.end(), {"--require", "limits.shared_memory<4"});
  testing::Run failed = run_gpucalc(required);
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("(got unlimited)") != std::string::npos);
}

}  // namespace
}  // namespace gpucalc
