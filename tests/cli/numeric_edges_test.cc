// Numeric edges through the binary: sizes of 0, 1 and 2^63, magnitudes of 1e30 and 1e-30,
// negative values, NaN and infinity in every numeric option and profile field. An input gets
// a correct, finite answer or a clear refusal (exit 2, one line on stderr), never a wraparound,
// an infinity printed as "no limit" or a NaN.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include "../approx.h"
#include "../verify_helpers.h"

namespace {

using Outcome = gpucalc::testing::Run;
Outcome run_binary(const std::vector<std::string>& args) { return gpucalc::testing::run_gpucalc(args); }

std::string joined(const std::vector<std::string>& args) {
  std::string s = "gpucalc";
  for (const std::string& a : args) s += " " + a;
  return s;
}

// Every bare token of gpucalc's JSON (outside strings) is a finite number, true, false or null.
bool json_numbers_finite(const std::string& json, std::string& bad) {
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
      std::size_t j = i;
      while (j < json.size() && (std::isalnum(static_cast<unsigned char>(json[j])) || json[j] == '-' ||
                                 json[j] == '+' || json[j] == '.')) {
        ++j;
      }
      std::string token = json.substr(i, j - i);
      i = j - 1;
      if (token == "true" || token == "false" || token == "null") continue;
      char* end = nullptr;
      double v = std::strtod(token.c_str(), &end);
      if (end != token.c_str() + token.size() || !std::isfinite(v) || std::isalpha(static_cast<unsigned char>(token[0]))) {
        bad = token;
        return false;
      }
    }
  }
  return true;
}

// The number after "key": in the results object (first match after "results"), NaN if absent.
double result(const std::string& json, const std::string& key) { return gpucalc::testing::json_number(json, "results." + key); }

void expect_refusal(const std::vector<std::string>& args, const std::string& names) {
  Outcome o = run_binary(args);
  INFO(joined(args) << "\nstdout: " << o.out << "\nstderr: " << o.err);
  CHECK(o.exit_code == 2);
  CHECK(o.out.empty());
  CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
  CHECK(o.err.find(names) != std::string::npos);
}

void expect_answer(std::vector<std::string> args, const std::map<std::string, double>& want) {
  args.push_back("--format");
  args.push_back("json");
  Outcome o = run_binary(args);
  INFO(joined(args) << "\nstdout: " << o.out << "\nstderr: " << o.err);
  REQUIRE(o.exit_code == 0);
  std::string bad;
  CHECK_MESSAGE(json_numbers_finite(o.out, bad), "not a finite JSON number: " << bad);
  for (const auto& [key, value] : want) {
    INFO("results." << key);
    CHECK(result(o.out, key) == gpucalc::testing::approx(value).epsilon(1e-12));
  }
}

struct Subcommand {
  const char* name;
  std::vector<std::string> base;     // options that make a valid case
  std::vector<std::string> numeric;  // its numeric options
};

// Every numeric option of every calculator, with a case it can be added to.
const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {"occupancy", {"--threads", "256", "--regs", "64"}, {"--threads", "--regs", "--smem", "--carveout"}},
      {"little", {}, {"--bandwidth", "--latency", "--bytes-per-load", "--warps", "--issue-cycles", "--wait-cycles"}},
      {"waves", {"--blocks", "265", "--blocks-per-sm", "1"}, {"--blocks", "--blocks-per-sm", "--block-time"}},
      {"waves", {"--elements", "1e6", "--threads", "256", "--regs", "32"}, {"--elements", "--threads", "--regs", "--smem"}},
      {"roofline", {"--flops", "1.37e11", "--bytes", "101MB"}, {"--flops", "--bytes", "--peak", "--bandwidth"}},
      {"roofline", {"--intensity", "64"}, {"--intensity"}},
      {"sectors", {"--stride", "2"}, {"--stride", "--elem", "--offset", "--active"}},
      {"sectors", {"--cols", "4096", "--access", "row"}, {"--cols", "--row"}},
      {"sectors", {"--cols", "4096", "--access", "column"}, {"--col"}},
      {"banks", {"--width", "33", "--access", "column"}, {"--width", "--rows", "--elem", "--col", "--pad"}},
      {"banks", {"--width", "32", "--access", "row"}, {"--row"}},
      {"fusion", {"--preset", "unary", "--ops", "4", "--n", "1e8"}, {"--ops", "--n", "--launch", "--bandwidth"}},
      {"fusion", {"--preset", "rmsnorm", "--rows", "16384", "--cols", "4096"}, {"--rows", "--cols"}},
      {"tiling", {"--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128"},
       {"--m", "--n", "--k", "--tile", "--tile-m", "--tile-n", "--tile-k", "--peak", "--bandwidth"}},
  };
  return table;
}

