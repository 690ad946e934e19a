// report::case_results over enough cases that their parameters are parsed on a thread of their own
// while the series are read: every case keeps its own parameters and metrics.
#include <catch2/catch.hpp>

#include "catalog/catalog.hpp"
#include "fixtures.hpp"
#include "report/input.hpp"

using namespace campaign;
using fixtures::TempDir;

TEST_CASE("case_results: each of many cases its own parameters and metrics") {
  TempDir tmp;
  Catalog catalog = Catalog::open(tmp.path);
  const std::int64_t id = catalog.upsert_campaign({"many", "name: many\n", "h", "local", tmp.path.string()});
  const int n = 1500;  // above the size from which a thread parses the parameters
  std::vector<CaseRow> rows;
  for (int i = 0; i < n; ++i) {
    CaseRow r;
    r.key = "k" + std::to_string(i);
    r.name = "case-" + std::to_string(i);
    r.params = {{"ranks", i}, {"label", "l" + std::to_string(i % 7)}};
    r.run_dir = (tmp.path / r.name).string();
    rows.push_back(r);
  }
  catalog.sync_cases(id, rows);
  std::vector<Catalog::ImportedRun> runs;
  for (const AttemptRow& a : catalog.latest_attempts(id)) {
    if (a.case_name == "case-3") continue;  // left planned
    const double i = std::stod(a.case_name.substr(5));
    runs.push_back({a.id, a.run_dir, {MetricSeries{"t", "s", std::nullopt, true, {0, 1}, {i, i + 0.5}}}, ""});
  }
  catalog.import_runs(runs);

  auto cases = report::case_results(catalog, id, {"t"});
  REQUIRE(cases.size() == static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const analysis::CaseResult& c = cases[static_cast<size_t>(i)];
    INFO(c.name);
    CHECK(c.name == "case-" + std::to_string(i));
    CHECK(c.params == std::map<std::string, std::string>{{"label", "l" + std::to_string(i % 7)},
                                                         {"ranks", std::to_string(i)}});
    if (i == 3) {
      CHECK(c.state == "planned");
      CHECK(c.metrics.empty());
      continue;
    }
    CHECK(c.state == "collected");
    REQUIRE(c.metrics.size() == 2);
    CHECK(c.metrics[1].value == i + 0.5);
    CHECK(c.metrics[1].step == 1);
  }
}
