// Regression detection that respects noise, on synthetic series from a
// seeded generator: a series of nightly runs, each with repeated cases of
// 3 % noise. Noise alone raises no alarm; a 15 % step is found at its
// commit; one wild repetition is not a regression although the run's mean
// is past the threshold; without repetitions the threshold alone decides.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "analysis/stats.hpp"
#include "history/verdicts.hpp"

using namespace campaign::history;

namespace {

// A run's value from its repetitions, as extract() gives it.
Measured repeated(const std::vector<double>& samples) {
  auto s = campaign::analysis::summarize(samples);
  return Measured{s.mean, "", s.count, s.std};
}

// Normal variates from mt19937 (whose output the standard fixes) by
// Box-Muller, so a seed gives the same series with every standard library.
struct Noise {
  std::mt19937 rng;
  explicit Noise(unsigned seed) : rng(seed) {}
  double uniform() { return (static_cast<double>(rng()) + 0.5) / 4294967296.0; }
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform()); }
};

// `points` runs of `reps` repetitions each of a time around 10 s with
// relative noise `noise`; from run `step_at` on, `step` slower.
std::vector<RunValues> series(unsigned seed, size_t points = 20, size_t reps = 5, double noise = 0.03,
                              size_t step_at = SIZE_MAX, double step = 0) {
  Noise n(seed);
  std::vector<RunValues> runs;
  for (size_t i = 0; i < points; ++i) {
    RunValues r;
    r.version = "v";  // appended: GCC 12 warns (-Wrestrict) on "v" + to_string here
    r.version += std::to_string(i);
    r.run = "night";
    r.run += std::to_string(i);
    std::vector<double> samples;
    for (size_t k = 0; k < reps; ++k)
      samples.push_back(10 * (i >= step_at ? 1 + step : 1) * (1 + noise * n.normal()));
    r.values["time"] = repeated(samples);
    runs.push_back(std::move(r));
  }
  return runs;
}

// The same runs with only the means: what history judged before it knew the repetitions.
std::vector<RunValues> means_only(std::vector<RunValues> runs) {
  for (auto& r : runs)
    for (auto& [name, m] : r.values) m.n = 1, m.std.reset();
  return runs;
}

size_t alarms(const History& h) {
  size_t n = 0;
  for (const auto& s : h.series)
    for (const auto& p : s.points) n += p.verdict == Verdict::regressed || p.verdict == Verdict::improved;
  return n;
}

}  // namespace

TEST_CASE("noise alone: no alarm in 100 seeded series of 20 runs of 5 repetitions with 3 % noise",
          "[history][noise]") {
  size_t noisy = 0, old_alarms = 0, tight = 0, points = 0;
  for (unsigned seed = 1; seed <= 100; ++seed) {
    auto runs = series(seed);
    History h = judge(runs, {0}, Better::lower, 0.10);
    INFO("seed " << seed);
    CHECK(alarms(h) == 0);
    CHECK(h.series[0].steps.empty());
    CHECK(h.series[0].baseline_spread->n == 5);
    CHECK(h.series[0].points[19].spread->n == 5);
    for (const auto& p : h.series[0].points) noisy += p.within_noise;
    // A threshold inside the noise (3 %): the threshold alone flags every tenth run, the spread
    // rules hardly any (95 % intervals that do not overlap).
    tight += alarms(judge(runs, {0}, Better::lower, 0.03));
    old_alarms += alarms(judge(means_only(runs), {0}, Better::lower, 0.03));
    points += runs.size() - 1;
  }
  CHECK(noisy == 0);  // 10 % is far outside 3 % noise
  CHECK(old_alarms > points / 10);
  CHECK(tight < points / 100);
}

TEST_CASE("a 15 % step at commit k is found at k, and flags the runs from k on", "[history][noise]") {
  size_t latest_flagged = 0;
  for (size_t k : {1u, 5u, 12u, 19u}) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
      INFO("step at " << k << ", seed " << seed);
      History h = judge(series(seed, 20, 5, 0.03, k, 0.15), {0}, Better::lower, 0.10);
      const SeriesHistory& s = h.series[0];
      REQUIRE(s.steps.size() == 1);
      CHECK(s.steps[0].run == k);
      CHECK(s.steps[0].after / s.steps[0].before == Approx(1.15).epsilon(0.05));
      CHECK(s.steps[0].p < 1e-6);
      // Before the step nothing is flagged; after it every run past the threshold is (a run can
      // stay within it against a baseline run that happened to be slow).
      for (size_t i = 1; i < 20; ++i) {
        const HistoryPoint& p = s.points[i];
        if (i < k) {
          CHECK(p.verdict == Verdict::within);
          CHECK_FALSE(p.within_noise);
        } else if (*p.relative > 1.1) {
          CHECK(p.verdict == Verdict::regressed);
          CHECK((p.rule == Rule::ci_and_step || p.rule == Rule::step));
        }
      }
      latest_flagged += h.series[0].points[19].verdict == Verdict::regressed;
    }
  }
  CHECK(latest_flagged >= 76);  // of 80
  // A throughput that drops: the same step, the other direction.
  auto runs = series(7, 20, 5, 0.03, 12, -0.15);
  History h = judge(runs, {0}, Better::higher, 0.10);
  REQUIRE(h.series[0].steps.size() == 1);
  CHECK(h.series[0].steps[0].run == 12u);
  CHECK(h.series[0].points[19].verdict == Verdict::regressed);
  // Against the slow code as baseline the runs before the step are improvements, found by the step too.
  h = judge(series(7, 20, 5, 0.03, 12, 0.15), {19}, Better::lower, 0.10);
  CHECK(h.series[0].points[3].verdict == Verdict::improved);
  CHECK(h.series[0].points[3].rule == Rule::ci_and_step);
  CHECK(h.series[0].points[15].verdict == Verdict::within);
}

