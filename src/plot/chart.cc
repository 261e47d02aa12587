// The line chart (see chart.h): the frame is laid out first (frame.h), then drawn back to front:
// bands, grid, axes, series, vertical lines, markers, notes; then the labels that are placed
// around what is drawn (placer.h), then the legend.
#include "plot/chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "plot/frame.h"
#include "plot/placer.h"
#include "plot/svg.h"

namespace gpucalc::plot {
namespace {

constexpr std::array<const char*, 8> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                 "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr std::array<const char*, 4> kBandFill = {"#fdebd3", "#dce9f7", "#e2f2dc", "#efe2f4"};

/// Whether the space-separated `style` contains `word`.
bool style_has(const std::string& style, std::string_view word) {
  std::size_t i = 0;
  while (i <= style.size()) {
    auto sp = style.find(' ', i);
    if (std::string_view(style).substr(i, sp == std::string::npos ? std::string::npos : sp - i) == word) return true;
    if (sp == std::string::npos) break;
    i = sp + 1;
  }
  return false;
}

/// The stroke-dasharray attribute of a "dashed" or "dotted" style; empty for a solid line.
std::string dash_of(const std::string& style) {
  if (style_has(style, "dashed")) return R"( stroke-dasharray="7 5")";
  if (style_has(style, "dotted")) return R"( stroke-dasharray="2 4")";
  return "";
}

/// The polylines of one series, in pixels: runs of drawable points; for "step", each sample
/// holds its value half-way to its neighbours (2n corners for n samples).
std::vector<std::vector<Point>> series_runs(const Series& s, const Layout& l) {
  std::vector<std::vector<Point>> runs(1);
  for (const auto& [x, y] : s.points) {
    if (!drawable(x, l.x.log) || !drawable(y, l.y.log)) {
      if (!runs.back().empty()) runs.emplace_back();
      continue;
    }
    runs.back().emplace_back(l.x.to_pixel(x), l.y.to_pixel(y));
  }
  if (runs.back().empty()) runs.pop_back();
  if (!style_has(s.style, "step")) return runs;
  for (auto& run : runs) {
    if (run.size() < 2) continue;
    std::vector<Point> corners = {run.front()};
    for (std::size_t i = 1; i < run.size(); ++i) {
      double mid = (run[i - 1].first + run[i].first) / 2;
      corners.emplace_back(mid, run[i - 1].second);
      corners.emplace_back(mid, run[i].second);
    }
    corners.push_back(run.back());
    run = std::move(corners);
  }
  return runs;
}

/// The pixel x of a vertical line, or nothing when it lies outside the plot.
std::optional<double> vline_pixel(const VLine& v, const Layout& l) {
  if (!drawable(v.x, l.x.log)) return std::nullopt;
  double X = l.x.to_pixel(v.x);
  if (X < l.left - 0.5 || X > l.right + 0.5) return std::nullopt;
  return X;
}

// ---------------------------------------------------------------- back to front

void draw_titles(Svg& svg, const Frame& f, double W) {
  for (std::size_t i = 0; i < f.title_lines.size(); ++i) {
    svg.text(W / 2, f.title_y + 22.0 * static_cast<double>(i), f.title_lines[i], kTitleSize, "middle",
             R"( font-weight="bold")");
  }
  for (std::size_t i = 0; i < f.subtitle_lines.size(); ++i) {
    svg.text(W / 2, f.subtitle_y + 18.0 * static_cast<double>(i), f.subtitle_lines[i], kSubtitleSize, "middle", "",
             "#555555");
  }
}

void draw_no_data(Svg& svg, const Layout& l, double W) {
  svg.add(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999999"/>)", px(l.left), px(l.top),
          px(l.right - l.left), px(l.bottom - l.top));
  svg.add("\n");
  svg.text(W / 2, (l.top + l.bottom) / 2, "no data", 16, "middle", "", "#777777");
}

/// A band as drawn: its pixel span, clipped to the x range.
struct BandSpan {
  double x0, x1;
  const Band* band;
};

std::vector<BandSpan> draw_bands(Svg& svg, const Chart& chart, const Layout& l) {
  std::vector<BandSpan> spans;
  for (std::size_t i = 0; i < chart.bands.size(); ++i) {
    const Band& b = chart.bands[i];
    double a = b.x0, c = b.x1;
    if (std::isnan(a) || std::isnan(c)) continue;
    if (a > c) std::swap(a, c);
    if (l.x.log && c <= 0) continue;
    double lo = std::min(l.x.lo, l.x.hi), hi = std::max(l.x.lo, l.x.hi);
    a = std::clamp(a, lo, hi);
    c = std::clamp(c, lo, hi);
    if (l.x.log && a <= 0) a = lo;
    double X0 = l.x.to_pixel(a), X1 = l.x.to_pixel(c);
    if (X1 - X0 < 0.5) continue;
    svg.add(R"(<rect class="band" x="{}" y="{}" width="{}" height="{}" fill="{}"/>)", px(X0), px(l.top), px(X1 - X0),
            px(l.bottom - l.top), kBandFill[i % kBandFill.size()]);
    svg.add("\n");
    spans.push_back({X0, X1, &b});
  }
  return spans;
}

/// Vertical lines at `xs` from y0 to y1 and horizontal ones at `ys` from x0 to x1, with `extra`
/// attributes on each.
void draw_lines(Svg& svg, const std::vector<double>& xs, double y0, double y1, const std::vector<double>& ys, double x0,
                double x1, std::string_view extra) {
  for (double X : xs) svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"{}/>)", px(X), px(y0), px(X), px(y1), extra);
  for (double Y : ys) svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"{}/>)", px(x0), px(Y), px(x1), px(Y), extra);
}

