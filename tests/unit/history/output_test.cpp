// `campaign history` output: the terminal table with its verdict line, the
// CSV and JSON a CI job reads, and a plot gnuplot draws without complaint.
#include "history/output.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../temp_dir.hpp"
#include "analysis/stats.hpp"
#include "report/process.hpp"
#include "util/strings.hpp"

using namespace campaign::history;
using namespace campaign::report;
namespace fs = std::filesystem;

namespace {

struct TempDir : campaign_test::TempDir {
  TempDir() : campaign_test::TempDir("history") {}
};

// Three runs of two series; the third is 20 % slower (time-like: lower is better).
HistoryDocument three_runs(bool with_missing = false) {
  std::vector<RunValues> runs;
  const double factor[] = {1.0, 1.03, 1.2};
  const char* versions[] = {"0123456789", "1123456789", "2123456789"};
  for (int i = 0; i < 3; ++i) {
    RunValues r;
    r.run = "nightly/2026-01-0" + std::to_string(i + 1);
    r.version = versions[i];
    r.date = "2026-01-0" + std::to_string(i + 1) + " 02:00 UTC";
    r.values["scaling-gpu-n4"] = Measured{1.5 * factor[i], "", 1, std::nullopt};
    if (!(with_missing && i == 2))
      r.values["scaling-cpu-n4"] = Measured{3.0 * factor[i], "", 1, std::nullopt};
    runs.push_back(r);
  }
  HistoryDocument d;
  d.campaign = "cosmoflow";
  d.metric = "epoch_time@ranks=4";
  d.kind = "collected metric epoch_time (mean per case)";
  d.unit = "s";
  d.runs = runs;
  d.baseline = "0123456789";
  d.history = judge(runs, {0}, Better::lower, 0.1);
  return d;
}

}  // namespace

TEST_CASE("history for people: one block per series, the regression named at the end", "[history][output]") {
  HistoryDocument d = three_runs();
  std::ostringstream os;
  print_history(os, d);
  std::string out = os.str();
  INFO(out);
  CHECK(out.find("lower is better") != std::string::npos);
  CHECK(out.find("scaling-cpu-n4\n") != std::string::npos);
  CHECK(out.find("REGRESSION (+20.0%)") != std::string::npos);
  CHECK(out.find("3.090000       1.030 ok") != std::string::npos);
  CHECK(out.find("more than 10% (no repetitions: the threshold alone decides)") != std::string::npos);
  CHECK(out.find("REGRESSION (+20.0%) threshold\n") != std::string::npos);
  CHECK(out.find(
            "REGRESSION beyond +10% vs baseline 0123456789: scaling-cpu-n4 at 2123456789 +20.0% (threshold); "
            "scaling-gpu-n4 at 2123456789 +20.0% (threshold)") != std::string::npos);
  CHECK(failing(d).size() == 2);

  // The latest run without a value for one series: that series is judged on its newest value.
  HistoryDocument m = three_runs(true);
  CHECK(failing(m) == std::vector<std::string>{"scaling-gpu-n4"});
  std::ostringstream os2;
  d.history = judge(d.runs, {0}, Better::lower, 0.25);
  print_history(os2, d);
  CHECK(os2.str().find("no regression") != std::string::npos);
  CHECK(failing(d).empty());
}

TEST_CASE("history CSV and JSON: every run of every series, with the verdicts", "[history][output]") {
  HistoryDocument d = three_runs(true);
  std::string csv = history_csv(d);
  auto lines = campaign::split(csv, '\n');
  CHECK(lines[0] == "series,run,version,date,value,relative,verdict,where,rule,n,mean,std,ci,commit");
  CHECK(lines[1] ==
        "scaling-cpu-n4,nightly/2026-01-01,0123456789,2026-01-01 02:00 UTC,3,1,baseline,,,1,3,,,");
  CHECK(lines[3] == "scaling-cpu-n4,nightly/2026-01-03,2123456789,2026-01-03 02:00 UTC,,,,,,,,,,");
  CHECK(lines[6] ==
        "scaling-gpu-n4,nightly/2026-01-03,2123456789,2026-01-03 02:00 UTC,1.7999999999999998,"
        "1.2,REGRESSION,,threshold,1,1.7999999999999998,,,");
  auto j = nlohmann::json::parse(history_json(d));
  CHECK(j["better"] == "lower");
  CHECK(j["threshold"] == 0.1);
  CHECK(j["regressions"] == nlohmann::json::array({"scaling-gpu-n4"}));
  CHECK(j["series"][0]["points"][2]["value"].is_null());
  CHECK(j["runs"].size() == 3);
}

