// Implements history/combined.hpp.
#include "history/combined.hpp"

#include <algorithm>
#include <cstdio>

#include "history/output.hpp"
#include "report/plot.hpp"
#include "report/writers.hpp"
#include "util/strings.hpp"

namespace campaign::history {

namespace fs = std::filesystem;
using report::gnuplot_string;

namespace {

std::string line_label(const HistoryDocument& d, const SeriesHistory& s) {
  return d.history.series.size() > 1 && !s.name.empty() ? d.metric + " [" + s.name + "]" : d.metric;
}

std::string number(std::optional<double> v) { return v ? analysis::format_exact(*v) : ""; }

}  // namespace

std::vector<CombinedLine> combined_lines(const std::vector<HistoryDocument>& docs) {
  std::vector<CombinedLine> out;
  for (const HistoryDocument& d : docs)
    for (const SeriesHistory& s : d.history.series) {
      CombinedLine l{line_label(d, s), {}, {}};
      for (const HistoryPoint& p : s.points) {
        l.relative.push_back(p.relative);
        l.regressed.push_back(p.verdict == Verdict::regressed);
      }
      out.push_back(std::move(l));
    }
  return out;
}

std::string combined_csv(const std::vector<HistoryDocument>& docs) {
  std::string out = "metric,series,run,version,date,value,relative,verdict\n";
  for (const HistoryDocument& d : docs)
    for (const SeriesHistory& s : d.history.series)
      for (size_t i = 0; i < s.points.size() && i < d.runs.size(); ++i) {
        const HistoryPoint& p = s.points[i];
        const RunValues& r = d.runs[i];
        out += report::detail::csv_field(d.metric) + "," + report::detail::csv_field(s.name) + "," +
               report::detail::csv_field(r.run) + "," + report::detail::csv_field(r.version) + "," +
               report::detail::csv_field(r.date) + "," + number(p.value) + "," + number(p.relative) + "," +
               std::string(to_string(p.verdict)) + "\n";
      }
  return out;
}

std::string combined_plot_data(const std::vector<HistoryDocument>& docs) {
  const std::vector<CombinedLine> lines = combined_lines(docs);
  analysis::Table t;
  t.x = "run";
  t.columns = {"index", "label"};
  for (size_t l = 0; l < lines.size(); ++l) {
    t.columns.push_back("rel" + std::to_string(l + 1));
    t.columns.push_back("bad" + std::to_string(l + 1));
  }
  if (docs.empty()) return report::plot_data(t);
  const std::vector<RunValues>& runs = docs.front().runs;
  for (size_t i = 0; i < runs.size(); ++i) {
    std::vector<analysis::Cell> row{
        static_cast<double>(i + 1),
        runs[i].date.substr(0, 10) + " " + (runs[i].version.empty() ? runs[i].run : runs[i].version)};
    for (const CombinedLine& l : lines) {
      analysis::Cell rel, bad;
      if (i < l.relative.size() && l.relative[i]) {
        rel = *l.relative[i];
        if (l.regressed[i]) bad = *l.relative[i];
      }
      row.push_back(rel);
      row.push_back(bad);
    }
    t.rows.push_back(std::move(row));
  }
  return report::plot_data(t);
}

std::string combined_plot_script(const std::vector<HistoryDocument>& docs, const std::string& stem) {
  const std::vector<CombinedLine> lines = combined_lines(docs);
  double lo = 1, hi = 1;
  bool any = false;
  for (const CombinedLine& l : lines)
    for (const auto& v : l.relative)
      if (v) lo = std::min(lo, *v), hi = std::max(hi, *v), any = true;
  if (!any) return "";
  const double pad = std::max(0.05, (hi - lo) * 0.15);
  char range[96];
  std::snprintf(range, sizeof range, "set yrange [%.3f:%.3f]\n", std::max(0.0, lo - pad), hi + pad);
  const std::string campaign = docs.front().campaign;
  std::string gp =
      report::plot_preamble(stem, campaign + ": tracked metrics relative to the baseline", "run", 1100, 620);
  gp += "set title " +
        gnuplot_string(campaign + "\nrelative to the baseline " + docs.front().baseline + " (1.0)") +
        " font \",13\"\n" +
        "set xlabel \"commit date, oldest first\"\nset ylabel \"relative to the baseline\"\n" +
        "set xrange [0.5:" + std::to_string(docs.front().runs.size()) + ".5]\n" + range +
        "set xtics rotate by -30 nomirror\nset key outside right top box opaque samplen 3\nset rmargin 42\n"
        "set bmargin 7\nset grid ytics\n"
        "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb \"#444444\"\n";
  std::vector<std::string> plots;
  for (size_t l = 0; l < lines.size(); ++l) {
    const std::string n = std::to_string(l + 1);
    plots.push_back("data using \"index\":\"rel" + n + "\"" +
                    (l == 0 ? ":xtic(stringcolumn(\"label\"))" : "") + " with linespoints lt " +
                    std::to_string(l % 6 + 1) + " title " + gnuplot_string(lines[l].label));
  }
  for (size_t l = 0; l < lines.size(); ++l)
    plots.push_back("data using \"index\":\"bad" + std::to_string(l + 1) +
                    "\" with points pt 6 ps 2.6 lw 2.5 lc rgb \"#d62728\" " +
                    (l == 0 ? "title \"regression\"" : "notitle"));
  return gp + "plot " + join(plots, ", \\\n     ") + "\n";
}

report::ReportResult write_combined(const std::vector<HistoryDocument>& docs, const fs::path& out_dir,
                                    const std::string& stem, const report::ReportOptions& options) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw Error("cannot create " + out_dir.string() + ": " + ec.message());
  report::ReportResult result;
  report::detail::write_file(out_dir / (stem + ".csv"), combined_csv(docs), result.files);
  if (docs.empty()) {
    result.warnings.push_back("nothing to plot: no metric");
    return result;
  }
  write_plot(out_dir, stem, combined_plot_data(docs), combined_plot_script(docs, stem), options, result);
  return result;
}

}  // namespace campaign::history