std::vector<double> pixels(const Scale& s, const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) out.push_back(s.to_pixel(v));
  return out;
}

std::vector<double> pixels(const Scale& s, const std::vector<Tick>& ticks) {
  std::vector<double> out;
  for (const Tick& t : ticks) out.push_back(s.to_pixel(t.value));
  return out;
}

/// The grid across the plot, the plot's border, and the tick marks outside it (minor ticks
/// fainter and shorter).
void draw_grid(Svg& svg, const Frame& f) {
  const Layout& l = f.layout;
  const auto x_minor = pixels(l.x, f.x_minor), y_minor = pixels(l.y, f.y_minor);
  const auto x_major = pixels(l.x, f.x_ticks), y_major = pixels(l.y, f.y_ticks);
  svg.add(R"(<g stroke="#000000" stroke-opacity="0.09" stroke-width="1">)");
  draw_lines(svg, x_minor, l.top, l.bottom, y_minor, l.left, l.right, R"( stroke-opacity="0.04")");
  draw_lines(svg, x_major, l.top, l.bottom, y_major, l.left, l.right, "");
  svg.add("</g>\n");
  svg.add(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888888"/>)", px(l.left), px(l.top),
          px(l.right - l.left), px(l.bottom - l.top));
  svg.add("\n");
  svg.add(R"(<g stroke="#888888" stroke-width="1">)");
  draw_lines(svg, x_minor, l.bottom, l.bottom + 3, y_minor, l.left - 3, l.left, "");
  draw_lines(svg, x_major, l.bottom, l.bottom + 5, y_major, l.left - 5, l.left, "");
  svg.add("</g>\n");
}

/// Tick labels and the axis titles (the y title turned upright).
void draw_axis_labels(Svg& svg, const Chart& chart, const Frame& f, double H) {
  const Layout& l = f.layout;
  for (const Tick& t : f.x_ticks) {
    svg.text(l.x.to_pixel(t.value), l.bottom + 8 + kTickSize, t.label, kTickSize, "middle", "", "#444444");
  }
  for (const Tick& t : f.y_ticks) {
    svg.text(l.left - 8, l.y.to_pixel(t.value) + kTickSize * 0.35, t.label, kTickSize, "end", "", "#444444");
  }
  if (!chart.x_label.empty()) {
    svg.text((l.left + l.right) / 2, H - 14, chart.x_label, kLabelSize, "middle");
  }
  if (!chart.y_label.empty()) {
    double cx = 14 + kLabelSize, cy = (l.top + l.bottom) / 2;
    svg.text(cx, cy, chart.y_label, kLabelSize, "middle",
             fmt::format(R"~( transform="rotate(-90 {} {})")~", px(cx), px(cy)));
  }
}

/// Each series' colour: its own, or the next one of the palette.
std::vector<std::string> series_colors(const Chart& chart) {
  std::vector<std::string> colors;
  std::size_t next_color = 0;
  for (const Series& s : chart.series) {
    colors.push_back(!s.color.empty() ? s.color : kPalette[next_color++ % kPalette.size()]);
  }
  return colors;
}

/// One run of a series: dots for "points" (or a lone point), else a polyline.
void draw_run(Svg& svg, const std::vector<Point>& run, const Series& s, const std::string& color) {
  bool points_only = style_has(s.style, "points");
  if (points_only || run.size() == 1) {
    for (const auto& [X, Y] : run) {
      svg.add(R"(<circle class="point" cx="{}" cy="{}" r="3" fill="{}"/>)", px(X), px(Y), color);
    }
    if (points_only) return;
  }
  if (run.size() < 2) return;
  double width = style_has(s.style, "thick") ? 3 : 2;
  svg.add(R"(<polyline class="series" fill="none" stroke="{}" stroke-width="{}" stroke-linejoin="round"{} points=")",
          color, px(width), dash_of(s.style));
  for (std::size_t k = 0; k < run.size(); ++k) svg.add("{}{},{}", k ? " " : "", px(run[k].first), px(run[k].second));
  svg.add("\"/>\n");
}

/// The series, clipped to the plot; returns their segments (for label placement).
std::vector<Segment> draw_series(Svg& svg, const Chart& chart, const Layout& l, const std::vector<std::string>& colors) {
  std::vector<Segment> segments;
  svg.add(R"~(<g clip-path="url(#plot-area)">)~");
  svg.add("\n");
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const std::string color = xml_escape(colors[i]);
    for (const auto& run : series_runs(chart.series[i], l)) {
      for (std::size_t k = 1; k < run.size(); ++k) segments.push_back({run[k - 1], run[k]});
      draw_run(svg, run, chart.series[i], color);
    }
  }
  svg.add("</g>\n");
  return segments;
}

/// The vertical lines (their labels come later, placed around everything else).
void draw_vlines(Svg& svg, const Chart& chart, const Layout& l, Placer& placer) {
  for (const VLine& v : chart.vlines) {
    auto X = vline_pixel(v, l);
    if (!X) continue;
    svg.add(
        R"(<line class="vline" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444444" stroke-width="1.5" stroke-dasharray="5 4"/>)",
        px(*X), px(l.top), px(*X), px(l.bottom));
    svg.add("\n");
    placer.block({*X - 1, l.top, *X + 1, l.bottom});
  }
}

/// The markers' dots, before any label, so no label covers another marker; returns each
/// marker's pixel position (NaN when it cannot be drawn).
std::vector<Point> draw_markers(Svg& svg, const Chart& chart, const Layout& l, Placer& placer) {
  std::vector<Point> marker_px;
  for (const Marker& m : chart.markers) {
    if (!drawable(m.x, l.x.log) || !drawable(m.y, l.y.log)) {
      marker_px.emplace_back(NAN, NAN);
      continue;
    }
    double X = l.x.to_pixel(m.x), Y = l.y.to_pixel(m.y);
    marker_px.emplace_back(X, Y);
    svg.add(R"(<circle class="marker" cx="{}" cy="{}" r="6" fill="#e6550d" stroke="#ffffff" stroke-width="2"/>)", px(X),
            px(Y));
    svg.add("\n");
    placer.block({X - 7, Y - 7, X + 7, Y + 7});
  }
  return marker_px;
}

// ---------------------------------------------------------------- text

/// The angle (degrees, -90..90) of a note written along the line from (X, Y) to its `along`
/// point; nothing when it has none.
std::optional<double> note_angle(const Note& n, const Layout& l, double X, double Y) {
  if (!n.along || !drawable(n.along->first, l.x.log) || !drawable(n.along->second, l.y.log)) return std::nullopt;
  double X2 = l.x.to_pixel(n.along->first), Y2 = l.y.to_pixel(n.along->second);
  double angle = std::atan2(Y2 - Y, X2 - X) * 180 / M_PI;
  if (angle > 90) angle -= 180;
  if (angle < -90) angle += 180;
  return angle;
}

/// Blocks a note's `box` turned by `angle` about (X, Y), as a chain of small squares along it.
void block_rotated(Placer& placer, const Box& box, double X, double Y, double angle) {
  const double c = std::cos(angle * M_PI / 180), sn = std::sin(angle * M_PI / 180);
  const double h = box.y1 - box.y0;
  const int pieces = std::max(1, static_cast<int>(std::ceil((box.x1 - box.x0) / h)));
  for (int k = 0; k < pieces; ++k) {
    double ux = box.x0 + (box.x1 - box.x0) * (k + 0.5) / pieces - X, uy = (box.y0 + box.y1) / 2 - Y;
    double cx = X + ux * c - uy * sn, cy = Y + ux * sn + uy * c;
    placer.block({cx - h / 2, cy - h / 2, cx + h / 2, cy + h / 2});
  }
}

/// Notes: at their fixed positions, drawn as given.
void draw_notes(Svg& svg, const Chart& chart, const Layout& l, Placer& placer) {
  for (const Note& n : chart.notes) {
    if (!drawable(n.x, l.x.log) || !drawable(n.y, l.y.log) || n.text.empty()) continue;
    double X = l.x.to_pixel(n.x), Y = l.y.to_pixel(n.y);
    const std::optional<double> along = note_angle(n, l, X, Y);
    const double angle = along.value_or(0);
    std::string extra = kHalo;
    if (along) extra += fmt::format(R"~( transform="rotate({} {} {})")~", px(angle), px(X), px(Y));
    const std::string anchor = n.anchor == "start" || n.anchor == "end" ? n.anchor : "middle";
    svg.text(X, Y + n.dy, n.text, kTextSize, anchor, extra, n.color.empty() ? "#222222" : xml_escape(n.color));
    const Box box = text_box(X, Y + n.dy, split_lines(n.text), kTextSize, anchor);
    if (angle == 0) {
      placer.block(box);
    } else {
      block_rotated(placer, box, X, Y, angle);
    }
  }
}

/// Where a marker label may go around its dot at (X, Y), nearest first; `h` is the height of
/// its lines after the first.
std::vector<Placer::Candidate> marker_label_candidates(double X, double Y, double h) {
  std::vector<Placer::Candidate> c;
  for (double d : {10.0, 24.0, 44.0}) {
    c.push_back({X + d, Y - d, "start"});
    c.push_back({X - d, Y - d, "end"});
    c.push_back({X + d, Y + d + kTextSize - 2, "start"});
    c.push_back({X - d, Y + d + kTextSize - 2, "end"});
    c.push_back({X + d + 2, Y + kTextSize * 0.35 - h / 2, "start"});
    c.push_back({X - d - 2, Y + kTextSize * 0.35 - h / 2, "end"});
    c.push_back({X, Y - d - h - 2, "middle"});
    c.push_back({X, Y + d + kTextSize, "middle"});
  }
  return c;
}

/// Marker labels: around the dot, where they cover the least; one set apart gets a leader line.
void draw_marker_labels(Svg& svg, const Chart& chart, const std::vector<Point>& marker_px, Placer& placer) {
  for (std::size_t i = 0; i < chart.markers.size(); ++i) {
    const Marker& m = chart.markers[i];
    auto [X, Y] = marker_px[i];
    if (std::isnan(X) || m.label.empty()) continue;
    auto lines = split_lines(m.label);
    double h = kTextSize * 1.2 * static_cast<double>(lines.size() - 1);
    auto best = placer.place(marker_label_candidates(X, Y, h), lines, kTextSize * kBold);
    Box box = text_box(best.x, best.y, lines, kTextSize * kBold, best.anchor);
    double bx = std::clamp(X, box.x0, box.x1), by = std::clamp(Y, box.y0, box.y1);
    double gap = std::hypot(bx - X, by - Y);
    if (gap > 18) {
      double ux = (bx - X) / gap, uy = (by - Y) / gap;
      svg.add(R"(<line class="leader" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#a63603" stroke-width="1"/>)",
              px(X + 8 * ux), px(Y + 8 * uy), px(bx - 2 * ux), px(by - 2 * uy));
      svg.add("\n");
    }
    svg.text(best.x, best.y, m.label, kTextSize, best.anchor, std::string(kHalo) + R"( font-weight="bold")", "#a63603");
  }
}

