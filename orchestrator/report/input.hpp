// From the catalog to a report: catalog rows as analysis input, the
// campaign's analyses checked against the plan, and the report they make.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "analysis/case_result.hpp"
#include "catalog/catalog.hpp"
#include "collect/attempt.hpp"
#include "matrix/plan.hpp"
#include "report/report.hpp"
#include "spec/analyses.hpp"
#include "spec/campaign.hpp"

namespace campaign::report {

// The latest attempt of every case with its parameters and metrics (only
// the metrics named in `metrics`, when not empty; names may be templates).
// Series named by `sampled` (templates too) go packed into CaseResult::sampled.
std::vector<analysis::CaseResult> case_results(Catalog& catalog, std::int64_t campaign_id,
                                               const std::set<std::string>& metrics = {},
                                               const std::set<std::string>& sampled = {});
// The same from the campaign's latest attempts already read (Catalog::latest_attempts).
std::vector<analysis::CaseResult> case_results(Catalog& catalog, std::int64_t campaign_id,
                                               const std::vector<AttemptRow>& latest,
                                               const std::set<std::string>& metrics,
                                               const std::set<std::string>& sampled);

// The campaign's analyses (parsed with it, spec/analyses.hpp) checked against
// what the plan and the collectors offer: every step, parameter, value and
// metric they name exists (analysis::check_names).
// `across`: a parameter's values over several plans (`system` over a campaign's systems: each plan
// has one of them, the report all).
void check_analyses(const matrix::Plan& plan, const collect::StepCollectors& collectors,
                    const std::map<std::string, std::vector<std::string>>& across = {});

// The metrics the analyses read (time metric, data-stall metrics, epoch
// windows, the per-rank stall templates).
std::set<std::string> metrics_used(const std::vector<analysis::AnalysisSpec>& specs);
// The series kept packed: the samples window analyses read, the per-rank series of stalls.
std::set<std::string> sampled_used(const std::vector<analysis::AnalysisSpec>& specs);

struct ReportRequest {
  std::vector<Format> formats;
  std::filesystem::path out_dir;
  bool terminal = false;
  // report --case/--only: the names of the cases the analyses read (unset: every case), and what the
  // user asked, for the report's header.
  std::optional<std::set<std::string>> cases;
  std::string chosen;
  // Tables added after the analyses', from the cases they read (the references' checks, issue 34).
  std::function<std::vector<analysis::AnalysisResult>(const std::vector<analysis::CaseResult>&)> extra;
};

// Analyses of the campaign (its `analyses:`) over the catalog, written as
// reports; returns what was written.
ReportResult make_report(Catalog& catalog, const spec::Campaign& campaign, std::int64_t campaign_id,
                         const ReportRequest& request, std::ostream* terminal);
// A campaign across several systems: its parts (one campaign row each) in one report, each case named
// SYSTEM/NAME (case_in_report).
std::string case_in_report(const std::string& system, const std::string& name);
ReportResult make_report(Catalog& catalog, const spec::Campaign& campaign,
                         const std::vector<std::int64_t>& campaign_ids, const ReportRequest& request,
                         std::ostream* terminal);

// The campaign stored in a catalog (`record`, of work directory `workdir`) as its system saw it:
// spec::parse_campaign of its text with the system's override, analyses included. `report WORKDIR`,
// history and the site read a run's campaign only so. An InputError when it no longer parses.
spec::Campaign stored_campaign(const CampaignRecord& record, const std::filesystem::path& workdir);
// Its analyses only, as stored_campaign gives them, parsed once per distinct campaign text and
// system in this process (history and the site read them for every run, many runs share a text).
std::shared_ptr<const std::vector<analysis::AnalysisSpec>> stored_analyses(
    const CampaignRecord& record, const std::filesystem::path& workdir);

// The code version a run measured (history/code_version.hpp), for reports:
// "LABEL, commit 0123456789 of 2026-11-01 12:00 UTC (modified)", with the
// parts that are known; "" when none is.
std::string describe_code(const CodeRecord& code);
// A run's tags (CampaignRecord::tags) as every command prints them: "nightly, node=a100" ("" when none).
std::string describe_tags(const std::map<std::string, std::string>& tags);
// "2026-11-01 12:00 UTC".
std::string format_utc(Time t);

}  // namespace campaign::report
