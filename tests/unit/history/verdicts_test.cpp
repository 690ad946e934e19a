// Performance history: METRIC syntax, reading a metric from a run's tables
// and cases, the direction of each kind of metric, and the verdicts against
// a baseline (a 20 % slowdown past a 10 % threshold is a regression; noise
// within it is not).
#include "history/verdicts.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/scaling.hpp"
#include "util/error.hpp"

using namespace campaign::analysis;
using namespace campaign::history;
using campaign::InputError;

namespace {

AnalysisSpec weak_spec() {
  auto specs = parse_analyses(
      YAML::Load("analyses:\n  - {name: weak_scaling, scaling: weak, step: train, x: ranks, time: {metric: "
                 "epoch_time, warmup: 1}, samples: n_train, group_by: [partition], compare: {axis: data, "
                 "baseline: real}}")["analyses"],
      "test.yaml");
  return specs.at(0);
}

// One run of a weak-scaling campaign: partitions gpu/cpu, data real/dummy,
// ranks 1, 2, 4; epoch time = base * (1 + 0.1 * log2 ranks) * slowdown
// (dummy: 0.8 of that); epoch 0 is a slow warm-up.
std::vector<CaseResult> run_cases(double slowdown, const std::string& extra_state = "collected") {
  std::vector<CaseResult> out;
  for (std::string part : {"gpu", "cpu"})
    for (std::string data : {"real", "dummy"})
      for (int r : {1, 2, 4}) {
        CaseResult c;
        c.name = "scaling-" + part + (data == "dummy" ? "-dummy" : "") + "-n" + std::to_string(r);
        c.step = "train";
        c.state = r == 4 && part == "cpu" && data == "dummy" ? extra_state : "collected";
        c.params = {{"partition", part},
                    {"data", data},
                    {"ranks", std::to_string(r)},
                    {"n_train", std::to_string(100 * r)}};
        double t = (part == "gpu" ? 1.0 : 2.0) * (1 + 0.1 * (r == 1 ? 0 : r == 2 ? 1 : 2)) * slowdown;
        if (data == "dummy") t *= 0.8;
        c.metrics.push_back({"epoch_time", 0.0, 10 * t, "s"});
        for (int e = 1; e < 4; ++e) c.metrics.push_back({"epoch_time", double(e), t, "s"});
        c.metrics.push_back({"val_mae", 3.0, 0.5 / slowdown, ""});
        out.push_back(std::move(c));
      }
  return out;
}

Extraction read(const std::string& metric, const std::vector<CaseResult>& cases) {
  auto analyses = analyze_all({weak_spec()}, cases);
  return extract(parse_metric(metric), analyses, cases);
}

RunValues run_of(const std::string& name, const Extraction& e) {
  RunValues r;
  r.run = name;
  r.version = name;
  r.values = e.values;
  return r;
}

}  // namespace

TEST_CASE("METRIC: columns, reducers and conditions", "[history][verdicts]") {
  auto q = parse_metric("throughputs@ranks=4");
  CHECK(q.head == "throughputs");
  CHECK(q.reducer.empty());
  REQUIRE(q.conditions.size() == 1);
  CHECK(q.conditions[0].key == "ranks");
  CHECK(q.conditions[0].value == "4");

  q = parse_metric(" median(epoch_time) @ ranks=max , data=real ");
  CHECK(q.reducer == "median");
  CHECK(q.head == "epoch_time");
  REQUIRE(q.conditions.size() == 2);
  CHECK(q.conditions[0].value == "max");
  CHECK(q.conditions[1].key == "data");

  q = parse_metric("weak_scaling.eff@max");
  CHECK(q.head == "weak_scaling.eff");
  REQUIRE(q.conditions.size() == 1);
  CHECK(q.conditions[0].key.empty());

  q = parse_metric("tau_exclusive:step(int)");  // a parenthesis in a name is not a reducer
  CHECK(q.reducer.empty());
  CHECK(q.head == "tau_exclusive:step(int)");

  CHECK_THROWS_AS(parse_metric(""), InputError);
  CHECK_THROWS_AS(parse_metric("eff@"), InputError);
  CHECK_THROWS_AS(parse_metric("eff@ranks="), InputError);
  CHECK_THROWS_AS(parse_metric("eff@,max"), InputError);
  CHECK_THROWS_AS(parse_metric("eff@biggest"), InputError);
  CHECK_THROWS_WITH(parse_metric("meen(epoch_time)"), Catch::Contains("did you mean 'mean'"));
}

