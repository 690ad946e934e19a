// Scaling tables: the CosmoFlow Piz Daint acceptance numbers, comparisons,
// repetitions, strong scaling, aggregate tables and the cases left out.
#include "analysis/scaling.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace campaign::analysis;

namespace {

AnalysisSpec spec_of(const std::string& yaml) {
  auto specs = parse_analyses(YAML::Load("analyses:\n  - " + yaml)["analyses"], "test.yaml");
  REQUIRE(specs.size() == 1);
  return specs[0];
}

// history.csv-like rows (case,data,ranks,epoch,epoch_time) to one case per name.
std::vector<CaseResult> load_history(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  std::vector<CaseResult> cases;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string name, data, ranks, epoch, value;
    std::getline(ss, name, ',');
    std::getline(ss, data, ',');
    std::getline(ss, ranks, ',');
    std::getline(ss, epoch, ',');
    std::getline(ss, value, ',');
    if (cases.empty() || cases.back().name != name) {
      CaseResult c;
      c.name = name;
      c.step = "train";
      c.state = "collected";
      int r = std::stoi(ranks);
      // Not sharded: every rank sees the full 256 + 256 samples.
      c.params = {{"data", data},
                  {"ranks", ranks},
                  {"partition", "gpu"},
                  {"n_train", std::to_string(256 * r)},
                  {"n_valid", std::to_string(256 * r)}};
      c.job_id = std::to_string(1000 + cases.size());
      cases.push_back(c);
    }
    cases.back().metrics.push_back({"epoch_time", std::stod(epoch), std::stod(value), "s"});
  }
  return cases;
}

std::string six(std::optional<double> v) {
  REQUIRE(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", *v);
  return buf;
}

CaseResult make_case(std::string name, std::map<std::string, std::string> params, std::vector<double> epochs,
                     std::string state = "collected") {
  CaseResult c;
  c.name = std::move(name);
  c.params = std::move(params);
  c.state = std::move(state);
  for (size_t i = 0; i < epochs.size(); ++i) c.metrics.push_back({"epoch_time", double(i), epochs[i], "s"});
  return c;
}

const char* kWeak =
    "{name: weak_scaling, scaling: weak, step: train, x: ranks, time: {metric: epoch_time, warmup: 1},\n"
    "     samples: (n_train + n_valid), group_by: [partition], compare: {axis: data, baseline: real}}";

}  // namespace

TEST_CASE("acceptance: Piz Daint GPU weak scaling reproduces the published table", "[analysis][scaling]") {
  auto cases = load_history(TEST_DATA_DIR "/analysis/cosmoflow_daint_gpu_history.csv");
  REQUIRE(cases.size() == 14);
  std::vector<CaseResult> real;
  for (const auto& c : cases) {
    if (c.params.at("data") == "real") real.push_back(c);
  }
  AnalysisResult r =
      analyze(spec_of("{name: weak_scaling, scaling: weak, x: ranks, time: {metric: epoch_time, warmup: 1},"
                      " samples: (n_train + n_valid)}"),
              real);
  CHECK(r.excluded.empty());
  REQUIRE(r.tables.size() == 1);
  const Table& t = r.tables[0];
  CHECK(t.columns == std::vector<std::string>{"ranks", "samples", "times", "throughputs", "ideal", "eff"});
  CHECK(t.stem() == "weak_scaling");
  CHECK(t.units.at("times") == "s");
  CHECK(t.units.at("throughputs") == "samples/s");

  struct Expect {
    double ranks;
    const char *time, *thr, *ideal, *eff;
  };
  // Published: times, throughputs for 1 and 64 ranks, efficiencies for 2 and 64;
  // the rest follow from the formulas.
  const Expect expect[] = {
      {1, "27.585474", "18.560493", "18.560493", "1.000000"},
      {2, "28.193059", "36.320997", "37.120986", "0.978449"},
      {4, "28.447324", "71.992712", "74.241972", "0.969704"},
      {8, "28.971968", "141.378038", "148.483945", "0.952144"},
      {16, "29.003337", "282.450257", "296.967890", "0.951114"},
      {32, "29.266624", "559.818584", "593.935779", "0.942557"},
      {64, "29.642493", "1105.440073", "1187.871559", "0.930606"},
  };
  REQUIRE(t.rows.size() == 7);
  for (size_t i = 0; i < 7; ++i) {
    INFO("ranks " << expect[i].ranks);
    CHECK(t.number(i, "ranks") == expect[i].ranks);
    CHECK(t.number(i, "samples") == 512 * expect[i].ranks);
    CHECK(six(t.number(i, "times")) == expect[i].time);
    CHECK(six(t.number(i, "throughputs")) == expect[i].thr);
    CHECK(six(t.number(i, "ideal")) == expect[i].ideal);
    CHECK(six(t.number(i, "eff")) == expect[i].eff);
  }
}

