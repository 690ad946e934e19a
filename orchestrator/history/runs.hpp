// Where `campaign history` finds its runs and how it reads a metric from
// each. A run is one campaign of one work directory's catalog: the catalogs
// are the source of truth, so a nightly job that runs the campaign with a
// fresh --workdir per night (e.g. runs/NAME/2026-11-24) leaves one run per
// night, each with the code version it measured.
//
// Invariant: runs are only read (Access::snapshot: older catalogs are
// migrated in memory, never on disk), so history never disturbs a run in
// progress and works on catalogs of earlier campaign versions.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "history/verdicts.hpp"

namespace campaign::history {

struct Run {
  std::filesystem::path workdir;
  std::string name;  // workdir relative to the directory it was found under, for people
  CampaignRecord campaign;
  Time order{};              // the commit date, else when the run was created
  std::string date() const;  // `order` for people
};

struct RunSearch {
  std::vector<Run> runs;               // oldest first: by commit date, then run creation, then name
  std::vector<std::string> campaigns;  // names of every campaign found (sorted), for messages
  std::vector<std::string> warnings;   // catalogs that could not be read
};

// Work directories (directories with a campaign.db) at or under `roots`, at
// most `depth` levels down; hidden directories and the insides of work
// directories are not searched. Only runs of campaign `name` are kept (all
// when empty).
RunSearch find_runs(const std::vector<std::filesystem::path>& roots, const std::string& name, int depth = 4);

// Runs matching `ref`: its label, a commit prefix (4+ hex digits), its name
// or its work directory's name.
std::vector<size_t> match_runs(const std::vector<Run>& runs, const std::string& ref);

// The metric in one run: the analyses of the campaign text stored with it
// (with its system's override), over its cases and collected metrics.
Extraction measure(const Run& run, const MetricQuery& query);
// The same for several metrics at once: the catalog is read and the analyses computed once.
std::vector<Extraction> measure(const Run& run, const std::vector<MetricQuery>& queries);

}  // namespace campaign::history
