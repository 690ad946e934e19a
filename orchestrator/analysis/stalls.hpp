// scaling: stalls - DS-Analyzer-style data-stall tables from the per-rank,
// per-iteration timings of collectors/stalls.yaml (NAME:rank<R>, step =
// iteration; issue 13, format 2).
//
// Per case a detail table, one row per iteration: Iteration, Epoch, and per
// rank i the seed study's columns `Fetch time (sec)_gpu{i}`, `Fetch done time
// (sec)_gpu{i}`, `Training start (sec)_gpu{i}`, `Iteration time (sec)_gpu{i}`,
// `Training Stall time (sec)_gpu{i}`, `Compute time (sec)_gpu{i}`. Per case a
// summary row over the iterations of epochs >= warmup:
//   Average stall (sec)  mean Training Stall time over ranks and iterations
//   Stall (%)            100 * sum of stall times / sum of iteration times
//   Rank delay (sec)     per iteration max - min over the ranks of Training
//                        start (the slowest rank's lag behind the fastest),
//                        averaged over the iterations every rank has
//   Effective delay (%)  100 * Rank delay / mean Iteration time (over ranks
//                        and iterations): the share of an iteration lost to
//                        waiting for the slowest rank
#pragma once

#include <array>
#include <map>
#include <optional>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/table.hpp"

namespace campaign::analysis {

struct StallSummary {
  size_t ranks = 0, iterations = 0;  // iterations after warm-up
  double average_stall = 0, stall_percent = 0;
  std::optional<double> rank_delay, effective_delay_percent;
};

// kStallMetrics' values of one rank at one iteration (in that order).
using StallRow = std::array<std::optional<double>, 7>;
// rank -> iteration -> values.
using RankIterations = std::map<long, std::map<double, StallRow>>;

RankIterations rank_iterations(const CaseResult& c);
// nullopt when no iteration of an epoch >= warmup has a stall and an iteration time.
std::optional<StallSummary> summarize_stalls(const RankIterations& ranks, double warmup);

AnalysisResult analyze_stalls(const AnalysisSpec& spec, const std::vector<CaseResult>& cases);

}  // namespace campaign::analysis