TEST_CASE("compared groups are merged on ranks with suffixed columns", "[analysis][scaling]") {
  auto cases = load_history(TEST_DATA_DIR "/analysis/cosmoflow_daint_gpu_history.csv");
  AnalysisResult r = analyze(spec_of(kWeak), cases);
  CHECK(r.excluded.empty());  // step filter: load_history marks every case as step train
  REQUIRE(r.tables.size() == 1);
  const Table& t = r.tables[0];
  CHECK(t.stem() == "weak_scaling-gpu");
  CHECK(t.group_label() == "partition=gpu");
  CHECK(t.columns == std::vector<std::string>{"ranks", "samples", "times", "throughputs", "ideal", "eff",
                                              "times_dummy", "throughputs_dummy", "ideal_dummy",
                                              "eff_dummy"});
  REQUIRE(t.series.size() == 2);
  CHECK(t.series[0].label == "real");
  CHECK(t.series[1].suffix == "_dummy");
  REQUIRE(t.rows.size() == 7);
  CHECK(six(t.number(6, "throughputs")) == "1105.440073");
  // The dummy series has its own r0 and ideal line.
  CHECK(six(t.number(0, "ideal_dummy")) == "19.024726");
  CHECK(six(t.number(3, "throughputs_dummy")) == "148.280076");
  CHECK(six(t.number(6, "eff_dummy")) == "0.947134");

  // Cases of another step are out of scope, not excluded.
  auto other = cases;
  for (auto& c : other) c.step = "prepare";
  AnalysisResult none = analyze(spec_of(kWeak), other);
  CHECK(none.tables.empty());
  CHECK(none.excluded.empty());
}

TEST_CASE("failed and incomplete cases are listed with their reason, rows stay", "[analysis][scaling]") {
  auto cases = load_history(TEST_DATA_DIR "/analysis/cosmoflow_daint_gpu_history.csv");
  cases[2].state = "timeout";        // real, 4 ranks
  cases[3].metrics.resize(1);        // real, 8 ranks: only the warm-up epoch
  cases[4].metrics.clear();          // real, 16 ranks: nothing collected
  cases[5].params.erase("n_valid");  // real, 32 ranks: samples cannot be computed
  cases[8].params["ranks"] = "two";  // dummy, 2 ranks
  AnalysisResult r = analyze(spec_of(kWeak), cases);
  REQUIRE(r.excluded.size() == 5);
  CHECK(r.excluded[0].case_name == "cosmo_real_r4");
  CHECK(r.excluded[0].state == "timeout");
  CHECK(r.excluded[0].reason == "state is timeout");
  CHECK(r.excluded[1].reason == "no 'epoch_time' at steps >= 1 (after warm-up)");
  CHECK(r.excluded[2].reason == "no metric 'epoch_time'");
  CHECK(r.excluded[3].reason == "samples: parameter 'n_valid' is not set");
  CHECK(r.excluded[4].reason == "ranks = 'two' is not a positive number");

  const Table& t = r.tables.at(0);
  REQUIRE(t.rows.size() == 7);  // the dummy series still has 4..32 ranks
  CHECK_FALSE(t.number(2, "times"));
  CHECK(t.number(2, "times_dummy"));
  CHECK_FALSE(t.number(1, "times_dummy"));
  CHECK(six(t.number(6, "eff")) == "0.930606");  // r0 = 1 is still there
}

