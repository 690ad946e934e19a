// Plots of analysis tables as gnuplot scripts with their data beside them:
//   scaling tables: throughput (or speedup) vs x on log2/log10 axes, one
//                   line per series with its dashed ideal line, and an
//                   efficiency panel below (multiplot);
//   aggregate tables: bars of the mean time per x with std error bars, one
//                   bar per compare value in each x's cluster, and a ratio
//                   between two compared values written above each cluster;
//   the usage table: each case's energies (J), one bar per figure it has.
// The script renders SVG or PNG (pngcairo when the gnuplot build has it) and
// reads only relative paths, so a user can edit and re-run it in place.
//
// Invariant: the .dat holds exactly the table (NaN where a cell is empty), so
// the plot never shows a number the tables do not.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "analysis/table.hpp"

namespace campaign::report {

// The table as whitespace-separated columns with a header line.
std::string plot_data(const analysis::Table& table);

// The gnuplot script for `table` (data in "<stem>.dat"); "" when the table
// has nothing to draw.
std::string plot_script(const analysis::AnalysisResult& analysis, const analysis::Table& table);

// What every plot script starts with: "# TITLE", how to re-render, the output
// (the variable fmt picks SVG or PNG, sizes in pixels), the shared line
// styles, and `data = "<stem>.dat"` whose first line names the columns (one
// row per `x`).
std::string plot_preamble(const std::string& stem, const std::string& title, const std::string& x, int width,
                          int height);

// `s` as a gnuplot double-quoted string (backslash, quote, line breaks escaped).
std::string gnuplot_string(const std::string& s);

// Runs `gnuplot` in `dir` on "<stem>.gp" once for SVG and once for PNG.
// Returns "" on success, else what went wrong (gnuplot's own message).
std::string render_plot(const std::filesystem::path& gnuplot, const std::filesystem::path& dir,
                        const std::string& stem, std::chrono::milliseconds timeout);

}  // namespace campaign::report
