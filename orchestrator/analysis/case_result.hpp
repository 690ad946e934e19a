// The input of every analysis: one finished (or failed) case with its
// parameters and collected metrics, as the catalog hands it over.
//
// Invariant: these are plain values with no link back to the catalog, so the
// analysis stays a pure function of them and is tested without a database.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace campaign::analysis {

// One collected value. `step` is the epoch/iteration index for per-step metrics
// (e.g. epoch_time of epoch 3), empty for scalar metrics (e.g. total runtime).
struct MetricRow {
  std::string name;
  std::optional<double> step;
  double value = 0;
  std::string unit;
  std::optional<long> instance{};  // of a case with `instances` (MLPerf HPC weak scaling)
};

// A sampled series (utilisation at 10 Hz: millions of samples in a campaign),
// kept packed instead of as MetricRows. Steps as stored: Unix time in ms for
// the sampler's series (collectors/utilisation.yaml).
struct SampledSeries {
  std::string name;
  std::string unit;
  std::vector<std::int64_t> steps;
  std::vector<double> values;
};

struct CaseResult {
  std::string name;
  std::string step;                           // campaign step, e.g. "train"
  std::map<std::string, std::string> params;  // numbers as printed, e.g. "8"
  std::string state;                          // util/state.hpp names, e.g. "collected"
  std::vector<MetricRow> metrics;
  std::vector<SampledSeries> sampled;        // the series window analyses read (report/input.cpp)
  std::string job_id, nodelist, start, end;  // provenance of the attempt used
};

}  // namespace campaign::analysis
