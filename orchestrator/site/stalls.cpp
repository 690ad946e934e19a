// Implements site/stalls.hpp.
#include "site/stalls.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/stalls.hpp"
#include "report/input.hpp"
#include "report/report.hpp"
#include "site/html.hpp"
#include "site/svg.hpp"

namespace campaign::site {

namespace {

// The plot's series colours: matplotlib's ten.
const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

const analysis::Table* find(const analysis::AnalysisResult& a, const std::string& stem) {
  for (const auto& t : a.tables)
    if (t.stem() == stem) return &t;
  return nullptr;
}

}  // namespace

std::vector<analysis::AnalysisResult> run_stalls(Catalog& catalog, const history::Run& run) {
  std::vector<analysis::AnalysisSpec> specs;
  try {
    for (const auto& s : *report::stored_analyses(run.campaign, run.workdir))
      if (s.scaling == analysis::Scaling::stalls) specs.push_back(s);
  } catch (const Error&) {
    return {};  // the run's page says nothing of what its campaign cannot say
  }
  if (specs.empty()) return {};
  auto cases = report::case_results(catalog, run.campaign.id, report::metrics_used(specs),
                                    report::sampled_used(specs));
  std::vector<analysis::AnalysisResult> out;
  for (const auto& s : specs) out.push_back(analysis::analyze_stalls(s, cases));
  return out;
}

std::string whatif_svg(const analysis::Table& t) {
  const size_t groups = t.rows.size(), bars = t.series.size();
  if (groups == 0 || bars == 0) return "";
  const std::string v = analysis::kPredicted;
  double hi = 0;
  for (size_t r = 0; r < groups; ++r)
    for (const auto& s : t.series)
      hi = std::max(hi,
                    t.number(r, v + s.suffix).value_or(0) + t.number(r, v + "_std" + s.suffix).value_or(0));
  if (!(hi > 0)) hi = 1;
  // Case names under their group, slanted so that long ones do not overlap: about 5.5 px a character.
  size_t longest = 0;
  for (const auto& row : t.rows) longest = std::max(longest, std::get<std::string>(row[0]).size());
  const double names_h = 14 + 5.5 * static_cast<double>(longest) * 0.57;  // sin 35 degrees
  const double bar = 9, gap = 18, left = 52, top = 10, h = 200;
  const double label_h = names_h + 16.0 * static_cast<double>(bars) + 10;
  const double w = static_cast<double>(groups) * (static_cast<double>(bars) * bar + gap);
  const double width = left + w + 12, height = top + h + label_h;
  std::vector<double> ticks = nice_ticks(0, hi, 4);
  const double ymax = std::max(hi, ticks.back());
  auto Y = [&](double y) { return top + (ymax - y) / ymax * h; };
  std::ostringstream o;
  o << "<svg class=\"whatif\" width=\"" << fixed(width) << "\" height=\"" << fixed(height)
    << "\" viewBox=\"0 0 " << fixed(width) << ' ' << fixed(height)
    << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"10\" role=\"img\">\n<title>"
    << esc(t.analysis + ": predicted iteration time per fetch / start alignment") << "</title>\n";
  for (double y : ticks)
    o << "<line x1=\"" << left << "\" x2=\"" << fixed(left + w) << "\" y1=\"" << fixed(Y(y)) << "\" y2=\""
      << fixed(Y(y)) << "\" stroke=\"#eee\"/><text x=\"" << left - 4 << "\" y=\"" << fixed(Y(y) + 3)
      << "\" text-anchor=\"end\">" << short_number(y) << "</text>\n";
  o << "<text transform=\"translate(11," << fixed(top + h / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">iteration time [s]</text>\n";
  for (size_t r = 0; r < groups; ++r) {
    const double x0 = left + static_cast<double>(r) * (static_cast<double>(bars) * bar + gap) + gap / 2;
    for (size_t b = 0; b < bars; ++b) {
      auto mean = t.number(r, v + t.series[b].suffix);
      if (!mean || !std::isfinite(*mean)) continue;
      const double x = x0 + static_cast<double>(b) * bar,
                   sd = t.number(r, v + "_std" + t.series[b].suffix).value_or(0);
      o << "<rect x=\"" << fixed(x) << "\" y=\"" << fixed(Y(*mean)) << "\" width=\"" << bar - 1
        << "\" height=\"" << fixed(Y(0) - Y(*mean)) << "\" fill=\"" << kColors[b % std::size(kColors)]
        << "\"><title>" << esc(std::get<std::string>(t.rows[r][0]) + ", " + t.series[b].label) << ": "
        << short_number(*mean) << " ± " << short_number(sd) << " s</title></rect>\n";
      if (sd > 0)
        o << "<line x1=\"" << fixed(x + bar / 2 - 0.5) << "\" x2=\"" << fixed(x + bar / 2 - 0.5) << "\" y1=\""
          << fixed(Y(*mean + sd)) << "\" y2=\"" << fixed(Y(std::max(0.0, *mean - sd)))
          << "\" stroke=\"#333\"/>\n";
    }
    o << "<text transform=\"translate(" << fixed(x0) << "," << fixed(top + h + 12)
      << ") rotate(35)\" font-size=\"9\">" << esc(std::get<std::string>(t.rows[r][0])) << "</text>\n";
  }
  for (size_t b = 0; b < bars; ++b) {
    const double ly = top + h + names_h + 16.0 * static_cast<double>(b) + 8;
    o << "<rect x=\"" << left << "\" y=\"" << fixed(ly - 8) << "\" width=\"10\" height=\"10\" fill=\""
      << kColors[b % std::size(kColors)] << "\"/><text x=\"" << left + 16 << "\" y=\"" << fixed(ly) << "\">"
      << esc(t.series[b].label) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

std::string stalls_html(const std::vector<analysis::AnalysisResult>& stalls) {
  std::ostringstream h;
  for (const auto& a : stalls) {
    h << "<h2>Data stalls: " << esc(a.spec.name) << "</h2>\n"
      << "<p>DS-Analyzer's table per case over its ranks (" << esc(analysis::kept_epochs(a.spec))
      << ", past the first " << a.spec.stalls.skip_iterations
      << " iterations of each epoch) and its what-if: the iteration time had every rank's fetch time and "
         "start "
         "been aligned (the run's report defines every column).</p>\n";
    if (const analysis::Table* s = find(a, a.spec.name)) h << report::table_html(*s);
    if (const analysis::Table* p = find(a, a.spec.name + analysis::kWhatIf))
      h << "<div class=\"scroll\">" << whatif_svg(*p) << "</div>\n";
    for (const auto& t : a.tables)
      if (t.analysis == a.spec.name + analysis::kWhatIf && !t.group.empty())
        h << "<h3>What-if: " << esc(t.group_label()) << "</h3>\n" << report::table_html(t);
    if (!a.excluded.empty()) {
      h << "<p>Left out:</p>\n<ul>\n";
      for (const auto& e : a.excluded)
        h << "<li><code>" << esc(e.case_name) << "</code>: " << esc(e.reason) << "</li>\n";
      h << "</ul>\n";
    }
  }
  return h.str();
}

}  // namespace campaign::site
