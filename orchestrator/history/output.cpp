// Implements history/output.hpp.
#include "history/output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/plot.hpp"
#include "report/process.hpp"
#include "report/writers.hpp"
#include "util/strings.hpp"

namespace campaign::history {

namespace fs = std::filesystem;
using report::environment_path;
using report::find_executable;
using report::gnuplot_string;
using report::plot_data;
using report::plot_preamble;
using report::render_plot;
using report::ReportOptions;
using report::ReportResult;
namespace detail = report::detail;
using detail::csv_field;

namespace {

std::string percent(double relative) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (relative - 1) * 100);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string general(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

std::string verdict_text(const HistoryPoint& p) {
  std::string v(to_string(p.verdict));
  if ((p.verdict == Verdict::regressed || p.verdict == Verdict::improved) && p.relative)
    v += " (" + percent(*p.relative) + ")";
  if (p.within_noise && p.relative) v += " (" + percent(*p.relative) + " within noise)";
  return v;
}

bool any_repeated(const History& h) {
  return std::any_of(h.series.begin(), h.series.end(), [](const auto& s) { return s.repeated(); });
}

// The rules in force, for people.
std::string rules_text(const History& h) {
  std::string t = "more than " + fixed(h.threshold * 100, 0) + "%";
  if (!any_repeated(h)) return t + " (no repetitions: the threshold alone decides)";
  return t + " and beyond the spread of the repetitions (" + fixed(h.noise.confidence * 100, 0) +
         "% intervals of the means apart: rule ci; or a step in the series between it and the baseline, " +
         "p < " + general(h.noise.step_alpha) + ": rule step)";
}

nlohmann::ordered_json spread_json(const std::optional<Spread>& s) {
  using json = nlohmann::ordered_json;
  if (!s) return nullptr;
  return {{"mean", s->mean},
          {"std", s->std ? json(*s->std) : json(nullptr)},
          {"ci", s->ci ? json(*s->ci) : json(nullptr)},
          {"n", s->n}};
}

std::string optional_exact(std::optional<double> v) { return v ? analysis::format_exact(*v) : ""; }

// The worse direction for people: "+10%" for times, "-10%" for throughputs.
std::string threshold_text(const History& h) {
  return std::string(h.better == Better::lower ? "+" : "-") + fixed(h.threshold * 100, 0) + "%";
}

analysis::Cell number_or_empty(std::optional<double> v) {
  analysis::Cell c;
  if (v) c.emplace<double>(*v);
  return c;
}

bool any_where(const SeriesHistory& s) {
  for (const auto& p : s.points)
    if (!p.where.empty()) return true;
  return false;
}

}  // namespace

void print_history(std::ostream& os, const HistoryDocument& d) {
  const auto& h = d.history;
  os << "campaign " << d.campaign << ": " << d.metric << " = " << d.kind
     << (d.unit.empty() ? "" : " [" + d.unit + "]") << ", " << to_string(h.better) << " is better\n"
     << d.runs.size() << " run(s) in commit order; baseline " << d.baseline
     << "; a regression is worse than it by " << rules_text(h) << "\n";
  for (const auto& n : d.notes) os << "note: " << n << "\n";
  for (const auto& s : h.series) {
    os << "\n" << s.name << "\n";
    const bool where = any_where(s);
    const bool spread = s.repeated();
    const bool rule =
        std::any_of(s.points.begin(), s.points.end(), [](auto& p) { return p.rule != Rule::none; });
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"run", "version", "date", "value", "vs baseline", "verdict"});
    if (spread)
      rows.front().insert(rows.front().begin() + 4,
                          {"n", "mean", "+-" + fixed(h.noise.confidence * 100, 0) + "%"});
    if (where) rows.front().insert(rows.front().begin() + 4, "at");
    if (rule) rows.front().push_back("rule");
    for (size_t i = 0; i < d.runs.size(); ++i) {
      const auto& p = s.points[i];
      std::vector<std::string> r = {d.runs[i].run,
                                    d.runs[i].version.empty() ? "-" : d.runs[i].version,
                                    d.runs[i].date,
                                    p.value ? analysis::format_cell(*p.value, false) : "-",
                                    p.relative ? fixed(*p.relative, 3) : "-",
                                    verdict_text(p)};
      if (spread) {
        const bool judged = p.spread && p.verdict != Verdict::none;
        // The baseline's row shows what every point is compared with: all its runs' repetitions.
        const auto& sp = p.verdict == Verdict::baseline ? s.baseline_spread : p.spread;
        r.insert(r.begin() + 4,
                 {judged ? std::to_string(sp->n) : "-", judged ? analysis::format_cell(sp->mean, false) : "-",
                  judged && sp->ci ? analysis::format_cell(*sp->ci, false) : "-"});
      }
      if (where) r.insert(r.begin() + 4, p.where);
      if (rule) r.push_back(std::string(to_string(p.rule)));
      rows.push_back(std::move(r));
    }
    std::vector<size_t> width(rows.front().size(), 0);
    for (const auto& r : rows)
      for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    for (const auto& r : rows) {
      std::string line = " ";
      for (size_t c = 0; c < r.size(); ++c) {
        const std::string& head = rows.front()[c];
        bool number = head == "value" || head == "vs baseline" || head == "n" || head == "mean" ||
                      head.rfind("+-", 0) == 0;
        std::string pad(width[c] - r[c].size(), ' ');
        line += ' ';  // appended piecewise: GCC 12 warns (-Wrestrict) on " " + string here
        line += number ? pad : r[c];
        line += number ? r[c] : pad;
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      os << line << "\n";
    }
    for (const Step& st : s.steps) {
      const auto& r = d.runs[st.run];
      os << "  step at " << (r.version.empty() ? r.run : r.version) << ": mean "
         << analysis::format_cell(st.before, false) << " -> " << analysis::format_cell(st.after, false)
         << " (" << percent(st.after / st.before) << ", p = " << general(st.p) << ")\n";
    }
  }
  auto bad = failing(d);
  os << "\n";
  if (bad.empty()) {
    os << "no regression: " << (d.fail_on_any ? "no run" : "no series' latest run") << " is worse than the "
       << "baseline by more than " << fixed(h.threshold * 100, 0) << "%"
       << (any_repeated(h) ? " beyond the spread" : "") << "\n";
    return;
  }
  std::vector<std::string> parts;
  for (const auto& s : h.series) {
    if (std::find(bad.begin(), bad.end(), s.name) == bad.end()) continue;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const auto& p = s.points[i];
      if (p.verdict != Verdict::regressed || (!d.fail_on_any && s.latest != i)) continue;
      parts.push_back(s.name + " at " + (d.runs[i].version.empty() ? d.runs[i].run : d.runs[i].version) +
                      " " + percent(*p.relative) + " (" + std::string(to_string(p.rule)) + ")");
    }
  }
  os << "REGRESSION beyond " << threshold_text(h) << " vs baseline " << d.baseline << ": "
     << join(parts, "; ") << "\n";
}