// The options' case with `option` set to `value` (replacing the base's value when it has one).
std::vector<std::string> with(const Subcommand& s, const std::string& option, const std::string& value) {
  std::vector<std::string> args = {s.name};
  for (std::size_t i = 0; i + 1 < s.base.size(); i += 2) {
    if (s.base[i] == option) continue;
    args.push_back(s.base[i]);
    args.push_back(s.base[i + 1]);
  }
  args.push_back(option);
  args.push_back(value);
  return args;
}

}  // namespace

TEST_CASE("NaN, infinity, overflow and negative values are refused in every numeric option") {
  const std::vector<std::string> values = {"nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e999", "-1e999",
                                           "-1", "1e31", "1e-31", "2^1024", "1e30000000000000000000"};
  for (const Subcommand& s : subcommands()) {
    for (const std::string& option : s.numeric) {
      for (const std::string& v : values) expect_refusal(with(s, option, v), option);
    }
  }
}

TEST_CASE("sizes of 2^63 are refused, not wrapped around") {
  for (const char* v : {"2^63", "9223372036854775808", "9,223,372,036,854,775,808", "1.8446744073709552e19", "2^64"}) {
    expect_refusal({"waves", "--blocks", v, "--blocks-per-sm", "1"}, "--blocks");
    expect_refusal({"waves", "--elements", v, "--threads", "256", "--regs", "32"}, "--elements");
    expect_refusal({"occupancy", "--threads", v, "--regs", "32"}, "--threads");
    expect_refusal({"occupancy", "--threads", "256", "--regs", v}, "--regs");
    expect_refusal({"occupancy", "--threads", "256", "--regs", "32", "--smem", v}, "--smem");
    expect_refusal({"occupancy", "--threads", "256", "--regs", "32", "--sweep", std::string("threads=32:") + v}, "--sweep");
  }
}

TEST_CASE("sizes of zero are refused where a count must be positive") {
  expect_refusal({"waves", "--blocks", "0", "--blocks-per-sm", "1"}, "--blocks");
  expect_refusal({"waves", "--blocks", "265", "--blocks-per-sm", "0"}, "--blocks-per-sm");
  expect_refusal({"waves", "--elements", "0", "--threads", "256", "--regs", "32"}, "--elements");
  expect_refusal({"occupancy", "--threads", "0", "--regs", "32"}, "--threads");
  expect_refusal({"occupancy", "--threads", "256", "--regs", "0"}, "--regs");
  expect_refusal({"little", "--latency", "0"}, "--latency");
  expect_refusal({"little", "--bandwidth", "0"}, "--bandwidth");
  expect_refusal({"little", "--bytes-per-load", "0"}, "--bytes-per-load");
  expect_refusal({"roofline", "--intensity", "0"}, "--intensity");
  expect_refusal({"roofline", "--flops", "-1", "--bytes", "101MB"}, "--flops");  // 0 FLOP is a copy kernel's: accepted
  expect_refusal({"roofline", "--flops", "1.37e11", "--bytes", "0"}, "--bytes");
}

