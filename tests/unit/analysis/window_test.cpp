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

// Samples at t = 1000 + k s (k = 0..12) with value 10 k + offset; epochs 0..3:
//   0 [1000.5, 1003.5]: warm-up, dropped before anything is checked
//   1 [1004, 1008]:     k = 4..8, mean 40 + offset .. 80 + offset: 60 + offset (bounds included)
//   2 [1010, 1013]:     no sample after its end (the last is 1012): skipped
//   3 [1009, 1011]:     k = 9..11, mean 100 + offset
CaseResult run(const std::string& name, double offset, const std::string& loader = "original",
               const std::string& repeat = "0") {
  CaseResult c;
  c.name = name;
  c.step = "train";
  c.state = "collected";
  c.params = {{"io_limit", "100"}, {"loader", loader}, {"repeat", repeat}};
  SampledSeries s{"utilization:nid1:gpu0", "%", {}, {}};
  for (int k = 0; k <= 12; ++k) {
    s.steps.push_back(1000000 + 1000 * k);
    s.values.push_back(10.0 * k + offset);
  }
  c.sampled.push_back(s);
  c.sampled.push_back({"utilization:nid1:cpu", "%", {1000000, 1013000}, {7, 7}});  // not a gpu: not read
  const double windows[][2] = {{1000.5, 1003.5}, {1004, 1008}, {1010, 1013}, {1009, 1011}};
  for (int e = 0; e < 4; ++e) {
    c.metrics.push_back({"epoch_start", static_cast<double>(e), windows[e][0], "s"});
    c.metrics.push_back({"epoch_end", static_cast<double>(e), windows[e][1], "s"});
  }
  return c;
}

// The sample at t = 1000 + k s removed.
CaseResult without(CaseResult c, int k) {
  auto& s = c.sampled[0];
  s.steps.erase(s.steps.begin() + k);
  s.values.erase(s.values.begin() + k);
  return c;
}

WindowSpec window(int smooth = 1) {
  WindowSpec w;
  w.series = "utilization:{node}:gpu{i}";
  w.smooth = smooth;
  return w;
}

WindowRun ok(const std::variant<WindowRun, std::string>& r) {
  if (auto* why = std::get_if<std::string>(&r)) FAIL(*why);
  return std::get<WindowRun>(r);
}

void check_curve(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(i);
    CHECK(got[i] == Approx(want[i]));
  }
}

}  // namespace

TEST_CASE("window: stretching keeps the ends and interpolates linearly (scaled_stack)", "[window]") {
  check_curve(stretch({1, 2, 3}, 5), {1, 1.5, 2, 2.5, 3});
  check_curve(stretch({90, 100, 110}, 5), {90, 95, 100, 105, 110});
  check_curve(stretch({7}, 3), {7, 7, 7});
  check_curve(stretch({1, 4}, 2), {1, 4});
}

TEST_CASE("window: per-epoch means, warm-up dropped, the epoch past the samples skipped", "[window]") {
  const WindowRun w = ok(window_run(window(), 1, run("a", 0)));
  REQUIRE(w.epochs.size() == 2);
  CHECK(w.epochs[0].epoch == 1);
  CHECK(w.epochs[0].mean == 60);
  CHECK(w.epochs[1].epoch == 3);
  CHECK(w.epochs[1].mean == 100);
  REQUIRE(w.skipped.size() == 1);
  CHECK_THAT(w.skipped[0],
             Contains("epoch 2: no sample of utilization:nid1:gpu0 after its end ([1010, 1013] s)"));
  CHECK(w.mean == 80);
  CHECK(w.unit == "%");
  // Epoch 1's five samples; epoch 3's three stretched to five; the run's curve their mean.
  check_curve(w.epochs[0].curve, {40, 50, 60, 70, 80});
  check_curve(w.epochs[1].curve, {90, 100, 110});
  check_curve(w.curve, {65, 72.5, 80, 87.5, 95});
}

