// The ExaRL plan's one plot: several tracked metrics (% MPI, % memcpy, runtime) in one figure, each
// relative to its baseline (1.0) against the runs in commit-date order, as `campaign history --plot`
// writes it. Built from the documents history::track makes, one per metric, so each line is exactly
// the `relative` column `campaign history METRIC` writes for that metric and series.
//
// Files in `out_dir`: <stem>.csv (metric,series,run,version,date,value,relative,verdict), and the
// plot: <stem>.dat, <stem>.gp, <stem>.svg, <stem>.png (when gnuplot is there).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "history/track.hpp"
#include "report/report.hpp"

namespace campaign::history {

struct CombinedLine {
  std::string label;  // the metric, and its series when it has several: "times@ranks=4 [partition=cpu]"
  std::vector<std::optional<double>> relative;  // one per run
  std::vector<bool> regressed;
};

// One line per metric and series; `docs` follow the same runs (track() over one run list).
std::vector<CombinedLine> combined_lines(const std::vector<HistoryDocument>& docs);

std::string combined_csv(const std::vector<HistoryDocument>& docs);
// The plot's data (one row per run) and its gnuplot script ("" when nothing has a relative value).
std::string combined_plot_data(const std::vector<HistoryDocument>& docs);
std::string combined_plot_script(const std::vector<HistoryDocument>& docs, const std::string& stem);

report::ReportResult write_combined(const std::vector<HistoryDocument>& docs,
                                    const std::filesystem::path& out_dir, const std::string& stem,
                                    const report::ReportOptions& options = {});

}  // namespace campaign::history
