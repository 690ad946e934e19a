// collect::import_runs over more run directories than one batch: run directories are collected
// ahead on helper threads in the plan's order while the catalog's batches are committed in its own
// order, so each attempt must get its own run's metrics; failures, runs already imported and an
// import resumed from a larger tree are told apart as before.
#include "collect/import.hpp"

#include <catch2/catch.hpp>
#include <chrono>

#include "helpers.hpp"
#include "spec/library.hpp"

using namespace collect_test;
using namespace campaign;

namespace {

// Run k's history: its own numbers, so that a run's metrics given to another attempt show.
std::string history(int k) {
  std::string text = "epoch,loss,time,val_loss\n";
  for (int e = 0; e < 3; ++e)
    text += std::to_string(e) + "," + std::to_string(k) + "," + (k % 97 == 0 ? "x" : std::to_string(k + e)) +
            ",0.5\n";
  return text;
}

}  // namespace

TEST_CASE("import_runs gives each attempt its own run, across batches and a resumed import") {
  TempDir tmp;
  const int n = 1300;  // more than two batches
  std::string yaml = "name: import-test\nmatrix:\n  k: [";
  for (int k = 1; k <= n; ++k) yaml += (k > 1 ? ", " : "") + std::to_string(k);
  yaml += "]\ncase_name: run-{{k}}\njob: {command: \"true\"}\ncollectors: [cosmoflow]\n";
  auto c = spec::parse_campaign(yaml, (repo_root() / "campaigns" / "import-test.yaml").string());
  auto sys = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "local", ".yaml"));
  auto plan = matrix::expand(spec::for_system(c, "local"), sys, (tmp / "w").string(), matrix::Fit::skip);
  auto collectors = collect::load_collectors(c);
  // The first tree holds two runs of three, the second all of them (one level down).
  for (int k = 1; k <= n; ++k) {
    const std::string name = "run-" + std::to_string(k);
    if (k % 3) write_file(tmp / ("first/" + name + "/history.csv"), history(k));
    write_file(tmp / ("second/2024-01-01/" + name + "/history.csv"), history(k));
  }
  Catalog catalog = Catalog::open(tmp / "w");
  auto first = collect::import_runs(catalog, plan, tmp / "w", tmp / "first", collectors);
  const size_t in_first = static_cast<size_t>(n - n / 3), failing_first = 9;  // k = 97j, k % 3 != 0
  CHECK(first.found == in_first);
  CHECK(first.absent == static_cast<size_t>(n / 3));
  CHECK(first.failed == failing_first);
  CHECK(first.collected == in_first - failing_first);
  CHECK(first.errors.size() == failing_first);
  auto second = collect::import_runs(catalog, plan, tmp / "w", tmp / "second", collectors);
  CHECK(second.found == static_cast<size_t>(n));
  CHECK(second.already == in_first);
  CHECK(second.failed == 13 - failing_first);
  CHECK(second.collected + second.failed == static_cast<size_t>(n / 3));

  const std::int64_t id = catalog.find_campaign("import-test")->id;
  size_t checked = 0;
  for (const AttemptRow& a : catalog.latest_attempts(id)) {
    const int k = std::stoi(a.case_name.substr(4));
    INFO(a.case_name);
    CHECK(a.job_name == "import");
    CHECK(a.job_id == ((k % 3 ? tmp / "first" : tmp / "second/2024-01-01") / a.case_name).string());
    if (k % 97 == 0) {
      CHECK(a.state == State::collect_failed);
      CHECK(a.reason.find("'x' is not a number") != std::string::npos);
      continue;
    }
    REQUIRE(a.state == State::collected);
    for (const Metric& m : catalog.metrics_of_attempt(a.id)) {
      if (m.name == "loss") CHECK(m.value == k);
      if (m.name == "epoch_time") CHECK(m.value == k + *m.step);
    }
    CHECK(catalog.metrics_of_attempt(a.id).size() == 9);
    ++checked;
  }
  CHECK(checked == static_cast<size_t>(n - 13));
  // Each import's events in the catalog's order of cases, one batch after another.
  for (const bool in_first_tree : {true, false}) {
    std::int64_t last_event = 0;
    for (const AttemptRow& a : catalog.latest_attempts(id)) {
      if ((std::stoi(a.case_name.substr(4)) % 3 != 0) != in_first_tree) continue;
      const std::int64_t e = catalog.events_of_attempt(a.id).back().id;
      CHECK(e > last_event);
      last_event = e;
    }
  }
  CHECK(catalog.check().empty());
}

TEST_CASE("import_runs takes the newest of a run directory found twice") {
  TempDir tmp;
  auto c = spec::parse_campaign(
      "name: twice\nmatrix:\n  k: [1, 2]\ncase_name: run-{{k}}\njob: {command: \"true\"}\n"
      "collectors: [cosmoflow]\n",
      (repo_root() / "campaigns" / "twice.yaml").string());
  auto sys = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "local", ".yaml"));
  auto plan = matrix::expand(spec::for_system(c, "local"), sys, (tmp / "w").string(), matrix::Fit::skip);
  // run-1 in three timestamped folders, the middle one the newest; run-2 once.
  const auto now = fs::file_time_type::clock::now();
  int k = 0;
  for (const char* folder : {"a", "b", "c"}) {
    write_file(tmp / ("from/" + std::string(folder) + "/run-1/history.csv"), history(10 + k));
    fs::last_write_time(tmp / ("from/" + std::string(folder) + "/run-1"),
                        now - std::chrono::hours(k == 1 ? 1 : 10 + k));
    ++k;
  }
  write_file(tmp / "from/a/run-2/history.csv", history(2));
  Catalog catalog = Catalog::open(tmp / "w");
  auto s = collect::import_runs(catalog, plan, tmp / "w", tmp / "from", collect::load_collectors(c));
  CHECK(s.collected == 2);
  for (const AttemptRow& a : catalog.latest_attempts(catalog.find_campaign("twice")->id)) {
    INFO(a.case_name);
    CHECK(a.job_id == (tmp / (a.case_name == "run-1" ? "from/b/run-1" : "from/a/run-2")).string());
    for (const Metric& m : catalog.metrics_of_attempt(a.id))
      if (m.name == "loss") CHECK(m.value == (a.case_name == "run-1" ? 11 : 2));
  }
}