// Seven runs of three repetitions: a 20 % step at the sixth; the second run has one wild repetition.
HistoryDocument repeated_runs() {
  const std::vector<std::vector<double>> reps = {{10.0, 10.1, 9.9}, {10.0, 9.9, 13.4},  {10.1, 10.0, 9.9},
                                                 {9.9, 10.1, 10.0}, {10.0, 10.0, 10.1}, {12.0, 12.1, 11.9},
                                                 {12.1, 11.9, 12.0}};
  HistoryDocument d;
  for (size_t i = 0; i < reps.size(); ++i) {
    RunValues r;
    const char* version[] = {"v1", "v2", "v3", "v4", "v5", "v6", "v7"};
    const char* commit[] = {"c0ffee0", "c0ffee1", "c0ffee2", "c0ffee3", "c0ffee4", "c0ffee5", "c0ffee6"};
    const char* date[] = {"2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04",
                          "2026-01-05", "2026-01-06", "2026-01-07"};
    r.version = version[i];
    r.run = std::string("night-") + version[i];
    r.commit = commit[i];
    r.date = date[i];
    auto sum = campaign::analysis::summarize(reps[i]);
    r.values["n4"] = Measured{sum.mean, "", sum.count, sum.std};
    d.runs.push_back(r);
  }
  d.campaign = "c";
  d.metric = "run_time@ranks=4";
  d.kind = "collected metric run_time (mean per case)";
  d.unit = "s";
  d.baseline = "v1";
  d.history = judge(d.runs, {0}, Better::lower, 0.1);
  return d;
}

TEST_CASE("history with repetitions: the spread, the rule and the step in the table, CSV and JSON",
          "[history][output]") {
  HistoryDocument d = repeated_runs();
  std::ostringstream os;
  print_history(os, d);
  std::string out = os.str();
  INFO(out);
  CHECK(out.find("and beyond the spread of the repetitions (95% intervals") != std::string::npos);
  CHECK(out.find("run      version date           value n      mean    +-95% vs baseline verdict") !=
        std::string::npos);
  CHECK(out.find("ok (+11.0% within noise)") != std::string::npos);
  CHECK(out.find("REGRESSION (+20.0%)      ci+step\n") != std::string::npos);
  CHECK(out.find("step at v6: mean 10.") != std::string::npos);
  CHECK(out.find("REGRESSION beyond +10% vs baseline v1: n4 at v7 +20.0% (ci+step)") != std::string::npos);

  auto lines = campaign::split(history_csv(d), '\n');
  INFO(lines[7]);
  CHECK(lines[2].find(",ok,,within noise,3,") != std::string::npos);
  CHECK(lines[7].find(",REGRESSION,,ci+step,3,12,0.0999") != std::string::npos);
  CHECK(lines[7].find(",c0ffee6") != std::string::npos);

  auto j = nlohmann::json::parse(history_json(d));
  CHECK(j["noise"]["confidence"] == 0.95);
  const auto& s = j["series"][0];
  CHECK(s["repetitions"] == true);
  CHECK(s["baseline_spread"]["n"] == 3);
  CHECK(s["points"][6]["rule"] == "ci+step");
  CHECK(s["points"][6]["spread"]["n"] == 3);
  CHECK(s["points"][1]["within_noise"] == true);
  REQUIRE(s["steps"].size() == 1);
  CHECK(s["steps"][0]["run"] == 5);
  CHECK(j["runs"][6]["commit"] == "c0ffee6");
}

TEST_CASE("the history plot: relative values, threshold line, regressions marked", "[history][output]") {
  HistoryDocument d = three_runs();
  std::string data = history_plot_data(d);
  CHECK(campaign::split(data, '\n')[0] == "index version date value1 rel1 bad1 value2 rel2 bad2");
  CHECK(data.find("3 \"2123456789\" \"2026-01-03 02:00 UTC\" 3.5999999999999996 1.2 1.2") !=
        std::string::npos);
  std::string gp = history_plot_script(d, "h");
  CHECK(gp.find("limit = 1.1") != std::string::npos);
  CHECK(gp.find("\"bad2\"") != std::string::npos);
}

// Tagged [.gnuplot]: run by ctest as unit_history_gnuplot, skipped there when gnuplot is missing.
TEST_CASE("gnuplot draws the history plot", "[history][output][.gnuplot]") {
  HistoryDocument d = three_runs();
  auto gnuplot = find_executable("gnuplot", environment_path());
  if (!gnuplot) FAIL("gnuplot is not installed (tools/setup.sh installs it)");
  TempDir dir;
  ReportResult r = write_history(d, dir.path, "h");
  INFO(campaign::join(r.warnings, "\n"));
  CHECK(r.warnings.empty());
  CHECK(r.plotted);
  for (const char* f : {"h.csv", "h.json", "h.dat", "h.gp", "h.svg", "h.png"})
    CHECK(fs::exists(dir.path / f));
  CHECK(fs::file_size(dir.path / "h.png") > 1000);
  ProcessResult p =
      run_process({gnuplot->string(), "-e", "fmt='svg'", "h.gp"}, dir.path, std::chrono::seconds(60));
  CHECK(p.exit_code == 0);
  CHECK(p.output.empty());  // no gnuplot warnings
}