TEST_CASE("a column read at one x, per group, with the compare axis picking the series",
          "[history][verdicts]") {
  auto cases = run_cases(1.0);
  auto e = read("throughputs@ranks=4", cases);
  CHECK(e.problem.empty());
  CHECK(e.better == Better::higher);
  CHECK(e.unit == "samples/s");
  REQUIRE(e.values.size() == 2);
  CHECK(e.values.at("partition=gpu").value == Approx(400 / 1.2));
  CHECK(e.values.at("partition=cpu").value == Approx(400 / 2.4));

  e = read("throughputs@ranks=4,data=dummy,partition=gpu", cases);
  REQUIRE(e.values.size() == 1);
  CHECK(e.values.at("partition=gpu").value == Approx(400 / (1.2 * 0.8)));
  CHECK(read("throughputs_dummy@ranks=4,partition=gpu", cases).values.at("partition=gpu").value ==
        Approx(400 / (1.2 * 0.8)));

  e = read("weak_scaling.eff@max", cases);
  REQUIRE(e.values.size() == 2);
  CHECK(e.values.at("partition=gpu").value == Approx(1 / 1.2));
  CHECK(e.values.at("partition=gpu").where == "ranks=4");

  e = read("times@partition=gpu", cases);  // no condition on x: a series per row
  CHECK(e.better == Better::lower);
  REQUIRE(e.values.size() == 3);
  CHECK(e.values.at("partition=gpu, ranks=2").value == Approx(1.1));

  CHECK(read("eff@nodes=4", cases).problem.find("'nodes' is not a key of analysis weak_scaling") !=
        std::string::npos);
  CHECK_FALSE(read("eff@ranks=8", cases).problem.empty());
}

TEST_CASE("a collected metric, reduced per case, with parameter conditions", "[history][verdicts]") {
  auto cases = run_cases(1.0);
  auto e = read("epoch_time@ranks=4,data=real", cases);  // mean after warm-up: epoch 0 is left out
  CHECK(e.better == Better::lower);
  CHECK(e.unit == "s");
  REQUIRE(e.values.size() == 2);
  CHECK(e.values.at("scaling-gpu-n4").value == Approx(1.2));

  e = read("max(epoch_time)@ranks=max,partition=cpu,data=real", cases);  // max over every epoch
  REQUIRE(e.values.size() == 1);
  CHECK(e.values.at("scaling-cpu-n4").value == Approx(24));
  CHECK(e.values.at("scaling-cpu-n4").where == "ranks=4");

  CHECK(read("last(val_mae)@ranks=1,partition=gpu,data=real", cases).values.at("scaling-gpu-n1").value ==
        Approx(0.5));
  CHECK(read("sum(epoch_time)@ranks=1,partition=gpu,data=real", cases).values.at("scaling-gpu-n1").value ==
        Approx(13));

  // Failed cases do not count; unknown names and keys say what exists.
  auto failed = run_cases(1.0, "failed");
  CHECK(read("epoch_time@ranks=4,partition=cpu,data=dummy", failed).values.empty());
  CHECK(read("epoch_tme@ranks=4", cases).problem.find("no case matching") != std::string::npos);
  CHECK(read("epoch_time@rank=4", cases).problem.find("did you mean 'ranks'") != std::string::npos);
  CHECK(read("epoch_time@max", cases).problem.find("write KEY=max") != std::string::npos);
}

