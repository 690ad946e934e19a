// Line plots over dates as plain SVG text, drawn here rather than by gnuplot
// so a site of a thousand runs is made in seconds and reads without
// JavaScript (inline in the pages, so without an xmlns): one line per series, gaps where a run has no value,
// dashed horizontal guides (the baseline 1.0 and the thresholds), regressions as red rings, dates on the x
// axis as dates.
//
// Invariant: a pure function of its input; every text it writes is escaped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"

namespace campaign::site {

struct PlotSeries {
  std::string name;
  std::vector<std::optional<double>> y;  // one per x
  std::vector<bool> marked;              // regressions; empty = none
};

struct Plot {
  std::string title;    // the SVG's <title> (what a screen reader or a tooltip says)
  std::string heading;  // drawn above the plot; "" when the page already names it
  std::string y_label;
  std::vector<Time> x;  // dates, oldest first
  std::vector<PlotSeries> series;
  std::vector<double> guides;
  int width = 320, height = 190;
  bool legend = false;        // series names under the plot
  bool point_titles = false;  // a tooltip (<title>) on every point: for a metric's own page
};

std::string svg(const Plot& p);

// Axis ticks: about `n` round numbers covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int n);
// A number as people read it on an axis or in a table: 3 significant digits, no trailing zeros.
std::string short_number(double v);
// "2026-11-24".
std::string day(Time t);

}  // namespace campaign::site
