// doctest::Approx compares |a - b| < epsilon x (scale + max(|a|, |b|)) with scale 1: under 1 it is an
// absolute test (1.2e-5 by default), so two times in seconds, or two rates in TB as bytes/ps, pass
// whatever they are. approx(v) is relative: scale 0, or 1 where v is 0 (|a| < epsilon x (1 + |a|)).
#pragma once

#include <doctest/doctest.h>

namespace gpucalc::testing {

inline doctest::Approx approx(double v) { return doctest::Approx(v).scale(v == 0 ? 1.0 : 0.0); }

}  // namespace gpucalc::testing