TEST_CASE("the step rule alone: a shift of the series the intervals of one run cannot show",
          "[history][noise]") {
  // 3 repetitions of 5 % noise: one run's interval (t = 4.3 for n = 3) is wide, so a 15 % step
  // is not outside it, but 10 runs after it against 10 before are a clear shift.
  size_t by_step = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    History h = judge(series(seed, 20, 3, 0.05, 10, 0.15), {0}, Better::lower, 0.10);
    const SeriesHistory& s = h.series[0];
    INFO("seed " << seed);
    REQUIRE(s.steps.size() == 1);
    CHECK(s.steps[0].run == 10u);
    for (size_t i = 10; i < 20; ++i)
      if (s.points[i].verdict == Verdict::regressed) by_step += s.points[i].rule == Rule::step;
  }
  CHECK(by_step > 100);  // most of the 200 runs after the steps
}

TEST_CASE("one wild repetition: past the threshold, within the spread, no alarm", "[history][noise]") {
  auto runs = series(3, 10, 5, 0.03);
  runs[9].values["time"] = repeated({10.0, 10.1, 9.9, 10.0, 16.0});  // one repetition hit a slow node
  REQUIRE(runs[9].values["time"].value == Approx(11.2));
  History h = judge(runs, {0}, Better::lower, 0.10);
  const HistoryPoint& p = h.series[0].points[9];
  CHECK(p.relative > 1.10);
  CHECK(p.verdict == Verdict::within);
  CHECK(p.within_noise);
  CHECK(p.rule == Rule::none);
  CHECK(h.series[0].steps.empty());
  CHECK(h.regressed(true).empty());
  // Judged on the means alone, the same run is a regression.
  History old = judge(means_only(runs), {0}, Better::lower, 0.10);
  CHECK(old.series[0].points[9].verdict == Verdict::regressed);
  CHECK(old.series[0].points[9].rule == Rule::threshold);
}

TEST_CASE("several runs of one version are its repetitions; without any, the threshold decides",
          "[history][noise]") {
  // One measurement per run; the baseline version ran three times, the new one twice.
  auto run = [](std::string version, double v) {
    RunValues r;
    r.version = std::move(version);
    r.values["t"] = Measured{v, "", 1, std::nullopt};
    return r;
  };
  std::vector<RunValues> runs = {run("a", 10.0), run("a", 10.2), run("a", 9.8), run("b", 11.3),
                                 run("b", 10.1)};
  History h = judge(runs, {0, 1, 2}, Better::lower, 0.10);
  const SeriesHistory& s = h.series[0];
  CHECK(s.baseline_spread->n == 3);
  CHECK(*s.baseline == Approx(10.0));
  // The first run of b has no repetition yet: the threshold alone flags it.
  CHECK(s.points[3].spread->n == 1);
  CHECK(s.points[3].verdict == Verdict::regressed);
  CHECK(s.points[3].rule == Rule::threshold);
  // The second: b's two runs (mean 10.7, +7 %) are within the threshold.
  CHECK(s.points[4].spread->n == 2);
  CHECK(s.points[4].spread->mean == Approx(10.7));
  CHECK(s.points[4].verdict == Verdict::within);
  CHECK(h.regressed(false).empty());
  // b again much slower: its three runs' interval is clear of the baseline's.
  runs.push_back(run("b", 12.5));
  runs[3].values["t"].value = 12.3;
  runs[4].values["t"].value = 12.4;
  h = judge(runs, {0, 1, 2}, Better::lower, 0.10);
  CHECK(h.series[0].points[5].spread->n == 3);
  CHECK(h.series[0].points[5].verdict == Verdict::regressed);
  CHECK(h.series[0].points[5].rule == Rule::ci_and_step);
}

TEST_CASE("find_steps: runs without a value, and a regression fixed later (two steps)", "[history][noise]") {
  const Spread low{10, 0.1, 5, std::nullopt}, high{12, 0.1, 5, std::nullopt}, none{};
  auto steps = find_steps({low, low, low, low, low, none, high, high, high, high}, 0.001);
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].run == 6u);  // the first run with a value after the shift
  CHECK(steps[0].before == Approx(10));
  CHECK(steps[0].after == Approx(12));

  steps = find_steps({low, low, low, low, high, high, high, high, low, low, low, low}, 0.001);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].run == 4u);
  CHECK(steps[1].run == 8u);
  // One value per run and no spread anywhere: a shift of one run at the end is too little to test.
  CHECK(find_steps({Spread{10, std::nullopt, 1, std::nullopt}, Spread{10, std::nullopt, 1, std::nullopt},
                    Spread{12, std::nullopt, 1, std::nullopt}},
                   0.001)
            .empty());
}
