// src/core/ returns values and commands speak: no core file holds a command-line flag (a string
// literal with "--" before a letter, "--gpu"). The engine names a model's field by its option
// (engine/field_error.cc); a command writes the sentences (src/commands/).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The string literals of C++ source, comments left out (a comment may cite a flag: "ncu --csv").
std::vector<std::string> string_literals(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
    } else if (text[i] == '\'') {
      // A character literal: '"' must not open a string.
      for (++i; i < text.size() && text[i] != '\''; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (text[i] == '"') {
      std::string literal;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') literal += text[i++];
        literal += text[i];
      }
      out.push_back(literal);
    }
  }
  return out;
}

// "--" followed by a letter: a command-line flag.
bool names_a_flag(const std::string& literal) {
  for (std::size_t at = literal.find("--"); at != std::string::npos; at = literal.find("--", at + 1)) {
    if (at + 2 < literal.size() && std::isalpha(static_cast<unsigned char>(literal[at + 2])) != 0) return true;
  }
  return false;
}

// The text of every file of src/core, by name.
std::vector<std::pair<std::string, std::string>> core_files() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(GPUCALC_SOURCE_DIR) / "src" / "core")) {
    std::ifstream in(entry.path(), std::ios::binary);
    files.emplace_back(entry.path().filename().string(),
                       std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  }
  return files;
}

// The code of C++ source: comments and string literals blanked (a comment may say "InputError(").
std::string code_only(const std::string& text) {
  std::string out = text;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "//") == 0) {
      for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      const std::size_t end = std::min(out.find("*/", i + 2), out.size() - 2) + 2;
      for (; i < end; ++i) out[i] = out[i] == '\n' ? '\n' : ' ';
      --i;
    } else if (out[i] == '"' || out[i] == '\'') {
      const char quote = out[i];
      for (++i; i < out.size() && out[i] != quote; ++i) {
        if (out[i] == '\\') out[i++] = ' ';
        if (i < out.size()) out[i] = ' ';
      }
    }
  }
  return out;
}

// Where `code` constructs an InputError itself, a throw or a base's initializer: "InputError(" not
// part of a longer name (FieldError, QuantityError and the rest derive from it under their own names).
std::vector<std::size_t> input_error_constructions(const std::string& code) {
  std::vector<std::size_t> found;
  const std::string name = "InputError";
  for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
    const bool longer = at > 0 && (std::isalnum(static_cast<unsigned char>(code[at - 1])) != 0 || code[at - 1] == '_');
    std::size_t next = at + name.size();
    while (next < code.size() && code[next] == ' ') ++next;
    if (!longer && next < code.size() && code[next] == '(') found.push_back(at);
  }
  return found;
}

}  // namespace

TEST_CASE("string_literals finds literals, not comments, and names_a_flag finds a flag in them") {
  const std::vector<std::string> found = string_literals("a = \"--gpu x\"; // \"--not\"\n/* \"--nor\" */ c = '\"'; d = \"a \\\"--q\\\"\";");
  REQUIRE(found.size() == 2);
  CHECK(found[0] == "--gpu x");
  CHECK(names_a_flag(found[0]));
  CHECK(names_a_flag(found[1]));
  CHECK_FALSE(names_a_flag("a range 1--2 and a dash -- alone"));
}

TEST_CASE("no file of src/core names a command-line flag") {
  int files = 0;
  for (const auto& [name, text] : core_files()) {
    ++files;
    for (const std::string& literal : string_literals(text)) {
      INFO(name << ": \"" << literal << "\"");
      CHECK_FALSE(names_a_flag(literal));
    }
  }
  CHECK(files > 20);
}

TEST_CASE("input_error_constructions finds an InputError built, not one named, derived from or commented") {
  const std::string code = code_only(
      "throw InputError(\"--x\", v, a); // InputError(\n"
      "class E : public InputError {}; catch (const InputError& e) {} FieldError(f, v, Rule::above);\n"
      "const char* s = \"InputError(\"; MyInputError(y); E() : InputError (m) {}");
  const std::vector<std::size_t> found = input_error_constructions(code);
  REQUIRE(found.size() == 2);
  CHECK(found[0] == code.find("InputError("));
  CHECK(found[1] == code.find("InputError (m)"));
}

TEST_CASE("no file of src/core constructs an InputError: a model throws FieldError with a Rule") {
  // error.h defines InputError and the errors built on it (FieldError, UnreadableError): the one
  // place that may call its constructor.
  std::vector<std::string> built;  // file:line of each construction
  for (const auto& [name, text] : core_files()) {
    if (name == "error.h") continue;
    const std::string code = code_only(text);
    for (const std::size_t at : input_error_constructions(code)) {
      built.push_back(name + ":" + std::to_string(std::count(code.begin(), code.begin() + static_cast<long>(at), '\n') + 1));
    }
  }
  INFO(built.size() << " constructions, the first at " << (built.empty() ? std::string("-") : built.front()));
  CHECK(built.empty());
}
