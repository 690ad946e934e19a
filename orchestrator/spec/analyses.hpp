// The `analyses:` list of a campaign file: which cases to tabulate and how
// (weak/strong scaling or a plain aggregate table), parsed strictly, once,
// where the campaign is read (parse_campaign, for_system): every other folder
// sees these typed values (Campaign::analyses), never the YAML. The types keep
// namespace `analysis`, whose vocabulary they are.
//
// Invariant: a parsed AnalysisSpec is internally consistent - keys are known,
// required ones present, the samples expression compiles, the compare/ratio
// axes are usable - so analyze() only meets problems of the data, never of
// the spec; checked against its campaign (check_names), every name it uses
// exists there too. Every error is an InputError at file:line:col with the
// dotted key.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace campaign::analysis {

// The kind of analysis. mlperf_weak: the MLPerf HPC weak-scaling metric over
// the instances of a case; mlperf_strong: strong scaling by time to train
// (analysis/mlperf.hpp); window: a sampled series per
// epoch window (analysis/window.hpp); stalls: per-rank data-stall tables
// (analysis/stalls.hpp).
enum class Scaling { weak, strong, none, mlperf_weak, window, stalls, mlperf_strong };
// Strong scaling tables (speedup, efficiency): strong and mlperf_strong.
inline bool strong_tables(Scaling s) { return s == Scaling::strong || s == Scaling::mlperf_strong; }
std::string_view to_string(Scaling s);

// Statistics over repetitions; `mean` is always computed (the main columns).
enum class Aggregate { mean, std, min, max, median, count };
std::string_view to_string(Aggregate a);

struct TimeSpec {
  std::string metric;  // per-step metric, e.g. epoch_time
  double warmup = 1;   // steps < warmup are dropped; 1 = drop epoch 0
};

// Groups with different values of `axis` side by side; non-baseline columns
// get the suffix `_<value>`.
struct CompareSpec {
  std::string axis;
  std::string baseline;
};

// times(axis = numerator) / times(axis = denominator); `axis` is the x or the
// compare axis.
struct RatioSpec {
  std::string axis;
  std::string numerator;
  std::string denominator;
};

// Data-stall fraction data / (data + compute), both means after warm-up.
struct StallSpec {
  std::string data;
  std::string compute;
};

// scaling: window - a sampled series (utilisation) joined with per-epoch
// windows; the time spec's warmup drops epochs, its metric is `series`.
struct WindowSpec {
  std::string series;                 // metric or template of the samples; steps are Unix time in ms
  std::string start = "epoch_start";  // per-epoch window bounds, Unix seconds, step = epoch
  std::string end = "epoch_end";
  int smooth = 1;  // moving-average length in samples (1: none)
  // samples: the study's (full windows only, progress by sample index, curves stretched to the
  // longest); time: the time-based variant (partial windows, progress by time at `points` points)
  enum class Progress { samples, time } progress = Progress::samples;
  int points = 101;
};

// How the what-if simulation sets one rank's fetch time or fetch start (analysis/whatif.hpp).
enum class Align { rank, avg, min };
inline constexpr Align kAligns[] = {Align::rank, Align::avg, Align::min};

// scaling: stalls - DS-Analyzer's table and what-if simulation (analysis/stalls.hpp).
struct StallTableSpec {
  // Which epochs from `warmup` on are kept. first: the first of them only, DS-Analyzer's rule (its
  // notebook keeps `perf_df[perf_df["Epoch"] == 1]`, and `Epoch == 1` again in its simulation; with the
  // default warmup 1 that is epoch 1); all: every epoch from warmup on, the project's variant.
  enum class Epochs { first, all } epochs = Epochs::first;
  // The first N iterations of each epoch are left out: 11 is the notebook's `Index number > 10`.
  int skip_iterations = 11;
  // Seconds: an iteration whose delay exceeds it counts in Effective Delay time (%), the notebook's 0.030.
  double delay_threshold = 0.030;
  // The what-if combinations: every fetch alignment with every start alignment.
  std::vector<Align> fetch{std::begin(kAligns), std::end(kAligns)};
  std::vector<Align> start{std::begin(kAligns), std::end(kAligns)};
};

