// scaling: stalls on a hand-made 2-GPU run (tests/data/stalls/two_gpus), its
// results worked out below by hand from DS-Analyzer's definitions
// (analysis/whatif.hpp); tests/cli/stalls.sh compares the same files with the
// pandas reference (tests/reference/ds_analyzer.py). Then bad data.
//
// The files: 8 iterations per rank, epoch 0 = iterations 0-3, epoch 1 = 4-7.
// With warmup 1 and skip_iterations 1 the kept ones are 5, 6, 7 (A, B, C);
// epoch 0 and iteration 4 (rank 1 stalls 5 s there) must not count. Start
// S = fetch done - fetch, in s after 1700000000:
//
//        rank 0:  S       F      T      W       rank 1:  S       F      T      W
//   A (5)       10.000  0.200  0.400  0.150            10.050  0.100  0.420  0.060
//   B (6)       10.500  0.100  0.300  0.005            10.450  0.300  0.310  0.120
//   C (7)       11.000  0.150  0.350  0.020            11.000  0.150  0.350  0.020
//
// Measured, per iteration (max T, max W, max - min of W, F and S):
//   A: 0.420, 0.150, 0.090, 0.100, 0.050   B: 0.310, 0.120, 0.115, 0.200, 0.050   C: 0.350, 0.020, 0, 0, 0
//   Avg iteration time 1.08 / 3 = 0.36, std sqrt((0.06^2 + 0.05^2 + 0.01^2) / 2) = sqrt(0.0031) = 0.0556776
//   Avg training stall 0.29 / 3 = 0.0966667; Avg delay 0.205 / 3 = 0.0683333; Effective Delay: 0.090 and
//   0.115 exceed 0.030, 2 of 3 = 66.6667 %; Avg preprocessing start diff 0.1 / 3; Avg preprocessing diff 0.1.
// What-if (pure training = T - max W: A 0.250, 0.270; B 0.180, 0.190; C 0.330, 0.330):
//   fetch min, start min: every rank starts at min S with min F.
//     A: done 10.100; rank 0 ends 0.100 earlier: 0.150 - 0.100 = 0.050; rank 1 0.050 earlier: 0.010;
//        iteration 0.050 + 0.270 = 0.320, delay 0.040
//     B: done 10.550; rank 0: 0.005 - 0.050 < 0 -> 2e-6; rank 1: 0.120 - 0.200 < 0 -> 2e-6;
//        iteration 0.000002 + 0.190 = 0.190002, delay 0
//     C: done 11.150 as measured: 0.020 each, iteration 0.350
//     Avg iteration time 0.860002 / 3 = 0.2866673, stall 0.070002 / 3 = 0.023334, delay 0.04 / 3,
//     Effective 1 of 3 (0.040 > 0.030) = 33.3333 %, both diffs 0; saving 0.36 - 0.2866673 = 0.0733327 s.
//   fetch avg, start rank: F = the ranks' mean.
//     A: F 0.150; rank 0 ends 0.050 earlier: 0.100; rank 1 ends 0.050 later and stalled > 0.01: 0.110;
//        iteration 0.110 + 0.270 = 0.380, delay 0.010
//     B: F 0.200; rank 0 ends 0.100 later but stalled 0.005 <= 0.01: stays 0.005; rank 1 ends 0.100
//        earlier: 0.020; iteration 0.020 + 0.190 = 0.210, delay 0.015
//     C: as measured. Avg iteration time 0.94 / 3 = 0.3133333, stall 0.15 / 3 = 0.05, delay 0.025 / 3,
//     Effective 0 %, start diff 0.1 / 3, fetch diff 0; saving 0.0466667 s = 12.963 %.
//   fetch rank, start avg: S = the midrange; A: 10.025, rank 0 ends 0.025 later: 0.175, rank 1 0.025
//     earlier: 0.035; iteration 0.175 + 0.270 = 0.445.
#include "analysis/stalls.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "analysis/scaling.hpp"

using namespace campaign::analysis;
using Catch::Matchers::Contains;