TEST_CASE("repetitions of a case are one series: the mean", "[history][verdicts]") {
  std::vector<CaseResult> cases;
  for (int rep : {1, 2}) {
    CaseResult c;
    c.name = "n4-r" + std::to_string(rep);
    c.state = "collected";
    c.params = {{"ranks", "4"}, {"repeat", std::to_string(rep)}};
    c.metrics.push_back({"run_time", std::nullopt, rep == 1 ? 10.0 : 12.0, "s"});
    cases.push_back(c);
  }
  auto e = extract(parse_metric("run_time@ranks=4"), {}, cases);
  REQUIRE(e.values.size() == 1);
  CHECK(e.values.at("n4-r1").value == Approx(11));
  // The spread history judges on.
  CHECK(e.values.at("n4-r1").n == 2);
  CHECK(*e.values.at("n4-r1").std == Approx(std::sqrt(2.0)));
}

TEST_CASE("which way is better: columns by kind, metrics by unit, then by name", "[history][verdicts]") {
  CHECK(column_direction("throughputs") == Better::higher);
  CHECK(column_direction("throughputs_dummy") == Better::higher);
  CHECK(column_direction("eff_dummy") == Better::higher);
  CHECK(column_direction("speedup") == Better::higher);
  CHECK(column_direction("times") == Better::lower);
  CHECK(column_direction("times_std_dummy") == Better::lower);
  CHECK(column_direction("throughputs_std") == Better::lower);
  CHECK(column_direction("stall") == Better::lower);
  CHECK_FALSE(column_direction("samples"));
  CHECK_FALSE(column_direction("ratio"));
  CHECK_FALSE(column_direction("efficiency_of_something_else"));

  CHECK(metric_direction("x", "s") == Better::lower);
  CHECK(metric_direction("x", "ms") == Better::lower);
  CHECK(metric_direction("x", "samples/s") == Better::higher);
  CHECK(metric_direction("x", "GB/s") == Better::higher);
  CHECK(metric_direction("epoch_time", "") == Better::lower);
  CHECK(metric_direction("val_loss", "") == Better::lower);
  CHECK(metric_direction("io_bandwidth", "") == Better::higher);
  CHECK(metric_direction("accuracy", "") == Better::higher);
  CHECK(metric_direction("step_ms", "") == Better::lower);
  CHECK_FALSE(metric_direction("tau_calls:main", ""));
  CHECK_FALSE(metric_direction("n_samples", ""));
  // Energy and power (issue 31): lower is better, by unit or by name.
  CHECK(metric_direction("x", "J") == Better::lower);
  CHECK(metric_direction("x", "kWh") == Better::lower);
  CHECK(metric_direction("x", "W") == Better::lower);
  CHECK(metric_direction("gpu_energy_j", "") == Better::lower);
  CHECK(metric_direction("gpu_power_mean_w", "") == Better::lower);
}

