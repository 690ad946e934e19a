// What history and the site follow without METRIC: the campaign's `track:`, else each analysis'
// headline columns; the defaults are readable columns with a direction, and a 25 % slowdown of the
// newest run regresses the weak-scaling throughput but not its efficiency.
#include "history/following.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "analysis/scaling.hpp"

using namespace campaign;
using namespace campaign::history;

namespace {

std::vector<analysis::AnalysisSpec> specs_of(const std::string& yaml) {
  return analysis::parse_analyses(YAML::Load(yaml)["analyses"], "test.yaml");
}

std::vector<std::string> metrics(const std::vector<spec::Tracked>& t) {
  std::vector<std::string> out;
  for (auto& m : t) out.push_back(m.metric + (m.better.empty() ? "" : " " + m.better));
  return out;
}

Run run_with(const std::string& campaign_text) {
  Run r;
  r.name = "night-1";
  r.workdir = "/nonexistent/night-1";
  r.campaign.name = "c";
  r.campaign.system = "local";
  r.campaign.spec_text = campaign_text;
  return r;
}

const char* kWeak =
    "analyses:\n"
    "  - {name: ws, scaling: weak, x: ranks, time: {metric: epoch_time}, samples: n, group_by: [partition]}\n"
    "  - {name: wt, scaling: weak, x: ranks, time: {metric: epoch_time}, samples: 2 * n}\n"
    "  - {name: ss, scaling: strong, x: nodes, time: {metric: epoch_time}}\n"
    "  - {name: agg, scaling: none, x: ranks, time: {metric: epoch_time}}\n";

}  // namespace

TEST_CASE("headline columns per kind of analysis", "[history][following]") {
  CHECK(metrics(headline_metrics(specs_of(kWeak))) ==
        std::vector<std::string>{"ws.throughputs@max", "ws.eff@max", "wt.throughputs@max", "wt.eff@max",
                                 "ss.times@max", "ss.eff@max", "agg.times"});
  for (auto& t : headline_metrics(specs_of(kWeak))) CHECK_NOTHROW(parse_metric(t.metric));
  const char* mlperf =
      "analyses:\n"
      "  - {name: mw, scaling: mlperf_weak}\n"
      "  - {name: tt, scaling: mlperf_strong, x: nodes}\n";
  CHECK(metrics(headline_metrics(specs_of(mlperf))) ==
        std::vector<std::string>{"mw.models_per_minute higher", "tt.time_to_train@max", "tt.eff@max"});
}

TEST_CASE("following: `track:` replaces the defaults; a campaign that does not parse says so",
          "[history][following]") {
  const std::string base =
      "name: c\nmatrix: {ranks: [1, 2]}\ncase_name: c-{{ranks}}\n"
      "job: {ranks: ranks, walltime: 1m, command: 'true'}\n";
  Following f = following(run_with(base + kWeak));
  CHECK(f.defaults);
  CHECK(f.problem.empty());
  CHECK(f.metrics.size() == 7);
  f = following(run_with(base + kWeak + "track: [ws.times@ranks=2]\ncommit_url: https://h/c/{{commit}}\n"));
  CHECK_FALSE(f.defaults);
  CHECK(metrics(f.metrics) == std::vector<std::string>{"ws.times@ranks=2"});
  CHECK(f.commit_url == "https://h/c/{{commit}}");
  f = following(run_with(base));
  CHECK(f.defaults);
  CHECK(f.metrics.empty());
  f = following(run_with("name: [not a campaign"));
  CHECK(f.metrics.empty());
  CHECK(f.problem.find("does not parse") != std::string::npos);
}

TEST_CASE("the weak-scaling defaults read a run and judge a 25 % slowdown", "[history][following]") {
  auto specs = std::vector{specs_of(kWeak).front()};
  auto cases_at = [](double slowdown) {
    std::vector<analysis::CaseResult> out;
    for (std::string part : {"gpu", "cpu"})
      for (int r : {1, 2, 4}) {
        analysis::CaseResult c;
        c.name = part + "-n" + std::to_string(r);
        c.state = "collected";
        c.params = {{"partition", part},
                    {"ranks", std::to_string(r)},
                    {"nodes", "1"},
                    {"n", std::to_string(100 * r)}};
        const double t = (part == "gpu" ? 1.0 : 2.0) * (1 + 0.1 * r) * slowdown;
        for (int e = 0; e < 4; ++e) c.metrics.push_back({"epoch_time", double(e), t, "s"});
        out.push_back(std::move(c));
      }
    return out;
  };
  const std::vector<double> slowdowns = {1.0, 1.02, 0.98, 1.25, 1.25};
  for (const auto& [metric, regressed] :
       std::vector<std::pair<std::string, bool>>{{"ws.throughputs@max", true}, {"ws.eff@max", false}}) {
    std::vector<RunValues> runs;
    std::optional<Better> better;
    for (double s : slowdowns) {
      auto cases = cases_at(s);
      Extraction e = extract(parse_metric(metric), analysis::analyze_all(specs, cases), cases);
      REQUIRE(e.values.size() == 2);  // partition=cpu, partition=gpu
      better = e.better;
      RunValues v;
      v.run = "night";
      v.values = e.values;
      runs.push_back(v);
    }
    REQUIRE(better == Better::higher);
    History h = judge(runs, {0}, *better, 0.1);
    CHECK(h.regressed(false).size() == (regressed ? 2u : 0u));
  }
}