TEST_CASE("sizes of one and 2^62 give exact answers") {
  // One block of one thread: one wave, 1 of 132 slots used.
  expect_answer({"waves", "--blocks", "1", "--blocks-per-sm", "1"},
                {{"waves", 1}, {"blocks_per_wave", 132}, {"last_wave_blocks", 1}, {"efficiency", 1.0 / 132}});
  // The largest grid waves takes, 10^12 blocks: ceil(10^12 / 132) = 7,575,757,576 waves, the last
  // with 10^12 - 7,575,757,575 x 132 = 100 blocks.
  expect_answer({"waves", "--blocks", "1e12", "--blocks-per-sm", "1"},
                {{"waves", 7575757576.0}, {"last_wave_blocks", 100}, {"blocks_per_wave", 132}});
  expect_refusal({"waves", "--blocks", "1000000000001", "--blocks-per-sm", "1"}, "--blocks");
  // ... and a block time of 1e30 s makes a time of 7.6e39 s: large, finite.
  expect_answer({"waves", "--blocks", "1e12", "--blocks-per-sm", "1", "--block-time", "1e30s"},
                {{"time", 7575757576.0 * 1e30}});
  // A block of one thread on the H100: 32 blocks (the block limit), 32 of 64 warps.
  expect_answer({"occupancy", "--threads", "1", "--regs", "1"}, {{"blocks_per_sm", 32}, {"occupancy", 0.5}});
  expect_answer({"occupancy", "--threads", "1", "--regs", "1", "--smem", "0"}, {{"blocks_per_sm", 32}});
}

TEST_CASE("tiling at M = N = K = 2^22: 2MNK = 2^67 reads, beyond 64 bits, as a double of the right magnitude") {
  // naive reads = 2 M N K = 2^67; tiled = M K ceil(N/T) + K N ceil(M/T) = 2 x 2^44 x 2^15 = 2^60;
  // writes = M N = 2^44.
  expect_answer({"tiling", "--m", "2^22", "--n", "2^22", "--k", "2^22", "--tile", "128"},
                {{"naive_reads", 147573952589676412928.0}, {"tiled_reads", 1152921504606846976.0},
                 {"writes", 17592186044416.0}, {"reduction", 128}});
  // One element: 2 reads, 1 write.
  expect_answer({"tiling", "--m", "1", "--n", "1", "--k", "1", "--tile", "1"},
                {{"naive_reads", 2}, {"tiled_reads", 2}, {"writes", 1}});
  for (const char* v : {"2^63", "2^64", "1e19"}) {
    expect_refusal({"tiling", "--m", v, "--n", "4096", "--k", "4096", "--tile", "128"}, "--m");
  }
}

TEST_CASE("fusion and sectors at the edges: N of 1e14, stride 0, one active lane") {
  // unary chain, k = 4: 2kN = 8e14 transfers unfused, 2N = 2e14 fused.
  expect_answer({"fusion", "--preset", "unary", "--ops", "4", "--n", "1e14"},
                {{"unfused_transfers", 8e14}, {"fused_transfers", 2e14}});
  expect_answer({"fusion", "--preset", "unary", "--ops", "1", "--n", "1"}, {{"fused_transfers", 2}});
  // Every lane reads one element: one sector.
  expect_answer({"sectors", "--stride", "0"}, {{"sectors", 1}, {"bytes_requested", 4}});
  expect_answer({"sectors", "--stride", "1", "--active", "1"}, {{"sectors", 1}, {"bytes_requested", 4}});
}

TEST_CASE("magnitudes of 1e30 and 1e-30 give finite, correct answers") {
  // bytes in flight = bandwidth x latency
  expect_answer({"little", "--latency", "1e-30s"}, {{"bytes_in_flight", 3.35e12 * 1e-30}});
  expect_answer({"little", "--latency", "1e30s"}, {{"bytes_in_flight", 3.35e12 * 1e30}});
  expect_answer({"little", "--bandwidth", "1e30B/s", "--latency", "1e30s"}, {{"bytes_in_flight", 1e60}});
  expect_answer({"little", "--bandwidth", "1e-30B/s", "--latency", "1e-30s"}, {{"bytes_in_flight", 1e-60}});
  // intensity = FLOP / bytes; time = max(FLOP / peak, bytes / bandwidth)
  expect_answer({"roofline", "--flops", "1e30", "--bytes", "1e-30"},
                {{"intensity", 1e60}, {"attainable", 989.4e12}, {"time", 1e30 / 989.4e12}});
  expect_answer({"roofline", "--flops", "1e-30", "--bytes", "1e30"},
                {{"intensity", 1e-60}, {"attainable", 1e-60 * 3.35e12}, {"time", 1e30 / 3.35e12}});
  expect_answer({"roofline", "--intensity", "1e-30"}, {{"attainable", 3.35e-18}});
  expect_answer({"roofline", "--intensity", "1e30"}, {{"attainable", 989.4e12}});
  expect_answer({"roofline", "--intensity", "1e30", "--peak", "1e-30FLOP/s", "--bandwidth", "1e30B/s"},
                {{"ridge", 1e-60}, {"attainable", 1e-30}});
  expect_answer({"waves", "--blocks", "265", "--blocks-per-sm", "1", "--block-time", "1e30s"}, {{"time", 3e30}});
}

