// What each case used beside what it asked (issue 31): the sampler's usage metrics (collectors/usage.yaml:
// cores, memory, the GPUs its processes touched, energy) against its request (the case's definition
// in the catalog, render::case_definition: partition, ranks, cpus_per_rank, gpus_per_rank). `status`
// marks each case whose use contradicts its request in its table; the report adds a table "usage" of
// every case with usage metrics, the contradiction in its `check` column, and where each figure came
// from and what it leaves out.
//
// Invariant: a case is marked only on what was measured: no usage metric, no verdict (never "no GPU
// used" for a case whose sampler could not ask nvidia-smi).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "analysis/case_result.hpp"
#include "analysis/table.hpp"
#include "catalog/catalog.hpp"

namespace campaign::report {

struct UsageRequest {
  std::string partition;
  double cores = 0;  // ranks x cpus_per_rank, over all its nodes; 0: not known
  double gpus = 0;   // ranks x gpus_per_rank
  bool wants_gpu() const { return gpus > 0 || partition == "gpu"; }
};
// From a case's definition (JSON); zeros when it is not one.
UsageRequest request_of(const std::string& definition);

// The cores a case may use on average before it counts as using more than it held: 10 % over (a
// 10 Hz sampler's tick rounding and the job script's own shell are not the case using more).
inline constexpr double kCoresSlack = 1.10;

// The contradictions between `request` and the usage `metrics` (by collectors/usage.yaml's names), in
// words, joined by "; "; "" when none (or nothing measured).
std::string usage_check(const UsageRequest& request, const std::map<std::string, double>& metrics);

// The usage metrics' names (collectors/usage.yaml).
const std::set<std::string>& usage_metric_names();

// The scheduler's accounting's energy of a job (AttemptRow::energy_j, sacct's ConsumedEnergy) and what
// one attempt of it held: a packed allocation's energy is its cases' together.
struct HeldEnergy {
  std::string job_id;
  double energy_j = 0;
  double cores = 0;    // the case's request (UsageRequest::cores); 0 counts as 1
  double seconds = 0;  // its elapsed time: its step's in an allocation
};
// Each attempt's share of its job's energy: the job's energy split among the attempts of the same
// job id by cores x seconds held (sample::split_by_held; by cores alone when no time is known), the
// whole of it for a job of one attempt. In the order given.
std::vector<double> sacct_energy_shares(const std::vector<HeldEnergy>& held);

struct CaseUsage {
  std::string case_name;
  UsageRequest request;
  std::map<std::string, double> metrics;
  std::string check;  // usage_check
};
// The latest attempt of each case of the campaign in the file, with its usage metrics and
// `sacct_energy_j` (its share of its job's accounted energy, sacct_energy_shares); cases without any
// are left out.
std::vector<CaseUsage> case_usage(Catalog& catalog, std::int64_t campaign_id);
// The same from the campaign's latest attempts already read (Catalog::latest_attempts).
std::vector<CaseUsage> case_usage(Catalog& catalog, std::int64_t campaign_id,
                                  const std::vector<AttemptRow>& latest);

// Each analysis whose cases (its step's usable cases it did not leave out) include one whose use
// contradicts its request gets a note naming the case and the contradiction, so the tables built on
// it say so too.
void mark_analyses(std::vector<analysis::AnalysisResult>& analyses,
                   const std::vector<analysis::CaseResult>& cases, const std::vector<CaseUsage>& usage);

// The samples a case processed, by case name, from the first analysis with a `samples` expression
// (its step's cases; `what` says which), for the GPU energy per sample.
struct SamplesOf {
  std::map<std::string, double> by_case;
  std::string what;  // "`n_train * n_epochs` of analysis weak_scaling"
};
SamplesOf samples_of(const std::vector<analysis::AnalysisSpec>& specs,
                     const std::vector<analysis::CaseResult>& cases);

// The report's table of them, with notes on each figure's source; nullopt when no case has one.
// With `samples`, a column gpu_energy_per_sample_j: gpu_energy_j / the case's samples.
std::optional<analysis::AnalysisResult> usage_table(const std::vector<CaseUsage>& cases,
                                                    const SamplesOf& samples = {});

}  // namespace campaign::report
