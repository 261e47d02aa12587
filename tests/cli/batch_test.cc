// --batch: one result row per input row, equal to the single-case output; bad rows, --strict,
// --require per row, JSON Lines, standard input. And --sweep points equal single calls.
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../approx.h"
#include "parse/csv.h"
#include "../verify_helpers.h"

using gpucalc::parse_csv_record;
using gpucalc::testing::run_gpucalc;

namespace {

using gpucalc::testing::lines_of;

// A CSV table as a list of rows, each a map from column name to cell.
std::vector<std::map<std::string, std::string>> table_of(const std::string& csv) {
  std::vector<std::string> lines = lines_of(csv);
  std::vector<std::map<std::string, std::string>> rows;
  if (lines.empty()) return rows;
  std::vector<std::string> header = parse_csv_record(lines[0], "test");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cells = parse_csv_record(lines[i], "test");
    std::map<std::string, std::string> row;
    for (std::size_t j = 0; j < header.size() && j < cells.size(); ++j) row[header[j]] = cells[j];
    rows.push_back(row);
  }
  return rows;
}

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/gpucalc_batch_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  std::ofstream(path) << text;
  return path;
}

struct BatchCase {
  const char* calculator;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // an empty cell: the option not given
};

// Runs `c` as a batch in CSV and checks each row against its single call (a flag's cell, true,
// is the flag alone on the command line).
void check_rows_equal_single_calls(const BatchCase& c) {
  std::string csv;
  for (std::size_t j = 0; j < c.header.size(); ++j) csv += (j ? "," : "") + c.header[j];
  csv += "\n";
  for (const auto& row : c.rows) {
    for (std::size_t j = 0; j < row.size(); ++j) csv += (j ? "," : "") + row[j];
    csv += "\n";
  }
  const std::string path = write_temp(csv);
  auto batch = run_gpucalc({c.calculator, "--batch", path, "--format", "csv"});
  std::remove(path.c_str());
  INFO(c.calculator, ": ", batch.err);
  REQUIRE(batch.exit_code == 0);
  auto batch_rows = table_of(batch.out);
  REQUIRE(batch_rows.size() == c.rows.size());
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    std::vector<std::string> args = {c.calculator, "--format", "csv"};
    for (std::size_t j = 0; j < c.header.size(); ++j) {
      if (c.rows[i][j].empty()) continue;
      args.push_back("--" + c.header[j]);
      if (c.rows[i][j] != "true") args.push_back(c.rows[i][j]);
    }
    auto single = run_gpucalc(args);
    REQUIRE(single.exit_code == 0);
    auto single_rows = table_of(single.out);
    REQUIRE(single_rows.size() == 1);
    CHECK(batch_rows[i]["line"] == std::to_string(i + 2));
    CHECK(batch_rows[i]["error"].empty());
    for (const auto& [key, value] : single_rows[0]) {
      INFO(c.calculator, " row ", i, " key ", key);
      CHECK(batch_rows[i][key] == value);
    }
  }
}

}  // namespace

TEST_CASE("batch rows equal the single-case output, for every calculator") {
  const std::vector<BatchCase> cases = {
      {"occupancy", {"threads", "regs", "smem"}, {{"256", "64", "40KB"}, {"128", "32", "64KB"}, {"1024", "65", "0"}, {"256", "33", "0"}}},
      {"waves", {"blocks", "blocks-per-sm"}, {{"264", "1"}, {"265", "1"}, {"65536", "8"}}},
      {"little", {"latency", "bandwidth"}, {{"400ns", "3.35TB/s"}, {"340ns", "4.8TB/s"}}},
      {"roofline", {"flops", "bytes", "dtype"}, {{"1e9", "2GB", "fp32"}, {"1.37e11", "101MB", "bf16"}}},
      {"sectors", {"stride", "elem"}, {{"1", "4"}, {"2", "4"}, {"32", "4"}, {"1", "16"}}},
      {"banks", {"width", "access"}, {{"32", "column"}, {"33", "column"}, {"32", "row"}}},
      {"fusion", {"preset", "ops", "n"}, {{"unary", "4", "1e8"}, {"binary", "4", "1e8"}, {"unary", "4", "1e4"}}},
      {"tiling", {"m", "n", "k", "tile"}, {{"4096", "4096", "4096", "128"}, {"1000", "1000", "1000", "128"}}},
  };
  for (const BatchCase& c : cases) check_rows_equal_single_calls(c);
}

