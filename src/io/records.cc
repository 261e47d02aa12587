#include "io/records.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace gpucalc::io {

std::string_view RecordReader::first_line_again() {
  read_again(first_size_ + 1);
  joined_ = false;
  std::string_view first = std::string_view(record_text_).substr(0, first_size_);
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  return first;
}

void RecordReader::put_back(char c) {
  if (c == '\0') {
    not_text_ = eof_ = true;
    return;
  }
  buffer_[0] = c;
  pos_ = 0;
  end_ = 1;
}

std::string_view RecordReader::join(std::string_view first, long first_line) {
  record_text_.assign(first);
  first_size_ = first.size();
  first_line_ = first_line;
  std::string_view more;
  bool open = true;
  while (open) {
    const Got got = read_line(more);
    const bool fits = got == Got::line && record_text_.size() + 1 + more.size() <= limits_.max_record_bytes;
    if (got == Got::line) {
      record_text_ += '\n';
      record_text_ += more;
    }
    if (!fits) {
      if (got != Got::line && got != Got::end) pending_ = got;  // comes again after the lines read again
      read_again(first_size_ + 1);
      return std::string_view(record_text_).substr(0, first_size_);
    }
    open = quotes_open(more) ? !open : open;
  }
  joined_ = true;
  return record_text_;
}

void RecordReader::read_again(std::size_t from) {
  // (from is one past a line break of the record, or past its end when it is one line.)
  std::string again = from <= record_text_.size() ? record_text_.substr(from) + "\n" : std::string();
  if (replaying_) {
    again.append(data_ + pos_, end_ - pos_);
  } else {
    main_pos_ = pos_;
    main_end_ = end_;
  }
  replay_.swap(again);
  replaying_ = true;
  data_ = replay_.data();
  pos_ = 0;
  end_ = replay_.size();
  line_ = first_line_;
}

RecordReader::Got RecordReader::read_line_slow(std::string_view& line) {
  if (replaying_) return end_replay(line);  // every line read again ends in '\n'
  line_text_.clear();
  bool any = false, ended = false;  // ended: the input ended before a line break
  std::size_t seen = 0;
  while (true) {
    if (pos_ == end_ && !fill()) {
      ended = true;
      break;
    }
    any = true;
    const char* from = data_ + pos_;
    const char* stop = static_cast<const char*>(std::memchr(from, '\n', end_ - pos_));
    const std::size_t n = stop != nullptr ? static_cast<std::size_t>(stop - from) : end_ - pos_;
    const std::size_t room = limits_.max_record_bytes + 1 - std::min(line_text_.size(), limits_.max_record_bytes + 1);
    line_text_.append(from, std::min(n, room));
    pos_ += n;
    seen += n;
    if (stop != nullptr) {
      ++pos_;  // the '\n'
      break;
    }
    if (seen > limits_.max_skip_bytes) {
      ++line_;
      eof_ = true;
      return Got::endless;
    }
  }
  if (ended && (not_text_ || too_many_lines_)) {  // the line has the NUL byte, or is one too many
    ++line_;
    return not_text_ ? Got::not_text : Got::too_many_lines;
  }
  if (!any) return Got::end;
  ++line_;
  if (line_text_.size() > limits_.max_record_bytes) return Got::too_long;
  line = line_text_;
  return Got::line;
}

void RecordReader::stop() {
  eof_ = true;
  not_text_ = too_many_lines_ = replaying_ = false;
  pending_ = Got::line;
  data_ = buffer_.data();
  pos_ = end_ = 0;
}

RecordReader::Got RecordReader::end_replay(std::string_view& line) {
  replaying_ = false;
  data_ = buffer_.data();
  pos_ = main_pos_;
  end_ = main_end_;
  if (pending_ == Got::line) return read_line(line);
  const Got got = pending_;
  pending_ = Got::line;
  ++line_;
  return got;
}

bool RecordReader::fill() {
  if (eof_) return false;
  if (line_ >= limits_.max_lines) {  // checked a block at a time
    too_many_lines_ = eof_ = true;
    return false;
  }
  before_wait_();
  pos_ = 0;
  end_ = 0;
  if (fd_ >= 0) {
    // A file or standard input: what is there now, so rows arriving on a pipe are answered as they come.
    ssize_t got;
    do {
      got = ::read(fd_, buffer_.data(), buffer_.size());
    } while (got < 0 && errno == EINTR);
    if (got > 0) end_ = static_cast<std::size_t>(got);
  } else {
    in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    end_ = static_cast<std::size_t>(in_.gcount());
  }
  // A NUL byte: not a text file (/dev/zero, a binary). The lines before it are read.
  if (const void* nul = std::memchr(buffer_.data(), '\0', end_)) {
    end_ = static_cast<std::size_t>(static_cast<const char*>(nul) - buffer_.data());
    not_text_ = true;
    eof_ = true;
  }
  if (end_ == 0) eof_ = true;
  return end_ > 0;
}

}  // namespace gpucalc::io
