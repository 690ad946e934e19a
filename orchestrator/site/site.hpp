// `campaign site`: a static website of a campaign's performance across its
// runs (the runs `campaign history` finds), for people who follow a code
// nightly. Files in the output directory:
//
//   index.html                        per campaign: small-multiple plots of every tracked metric
//                                     relative to the first run, its latest verdict, the runs table;
//                                     the run directories that were skipped, and why
//   runs/CAMPAIGN/RUN.html            one run: provenance, commit link, the metrics against the
//                                     previous run and the baseline, profiles, data stalls, its report
//   runs/CAMPAIGN/RUN/report.html     the run's own report, copied (self-contained)
//   metrics/CAMPAIGN/METRIC.html      one metric: absolute, relative and speedup plots, every value
//
// Invariant: every link is relative and every page self-contained (inline CSS
// and SVG, no script), so the site opens from a file system or a plain web
// server; the only absolute URLs are the commit links of the campaign's
// `commit_url`. Pages are pure functions of the Site model (pages.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/table.hpp"
#include "catalog/catalog.hpp"
#include "history/runs.hpp"
#include "site/series.hpp"

namespace campaign::site {

// A profiler summary of a run: one routine, kernel, copy or component, its mean over the run's
// completed cases that have it.
struct ProfileRow {
  std::string family;  // "component", "tau_exclusive", "nsys_time"
  std::string name;    // what follows "family:" in the metric's name
  double value = 0;
  std::string unit;
  size_t cases = 0;
};
// Of each family, at most this many rows, largest first.
inline constexpr size_t kProfileRows = 15;

struct RunPage {
  history::Run run;
  std::string page;         // relative to the site's top: runs/CAMPAIGN/RUN.html
  std::string report;       // the copied report.html, relative to the top; "" when the run has none
  std::string commit_link;  // the campaign's commit_url for this commit; "" when unknown
  size_t cases = 0, completed = 0, failed = 0;
  double node_hours = 0;
  std::vector<ProfileRow> profile;  // grouped by family, each largest first
  std::vector<analysis::AnalysisResult>
      stalls;  // its campaign's `scaling: stalls` analyses (site/stalls.hpp)
};

// The profiler summaries among a run's collected metrics (collectors tau, nsys and components).
std::vector<ProfileRow> profile_rows(const std::vector<MetricRow>& metrics);

struct MetricPage {
  Track track;
  std::string page;  // metrics/CAMPAIGN/METRIC.html
};

struct CampaignSite {
  std::string name;
  std::vector<RunPage> runs;  // oldest first
  std::vector<MetricPage> metrics;
  std::string note;  // e.g. nothing is tracked
};

struct Skipped {
  std::string dir;
  std::string reason;
};

struct Site {
  std::vector<CampaignSite> campaigns;
  std::vector<Skipped> skipped;
  std::string generated;  // when, for people
};

// Regressions that fail a nightly check: "CAMPAIGN METRIC SERIES" for every
// series whose latest run regressed (as `campaign history`, exit status 3).
std::vector<std::string> regressions(const Site& site);

struct SiteResult {
  Site site;
  std::vector<std::filesystem::path> files;
};

// Reads every run under `roots` (all campaigns, or `campaign`), tracks each
// campaign's `track:` metrics (from its newest run's campaign text; `extra`
// adds metrics) and writes the site into `out`.
SiteResult build_site(const std::vector<std::filesystem::path>& roots, const std::string& campaign,
                      const std::vector<std::string>& extra, const std::filesystem::path& out);

// A file or directory name from any text: letters, digits, '-', '_', '.' kept, the rest '_'.
std::string slug(const std::string& text);

}  // namespace campaign::site