namespace {

// The files' values as the stalls collector names them (collectors/stalls.yaml).
CaseResult two_gpus() {
  const char* kMetrics[] = {"iteration_epoch", "fetch_time", "fetch_done",  "training_start",
                            "iteration_time",  "stall_time", "compute_time"};
  CaseResult c;
  c.name = "two-gpus";
  c.state = "collected";
  for (int rank : {0, 1}) {
    std::ifstream in(std::string(TEST_DATA_DIR) + "/stalls/two_gpus/stalls-rank" + std::to_string(rank) +
                     ".csv");
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream cells(line);
      std::string cell;
      std::getline(cells, cell, ',');
      const double iteration = std::stod(cell);
      for (const char* m : kMetrics) {
        std::getline(cells, cell, ',');
        c.metrics.push_back(
            {std::string(m) + ":rank" + std::to_string(rank), iteration, std::stod(cell), ""});
      }
    }
  }
  REQUIRE(c.metrics.size() == 2 * 8 * 7);
  return c;
}

AnalysisSpec spec_of(const std::string& yaml) { return parse_analyses(YAML::Load(yaml), "c.yaml").at(0); }

const AnalysisSpec kSpec = spec_of("[{name: stalls, scaling: stalls, warmup: 1, skip_iterations: 1}]");

const Table& table(const AnalysisResult& r, const std::string& stem) {
  for (const auto& t : r.tables)
    if (t.stem() == stem) return t;
  FAIL("no table " << stem);
  return r.tables.front();
}

// The row of a what-if table with these alignments.
size_t combination(const Table& t, const std::string& fetch, const std::string& start) {
  for (size_t r = 0; r < t.rows.size(); ++r)
    if (std::get<std::string>(t.rows[r][0]) == fetch && std::get<std::string>(t.rows[r][1]) == start)
      return r;
  FAIL("no row " << fetch << "/" << start);
  return 0;
}

// The input times have a 0.24 us grain (Unix seconds as doubles).
Approx near(double v) { return Approx(v).margin(1e-6); }

}  // namespace

TEST_CASE("stalls: DS-Analyzer's summary of a hand-made 2-GPU run", "[stalls]") {
  AnalysisResult res = analyze_stalls(kSpec, {two_gpus()});
  REQUIRE(res.excluded.empty());
  const Table& s = table(res, "stalls");
  CHECK(s.columns == std::vector<std::string>{
                         "case", "ranks", "iterations", "Avg iteration time (sec)",
                         "Avg iteration time (sec)_std", "Avg training stall time (sec)",
                         "Avg training stall time (sec)_std", "Avg delay time (sec)",
                         "Avg delay time (sec)_std", "Effective Delay time (%)",
                         "Avg preprocessing start diff (sec)", "Avg preprocessing start diff (sec)_std",
                         "Avg preprocessing diff (sec)", "Avg preprocessing diff (sec)_std"});
  REQUIRE(s.rows.size() == 1);
  CHECK(s.number(0, "ranks") == 2);
  CHECK(s.number(0, "iterations") == 3);
  CHECK(*s.number(0, "Avg iteration time (sec)") == near(0.36));
  CHECK(*s.number(0, "Avg iteration time (sec)_std") == near(0.0556776));
  CHECK(*s.number(0, "Avg training stall time (sec)") == near(0.29 / 3));
  CHECK(*s.number(0, "Avg delay time (sec)") == near(0.205 / 3));
  CHECK(*s.number(0, "Effective Delay time (%)") == near(200.0 / 3));
  CHECK(*s.number(0, "Avg preprocessing start diff (sec)") == near(0.1 / 3));
  CHECK(*s.number(0, "Avg preprocessing diff (sec)") == near(0.1));

  SECTION("the delay threshold is an option") {
    AnalysisResult r = analyze_stalls(
        spec_of("[{name: stalls, scaling: stalls, warmup: 1, skip_iterations: 1, delay_threshold: 0.1}]"),
        {two_gpus()});
    CHECK(*table(r, "stalls").number(0, "Effective Delay time (%)") == near(100.0 / 3));  // only B's 0.115
  }
  SECTION("the defaults skip the first 11 of each epoch: nothing is left of 4") {
    AnalysisResult r = analyze_stalls(spec_of("[{name: stalls, scaling: stalls}]"), {two_gpus()});
    REQUIRE(r.excluded.size() == 1);
    CHECK(
        r.excluded[0].reason ==
        "none of its 8 iterations is in the first epoch >= 1 (epochs: first) past the first 11 of its epoch "
        "(skip_iterations)");
    CHECK(r.tables.empty());
  }
}

