// The MLPerf HPC weak-scaling metric over the instances of a case (campaign
// `instances: K`, each instance training one model side by side in one job).
//
// The MLPerf HPC rules (v1.0 on; mlcommons.org "MLPerf Training: HPC"): the
// weak-scaling benchmark "measures the throughput for a supercomputing system
// training multiple models concurrently ... to achieve the specified quality
// target"; submitters choose the number of concurrently trained instances. For
// each instance, as in the MLPerf Training rules, the time to train runs from
// its run_start to its run_stop, and it counts only when run_stop says the
// target was reached (status "success"). Here:
//   time_to_train(i)   = run_stop(i) - run_start(i)
//   reached            = the instances whose run_stop status is success
//   time_to_train_all  = the last run_stop of a reached instance minus the first
//                        run_start of a reached one (the slowest successful
//                        instance, measured from the common start)
//   models_per_minute  = |reached| / (time_to_train_all / 60)
// Instances that missed the target or left no run_stop are listed, never scored.
//
// Beside it, the score as the rules report it, the tuple (M', TTTa) and M'/TTTa
// (models_score, time_to_train_all_score, models_per_minute_score). The rules
// (hpc_training_rules.adoc, Throughput, mlcommons/training_policies): "TTTa =
// max(run_stop) - min(run_start) where the max/min are taken over all instances
// M"; "the submitter is allowed to prune this number by removing results from
// individual training instances. As long as the minimum number of models rule is
// satisfied ... They then use a modified number of models M'<=M and computes TTTa
// over the reduced set"; "Runs with identical seeds must be pruned from final
// results"; "All reported M' training instances must have converged". Here:
//   scored   = the reached instances, less every instance whose logged seed
//              another instance also logged (none pruned where no seed is logged)
//   without min_models (an analysis key): M' = |scored|, no optional pruning
//   with min_models N: of the subsets of `scored` with at least N instances, the
//              one with the most models per minute (ties: the most models), which
//              is the set of scored instances inside some window [run_start(a),
//              run_stop(b)]; none when fewer than N are scored or an instance
//              lacks its time stamps
//
// Strong scaling (the rules' time-to-train benchmark, one model per case):
// scaling: mlperf_strong scores each case by its time to train, run_stop -
// run_start of its MLLOG (run_time), only when run_stop says the target was
// reached (run_success); the tables are those of strong scaling over that time
// (analysis/scaling.hpp: speedup, efficiency, repetitions averaged), in the
// column time_to_train (the plain mean), and beside it time_to_train_score,
// the rules' score: "final results are obtained by measuring the benchmark a
// benchmark-specific number of times, discarding the lowest and highest
// results, and averaging the remaining results" (mlcommons.org/en/training-hpc-10,
// Metric: the strong scaling metric), so none with fewer than 3 runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/scaling.hpp"
#include "analysis/table.hpp"

namespace campaign::analysis {

struct InstanceRun {
  long instance = 0;
  std::optional<double> start_s, stop_s;  // run_start / run_stop, seconds since the epoch
  std::optional<double> time_to_train_s;  // stop - start, else the collected run_time
  bool reached = false;                   // run_stop status success
  std::optional<double> seed;             // as logged (key seed), if it was
};

struct WeakScalingScore {
  size_t instances = 0, reached = 0;
  std::optional<double> time_to_train_all_s;
  std::optional<double> models_per_minute;
  // The rules' score (M', TTTa over them) and which instances it leaves out and why.
  std::vector<long> scored;     // M' instances, in instance order
  std::vector<long> same_seed;  // reached, but their seed is another instance's too
  std::vector<long> pruned;     // reached, left out by the optional pruning
  std::optional<double> time_to_train_all_score_s;
  std::optional<double> models_per_minute_score;
  std::string no_score;  // why there is no score, when there is none
};

// The instances of one case from its metrics keyed by instance, in instance order.
std::vector<InstanceRun> instance_runs(const CaseResult& c);

// min_models: the analysis' min_models (unset: no optional pruning).
WeakScalingScore weak_scaling_score(const std::vector<InstanceRun>& runs,
                                    std::optional<long> min_models = std::nullopt);

// One table per case (its instances) and a summary table (one row per case).
AnalysisResult analyze_mlperf_weak(const AnalysisSpec& spec, const std::vector<CaseResult>& cases);

// A case's time to train (s), or why it has none (no run_stop, target not reached).
CaseValue measure_time_to_train(const CaseResult& c);

// MLPerf HPC's strong-scaling score of the runs' times to train: their mean once the fastest and
// the slowest are discarded (one of each); none for fewer than 3 runs.
std::optional<double> time_to_train_score(std::vector<double> times);

}  // namespace campaign::analysis
