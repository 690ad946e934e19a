// Collection of a case with instances: each instance directory on its own,
// every metric keyed by its instance, a missing instance a failure naming it.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "collect/attempt.hpp"
#include "collect/collect.hpp"
#include "render/script.hpp"

using namespace campaign;
namespace fs = std::filesystem;

namespace {

struct RunDir {
  inline static int made = 0;
  fs::path path = fs::temp_directory_path() /
                  ("campaign-instances-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
  RunDir() { fs::remove_all(path), fs::create_directories(path); }
  ~RunDir() { fs::remove_all(path); }
  // An instance's output: run_start at `start` ms, run_stop `seconds` later with `status`, and the
  // seed record of the MLPerf logging library where `seed` is given.
  void instance(long i, double start, double seconds, const std::string& status, long seed = -1) const {
    fs::path d = path / render::instance_dir(i);
    fs::create_directories(d);
    std::ofstream out(d / render::kInstanceOutput);
    auto rec = [&](double t, const char* type, const char* key, const std::string& meta) {
      out << "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": " << static_cast<long long>(t)
          << ", \"event_type\": \"" << type << "\", \"key\": \"" << key
          << "\", \"value\": null, \"metadata\": {\"file\": \"train.py\", \"lineno\": 1" << meta << "}}\n";
    };
    if (seed >= 0)
      out << "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": " << static_cast<long long>(start)
          << ", \"event_type\": \"POINT_IN_TIME\", \"key\": \"seed\", \"value\": " << seed
          << ", \"metadata\": {\"file\": \"train.py\", \"lineno\": 1}}\n";
    rec(start, "INTERVAL_START", "run_start", "");
    rec(start + seconds * 1000, "INTERVAL_END", "run_stop", ", \"status\": \"" + status + "\"");
  }
};

std::vector<collect::Collector> mlperf_weak() {
  return {collect::load_collector(fs::path(CAMPAIGN_SOURCE_DIR) / "collectors" / "mlperf_weak.yaml")};
}

const Metric* find(const std::vector<Metric>& ms, const std::string& name, long instance) {
  for (auto& m : ms)
    if (m.name == name && m.instance == instance) return &m;
  return nullptr;
}

}  // namespace

TEST_CASE("a case with instances is collected per instance directory, metrics keyed by instance") {
  RunDir run;
  run.instance(0, 1'000'000, 60, "success", 4711);
  run.instance(1, 1'002'000, 75, "aborted");
  run.instance(2, 1'001'000, 50, "success", 12);
  CHECK(collect::instance_count(run.path) == 3);
  std::vector<Metric> ms;
  auto o = collect::collect_dir(run.path, "", mlperf_weak(), ms);
  REQUIRE(o.ok);
  REQUIRE(find(ms, "run_time", 1));
  CHECK(find(ms, "run_time", 1)->value == Approx(75));
  CHECK(find(ms, "run_start_ms", 2)->value == Approx(1'001'000));
  CHECK(find(ms, "run_stop_ms", 2)->value == Approx(1'051'000));
  CHECK(find(ms, "run_success", 0)->value == 1);
  CHECK(find(ms, "run_success", 2)->value == 1);
  // Not a success: no run_success at all (collectors/mlperf_weak.yaml: "absent otherwise").
  CHECK(find(ms, "run_success", 1) == nullptr);
  CHECK(find(ms, "run_time", 1) != nullptr);  // its other metrics are there
  // The seed where an instance logged one (the score leaves out instances that share one).
  CHECK(find(ms, "seed", 0)->value == 4711);
  CHECK(find(ms, "seed", 2)->value == 12);
  CHECK(find(ms, "seed", 1) == nullptr);
  for (auto& m : ms) CHECK(m.instance);
}

TEST_CASE("a case whose instance left no log, or no directory, fails collection naming the instance") {
  RunDir run;
  run.instance(0, 1'000'000, 60, "success");
  fs::create_directories(run.path / render::instance_dir(1));  // started, wrote nothing
  std::vector<Metric> ms;
  auto o = collect::collect_dir(run.path, "", mlperf_weak(), ms);
  CHECK_FALSE(o.ok);
  CHECK_THAT(o.error, Catch::StartsWith("instance-1: "));

  RunDir gap;
  gap.instance(0, 1'000'000, 60, "success");
  gap.instance(2, 1'000'000, 60, "success");
  ms.clear();
  o = collect::collect_dir(gap.path, "", mlperf_weak(), ms);
  CHECK_FALSE(o.ok);
  CHECK_THAT(o.error, Catch::StartsWith("instance-1: ") && Catch::Contains("no such directory"));
}

TEST_CASE("a run directory without instances is collected as before, no metric keyed") {
  RunDir run;
  CHECK(collect::instance_count(run.path) == 0);
  std::ofstream(run.path / "slurm-7.out")
      << ":::MLLOG {\"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", "
         "\"key\": \"run_start\", \"value\": null, \"metadata\": {}}\n"
      << ":::MLLOG {\"time_ms\": 3000, \"event_type\": \"INTERVAL_END\", "
         "\"key\": \"run_stop\", \"value\": null, \"metadata\": "
         "{\"status\": \"success\"}}\n";
  std::vector<Metric> ms;
  auto o = collect::collect_dir(run.path, "7", mlperf_weak(), ms);
  REQUIRE(o.ok);
  REQUIRE(find(ms, "run_time", 0) == nullptr);
  bool found = false;
  for (auto& m : ms) {
    CHECK_FALSE(m.instance);
    if (m.name == "run_time") {
      found = true;
      CHECK(m.value == Approx(2));
    }
  }
  CHECK(found);
}

namespace {

// What the catalog stores of `ms`: its series as SeriesBuilder groups them.
std::vector<MetricSeries> grouped(const std::vector<Metric>& ms) {
  std::vector<MetricSeries> out;
  SeriesBuilder group(out);
  for (const Metric& m : ms) group.add(m.name, m.unit, m.step, m.value, m.instance);
  return out;
}

void check_same(const std::vector<MetricSeries>& a, const std::vector<MetricSeries>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].name == b[i].name);
    CHECK(a[i].unit == b[i].unit);
    CHECK(a[i].instance == b[i].instance);
    CHECK(a[i].stepped == b[i].stepped);
    CHECK(a[i].steps == b[i].steps);
    CHECK(a[i].vals == b[i].vals);
  }
}

}  // namespace