TEST_CASE("stalls: the what-if alignment of the hand-made run", "[stalls]") {
  AnalysisResult res = analyze_stalls(kSpec, {two_gpus()});
  const Table& w = table(res, "stalls-whatif-two_gpus");
  CHECK(w.x == "fetch");
  REQUIRE(w.rows.size() == 9);  // every fetch alignment with every start alignment
  CHECK(std::get<std::string>(w.rows[1][0]) == "rank");
  CHECK(std::get<std::string>(w.rows[1][1]) == "avg");
  CHECK(w.columns.back() == "Saving (%)");

  const size_t base = combination(w, "rank", "rank");  // nothing moves: the measured table
  CHECK(*w.number(base, "Avg iteration time (sec)") == near(0.36));
  CHECK(*w.number(base, "Avg delay time (sec)") == near(0.205 / 3));
  CHECK(*w.number(base, "Saving (sec)") == 0);

  const size_t min = combination(w, "min", "min");
  CHECK(*w.number(min, "Avg iteration time (sec)") == near(0.860002 / 3));
  CHECK(*w.number(min, "Avg training stall time (sec)") == near(0.070002 / 3));
  CHECK(*w.number(min, "Avg delay time (sec)") == near(0.04 / 3));
  CHECK(*w.number(min, "Effective Delay time (%)") == near(100.0 / 3));
  CHECK(*w.number(min, "Avg preprocessing start diff (sec)") == 0);
  CHECK(*w.number(min, "Avg preprocessing diff (sec)") == 0);
  CHECK(*w.number(min, "Saving (sec)") == near(0.36 - 0.860002 / 3));

  const size_t avg = combination(w, "avg", "rank");
  CHECK(*w.number(avg, "Avg iteration time (sec)") == near(0.94 / 3));
  CHECK(*w.number(avg, "Avg training stall time (sec)") == near(0.05));
  CHECK(*w.number(avg, "Avg delay time (sec)") == near(0.025 / 3));
  CHECK(*w.number(avg, "Effective Delay time (%)") == 0);
  CHECK(*w.number(avg, "Avg preprocessing start diff (sec)") == near(0.1 / 3));
  CHECK(*w.number(avg, "Avg preprocessing diff (sec)") == 0);
  CHECK(*w.number(avg, "Saving (%)") == near(100 * (0.36 - 0.94 / 3) / 0.36));

  // Single iterations through the simulation itself: rank/avg of A; min/min of B, where both ranks'
  // stalls go below 0 and become exactly 2e-6 s.
  const CaseTimings ct = std::get<CaseTimings>(case_timings(two_gpus()));
  CHECK(simulate(ct.timings, {5}, Align::rank, Align::avg)[kIterationTime][0] == near(0.445));
  const PerIteration b = simulate(ct.timings, {6}, Align::min, Align::min);
  CHECK(b[kTrainingStall][0] == 0.000002);
  CHECK(b[kDelay][0] == 0);
  CHECK(b[kIterationTime][0] == Approx(0.190002).margin(1e-12));

  SECTION("the plot's table: per case the iteration time of each combination") {
    const Table& p = table(res, "stalls-whatif");
    CHECK(p.detail);
    REQUIRE(p.rows.size() == 1);
    REQUIRE(p.series.size() == 9);
    CHECK(p.series[8].label == "fetch min, start min");
    CHECK(*p.number(0, "Avg iteration time (sec)_min/min") == near(0.860002 / 3));
    CHECK(p.number(0, "Avg iteration time (sec)_std_min/min"));
  }
  SECTION("whatif: picks the combinations") {
    AnalysisResult r = analyze_stalls(
        spec_of(
            "[{name: stalls, scaling: stalls, warmup: 1, skip_iterations: 1, whatif: {fetch: [min], start: "
            "[rank, min]}}]"),
        {two_gpus()});
    const Table& t = table(r, "stalls-whatif-two_gpus");
    REQUIRE(t.rows.size() == 2);
    CHECK(std::get<std::string>(t.rows[1][1]) == "min");
    // The saving is still against rank/rank.
    CHECK(*t.number(1, "Saving (sec)") == near(0.36 - 0.860002 / 3));
  }
}