TEST_CASE("repetitions give mean, sample std, min, median and count", "[analysis][scaling]") {
  std::vector<CaseResult> cases;
  // ranks 1: times 10, 12, 14 (after the warm-up 100); ranks 2: 11, 13.
  const double t1[] = {10, 12, 14}, t2[] = {11, 13};
  for (int i = 0; i < 3; ++i)
    cases.push_back(make_case(
        "a" + std::to_string(i),
        {{"ranks", "1"}, {"repeat", std::to_string(i)}, {"seed", std::to_string(7 * i)}}, {100, t1[i]}));
  for (int i = 0; i < 2; ++i)
    cases.push_back(
        make_case("b" + std::to_string(i),
                  {{"ranks", "2"}, {"repeat", std::to_string(i)}, {"seed", std::to_string(7 * i)}},
                  {100, t2[i], t2[i]}));
  auto spec = spec_of(
      "{name: w, scaling: weak, x: ranks, time: epoch_time, samples: '120 * ranks',"
      " aggregate: [mean, std, min, median, count]}");
  AnalysisResult r = analyze(spec, cases);
  CHECK(r.notes.empty());  // seed changes with repeat only: no extra dimension
  REQUIRE(r.tables.size() == 1);
  const Table& t = r.tables[0];
  CHECK(t.columns == std::vector<std::string>{"ranks", "samples", "times", "times_std", "times_min",
                                              "times_median", "throughputs", "throughputs_std",
                                              "throughputs_min", "throughputs_median", "ideal", "eff",
                                              "count"});
  CHECK(t.number(0, "times") == 12);
  CHECK(t.number(0, "times_std") == Approx(2.0));
  CHECK(t.number(0, "times_min") == 10);
  CHECK(t.number(0, "times_median") == 12);
  CHECK(t.number(0, "count") == 3);
  // Throughput = samples / the mean time (not the mean of 12, 10, 120/14, which is 10.19); its std
  // propagated from the times': 120 * 2 / 12^2; min and median from the times' max and median.
  const double thr_mean = 120.0 / 12;
  CHECK(*t.number(0, "throughputs") == Approx(thr_mean));
  CHECK(*t.number(0, "throughputs_std") == Approx(120.0 * 2 / 144));
  CHECK(*t.number(0, "throughputs_min") == Approx(120.0 / 14));
  CHECK(t.number(0, "throughputs_median") == 10);
  CHECK(*t.number(1, "times_std") == Approx(std::sqrt(2.0)));
  CHECK(*t.number(1, "throughputs") == Approx(240.0 / 12));
  CHECK(*t.number(1, "throughputs_std") == Approx(240.0 * std::sqrt(2.0) / 144));
  CHECK(*t.number(1, "ideal") == Approx(2 * thr_mean));
  CHECK(*t.number(1, "eff") == Approx(240.0 / 12 / (2 * thr_mean)));

  SECTION("automatic aggregates add std and count only when something repeats") {
    spec.aggregate.clear();
    CHECK(analyze(spec, cases).tables[0].columns ==
          std::vector<std::string>{"ranks", "samples", "times", "times_std", "throughputs", "throughputs_std",
                                   "ideal", "eff", "count"});
    std::vector<CaseResult> once = {cases[0], cases[3]};
    CHECK(analyze(spec, once).tables[0].columns ==
          std::vector<std::string>{"ranks", "samples", "times", "throughputs", "ideal", "eff"});
  }
}

TEST_CASE("an unnamed parameter that varies splits the tables and says so", "[analysis][scaling]") {
  std::vector<CaseResult> cases;
  for (std::string bs : {"32", "64"}) {
    for (std::string r : {"1", "2", "4"}) {
      // nodes follows ranks: it must not split anything.
      cases.push_back(make_case("c" + bs + r, {{"ranks", r}, {"nodes", r == "4" ? "2" : "1"}, {"batch", bs}},
                                {5, bs == "32" ? 1.0 : 2.0}));
    }
  }
  AnalysisResult r = analyze(
      spec_of("{name: s, scaling: strong, x: ranks, time: epoch_time, group_by: [], repeat: rep}"), cases);
  REQUIRE(r.tables.size() == 2);
  REQUIRE(r.notes.size() == 1);
  CHECK_THAT(r.notes[0], Catch::Contains("batch") && !Catch::Contains("nodes"));
  CHECK(r.tables[0].group_label() == "batch=32");
  CHECK(r.tables[1].stem() == "s-64");
  CHECK(r.tables[1].number(2, "times") == 2.0);
}