std::string history_csv(const HistoryDocument& d) {
  std::string out = "series,run,version,date,value,relative,verdict,where,rule,n,mean,std,ci,commit\n";
  for (const auto& s : d.history.series) {
    for (size_t i = 0; i < d.runs.size(); ++i) {
      const auto& p = s.points[i];
      out +=
          csv_field(s.name) + "," + csv_field(d.runs[i].run) + "," + csv_field(d.runs[i].version) + "," +
          csv_field(d.runs[i].date) + "," + (p.value ? analysis::format_exact(*p.value) : "") + "," +
          (p.relative ? analysis::format_exact(*p.relative) : "") + "," + std::string(to_string(p.verdict)) +
          "," + csv_field(p.where) + "," + std::string(p.within_noise ? "within noise" : to_string(p.rule)) +
          "," + (p.spread ? std::to_string(p.spread->n) : "") + "," +
          (p.spread ? analysis::format_exact(p.spread->mean) : "") + "," +
          optional_exact(p.spread ? p.spread->std : std::nullopt) + "," +
          optional_exact(p.spread ? p.spread->ci : std::nullopt) + "," + csv_field(d.runs[i].commit) + "\n";
    }
  }
  return out;
}

std::string history_json(const HistoryDocument& d) {
  using json = nlohmann::ordered_json;
  const auto& h = d.history;
  json j;
  j["campaign"] = d.campaign;
  j["metric"] = d.metric;
  j["kind"] = d.kind;
  j["unit"] = d.unit;
  j["better"] = std::string(to_string(h.better));
  j["threshold"] = h.threshold;
  j["noise"] = {{"confidence", h.noise.confidence}, {"step_alpha", h.noise.step_alpha}};
  j["baseline"] = {{"label", d.baseline}, {"runs", h.baseline_runs}};
  j["runs"] = json::array();
  for (const auto& r : d.runs)
    j["runs"].push_back({{"run", r.run}, {"version", r.version}, {"commit", r.commit}, {"date", r.date}});
  j["series"] = json::array();
  for (const auto& s : h.series) {
    json js;
    js["name"] = s.name;
    js["baseline"] = s.baseline ? json(*s.baseline) : json(nullptr);
    js["baseline_spread"] = spread_json(s.baseline_spread);
    js["repetitions"] = s.repeated();
    js["points"] = json::array();
    for (const auto& p : s.points)
      js["points"].push_back({{"value", p.value ? json(*p.value) : json(nullptr)},
                              {"relative", p.relative ? json(*p.relative) : json(nullptr)},
                              {"verdict", std::string(to_string(p.verdict))},
                              {"rule", std::string(to_string(p.rule))},
                              {"within_noise", p.within_noise},
                              {"spread", spread_json(p.spread)},
                              {"where", p.where}});
    js["steps"] = json::array();
    for (const Step& st : s.steps)
      js["steps"].push_back({{"run", st.run}, {"before", st.before}, {"after", st.after}, {"p", st.p}});
    j["series"].push_back(std::move(js));
  }
  j["regressions"] = failing(d);
  j["fail_on"] = d.fail_on_any ? "any" : "latest";
  j["notes"] = d.notes;
  return j.dump(2) + "\n";
}

