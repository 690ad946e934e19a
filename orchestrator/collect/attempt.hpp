// From a run directory to the catalog: each step's collectors, the
// scheduler's output file, and collecting a finished attempt.
//
// Invariants: collecting is idempotent (an attempt's metrics are replaced,
// never appended); a case whose files are missing or malformed becomes
// `collect_failed` with the reason and never stops the others.
#pragma once

#include <filesystem>
#include <map>
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
// has its own, named after its step by the pack driver.
std::filesystem::path job_output(const std::filesystem::path& run_dir, const std::string& job_id,
                                 const std::string& step_name = {});

struct CollectOutcome {
  bool ok = false;
  size_t metrics = 0;
  std::string error;  // why the case is collect_failed
  std::vector<std::string> warnings;
};

// Collects one attempt's run directory into the catalog: `collected` with its
// metrics, or `collect_failed` with the reason.
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
                           const std::string& step_name = {});

// Converts collector metrics for the catalog.
std::vector<campaign::Metric> to_catalog(const std::vector<Metric>& metrics);

}  // namespace campaign::collect
