// The time-window analysis against values computed by hand (issue 13): a
// 1 Hz utilisation series and four epoch windows, one past the last sample.
#include "analysis/window.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "analysis/scaling.hpp"

using namespace campaign::analysis;
using Catch::Matchers::Contains;

namespace {

AnalysisSpec spec_of(const std::string& yaml) {
  auto specs = parse_analyses(YAML::Load("analyses:\n  - " + yaml)["analyses"], "test.yaml");
  REQUIRE(specs.size() == 1);
  return specs[0];
}

// Samples at t = 1000 + k s (k = 0..10) with value 10 k + offset; epochs 0..3:
//   0 [1000.5, 1003.5]: k = 1..3, mean 20 (warm-up)
//   1 [1004, 1008]:     k = 4..8, mean 60 (bounds included)
//   2 [1008, 1012]:     past the last sample (1010): skipped
//   3 [1009, 1010]:     k = 9, 10, mean 95
CaseResult run(const std::string& name, double offset, const std::string& loader = "original",
               const std::string& repeat = "0") {
  CaseResult c;
  c.name = name;
  c.step = "train";
  c.state = "collected";
  c.params = {{"io_limit", "100"}, {"loader", loader}, {"repeat", repeat}};
  SampledSeries s{"utilization:nid1:gpu0", "%", {}, {}};
  for (int k = 0; k <= 10; ++k) {
    s.steps.push_back(1000000 + 1000 * k);
    s.values.push_back(10.0 * k + offset);
  }
  c.sampled.push_back(s);
  c.sampled.push_back({"utilization:nid1:cpu", "%", {1000000, 1010000}, {7, 7}});  // not a gpu: not read
  const double windows[][2] = {{1000.5, 1003.5}, {1004, 1008}, {1008, 1012}, {1009, 1010}};
  for (int e = 0; e < 4; ++e) {
    c.metrics.push_back({"epoch_start", static_cast<double>(e), windows[e][0], "s"});
    c.metrics.push_back({"epoch_end", static_cast<double>(e), windows[e][1], "s"});
  }
  return c;
}

WindowSpec window(int smooth = 1, int points = 5) {
  WindowSpec w;
  w.series = "utilization:{node}:gpu{i}";
  w.smooth = smooth;
  w.points = points;
  return w;
}

WindowRun ok(const std::variant<WindowRun, std::string>& r) {
  if (auto* why = std::get_if<std::string>(&r)) FAIL(*why);
  return std::get<WindowRun>(r);
}

}  // namespace

TEST_CASE("window: per-epoch means, the uncovered epoch skipped, the run's mean after warm-up", "[window]") {
  auto r = window_run(window(), 1, run("a", 0));
  const WindowRun& w = ok(r);
  REQUIRE(w.epochs.size() == 3);
  CHECK(w.epochs[0].mean == 20);
  CHECK(w.epochs[1].mean == 60);
  CHECK(w.epochs[2].epoch == 3);
  CHECK(w.epochs[2].mean == 95);
  REQUIRE(w.skipped.size() == 1);
  CHECK_THAT(w.skipped[0], Contains("epoch 2: window past the last sample of utilization:nid1:gpu0"));
  CHECK(w.mean == (60 + 95) / 2.0);
  CHECK(w.unit == "%");
  // Progress 0, 25, 50, 75, 100 %: epoch 1 has a sample at each; epoch 3 only at 0 and 100.
  CHECK(w.epochs[1].curve == std::vector<double>{40, 50, 60, 70, 80});
  CHECK(w.epochs[2].curve == std::vector<double>{90, 92.5, 95, 97.5, 100});
  CHECK(w.curve == std::vector<double>{65, 71.25, 77.5, 83.75, 90});
}

TEST_CASE("window: moving average over the window's samples, then progress", "[window]") {
  const WindowRun w = ok(window_run(window(2, 5), 1, run("a", 0)));
  // Epoch 1: 40, (40+50)/2, (50+60)/2, ...; epoch 3: 90, 95, interpolated.
  CHECK(w.epochs[1].curve == std::vector<double>{40, 45, 55, 65, 75});
  CHECK(w.epochs[2].curve == std::vector<double>{90, 91.25, 92.5, 93.75, 95});
  CHECK(w.curve == std::vector<double>{65, 68.125, 73.75, 79.375, 85});
  CHECK(w.mean == 77.5);  // smoothing shapes the curve, not the epoch's mean
}

TEST_CASE("window: several devices count alike", "[window]") {
  CaseResult c = run("a", 0);
  SampledSeries other{"utilization:nid2:gpu0", "%", {}, {}};
  for (int k = 0; k <= 12; ++k) other.steps.push_back(1000000 + 1000 * k), other.values.push_back(50);
  c.sampled.push_back(other);
  const WindowRun w = ok(window_run(window(), 1, c));
  REQUIRE(w.epochs.size() == 3);
  CHECK(w.epochs[1].mean == (60 + 50) / 2.0);
}