TEST_CASE("stalls: the per-iteration table has every iteration", "[stalls]") {
  AnalysisResult res = analyze_stalls(kSpec, {two_gpus()});
  const Table& t = table(res, "stalls-two_gpus");
  CHECK(t.detail);
  CHECK(t.columns == std::vector<std::string>{"Iteration", "Epoch", "Index number", "Iteration time (sec)",
                                              "Training Stall time (sec)_gpu0",
                                              "Training Stall time (sec)_gpu1", "Training stall time (sec)",
                                              "Delay time (sec)", "Batch fetch time diff (sec)",
                                              "Batch fetch start time diff (sec)"});
  REQUIRE(t.rows.size() == 8);
  CHECK(t.number(4, "Index number") == 0);
  CHECK(t.number(4, "Delay time (sec)") == near(4.1));  // rank 1's 5 s stall, skipped in the summary
  CHECK(t.number(5, "Index number") == 1);
  CHECK(*t.number(6, "Delay time (sec)") == near(0.115));
  CHECK(*t.number(6, "Batch fetch time diff (sec)") == near(0.2));
  CHECK(*t.number(5, "Training Stall time (sec)_gpu1") == near(0.06));
}

TEST_CASE("stalls: packed series (as the report reads them) give the same tables", "[stalls]") {
  CaseResult rows = two_gpus(), packed = rows;
  packed.metrics.clear();
  std::map<std::string, SampledSeries> by_name;
  for (auto it = rows.metrics.rbegin(); it != rows.metrics.rend(); ++it) {  // steps descending
    SampledSeries& s = by_name[it->name];
    s.name = it->name;
    s.steps.push_back(static_cast<std::int64_t>(*it->step));
    s.values.push_back(it->value);
  }
  for (auto& [_, s] : by_name) packed.sampled.push_back(std::move(s));
  AnalysisResult a = analyze_stalls(kSpec, {rows}), b = analyze_stalls(kSpec, {packed});
  REQUIRE(a.tables.size() == b.tables.size());
  for (size_t i = 0; i < a.tables.size(); ++i) CHECK(a.tables[i].rows == b.tables[i].rows);
}