TEST_CASE("a bad batch row names its line and the others still run, --strict stops") {
  const std::string path = write_temp("threads,regs,smem\n256,64,40KB\n2000,3,0\n128,32,64KB\n");
  auto r = run_gpucalc({"occupancy", "--batch", path, "--format", "csv"});
  CHECK(r.exit_code == 2);
  auto rows = table_of(r.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["blocks_per_sm"] == "4");
  CHECK(rows[1]["blocks_per_sm"].empty());
  CHECK(rows[1]["error"].find("--threads") != std::string::npos);
  CHECK(rows[2]["blocks_per_sm"] == "3");
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0].find("line 3") != std::string::npos);
  CHECK(r.err_lines()[0].find("--threads") != std::string::npos);

  auto strict = run_gpucalc({"occupancy", "--batch", path, "--format", "csv", "--strict"});
  CHECK(strict.exit_code == 2);
  CHECK(table_of(strict.out).size() == 2);  // the good row, then the bad one; the last never ran
  std::remove(path.c_str());
}

TEST_CASE("--require applies to every batch row, empty cells take the command line's value") {
  const std::string path = write_temp("threads,regs\n256,64\n128,\n");
  auto r = run_gpucalc({"occupancy", "--batch", path, "--regs", "32", "--smem", "64KB", "--format", "json",
                        "--require", "occupancy>=0.3"});
  std::remove(path.c_str());
  CHECK(r.exit_code == 1);
  auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 2);
  // Row 2 (256 threads, 64 registers, 64 KB): 3 blocks by shared memory, 24 warps, 37.5%.
  CHECK(gpucalc::testing::json_number(lines[0], "results.blocks_per_sm") == 3);
  // Row 3 (128 threads, the command line's 32 registers, 64 KB): 3 blocks, 18.75%.
  CHECK(gpucalc::testing::json_number(lines[1], "results.occupancy") == gpucalc::testing::approx(0.1875));
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0] == "line 3: requirement failed: occupancy >= 0.3 (got 0.1875)");
}

