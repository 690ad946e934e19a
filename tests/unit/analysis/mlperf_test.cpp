// The MLPerf HPC weak-scaling metric against values computed by hand.
#include "analysis/mlperf.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "analysis/scaling.hpp"

using namespace campaign;
using namespace campaign::analysis;

namespace {

// Instance i: run_start at start s, run_stop at stop s (epoch seconds), run_success when reached.
void add(CaseResult& c, long i, double start, double stop, bool reached) {
  c.metrics.push_back({kRunStartMs, {}, start * 1000, "ms", i});
  c.metrics.push_back({kRunStopMs, {}, stop * 1000, "ms", i});
  c.metrics.push_back({kRunTime, {}, stop - start, "s", i});
  if (reached) c.metrics.push_back({kRunSuccess, {}, 1, "", i});
}

// Four instances started within 2 s; instance 2 ended first but missed the target.
CaseResult four() {
  CaseResult c;
  c.name = "cosmoflow-weak-4x1";
  c.step = "train";
  c.state = "collected";
  add(c, 0, 1000.0, 1100.0, true);   // 100 s
  add(c, 1, 1002.0, 1130.0, true);   // 128 s, the last stop
  add(c, 2, 1001.0, 1090.0, false);  // 89 s, aborted
  add(c, 3, 1000.5, 1120.5, true);   // 120 s
  return c;
}

}  // namespace

TEST_CASE("per instance: time to train and whether it reached the target") {
  auto runs = instance_runs(four());
  REQUIRE(runs.size() == 4);
  CHECK(runs[1].instance == 1);
  CHECK(*runs[1].time_to_train_s == Approx(128));
  CHECK(runs[1].reached);
  CHECK_FALSE(runs[2].reached);
  CHECK(*runs[3].time_to_train_s == Approx(120));
}

TEST_CASE(
    "time to train all spans the first start to the last stop of the instances that reached the target") {
  WeakScalingScore s = weak_scaling_score(instance_runs(four()));
  CHECK(s.instances == 4);
  CHECK(s.reached == 3);
  // reached: 0, 1, 3; first start 1000.0 (instance 0), last stop 1130.0 (instance 1)
  CHECK(*s.time_to_train_all_s == Approx(130));
  CHECK(*s.models_per_minute == Approx(3.0 / (130.0 / 60.0)));  // 1.384615...
}

TEST_CASE("without timestamps the slowest successful instance sets the time; none reached gives no score") {
  std::vector<InstanceRun> runs(3);
  runs[0] = {0, {}, {}, 100.0, true};
  runs[1] = {1, {}, {}, 128.0, true};
  runs[2] = {2, {}, {}, 150.0, false};  // slower, but missed the target
  WeakScalingScore s = weak_scaling_score(runs);
  CHECK(*s.time_to_train_all_s == Approx(128));
  CHECK(*s.models_per_minute == Approx(2.0 / (128.0 / 60.0)));  // 0.9375
  for (auto& r : runs) r.reached = false;
  s = weak_scaling_score(runs);
  CHECK(s.reached == 0);
  CHECK_FALSE(s.time_to_train_all_s);
  CHECK_FALSE(s.models_per_minute);
}

TEST_CASE("scaling: mlperf_weak gives a summary table and one table of instances per case") {
  auto specs = parse_analyses(YAML::Load("[{name: mlperf, scaling: mlperf_weak, step: train}]"), "c.yaml");
  REQUIRE(specs.at(0).scaling == Scaling::mlperf_weak);
  CaseResult other = four();
  other.name = "plain";
  other.metrics = {{kRunTime, {}, 5, "s", {}}};  // no instances
  CaseResult failed = four();
  failed.name = "failed";
  failed.state = "collect_failed";
  auto res = analyze(specs[0], {four(), other, failed});
  REQUIRE(res.tables.size() == 2);
  const Table& sum = res.tables[0];
  CHECK(sum.stem() == "mlperf");
  REQUIRE(sum.rows.size() == 1);
  CHECK(std::get<std::string>(sum.rows[0][0]) == "cosmoflow-weak-4x1");
  CHECK(*sum.number(0, "instances") == 4);
  CHECK(*sum.number(0, "reached") == 3);
  CHECK(*sum.number(0, "time_to_train_all") == Approx(130));
  CHECK(*sum.number(0, "models_per_minute") == Approx(1.384615));
  const Table& inst = res.tables[1];
  CHECK(inst.stem() == "mlperf-cosmoflow_weak_4x1");
  REQUIRE(inst.rows.size() == 4);
  CHECK(*inst.number(2, "time_to_train") == Approx(89));
  CHECK(std::get<std::string>(inst.rows[2][2]) == "no");
  CHECK(*inst.number(1, "run_start") == Approx(2));  // from the case's first run_start
  CHECK(*inst.number(1, "run_stop") == Approx(130));
  CHECK(inst.notes.at(0) == "3 of 4 instances reached the target");
  REQUIRE(res.excluded.size() == 2);
  CHECK(res.excluded[0].case_name == "plain");
  CHECK(res.excluded[1].case_name == "failed");
}

