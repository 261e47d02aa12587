// A text read a line at a time, and again from its start: the report readers (core/ncu_report.h)
// stream through one, so that a report need not be held whole. Pure: TextLines walks a text in
// memory; io/read.h's FileLines reads a file in blocks.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpucalc {

/// Lines of a text, one at a time; rewind() starts again at the first.
class LineSource {
 public:
  virtual ~LineSource() = default;
  /// The next line without its '\n' and one '\r' before it; false at the end. `length` is the
  /// line's whole length; `line` holds all of it, or, for a line longer than the source keeps,
  /// its first bytes. The view holds until the next call.
  virtual bool next(std::string_view& line, std::size_t& length) = 0;
  /// Back to the first line.
  virtual void rewind() = 0;
};

/// The lines of a text in memory (the caller keeps it).
class TextLines : public LineSource {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line, std::size_t& length) override {
    if (at_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', at_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(at_, end - at_);
    at_ = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    length = line.size();
    return true;
  }
  void rewind() override { at_ = 0; }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace gpucalc
