// Performance history: one metric of a campaign followed across runs of
// different code versions, relative to a baseline, with regressions flagged.
//
// A METRIC names either a column of the campaign's analysis tables or a
// collected metric, then optionally where to read it:
//
//   [ANALYSIS.]COLUMN[@COND,...]         e.g. throughputs@ranks=4, eff@max,
//                                             weak_scaling.times_dummy@ranks=2
//   [REDUCER(]NAME[)][@COND,...]         e.g. epoch_time@ranks=4,data=real,
//                                             median(epoch_time)@ranks=max
//
// COND is KEY=VALUE, KEY=max, KEY=min, or a bare max/min (the table's x). For
// a column, KEY is the table's x (picks the row), a group_by parameter (picks
// the table) or the compare axis (picks the series: data=dummy reads the
// `_dummy` column); without a condition on x, every row is a series. For a
// collected metric, KEY is any case parameter; each matching case is reduced
// to one number (REDUCER: mean or median over the steps after warm-up, i.e.
// step >= 1 when there are such steps; min, max, last or sum over all of
// them; default mean) and is a series, named after the case (repetitions,
// cases differing only in `repeat`, are averaged). A name that is a column
// wins over a collected metric of the same name; REDUCER(NAME) forces the
// collected metric.
//
// Direction: a column's kind says whether higher is better (throughputs, eff,
// speedup, ideal) or worse (times, stall, *_std); a collected metric's unit
// (s, ms: time, worse; J, Wh, W: energy and power, worse; .../s: a rate, better) or else its name
// (time, latency, loss, error, energy, power: worse; throughput, bandwidth, accuracy: better). When
// neither tells, the caller must say (--better).
//
// Invariant: everything here is a pure function of its arguments (no catalog,
// no clock), so every rule is tested on hand-made runs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/table.hpp"

namespace campaign::history {

struct Condition {
  std::string key;    // empty for a bare max/min (the table's x)
  std::string value;  // a value, or "max"/"min"
};

struct MetricQuery {
  std::string text;     // as written, for messages and file names
  std::string reducer;  // set when written REDUCER(NAME): a collected metric
  std::string head;     // what stands before '@': [ANALYSIS.]NAME
  std::vector<Condition> conditions;
};

// Parses METRIC; a malformed one is an InputError naming it.
MetricQuery parse_metric(const std::string& text);

enum class Better { lower, higher };
std::string_view to_string(Better b);

// The direction of a table column ("eff_dummy" is an `eff` column) or of a
// collected metric with its unit; nullopt when neither says.
std::optional<Better> column_direction(const std::string& column);
std::optional<Better> metric_direction(const std::string& name, const std::string& unit);

// The metric's value in one run, per series.
struct Measured {
  double value = 0;
  std::string where;  // e.g. "ranks=4" when the row came from @max; "" otherwise
  // The repetitions `value` is the mean of (repeated cases; a table's
  // COLUMN_std and count), and their sample standard deviation.
  size_t n = 1;
  std::optional<double> std;
};

struct Extraction {
  std::string kind;                        // "column COLUMN of ANALYSIS" or "collected metric NAME (REDUCER)"
  std::map<std::string, Measured> values;  // by series
  std::string unit;
  std::optional<Better> better;
  std::string problem;             // why nothing was found ("" when values were)
  std::vector<std::string> names;  // columns and metric names of the run, for "did you mean"
};

// Reads the metric from one run: its analyses (computed from its own stored
// spec) and its cases.
Extraction extract(const MetricQuery& query, const std::vector<analysis::AnalysisResult>& analyses,
                   const std::vector<analysis::CaseResult>& cases);

// One run as history shows it, oldest first.
struct RunValues {
  std::string run;      // work directory, for people
  std::string version;  // label or short commit: runs of one version measured the same code
  std::string commit;   // full commit id, "" when unknown
  std::string date;     // commit date (else run date), for people
  std::map<std::string, Measured> values;
};

enum class Verdict { none, baseline, within, improved, regressed };
std::string_view to_string(Verdict v);

// Which rule made a point improved or regressed. Without repetitions the
// threshold alone decides; with them the change must also exceed the spread:
// disjoint confidence intervals (ci), a step between the point and the
// baseline (step), or both.
enum class Rule { none, threshold, ci, step, ci_and_step };
std::string_view to_string(Rule r);  // "", "threshold", "ci", "step", "ci+step"

// The repetitions behind a value: mean, sample std, count and the half-width
// of the mean's confidence interval (std and ci absent for one value).
struct Spread {
  double mean = 0;
  std::optional<double> std;
  size_t n = 0;
  std::optional<double> ci;
};

// A mean shift in a series: runs [0, run) differ from runs [run, ...) (in
// the segment that was split), with the two-sample t-test's p-value
// (corrected for the number of places tried).
struct Step {
  size_t run = 0;  // the first run after the step
  double before = 0, after = 0;
  double p = 1;
};

struct HistoryPoint {
  std::optional<double> value;
  std::optional<double> relative;  // value / baseline
  Verdict verdict = Verdict::none;
  Rule rule = Rule::none;
  // Beyond the threshold but within the spread: not flagged (verdict within).
  bool within_noise = false;
  // The repetitions the point is judged on: this run's and those of earlier
  // (non-baseline) runs of the same version.
  std::optional<Spread> spread;
  std::string where;
};

struct SeriesHistory {
  std::string name;
  std::optional<double> baseline;         // mean of the baseline runs' repetitions
  std::optional<Spread> baseline_spread;  // of those repetitions
  std::vector<HistoryPoint> points;       // one per run
  std::vector<Step> steps;                // mean shifts found over the whole series, oldest first
  std::optional<size_t> latest;           // the newest run with a value: the one a nightly check judges
  // Whether the noise rules judge any point (repetitions on both sides).
  bool repeated() const;
};

// How the spread is read: the confidence of the intervals and the
// significance a step must reach (after correction).
struct NoiseRules {
  double confidence = 0.95;
  double step_alpha = 0.001;
};

struct History {
  Better better = Better::lower;
  double threshold = 0.1;
  NoiseRules noise;
  std::vector<size_t> baseline_runs;
  std::vector<SeriesHistory> series;  // natural order of their names

  // Series whose latest point regressed; with `any`, series with any regressed point.
  std::vector<std::string> regressed(bool any) const;
};

// Mean shifts in a sequence of runs' repetitions (n = 0: no value), by binary
// segmentation: the split with the largest two-sample t (variance pooled
// within the sides) between the runs before and after it, kept when its p-value times the number of splits
// tried is below `alpha` (each side needs two values), then each side searched again.
std::vector<Step> find_steps(const std::vector<Spread>& runs, double alpha);

// Relative values and verdicts. A point regressed when it is worse than the
// baseline by more than `threshold` (0.1 = 10 %) in the `better` direction,
// improved when better by more than that. When both the baseline and the
// point have repetitions (a run's repeated cases, or several runs of one
// version), their means are compared instead and the change must also
// exceed the spread: the confidence intervals do not overlap, or a step of
// find_steps lies between the point and the baseline. Baseline runs are
// `baseline`; a series without a value in any baseline run cannot be judged
// (verdict none).
History judge(const std::vector<RunValues>& runs, const std::vector<size_t>& baseline_runs, Better better,
              double threshold, const NoiseRules& noise = {});

}  // namespace campaign::history
