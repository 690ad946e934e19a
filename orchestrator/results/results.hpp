// From run directories to the catalog and on to reports: collecting a
// finished case with the campaign's collectors, adopting runs done elsewhere
// (`campaign import`), and turning catalog rows into analysis input.
//
// Invariants: collecting is idempotent (an attempt's metrics are replaced,
// never appended); a case whose files are missing or malformed becomes
// `collect_failed` with the reason and never stops the others.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/spec.hpp"
#include "catalog/catalog.hpp"
#include "collect/collect.hpp"
#include "matrix/plan.hpp"
#include "report/report.hpp"
#include "results/code_version.hpp"
#include "spec/campaign.hpp"

namespace campaign::results {

// Each step's collectors (the step's `collectors:`, else the campaign's),
// loaded from collectors/NAME.yaml (or paths).
using StepCollectors = std::map<std::string, std::vector<collect::Collector>>;
StepCollectors load_collectors(const spec::Campaign& campaign);

// The scheduler's output file of a job in its run directory (slurm-ID.out,
// job-ID.out, lsf-ID.out), or "" when none is there.
std::filesystem::path job_output(const std::filesystem::path& run_dir, const std::string& job_id);

struct CollectOutcome {
  bool ok = false;
  size_t metrics = 0;
  std::string error;  // why the case is collect_failed
  std::vector<std::string> warnings;
};

// Collects one attempt's run directory into the catalog: `collected` with its
// metrics, or `collect_failed` with the reason.
// The instances a run directory holds (RUN_DIR/instance-<i>, render::instance_dir): one more
// than the highest i found, 0 for a case without instances.
long instance_count(const std::filesystem::path& run_dir);

// Collects a run directory without touching the catalog; errors become the outcome's reason. A
// case with instances is collected in each instance directory (with its output there), each
// metric keyed by its instance; a missing or unreadable instance fails the whole case, named.
CollectOutcome collect_dir(const std::filesystem::path& run_dir, const std::string& job_id,
                           const std::vector<collect::Collector>& collectors, std::vector<Metric>& metrics);

CollectOutcome collect_attempt(Catalog& catalog, const AttemptRow& attempt,
                               const std::vector<collect::Collector>& collectors);

// Converts collector metrics for the catalog.
std::vector<Metric> to_catalog(const std::vector<collect::Metric>& metrics);

struct ImportSummary {
  size_t found = 0, absent = 0, collected = 0, failed = 0, already = 0;
  std::vector<std::string> errors;  // "case: reason"
};

// `campaign import`: each case whose run directory (named by the campaign's
// case_name) is under `from` (directly, or one level down, e.g.
// results/weak_scaling/<timestamp>/scaling-gpu-n8) becomes a completed case
// and is collected; absent ones stay planned. Cases already completed are
// left alone.
ImportSummary import_runs(Catalog& catalog, const matrix::Plan& plan, const std::filesystem::path& workdir,
                          const std::filesystem::path& from, const StepCollectors& collectors,
                          const CodeVersion& code = {});

// Records the campaign and syncs its cases (as `run` does); returns its id.
std::int64_t sync_campaign(Catalog& catalog, const matrix::Plan& plan, const std::filesystem::path& workdir,
                           const CodeVersion& code,
                           const std::function<std::string(const matrix::Case&)>& run_dir_of = {});

// The latest attempt of every case with its parameters and metrics (only
// the metrics named in `metrics`, when not empty).
std::vector<analysis::CaseResult> case_results(Catalog& catalog, std::int64_t campaign_id,
                                               const std::set<std::string>& metrics = {});

// The campaign's analyses, parsed and checked against what the plan and the
// collectors offer: every step, parameter, value and metric they name exists.
std::vector<analysis::AnalysisSpec> load_analyses(const matrix::Plan& plan, const StepCollectors& collectors);

// The metrics the analyses read (time metric, data-stall metrics).
std::set<std::string> metrics_used(const std::vector<analysis::AnalysisSpec>& specs);

struct ReportRequest {
  std::vector<report::Format> formats;
  std::filesystem::path out_dir;
  bool terminal = false;
};

// Analyses of the campaign (its `analyses:`) over the catalog, written as
// reports; returns what was written.
report::ReportResult make_report(Catalog& catalog, const spec::Campaign& campaign, std::int64_t campaign_id,
                                 const ReportRequest& request, std::ostream* terminal);

}  // namespace campaign::results
