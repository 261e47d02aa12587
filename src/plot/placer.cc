// Label placement (see placer.h).
#include "plot/placer.h"

#include <algorithm>

namespace gpucalc::plot {

double Placer::score(const Box& b) const {
  double s = 0;
  double overflow = std::max(0.0, area_.x0 - b.x0) + std::max(0.0, b.x1 - area_.x1) + std::max(0.0, area_.y0 - b.y0) +
                    std::max(0.0, b.y1 - area_.y1);
  s += overflow * 40;
  for (const Box& p : placed_) {
    if (p.overlaps(b)) s += 1000;
  }
  for (const auto& [a, c] : segments_) {
    if (segment_hits(a.first, a.second, c.first, c.second, b)) s += 60;
  }
  return s;
}

Placer::Candidate Placer::place(const std::vector<Candidate>& candidates, const std::vector<std::string>& lines,
                                double size) {
  std::size_t best = 0;
  double best_score = 1e300;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    // A small penalty per position keeps the order of preference among equally good ones.
    double sc = score(text_box(c.x, c.y, lines, size, c.anchor)) + 0.5 * static_cast<double>(i);
    if (sc < best_score) {
      best_score = sc;
      best = i;
    }
  }
  const Candidate& c = candidates[best];
  block(text_box(c.x, c.y, lines, size, c.anchor));
  return c;
}

}  // namespace gpucalc::plot
