// The DS-Analyzer-style stall table of a 4-rank run; the test computes the
// rank delay and the effective delay itself, with plain loops over the same
// numbers, not with the code under test.
#include "analysis/stalls.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/scaling.hpp"

using namespace campaign::analysis;
using Catch::Matchers::Contains;

namespace {

constexpr int kRanks = 4, kIterations = 6, kPerEpoch = 3;

// Rank r, iteration i: arbitrary but distinct timings (rank 2 is the slow one).
double fetch(int r, int i) { return 0.01 * (r + 1) + 0.002 * i + (r == 2 ? 0.05 : 0); }
double start(int r, int i) { return 1000 + 0.5 * i + fetch(r, i) + 0.001 * r * r; }
double iteration(int r, int i) { return 0.45 + 0.01 * r + 0.003 * i; }
double stall(int r, int i) { return fetch(r, i) * 0.8; }

CaseResult four_ranks() {
  CaseResult c;
  c.name = "stalls-original-io100";
  c.step = "train";
  c.state = "collected";
  for (int r = 0; r < kRanks; ++r) {
    std::string k = ":rank" + std::to_string(r);
    for (int i = 0; i < kIterations; ++i) {
      double it = i;
      c.metrics.push_back({"iteration_epoch" + k, it, static_cast<double>(i / kPerEpoch), ""});
      c.metrics.push_back({"fetch_time" + k, it, fetch(r, i), "s"});
      c.metrics.push_back({"fetch_done" + k, it, start(r, i) - 0.0001, "s"});
      c.metrics.push_back({"training_start" + k, it, start(r, i), "s"});
      c.metrics.push_back({"iteration_time" + k, it, iteration(r, i), "s"});
      c.metrics.push_back({"stall_time" + k, it, stall(r, i), "s"});
      c.metrics.push_back({"compute_time" + k, it, iteration(r, i) - stall(r, i), "s"});
    }
  }
  return c;
}

}  // namespace

TEST_CASE("stalls: a 4-rank run's table and its delay, checked by an independent computation", "[stalls]") {
  auto spec = parse_analyses(YAML::Load("[{name: stalls, scaling: stalls}]"), "c.yaml").at(0);
  CaseResult none = four_ranks();
  none.name = "no-stall-files";
  none.metrics = {{"epoch_time", 0.0, 3, "s"}};
  CaseResult failed = four_ranks();
  failed.name = "failed";
  failed.state = "failed";
  AnalysisResult res = analyze(spec, {four_ranks(), none, failed});
  REQUIRE(res.excluded.size() == 2);
  CHECK_THAT(res.excluded[0].reason, Contains("no per-rank stall metrics"));
  REQUIRE(res.tables.size() == 2);

  // The reference, over the iterations of epoch 1 on (warm-up 1: iterations 3, 4, 5).
  double delay_sum = 0, iter_sum = 0, stall_sum = 0;
  int iters = 0, values = 0;
  for (int i = kPerEpoch; i < kIterations; ++i) {
    double lo = 1e300, hi = -1e300;
    for (int r = 0; r < kRanks; ++r) {
      lo = std::min(lo, start(r, i));
      hi = std::max(hi, start(r, i));
      iter_sum += iteration(r, i);
      stall_sum += stall(r, i);
      ++values;
    }
    delay_sum += hi - lo;
    ++iters;
  }
  const double delay = delay_sum / iters, mean_iteration = iter_sum / values;
  const double effective = 100 * delay / mean_iteration;

  const Table& summary = res.tables[0];
  REQUIRE(summary.rows.size() == 1);
  CHECK(summary.columns == std::vector<std::string>{"case", "ranks", "iterations", "Average stall (sec)",
                                                    "Stall (%)", "Rank delay (sec)", "Effective delay (%)"});
  CHECK(summary.number(0, "ranks") == 4);
  CHECK(summary.number(0, "iterations") == 3);
  CHECK(summary.number(0, "Average stall (sec)") == Approx(stall_sum / values));
  CHECK(summary.number(0, "Stall (%)") == Approx(100 * stall_sum / iter_sum));
  CHECK(summary.number(0, "Rank delay (sec)") == Approx(delay));
  CHECK(summary.number(0, "Effective delay (%)") == Approx(effective));

  const Table& t = res.tables[1];
  CHECK(t.detail);
  CHECK(t.group_label() == "case=stalls-original-io100");
  REQUIRE(t.columns.size() == 2 + 4 * 6);
  CHECK(t.columns[2] == "Fetch time (sec)_gpu0");
  CHECK(t.columns[6] == "Training Stall time (sec)_gpu0");
  CHECK(t.columns[25] == "Compute time (sec)_gpu3");
  REQUIRE(t.rows.size() == kIterations);  // every iteration, warm-up included
  CHECK(t.number(4, "Iteration") == 4);
  CHECK(t.number(4, "Epoch") == 1);
  CHECK(t.number(4, "Training start (sec)_gpu2") == start(2, 4));
  CHECK(t.number(5, "Training Stall time (sec)_gpu3") == stall(3, 5));
}

TEST_CASE("stalls: a rank missing an iteration leaves it out of the delay", "[stalls]") {
  RankIterations ranks = rank_iterations(four_ranks());
  REQUIRE(ranks.size() == 4);
  ranks[3].erase(5.0);
  auto s = summarize_stalls(ranks, 1);
  REQUIRE(s);
  double d = 0;
  for (int i : {3, 4}) {
    double lo = 1e300, hi = -1e300;
    for (int r = 0; r < kRanks; ++r) lo = std::min(lo, start(r, i)), hi = std::max(hi, start(r, i));
    d += (hi - lo) / 2;
  }
  CHECK(*s->rank_delay == Approx(d));
  CHECK_FALSE(summarize_stalls(ranks, 5));  // no iteration after warm-up
}
