// From a run directory to the catalog: each step's collectors, the
// scheduler's output file, and collecting a finished attempt.
//
// Invariants: collecting is idempotent (an attempt's metrics are replaced,
// never appended); a case whose files are missing or malformed becomes
// `collect_failed` with the reason and never stops the others.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "collect/collect.hpp"
#include "spec/campaign.hpp"

namespace campaign::collect {

// Each step's collectors (the step's `collectors:`, else the campaign's),
// loaded from collectors/NAME.yaml (or paths).
using StepCollectors = std::map<std::string, std::vector<Collector>>;
StepCollectors load_collectors(const spec::Campaign& campaign);

// The scheduler's output file of a job in its run directory (slurm-ID.out,
// job-ID.out, lsf-ID.out), or "" when none is there. A packed case (a job step named `step_name`)
// has its own, named after its step by the pack driver. Without a job id (a run imported from
// elsewhere): `name` when given (a file name, or a glob that matches one file: `import --output`),
// else the one scheduler output file there (slurm-*.out, job-*.out, lsf-*.out), if only one.
std::filesystem::path job_output(const std::filesystem::path& run_dir, const std::string& job_id,
                                 const std::string& step_name = {}, const std::string& name = {});

struct CollectOutcome {
  bool ok = false;
  size_t metrics = 0;
  std::string error;  // why the case is collect_failed
  std::vector<std::string> warnings;
};

// The start of attempt `attempt` in `run_dir` for collect(): none for a first attempt (nothing
// earlier to be credited with); for a retry the modification time of its start stamp
// (render::start_stamp). A retry without a stamp (a campaign's own template that does not write
// {{start_stamp}}) is not checked, and `warning` says so.
std::optional<AttemptStart> attempt_start(const std::filesystem::path& run_dir, int attempt,
                                          std::string& warning);

// Collects one attempt's run directory into the catalog: `collected` with its
// metrics, or `collect_failed` with the reason. A retry (attempt N > 1) is
// collected only from files modified since its start (attempt_start): an
// earlier attempt's output makes it `collect_failed`, naming the file.
CollectOutcome collect_attempt(Catalog& catalog, const AttemptRow& attempt,
                               const std::vector<Collector>& collectors);

// The instances a run directory holds (RUN_DIR/instance-<i>, render::instance_dir): one more
// than the highest i found, 0 for a case without instances.
long instance_count(const std::filesystem::path& run_dir);

// Collects without touching the catalog (`import` commits batches itself);
// errors become the outcome's reason. A case with instances is collected in
// each instance directory (with its output there), each metric keyed by its
// instance; a missing or unreadable instance fails the whole case, named.
CollectOutcome collect_dir(const std::filesystem::path& run_dir, const std::string& job_id,
                           const std::vector<Collector>& collectors, std::vector<campaign::Metric>& metrics,
                           const std::string& step_name = {},
                           const std::optional<AttemptStart>& since = std::nullopt,
                           const std::string& output_name = {});

// The same with the metrics grouped as the catalog stores them (SeriesBuilder), without a
// campaign::Metric per value: what `import` hands to Catalog::import_runs.
CollectOutcome collect_series(const std::filesystem::path& run_dir, const std::string& job_id,
                              const std::vector<Collector>& collectors, std::vector<MetricSeries>& series,
                              const std::string& step_name = {},
                              const std::optional<AttemptStart>& since = std::nullopt,
                              const std::string& output_name = {});

// Converts collector metrics for the catalog.
std::vector<campaign::Metric> to_catalog(const std::vector<Metric>& metrics);

}  // namespace campaign::collect
