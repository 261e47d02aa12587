// Checks of the SVG that gpucalc writes, for the tests of the charts (tests/{unit,cli}/plot_test.cc, its axes
// in tests/unit/plot_axes_test.cc): a tiny XML checker, xmllint when it is installed, and readers of
// the attributes, polylines and markers.
#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpucalc::testing {

/// Empty when `xml` is well-formed (one root, balanced tags, quoted attributes, no duplicate
/// attributes, `&` only in entities, no raw `<` or `>` in text); else what is wrong, and where.
inline std::string xml_problem(const std::string& xml) {
  std::size_t i = 0;
  const std::size_t n = xml.size();
  auto where = [&](const std::string& what) { return what + " at offset " + std::to_string(i); };
  auto entity_ok = [&](std::size_t at) {
    static const std::vector<std::string> known = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (const auto& e : known) {
      if (xml.compare(at, e.size(), e) == 0) return true;
    }
    // &#123; or &#x1F;
    std::size_t k = at + 2;
    if (xml.compare(at, 2, "&#") != 0) return false;
    bool hex = k < xml.size() && xml[k] == 'x';
    if (hex) ++k;
    std::size_t digits = 0;
    while (k < xml.size() && (hex ? std::isxdigit(static_cast<unsigned char>(xml[k])) : std::isdigit(static_cast<unsigned char>(xml[k])))) {
      ++k;
      ++digits;
    }
    return digits > 0 && k < xml.size() && xml[k] == ';';
  };
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.'; };
  if (xml.compare(0, 5, "<?xml") == 0) {
    i = xml.find("?>");
    if (i == std::string::npos) return "unterminated XML declaration";
    i += 2;
  }
  std::vector<std::string> stack;
  int roots = 0;
  while (i < n) {
    char c = xml[i];
    if (c != '<') {
      if (c == '>') return where("raw '>' in text");
      if (c == '&' && !entity_ok(i)) return where("bare '&' in text");
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(c))) return where("text outside the root");
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      auto e = xml.find("-->", i);
      if (e == std::string::npos) return where("unterminated comment");
      i = e + 3;
      continue;
    }
    if (xml.compare(i, 2, "</") == 0) {
      std::size_t s = i + 2, e = s;
      while (e < n && is_name(xml[e])) ++e;
      std::string name = xml.substr(s, e - s);
      while (e < n && std::isspace(static_cast<unsigned char>(xml[e]))) ++e;
      if (e >= n || xml[e] != '>') return where("malformed end tag");
      if (stack.empty() || stack.back() != name) return where("end tag </" + name + "> does not match");
      stack.pop_back();
      i = e + 1;
      continue;
    }
    // Start tag.
    std::size_t s = i + 1, e = s;
    while (e < n && is_name(xml[e])) ++e;
    std::string name = xml.substr(s, e - s);
    if (name.empty()) return where("'<' that starts no tag");
    std::set<std::string> attributes;
    bool self_closing = false;
    while (true) {
      while (e < n && std::isspace(static_cast<unsigned char>(xml[e]))) ++e;
      if (e >= n) return where("unterminated tag <" + name);
      if (xml[e] == '>') break;
      if (xml.compare(e, 2, "/>") == 0) {
        self_closing = true;
        ++e;
        break;
      }
      std::size_t a = e;
      while (e < n && is_name(xml[e])) ++e;
      std::string attribute = xml.substr(a, e - a);
      if (attribute.empty() || e >= n || xml[e] != '=') return where("malformed attribute in <" + name);
      if (!attributes.insert(attribute).second) return where("duplicate attribute " + attribute);
      ++e;
      if (e >= n || (xml[e] != '"' && xml[e] != '\'')) return where("unquoted attribute " + attribute);
      char quote = xml[e];
      auto close = xml.find(quote, e + 1);
      if (close == std::string::npos) return where("unterminated attribute " + attribute);
      for (std::size_t k = e + 1; k < close; ++k) {
        if (xml[k] == '<') return where("'<' in attribute " + attribute);
        if (xml[k] == '&' && !entity_ok(k)) return where("bare '&' in attribute " + attribute);
      }
      e = close + 1;
      if (e < n && !std::isspace(static_cast<unsigned char>(xml[e])) && xml[e] != '>' && xml[e] != '/') {
        return where("no space after attribute " + attribute);
      }
    }
    if (stack.empty()) ++roots;
    if (roots > 1) return where("a second root element");
    if (!self_closing) stack.push_back(name);
    i = e + 1;
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "no root element";
  return "";
}

