// Helpers for end-to-end tests: run the gpucalc binary and read numbers out of its JSON.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpucalc::testing {

/// What one run of the binary gave.
struct Run {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
  /// The lines of stderr (without the newlines).
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
};

/// `s` in single quotes for /bin/sh.
/// The lines of `text`, without their line breaks (a last line without one is a line too).
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs GPUCALC_BINARY with `args` (each passed as one argument), from the source folder so
/// that tests/data/... paths resolve.
inline Run run_gpucalc(const std::vector<std::string>& args) {
  char err_path[] = "/tmp/gpucalc_test_err_XXXXXX";
  int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  // (Appending piece by piece: GCC 12 warns falsely about "literal" + std::string.)
  std::string command = "cd ";
  command += shell_quote(GPUCALC_SOURCE_DIR);
  command += " && ";
  command += shell_quote(GPUCALC_BINARY);
  for (const std::string& a : args) {
    command += ' ';
    command += shell_quote(a);
  }
  command += " 2>";
  command += shell_quote(err_path);
  Run r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.out.append(buffer, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  std::ifstream err(err_path);
  std::ostringstream text;
  text << err.rdbuf();
  r.err = text.str();
  std::remove(err_path);
  return r;
}

/// What one run of the binary gave, for tests that write the arguments as one shell string.
struct Ran {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs `command` with /bin/sh: its stdout, stderr and exit code.
inline Ran run_shell(const std::string& command) {
  static int serial = 0;
  std::string err_path = "/tmp/gpucalc_test_";
  err_path += std::to_string(::getpid());
  err_path += "_";
  err_path += std::to_string(serial++);
  err_path += ".err";
  Ran r;
  FILE* pipe = ::popen((command + " 2>" + err_path).c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.out.append(buffer, got);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  std::ostringstream text;
  text << err.rdbuf();
  r.err = text.str();
  std::remove(err_path.c_str());
  return r;
}

/// Runs GPUCALC_BINARY with `args` as a shell would split them ("banks --words '33*t+5'").
inline Ran run_gpucalc_shell(const std::string& args) {
  // Appended, not `std::string(GPUCALC_BINARY) + " " + args`: GCC 12 at -O3 warns falsely
  // (-Warray-bounds in char_traits::copy) on that chain of temporaries when inlined.
  std::string command = GPUCALC_BINARY;
  command += ' ';
  command += args;
  return run_shell(command);
}

/// The value at the dotted path "a.b" below `at`, or nullptr.
inline const nlohmann::json* json_path(const nlohmann::json* at, const std::string& path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at;
}

/// The first place, depth first, where the dotted `path` starts (as the old flat reader found it:
/// "ways" finds results.ways; "key" finds profiles[0].key).
inline const nlohmann::json* json_search(const nlohmann::json& at, const std::string& path) {
  if (const nlohmann::json* v = json_path(&at, path)) return v;
  if (!at.is_object() && !at.is_array()) return nullptr;
  for (const auto& child : at) {
    if (const nlohmann::json* v = json_search(child, path)) return v;
  }
  return nullptr;
}

/// The JSON value at the dotted path "a.b" of `text` (its first line when the whole is JSON
/// Lines), or nullptr.
inline const nlohmann::json* json_at(const std::string& text, const std::string& path, nlohmann::json& doc) {
  doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) doc = nlohmann::json::parse(text.substr(0, text.find('\n')), nullptr, false);
  if (doc.is_discarded()) return nullptr;
  return json_search(doc, path);
}

/// The number at `path` (NaN when missing or not a number; JSON null is NaN too).
inline double json_number(const std::string& text, const std::string& path) {
  nlohmann::json doc;
  const nlohmann::json* v = json_at(text, path, doc);
  return v != nullptr && v->is_number() ? v->get<double>() : std::nan("");
}

/// The string or literal (true/false/null) at `path`, without quotes; "" when missing.
inline std::string json_word(const std::string& text, const std::string& path) {
  nlohmann::json doc;
  const nlohmann::json* v = json_at(text, path, doc);
  if (v == nullptr) return "";
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

}  // namespace gpucalc::testing