TEST_CASE("strong scaling: speedup and efficiency from times", "[analysis][scaling]") {
  std::vector<CaseResult> cases = {
      make_case("r2", {{"ranks", "2"}}, {9, 50}),
      make_case("r4", {{"ranks", "4"}}, {9, 27}),
      make_case("r8", {{"ranks", "8"}}, {9, 16}),
  };
  AnalysisResult r = analyze(spec_of("{name: s, scaling: strong, x: ranks, time: epoch_time}"), cases);
  const Table& t = r.tables.at(0);
  CHECK(t.columns == std::vector<std::string>{"ranks", "times", "speedup", "eff"});
  CHECK(t.number(0, "speedup") == 1);
  CHECK(t.number(0, "eff") == 1);
  CHECK(*t.number(1, "speedup") == Approx(50.0 / 27));
  CHECK(*t.number(2, "eff") == Approx(50.0 / 16 * 2 / 8));

  AnalysisResult with_samples =
      analyze(spec_of("{name: s, scaling: strong, x: ranks, time: epoch_time, samples: '1000'}"), cases);
  const Table& ts = with_samples.tables.at(0);
  CHECK(ts.columns ==
        std::vector<std::string>{"ranks", "samples", "times", "throughputs", "speedup", "ideal", "eff"});
  CHECK(*ts.number(2, "ideal") == Approx(1000.0 / 50 * 4));
  // Constant work: eff from speedup equals throughput / ideal.
  CHECK(*ts.number(2, "eff") == Approx(*ts.number(2, "throughputs") / *ts.number(2, "ideal")));
}

TEST_CASE("aggregate table with ratio and data-stall fraction", "[analysis][scaling]") {
  std::vector<CaseResult> cases;
  auto add = [&](std::string loader, int rep, double time, double data, double compute) {
    CaseResult c = make_case(loader + std::to_string(rep),
                             {{"loader", loader}, {"repeat", std::to_string(rep)}}, {99, time, time});
    if (data >= 0) {
      c.metrics.push_back({"data_time", 0.0, 50, "s"});  // warm-up, dropped
      c.metrics.push_back({"data_time", 1.0, data, "s"});
      c.metrics.push_back({"compute_time", 1.0, compute, "s"});
    }
    cases.push_back(c);
  };
  add("original", 0, 30, 15, 15);
  add("original", 1, 34, 20, 14);
  add("ring_buffer", 0, 20, 2, 18);
  add("ring_buffer", 1, 20, -1, 0);  // no stall metrics
  add("ring_buffer", 2, 23, 3, 20);
  cases.push_back(make_case("failed", {{"loader", "original"}, {"repeat", "2"}}, {}, "failed"));

  YAML::Node doc = YAML::LoadFile(TEST_DATA_DIR "/analysis/analyses.yaml");
  AnalysisSpec spec = parse_analyses(doc["analyses"], "analyses.yaml").at(1);
  AnalysisResult r = analyze(spec, cases);
  REQUIRE(r.excluded.size() == 1);
  CHECK(r.excluded[0].case_name == "failed");
  const Table& t = r.tables.at(0);
  CHECK(t.columns == std::vector<std::string>{"loader", "times", "times_std", "stall", "stall_std", "ratio",
                                              "ratio_std", "count"});
  REQUIRE(t.rows.size() == 2);
  CHECK(std::get<std::string>(t.rows[0][0]) == "original");
  CHECK(t.number(0, "times") == 32);
  CHECK(t.number(1, "times") == 21);
  CHECK(t.number(1, "count") == 3);
  CHECK(*t.number(0, "stall") == Approx((0.5 + 20.0 / 34) / 2));
  CHECK(*t.number(1, "stall") == Approx((0.1 + 3.0 / 23) / 2));
  CHECK(*t.number(0, "ratio") == Approx(32.0 / 21));
  CHECK_FALSE(t.number(1, "ratio"));
  double rel0 = std::sqrt(8.0) / 32, rel1 = std::sqrt(3.0) / 21;
  CHECK(*t.number(0, "ratio_std") == Approx(32.0 / 21 * std::sqrt(rel0 * rel0 + rel1 * rel1)));
  REQUIRE(t.notes.size() == 1);
  CHECK_THAT(t.notes[0],
             Catch::StartsWith("times(loader=original) / times(loader=ring_buffer) = 1.523810 ± "));
}