TEST_CASE("three runs, the third 20 % slower: a regression past 10 %, in both directions of metric",
          "[history][verdicts]") {
  std::vector<RunValues> time_runs, thr_runs;
  double slowdown[] = {1.0, 1.03, 1.2};  // run 2: noise within the threshold
  for (int i = 0; i < 3; ++i) {
    auto cases = run_cases(slowdown[i]);
    time_runs.push_back(run_of("run" + std::to_string(i), read("epoch_time@ranks=4,data=real", cases)));
    thr_runs.push_back(run_of("run" + std::to_string(i), read("throughputs@ranks=4", cases)));
  }
  History t = judge(time_runs, {0}, Better::lower, 0.10);
  REQUIRE(t.series.size() == 2);
  CHECK(t.series[0].name == "scaling-cpu-n4");  // natural order of names
  for (const auto& s : t.series) {
    CHECK(s.baseline);
    CHECK(s.points[0].verdict == Verdict::baseline);
    CHECK(s.points[0].relative == Approx(1.0));
    CHECK(s.points[1].verdict == Verdict::within);
    CHECK(s.points[1].relative == Approx(1.03));
    CHECK(s.points[2].verdict == Verdict::regressed);
    CHECK(s.points[2].rule == Rule::threshold);  // no repetitions: the threshold alone
    CHECK(s.points[2].relative == Approx(1.2));
    CHECK(s.latest == 2u);
  }
  CHECK(t.regressed(false).size() == 2);

  History h = judge(thr_runs, {0}, Better::higher, 0.10);
  REQUIRE(h.series.size() == 2);
  CHECK(h.series[1].points[2].relative == Approx(1 / 1.2));
  CHECK(h.series[1].points[2].verdict == Verdict::regressed);
  CHECK(h.regressed(false) == std::vector<std::string>{"partition=cpu", "partition=gpu"});

  // A threshold above the slowdown: nothing flagged. Exactly at it: not beyond it.
  CHECK(judge(time_runs, {0}, Better::lower, 0.25).regressed(true).empty());
  CHECK(judge(time_runs, {0}, Better::lower, 0.20).regressed(true).empty());
  // The wrong direction would call the slowdown an improvement.
  CHECK(judge(time_runs, {0}, Better::higher, 0.10).series[0].points[2].verdict == Verdict::improved);
  // Baseline = the slow run: the earlier runs are improvements, the latest is the baseline itself.
  History late = judge(time_runs, {2}, Better::lower, 0.10);
  CHECK(late.series[0].points[0].verdict == Verdict::improved);
  CHECK(late.regressed(true).empty());
  // Two baseline runs are averaged.
  CHECK(*judge(time_runs, {0, 1}, Better::lower, 0.1).series[0].baseline == Approx((2.4 + 2.4 * 1.03) / 2));
}

TEST_CASE("the latest point decides; older regressions are shown but do not fail a nightly check",
          "[history][verdicts]") {
  auto v = [](double x) {
    RunValues r;
    r.values["s"] = Measured{x, "", 1, std::nullopt};
    return r;
  };
  std::vector<RunValues> runs = {v(1.0), v(1.5), v(1.01)};
  History h = judge(runs, {0}, Better::lower, 0.1);
  CHECK(h.series[0].points[1].verdict == Verdict::regressed);
  CHECK(h.regressed(false).empty());
  CHECK(h.regressed(true) == std::vector<std::string>{"s"});
  // A run without the value: the latest point is the newest one that has it.
  RunValues empty;
  runs.push_back(empty);
  h = judge(runs, {0}, Better::lower, 0.1);
  CHECK(h.series[0].latest == 2u);
  CHECK(h.series[0].points[3].verdict == Verdict::none);
  // No baseline value: nothing can be judged.
  h = judge(runs, {3}, Better::lower, 0.1);
  CHECK_FALSE(h.series[0].baseline);
  CHECK(h.series[0].points[1].verdict == Verdict::none);
}

TEST_CASE("a column over repetitions carries their spread and count (COLUMN_std, count)",
          "[history][verdicts]") {
  // Two repetitions of every case, 10 % apart.
  std::vector<CaseResult> cases;
  for (int rep : {1, 2}) {
    auto one = run_cases(rep == 1 ? 1.0 : 1.1);
    for (auto& c : one) {
      c.name += "-r" + std::to_string(rep);
      c.params["repeat"] = std::to_string(rep);
      cases.push_back(std::move(c));
    }
  }
  Extraction e = read("times@ranks=4", cases);
  REQUIRE(e.values.count("partition=gpu"));
  const Measured& m = e.values.at("partition=gpu");
  CHECK(m.n == 2);
  REQUIRE(m.std);
  CHECK(*m.std == Approx(1.2 * 0.1 / std::sqrt(2.0)));  // times 1.2 and 1.32
  // Without repetitions the table has no spread: one measurement.
  Extraction single = read("times@ranks=4", run_cases(1.0));
  CHECK(single.values.at("partition=gpu").n == 1);
  CHECK_FALSE(single.values.at("partition=gpu").std);
  // Efficiency has no spread column: one value however many repetitions.
  CHECK(read("eff@ranks=4", cases).values.at("partition=gpu").n == 1);
}
