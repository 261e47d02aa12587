// Charts as standalone SVG 1.1, written by gpucalc itself (no plotting dependency): a generic
// line chart (series, highlighted points, shaded x-regions, vertical lines) and the roofline.
// Plain data in, one std::string out, no I/O; the caller writes the file (`--plot FILE.svg`).
//
// The pieces: svg.h (elements, escaping, coordinates, text measure), axes.h (scales, ticks,
// tick labels), chart.h (the line chart), roofline.h (the roofline builder).
#pragma once

#include "plot/axes.h"
#include "plot/chart.h"
#include "plot/roofline.h"
#include "plot/svg.h"
