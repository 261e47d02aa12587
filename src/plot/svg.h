// SVG primitives for gpucalc's charts: an element writer, XML escaping, pixel coordinates as
// short numbers, and text measured well enough to lay labels out without a font library.
#pragma once

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpucalc::plot {

/// The text style every chart uses: one font, sizes in pixels.
inline constexpr const char* kFontFamily = "DejaVu Sans, Arial, Helvetica, sans-serif";
inline constexpr double kBold = 1.12;  // bold text is this much wider
inline constexpr double kTitleSize = 17, kSubtitleSize = 13, kLabelSize = 13, kTickSize = 12, kTextSize = 12;
/// A white outline under text, so labels stay readable over lines.
inline constexpr const char* kHalo =
    R"( stroke="#ffffff" stroke-width="3.5" stroke-linejoin="round" paint-order="stroke")";

/// Text escaped for XML content and attribute values (&, <, >, ", '); control characters are
/// dropped.
std::string xml_escape(std::string_view text);

/// A pixel coordinate: always finite, at most two decimals, no trailing zeros.
std::string px(double v);

/// `s` split at '\n' (an empty string is one empty line).
std::vector<std::string> split_lines(std::string_view s);

/// An estimate of the rendered width of `s` at `size` px in DejaVu Sans (a little generous, so
/// narrower fonts still fit).
double text_width(std::string_view s, double size);

/// Greedy word wrap of `s` to lines no wider than `width` px at `size`.
std::vector<std::string> wrap(std::string_view s, double size, double width);

/// An axis-aligned box in pixels.
struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

/// Whether the segment (ax, ay)-(bx, by) passes through `box` (Liang-Barsky).
bool segment_hits(double ax, double ay, double bx, double by, const Box& box);

/// The box of a (possibly multi-line) text whose first baseline is at (x, y).
Box text_box(double x, double y, const std::vector<std::string>& lines, double size, const std::string& anchor);

/// An SVG document being written, element by element.
class Svg {
 public:
  std::string out;

  template <typename... Args>
  void add(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
  }

  /// Text whose first baseline is at (x, y); '\n' starts a new line.
  void text(double x, double y, std::string_view s, double size, std::string_view anchor,
            std::string_view extra = "", std::string_view fill = "#222222");
};

/// The XML declaration, the <svg> element, its <title> and a white background.
std::string svg_open(double width, double height, const std::string& title);

}  // namespace gpucalc::plot
