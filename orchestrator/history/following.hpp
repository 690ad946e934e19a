// What `campaign history` (without METRIC) and `campaign site` follow for a
// campaign: the metrics under its `track:`, else by default each analysis'
// headline columns, read from the campaign stored with its newest run:
//
//   scaling: weak         ANALYSIS.throughputs@max, ANALYSIS.eff@max
//   scaling: strong       ANALYSIS.times@max, ANALYSIS.eff@max
//   scaling: none         ANALYSIS.times (every row a series)
//   scaling: mlperf_weak  ANALYSIS.models_per_minute (higher is better)
//   scaling: mlperf_strong ANALYSIS.time_to_train@max, ANALYSIS.eff@max
//   window, stalls        none (their tables are curves over epochs and iterations)
//
// `track:` replaces the defaults. Columns are those of the baseline series
// (the compare axis' baseline); each threshold is history's default, 10 %.
#pragma once

#include <string>
#include <vector>

#include "history/runs.hpp"
#include "spec/analyses.hpp"
#include "spec/campaign.hpp"

namespace campaign::history {

// The headline columns of each analysis, as metrics (the table above).
std::vector<spec::Tracked> headline_metrics(const std::vector<analysis::AnalysisSpec>& analyses);

struct Following {
  std::vector<spec::Tracked> metrics;
  bool defaults = false;   // the analyses' headline columns: the campaign has no `track:`
  std::string commit_url;  // the campaign's `commit_url`, "" when none
  std::string problem;     // the stored campaign does not parse: nothing is followed
};

// What the campaign stored with `newest` (with its system's override) follows.
Following following(const Run& newest);

}  // namespace campaign::history
