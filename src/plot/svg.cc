// SVG primitives (see svg.h).
#include "plot/svg.h"

#include <algorithm>
#include <cmath>

namespace gpucalc::plot {
namespace {

/// UTF-8 code points of `s` (invalid bytes count as one each).
std::vector<char32_t> code_points(std::string_view s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
    if (i + static_cast<std::size_t>(len) > s.size()) len = 1;
    char32_t cp = len == 1 ? c : static_cast<char32_t>(c & (0x7f >> len));
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0x3f);
    out.push_back(cp);
    i += static_cast<std::size_t>(len);
  }
  return out;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += c;
    }
  }
  return out;
}

std::string px(double v) {
  if (!std::isfinite(v)) v = 0;
  v = std::clamp(v, -1e5, 1e5);
  std::string s = fmt::format("{:.2f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0" || s.empty()) return std::string(1, '0');
  return s;
}

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    auto nl = s.find('\n', start);
    lines.emplace_back(s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

double text_width(std::string_view s, double size) {
  double em = 0;
  for (char32_t c : code_points(s)) {
    if (c == ' ') {
      em += 0.32;
    } else if (c < 0x80 && std::string_view("il.,:;|!'`").find(static_cast<char>(c)) != std::string_view::npos) {
      em += 0.30;
    } else if (c < 0x80 && std::string_view("fjrt()[]-/").find(static_cast<char>(c)) != std::string_view::npos) {
      em += 0.42;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '%') {
      em += 0.95;
    } else if (c >= 'A' && c <= 'Z') {
      em += 0.72;
    } else if (c >= '0' && c <= '9') {
      em += 0.64;
    } else {
      em += 0.62;
    }
  }
  return em * size;
}

std::vector<std::string> wrap(std::string_view s, double size, double width) {
  std::vector<std::string> out;
  for (const std::string& paragraph : split_lines(s)) {
    std::string line;
    std::size_t i = 0;
    while (i < paragraph.size()) {
      auto sp = paragraph.find(' ', i);
      std::string word = paragraph.substr(i, sp == std::string::npos ? std::string::npos : sp - i);
      i = sp == std::string::npos ? paragraph.size() : sp + 1;
      if (word.empty()) continue;
      std::string candidate = line.empty() ? word : line + " " + word;
      if (!line.empty() && text_width(candidate, size) > width) {
        out.push_back(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

bool segment_hits(double ax, double ay, double bx, double by, const Box& box) {
  double dx = bx - ax, dy = by - ay;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {ax - box.x0, box.x1 - ax, ay - box.y0, box.y1 - ay};
  double t0 = 0, t1 = 1;
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
    } else {
      double r = q[i] / p[i];
      if (p[i] < 0) {
        if (r > t1) return false;
        t0 = std::max(t0, r);
      } else {
        if (r < t0) return false;
        t1 = std::min(t1, r);
      }
    }
  }
  return true;
}

Box text_box(double x, double y, const std::vector<std::string>& lines, double size, const std::string& anchor) {
  double w = 0;
  for (const auto& l : lines) w = std::max(w, text_width(l, size));
  double x0 = anchor == "start" ? x : anchor == "end" ? x - w : x - w / 2;
  double y0 = y - size * 0.85;
  double h = size * (1.2 * static_cast<double>(lines.size() - 1) + 1.1);
  return {x0 - 2, y0 - 1, x0 + w + 2, y0 + h + 1};
}

void Svg::text(double x, double y, std::string_view s, double size, std::string_view anchor, std::string_view extra,
               std::string_view fill) {
  auto lines = split_lines(s);
  add(R"(<text x="{}" y="{}" font-size="{}" text-anchor="{}" fill="{}"{}>)", px(x), px(y), px(size), anchor, fill, extra);
  if (lines.size() == 1) {
    out += xml_escape(lines[0]);
  } else {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      add(R"(<tspan x="{}" dy="{}">{}</tspan>)", px(x), i == 0 ? "0" : "1.2em", xml_escape(lines[i]));
    }
  }
  out += "</text>\n";
}

std::string svg_open(double width, double height, const std::string& title) {
  Svg svg;
  svg.add("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  svg.add(R"(<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{}" height="{}" viewBox="0 0 {} {}" font-family="{}">)",
          px(width), px(height), px(width), px(height), kFontFamily);
  svg.add("\n<title>{}</title>\n", xml_escape(title.empty() ? std::string("chart") : title));
  svg.add(R"(<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>)", px(width), px(height));
  svg.add("\n");
  return svg.out;
}

}  // namespace gpucalc::plot
