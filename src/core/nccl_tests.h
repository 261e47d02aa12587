// nccl-tests' text output read back (all_reduce_perf and its siblings, NVIDIA/nccl-tests): the
// devices' lines ("#  Rank  3 Group  0 Pid ... on HOST device 3 [...] NAME"), the program's
// name where the log gives it ("# Collective test starting: all_reduce_perf"), the column header
// ("#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ..."), and a row per
// size: out-of-place and in-place time, algbw and busbw. Lines of anything else (NCCL INFO,
// a shell's prompt) are passed over; a row that breaks the header's columns is an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective.h"
#include "core/error.h"

namespace gpucalc {

inline constexpr std::size_t kNcclMaxLineBytes = 4096;
inline constexpr std::size_t kNcclMaxRows = 100000;
inline constexpr std::size_t kNcclMaxRanks = 1 << 20;

/// One measurement of a row: out-of-place or in-place.
struct NcclPlacement {
  double time = 0;    // seconds
  double algbw = 0;   // bytes/s (nccl-tests prints GB/s, 1e9 bytes)
  double busbw = 0;   // bytes/s
  double wrong = -1;  // wrong elements; -1: N/A
};

struct NcclRow {
  long line = 0;
  double size = 0;   // bytes
  double count = 0;  // elements
  std::string type, redop;
  NcclPlacement out_of_place, in_place;
};

struct NcclLog {
  bool op_known = false;
  CollectiveOp op = CollectiveOp::allreduce;
  std::string program;          // all_reduce_perf, where the log names it
  std::int64_t ranks = 0;       // "Rank" lines; 0: none in the log
  std::int64_t hosts = 0;       // distinct hosts of those lines
  std::string device;           // the first rank's device name
  std::vector<NcclRow> rows;
};

/// What made a log unreadable; NcclLogError carries it with the line and what was found.
enum class NcclProblem {
  long_line,     // a line over kNcclMaxLineBytes
  many_rows,     // more than kNcclMaxRows rows
  many_ranks,    // more than kNcclMaxRanks rank lines
  no_header,     // no column header with size, time, algbw and busbw
  no_rows,       // a header but no row under it
  row_columns,   // a row whose columns are not the header's (found: how many, expected: the header's)
  bad_number,    // a cell that is not the number its column holds (found: the cell, expected: the column)
  bad_header,    // a header without two placements of time, algbw and busbw
};

class NcclLogError : public UnreadableError {
 public:
  NcclLogError(long line, NcclProblem problem, std::string found = {}, std::string expected = {})
      : UnreadableError("", line, static_cast<int>(problem)), line_(line), problem_(problem),
        found_(std::move(found)), expected_(std::move(expected)) {}
  long line() const { return line_; }
  NcclProblem problem() const { return problem_; }
  const std::string& found() const { return found_; }
  const std::string& expected() const { return expected_; }

 private:
  long line_;
  NcclProblem problem_;
  std::string found_, expected_;
};

/// Reads nccl-tests' text output. Throws NcclLogError.
NcclLog read_nccl_log(std::string_view text);

}  // namespace gpucalc
