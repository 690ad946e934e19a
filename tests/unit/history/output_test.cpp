// `campaign history` output: the terminal table with its verdict line, the
// CSV and JSON a CI job reads, and a plot gnuplot draws without complaint.
#include "history/output.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../temp_dir.hpp"
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
    r.values["scaling-gpu-n4"] = Measured{1.5 * factor[i], "", {}};
    if (!(with_missing && i == 2)) r.values["scaling-cpu-n4"] = Measured{3.0 * factor[i], "", {}};
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
  CHECK(out.find("REGRESSION beyond +10% vs baseline 0123456789: scaling-cpu-n4 at 2123456789 +20.0%; "
                 "scaling-gpu-n4 at 2123456789 +20.0%") != std::string::npos);
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
  CHECK(lines[0] == "series,run,version,date,value,relative,verdict,where");
  CHECK(lines[1] == "scaling-cpu-n4,nightly/2026-01-01,0123456789,2026-01-01 02:00 UTC,3,1,baseline,");
  CHECK(lines[3] == "scaling-cpu-n4,nightly/2026-01-03,2123456789,2026-01-03 02:00 UTC,,,,");
  CHECK(lines[6] ==
        "scaling-gpu-n4,nightly/2026-01-03,2123456789,2026-01-03 02:00 UTC,1.7999999999999998,"
        "1.2,REGRESSION,");
  auto j = nlohmann::json::parse(history_json(d));
  CHECK(j["better"] == "lower");
  CHECK(j["threshold"] == 0.1);
  CHECK(j["regressions"] == nlohmann::json::array({"scaling-gpu-n4"}));
  CHECK(j["series"][0]["points"][2]["value"].is_null());
  CHECK(j["runs"].size() == 3);
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