TEST_CASE("ratio along the compare axis is a column per row", "[analysis][scaling]") {
  auto cases = load_history(TEST_DATA_DIR "/analysis/cosmoflow_daint_gpu_history.csv");
  std::string yaml = kWeak;
  yaml.insert(yaml.size() - 1, ", ratio: {axis: data, numerator: real, denominator: dummy}");
  AnalysisResult r = analyze(spec_of(yaml), cases);
  const Table& t = r.tables.at(0);
  CHECK(t.columns.back() == "ratio");
  CHECK(*t.number(0, "ratio") == Approx(27.585474 / 26.912345));
}

TEST_CASE("missing baseline is noted and its columns stay empty", "[analysis][scaling]") {
  auto cases = load_history(TEST_DATA_DIR "/analysis/cosmoflow_daint_gpu_history.csv");
  std::vector<CaseResult> dummy(cases.begin() + 7, cases.end());
  AnalysisResult r = analyze(spec_of(kWeak), dummy);
  const Table& t = r.tables.at(0);
  CHECK(t.has("times"));
  CHECK(t.has("times_dummy"));
  CHECK_FALSE(t.number(0, "times"));
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0] == "no usable cases with data=real");
}

// Its speed is a benchmark's (bench/import_bench), not a test's: no verdict here depends on timing.
TEST_CASE("10,000 cases x 100 epochs are tabulated: ten rank counts, 250 runs each", "[analysis][scaling]") {
  std::vector<CaseResult> cases;
  cases.reserve(10000);
  const std::vector<std::string> ranks = {"1", "2", "4", "8", "16", "32", "64", "128", "256", "512"};
  for (int i = 0; i < 10000; ++i) {
    CaseResult c;
    c.name = "case" + std::to_string(i);
    c.step = "train";
    c.state = "collected";
    const std::string& r = ranks[i % 10];
    c.params = {{"ranks", r},
                {"partition", i % 20 < 10 ? "gpu" : "mc"},
                {"data", i % 40 < 20 ? "real" : "dummy"},
                {"repeat", std::to_string(i / 40)},
                {"n_train", "256"},
                {"n_valid", "256"},
                {"nodes", r}};
    c.metrics.reserve(100);
    for (int e = 0; e < 100; ++e)
      c.metrics.push_back({"epoch_time", double(e), 20.0 + (i % 7) + e * 0.01, "s"});
    cases.push_back(std::move(c));
  }
  auto spec = spec_of(
      "{name: w, scaling: weak, x: ranks, time: epoch_time, samples: (n_train + n_valid) * ranks,"
      " group_by: [partition], compare: {axis: data, baseline: real}}");
  AnalysisResult r = analyze(spec, cases);
  REQUIRE(r.tables.size() == 2);
  CHECK(r.excluded.empty());
  CHECK(r.tables[0].rows.size() == 10);
  CHECK(r.tables[0].number(0, "count") == 250);
}

TEST_CASE("cases without the analysis' parameters are another study's, and counted", "[analysis][scaling]") {
  std::vector<CaseResult> cases = {
      make_case("a", {{"ranks", "1"}}, {9, 10}),
      make_case("b", {{"loader", "x"}}, {9, 10}),
      make_case("c", {{"loader", "y"}}, {}, "failed"),
  };
  AnalysisResult r = analyze(spec_of("{name: s, scaling: strong, x: ranks, time: epoch_time}"), cases);
  CHECK(r.excluded.empty());
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0] == "2 case(s) without parameter 'ranks' are not part of this analysis");
  REQUIRE(r.tables.size() == 1);
  CHECK(r.tables[0].rows.size() == 1);
}
