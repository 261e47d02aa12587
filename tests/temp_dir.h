// A temporary folder for a test's files (and FIFOs), removed with what is in it at the end of the scope.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace gpucalc::testing {

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/gpucalc_test_dir_XXXXXX";
    if (::mkdtemp(name) != nullptr) path_ = name;
  }
  ~TempDir() {
    if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// A file of `text` in the folder; its path.
  std::string file(const std::string& name, const std::string& text) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string path(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace gpucalc::testing