TEST_CASE("NaN and infinity are refused in --require values") {
  for (const char* v : {"nan", "inf", "-inf", "1e999"}) {
    expect_refusal({"occupancy", "--threads", "256", "--regs", "64", "--require", std::string("occupancy>=") + v},
                   "--require");
  }
}

namespace {

// The H100 profile with `field`'s value replaced by `value`, written to a temporary file;
// `line` is the field's line.
std::string profile_with(const std::string& field, const std::string& value, int* line_number = nullptr) {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/hw/h100.toml");
  std::ostringstream out;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    // h100's GPC layout adds up to its 132 SMs: an edited sm_count would contradict it. (Lines are
    // counted as written, so a field after it keeps its line number.)
    if (line.rfind("gpc_sms = ", 0) == 0 && field != "gpc_sms") continue;
    ++n;
    if (line.rfind(field + " = ", 0) == 0) {
      line = field + " = { value = " + value + ", kind = \"spec\", source = \"test\" }";
      if (line_number != nullptr) *line_number = n;
    }
    out << line << "\n";
  }
  char path[] = "/tmp/gpucalc_edges_profile_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  std::string toml_path = std::string(path) + ".toml";
  std::rename(path, toml_path.c_str());
  std::ofstream(toml_path) << out.str();
  return toml_path;
}

}  // namespace

TEST_CASE("NaN, infinity, negative, zero and huge values are refused in every numeric profile field") {
  std::vector<std::string> fields;
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/hw/h100.toml");
  for (std::string line; std::getline(in, line);) {
    std::size_t eq = line.find(" = { value = ");
    if (eq == std::string::npos) continue;
    char first = line[eq + 13];
    if (std::isdigit(static_cast<unsigned char>(first)) || first == '-') fields.push_back(line.substr(0, eq));
  }
  CHECK(fields.size() >= 35);
  for (const std::string& field : fields) {
    // nvswitch and nvls are 0 (no) or 1 (yes)
    const bool may_be_zero = field == "shared_memory_reserved_per_block" || field == "nvswitch" || field == "nvls" ||
                             (field.rfind("peak_", 0) == 0 && field != "peak_cuda_fp32");
    std::vector<std::string> values = {"nan", "+inf", "-inf", "1e999", "-1", "1e31", "9223372036854775808", "\"1\""};
    if (!may_be_zero) values.push_back("0");
    for (const std::string& v : values) {
      int line = 0;
      std::string path = profile_with(field, v, &line);
      // Values TOML itself cannot hold (1e999, 2^63) are refused by the TOML parser, at the line.
      const bool toml_error = v == "1e999" || v == "9223372036854775808";
      expect_refusal({"roofline", "--intensity", "64", "--gpu", path},
                     toml_error ? "not valid TOML at line " + std::to_string(line) + ":" : "field '" + field + "'");
      std::remove(path.c_str());
    }
  }
}

TEST_CASE("profile values at the edges of the accepted range give finite answers") {
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"memory_bandwidth", "1e-30"}, {"memory_bandwidth", "1e30"}, {"peak_tensor_bf16", "1e30"},
           {"peak_tensor_bf16", "1e-30"}, {"sm_count", "1"}, {"sm_count", "16777216"}}) {
    std::string path = profile_with(field, value);
    INFO(field << " = " << value);
    expect_answer({"roofline", "--flops", "1e30", "--bytes", "1e-30", "--gpu", path}, {});
    expect_answer({"little", "--latency", "1e30s", "--gpu", path}, {});
    expect_answer({"waves", "--blocks", "1e12", "--blocks-per-sm", "32", "--gpu", path}, {});
    std::remove(path.c_str());
  }
}