TEST_CASE("--batch - answers the rows that came through a pipe before the next arrive, to a pipe too") {
  // gpucalc between two pipes, as in `producer | gpucalc ... | consumer`: a row written and the
  // input left open, its answer must come out before more input (or its end) arrives. A stream
  // that holds rows in its own buffer until the end would leave the reader waiting.
  int to_child[2], from_child[2];
  REQUIRE(::pipe(to_child) == 0);
  REQUIRE(::pipe(from_child) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], STDOUT_FILENO);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
    ::execl(GPUCALC_BINARY, "gpucalc", "occupancy", "--batch", "-", "--format", "csv", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  const std::string rows = "threads,regs\n256,64\n";
  REQUIRE(::write(to_child[1], rows.data(), rows.size()) == static_cast<ssize_t>(rows.size()));
  // Up to 30 s for the header and the row's answer, the input still open.
  std::string out;
  for (int waited = 0; waited < 300 && out.find("\n2,h100,256,64,") == std::string::npos; ++waited) {
    pollfd ready{from_child[0], POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(from_child[0], buffer, sizeof buffer);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  CHECK(out.find("\n2,h100,256,64,") != std::string::npos);
  ::close(to_child[1]);  // the end of the input: gpucalc finishes
  char buffer[4096];
  while (::read(from_child[0], buffer, sizeof buffer) > 0) {
  }
  ::close(from_child[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("--batch - reads standard input, an unknown header names the options") {
  std::string command = "printf 'stride\\n1\\n2\\n' | ";
  command += gpucalc::testing::shell_quote(GPUCALC_BINARY);
  command += " sectors --batch - --format csv";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  CHECK(pclose(pipe) == 0);
  auto rows = table_of(out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["sectors"] == "4");
  CHECK(rows[1]["sectors"] == "8");

  const std::string path = write_temp("thread,regs\n256,64\n");
  auto r = run_gpucalc({"occupancy", "--batch", path});
  std::remove(path.c_str());
  CHECK(r.exit_code == 2);
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err_lines()[0].find("did you mean 'threads'") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("sweep points equal single calls") {
  auto sweep = run_gpucalc({"occupancy", "--threads", "256", "--regs", "64", "--smem", "40KB", "--sweep", "regs=16:128:16",
                            "--format", "csv"});
  REQUIRE(sweep.exit_code == 0);
  auto rows = table_of(sweep.out);
  REQUIRE(rows.size() == 8);
  for (const auto& row : rows) {
    auto single = run_gpucalc({"occupancy", "--threads", "256", "--regs", row.at("regs"), "--smem", "40KB", "--format", "csv"});
    auto one = table_of(single.out);
    REQUIRE(one.size() == 1);
    INFO("regs ", row.at("regs"));
    CHECK(row.at("blocks_per_sm") == one[0]["blocks_per_sm"]);
    CHECK(row.at("occupancy") == one[0]["occupancy"]);
    CHECK(row.at("limiter") == one[0]["limiter"]);
  }
  auto fusion = run_gpucalc({"fusion", "--preset", "unary", "--ops", "4", "--sweep", "n=1e4:1e8:x10", "--format", "csv"});
  REQUIRE(fusion.exit_code == 0);
  auto points = table_of(fusion.out);
  REQUIRE(points.size() == 5);  // 1e4, 1e5, 1e6, 1e7, 1e8
  for (const auto& row : points) {
    auto single = run_gpucalc({"fusion", "--preset", "unary", "--ops", "4", "--n", row.at("n"), "--format", "csv"});
    auto one = table_of(single.out);
    REQUIRE(one.size() == 1);
    CHECK(row.at("unfused_time") == one[0]["unfused_time"]);
    CHECK(row.at("speedup") == one[0]["speedup"]);
  }
  auto waves = run_gpucalc({"waves", "--blocks-per-sm", "1", "--sweep", "blocks=263:266", "--format", "csv"});
  auto wrows = table_of(waves.out);
  REQUIRE(wrows.size() == 4);
  CHECK(wrows[1].at("waves") == "2");  // 264
  CHECK(wrows[2].at("waves") == "3");  // 265
  auto tiling = run_gpucalc({"tiling", "--m", "1000", "--n", "1000", "--k", "1000", "--sweep", "tile=64:128:64", "--format", "csv"});
  auto trows = table_of(tiling.out);
  REQUIRE(trows.size() == 2);
  CHECK(trows[1].at("tiled_reads") == "16000000");
}

TEST_CASE("batch rows that repeat texts, change profiles and change forms equal their single calls") {
  // The batch keeps what a row read for the next (a quantity read once per text and clock, the
  // result slots a form leaves empty, the cells matched to options once): every row must still
  // be its own case. 672cyc is a time at the profile's clock, so the same text differs by GPU.
  const std::vector<BatchCase> cases = {
      {"little",
       {"latency", "bandwidth", "gpu"},
       {{"672cyc", "3.35TB/s", "h100"}, {"672cyc", "3.35TB/s", "a100"}, {"672cyc", "3.35TB/s", "h100"},
        {"400ns", "900GB/s", "a100"}, {"400ns", "900GB/s", "h100"}}},
      {"occupancy",
       {"threads", "regs", "smem", "suggest", "model"},
       {{"256", "64", "40KB", "", ""}, {"", "64", "0", "true", ""}, {"256", "64", "40KB", "", "simple"},
        {"1024", "255", "0", "", ""}, {"256", "64", "40KB", "", ""}, {"128", "32", "227KB", "", ""},
        {"256", "64", "40KB", "", ""}}},
  };
  for (const BatchCase& c : cases) check_rows_equal_single_calls(c);
}

TEST_CASE("a bad quantity repeated in a batch is refused on every row it is in") {
  const std::string path = write_temp("bandwidth,latency\n5XB/s,400ns\n3.35TB/s,400ns\n5XB/s,400ns\n");
  auto batch = run_gpucalc({"little", "--batch", path, "--format", "csv"});
  std::remove(path.c_str());
  CHECK(batch.exit_code == 2);
  auto rows = table_of(batch.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["error"].find("--bandwidth") != std::string::npos);
  CHECK(rows[1]["error"].empty());
  CHECK(rows[2]["error"] == "line 4" + rows[0]["error"].substr(6));
}

TEST_CASE("a cell the same as the last row's is read again for another profile, and after a row in error") {
  // A batch reads again only the cells that changed since the last row: the same text against
  // another profile (another range, another clock) is another value, and a row in error leaves
  // nothing for the next to keep.
  const BatchCase changing_profiles = {
      "occupancy",
      {"threads", "regs", "smem", "gpu"},
      {{"256", "64", "90KB", "h100"}, {"256", "64", "90KB", "v100"}, {"256", "64", "90KB", "h100"},
       {"256", "64", "90KB", ""}, {"256", "64", "90KB", "a100"}, {"256", "64", "90KB", "a100"}}};
  check_rows_equal_single_calls(changing_profiles);

  // Each row's result or message is its single call's.
  const std::vector<std::vector<std::string>> rows = {
      {"256", "100KB", "h100"},  {"256", "100KB", "v100"},    // out of v100's range
      {"256", "100KB", "v100"},                               // the same again: refused again
      {"256", "100KB", "h100"},  {"2000", "100KB", "h100"},   // --threads out of range
      {"2000", "100KB", "h100"}, {"256", "100KB", "h100"},  {"256", "100KB", "nosuch"},
      {"256", "100KB", "nosuch"}, {"256", "100KB", ""},     {"256", "672cyc", "h100"}, {"256", "672cyc", "v100"}};
  std::string csv = "threads,regs,smem,gpu\n";
  for (const auto& row : rows) csv += row[0] + ",64," + row[1] + "," + row[2] + "\n";
  const std::string path = write_temp(csv);
  auto r = run_gpucalc({"occupancy", "--batch", path, "--format", "csv"});
  std::remove(path.c_str());
  CHECK(r.exit_code == 2);
  auto batch = table_of(r.out);
  REQUIRE(batch.size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string line = std::to_string(i + 2);
    INFO("line ", line, ": ", batch[i]["error"]);
    CHECK(batch[i]["line"] == line);
    auto single = run_gpucalc({"occupancy", "--threads", rows[i][0], "--regs", "64", "--smem", rows[i][1], "--gpu",
                               rows[i][2].empty() ? "h100" : rows[i][2], "--format", "csv"});
    if (single.exit_code == 0) {
      CHECK(batch[i]["error"].empty());
      CHECK(batch[i]["blocks_per_sm"] == table_of(single.out)[0]["blocks_per_sm"]);
    } else {
      REQUIRE(single.err_lines().size() == 1);
      const std::string message = single.err_lines()[0].substr(std::string("gpucalc: ").size());
      CHECK(batch[i]["error"] == "line " + line + ": " + message);
      CHECK(batch[i]["blocks_per_sm"].empty());
    }
  }
  CHECK(r.err_lines().size() == 8);
}

TEST_CASE("empty cells take the command line's value, row after row, cell or not") {
  // Each option's value comes from its cell or, when the cell is empty, from the command line
  // or the default: a row that switches between them reads the right one.
  const std::string path = write_temp(
      "threads,regs,smem,model\n"
      "256,,,\n"
      "256,64,,\n"
      "256,,,simple\n"
      "256,,8KB,\n"
      "256,,8KB,\n"
      "256,32,,exact\n"
      "256,,,\n");
  auto r = run_gpucalc({"occupancy", "--batch", path, "--regs", "128", "--smem", "64KB", "--model", "simple",
                        "--format", "csv"});
  std::remove(path.c_str());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto rows = table_of(r.out);
  REQUIRE(rows.size() == 7);
  const std::vector<std::vector<std::string>> want = {{"128", "65536", "simple"}, {"64", "65536", "simple"},
                                                      {"128", "65536", "simple"}, {"128", "8192", "simple"},
                                                      {"128", "8192", "simple"}, {"32", "65536", "exact"},
                                                      {"128", "65536", "simple"}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("line ", i + 2);
    CHECK(rows[i]["regs"] == want[i][0]);
    CHECK(rows[i]["smem"] == want[i][1]);
    CHECK(rows[i]["model"] == want[i][2]);
    auto single = run_gpucalc({"occupancy", "--threads", "256", "--regs", want[i][0], "--smem", want[i][1], "--model",
                               want[i][2], "--format", "csv"});
    REQUIRE(single.exit_code == 0);
    CHECK(rows[i]["occupancy"] == table_of(single.out)[0]["occupancy"]);
  }
}

TEST_CASE("a cell the same as its option's default is still a given cell after a row in error") {
  // Row 3's model cell has the text row 2 read from the default; row 4 names an unknown profile
  // before its cells are read; row 5's cell is given, so --suggest refuses it as row 3.
  const std::string path = write_temp("regs,suggest,model,gpu\n64,true,,h100\n64,true,exact,h100\n64,true,,h100\n"
                                      "64,true,exact,nosuch\n64,true,exact,h100\n");
  auto r = run_gpucalc({"occupancy", "--batch", path, "--format", "csv"});
  std::remove(path.c_str());
  CHECK(r.exit_code == 2);
  auto rows = table_of(r.out);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0]["error"].empty());
  CHECK(rows[1]["error"].find("--model: 'exact' is not used") != std::string::npos);
  CHECK(rows[2]["error"].empty());
  CHECK(rows[3]["error"].find("nosuch") != std::string::npos);
  CHECK(rows[4]["error"] == "line 6: " + rows[1]["error"].substr(std::string("line 3: ").size()));
}
