// The site's pieces on hand-made runs: plots, escaping, the pages and their links, regressions.
#include <catch2/catch.hpp>

#include "site/html.hpp"
#include "site/pages.hpp"
#include "site/series.hpp"
#include "site/svg.hpp"

using namespace campaign;
using namespace campaign::site;

namespace {

Time day_of(int d) { return Time(std::chrono::seconds(1767225600 + 86400LL * (d - 1))); }  // 2026-01-0d

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Three runs of campaign "c<&>": times 1.0, 1.02, 1.3 (lower is better) in two partitions.
CampaignSite three_runs() {
  CampaignSite c;
  c.name = "c<&>";
  std::vector<history::RunValues> values;
  const double factor[] = {1.0, 1.02, 1.3};
  for (int i = 0; i < 3; ++i) {
    RunPage r;
    r.run.name = "night-" + std::to_string(i + 1);
    r.run.order = day_of(i + 1);
    r.run.campaign.code.commit = std::string(39, '0') + std::to_string(i + 1);
    r.run.campaign.code.version = i == 2 ? "v<2>" : r.run.campaign.code.commit.substr(0, 10);
    r.page = "runs/c___/" + r.run.name + ".html";
    r.commit_link = "https://h/commit/" + r.run.campaign.code.commit;
    r.cases = 4, r.completed = 3, r.failed = 1, r.node_hours = 1.5;
    c.runs.push_back(r);
    history::RunValues v;
    v.run = r.run.name;
    v.values["partition=cpu"].value = 2 * factor[i];
    v.values["partition=gpu"].value = 1 * factor[i];
    values.push_back(v);
  }
  MetricPage m;
  m.track.spec.metric = "epoch_time@ranks=4";
  m.track.kind = "collected metric epoch_time (mean)";
  m.track.unit = "s";
  m.track.runs = values;
  m.track.history = history::judge(values, {0}, history::Better::lower, 0.1);
  m.page = "metrics/c___/epoch_time_ranks_4.html";
  c.metrics.push_back(m);
  return c;
}

}  // namespace

TEST_CASE("svg: dates as dates, gaps, guides, regressions, escaped") {
  Plot p;
  p.title = p.heading = "a<b";
  p.x = {day_of(1), day_of(2), day_of(3)};
  p.series.push_back({"s&1", {1.0, std::nullopt, 1.3}, {false, false, true}});
  p.guides = {1.0, 1.1};
  std::string s = svg(p);
  CHECK(s.rfind("<svg ", 0) == 0);
  CHECK(s.find("a&lt;b") != std::string::npos);
  CHECK(s.find("a<b") == std::string::npos);
  CHECK(s.find(">2026-01-01<") != std::string::npos);
  CHECK(s.find(">2026-01-03<") != std::string::npos);
  CHECK(count(s, "stroke-dasharray") == 2);
  CHECK(count(s, "class=\"regression\"") == 1);
  CHECK(count(s, " M") == 1);                  // the gap starts the second segment with a move
  CHECK(s.find("http") == std::string::npos);  // inline: no namespace URL, nothing to fetch
  auto ticks = nice_ticks(0.95, 1.32, 4);
  REQUIRE(ticks.size() == 4);
  CHECK(ticks[0] == Approx(1.0));
  CHECK(ticks[3] == Approx(1.3));
  CHECK(short_number(1.23456) == "1.23");
  CHECK(day(day_of(5)) == "2026-01-05");
}

