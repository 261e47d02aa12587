// Label placement for the line chart: each label goes to the candidate position where it
// collides least with the plot's lines, markers and the labels placed before it.
// Internal to src/plot.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "plot/axes.h"
#include "plot/svg.h"

namespace gpucalc::plot {

/// A point in pixels, and a straight piece of a drawn line between two of them.
using Point = std::pair<double, double>;
using Segment = std::pair<Point, Point>;

class Placer {
 public:
  /// Labels should stay inside the plot area of `l` and off `segments`.
  Placer(const Layout& l, std::vector<Segment> segments)
      : area_{l.left, l.top, l.right, l.bottom}, segments_(std::move(segments)) {}

  /// Keeps later labels off `b`.
  void block(const Box& b) { placed_.push_back(b); }

  /// How badly a label in `b` would collide: 40 per pixel outside the plot, 1000 per placed box
  /// it overlaps, 60 per line segment it crosses.
  double score(const Box& b) const;

  struct Candidate {
    double x, y;
    std::string anchor;
  };

  /// The best of `candidates` for `lines` at `size` (the earlier one on a tie); blocks its box
  /// for later labels.
  Candidate place(const std::vector<Candidate>& candidates, const std::vector<std::string>& lines, double size);

 private:
  Box area_;
  std::vector<Segment> segments_;
  std::vector<Box> placed_;
};

}  // namespace gpucalc::plot
