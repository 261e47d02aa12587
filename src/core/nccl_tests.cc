#include "core/nccl_tests.h"

#include <charconv>
#include <cmath>
#include <set>

namespace gpucalc {
namespace {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool all_digits(std::string_view w) {
  if (w.empty()) return false;
  for (char c : w) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A finite number, the whole cell: 1806.7, 0.00, 1.2e+03, -1
bool number(std::string_view w, double& v) {
  const char* end = w.data() + w.size();
  auto [p, ec] = std::from_chars(w.data(), end, v);
  return ec == std::errc() && p == end && std::isfinite(v);
}

// The columns a row has, from the header: the leading ones (size count type [redop] [root]) and
// the two placements of time, algbw, busbw and #wrong (or error).
struct Columns {
  std::size_t size = 0, count = 1, type = 2, redop = 0;
  bool has_redop = false;
  std::size_t first = 0;  // the first placement's time
  std::size_t total = 0;
  double time_unit = 1e-6;  // nccl-tests prints microseconds
};

bool header_of(const std::vector<std::string_view>& w, long line, Columns& c) {
  // "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ..." ("#" apart or not)
  std::size_t at = 0;
  if (!w.empty() && w[0] == "#") at = 1;
  if (w.size() <= at || !(w[at] == "size" || w[at] == "#size")) return false;
  std::vector<std::string_view> cols(w.begin() + static_cast<long>(at), w.end());
  std::size_t time = cols.size();
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (cols[i] == "time") {
      time = i;
      break;
    }
  }
  if (time == cols.size()) return false;
  // two placements of time, algbw, busbw and a fourth column (#wrong, error)
  if (cols.size() != time + 8 || cols[time + 1] != "algbw" || cols[time + 2] != "busbw" || cols[time + 4] != "time" ||
      cols[time + 5] != "algbw" || cols[time + 6] != "busbw" || time < 3) {
    throw NcclLogError(line, NcclProblem::bad_header, std::string(cols.back()));
  }
  c = Columns{};
  c.first = time;
  c.total = cols.size();
  for (std::size_t i = 0; i < time; ++i) {
    if (cols[i] == "redop") {
      c.redop = i;
      c.has_redop = true;
    }
  }
  return true;
}

void placement(const std::vector<std::string_view>& w, std::size_t at, const Columns& c, long line, NcclPlacement& p) {
  static const char* names[] = {"time", "algbw", "busbw"};
  double v[3] = {0, 0, 0};
  for (std::size_t k = 0; k < 3; ++k) {
    if (!number(w[at + k], v[k]) || v[k] < 0) throw NcclLogError(line, NcclProblem::bad_number, std::string(w[at + k]), names[k]);
  }
  p.time = v[0] * c.time_unit;
  p.algbw = v[1] * 1e9;  // nccl-tests: bytes / 1e9 / seconds
  p.busbw = v[2] * 1e9;
  const std::string_view wrong = w[at + 3];
  if (wrong == "N/A") {
    p.wrong = -1;
  } else if (!number(wrong, p.wrong) || p.wrong < 0) {
    throw NcclLogError(line, NcclProblem::bad_number, std::string(wrong), "#wrong");
  }
}

}  // namespace

NcclLog read_nccl_log(std::string_view text) {
  NcclLog log;
  Columns c;
  bool header = false;
  long header_line = 0;
  std::set<std::string, std::less<>> hosts;
  long line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.size() > kNcclMaxLineBytes) {
      throw NcclLogError(line_no, NcclProblem::long_line, std::to_string(line.size()), std::to_string(kNcclMaxLineBytes));
    }
    const std::vector<std::string_view> w = words(line);
    if (w.empty()) continue;
    if (w[0][0] == '#') {
      // "# Collective test starting: all_reduce_perf"
      if (w.size() >= 5 && w[1] == "Collective" && w[2] == "test" && w[3] == "starting:") {
        log.program = std::string(w[4]);
        log.op_known = collective_op_of(w[4], log.op);
      }
      // "#  Rank  3 Group  0 Pid 123 on HOST device  3 [0x..] NAME" (older logs: no Group)
      if (w.size() >= 4 && w[1] == "Rank" && all_digits(w[2])) {
        if (++log.ranks > static_cast<std::int64_t>(kNcclMaxRanks)) {
          throw NcclLogError(line_no, NcclProblem::many_ranks, std::to_string(log.ranks), std::to_string(kNcclMaxRanks));
        }
        for (std::size_t i = 3; i + 1 < w.size(); ++i) {
          if (w[i] == "on") {
            hosts.emplace(w[i + 1]);
            break;
          }
        }
        if (log.device.empty()) {
          const std::size_t bracket = line.find(']');
          if (bracket != std::string_view::npos) {
            std::string_view name = line.substr(bracket + 1);
            while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
            while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.remove_suffix(1);
            log.device = std::string(name.substr(0, 200));
          }
        }
      }
      Columns found;
      if (header_of(w, line_no, found)) {
        c = found;
        header = true;
        header_line = line_no;
      }
      // the units line, "#  (B)  (elements)  (us)  (GB/s) ...": milliseconds in some old versions
      if (header && w.size() >= 3 && (w[1] == "(B)" || w[0] == "(B)")) {
        for (std::string_view u : w) {
          if (u == "(ms)") c.time_unit = 1e-3;
        }
      }
      continue;
    }
    // a row begins with its size; any other line (NCCL INFO, a prompt) is not nccl-tests' table
    if (!all_digits(w[0]) || !header) continue;
    if (w.size() != c.total) {
      throw NcclLogError(line_no, NcclProblem::row_columns, std::to_string(w.size()), std::to_string(c.total));
    }
    if (log.rows.size() >= kNcclMaxRows) {
      throw NcclLogError(line_no, NcclProblem::many_rows, std::to_string(log.rows.size() + 1), std::to_string(kNcclMaxRows));
    }
    NcclRow row;
    row.line = line_no;
    if (!number(w[c.size], row.size) || row.size > 1e18) throw NcclLogError(line_no, NcclProblem::bad_number, std::string(w[c.size]), "size");
    if (!all_digits(w[c.count]) || !number(w[c.count], row.count)) {
      throw NcclLogError(line_no, NcclProblem::bad_number, std::string(w[c.count]), "count");
    }
    row.type = std::string(w[c.type].substr(0, 32));
    if (c.has_redop) row.redop = std::string(w[c.redop].substr(0, 32));
    placement(w, c.first, c, line_no, row.out_of_place);
    placement(w, c.first + 4, c, line_no, row.in_place);
    log.rows.push_back(std::move(row));
  }
  if (!header) throw NcclLogError(line_no, NcclProblem::no_header);
  if (log.rows.empty()) throw NcclLogError(header_line, NcclProblem::no_rows);
  log.hosts = static_cast<std::int64_t>(hosts.size());
  return log;
}

}  // namespace gpucalc
