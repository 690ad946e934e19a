// Metrics followed over the runs of a campaign: read from each run, judged
// against a baseline. The one way `campaign history` and `campaign site` get
// what they show: per series (a group: a table, a case), per run the code
// (version, commit, date), the value and the repetitions it was judged on
// (mean, std, 95 % interval, n), the value relative to the baseline, and the
// verdict with the rule that made it. Several metrics are read with one
// pass over the runs (each catalog opened and its analyses computed once).
//
// Invariant: runs are only read (history/runs.hpp); the decisions are
// judge()'s (history/verdicts.hpp), made nowhere else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "history/runs.hpp"
#include "history/verdicts.hpp"

namespace campaign::history {

struct HistoryDocument {
  std::string campaign;
  std::string metric;  // as written
  std::string kind;    // what the metric was read as, e.g. "column throughputs of analysis weak_scaling"
  std::string unit;
  std::vector<RunValues> runs;  // oldest first; runs[i] is every series' points[i]
  History history;
  std::string baseline;            // the baseline for people, e.g. "v1.0 (2 runs)"
  bool fail_on_any = false;        // which regressions fail the check: any point, or the latest
  std::vector<std::string> notes;  // e.g. runs without a value and why
  // Why the metric is not judged ("" when it is): found in no run, or no direction known
  // (`needs_direction`: the caller says how to give one). `history` is then empty.
  std::string problem;
  bool needs_direction = false;
};

struct TrackOptions {
  std::string baseline;          // a label, commit prefix or run (match_runs); "" = the oldest run
  double threshold = 0.1;        // 0.1 = 10 %
  std::optional<Better> better;  // default: from the metric's kind, unit or name
  bool fail_on_any = false;
  NoiseRules noise;
};

struct TrackRequest {
  MetricQuery query;
  TrackOptions options;
};

// Each request over `runs` (oldest first, as find_runs orders them), one
// document per request in order. A metric found in no run or without a known
// direction gets a `problem`; a run that cannot be read a note. A baseline no
// run matches is an InputError saying what there is.
std::vector<HistoryDocument> track(const std::vector<Run>& runs, const std::string& campaign,
                                   const std::vector<TrackRequest>& requests);

// One metric; its problem is an InputError (naming METRIC, or asking for --better).
HistoryDocument track(const std::vector<Run>& runs, const std::string& campaign, const MetricQuery& query,
                      const TrackOptions& options);

// Regressions that fail the check (History::regressed(fail_on_any)).
std::vector<std::string> failing(const HistoryDocument& d);

}  // namespace campaign::history