TEST_CASE("stalls: bad data leaves its case out with the reason, the others go on", "[stalls]") {
  auto without = [](CaseResult c, const std::string& prefix, double iteration) {
    std::erase_if(c.metrics,
                  [&](const MetricRow& m) { return m.name.rfind(prefix, 0) == 0 && m.step == iteration; });
    return c;
  };
  auto changed = [](CaseResult c, const std::string& name, double iteration, double value) {
    for (auto& m : c.metrics)
      if (m.name == name && m.step == iteration) m.value = value;
    return c;
  };
  auto named = [](CaseResult c, const std::string& name) {
    c.name = name;
    return c;
  };
  CaseResult one = two_gpus();
  std::erase_if(one.metrics, [](const MetricRow& m) { return m.name.ends_with(":rank1"); });
  std::vector<CaseResult> cases{
      named(two_gpus(), "good"),
      named(one, "one-rank"),
      named(without(two_gpus(), "", 6), "no-iteration-6"),  // no rank has it: aligned, and fine
      named(
          [&] {
            CaseResult c = two_gpus();
            std::erase_if(c.metrics,
                          [](const MetricRow& m) { return m.name.ends_with(":rank1") && m.step == 6.0; });
            return c;
          }(),
          "rank1-misses-6"),
      named(without(two_gpus(), "fetch_time:rank0", 7), "rank0-no-fetch-7"),
      named(changed(two_gpus(), "training_start:rank1", 6, 1700000010.3), "start-goes-back"),
      named(changed(two_gpus(), "stall_time:rank0", 5, -0.1), "negative-stall"),
      named(changed(two_gpus(), "iteration_epoch:rank1", 4, 0), "epochs-differ"),
      named(changed(two_gpus(), "iteration_epoch:rank0", 5, 0), "epoch-goes-back"),
      named(changed(two_gpus(), "fetch_done:rank0", 5, NAN), "not-a-number"),
  };
  AnalysisResult res = analyze_stalls(kSpec, cases);
  std::map<std::string, std::string> why;
  for (const auto& e : res.excluded) why[e.case_name] = e.reason;
  CHECK(why.size() == 8);
  CHECK(why["one-rank"] == "one rank only (rank 0): DS-Analyzer's delays and what-if compare ranks");
  CHECK(why["rank1-misses-6"] == "rank 1 has no iteration 6, which other ranks have");
  CHECK(why["rank0-no-fetch-7"] == "rank 0, iteration 7: no Fetch time (sec)");
  CHECK(why["start-goes-back"] ==
        "rank 1, iteration 6: Training start (sec) 1700000010.300000 is not after the previous one's "
        "(1700000010.300000)");
  CHECK(why["negative-stall"] == "rank 0, iteration 5: Training Stall time (sec) is negative (-0.100000)");
  CHECK(why["epochs-differ"] == "rank 1, iteration 4: Epoch 0, but rank 0 is in 1");
  CHECK(why["epoch-goes-back"] == "rank 0, iteration 5: Epoch goes back (0 after 1)");
  CHECK_THAT(why["not-a-number"], Contains("Fetch done time (sec) is not a number"));
  // The good case, and the one every rank misses iteration 6 of (the ranks agree; 2 iterations kept).
  const Table& s = table(res, "stalls");
  REQUIRE(s.rows.size() == 2);
  CHECK(std::get<std::string>(s.rows[1][0]) == "no-iteration-6");
  CHECK(s.number(1, "iterations") == 2);
}

