// Plot data and scripts for each kind of table, and that gnuplot draws them.
#include "report/plot.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>

#include "fixtures.hpp"
#include "report/process.hpp"
#include "report/usage.hpp"
#include "util/strings.hpp"

using namespace campaign::report;
using namespace campaign::analysis;
using fixtures::TempDir;
namespace fs = std::filesystem;

namespace {

AnalysisSpec spec_of(const std::string& yaml) {
  return parse_analyses(YAML::Load("analyses:\n  - " + yaml)["analyses"], "test.yaml").at(0);
}

CaseResult make_case(std::map<std::string, std::string> params, double time) {
  CaseResult c;
  c.name = "c";
  for (const auto& [k, v] : params) c.name += "_" + v;
  c.params = std::move(params);
  c.state = "collected";
  c.metrics = {{"step_time", 0.0, time * 3, "s"}, {"step_time", 1.0, time, "s"}};
  return c;
}

}  // namespace

TEST_CASE("plot data is the table, NaN where a cell is empty", "[report][plot]") {
  Table t;
  t.columns = {"loader", "times", "times_std"};
  t.rows = {{std::string("ring \"buffer\""), 21.5, Cell()}, {std::string("original"), 0.1, 2.0}};
  CHECK(plot_data(t) ==
        "loader times times_std\n"
        "\"ring 'buffer'\" 21.5 NaN\n"
        "\"original\" 0.1 2\n");
}

TEST_CASE("scripts per kind of table", "[report][plot]") {
  std::vector<CaseResult> cases = {make_case({{"ranks", "2"}}, 40), make_case({{"ranks", "4"}}, 21),
                                   make_case({{"ranks", "8"}}, 11)};
  AnalysisResult strong = analyze(spec_of("{name: s, scaling: strong, x: ranks, time: step_time}"), cases);
  std::string gp = plot_script(strong, strong.tables.at(0));
  CHECK_THAT(gp, Catch::Contains("set ylabel \"speedup, log scale\""));
  // Ideal speedup from this series' smallest rank count (2), dashed.
  CHECK_THAT(gp, Catch::Contains("(column(\"ranks\") / 2) with lines lt 1 dt 2"));
  CHECK_THAT(gp, Catch::Contains("set xtics (2, 4, 8)"));
  CHECK_THAT(gp, Catch::Contains("set output \"s.svg\""));
  CHECK_THAT(gp, Catch::Contains("strstrt(GPVAL_TERMINALS, \"pngcairo\")"));

  std::vector<CaseResult> bars = {make_case({{"loader", "a"}, {"data", "real"}}, 3),
                                  make_case({{"loader", "b"}, {"data", "real"}}, 2),
                                  make_case({{"loader", "a"}, {"data", "dummy"}}, 1)};
  AnalysisResult none =
      analyze(spec_of("{name: l, x: loader, time: step_time, compare: {axis: data, baseline: real}}"), bars);
  std::string bgp = plot_script(none, none.tables.at(0));
  CHECK_THAT(bgp, Catch::Contains("set style histogram clustered"));  // no repetitions: no error bars
  CHECK_THAT(bgp, Catch::Contains("data using \"times\":xtic(1) lt 1 title \"real\""));
  CHECK_THAT(bgp, Catch::Contains("data using \"times_dummy\" lt 2 title \"dummy\""));

  Table empty;
  empty.analysis = "e";
  empty.scaling = Scaling::weak;
  empty.x = "ranks";
  empty.columns = {"ranks"};
  CHECK(plot_script(none, empty).empty());
}

TEST_CASE("the usage table's plot: each case's energies side by side, none without one",
          "[report][plot][energy]") {
  using campaign::report::CaseUsage;
  CaseUsage a1, b1, c1;
  a1.case_name = "a";
  a1.metrics = {{"gpu_energy_j", 2816.9}, {"gpus_held", 1}};
  b1.case_name = "b";
  b1.metrics = {{"gpu_energy_j", 1000}, {"gpu_energy_to_train_j", 800}, {"sacct_energy_j", 5000}};
  c1.case_name = "c";
  c1.metrics = {{"cores_used_mean", 1.5}};
  std::vector<CaseUsage> usage{a1, b1};
  auto a = *campaign::report::usage_table(usage);
  std::string gp = plot_script(a, a.tables.at(0));
  CHECK_THAT(gp, Catch::Contains("set output \"usage.svg\""));
  CHECK_THAT(gp, Catch::Contains("data using \"gpu_energy_j\":xtic(1) lt 1 title \"gpu_energy_j\""));
  CHECK_THAT(gp, Catch::Contains("data using \"gpu_energy_to_train_j\" lt 2"));
  CHECK_THAT(gp, Catch::Contains("data using \"sacct_energy_j\" lt 3"));
  CHECK_THAT(gp, !Catch::Contains("cpu_package_energy_share_j"));
  // Usage without any energy: no plot.
  auto cores = *campaign::report::usage_table(std::vector<CaseUsage>{c1});
  CHECK(plot_script(cores, cores.tables.at(0)).empty());
}

namespace {
// The data-loading study's layout (campaigns/data_loading.yaml, loader_ratio): loader x io_limit x
// 3 repetitions, the original loader slower under the tight limit.
std::vector<CaseResult> loader_cases() {
  std::vector<CaseResult> out;
  for (std::string limit : {"0", "50"})
    for (std::string loader : {"original", "ring_buffer"})
      for (int rep = 0; rep < 3; ++rep) {
        double t = (loader == "original" ? (limit == "50" ? 3.0 : 1.2) : 1.0) + 0.1 * rep;
        auto c = make_case({{"io_limit", limit}, {"loader", loader}, {"repeat", std::to_string(rep)}}, t);
        out.push_back(c);
      }
  return out;
}
const char* kLoaderRatio =
    "{name: loader_ratio, x: io_limit, time: step_time, compare: {axis: loader, baseline: original}, "
    "ratio: {axis: loader, numerator: original, denominator: ring_buffer}}";
}  // namespace