TEST_CASE("window: bad data gives the case a reason", "[window]") {
  auto reason = [](const CaseResult& c) {
    auto r = window_run(window(), 1, c);
    REQUIRE(std::holds_alternative<std::string>(r));
    return std::get<std::string>(r);
  };
  CaseResult dup = run("dup", 0);
  dup.sampled[0].steps[4] = dup.sampled[0].steps[3];
  CHECK_THAT(reason(dup),
             Contains("series utilization:nid1:gpu0: duplicate timestamp 1003000 ms (samples 3 and 4)"));
  CaseResult back = run("back", 0);
  std::swap(back.sampled[0].steps[5], back.sampled[0].steps[6]);
  CHECK_THAT(reason(back), Contains("timestamps not in order (1005000 ms after 1006000 ms, sample 6)"));
  CaseResult reversed = run("reversed", 0);
  for (auto& m : reversed.metrics)
    if (m.step == 1.0 && m.name == "epoch_end") m.value = 1003;
  CHECK_THAT(reason(reversed), Contains("epoch 1 ends before it starts (epoch_end 1003 < epoch_start 1004)"));
  CaseResult no_sampler = run("none", 0);
  no_sampler.sampled.clear();
  CHECK_THAT(reason(no_sampler), Contains("no series 'utilization:{node}:gpu{i}'"));
  CaseResult no_epochs = run("none", 0);
  no_epochs.metrics.clear();
  CHECK_THAT(reason(no_epochs), Contains("no epoch windows"));
  CaseResult late = run("late", 0);
  for (auto& m : late.metrics) m.value += 100;  // every window after the samples
  CHECK_THAT(reason(late), Contains("no epoch at or after warm-up (1) is covered"));
}

TEST_CASE("window analysis: tables over repetitions, curves, ratios and the cases left out", "[window]") {
  auto spec =
      spec_of(R"({name: util, scaling: window, x: io_limit, compare: {axis: loader, baseline: original},
    ratio: {axis: loader, numerator: original, denominator: ring_buffer},
    window: {series: 'utilization:{node}:gpu{i}', points: 5}})");
  std::vector<CaseResult> cases{run("o0", 0, "original", "0"), run("o1", 10, "original", "1"),
                                run("r0", 20, "ring_buffer", "0"), run("r1", 20, "ring_buffer", "1")};
  CaseResult bad = run("o2", 0, "original", "2");
  bad.sampled[0].steps[2] = bad.sampled[0].steps[1];
  cases.push_back(bad);
  AnalysisResult res = analyze(spec, cases);
  REQUIRE(res.excluded.size() == 1);
  CHECK(res.excluded[0].case_name == "o2");
  CHECK_THAT(res.excluded[0].reason, Contains("duplicate timestamp"));
  // Every usable case's skipped epoch is named.
  size_t skipped = 0;
  for (const auto& n : res.notes)
    skipped += n.find("epoch 2: window past the last sample") != std::string::npos;
  CHECK(skipped == 4);
  REQUIRE(res.tables.size() == 2);
  const Table& t = res.tables[0];
  REQUIRE(t.rows.size() == 1);
  CHECK(t.number(0, "utilization") == 82.5);  // 77.5 and 87.5
  CHECK(t.number(0, "utilization_std") == Approx(7.0710678));
  CHECK(t.number(0, "utilization_ring_buffer") == 97.5);
  CHECK(t.number(0, "ratio") == Approx(82.5 / 97.5));
  CHECK(t.units.at("utilization") == "%");
  const Table& curve = res.tables[1];
  CHECK(curve.detail);
  CHECK(curve.stem() == "util-progress");
  CHECK(curve.columns ==
        std::vector<std::string>{"progress", "utilization_100_original", "utilization_std_100_original",
                                 "utilization_100_ring_buffer", "utilization_std_100_ring_buffer"});
  REQUIRE(curve.rows.size() == 5);
  CHECK(curve.number(2, "progress") == 50);
  CHECK(curve.number(0, "utilization_100_original") == 70);  // 65 and 75
  CHECK(curve.number(0, "utilization_std_100_original") == Approx(7.0710678));
  CHECK(curve.number(4, "utilization_100_ring_buffer") == 110);
  CHECK_FALSE(curve.number(4, "utilization_std_100_ring_buffer") == std::nullopt);
}

TEST_CASE("window analysis: a curve table per summary table, split alike", "[window]") {
  auto spec = spec_of(
      "{name: util, scaling: window, x: io_limit, group_by: loader, window: {series: "
      "'utilization:{n}:gpu{i}', points: 3}}");
  std::vector<CaseResult> cases{run("a", 0, "original"), run("b", 10, "original"),
                                run("c", 20, "ring_buffer")};
  cases[1].params["nodes"] = "2";  // not named in the spec: the tables split by it
  cases[0].params["nodes"] = "1";
  cases[2].params["nodes"] = "1";
  AnalysisResult res = analyze(spec, cases);
  REQUIRE(res.tables.size() == 6);
  for (size_t i = 0; i < 3; ++i) {
    INFO(i);
    CHECK(res.tables[i + 3].stem() == "util-progress-" + res.tables[i].stem().substr(5));
    CHECK(res.tables[i + 3].group == res.tables[i].group);
  }
  CHECK(res.tables[4].group_label() == "loader=original, nodes=2");
  CHECK(res.tables[4].number(0, "utilization_100") == 75);  // case b alone: 65 + 10
}