// The per-rank metrics scaling: stalls reads (collectors/stalls.yaml), each
// as NAME:rank<R> with steps = iteration.
inline constexpr const char* kStallMetrics[] = {"iteration_epoch", "fetch_time",     "fetch_done",
                                                "training_start",  "iteration_time", "stall_time",
                                                "compute_time"};

// The metrics scaling: mlperf_weak reads, per instance (collectors/mlperf_weak.yaml), and
// mlperf_strong per case (collectors/cosmoflow.yaml from mlperf.log).
inline constexpr const char* kRunTime = "run_time";         // run_start -> run_stop, s
inline constexpr const char* kRunStartMs = "run_start_ms";  // time_ms of run_start
inline constexpr const char* kRunStopMs = "run_stop_ms";    // time_ms of run_stop
inline constexpr const char* kRunSuccess = "run_success";   // 1: run_stop status success
inline constexpr const char* kSeed = "seed";                // the instance's logged seed, if any

// A name an analysis uses (a step, parameter, value or metric) and where, for check_names.
struct NameUse {
  enum class Kind { step, param, value, metric } kind;
  Location where;
  std::string key;         // dotted, for the message
  std::string name;        // the step, parameter, value or metric
  std::string param;       // kind value: the parameter that must take it
  std::string expression;  // kind param: the samples expression it comes from, if any
};

struct AnalysisSpec {
  std::string name;
  Scaling scaling = Scaling::none;
  std::string step;  // campaign step filter; empty = every case
  std::string x;     // parameter on the x axis
  TimeSpec time;
  std::string samples;                // spec/expression.hpp over numeric params; may be empty
  std::vector<std::string> group_by;  // one table per distinct combination
  std::optional<CompareSpec> compare;
  std::vector<Aggregate> aggregate;  // empty = automatic: mean, plus std and count with repetitions
  std::optional<RatioSpec> ratio;
  std::optional<StallSpec> stall;
  std::optional<WindowSpec> window;  // scaling: window only
  StallTableSpec stalls;             // scaling: stalls only
  std::string repeat = "repeat";     // parameter that numbers repetitions
  // scaling: mlperf_weak only: the fewest models (M') its score may be pruned to; unset: no optional
  // pruning (analysis/mlperf.hpp)
  std::optional<long> min_models;
  Location where;             // of the list entry, for errors found later
  std::vector<NameUse> uses;  // in the order they are written
  // Set only by tables the report adds of its own (report/usage.hpp): says what the table is, in
  // place of the scaling's description; such a table has no plot.
  std::string description;

  bool wants(Aggregate a) const;
};

// The name of an analysis' main column: "times", or for a window analysis the
// head of its series' name ("utilization" for utilization:{node}:{device}).
std::string value_column(const AnalysisSpec& spec);

// What one step of a campaign (as planned for one system) offers its analyses.
struct StepNames {
  std::string step;
  std::vector<std::string> params;   // every parameter its cases have
  std::vector<std::string> axes;     // its matrix axes, named in messages
  std::vector<std::string> metrics;  // its collectors declare (collect::declared_metrics)
  bool planned = true;               // false: disabled on this system, nothing to check against
};

// The campaign's steps, and the values a parameter takes in the cases of one
// step ("" for every step), so that analyses are checked before anything runs.
struct CampaignNames {
  std::vector<StepNames> steps;
  std::function<std::vector<std::string>(const std::string& step, const std::string& param)> values;
};

// Parses the value of `analyses:` (a YAML sequence). `file` names the campaign
// file in messages. Analysis names must be unique. The one reader of that YAML:
// spec/campaign.cpp calls it as it reads a campaign (a stored one re-read for
// history included); tests and benchmarks call it on their own snippets.
std::vector<AnalysisSpec> parse_analyses(const YAML::Node& list, const std::string& file);

// Every name the analyses use must exist in `campaign`: their step, the
// parameters they are laid out by (x, group_by, compare and ratio axes,
// repeat, the samples expression's variables), the compare baseline and ratio
// values among the values of their axis, and the metrics among those the
// collectors of their step(s) declare. The first that does not is an
// InputError at its place in the file, in the order the analyses are written.
void check_names(const std::vector<AnalysisSpec>& analyses, const CampaignNames& campaign);

}  // namespace campaign::analysis
