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

// Student's t distribution with `df` > 0 degrees of freedom (not necessarily
// an integer: Welch's test has fractional ones). The two-sided tail
// P(|T| >= |t|), and the quantile q with P(T <= q) = p for 0 < p < 1.
double student_t_two_sided(double t, double df);
double student_t_quantile(double p, double df);

// Half-width of the two-sided `confidence` t-interval of the mean of
// `summary`'s values; absent without a spread (a single value).
std::optional<double> mean_interval(const Summary& summary, double confidence = 0.95);

}  // namespace campaign::analysis
