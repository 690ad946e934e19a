// The data-stall components of a run's page: a run whose stall files (the
// hand-made 2-GPU run, tests/data/stalls/two_gpus, and a one-rank case) are
// imported into a catalog, found as `campaign site` finds runs, analysed
// with its own campaign's `scaling: stalls` and drawn.
#include "site/stalls.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "../temp_dir.hpp"
#include "collect/attempt.hpp"
#include "collect/import.hpp"
#include "history/runs.hpp"
#include "matrix/plan.hpp"
#include "site/pages.hpp"
#include "spec/library.hpp"

using namespace campaign;
namespace fs = std::filesystem;

namespace {

const char* kCampaign = R"(name: stall-site
matrix:
  data: [two_gpus, one_rank]
case_name: "{{data}}"
job: {command: "true"}
collectors: [stalls]
analyses:
  - {name: stalls, scaling: stalls, warmup: 1, skip_iterations: 1}
)";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("run page: DS-Analyzer's summary, what-if plot and tables of the run's cases") {
  campaign_test::TempDir tmp("stall-site");
  const fs::path data = fs::path(TEST_DATA_DIR) / "stalls" / "two_gpus", tree = tmp.path / "results";
  fs::create_directories(tree / "two_gpus");
  fs::create_directories(tree / "one_rank");
  for (const char* f : {"stalls-rank0.csv", "stalls-rank1.csv"})
    fs::copy_file(data / f, tree / "two_gpus" / f);
  fs::copy_file(data / "stalls-rank0.csv", tree / "one_rank" / "stalls-rank0.csv");
  {
    auto c = spec::parse_campaign(kCampaign,
                                  (fs::path(CAMPAIGN_SOURCE_DIR) / "campaigns" / "stall-site.yaml").string());
    std::ofstream(tmp.path / "stall-site.yaml") << kCampaign;
    auto sys =
        spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "local", ".yaml"));
    auto plan = matrix::expand(spec::for_system(c, "local"), sys, (tmp.path / "w").string());
    Catalog catalog = Catalog::open(tmp.path / "w");
    REQUIRE(
        collect::import_runs(catalog, plan, tmp.path / "w", tree, collect::load_collectors(c)).collected ==
        2);
  }
  history::RunSearch found = history::find_runs({tmp.path}, "stall-site");
  REQUIRE(found.runs.size() == 1);
  Catalog catalog = Catalog::open_for_reading(found.runs[0].workdir);
  std::vector<analysis::AnalysisResult> stalls = site::run_stalls(catalog, found.runs[0]);
  REQUIRE(stalls.size() == 1);

  const std::string h = site::stalls_html(stalls);
  CHECK(h.find("<h2>Data stalls: stalls</h2>") != std::string::npos);
  CHECK(h.find("<th>Avg iteration time (sec)</th>") != std::string::npos);
  CHECK(h.find("<td class=\"num\">0.360000</td>") != std::string::npos);  // stalls_test.cpp works it out
  // The plot: one case, nine bars with their std, nine legend entries.
  CHECK(count(h, "<svg class=\"whatif\"") == 1);
  CHECK(count(h, "<title>two_gpus, fetch ") == 9);
  CHECK(h.find("<title>two_gpus, fetch min, start min: 0.287 ± 0.085 s</title>") != std::string::npos);
  CHECK(h.find("<h3>What-if: case=two_gpus</h3>") != std::string::npos);
  CHECK(h.find("<code>one_rank</code>: one rank only (rank 0)") != std::string::npos);

  site::CampaignSite c;
  c.name = "stall-site";
  site::RunPage r;
  r.run = found.runs[0];
  r.page = "runs/stall-site/run.html";
  r.stalls = stalls;
  c.runs.push_back(r);
  const std::string page = site::run_html(c, 0);
  CHECK(page.find("<h2>Data stalls: stalls</h2>") < page.find("<h2>Report</h2>"));
  c.runs[0].stalls.clear();
  CHECK(site::run_html(c, 0).find("Data stalls") == std::string::npos);
}
