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
  runs[0] = {0, {}, {}, 100.0, true, {}};
  runs[1] = {1, {}, {}, 128.0, true, {}};
  runs[2] = {2, {}, {}, 150.0, false, {}};  // slower, but missed the target
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

// MLPerf HPC's throughput score (hpc_training_rules.adoc, Throughput): "TTTa = max(run_stop) -
// min(run_start) where the max/min are taken over all instances M"; the submitter "is allowed to prune
// this number by removing results from individual training instances. As long as the minimum number of
// models rule is satisfied", using "M'<=M" and "TTTa over the reduced set"; "Runs with identical seeds
// must be pruned from final results". The reference below is that rule as written: every subset of the
// instances that may be scored with at least min_models of them, the best M'/TTTa.
namespace {

struct Best {
  double rate = -1;
  size_t models = 0;
};

Best best_by_every_subset(const std::vector<InstanceRun>& runs, size_t min) {
  Best best;
  const size_t n = runs.size();
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    size_t m = 0;
    double first = 1e300, last = -1e300;
    for (size_t i = 0; i < n; ++i)
      if (mask & (1u << i))
        ++m, first = std::min(first, *runs[i].start_s), last = std::max(last, *runs[i].stop_s);
    if (m < min) continue;
    double rate = static_cast<double>(m) / ((last - first) / 60);
    if (rate > best.rate || (rate == best.rate && m > best.models)) best = {rate, m};
  }
  return best;
}

}  // namespace

TEST_CASE("mlperf_weak score: the pruning the rules allow gives the best M'/TTTa of every allowed subset") {
  // 12 instances, all reached; a late starter (5) and two stragglers (3, 9), deterministic spread.
  std::vector<InstanceRun> runs;
  const double start[] = {0, 1, 0.5, 2, 1.5, 40, 0.2, 0.8, 1.1, 0.3, 1.9, 0.7};
  const double time[] = {100, 104, 98, 160, 101, 99, 103, 97, 102, 140, 100, 105};
  for (long i = 0; i < 12; ++i)
    runs.push_back({i, 1000 + start[i], 1000 + start[i] + time[i], time[i], true, {}});
  for (size_t min : {1, 5, 9, 10, 11, 12}) {
    WeakScalingScore s = weak_scaling_score(runs, static_cast<long>(min));
    Best want = best_by_every_subset(runs, min);
    INFO("min_models " << min);
    REQUIRE(s.models_per_minute_score);
    CHECK(*s.models_per_minute_score == Approx(want.rate).epsilon(1e-12));
    CHECK(s.scored.size() == want.models);
    CHECK(s.scored.size() + s.pruned.size() == 12);
    CHECK(*s.models_per_minute_score ==
          Approx(static_cast<double>(s.scored.size()) / (*s.time_to_train_all_score_s / 60)));
  }
  // Unpruned, every instance: the plain figures and the score agree.
  WeakScalingScore all = weak_scaling_score(runs);
  CHECK(all.pruned.empty());
  CHECK(all.scored.size() == 12);
  CHECK(*all.models_per_minute_score == Approx(*all.models_per_minute));
  CHECK(*all.time_to_train_all_s == Approx(1000 + 2 + 160 - 1000));  // instance 3's stop, instance 0's start
  // With at least 10 the score leaves out what costs most, and is better than the unpruned one.
  WeakScalingScore ten = weak_scaling_score(runs, 10);
  CHECK(ten.scored.size() >= 10);
  CHECK(*ten.models_per_minute_score > *all.models_per_minute);
}

TEST_CASE("mlperf_weak score: instances sharing a seed are left out; too few or unstamped: no score") {
  std::vector<InstanceRun> runs;
  for (long i = 0; i < 4; ++i) runs.push_back({i, 1000.0, 1100.0 + i, 100.0 + i, true, double(i)});
  runs[3].seed = 1;  // 1 and 3 share seed 1: both out
  WeakScalingScore s = weak_scaling_score(runs);
  CHECK(s.same_seed == std::vector<long>{1, 3});
  CHECK(s.scored == std::vector<long>{0, 2});
  CHECK(*s.time_to_train_all_score_s == Approx(102));
  CHECK(*s.models_per_minute_score == Approx(2 / (102.0 / 60)));
  CHECK(*s.models_per_minute == Approx(4 / (103.0 / 60)));  // the plain figure counts every reached one
  WeakScalingScore three = weak_scaling_score(runs, 3);
  CHECK_FALSE(three.models_per_minute_score);
  CHECK(three.no_score == "2 instances can be scored, fewer than min_models 3");
  runs[0].start_s.reset();
  WeakScalingScore unstamped = weak_scaling_score(runs, 1);
  CHECK_FALSE(unstamped.models_per_minute_score);
  CHECK(unstamped.no_score == "an instance has no run_start or run_stop time stamp: the pruning needs them");
}

TEST_CASE("mlperf_weak: min_models is read, checked, and its score is in the tables") {
  auto specs = parse_analyses(
      YAML::Load("[{name: mlperf, scaling: mlperf_weak, step: train, min_models: 2}]"), "c.yaml");
  REQUIRE(specs.at(0).min_models == 2);
  CaseResult c = four();
  add(c, 4, 1000.2, 1400.0, true);  // a straggler: 400 s
  c.metrics.push_back({kSeed, {}, 7, "", 0});
  auto res = analyze(specs[0], {c});
  REQUIRE(res.tables.size() == 2);
  const Table& sum = res.tables[0];
  CHECK(sum.columns == std::vector<std::string>{"case", "instances", "reached", "time_to_train_all",
                                                "models_per_minute", "models_score",
                                                "time_to_train_all_score", "models_per_minute_score"});
  // Reached: 0 (1000-1100), 1 (1002-1130), 3 (1000.5-1120.5), 4 (1000.2-1400). With 2 or more, the
  // best: {0, 1, 3} over 1000-1130, 3/130 s (0.0231 a second) beats all four over 400 s (0.01), {0, 3}
  // over 120.5 s (0.0166) and {1, 3} over 129.5 s (0.0154).
  CHECK(*sum.number(0, "models_score") == 3);
  CHECK(*sum.number(0, "time_to_train_all_score") == Approx(130));
  CHECK(*sum.number(0, "models_per_minute_score") == Approx(3 / (130.0 / 60)));
  CHECK(*sum.number(0, "models_per_minute") == Approx(4 / (400.0 / 60)));  // every reached one, beside it
  const Table& inst = res.tables[1];
  CHECK(std::get<std::string>(inst.rows[0][5]) == "yes");
  CHECK(std::get<std::string>(inst.rows[1][5]) == "yes");
  CHECK(std::get<std::string>(inst.rows[2][5]) == "no");  // did not reach the target
  CHECK(std::get<std::string>(inst.rows[3][5]) == "yes");
  CHECK(std::get<std::string>(inst.rows[4][5]) == "no: pruned");
  CHECK(inst.notes.back() == "score: M' 3, TTTa 130.000000 s, models per minute 1.384615, 1 pruned");
  CHECK_THROWS_WITH(
      parse_analyses(YAML::Load("[{name: m, scaling: weak, x: ranks, min_models: 2}]"), "c.yaml"),
      Catch::Contains("analyses[0].min_models: only for scaling: mlperf_weak"));
  CHECK_THROWS_WITH(
      parse_analyses(YAML::Load("[{name: m, scaling: mlperf_weak, min_models: 2.5}]"), "c.yaml"),
      Catch::Contains("must be a whole number of models"));
}