TEST_CASE("stalls: the options are checked", "[stalls]") {
  auto error = [](const std::string& yaml) {
    try {
      spec_of(yaml);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error("[{name: s, scaling: stalls, skip_iterations: -1}]"),
             Contains("analyses[0].skip_iterations: must be a whole number"));
  CHECK_THAT(error("[{name: s, scaling: stalls, delay_threshold: -0.1}]"),
             Contains("analyses[0].delay_threshold: must be 0 or more"));
  CHECK_THAT(error("[{name: s, scaling: stalls, whatif: {fetch: [rank, mean]}}]"),
             Contains("analyses[0].whatif.fetch[1]"));
  CHECK_THAT(error("[{name: s, scaling: stalls, whatif: {fetch: []}}]"), Contains("must list one or more"));
  CHECK_THAT(error("[{name: s, scaling: stalls, whatif: {align: [min]}}]"), Contains("align"));
  CHECK_THAT(error("[{name: s, scaling: none, x: a, time: t, skip_iterations: 3}]"),
             Contains("analyses[0].skip_iterations: only for scaling: stalls"));
  CHECK_THAT(error("[{name: s, scaling: stalls, epochs: last}]"),
             Contains("analyses[0].epochs: 'last' is not one of first, all"));
  CHECK_THAT(error("[{name: s, scaling: none, x: a, time: t, epochs: all}]"),
             Contains("analyses[0].epochs: only for scaling: stalls"));
  CHECK(spec_of("[{name: s, scaling: stalls, epochs: all}]").stalls.epochs == StallTableSpec::Epochs::all);
  const AnalysisSpec d = spec_of("[{name: s, scaling: stalls}]");
  CHECK(d.stalls.epochs == StallTableSpec::Epochs::first);  // DS-Analyzer's Epoch == 1
  CHECK(d.stalls.skip_iterations == 11);
  CHECK(d.stalls.delay_threshold == 0.030);
  CHECK(d.stalls.fetch.size() == 3);
  CHECK(d.stalls.start.size() == 3);
}

// DS-Analyzer's notebook keeps `perf_df[perf_df["Epoch"] == 1]` (and the same in its simulation):
// the first epoch after warm-up; `epochs: all` every epoch from warm-up on.
TEST_CASE("stalls: epochs: first keeps the notebook's Epoch == 1, epochs: all every epoch >= warmup",
          "[stalls]") {
  CaseTimings t;
  t.epoch = {0, 0, 0, 1, 1, 1, 2, 2, 2};
  t.index = {0, 1, 2, 0, 1, 2, 0, 1, 2};
  StallTableSpec o;
  o.skip_iterations = 1;
  CHECK(kept_rows(t, 1, o) == std::vector<size_t>{4, 5});
  CHECK(kept_rows(t, 0, o) == std::vector<size_t>{1, 2});
  CHECK(kept_rows(t, 3, o).empty());
  o.epochs = StallTableSpec::Epochs::all;
  CHECK(kept_rows(t, 1, o) == std::vector<size_t>{4, 5, 7, 8});
  CHECK(kept_rows(t, 0, o) == std::vector<size_t>{1, 2, 4, 5, 7, 8});

  // The 2-GPU run with an epoch 2 (iterations 5-7 again, 10 s later): first = epoch 1's 3 iterations.
  CaseResult c = two_gpus();
  const size_t n = c.metrics.size();
  for (size_t i = 0; i < n; ++i) {
    MetricRow m = c.metrics[i];
    if (*m.step < 5) continue;
    m.step = *m.step + 3;
    if (m.name.rfind("iteration_epoch", 0) == 0) m.value = 2;
    if (m.name.rfind("fetch_done", 0) == 0 || m.name.rfind("training_start", 0) == 0) m.value += 10;
    c.metrics.push_back(m);
  }
  const AnalysisSpec first = spec_of("[{name: s, scaling: stalls, skip_iterations: 1}]");
  const AnalysisSpec all = spec_of("[{name: s, scaling: stalls, skip_iterations: 1, epochs: all}]");
  const AnalysisResult by_first = analyze_stalls(first, {c}), by_all = analyze_stalls(all, {c});
  CHECK(table(by_first, "s").number(0, "iterations") == 3);
  CHECK(*table(by_first, "s").number(0, "Avg iteration time (sec)") == near(0.36));
  CHECK(table(by_all, "s").number(0, "iterations") == 5);  // epoch 2's first (index 0) skipped
  CHECK_THAT(kept_epochs(first), Contains("the first epoch >= 1 (epochs: first)"));
  CHECK_THAT(kept_epochs(all), Contains("every epoch >= 1 (epochs: all)"));
}

// Fetch done in whole microseconds (collectors/stalls.yaml, unit us) gives start differences exact to
// the microsecond; as Unix seconds in a double (0.24 us apart) 1 us would read as 0.954 us.
TEST_CASE("stalls: fetch done in microseconds gives exact start differences", "[stalls]") {
  CaseResult c;
  c.name = "us";
  c.state = "collected";
  for (int rank : {0, 1})
    for (int it : {0, 1}) {
      const std::string r = ":rank" + std::to_string(rank);
      const double done_us = 1700000001000000.0 + 1000000.0 * it + rank;  // rank 1 done 1 us later
      c.metrics.push_back({"iteration_epoch" + r, double(it), 1, ""});
      c.metrics.push_back({"fetch_time" + r, double(it), 0.5, "s"});
      c.metrics.push_back({"fetch_done" + r, double(it), done_us, "us"});
      c.metrics.push_back({"training_start" + r, double(it), 1700000001.5 + it, "s"});
      c.metrics.push_back({"iteration_time" + r, double(it), 1, "s"});
      c.metrics.push_back({"stall_time" + r, double(it), 0.1, "s"});
      c.metrics.push_back({"compute_time" + r, double(it), 0.9, "s"});
    }
  const AnalysisSpec spec = spec_of("[{name: s, scaling: stalls, skip_iterations: 0}]");
  const AnalysisResult res = analyze_stalls(spec, {c});
  const Table& s = table(res, "s");
  CHECK(*s.number(0, "Avg preprocessing start diff (sec)") == Approx(1e-6).epsilon(1e-9));
  CHECK(1700000001.000001 - 1700000001.0 != Approx(1e-6).epsilon(1e-9));  // what seconds would give
}