TEST_CASE("esc and slug") {
  CHECK(esc("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  CHECK(slug("nightly/2026-11-24") == "nightly_2026-11-24");
  CHECK(slug("..") == "_..");
  CHECK(slug("") == "_");
}

TEST_CASE("series: the verdicts of history, the worst latest one") {
  CampaignSite c = three_runs();
  const Track& t = c.metrics[0].track;
  REQUIRE(t.history.series.size() == 2);
  CHECK(t.history.series[0].points[1].verdict == history::Verdict::within);
  CHECK(t.history.series[0].points[2].verdict == history::Verdict::regressed);
  CHECK(latest_verdict(t.history) == history::Verdict::regressed);
  Site site;
  site.campaigns.push_back(c);
  CHECK(regressions(site) == std::vector<std::string>{"c<&> epoch_time@ranks=4 partition=cpu",
                                                      "c<&> epoch_time@ranks=4 partition=gpu"});
}

TEST_CASE("index: plots per metric, the runs table newest first, the skipped runs") {
  Site site;
  site.campaigns.push_back(three_runs());
  site.skipped.push_back({"/runs/bad<1>", "file is not a database"});
  std::string h = index_html(site);
  CHECK(h.find("c&lt;&amp;&gt;") != std::string::npos);
  CHECK(h.find("c<&>") == std::string::npos);
  CHECK(count(h, "<svg") == 1);
  CHECK(count(h, "class=\"regression\"") == 2);
  CHECK(h.find("<a class=\"metric\" href=\"metrics/c___/epoch_time_ranks_4.html\">") != std::string::npos);
  CHECK(h.find("<span class=\"REGRESSION\">REGRESSION</span>") != std::string::npos);
  // Newest first; the label shown only when it is not the commit.
  CHECK(h.find("night-3.html") < h.find("night-1.html\"><code>"));
  CHECK(h.find("<td>v&lt;2&gt;</td>") != std::string::npos);
  CHECK(h.find("3 / 4") != std::string::npos);
  CHECK(h.find("1.50") != std::string::npos);
  CHECK(h.find("/runs/bad&lt;1&gt;") != std::string::npos);
  CHECK(h.find("file is not a database") != std::string::npos);
  CHECK(h.find("https://") == std::string::npos);  // commit links are on the run pages
}

TEST_CASE("run page: commit link, previous run and the change from it, report link") {
  CampaignSite c = three_runs();
  c.runs[2].report = "runs/c___/night-3/report.html";
  std::string h = run_html(c, 2);
  CHECK(h.find("href=\"https://h/commit/" + c.runs[2].run.campaign.code.commit + "\"") != std::string::npos);
  CHECK(h.find("href=\"../../runs/c___/night-2.html\"") != std::string::npos);
  CHECK(h.find("class=\"next\"") == std::string::npos);
  CHECK(h.find("+27.5%") != std::string::npos);  // 1.3 / 1.02
  CHECK(h.find("href=\"../../runs/c___/night-3/report.html\"") != std::string::npos);
  CHECK(h.find("href=\"../../metrics/c___/epoch_time_ranks_4.html\"") != std::string::npos);
  CHECK(h.find("href=\"../../index.html\"") != std::string::npos);
  std::string first = run_html(c, 0);
  CHECK(first.find("class=\"previous\"") == std::string::npos);
  CHECK(first.find("has no report") != std::string::npos);
}

TEST_CASE("metric page: relative, absolute and speedup, every value") {
  CampaignSite c = three_runs();
  std::string h = metric_html(c, 0);
  CHECK(count(h, "<svg") == 3);
  CHECK(h.find("relative to the baseline") != std::string::npos);
  CHECK(h.find("speedup over the baseline") != std::string::npos);
  CHECK(h.find("epoch_time@ranks=4 [s]") != std::string::npos);
  CHECK(h.find("0.769") != std::string::npos);  // speedup 1 / 1.3 of a time
  CHECK(count(h, "<tr><td>") == 6);             // 3 runs x 2 series
  CHECK(h.find("partition=gpu") != std::string::npos);
}

TEST_CASE("run page: the profiler summaries of the run, per family largest first") {
  auto metric = [](std::string name, double v, State st = State::collected, std::int64_t cs = 1) {
    MetricRow m;
    m.name = std::move(name);
    m.value = v;
    m.unit = "s";
    m.attempt_state = st;
    m.case_id = cs;
    return m;
  };
  std::vector<MetricRow> metrics = {metric("component:mpi", 2.0),
                                    metric("component:mpi", 4.0, State::collected, 2),
                                    metric("component:io", 5.0),
                                    metric("nsys_time:[CUDA memcpy HtoD]", 0.5),
                                    metric("tau_exclusive:MPI_Wait()", 1.0, State::failed),
                                    metric("epoch_time", 9.0)};
  auto rows = profile_rows(metrics);
  REQUIRE(rows.size() == 3);  // the failed case's routine and epoch_time are not profiles
  CHECK(rows[0].family == "component");
  CHECK(rows[0].name == "io");
  CHECK(rows[1].name == "mpi");
  CHECK(rows[1].value == Approx(3.0));  // the mean over the two cases
  CHECK(rows[1].cases == 2);
  CHECK(rows[2].family == "nsys_time");

  CampaignSite c = three_runs();
  c.runs[1].profile = rows;
  std::string h = run_html(c, 1);
  CHECK(h.find("<h2>Profiles</h2>") != std::string::npos);
  CHECK(h.find("Nsight Systems: GPU time per kernel and copy") != std::string::npos);
  CHECK(h.find("<code>[CUDA memcpy HtoD]</code>") != std::string::npos);
  CHECK(run_html(c, 0).find("Profiles") == std::string::npos);
}