/// Band labels: at the top of the band, or lower when something is in the way.
void draw_band_labels(Svg& svg, const std::vector<BandSpan>& spans, const Layout& l, Placer& placer) {
  for (const BandSpan& b : spans) {
    if (b.band->label.empty()) continue;
    std::vector<Placer::Candidate> c;
    for (double row = 0; row < 4; ++row) {
      double Y = l.top + 8 + kTextSize + row * 18;
      c.push_back({(b.x0 + b.x1) / 2, Y, "middle"});
      c.push_back({b.x0 + 6, Y, "start"});
      c.push_back({b.x1 - 6, Y, "end"});
    }
    for (double row = 0; row < 3; ++row) {
      double Y = l.bottom - 8 - row * 18;
      c.push_back({(b.x0 + b.x1) / 2, Y, "middle"});
    }
    auto best = placer.place(c, split_lines(b.band->label), kTextSize);
    svg.text(best.x, best.y, b.band->label, kTextSize, best.anchor, kHalo, "#555555");
  }
}

/// Vertical line labels: beside the line, at the height where they cover the least.
void draw_vline_labels(Svg& svg, const Chart& chart, const Layout& l, Placer& placer) {
  for (const VLine& v : chart.vlines) {
    auto X = vline_pixel(v, l);
    if (!X || v.label.empty()) continue;
    std::vector<Placer::Candidate> c;
    for (double Y = l.top + 8 + kTextSize; Y < l.bottom - 4; Y += 16) {
      c.push_back({*X + 6, Y, "start"});
      c.push_back({*X - 6, Y, "end"});
    }
    auto best = placer.place(c, split_lines(v.label), kTextSize);
    svg.text(best.x, best.y, v.label, kTextSize, best.anchor, kHalo, "#333333");
  }
}

