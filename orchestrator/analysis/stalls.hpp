// scaling: stalls - DS-Analyzer's tables (analysis/whatif.hpp) from the
// per-rank, per-iteration timings of collectors/stalls.yaml (NAME:rank<R>,
// step = iteration), over the iterations of the first epoch >= warmup (the
// notebook's `Epoch == 1`; `epochs: all`: every epoch >= warmup) from the
// (skip_iterations + 1)-th of each epoch on (the notebook's `Index number >
// 10` by default).
//
// Tables of an analysis NAME:
//   NAME                  one row per case: ranks, iterations, and the
//                         notebook's summary columns (Avg iteration time
//                         (sec), ..., each with its _std), measured
//   NAME-whatif           one row per case, the what-if iteration time of
//                         each combination (mean, _std): the plot's data
//   NAME-whatif-CASE      one row per what-if combination (fetch, start),
//                         the summary columns and the saving against
//                         rank/rank
//   NAME-CASE             one row per iteration (all of them): Epoch, Index
//                         number, the notebook's per-iteration columns and
//                         each rank's Training Stall time (sec)_gpu<R>
//
// Invariant: a case whose data are bad (one rank only, a rank without an
// iteration or a value the others have, times going back, negative
// durations, ranks in different epochs) is left out with the reason; the
// others go on.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <variant>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/table.hpp"
#include "analysis/whatif.hpp"

namespace campaign::analysis {

// What the what-if tables' analysis name adds to the analysis' ("stalls-whatif"), and the column
// the plot's table holds per combination (with "_std" and the combination's suffix, "_avg/min").
inline constexpr const char* kWhatIf = "-whatif";
inline constexpr const char* kPredicted = "Avg iteration time (sec)";

// One case's per-rank timings, checked and aligned by iteration: views of the case's packed series
// where they can be, so valid while its CaseResult is; move-only.
struct CaseTimings {
  std::vector<long> ranks;              // rank numbers, ascending; the timings' rank g is ranks[g]
  IterationTimings timings;             // start: seconds from the case's earliest fetch done
  std::vector<std::int64_t> iteration;  // per row, ascending
  std::vector<double> epoch;
  std::vector<long> index;                  // within its epoch, from 0
  std::vector<std::vector<double>> starts;  // per rank, what timings.start points to
  std::deque<std::vector<double>> copies;   // series that were metric rows or out of order

  CaseTimings() = default;
  CaseTimings(CaseTimings&&) = default;
  CaseTimings& operator=(CaseTimings&&) = default;
  CaseTimings(const CaseTimings&) = delete;
  CaseTimings& operator=(const CaseTimings&) = delete;
};

// The case's timings, or why they cannot be used.
std::variant<CaseTimings, std::string> case_timings(const CaseResult& c);

// The rows whose index within their epoch is o.skip_iterations or more, in the first epoch >= warmup
// that the case has (o.epochs first) or in every epoch >= warmup (all).
std::vector<size_t> kept_rows(const CaseTimings& t, double warmup, const StallTableSpec& o);

// The epochs kept, for messages and descriptions: "the first epoch >= 1 (epochs: first)" or
// "every epoch >= 1 (epochs: all)".
std::string kept_epochs(const AnalysisSpec& spec);

AnalysisResult analyze_stalls(const AnalysisSpec& spec, const std::vector<CaseResult>& cases);

}  // namespace campaign::analysis