TEST_CASE("window: a moving average of full windows only, then stretched", "[window]") {
  const WindowRun w = ok(window_run(window(2), 1, run("a", 0)));
  check_curve(w.epochs[0].curve, {45, 55, 65, 75});  // np.convolve(x, [.5, .5], "valid"): n - 1 values
  check_curve(w.epochs[1].curve, {95, 105});
  check_curve(w.curve, {70, 70 + 20 / 3.0, 80 + 10 / 3.0, 90});
  CHECK(w.mean == 80);  // smoothing shapes the curve, not the epoch's mean
  // Fewer samples than the average's length: the epoch is skipped, and said so.
  const WindowRun four = ok(window_run(window(4), 1, run("a", 0)));
  REQUIRE(four.epochs.size() == 1);
  check_curve(four.curve, {55, 65});
  CHECK_THAT(four.skipped.back(),
             Contains("epoch 3: 3 sample(s) of utilization:nid1:gpu0 in the window, fewer "
                      "than the moving average's 4"));
}

TEST_CASE("window: the time-based variant (progress: time)", "[window]") {
  WindowSpec w = window(2);
  w.progress = WindowSpec::Progress::time;
  w.points = 5;
  const WindowRun r = ok(window_run(w, 1, run("a", 0)));
  // Epoch 1: 40, (40+50)/2, (50+60)/2, ... at 0, 25, ..., 100 %; epoch 3 at 0, 50, 100 %.
  check_curve(r.epochs[0].curve, {40, 45, 55, 65, 75});
  check_curve(r.epochs[1].curve, {90, 92.5, 95, 100, 105});
  CHECK(r.mean == 80);
}

TEST_CASE("window: several devices count alike", "[window]") {
  CaseResult c = run("a", 0);
  SampledSeries other{"utilization:nid2:gpu0", "%", {}, {}};
  for (int k = 0; k <= 24; ++k) other.steps.push_back(1000000 + 500 * k), other.values.push_back(50);
  c.sampled.push_back(other);
  const WindowRun w = ok(window_run(window(), 1, c));
  REQUIRE(w.epochs.size() == 2);
  CHECK(w.epochs[0].mean == (60 + 50) / 2.0);
  // Epoch 1: five samples of nid1, nine of nid2: nid1's stretched to nine before the mean.
  check_curve(w.epochs[0].curve, {45, 47.5, 50, 52.5, 55, 57.5, 60, 62.5, 65});
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
  // An epoch the samples start after is an error, as the study's assert; a sample at its very start
  // is not before it.
  CaseResult early = run("early", 0);
  for (auto& m : early.metrics)
    if (m.step == 1.0 && m.name == "epoch_start") m.value = 1000;
  CHECK_THAT(reason(early),
             Contains("epoch 1: no sample of utilization:nid1:gpu0 before its start ([1000, 1008] s)"));
  CaseResult late = run("late", 0);
  for (auto& m : late.metrics) m.value += 100;  // every window after the samples
  CHECK_THAT(reason(late), Contains("no epoch at or after warm-up (1) is covered"));
  CHECK(std::holds_alternative<WindowRun>(window_run(window(), 1, early)) == false);
  CHECK(std::holds_alternative<WindowRun>(window_run(window(), 2, early)));  // epoch 1 is warm-up there
}

