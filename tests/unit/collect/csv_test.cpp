// The csv engine on good files, and cut at every byte.
#include <catch2/catch.hpp>

#include "collect/engines.hpp"
#include "helpers.hpp"

using namespace collect_test;
using campaign::collect::collect;
using campaign::collect::CollectError;
using Catch::Matchers::Contains;

namespace {

const char* kHistory = R"(
sources:
  - engine: csv
    file: history.csv
    step: epoch
    metrics:
      - {column: time, name: epoch_time, unit: s}
      - loss
      - val_loss
)";

}  // namespace

TEST_CASE("csv: Keras history.csv with CRLF line ends, one metric per column and epoch", "[csv]") {
  TempDir run;
  fs::copy_file(data("keras/history.csv"), run / "history.csv");
  auto r = collect({collector(kHistory)}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(r.files == std::vector<std::string>{"history.csv"});
  CHECK(r.metrics.size() == 30);
  CHECK(count(r, "epoch_time") == 10);
  CHECK(value(r, "epoch_time", 0.0) == Approx(31.84));
  CHECK(value(r, "epoch_time", 9.0) == Approx(28.45));
  CHECK(value(r, "loss", 0.0) == Approx(0.9));
  CHECK(value(r, "val_loss", 1.0) == Approx(0.95 * std::exp(-0.18)).epsilon(1e-5));
  for (const auto& m : r.metrics) CHECK(m.unit == (m.name == "epoch_time" ? "s" : ""));
  CHECK_FALSE(value(r, "lr", 0.0));  // not mapped
}

TEST_CASE("csv: options - no step column, delimiter, scale, optional and empty cells", "[csv]") {
  TempDir run;
  write_file(run / "t.tsv",
             "iter\tms\tfoo\n"
             "7\t1500\t\n"
             "8\t\"2500\"\t3\n");
  auto c = collector(R"(
sources:
  - engine: csv
    file: t.tsv
    delimiter: "\t"
    metrics:
      - {column: ms, name: t, unit: s, scale: 0.001}
      - foo
      - {column: missing, optional: true}
)");
  auto r = collect({c}, run.path());
  CHECK(r.warnings.empty());
  CHECK(value(r, "t", 0.0) == Approx(1.5));  // no step column: the row index
  CHECK(value(r, "t", 1.0) == Approx(2.5));  // quoted cell
  CHECK_FALSE(value(r, "foo", 0.0));         // empty cell: no value, no fuss
  CHECK(value(r, "foo", 1.0) == 3);
  CHECK(r.metrics.size() == 3);
}

TEST_CASE("csv: quoted header names and UTF-8 byte order mark", "[csv]") {
  TempDir run;
  write_file(run / "h.csv", "\xEF\xBB\xBF\"epoch\",\"a,b\"\n0,1\n1,2\n");
  auto r = collect({collector(R"(
sources: [{engine: csv, file: h.csv, step: epoch, metrics: [{column: "a,b", name: ab}]}]
)")},
                   run.path());
  CHECK(value(r, "ab", 1.0) == 2);
}

TEST_CASE("csv: errors name file, line and column", "[csv]") {
  TempDir run;
  write_file(run / "history.csv", "epoch,loss,time,val_loss\n0,0.5,30,0.6\n1,0.4,x1,0.5\n");
  try {
    collect({collector(kHistory)}, run.path());
    FAIL("expected CollectError");
  } catch (const CollectError& e) {
    CHECK(e.where().file == "history.csv");
    CHECK(e.where().line == 3);
    CHECK_THAT(e.what(), Contains("history.csv:3: column 'time' (3): 'x1' is not a number"));
  }
}

// ninja's spirit: a history.csv cut at every byte (a copy taken while the job
// writes) gives exactly the complete rows, never a wrong value or a crash.
TEST_CASE("csv: a file cut at every byte yields exactly its complete rows", "[csv][cut]") {
  const std::string full = read_text(data("keras/history.csv"));
  const auto c = collector(kHistory);
  const auto spec = std::get<campaign::collect::CsvSpec>(c.sources.at(0)->spec);
  TempDir run;
  write_file(run / "history.csv", full);
  const auto reference = collect({c}, run.path());
  REQUIRE(reference.metrics.size() == 30);
  for (size_t cut = 0; cut <= full.size(); ++cut) {
    const std::string text = full.substr(0, cut);
    std::vector<campaign::collect::Metric> metrics;
    std::vector<std::string> warnings;
    campaign::collect::Warnings w(warnings);
    campaign::collect::Output out{metrics, w};
    INFO("cut at " << cut);
    size_t complete_rows = 0;
    for (size_t i = 0; i < cut; ++i) complete_rows += text[i] == '\n';
    complete_rows = complete_rows > 0 ? complete_rows - 1 : 0;  // minus the header
    try {
      campaign::collect::run_csv(spec, {"history.csv", text}, out);
      REQUIRE(metrics.size() == 3 * complete_rows);
      // Every value present is the value of the full file.
      for (const auto& m : metrics) {
        REQUIRE(m.step.value() < static_cast<double>(complete_rows));
        REQUIRE(value(reference, m.name, m.step) == m.value);
      }
    } catch (const CollectError& e) {
      // Only possible while the header itself is incomplete.
      REQUIRE(complete_rows == 0);
      CHECK(cut < full.find('\n') + 1);
    }
  }
}

// Issue 13, format 3: the sampler's utilisation-<host>.csv, one series per host and device,
// steps as exact milliseconds since the epoch.
TEST_CASE("csv: utilisation samples - a series per file and device, steps in milliseconds", "[csv]") {
  TempDir run;
  write_file(run / "utilisation-nid001.csv",
             "time,device,utilization\n"
             "1764075600.123,gpu0,10\n"
             "1764075600.123,gpu1,20\n"
             "1764075600.223,gpu0,30\n"
             "1764075600.223,gpu1,40\n"
             "1764075600.323,cpu,55.5\n");
  write_file(run / "utilisation-nid002.csv", "time,device,utilization\n1764075600.2,gpu0,70\n");
  auto r =
      collect({campaign::collect::load_collector(repo_root() / "collectors/utilisation.yaml")}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());  // a timestamp shared by two devices is no duplicate
  CHECK(r.files == std::vector<std::string>{"utilisation-nid001.csv", "utilisation-nid002.csv"});
  // 1764075600.123 * 1000 is 1764075600122.9999 in binary: rounded, not cut.
  CHECK(value(r, "utilization:nid001:gpu0", 1764075600123.0) == 10);
  CHECK(value(r, "utilization:nid001:gpu0", 1764075600223.0) == 30);
  CHECK(value(r, "utilization:nid001:gpu1", 1764075600223.0) == 40);
  CHECK(value(r, "utilization:nid001:cpu", 1764075600323.0) == 55.5);
  CHECK(value(r, "utilization:nid002:gpu0", 1764075600200.0) == 70);
  CHECK(r.metrics.size() == 6);
  for (const auto& m : r.metrics) CHECK(m.unit == "%");
  // Each series comes in one run, in file order.
  CHECK(r.metrics[0].name == "utilization:nid001:gpu0");
  CHECK(r.metrics[1].name == "utilization:nid001:gpu0");
}

TEST_CASE("csv: a duplicate step is looked for within each series", "[csv]") {
  TempDir run;
  write_file(run / "u-a.csv", "time,device,utilization\n1,gpu0,10\n1,gpu1,20\n1,gpu0,30\n2,,5\n");
  auto r = collect({collector(R"(
sources: [{engine: csv, file: 'u-*.csv', multiple: all, step: time, metrics: [{column: utilization, name: 'u:{*}:{device}'}]}]
)")},
                   run.path());
  CHECK(value(r, "u:a:gpu0", 1.0) == 30);  // the later row wins, as for one series
  CHECK(value(r, "u:a:gpu1", 1.0) == 20);
  CHECK(has_warning(r, "u-a.csv:4: step 1 also on line 2"));
  CHECK(has_warning(r, "u-a.csv:5: a column the metric names use is empty; row ignored"));
  CHECK(r.metrics.size() == 2);
}

// Issue 13, format 2: the per-rank stall files, one series per column and rank.
TEST_CASE("csv: per-rank stall files - the rank from the file name", "[csv]") {
  TempDir run;
  const std::string header =
      "Iteration,Epoch,Fetch time (sec),Fetch done time (sec),Training start (sec),Iteration time "
      "(sec),Training Stall time (sec),Compute time (sec)\n";
  write_file(run / "stalls-rank0.csv",
             header + "0,0,0.5,100.5,100.5,0.9,0.5,0.4\n1,0,0.1,101.0,101.0,0.5,0.1,0.4\n");
  write_file(run / "stalls-rank1.csv",
             header + "0,0,0.6,100.6,100.7,1.0,0.6,0.4\n1,0,0.2,101.1,101.1,0.5,0.2,0.4\n");
  auto r = collect({campaign::collect::load_collector(repo_root() / "collectors/stalls.yaml")}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(value(r, "fetch_time:rank0", 0.0) == 0.5);
  CHECK(value(r, "fetch_done:rank1", 1.0) == 101100000);  // whole microseconds (unit us)
  CHECK(value(r, "training_start:rank1", 0.0) == 100.7);
  CHECK(value(r, "stall_time:rank1", 1.0) == 0.2);
  CHECK(value(r, "iteration_epoch:rank0", 1.0) == 0);
  CHECK(r.metrics.size() == 2 * 2 * 7);
}

TEST_CASE("csv: no sampler or stall file is no collection error", "[csv]") {
  TempDir run;
  write_file(run / "history.csv", "epoch,time\n0,3\n");
  auto r = collect({campaign::collect::load_collector(repo_root() / "collectors/utilisation.yaml"),
                    campaign::collect::load_collector(repo_root() / "collectors/stalls.yaml")},
                   run.path());
  CHECK(r.metrics.empty());
  CHECK(r.warnings.empty());
}

// A power-of-ten scale moves the decimal point of the text: 6 decimals of Unix seconds times 1e6 are
// whole microseconds, exactly.
TEST_CASE("input: parse_scaled reads decimals times a power of ten exactly", "[csv]") {
  using campaign::collect::parse_scaled;
  CHECK(*parse_scaled("1700000001.123457", 1e6) == 1700000001123457.0);
  CHECK(*parse_scaled(" 1765000000.000001 ", 1e6) == 1765000000000001.0);
  CHECK(*parse_scaled("1.7e9", 1e6) == 1.7e15);
  CHECK(*parse_scaled("-0.5", 1e3) == -500);
  CHECK(*parse_scaled("1500", 1e-3) == 1.5);
  CHECK(*parse_scaled("2.5", 4) == 10);  // not a power of ten: the product
  CHECK(std::isnan(*parse_scaled("nan", 1e6)));
  CHECK(!parse_scaled("x", 1e6));
}
