// Reports of a campaign's analyses: Markdown, CSV, JSON, one self-contained
// HTML file, gnuplot plots, and aligned tables for the terminal.
//
// Files in `out_dir` (flat, so every link in report.md is relative):
//   report.md, report.html
//   <stem>.csv, <stem>.json           one per table; stem = <analysis>[-<group>]
//   <stem>.dat, <stem>.gp             plot data and the gnuplot script that draws it
//   <stem>.svg, <stem>.png            rendered by gnuplot when it is available
//
// Invariant: every file is written to a temporary name and renamed, so a
// report directory never holds a half-written file; without gnuplot the
// report still has every table and says that plots are missing.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/case_result.hpp"
#include "analysis/table.hpp"

namespace campaign::report {

// Where the numbers come from.
struct Provenance {
  std::string campaign;       // campaign name
  std::string campaign_hash;  // sha256 of the campaign file (or any identifying hash)
  std::string system;
  std::string code_version;  // e.g. git commit of the code under test
  std::string generated;     // when the report was made; empty = now (UTC)
  std::vector<std::string> job_ids;
  std::vector<std::string> nodes;
  std::string first_start, last_end;
  std::string tags;   // the run's tags (run --tag), "nightly, node=a100"
  std::string cases;  // the cases chosen (report --case/--only): "--only ranks=4: 2 of the 8 cases"
};

// Fills job ids, node lists and the first start / last end from the cases
// (each value once, in first-seen order; dates compared as ISO-8601 text).
void add_runs(Provenance& p, const std::vector<analysis::CaseResult>& cases);

struct ReportInput {
  Provenance provenance;
  std::vector<analysis::AnalysisResult> analyses;
  // Cases that failed outside of any analysis' scope; each analysis' own
  // excluded cases are reported with it.
  std::vector<analysis::Excluded> failed;
};

enum class Format { md, csv, json, html };
std::string_view to_string(Format f);
// "md,html" -> {md, html}; "all" -> every format. Unknown names throw
// campaign::Error with a suggestion.
std::vector<Format> parse_formats(const std::string& list);

struct ReportOptions {
  // Program name (searched in `search_path`) or a path to it.
  std::string gnuplot = "gnuplot";
  // ':'-separated directories; empty optional = this process' PATH.
  std::optional<std::string> search_path;
  std::chrono::milliseconds plot_timeout{60000};
};

struct ReportResult {
  std::vector<std::filesystem::path> files;  // everything written, in order
  std::vector<std::string> warnings;         // e.g. gnuplot missing or failing
  bool plotted = false;                      // at least one plot was rendered
};

// Writes the requested formats into `out_dir` (created if needed). Plots are
// drawn only for md and html. Throws campaign::Error on I/O failure.
ReportResult write_report(const ReportInput& input, const std::vector<Format>& formats,
                          const std::filesystem::path& out_dir, const ReportOptions& options = {});

// One table as HTML (a <table> in a horizontally scrolling <div class="scroll">, numbers in
// <td class="num">), formatted as every report formats it; for report.html and the site's pages.
std::string table_html(const analysis::Table& t);

// Aligned plain-text tables for `campaign report --terminal`.
void print_tables(std::ostream& os, const std::vector<analysis::AnalysisResult>& analyses);

}  // namespace campaign::report
