// Issue 13 end to end: run directories with the sampler's utilisation file
// (real nvidia-smi samples, tests/data/window/README.md), the epochs file and
// four ranks' stall files are imported and collected into a catalog, read
// back, analysed (window, stalls) and written as a report.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>

#include "analysis/scaling.hpp"
#include "catalog/catalog.hpp"
#include "collect/attempt.hpp"
#include "collect/import.hpp"
#include "fixtures.hpp"
#include "report/input.hpp"
#include "report/process.hpp"
#include "spec/library.hpp"
#include "util/strings.hpp"

using namespace campaign;
using fixtures::slurp;
using fixtures::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(TEST_DATA_DIR) / "window";

const char* kCampaign = R"(name: window-test
matrix:
  loader: [original, ring_buffer]
  io_limit: [0]
  repeat: 2
case_name: run-{{loader}}-r{{repeat}}
job: {command: "true"}
collectors: [epochs, utilisation, stalls]
analyses:
  - {name: util, scaling: window, x: io_limit, compare: {axis: loader, baseline: original}, warmup: 0,
     ratio: {axis: loader, numerator: original, denominator: ring_buffer},
     window: {series: 'utilization:{node}:gpu{i}'}}
  - {name: stalls, scaling: stalls, warmup: 0, skip_iterations: 0}
)";

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// Four ranks, three iterations; rank r fetches iteration i from 99.8 + i + 0.01 r for 0.2 s and
// stalls 0.10 + 0.01 r s: the ranks' stalls differ by up to 0.03 s, their fetch starts too.
void stall_files(const fs::path& dir) {
  for (int r = 0; r < 4; ++r) {
    std::string text =
        "Iteration,Epoch,Fetch time (sec),Fetch done time (sec),Training start (sec),Iteration time "
        "(sec),Training Stall time (sec),Compute time (sec)\n";
    for (int i = 0; i < 3; ++i) {
      double start = 100 + i + 0.01 * r;
      text += std::to_string(i) + ",0,0.2," + std::to_string(start) + "," + std::to_string(start) +
              ",1.0,0.1" + std::to_string(r) + ",0.8\n";
    }
    write(dir / ("stalls-rank" + std::to_string(r) + ".csv"), text);
  }
}

struct Study {
  TempDir tmp;
  std::vector<analysis::AnalysisResult> analyses;
  std::vector<analysis::CaseResult> cases;

  Study() {
    fs::path tree = tmp.path / "results";
    for (const char* loader : {"original", "ring_buffer"})
      for (int k = 1; k <= 2; ++k) {
        fs::path d = tree / ("run-" + std::string(loader) + "-r" + std::to_string(k));
        fs::create_directories(d);
        fs::copy_file(kData / "utilisation-nesi.csv", d / "utilisation-nesi.csv");
        fs::copy_file(kData / "epochs.csv", d / "epochs.csv");
        stall_files(d);
      }
    // Beside the data, so that its collectors/epochs.yaml is found.
    auto c = spec::parse_campaign(kCampaign, (kData / "window-test.yaml").string());
    auto sys =
        spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "local", ".yaml"));
    auto plan = matrix::expand(spec::for_system(c, "local"), sys, (tmp.path / "w").string());
    auto collectors = collect::load_collectors(c);
    Catalog catalog = Catalog::open(tmp.path / "w");
    auto s = collect::import_runs(catalog, plan, tmp.path / "w", tree, collectors);
    REQUIRE(s.collected == 4);
    report::check_analyses(plan, collectors);
    const auto& specs = plan.campaign.analyses;
    auto id = catalog.find_campaign("window-test")->id;
    cases = report::case_results(catalog, id, report::metrics_used(specs), report::sampled_used(specs));
    analyses = analysis::analyze_all(specs, cases);
  }
};

}  // namespace

