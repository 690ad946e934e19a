// Implements site/pages.hpp.
#include "site/pages.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "report/input.hpp"
#include "site/combined.hpp"
#include "site/html.hpp"
#include "site/stalls.hpp"
#include "site/svg.hpp"

namespace campaign::site {

namespace {

const std::string kUp = "../../";  // from runs/C/ and metrics/C/ to the top

std::string percent(double fraction) {
  char buf[32];
  const double p = fraction * 100;
  std::snprintf(buf, sizeof buf, "%+.1f%%", std::abs(p) < 0.05 ? 0.0 : p);  // never "-0.0%"
  return buf;
}

std::string verdict_span(history::Verdict v) {
  std::string text(history::to_string(v));
  if (text.empty()) return "";
  return "<span class=\"" + text + "\">" + text + "</span>";
}

std::string short_commit(const RunPage& r) {
  const CodeRecord& code = r.run.campaign.code;
  if (!code.commit.empty()) return code.commit.substr(0, 10) + (code.dirty ? "-dirty" : "");
  return code.version.empty() ? r.run.name : code.version;
}

std::vector<Time> dates(const CampaignSite& c) {
  std::vector<Time> x;
  for (const auto& r : c.runs) x.push_back(r.run.order);
  return x;
}

enum class View { absolute, relative, speedup };

// What one point shows in a view: the value, value / baseline, or the speedup (baseline / value
// when lower is better).
std::optional<double> shown(const history::HistoryPoint& p, history::Better better, View view) {
  if (view == View::absolute) return p.value;
  if (!p.relative) return std::nullopt;
  if (view == View::speedup && better == history::Better::lower)
    return *p.relative != 0 ? std::optional<double>(1 / *p.relative) : std::nullopt;
  return p.relative;
}

Plot plot_of(const CampaignSite& c, const Track& t, View view, bool large) {
  Plot p;
  p.x = dates(c);
  const std::string unit = t.unit.empty() ? "" : " [" + t.unit + "]";
  p.title = view == View::absolute   ? t.spec.metric + unit
            : view == View::relative ? t.spec.metric + " relative to the baseline"
                                     : t.spec.metric + " speedup over the baseline";
  if (large) p.heading = p.title;
  p.y_label = view == View::absolute ? t.unit : view == View::relative ? "relative" : "speedup";
  if (view == View::relative) p.guides = {1.0, 1 - t.spec.threshold / 100, 1 + t.spec.threshold / 100};
  if (view == View::speedup) p.guides = {1.0};
  if (view == View::absolute && t.reference) {  // the reference and its band
    const auto& r = *t.reference;
    p.guides = {r.value};
    if (r.lower) p.guides.push_back(r.value * (1 + *r.lower));
    if (r.upper) p.guides.push_back(r.value * (1 + *r.upper));
  }
  for (const auto& s : t.history.series) {
    PlotSeries ps;
    ps.name = s.name;
    for (const auto& pt : s.points) {
      ps.y.push_back(shown(pt, t.better, view));
      ps.marked.push_back(pt.verdict == history::Verdict::regressed);
    }
    p.series.push_back(std::move(ps));
  }
  if (large) {
    p.width = 760, p.height = 300;
    p.legend = p.point_titles = true;
  }
  return p;
}

// The value of `series` at run `i`, if any.
const history::HistoryPoint* point(const Track& t, const std::string& series, size_t i) {
  for (const auto& s : t.history.series)
    if (s.name == series && i < s.points.size() && s.points[i].value) return &s.points[i];
  return nullptr;
}

void runs_table(std::ostringstream& h, const CampaignSite& c) {
  h << "<div class=\"scroll\"><table "
       "class=\"runs\">\n<tr><th>date</th><th>commit</th><th>label</th><th>run</th>"
       "<th>cases completed</th><th>failed</th><th>node-hours</th><th>regressions</th></tr>\n";
  for (size_t i = c.runs.size(); i-- > 0;) {  // newest first
    const RunPage& r = c.runs[i];
    size_t regressed = 0;
    for (const auto& m : c.metrics)
      for (const auto& s : m.track.history.series)
        regressed += i < s.points.size() && s.points[i].verdict == history::Verdict::regressed;
    char hours[32];
    std::snprintf(hours, sizeof hours, "%.2f", r.node_hours);
    h << "<tr><td>" << esc(r.run.date()) << "</td><td><a class=\"commit\" href=\"" << esc(r.page)
      << "\"><code>" << esc(short_commit(r)) << "</code></a></td><td>" << esc(label_of(r.run.campaign.code))
      << "</td><td>" << esc(r.run.name) << "</td><td class=\"num\">" << r.completed << " / " << r.cases
      << "</td><td class=\"num\">" << r.failed << "</td><td class=\"num\">" << hours << "</td><td>"
      << (regressed ? "<span class=\"REGRESSION\">" + std::to_string(regressed) + "</span>" : "")
      << "</td></tr>\n";
  }
  h << "</table></div>\n";
}

}  // namespace

std::string label_of(const CodeRecord& code) {
  if (code.commit.empty()) return code.version;
  return code.version.rfind(code.commit.substr(0, 10), 0) == 0 ? "" : code.version;
}

std::string index_html(const Site& site) {
  std::ostringstream h;
  size_t runs = 0;
  for (const auto& c : site.campaigns) runs += c.runs.size();
  h << "<p>" << runs << " run(s) of " << site.campaigns.size() << " campaign(s)"
    << (site.generated.empty() ? "" : ", generated " + esc(site.generated)) << ". Each metric is shown "
    << "relative to the first run (1.0); red rings mark regressions beyond the threshold (dashed).</p>\n";
  if (site.campaigns.size() > 1) {
    h << "<ul>\n";
    for (const auto& c : site.campaigns)
      h << "<li><a href=\"#" << esc(slug(c.name)) << "\">" << esc(c.name) << "</a></li>\n";
    h << "</ul>\n";
  }
  for (const auto& c : site.campaigns) {
    h << "<h2 id=\"" << esc(slug(c.name)) << "\">" << esc(c.name) << "</h2>\n";
    if (!c.runs.empty()) {
      const RunPage& b = c.runs.front();
      h << "<p>Baseline: <a href=\"" << esc(b.page) << "\">" << esc(short_commit(b)) << "</a> of "
        << esc(b.run.date()) << "; latest: <a href=\"" << esc(c.runs.back().page) << "\">"
        << esc(short_commit(c.runs.back())) << "</a> of " << esc(c.runs.back().run.date()) << ".</p>\n";
    }
    if (!c.note.empty()) h << "<p class=\"notice\">" << html_prose(c.note) << "</p>\n";
    if (!c.metrics.empty()) {
      h << combined_svg(c);  // site/combined.hpp: every tracked metric in one figure
      h << "<div class=\"grid\">\n";
      for (const auto& m : c.metrics) {
        const Track& t = m.track;
        h << "<div class=\"cell\"><h3><a class=\"metric\" href=\"" << esc(m.page) << "\">"
          << esc(t.spec.metric) << "</a> " << (t.by_default ? "<span class=\"default\">default</span> " : "")
          << verdict_span(latest_verdict(t.history)) << "</h3>\n";
        if (!t.problem.empty())
          h << "<p class=\"notice\">" << html_prose(t.problem) << "</p>\n";
        else
          h << svg(plot_of(c, t, View::relative, false));
        h << "</div>\n";
      }
      h << "</div>\n";
    }
    runs_table(h, c);
  }
  if (!site.skipped.empty()) {
    h << "<h2 id=\"skipped\">Skipped</h2>\n<p>Run directories that could not be read.</p>\n<table>\n"
         "<tr><th>directory</th><th>reason</th></tr>\n";
    for (const auto& s : site.skipped)
      h << "<tr><td><code>" << esc(s.dir) << "</code></td><td>" << esc(s.reason) << "</td></tr>\n";
    h << "</table>\n";
  }
  return page("Performance history", "", h.str());
}

std::string run_html(const CampaignSite& c, size_t i) {
  const RunPage& r = c.runs[i];
  const CodeRecord& code = r.run.campaign.code;
  std::ostringstream h;
  h << "<p>";
  if (i > 0)
    h << "<a class=\"previous\" href=\"" << esc(kUp + c.runs[i - 1].page) << "\">&larr; previous run</a> ";
  if (i + 1 < c.runs.size())
    h << "<a class=\"next\" href=\"" << esc(kUp + c.runs[i + 1].page) << "\">next run &rarr;</a>";
  h << "</p>\n<table>\n";
  auto row = [&](const std::string& k, const std::string& html_value) {
    h << "<tr><th>" << esc(k) << "</th><td>" << html_value << "</td></tr>\n";
  };
  row("Campaign", esc(c.name));
  row("Run", "<code>" + esc(r.run.name) + "</code>");
  row("Date", esc(r.run.date()) + (code.date ? " (commit date)" : " (run created)"));
  if (!code.commit.empty())
    row("Commit", r.commit_link.empty()
                      ? "<code>" + esc(code.commit) + "</code>"
                      : "<a class=\"commit-url\" href=\"" + esc(r.commit_link) + "\"><code>" +
                            esc(code.commit) + "</code></a>" + (code.dirty ? " (modified)" : ""));
  if (!label_of(code).empty()) row("Label", esc(label_of(code)));
  row("System", esc(r.run.campaign.system));
  row("Cases", std::to_string(r.completed) + " completed, " + std::to_string(r.failed) + " failed of " +
                   std::to_string(r.cases));
  char hours[32];
  std::snprintf(hours, sizeof hours, "%.2f", r.node_hours);
  row("Node-hours", hours);
  h << "</table>\n";

  h << "<h2>Metrics</h2>\n";
  if (c.metrics.empty()) h << "<p>No metric is tracked (<code>track:</code> in the campaign).</p>\n";
  bool any = false;
  std::ostringstream t;
  t << "<div class=\"scroll\"><table class=\"diff\">\n<tr><th>metric</th><th>series</th><th>value</th>"
       "<th>previous run</th><th>change</th><th>relative to baseline</th><th>verdict</th></tr>\n";
  for (const auto& m : c.metrics) {
    for (const auto& s : m.track.history.series) {
      const history::HistoryPoint* now = point(m.track, s.name, i);
      if (!now) continue;
      any = true;
      const history::HistoryPoint* before = i > 0 ? point(m.track, s.name, i - 1) : nullptr;
      std::string unit = esc(m.track.unit);
      if (!unit.empty()) unit.insert(0, 1, ' ');
      t << "<tr><td><a class=\"metric\" href=\"" << esc(kUp + m.page) << "\">" << esc(m.track.spec.metric)
        << "</a></td><td>" << esc(s.name) << "</td><td class=\"num\">" << short_number(*now->value) << unit
        << "</td><td class=\"num\">" << (before ? short_number(*before->value) : "")
        << "</td><td class=\"num\">"
        << (before && *before->value != 0 ? percent(*now->value / *before->value - 1) : "")
        << "</td><td class=\"num\">" << (now->relative ? short_number(*now->relative) : "") << "</td><td>"
        << verdict_span(now->verdict) << "</td></tr>\n";
    }
  }
  t << "</table></div>\n";
  if (any)
    h << t.str();
  else if (!c.metrics.empty())
    h << "<p>No tracked metric has a value in this run.</p>\n";

  if (!r.profile.empty()) {
    // Profiler summaries (collectors tau, nsys; the campaign's components), largest first.
    static const std::map<std::string, std::string> kTitle = {
        {"component", "Components"},
        {"tau_exclusive", "TAU: exclusive time per routine"},
        {"nsys_time", "Nsight Systems: GPU time per kernel and copy"}};
    h << "<h2>Profiles</h2>\n";
    std::string family;
    for (const auto& p : r.profile) {
      if (p.family != family) {
        if (!family.empty()) h << "</table></div>\n";
        family = p.family;
        auto t = kTitle.find(family);
        h << "<h3>" << esc(t == kTitle.end() ? family : t->second) << "</h3>\n"
          << "<div class=\"scroll\"><table "
             "class=\"profile\">\n<tr><th>name</th><th>mean</th><th>cases</th></tr>\n";
      }
      h << "<tr><td><code>" << esc(p.name) << "</code></td><td class=\"num\">" << short_number(p.value);
      if (!p.unit.empty()) h << ' ' << esc(p.unit);
      h << "</td><td class=\"num\">" << p.cases << "</td></tr>\n";
    }
    h << "</table></div>\n";
  }

  h << stalls_html(r.stalls);

  h << "<h2>Report</h2>\n";
  if (r.report.empty())
    h << "<p>This run has no report (<code>campaign report</code> makes one in its work directory).</p>\n";
  else
    h << "<p><a class=\"report\" href=\"" << esc(kUp + r.report)
      << "\">The run's report</a>: its analyses' tables and plots, and where they come from.</p>\n";
  return page(c.name + " run " + short_commit(r) + " of " + day(r.run.order), kUp, h.str());
}

std::string metric_html(const CampaignSite& c, size_t mi) {
  const Track& t = c.metrics[mi].track;
  std::ostringstream h;
  if (!t.problem.empty()) h << "<p class=\"notice\">" << html_prose(t.problem) << "</p>\n";
  if (t.by_default)
    h << "<p><span class=\"default\">default</span> Followed by default, a headline column of its analysis: "
         "the "
         "campaign has no <code>track:</code>.</p>\n";
  if (!t.kind.empty())
    h << "<p>Read as " << esc(t.kind) << (t.unit.empty() ? "" : " [" + esc(t.unit) + "]") << "; "
      << history::to_string(t.better) << " is better; a change beyond " << short_number(t.spec.threshold)
      << " % of the baseline (the first run) is a regression or an improvement. Latest: "
      << verdict_span(latest_verdict(t.history)) << "</p>\n";
  if (t.reference) {
    const auto& r = *t.reference;
    h << "<p>Reference on " << esc(r.system)
      << " (the campaign's <code>reference:</code>): " << short_number(r.value) << ", its band "
      << (r.lower ? short_number(r.value * (1 + *r.lower)) : "open") << " to "
      << (r.upper ? short_number(r.value * (1 + *r.upper)) : "open")
      << ", dashed on the plot of values; a run outside it makes <code>report</code> and "
         "<code>history</code> exit 3.";
    // The newest run's values against it.
    const size_t newest = c.runs.empty() ? 0 : c.runs.size() - 1;
    for (const auto& sr : t.history.series) {
      if (newest >= sr.points.size() || !sr.points[newest].value) continue;
      const double v = *sr.points[newest].value;
      const bool below = r.lower && v < r.value * (1 + *r.lower),
                 above = r.upper && v > r.value * (1 + *r.upper);
      h << " Newest run" << (sr.name.empty() ? "" : ", " + esc(sr.name)) << ": " << short_number(v) << " "
        << (below || above ? std::string("<span class=\"REGRESSION\">") + (below ? "below" : "above") +
                                 " its band</span>"
                           : std::string("within its band"))
        << ".";
    }
    h << "</p>\n";
  }
  if (t.problem.empty()) {
    for (View v : {View::relative, View::absolute, View::speedup}) h << svg(plot_of(c, t, v, true));
    h << "<div class=\"scroll\"><table>\n<tr><th>date</th><th>commit</th><th>series</th><th>value</th>"
         "<th>relative</th><th>speedup</th><th>verdict</th></tr>\n";
    for (size_t i = c.runs.size(); i-- > 0;) {
      for (const auto& s : t.history.series) {
        if (i >= s.points.size() || !s.points[i].value) continue;
        const auto& p = s.points[i];
        auto speed = shown(p, t.better, View::speedup);
        h << "<tr><td>" << esc(c.runs[i].run.date()) << "</td><td><a class=\"commit\" href=\""
          << esc(kUp + c.runs[i].page) << "\"><code>" << esc(short_commit(c.runs[i]))
          << "</code></a></td><td>" << esc(s.name) << "</td><td class=\"num\">" << short_number(*p.value)
          << "</td><td class=\"num\">" << (p.relative ? short_number(*p.relative) : "")
          << "</td><td class=\"num\">" << (speed ? short_number(*speed) : "") << "</td><td>"
          << verdict_span(p.verdict) << "</td></tr>\n";
      }
    }
    h << "</table></div>\n";
  }
  for (const auto& n : t.notes) h << "<p class=\"note\">" << html_prose(n) << "</p>\n";
  return page(c.name + ": " + t.spec.metric, kUp, h.str());
}

}  // namespace campaign::site
