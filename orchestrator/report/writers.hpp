// Internal to report/: the pieces write_report() assembles, each a pure
// function from the input (and what was plotted) to the text of one file.
//
// Invariant: writers never touch the file system; write_report() (and
// write_history()) alone do, through write_file, so every writer is tested on
// strings.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace campaign::report::detail {

// What exists beside the report for one table, so links are made only to files that exist.
struct TableFiles {
  bool csv = false, json = false;
  bool script = false;  // .gp and .dat
  bool svg = false, png = false;
  std::string svg_text;   // for inlining into HTML
  std::string png_bytes;  // used when there is no SVG
};

// The files beside the report for one table, as (label, file name) links, in the order both
// documents show them: SVG, gnuplot script and its data, CSV, JSON.
std::vector<std::pair<std::string, std::string>> data_links(const TableFiles& files, const std::string& stem);

struct Context {
  const ReportInput& input;
  std::map<std::string, TableFiles> files;  // by table stem
  std::string plot_status;                  // "" when plots were drawn, else why not
  std::vector<std::string> warnings;
  std::string generated;  // timestamp shown in the report
};

// RFC 4180: the field, quoted when it holds a separator, quote or line break.
std::string csv_field(const std::string& s);

std::string table_csv(const analysis::Table& t);
std::string table_json(const analysis::AnalysisResult& a, const analysis::Table& t);
std::string markdown(const Context& ctx);
std::string html(const Context& ctx);

// The heading of a table: its group ("case=a"), after its own name where that extends the
// analysis' ("stalls-whatif: case=a"); "" for the analysis' one ungrouped table.
std::string heading(const analysis::AnalysisResult& a, const analysis::Table& t);
// How an analysis' numbers were made, in one sentence, for both documents.
std::string describe(const analysis::AnalysisSpec& spec);
// Excluded cases of all analyses and the input's failed cases, each with its analysis ("" for none).
struct LeftOut {
  std::string analysis;
  analysis::Excluded c;
};
std::vector<LeftOut> left_out(const ReportInput& in);
// A list shortened to its first `keep` items, then "... (N in all)".
std::string abbreviate(const std::vector<std::string>& items, size_t keep);
std::string base64(const std::string& bytes);

// Writes `text` to a temporary name, then renames it to `path` (readers see
// the old file or the new one) and appends `path` to `written`. Throws Error.
void write_file(const std::filesystem::path& path, const std::string& text,
                std::vector<std::filesystem::path>& written);

}  // namespace campaign::report::detail