TEST_CASE("window analysis: tables over repetitions, curves, ratios and the cases left out", "[window]") {
  auto spec =
      spec_of(R"({name: util, scaling: window, x: io_limit, compare: {axis: loader, baseline: original},
    ratio: {axis: loader, numerator: original, denominator: ring_buffer},
    window: {series: 'utilization:{node}:gpu{i}'}})");
  // r1 lacks the sample at 1006 s: its epoch 1 has four samples, its curve four points.
  std::vector<CaseResult> cases{run("o0", 0, "original", "0"), run("o1", 10, "original", "1"),
                                run("r0", 20, "ring_buffer", "0"),
                                without(run("r1", 20, "ring_buffer", "1"), 6)};
  CaseResult bad = run("o2", 0, "original", "2");
  bad.sampled[0].steps[2] = bad.sampled[0].steps[1];
  cases.push_back(bad);
  AnalysisResult res = analyze(spec, cases);
  REQUIRE(res.excluded.size() == 1);
  CHECK(res.excluded[0].case_name == "o2");
  CHECK_THAT(res.excluded[0].reason, Contains("duplicate timestamp"));
  // Every usable case's skipped epoch is named.
  size_t skipped = 0;
  for (const auto& n : res.notes) skipped += n.find("epoch 2: no sample of") != std::string::npos;
  CHECK(skipped == 4);
  REQUIRE(res.tables.size() == 2);
  const Table& t = res.tables[0];
  REQUIRE(t.rows.size() == 1);
  CHECK(t.number(0, "utilization") == 85);  // 80 and 90
  CHECK(t.number(0, "utilization_std") == Approx(7.0710678));
  CHECK(t.number(0, "utilization_ring_buffer") == 100);  // 100 and (80 + 120) / 2
  CHECK(t.number(0, "ratio") == Approx(85.0 / 100));
  CHECK(t.units.at("utilization") == "%");
  const Table& curve = res.tables[1];
  CHECK(curve.detail);
  CHECK(curve.stem() == "util-progress");
  CHECK(curve.columns == std::vector<std::string>{"progress", "progress_100_original",
                                                  "utilization_100_original", "utilization_std_100_original",
                                                  "progress_100_ring_buffer", "utilization_100_ring_buffer",
                                                  "utilization_std_100_ring_buffer"});
  REQUIRE(curve.rows.size() == 5);
  CHECK(curve.number(2, "progress") == 50);
  // original: 65 .. 95 and 75 .. 105; the band is the population std (ddof 0): 5.
  CHECK(curve.number(0, "utilization_100_original") == 70);
  CHECK(curve.number(0, "utilization_std_100_original") == Approx(5));
  // ring_buffer: r0 85, 92.5, 100, 107.5, 115; r1 85, 93.33, 106.67, 115 stretched to five first.
  const std::vector<double> mean{85, 91.875, 100, 108.125, 115}, sd{0, 0.625, 0, 0.625, 0};
  for (size_t j = 0; j < 5; ++j) {
    INFO(j);
    CHECK(curve.number(j, "utilization_100_ring_buffer") == Approx(mean[j]));
    CHECK(curve.number(j, "utilization_std_100_ring_buffer").value_or(-1) == Approx(sd[j]).margin(1e-12));
  }
}

TEST_CASE("window analysis: a curve table per summary table, split alike; lines keep their lengths",
          "[window]") {
  auto spec = spec_of(
      "{name: util, scaling: window, x: io_limit, group_by: loader, window: {series: "
      "'utilization:{n}:gpu{i}'}}");
  std::vector<CaseResult> cases{run("a", 0, "original"), run("b", 10, "original"),
                                run("c", 20, "ring_buffer")};
  cases[1].params["nodes"] = "2";  // not named in the spec: the tables split by it
  cases[0].params["nodes"] = "1";
  cases[2].params["nodes"] = "1";
  cases.push_back(without(run("d", 0, "original"), 6));
  cases.back().params = {{"io_limit", "200"}, {"loader", "original"}, {"nodes", "1"}, {"repeat", "0"}};
  AnalysisResult res = analyze(spec, cases);
  REQUIRE(res.tables.size() == 6);
  for (size_t i = 0; i < 3; ++i) {
    INFO(i);
    CHECK(res.tables[i + 3].stem() == "util-progress-" + res.tables[i].stem().substr(5));
    CHECK(res.tables[i + 3].group == res.tables[i].group);
  }
  CHECK(res.tables[4].group_label() == "loader=original, nodes=2");
  CHECK(res.tables[4].number(0, "utilization_100") == 75);  // case b alone: 65 + 10
  // loader=original, nodes=1: io_limit 100 (case a, five points) and 200 (case d, four).
  const Table& t = res.tables[3];
  REQUIRE(t.rows.size() == 5);
  CHECK(t.number(3, "progress_200") == 100);
  CHECK(t.number(4, "progress_200") == std::nullopt);
  CHECK(t.number(4, "utilization_200") == std::nullopt);
  CHECK(t.number(3, "progress_100") == 75);
  CHECK(t.number(0, "utilization_std_100") == std::nullopt);  // one repetition: no band
}

TEST_CASE("window: the sampler's power series per epoch, as utilisation (issue 31)", "[window]") {
  // power:<node>:gpu<i> (collectors/usage.yaml) in place of utilization: the same windows, in W.
  CaseResult c = run("a", 600);
  c.sampled[0].name = "power:nid1:gpu0";
  c.sampled[0].unit = "W";
  WindowSpec w = window();
  w.series = "power:{node}:gpu{i}";
  const WindowRun r = ok(window_run(w, 1, c));
  REQUIRE(r.epochs.size() == 2);
  CHECK(r.epochs[0].mean == 660);  // epoch 1: k = 4..8, 600 + 40 .. 600 + 80
  CHECK(r.epochs[1].mean == 700);  // epoch 3: k = 9..11
  CHECK(r.mean == 680);
  CHECK(r.unit == "W");
}