TEST_CASE("scaling: mlperf_weak takes no layout keys") {
  CHECK_THROWS_WITH(parse_analyses(YAML::Load("[{name: m, scaling: mlperf_weak, x: ranks}]"), "c.yaml"),
                    Catch::Contains("analyses[0].x: not used by scaling: mlperf_weak"));
}

TEST_CASE("scaling: mlperf_strong: time to train per node count, only runs that reached the target") {
  auto specs = parse_analyses(YAML::Load("[{name: ttt, scaling: mlperf_strong, x: nodes}]"), "c.yaml");
  REQUIRE(specs.size() == 1);
  CHECK(value_column(specs[0]) == "time_to_train");
  auto run = [](const std::string& name, const std::string& nodes, const std::string& rep, double time,
                bool reached) {
    CaseResult c;
    c.name = name;
    c.state = "collected";
    c.params = {{"nodes", nodes}, {"repeat", rep}};
    c.metrics.push_back({kRunTime, {}, time, "s"});
    if (reached) c.metrics.push_back({kRunSuccess, {}, 1, ""});
    return c;
  };
  // 1 node: 100 and 120 s; 4 nodes: 40 s, and 10 s that missed the target.
  auto res = analyze(specs[0], {run("a", "1", "1", 100, true), run("b", "1", "2", 120, true),
                                run("c", "4", "1", 40, true), run("d", "4", "2", 10, false)});
  REQUIRE(res.tables.size() == 1);
  const Table& t = res.tables[0];
  CHECK(t.columns == std::vector<std::string>{"nodes", "time_to_train", "time_to_train_std",
                                              "time_to_train_score", "speedup", "eff", "count"});
  CHECK(!t.number(0, "time_to_train_score"));  // two runs: no score
  CHECK(*t.number(0, "time_to_train") == 110);
  CHECK(*t.number(1, "time_to_train") == 40);
  CHECK(*t.number(1, "speedup") == Approx(110.0 / 40));
  CHECK(*t.number(1, "eff") == Approx(110.0 / 40 / 4));
  REQUIRE(res.excluded.size() == 1);
  CHECK(res.excluded[0].case_name == "d");
  CHECK(res.excluded[0].reason == "did not reach the target (run_stop status is not success)");
  CHECK_THROWS_WITH(
      parse_analyses(YAML::Load("[{name: m, scaling: mlperf_strong, x: nodes, time: run_time}]"), "c.yaml"),
      Catch::Contains("analyses[0].time: not used by scaling: mlperf_strong"));
}

// MLPerf HPC's strong-scaling score: "discarding the lowest and highest results, and averaging the
// remaining results" (mlcommons.org, MLPerf Training: HPC, Metric).
TEST_CASE("mlperf_strong: time_to_train_score drops the fastest and the slowest run") {
  CHECK(time_to_train_score({100, 120, 110, 300, 90}) == 110);  // (100 + 110 + 120) / 3
  CHECK(time_to_train_score({5, 1, 3}) == 3);
  CHECK(time_to_train_score({2, 2, 8, 2}) == 2);  // one fastest and one slowest only
  CHECK(!time_to_train_score({100, 120}));
  CHECK(!time_to_train_score({}));

  auto specs = parse_analyses(YAML::Load("[{name: ttt, scaling: mlperf_strong, x: nodes}]"), "c.yaml");
  std::vector<CaseResult> cases;
  const double times[] = {100, 120, 110, 300, 90};
  for (int i = 0; i < 5; ++i) {
    CaseResult c;
    c.name = "r" + std::to_string(i);
    c.state = "collected";
    c.params = {{"nodes", "1"}, {"repeat", std::to_string(i)}};
    c.metrics.push_back({kRunTime, {}, times[i], "s"});
    c.metrics.push_back({kRunSuccess, {}, 1, ""});
    cases.push_back(c);
  }
  cases.push_back(cases[0]);  // 2 nodes, two runs: no score
  cases.back().params = {{"nodes", "2"}, {"repeat", "0"}};
  cases.push_back(cases[1]);
  cases.back().params = {{"nodes", "2"}, {"repeat", "1"}};
  auto res = analyze(specs[0], cases);
  REQUIRE(res.tables.size() == 1);
  const Table& t = res.tables[0];
  CHECK(t.columns == std::vector<std::string>{"nodes", "time_to_train", "time_to_train_std",
                                              "time_to_train_score", "speedup", "eff", "count"});
  CHECK(*t.number(0, "time_to_train") == 144);  // the plain mean, beside
  CHECK(*t.number(0, "time_to_train_score") == 110);
  CHECK(t.units.at("time_to_train_score") == "s");
  CHECK(!t.number(1, "time_to_train_score"));
}