/// xmllint's verdict when it is installed ("" when well-formed or when it is not there).
inline std::string xmllint_problem(const std::string& svg) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) return "";
  auto path = std::filesystem::temp_directory_path() / ("gpucalc_plot_test_" + std::to_string(::getpid()) + "_" + std::to_string(std::rand()) + ".svg");
  std::ofstream(path) << svg;
  std::string command = "xmllint --noout '" + path.string() + "' 2>&1";
  std::string output;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, p)) output += buffer;
    int rc = pclose(p);
    if (rc != 0 && output.empty()) output = "xmllint failed";
  }
  std::filesystem::remove(path);
  return output;
}

/// The values of `attribute` in every element that starts with `element` (any element when
/// empty), in order.
inline std::vector<std::string> attribute_values(const std::string& svg, const std::string& element, const std::string& attribute) {
  std::vector<std::string> out;
  const std::string start = element.empty() ? "<" : element;
  for (auto at = svg.find(start); at != std::string::npos; at = svg.find(start, at + 1)) {
    auto end = svg.find('>', at);
    std::string tag = svg.substr(at, end == std::string::npos ? std::string::npos : end - at);
    auto a = tag.find(" " + attribute + "=\"");
    if (a == std::string::npos) continue;
    a += attribute.size() + 3;
    out.push_back(tag.substr(a, tag.find('"', a) - a));
  }
  return out;
}

/// Whether a number came out as nan or inf ("inflight" and such are not in our labels).
inline bool has_non_finite(const std::string& svg) {
  for (const char* bad : {"nan", "NaN", "inf", "Inf"}) {
    for (auto at = svg.find(bad); at != std::string::npos; at = svg.find(bad, at + 1)) {
      std::size_t before = at > 0 && svg[at - 1] == '-' ? at - 1 : at;
      char c = before > 0 ? svg[before - 1] : ' ';
      char after = at + 3 < svg.size() ? svg[at + 3] : '"';
      if (std::string("\"=, >").find(c) != std::string::npos && std::string("\" ,<)").find(after) != std::string::npos) return true;
    }
  }
  return false;
}

/// Checks that every chart must pass: well-formed (xmllint too, unless `lint` is false), SVG 1.1
/// header, no NaN or infinity, readable font sizes.
inline void check_svg(const std::string& svg, bool lint = true) {
  CHECK_MESSAGE(xml_problem(svg) == "", svg.substr(0, 400));
  if (lint) CHECK(xmllint_problem(svg) == "");
  CHECK(svg.find(R"(xmlns="http://www.w3.org/2000/svg")") != std::string::npos);
  CHECK(svg.find(R"(version="1.1")") != std::string::npos);
  CHECK(svg.find("viewBox=\"0 0 ") != std::string::npos);
  CHECK(svg.find("width=\"") != std::string::npos);
  CHECK(svg.find("sans-serif") != std::string::npos);
  CHECK_MESSAGE(!has_non_finite(svg), svg.substr(0, 400));
  // Every font size is readable.
  for (const std::string& size : attribute_values(svg, "", "font-size")) CHECK(std::stod(size) >= 11);
}

inline bool contains(const std::string& svg, const std::string& text) { return svg.find(text) != std::string::npos; }

/// The points of every <polyline class="series">, in order.
inline std::vector<std::vector<std::pair<double, double>>> polylines(const std::string& svg) {
  std::vector<std::vector<std::pair<double, double>>> out;
  for (const std::string& list : attribute_values(svg, "<polyline class=\"series\"", "points")) {
    std::vector<std::pair<double, double>> points;
    std::size_t i = 0;
    while (i < list.size()) {
      auto comma = list.find(',', i);
      auto space = list.find(' ', i);
      if (comma == std::string::npos) break;
      points.emplace_back(std::stod(list.substr(i, comma - i)), std::stod(list.substr(comma + 1, space - comma - 1)));
      i = space == std::string::npos ? list.size() : space + 1;
    }
    out.push_back(points);
  }
  return out;
}

inline std::vector<std::pair<double, double>> marker_centres(const std::string& svg) {
  std::vector<std::pair<double, double>> out;
  auto cx = attribute_values(svg, "<circle class=\"marker\"", "cx");
  auto cy = attribute_values(svg, "<circle class=\"marker\"", "cy");
  for (std::size_t i = 0; i < cx.size() && i < cy.size(); ++i) out.emplace_back(std::stod(cx[i]), std::stod(cy[i]));
  return out;
}

}  // namespace gpucalc::testing
