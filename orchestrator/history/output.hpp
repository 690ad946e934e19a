// Output of `campaign history`: the metric across runs (oldest first) per
// series, relative to the baseline, with verdicts - as aligned text for the
// terminal, CSV and JSON for other tools, and a gnuplot plot of the relative
// values with the threshold and the regressions marked.
//
// Files in `out_dir`, `<stem>` chosen by the caller:
//   <stem>.csv    one line per series and run (series,run,version,date,value,relative,verdict,where,
//                 then the rule that flagged it and the repetitions judged: rule,n,mean,std,ci,commit)
//   <stem>.json   the same, structured, with the baseline, its spread, the steps and the regressions
//   <stem>.dat, <stem>.gp, <stem>.svg, <stem>.png   the plot (when gnuplot is there)
//
// Invariant: as for reports, every file is written to a temporary name and
// renamed; the plot draws exactly the relative values of the CSV.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "history/track.hpp"
#include "report/report.hpp"

namespace campaign::history {

void print_history(std::ostream& os, const HistoryDocument& d);
std::string history_csv(const HistoryDocument& d);
std::string history_json(const HistoryDocument& d);
// The plot's data (one row per run) and its gnuplot script ("" when nothing has a relative value).
std::string history_plot_data(const HistoryDocument& d);
std::string history_plot_script(const HistoryDocument& d, const std::string& stem);

// Writes <stem>.dat and <stem>.gp and renders them (SVG, PNG) into `result`; an empty script
// (nothing to plot) and plot problems (no gnuplot) are warnings.
void write_plot(const std::filesystem::path& out_dir, const std::string& stem, const std::string& data,
                const std::string& gp, const report::ReportOptions& options, report::ReportResult& result);

// Writes the files above; plot problems (no gnuplot) are warnings.
report::ReportResult write_history(const HistoryDocument& d, const std::filesystem::path& out_dir,
                                   const std::string& stem, const report::ReportOptions& options = {});

}  // namespace campaign::history
