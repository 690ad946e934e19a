// Implements site/combined.hpp.
#include "site/combined.hpp"

#include "site/svg.hpp"

namespace campaign::site {

std::string combined_svg(const CampaignSite& c) {
  Plot p;
  p.title = c.name + ": tracked metrics relative to the baseline";
  p.heading = "All tracked metrics, relative to the baseline";
  p.y_label = "relative";
  for (const auto& r : c.runs) p.x.push_back(r.run.order);
  p.guides = {1.0};
  size_t metrics = 0;  // with a line
  for (const auto& m : c.metrics) {
    const Track& t = m.track;
    if (!t.problem.empty()) continue;
    const size_t before = p.series.size();
    for (const auto& s : t.history.series) {
      PlotSeries ps;
      ps.name = t.history.series.size() > 1 && !s.name.empty() ? t.spec.metric + " [" + s.name + "]"
                                                               : t.spec.metric;
      bool any = false;
      for (const auto& pt : s.points) {
        ps.y.push_back(pt.relative);
        ps.marked.push_back(pt.verdict == history::Verdict::regressed);
        any |= pt.relative.has_value();
      }
      if (any) p.series.push_back(std::move(ps));
    }
    metrics += p.series.size() > before;
  }
  if (metrics < 2) return "";
  p.width = 760, p.height = 300;
  p.legend = p.point_titles = true;
  return svg(p);
}

}  // namespace campaign::site
