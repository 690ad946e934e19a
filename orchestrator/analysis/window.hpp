// scaling: window - a sampled series (utilisation at 10 Hz) joined with the
// epochs' time windows, as in the data-loading study (issue 13):
//   per epoch e, per series s (device):  m(e, s) = mean of the samples of s
//       with start(e) <= t <= end(e); the epoch's value is the mean over s;
//   curve(e, s): the samples in the window smoothed by a trailing moving
//       average of `smooth` samples (the first ones average what there is,
//       pandas' rolling(smooth, min_periods=1)), placed at their progress
//       100 * (t - start) / (end - start) and interpolated linearly at
//       `points` equally spaced progress values 0..100 % (numpy's interp:
//       held flat before the first and after the last sample);
//   per run: the mean over epochs >= warmup of the values and the curves;
//   per group: the summary tables of analysis/scaling.hpp over the runs'
//       values (mean, std, ratios), and per group a curve table
//       "<analysis>-progress" with the mean and std of the runs' curves per
//       x (and compare value).
// An epoch whose window the samples do not cover (a series has no sample at
// or before its start, or none at or after its end, or none inside) is
// skipped, and the analysis' notes name the case and epoch. Bad data makes
// the case excluded with the reason: timestamps that repeat or go back, an
// epoch that ends before it starts, no series or no windows at all.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/table.hpp"

namespace campaign::analysis {

struct WindowRun {
  struct Epoch {
    double epoch = 0;
    double mean = 0;
    std::vector<double> curve;  // `points` values
  };
  std::vector<Epoch> epochs;         // covered, in epoch order (warm-up ones too)
  std::vector<std::string> skipped;  // "epoch 7: ..." per epoch not covered
  double mean = 0;                   // over the covered epochs >= warmup
  std::vector<double> curve;
  std::string unit;
};

// One case; a string is the reason it cannot be used.
std::variant<WindowRun, std::string> window_run(const WindowSpec& spec, double warmup, const CaseResult& c);

AnalysisResult analyze_window(const AnalysisSpec& spec, const std::vector<CaseResult>& cases);

}  // namespace campaign::analysis