TEST_CASE("collect_series: the series collect_dir's metrics make, per instance or not") {
  RunDir run;
  run.instance(0, 1'000'000, 60, "success", 4711);
  run.instance(1, 1'002'000, 75, "aborted");
  std::vector<Metric> ms;
  REQUIRE(collect::collect_dir(run.path, "", mlperf_weak(), ms).ok);
  std::vector<MetricSeries> series;
  auto o = collect::collect_series(run.path, "", mlperf_weak(), series);
  REQUIRE(o.ok);
  CHECK(o.metrics == ms.size());
  check_same(series, grouped(ms));
  bool instance1 = false;
  for (auto& s : series) instance1 |= s.instance == 1;
  CHECK(instance1);

  // Without instances, from the one scheduler output the directory holds (no job id: an import).
  RunDir plain;
  std::ofstream(plain.path / "slurm-7.out")
      << ":::MLLOG {\"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", "
         "\"key\": \"run_start\", \"value\": null, \"metadata\": {}}\n"
      << ":::MLLOG {\"time_ms\": 3000, \"event_type\": \"INTERVAL_END\", "
         "\"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n";
  fs::create_directories(plain.path / "instance-x");  // not an instance directory
  std::ofstream(plain.path / "instance-3");           // nor is a file
  std::vector<Metric> pm;
  REQUIRE(collect::collect_dir(plain.path, "", mlperf_weak(), pm).ok);
  std::vector<MetricSeries> ps;
  REQUIRE(collect::collect_series(plain.path, "", mlperf_weak(), ps).ok);
  check_same(ps, grouped(pm));
  bool run_time = false;
  for (auto& s : ps) {
    CHECK_FALSE(s.instance);
    run_time |= s.name == "run_time";
  }
  CHECK(run_time);
  CHECK(collect::instance_count(plain.path) == 0);
  CHECK(collect::job_output(plain.path, "", "") == plain.path / "slurm-7.out");

  // A second scheduler output: not knowing which, none is the job's (and its source fails).
  std::ofstream(plain.path / "job-8.out") << "\n";
  CHECK(collect::job_output(plain.path, "", "").empty());
  std::vector<MetricSeries> none;
  CHECK_FALSE(collect::collect_series(plain.path, "", mlperf_weak(), none).ok);
}
