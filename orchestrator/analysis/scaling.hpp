// Weak/strong scaling tables and plain aggregate tables from case results
// (README, "A campaign, walked through"; the studies' own definitions where named):
//   time(r)       = mean of the time metric over steps >= warmup
//   samples(r)    = the spec's expression over the case's parameters
//   throughput(r) = samples(r) / time(r)
//   ideal(r)      = throughput(r0) * r / r0, r0 the smallest r of the series
//   weak:   eff(r) = throughput(r) / ideal(r)
//   strong: speedup(r) = time(r0) / time(r), eff(r) = speedup(r) * r0 / r
// Repetitions (cases equal but for the `repeat` parameter) give the times' mean,
// sample std, min, max, median and count; every rate is taken over the mean
// time (throughput = samples / mean time, as the CosmoFlow study; not the mean
// of the repetitions' rates), its std propagated from the times' std
// (samples * std / mean^2), its min / max / median the samples over the times'
// max / min / median.
//
// Invariant: every case in scope is either counted in exactly one table cell
// or listed in `excluded` with its reason; a parameter that varies between
// cases of the same point (not x, group_by, compare or repeat) splits the
// tables instead of being averaged over, and that is said in `notes`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/table.hpp"
#include "spec/analyses.hpp"

namespace campaign::analysis {

AnalysisResult analyze(const AnalysisSpec& spec, const std::vector<CaseResult>& cases);

// What one case measures for the tables: its value (a mean time, a mean
// utilisation) and unit, or why it has none.
struct CaseValue {
  std::optional<double> value;
  std::string unit;
  std::string why;
};
using Measure = std::function<CaseValue(const CaseResult&)>;

// analyze() for weak, strong and none with each case's value from `measure`
// (the time metric's mean after warm-up in analyze(); analysis/window.cpp has its own).
AnalysisResult analyze_with(const AnalysisSpec& spec, const std::vector<CaseResult>& cases,
                            const Measure& measure);

std::vector<AnalysisResult> analyze_all(const std::vector<AnalysisSpec>& specs,
                                        const std::vector<CaseResult>& cases);

// States whose metrics may be used.
bool usable_state(const std::string& state);

}  // namespace campaign::analysis
