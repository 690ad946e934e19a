// The site index's figure of every tracked metric relative to its baseline (site/combined.hpp).
#include "site/combined.hpp"

#include <catch2/catch.hpp>

#include "site/pages.hpp"

using namespace campaign;
using namespace campaign::site;

namespace {

// Three runs and two tracked metrics: % MPI (one series) falling, a time (two series) rising.
CampaignSite two_metrics() {
  CampaignSite c;
  c.name = "exarl";
  std::vector<history::RunValues> mpi, time;
  for (int i = 0; i < 3; ++i) {
    RunPage r;
    r.run.name = "night-" + std::to_string(i + 1);
    r.run.order = Time{} + std::chrono::hours(24 * (20000 + i));
    c.runs.push_back(r);
    history::RunValues m, t;
    m.run = t.run = r.run.name;
    m.values[""].value = 15.0 - i;
    t.values["partition=cpu"].value = 10 * (1 + 0.2 * i);
    t.values["partition=gpu"].value = 5;
    mpi.push_back(m), time.push_back(t);
  }
  auto add = [&](const std::string& metric, const std::vector<history::RunValues>& v) {
    MetricPage p;
    p.track.spec.metric = metric;
    p.track.runs = v;
    p.track.history = history::judge(v, {0}, history::Better::lower, 0.1);
    c.metrics.push_back(p);
  };
  add("component_percent:mpi@ranks=4", mpi);
  add("run_time@ranks=4", time);
  return c;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("combined: one line per metric and series, relative to the baseline, on the index") {
  CampaignSite c = two_metrics();
  const std::string svg = combined_svg(c);
  CHECK(svg.find("All tracked metrics, relative to the baseline") != std::string::npos);
  CHECK(svg.find("component_percent:mpi@ranks=4<") != std::string::npos);  // one series: the metric alone
  CHECK(svg.find("run_time@ranks=4 [partition=cpu]") != std::string::npos);
  CHECK(svg.find("run_time@ranks=4 [partition=gpu]") != std::string::npos);
  CHECK(count(svg, "class=\"regression\"") == 2);  // cpu: +20 % and +40 %
  Site site;
  site.campaigns.push_back(c);
  const std::string index = index_html(site);
  CHECK(count(index, "<svg") == 3);  // the figure, then one per metric
  CHECK(index.find("All tracked metrics") < index.find("class=\"grid\""));
  // One metric alone: its own plot says it all.
  c.metrics.pop_back();
  CHECK(combined_svg(c).empty());
  c = two_metrics();
  c.metrics[0].track.problem = "not found in any run";
  CHECK(combined_svg(c).empty());
}
