#include "core/kernel_name.h"

namespace gpucalc {
namespace {

// Where the trailing parameter list "(...)" begins (its '('), or npos when the name has none.
std::size_t parameters_at(std::string_view s) {
  if (s.empty() || s.back() != ')') return std::string_view::npos;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

}  // namespace

std::string kernel_base_name(std::string_view name) {
  if (name.substr(0, 2) == "_Z") return std::string(name);
  std::string_view s = name;
  // The parameter list, unless the parentheses are the whole name ("(anonymous)").
  if (const std::size_t p = parameters_at(s); p != std::string_view::npos && p > 0) s = s.substr(0, p);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  // The return type: what stands before the last space outside <> and () ("void ", "unsigned int ");
  // "(anonymous namespace)" and template arguments keep theirs.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (c == ' ' && depth == 0) start = i + 1;
  }
  s = s.substr(start);
  // The template head: the first '<' outside parentheses, its list to the matching '>'.
  depth = 0;
  std::size_t open = std::string_view::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && depth > 0) --depth;
    if (s[i] == '<' && depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos || s.size() - open <= kTemplateHeadChars + 2) return std::string(s);
  // The first argument: to the first ',' or the closing '>' at the list's own depth.
  depth = 0;
  std::size_t end = s.size();
  bool more = false;
  for (std::size_t i = open + 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') {
      if (depth == 0) {
        end = i;
        break;
      }
      --depth;
    }
    if (c == ',' && depth == 0) {
      end = i;
      more = true;
      break;
    }
  }
  std::string_view first = s.substr(open + 1, end - open - 1);
  std::string out(s.substr(0, open + 1));
  if (first.size() > kTemplateHeadChars) {
    out.append(first.substr(0, kTemplateHeadChars));
    out += "...";
  } else {
    out.append(first);
    if (more) out += ", ...";
  }
  out += '>';
  return out;
}

std::string kernel_name(std::string_view name, NameBase base) {
  return base == NameBase::base ? kernel_base_name(name) : std::string(name);
}

}  // namespace gpucalc
