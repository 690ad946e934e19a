// Summary statistics over repetitions of one measurement point.
//
// Invariant: std is the sample standard deviation (n - 1) and is absent, not
// zero, for a single value, so "no spread measured" never reads as "none".
#pragma once

#include <optional>
#include <vector>

namespace campaign::analysis {

struct Summary {
  double mean = 0;
  std::optional<double> std;
  double min = 0;
  double max = 0;
  double median = 0;
  size_t count = 0;
};

// `values` must not be empty.
Summary summarize(std::vector<double> values);

}  // namespace campaign::analysis