std::string history_plot_data(const HistoryDocument& d) {
  analysis::Table t;
  t.x = "run";
  t.columns = {"index", "version", "date"};
  for (size_t s = 0; s < d.history.series.size(); ++s) {
    std::string n = std::to_string(s + 1);
    t.columns.insert(t.columns.end(), {"value" + n, "rel" + n, "bad" + n});
  }
  for (size_t i = 0; i < d.runs.size(); ++i) {
    std::vector<analysis::Cell> row = {static_cast<double>(i + 1),
                                       d.runs[i].version.empty() ? d.runs[i].run : d.runs[i].version,
                                       d.runs[i].date};
    for (const auto& s : d.history.series) {
      const auto& p = s.points[i];
      row.push_back(number_or_empty(p.value));
      row.push_back(number_or_empty(p.relative));
      row.push_back(number_or_empty(p.verdict == Verdict::regressed ? p.relative : std::nullopt));
    }
    t.rows.push_back(std::move(row));
  }
  return plot_data(t);
}

std::string history_plot_script(const HistoryDocument& d, const std::string& stem) {
  const auto& h = d.history;
  double lo = 1, hi = 1;
  bool any = false;
  for (const auto& s : h.series)
    for (const auto& p : s.points)
      if (p.relative) lo = std::min(lo, *p.relative), hi = std::max(hi, *p.relative), any = true;
  if (!any) return "";
  const double limit = h.better == Better::lower ? 1 + h.threshold : 1 - h.threshold;
  lo = std::min(lo, limit), hi = std::max(hi, limit);
  const double pad = std::max(0.05, (hi - lo) * 0.15);
  std::ostringstream gp;
  gp << plot_preamble(stem, d.campaign + ": " + d.metric + " across code versions", "run", 960, 560)
     << "set title "
     << gnuplot_string(d.campaign + "\n" + d.metric + " / baseline " + d.baseline + ", " +
                       std::string(to_string(h.better)) + " is better")
     << " font \",13\"\n"
     << "set xlabel \"code version, oldest first\"\n"
     << "set ylabel " << gnuplot_string(d.metric + " / baseline") << "\n"
     << "set xrange [0.5:" << d.runs.size() << ".5]\n"
     << "set yrange [" << fixed(std::max(0.0, lo - pad), 3) << ":" << fixed(hi + pad, 3) << "]\n"
     << "set xtics rotate by -30 nomirror\n"
     << "set key outside right top box opaque samplen 3\n"
     << "set rmargin 28\n"
     << "set bmargin 7\n"
     << "# Baseline (1) and the regression threshold (" << threshold_text(h) << ").\n"
     << "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb \"#444444\"\n"
     << "limit = " << analysis::format_exact(limit) << "\n";
  std::vector<std::string> plots;
  for (size_t s = 0; s < h.series.size(); ++s) {
    std::string n = std::to_string(s + 1);
    std::string line = "data using \"index\":\"rel" + n + "\"" +
                       (s == 0 ? ":xtic(stringcolumn(\"version\"))" : "") + " with linespoints lt " +
                       std::to_string(s % 6 + 1) + " title " + gnuplot_string(h.series[s].name);
    plots.push_back(line);
  }
  for (size_t s = 0; s < h.series.size(); ++s) {
    std::string n = std::to_string(s + 1);
    plots.push_back("data using \"index\":\"bad" + n +
                    "\" with points pt 6 ps 2.6 lw 2.5 lc rgb \"#d62728\" " +
                    (s == 0 ? "title \"regression\"" : "notitle"));
  }
  plots.push_back("limit with lines dt 3 lw 1.5 lc rgb \"#d62728\" title " +
                  gnuplot_string("threshold " + threshold_text(h)));
  gp << "plot " << join(plots, ", \\\n     ") << "\n";
  return gp.str();
}

