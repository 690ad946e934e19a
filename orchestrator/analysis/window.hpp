// scaling: window - a sampled series (utilisation at 10 Hz) joined with the epochs' time windows,
// as the data-loading study computes it (its notebook: the loop over df_timings, np.convolve,
// scaled_stack, the progress axis of its plot). Epochs before `warmup` are dropped first; then
// per epoch e (in epoch order) and per series s (device):
//   - no sample of s before start(e): the case is left out with the reason (the study's assert
//     "missing util values in the beginning"); no sample after end(e): e is skipped and named in
//     the notes (the study's "epoch is not used"); fewer samples in the window than `smooth`: e
//     is skipped and named (np.convolve would return the window's sum / smooth, not an average);
//   - the window's samples are those with start(e) <= t <= end(e); m(e, s) is their mean;
//   - curve(e, s): their moving average keeping only full windows (np.convolve(x, ones(w) / w,
//     mode="valid"): n - w + 1 values, w = `smooth`);
//   the epoch's value is the mean of m(e, s) over s; its curve the mean of the curve(e, s)
//   stretched to the longest (one series, as in the study: curve(e, s) itself).
// Stretching (scaled_stack): a curve of n values becomes m >= n by linear interpolation at
// positions j (n - 1) / (m - 1), so its first and last values stay (torch's interpolate,
// mode="linear", align_corners=True). Per run: the mean of its epochs' values, and the mean of
// its epochs' curves stretched to the longest. Per group (a table's x and compare value): the
// summary tables of analysis/scaling.hpp over the runs' values, and a curve table
// "<analysis>-progress": the runs' curves stretched to the group's longest, their mean and
// population std (numpy's default, ddof 0) per index, at progress linspace(0, 100, length) %
// (the study's x = np.linspace(0, 1, len(y)) * 100), in columns progress_<x>[_<compare>] per line;
// the table's own `progress` column is its longest line's.
//
// `progress: time` (the earlier, time-based variant): curve(e, s) is a trailing moving average
// with partial windows at the start (pandas' rolling(w, min_periods=1)), placed at progress
// 100 * (t - start) / (end - start) and interpolated linearly at `points` equally spaced
// progress values (np.interp); the window rules, means and the band are as above.
//
// Bad data leaves the case out with the reason: timestamps that repeat or go back, an epoch
// that ends before it starts, no series or no windows at all, no epoch left.
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
    std::vector<double> curve;
  };
  std::vector<Epoch> epochs;         // used, in epoch order (epochs >= warmup)
  std::vector<std::string> skipped;  // "epoch 7: ..." per epoch not used
  double mean = 0;                   // over the used epochs
  std::vector<double> curve;
  std::string unit;
};

// One case; a string is the reason it cannot be used.
std::variant<WindowRun, std::string> window_run(const WindowSpec& spec, double warmup, const CaseResult& c);

// `v` stretched to `m` >= 1 values by linear interpolation, its ends kept (scaled_stack).
std::vector<double> stretch(const std::vector<double>& v, size_t m);

AnalysisResult analyze_window(const AnalysisSpec& spec, const std::vector<CaseResult>& cases);

}  // namespace campaign::analysis
