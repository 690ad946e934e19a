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
// (s, ms: time, worse; .../s: a rate, better) or else its name (time,
// latency, loss, error: worse; throughput, bandwidth, accuracy: better). When
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
  std::string version;  // label or short commit
  std::string date;     // commit date (else run date), for people
  std::map<std::string, Measured> values;
};

enum class Verdict { none, baseline, within, improved, regressed };
std::string_view to_string(Verdict v);

struct HistoryPoint {
  std::optional<double> value;
  std::optional<double> relative;  // value / baseline
  Verdict verdict = Verdict::none;
  std::string where;
};

struct SeriesHistory {
  std::string name;
  std::optional<double> baseline;    // mean of the baseline runs' values
  std::vector<HistoryPoint> points;  // one per run
  std::optional<size_t> latest;      // the newest run with a value: the one a nightly check judges
};

struct History {
  Better better = Better::lower;
  double threshold = 0.1;
  std::vector<size_t> baseline_runs;
  std::vector<SeriesHistory> series;  // natural order of their names

  // Series whose latest point regressed; with `any`, series with any regressed point.
  std::vector<std::string> regressed(bool any) const;
};

// Relative values and verdicts: a point regressed when it is worse than the
// baseline by more than `threshold` (0.1 = 10 %) in the `better` direction,
// improved when better by more than that. Baseline runs are `baseline`; a
// series without a value in any baseline run cannot be judged (verdict none).
History judge(const std::vector<RunValues>& runs, const std::vector<size_t>& baseline_runs, Better better,
              double threshold);

}  // namespace campaign::history