void write_plot(const fs::path& out_dir, const std::string& stem, const std::string& data,
                const std::string& gp, const ReportOptions& options, ReportResult& result) {
  std::error_code ec;
  if (gp.empty()) {
    result.warnings.push_back("nothing to plot: no run has a value relative to the baseline");
    return;
  }
  detail::write_file(out_dir / (stem + ".dat"), data, result.files);
  detail::write_file(out_dir / (stem + ".gp"), gp, result.files);
  auto gnuplot = find_executable(options.gnuplot, options.search_path.value_or(environment_path()));
  if (!gnuplot) {
    fs::remove(out_dir / (stem + ".svg"), ec);
    fs::remove(out_dir / (stem + ".png"), ec);
    result.warnings.push_back("gnuplot not found: no plot (install gnuplot-nox, then run " + stem + ".gp)");
    return;
  }
  std::string err = render_plot(*gnuplot, out_dir, stem, options.plot_timeout);
  if (!err.empty()) {
    result.warnings.push_back(err);
    return;
  }
  result.files.push_back(out_dir / (stem + ".svg"));
  result.files.push_back(out_dir / (stem + ".png"));
  result.plotted = true;
}

ReportResult write_history(const HistoryDocument& d, const fs::path& out_dir, const std::string& stem,
                           const ReportOptions& options) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw Error("cannot create " + out_dir.string() + ": " + ec.message());
  ReportResult result;
  detail::write_file(out_dir / (stem + ".csv"), history_csv(d), result.files);
  detail::write_file(out_dir / (stem + ".json"), history_json(d), result.files);
  write_plot(out_dir, stem, history_plot_data(d), history_plot_script(d, stem), options, result);
  return result;
}

}  // namespace campaign::history