void draw_legend(Svg& svg, const Chart& chart, const Frame& f, const std::vector<std::string>& colors) {
  for (const LegendItem& item : f.legend) {
    const Series& s = chart.series[item.series];
    const std::string color = xml_escape(colors[item.series]);
    double Y = item.y - kTextSize * 0.35;
    if (style_has(s.style, "points")) {
      svg.add(R"(<circle cx="{}" cy="{}" r="3.5" fill="{}"/>)", px(item.x + 14), px(Y), color);
    } else {
      svg.add(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"{}/>)", px(item.x), px(Y),
              px(item.x + 28), px(Y), color, style_has(s.style, "thick") ? "3" : "2", dash_of(s.style));
    }
    svg.text(item.x + 34, item.y, s.name, kTextSize, "start");
  }
}

}  // namespace

Layout layout(const Chart& chart) { return compute_frame(chart).layout; }

std::string render_svg(const Chart& chart) {
  const Frame f = compute_frame(chart);
  const Layout& l = f.layout;
  const double W = chart_width(chart), H = chart_height(chart);
  Svg svg;
  svg.out = svg_open(W, H, chart.title);
  draw_titles(svg, f, W);
  if (!l.has_data) {
    draw_no_data(svg, l, W);
    svg.out += "</svg>\n";
    return svg.out;
  }
  svg.add(R"(<defs><clipPath id="plot-area"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath></defs>)",
          px(l.left - 3), px(l.top - 3), px(l.right - l.left + 6), px(l.bottom - l.top + 6));
  svg.add("\n");
  const std::vector<BandSpan> spans = draw_bands(svg, chart, l);
  draw_grid(svg, f);
  draw_axis_labels(svg, chart, f, H);
  const std::vector<std::string> colors = series_colors(chart);
  Placer placer(l, draw_series(svg, chart, l, colors));
  draw_vlines(svg, chart, l, placer);
  const std::vector<Point> marker_px = draw_markers(svg, chart, l, placer);
  draw_notes(svg, chart, l, placer);
  draw_marker_labels(svg, chart, marker_px, placer);
  draw_band_labels(svg, spans, l, placer);
  draw_vline_labels(svg, chart, l, placer);
  draw_legend(svg, chart, f, colors);
  svg.out += "</svg>\n";
  return svg.out;
}

}  // namespace gpucalc::plot
