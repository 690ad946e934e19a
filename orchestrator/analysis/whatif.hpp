// DS-Analyzer's per-iteration numbers and its what-if alignment simulation,
// as its notebook defines them (the data-stall study, 004 in the studies the
// project serves), over one case's ranks ("GPUs" there).
//
// Per iteration i, over the ranks g (start = fetch done - fetch time, the
// time the rank's loader began the batch):
//   Iteration time              max_g iteration time
//   Training stall time         max_g stall
//   Delay time                  max_g stall - min_g stall
//   Batch fetch time diff       max_g fetch - min_g fetch
//   Batch fetch start time diff max_g start - min_g start
// The what-if simulation replaces each rank's fetch time by its own (rank),
// the ranks' mean (avg) or minimum (min), and its start by its own, the
// midrange max - (max - min) / 2 (avg) or the earliest (min); its fetch done
// is start + fetch. Where the measured fetch done (start + fetch) is later
// than the simulated one, the rank's stall shrinks by the gap (a result below
// 0 becomes 2e-6 s); where it is earlier and the stall is above 0.01 s, the
// stall grows by the gap. Pure training = iteration time - the measured max
// stall; the simulated iteration time is max_g (max simulated stall + pure
// training of g); delay, stall and the diffs as above over the simulated
// values. A summary is the mean and sample std of each over the iterations,
// and Effective Delay time (%) = 100 x the share of iterations whose delay
// exceeds a threshold (the notebook's fixed 0.030 s).
//
// Invariant: pure functions of their input, no allocation per iteration; the
// times are seconds from an origin the caller chose (Unix seconds as doubles
// have a 0.24 us grain, too coarse for differences of milliseconds).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "spec/analyses.hpp"

namespace campaign::analysis {

// Align (spec/analyses.hpp): how the what-if simulation sets one rank's fetch time or fetch start.
std::string_view to_string(Align a);

// One case's timings, rank-major as they were collected: rank g's value at iteration i is v[g][i]
// (pointers into series the caller keeps).
struct IterationTimings {
  size_t iterations = 0;
  std::vector<const double*> start, fetch, iteration, stall;  // one per rank
  size_t ranks() const { return stall.size(); }
};

// The five per-iteration columns, in the notebook's order.
enum DsColumn { kIterationTime, kTrainingStall, kDelay, kFetchDiff, kStartDiff };
inline constexpr size_t kDsColumns = 5;

// The five values of every iteration in `rows` (indices into the timings), one vector per column.
using PerIteration = std::array<std::vector<double>, kDsColumns>;
// The measured values.
PerIteration measured(const IterationTimings& t, const std::vector<size_t>& rows);
// The simulated values with fetch times and starts aligned as given.
PerIteration simulate(const IterationTimings& t, const std::vector<size_t>& rows, Align fetch, Align start);

struct DsSummary {
  size_t iterations = 0;
  std::array<double, kDsColumns> mean{};
  std::array<std::optional<double>, kDsColumns> std{};  // sample std; none for one iteration
  double effective_delay_percent = 0;
};
// Mean and std of each column, and the share of delays above `delay_threshold` (s), in %.
DsSummary summarize(const PerIteration& values, double delay_threshold);

}  // namespace campaign::analysis