TEST_CASE("compared loaders with repetitions: clustered bars per io_limit with std error bars",
          "[report][plot]") {
  AnalysisResult a = analyze(spec_of(kLoaderRatio), loader_cases());
  REQUIRE(a.tables.size() == 1);
  const Table& t = a.tables[0];
  std::string gp = plot_script(a, t);
  CHECK_THAT(gp, Catch::Contains("set style histogram errorbars"));
  // One cluster per io_limit (xtic from the first column), one bar per loader with its std.
  CHECK_THAT(gp, Catch::Contains("data using \"times\":(nz(\"times_std\")):xtic(1) lt 1 title \"original\""));
  CHECK_THAT(
      gp, Catch::Contains(
              "data using \"times_ring_buffer\":(nz(\"times_std_ring_buffer\")) lt 2 title \"ring_buffer\""));
  // The ratio original / ring_buffer above each cluster, over its highest bar plus error bar.
  CHECK_THAT(gp, Catch::Contains("labels: original / ring_buffer time, mean ± std of repetitions"));
  CHECK_THAT(gp, Catch::Contains("data using ($0):(mx(column(\"times\") + nz(\"times_std\"), "
                                 "column(\"times_ring_buffer\") + nz(\"times_std_ring_buffer\"))):"
                                 "(column(\"ratio\") == column(\"ratio\") ? "
                                 "sprintf(\"%.2f ± %.2f\", column(\"ratio\"), nz(\"ratio_std\")) : \"\") "
                                 "with labels offset 0,1 notitle"));
  // Without a ratio, no labels.
  auto plain =
      analyze(spec_of("{name: l, x: io_limit, time: step_time, compare: {axis: loader, baseline: original}}"),
              loader_cases());
  CHECK_THAT(plot_script(plain, plain.tables.at(0)), !Catch::Contains("with labels"));
  std::string dat = plot_data(t);
  CHECK_THAT(dat, Catch::StartsWith("io_limit "));
  CHECK(std::count(dat.begin(), dat.end(), '\n') == 3);  // header + one row per io_limit
}

// Tagged [.gnuplot]: run by ctest as unit_report_gnuplot, skipped there when gnuplot is missing.
TEST_CASE("gnuplot draws strong scaling and compared bars without complaint", "[report][plot][.gnuplot]") {
  auto gnuplot = find_executable("gnuplot", environment_path());
  if (!gnuplot) FAIL("gnuplot is not installed (tools/setup.sh installs it)");
  std::vector<CaseResult> cases = {make_case({{"ranks", "2"}}, 40), make_case({{"ranks", "4"}}, 21),
                                   make_case({{"ranks", "8"}}, 11)};
  std::vector<CaseResult> bars = {make_case({{"loader", "a"}, {"data", "real"}}, 3),
                                  make_case({{"loader", "b"}, {"data", "real"}}, 2),
                                  make_case({{"loader", "a"}, {"data", "dummy"}}, 1)};
  ReportInput in;
  in.analyses.push_back(analyze(spec_of("{name: s, scaling: strong, x: ranks, time: step_time}"), cases));
  in.analyses.push_back(
      analyze(spec_of("{name: l, x: loader, time: step_time, compare: {axis: data, baseline: real}}"), bars));
  in.analyses.push_back(analyze(spec_of(kLoaderRatio), loader_cases()));
  TempDir dir;
  ReportResult r = write_report(in, {Format::md}, dir.path);
  INFO(campaign::join(r.warnings, "\n"));
  CHECK(r.warnings.empty());
  for (const char* f : {"s.svg", "s.png", "l.svg", "l.png", "loader_ratio.svg", "loader_ratio.png"})
    CHECK(fs::file_size(dir.path / f) > 1000);
  // The bar chart is in report.md, and its SVG has error bars (gnuplot draws them as paths).
  std::ifstream md(dir.path / "report.md");
  std::string report((std::istreambuf_iterator<char>(md)), {});
  CHECK_THAT(report, Catch::Contains("(loader_ratio.png)"));
  // Output of gnuplot's own warnings ("no valid points" etc.) would show as text on stderr.
  ProcessResult p =
      run_process({gnuplot->string(), "-e", "fmt='svg'", "l.gp"}, dir.path, std::chrono::seconds(60));
  CHECK(p.exit_code == 0);
  CHECK(p.output.empty());
  ProcessResult q = run_process({gnuplot->string(), "-e", "fmt='svg'", "loader_ratio.gp"}, dir.path,
                                std::chrono::seconds(60));
  CHECK(q.exit_code == 0);
  CHECK(q.output.empty());
}

TEST_CASE("two tables that would share a file name are an error", "[report]") {
  std::vector<CaseResult> cases = {make_case({{"ranks", "1"}, {"p", "a/b"}}, 1),
                                   make_case({{"ranks", "1"}, {"p", "a_b"}}, 1)};
  ReportInput in;
  in.analyses.push_back(analyze(spec_of("{name: s, x: ranks, time: step_time, group_by: [p]}"), cases));
  REQUIRE(in.analyses[0].tables.size() == 2);
  TempDir dir;
  CHECK_THROWS_WITH(write_report(in, {Format::csv}, dir.path),
                    Catch::Contains("two tables would both be written as s-a_b.*"));
}