TEST_CASE("window and stalls from collected files: real nvidia-smi samples, four ranks", "[report][window]") {
  Study st;
  REQUIRE(st.cases.size() == 4);
  // The samples stay packed, in ms, and so do the 4 ranks x 7 stall series; the epochs are metric rows.
  REQUIRE(st.cases[0].sampled.size() == 1 + 4 * 7);
  auto util_series = std::find_if(st.cases[0].sampled.begin(), st.cases[0].sampled.end(),
                                  [](auto& s) { return s.name == "utilization:nesi:gpu0"; });
  REQUIRE(util_series != st.cases[0].sampled.end());
  CHECK(util_series->steps.front() == 1710266668836);
  CHECK(util_series->values == std::vector<double>{0, 0, 28, 32, 30, 26, 0});

  const analysis::AnalysisResult& util = st.analyses.at(0);
  CHECK(util.excluded.empty());
  // Epoch 0 holds 28, 32, 30; epoch 1 holds 26; epoch 2 ends after the last sample. The curve:
  // epoch 1's one value stretched to epoch 0's three, averaged: 27, 29, 28.
  REQUIRE(util.tables.size() == 2);
  CHECK(util.tables[0].number(0, "utilization") == Approx((30 + 26) / 2.0));
  CHECK(util.tables[0].number(0, "ratio") == Approx(1));
  size_t skipped = 0;
  for (const auto& n : util.notes)
    skipped += n.find("epoch 2: no sample of utilization:nesi:gpu0 after its end") != std::string::npos;
  CHECK(skipped == 4);
  CHECK(util.tables[1].stem() == "util-progress");
  REQUIRE(util.tables[1].rows.size() == 3);
  CHECK(util.tables[1].number(1, "utilization_0_original") == Approx(29));
  CHECK(util.tables[1].number(2, "progress_0_ring_buffer") == 100);

  const analysis::AnalysisResult& stalls = st.analyses.at(1);
  REQUIRE(stalls.tables.size() ==
          2 + 4 + 4);  // the summary, the what-if plot's; per case what-if, iterations
  const auto& summary = stalls.tables[0];
  CHECK(summary.number(0, "ranks") == 4);
  CHECK(summary.number(0, "iterations") == 3);
  CHECK(summary.number(0, "Avg iteration time (sec)") == Approx(1.0));
  CHECK(summary.number(0, "Avg training stall time (sec)") == Approx(0.13));
  CHECK(summary.number(0, "Avg delay time (sec)") == Approx(0.03));
  CHECK(summary.number(0, "Avg preprocessing start diff (sec)") == Approx(0.03));
  CHECK(summary.number(0, "Avg preprocessing diff (sec)") == 0);

  // The report: summary tables in report.md, per-rank columns in the CSV, curves as files only.
  report::ReportInput in;
  in.analyses = st.analyses;
  report::ReportOptions no_plots;
  no_plots.search_path = "";
  fs::path out = st.tmp.path / "report";
  report::write_report(in, report::parse_formats("all"), out, no_plots);
  std::string md = slurp(out / "report.md");
  CHECK(md.find("| case | ranks | iterations | Avg iteration time (sec) | Avg iteration time (sec)_std |") !=
        std::string::npos);
  CHECK(md.find("### stalls-whatif: case=run-original-r1") != std::string::npos);
  CHECK(md.find("3 rows of 7 columns, in the CSV and JSON files.") != std::string::npos);
  std::string csv = slurp(out / "stalls-run_original_r1.csv");
  CHECK(csv.rfind("Iteration,Epoch,Index number,Iteration time (sec),Training Stall time (sec)_gpu0,", 0) ==
        0);
  CHECK(csv.find("Training Stall time (sec)_gpu3,Training stall time (sec),Delay time (sec),") !=
        std::string::npos);
  CHECK(fs::exists(out / "stalls-whatif-run_original_r1.csv"));
  CHECK(fs::exists(out / "util-progress.csv"));
  CHECK(fs::exists(out / "util-progress.gp"));
}

TEST_CASE("gnuplot draws the utilisation band and the per-rank stalls", "[report][window][.gnuplot]") {
  Study st;
  report::ReportInput in;
  in.analyses = st.analyses;
  fs::path out = st.tmp.path / "report";
  auto r = report::write_report(in, {report::Format::md, report::Format::html}, out);
  INFO(campaign::join(r.warnings, "\n"));
  CHECK(r.warnings.empty());
  for (const char* stem : {"util", "util-progress", "stalls-run_original_r1", "stalls-whatif"}) {
    INFO(stem);
    CHECK(fs::file_size(out / (std::string(stem) + ".svg")) > 1000);
  }
  CHECK_FALSE(fs::exists(out / "stalls.gp"));  // the summaries have nothing to draw
  CHECK_FALSE(fs::exists(out / "stalls-whatif-run_original_r1.gp"));
  CHECK(slurp(out / "stalls-run_original_r1.dat").rfind("Iteration Epoch \"Index number\"", 0) == 0);
  CHECK(slurp(out / "stalls-whatif.gp").find("errorbars") != std::string::npos);
  CHECK(slurp(out / "util-progress.gp").find("with filledcurves") != std::string::npos);
}
