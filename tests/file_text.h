// A file's whole text, as bytes (empty when it cannot be read).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace gpucalc::testing {

inline std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gpucalc::testing
