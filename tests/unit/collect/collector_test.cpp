// Collector YAML: the shipped collectors load, and every mistake in a
// collector is an InputError with file:line:col, the key, and a hint.
#include <catch2/catch.hpp>

#include "collect/source.hpp"
#include "helpers.hpp"

using namespace collect_test;
using campaign::InputError;
using campaign::collect::Engine;
using campaign::collect::load_collector;
using campaign::collect::parse_collector;

TEST_CASE("collector: every shipped collector loads", "[collector]") {
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator(repo_root() / "collectors")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().filename().string());
    auto c = load_collector(entry.path());
    CHECK(c.name == entry.path().stem().string());
    CHECK_FALSE(c.description.empty());
    CHECK_FALSE(c.sources.empty());
    ++n;
  }
  CHECK(n >= 4);
}

TEST_CASE("collector: the shipped collectors say what they read", "[collector]") {
  auto cosmo = load_collector(repo_root() / "collectors/cosmoflow.yaml");
  REQUIRE(cosmo.sources.size() == 3);  // history.csv, mlperf.log, and run_stop's status in it
  CHECK(cosmo.sources[0]->engine == Engine::csv);
  CHECK(cosmo.sources[0]->file == "history.csv");
  CHECK(cosmo.sources[0]->required);
  CHECK(cosmo.sources[1]->engine == Engine::mllog);
  CHECK_FALSE(cosmo.sources[1]->required);
  const auto& csv = std::get<campaign::collect::CsvSpec>(cosmo.sources[0]->spec);
  CHECK(csv.step == "epoch");
  CHECK(csv.columns.at(0).name == "epoch_time");
  CHECK(csv.columns.at(0).unit == "s");

  auto mlperf = load_collector(repo_root() / "collectors/mlperf.yaml");
  CHECK(mlperf.sources.at(0)->from_stdout);
  auto timers = load_collector(repo_root() / "collectors/timers.yaml");
  auto tau_collector = load_collector(repo_root() / "collectors/tau.yaml");
  CHECK(tau_collector.sources.at(0)->engine == Engine::tau);
  CHECK(tau_collector.component_metric == "tau_exclusive:{routine}");
  CHECK(tau_collector.component_rank_metric == "tau_exclusive_rank:{routine}");
  CHECK(tau_collector.component_percent_of == "tau_application_time");
  REQUIRE(tau_collector.components.size() == 1);
  CHECK(tau_collector.components[0].name == "mpi");
  auto nsys = load_collector(repo_root() / "collectors/nsys.yaml");
  CHECK(nsys.sources.at(0)->engine == Engine::nsys);
  CHECK(nsys.sources.at(0)->multiple == campaign::collect::Multiple::all);
  CHECK(nsys.components.empty());
  const auto& mean = std::get<campaign::collect::RegexSpec>(timers.sources.at(0)->spec);
  CHECK(mean.patterns.at(0).literal == "Mean epoch time: ");  // the derived prefilter
  auto gpu = load_collector(repo_root() / "collectors/gpu-util.yaml");
  CHECK(gpu.sources.at(0)->multiple == campaign::collect::Multiple::all);
}

TEST_CASE("collector: the literal a regex needs is derived conservatively", "[collector]") {
  // A line without the literal is never tried, so a literal too long would lose matches.
  const std::pair<const char*, const char*> cases[] = {
      {"Mean epoch time: ([0-9.]+)", "Mean epoch time: "},
      {"a|b", ""},
      {"(x|y)=\\d+ loss", " loss"},
      {"abc?d", "ab"},
      {"ab+c", "ab"},
      {"x{2}yz", "yz"},
      {"\\x41BC", "BC"},
      {"[Mm]ean: (\\d+)", "ean: "},
      {"a\\|b\\.c", "a|b.c"},
      {"^(?<v>\\d+)$", ""},
  };
  for (const auto& [re, literal] : cases) {
    INFO(re);
    YAML::Node n =
        YAML::Load("sources: [{engine: regex, stdout: true, patterns: [{name: x, reduce: count}]}]");
    n["sources"][0]["patterns"][0]["regex"] = re;
    auto c = parse_collector(n, "t.yaml");
    CHECK(std::get<campaign::collect::RegexSpec>(c.sources.at(0)->spec).patterns.at(0).literal == literal);
  }
}

TEST_CASE("collector: defaults", "[collector]") {
  auto c = parse_collector(YAML::Load("sources: [{engine: mllog, file: x.log}]"), "dir/my-coll.yaml");
  CHECK(c.name == "my-coll");
  CHECK(c.file == "dir/my-coll.yaml");
  const auto& s = *c.sources.at(0);
  CHECK(s.required);
  const auto& m = std::get<campaign::collect::MllogSpec>(s.spec);
  REQUIRE(m.intervals.size() == 3);
  CHECK(m.intervals[0].name == "epoch_time");
  CHECK(m.intervals[0].step_key == "epoch_num");
  CHECK(m.intervals[1].name == "run_time");
  CHECK(m.intervals[2].name == "staging_time");
  CHECK(m.instances == campaign::collect::Instances::mean);
}

TEST_CASE("collector: the metrics it declares, in order, templates kept", "[collector]") {
  using campaign::collect::declared_metrics;
  using V = std::vector<std::string>;
  CHECK(declared_metrics(load_collector(repo_root() / "collectors/cosmoflow.yaml")) ==
        V{"epoch_time", "loss", "val_loss", "mae", "val_mae", "lr", "mlperf_epoch_time", "run_time",
          "staging_time", "eval_error", "run_success"});
  // The per-epoch windows of the issue 13 contract (epochs.csv), step = epoch.
  CHECK(declared_metrics(load_collector(repo_root() / "collectors/epochs.yaml")) ==
        V{"epoch_time", "epoch_start", "epoch_end"});
  CHECK(declared_metrics(load_collector(repo_root() / "collectors/timers.yaml")) == V{"mean_epoch_time"});
  CHECK(declared_metrics(load_collector(repo_root() / "collectors/tau.yaml")) ==
        V{"tau_exclusive:{routine}", "tau_inclusive:{routine}", "tau_calls:{routine}",
          "tau_exclusive_comm:{routine}", "tau_calls_comm:{routine}", "tau_application_time",
          "tau_exclusive_total:{routine}", "tau_inclusive_total:{routine}", "tau_calls_total:{routine}",
          "tau_exclusive_rank:{routine}", "tau_application_time_rank", "component:mpi",
          "component_percent:mpi", "pop_load_balance:mpi", "pop_communication_efficiency:mpi",
          "pop_parallel_efficiency:mpi"});
  CHECK(declared_metrics(load_collector(repo_root() / "collectors/nsys.yaml")) ==
        V{"nsys_time:{name}", "nsys_instances:{name}", "nsys_avg:{name}"});
  auto c = parse_collector(
      YAML::Load("sources:\n"
                 "  - {engine: mllog, file: a.log, intervals: [epoch], values: [loss],"
                 " instances: separate}\n"
                 "  - {engine: json, file: r.json, values: [data.n, {path: t, name: total}]}"),
      "t.yaml");
  CHECK(declared_metrics(c) ==
        V{"epoch_time", "epoch_time[{instance}]", "loss", "loss[{instance}]", "data.n", "total"});
}

namespace {

struct Bad {
  const char* yaml;
  const char* where;    // "line:col"
  const char* key;      // InputError::key()
  const char* message;  // part of InputError::message()
};

}  // namespace

TEST_CASE("collector: bad YAML gives InputError with file:line:col, key and hint", "[collector]") {
  const Bad cases[] = {
      {"name: x\nsorces: []\n", "2:1", "sorces", "unknown key, did you mean 'sources'?"},
      {"sources:\n  - engine: csv\n    fiel: a.csv\n    metrics: [a]\n", "3:5", "sources[0].fiel",
       "unknown key, did you mean 'file'?"},
      {"sources:\n  - engine: csv\n    file: a.csv\n    metrics:\n      - {colum: a}\n", "5:10",
       "sources[0].metrics[0].colum", "unknown key, did you mean 'column'?"},
      {"sources:\n  - engine: csv\n    file: a.csv\n    patterns: []\n", "4:5", "sources[0].patterns",
       "unknown key for a csv source"},
      {"sources:\n  - engine: cvs\n    file: a.csv\n", "2:13", "sources[0].engine",
       "'cvs' is not one of csv, mllog, regex, json, yaml, nsys, tau, did you mean 'csv'?"},
      {"sources:\n  - {engin: csv, file: a.csv}\n", "2:6", "sources[0].engin",
       "unknown key, did you mean 'engine'?"},
      {"sources:\n  - file: a.csv\n", "2:5", "sources[0].engine",
       "required key is missing (csv, mllog, regex, json, yaml, nsys, tau)"},
      {"sources:\n  - {engine: csv, file: a.csv, required: maybe, metrics: [a]}\n", "2:42",
       "sources[0].required", "expected true or false, got 'maybe'"},
      {"sources:\n  - {engine: csv, file: a.csv, metrics: a}\n", "2:41", "sources[0].metrics",
       "expected a list, got a scalar"},
      {"sources:\n  - {engine: csv, file: a.csv, metrics: [{column: a, scale: x2}]}\n", "2:61",
       "sources[0].metrics[0].scale", "expected a number, got 'x2'"},
      {"sources:\n  - {engine: csv, file: a.csv, metrics: [a, {column: b, name: a}]}\n", "2:45",
       "sources[0].metrics[1]", "metric name 'a' is already used in this source"},
      {"sources:\n  - {engine: csv, file: a.csv, delimiter: ab, metrics: [a]}\n", "2:43",
       "sources[0].delimiter", "must be one character"},
      {"sources:\n  - {engine: json, file: a.json, multiple: all, values: [a]}\n", "2:44",
       "sources[0].multiple", "'all' is for regex, csv and nsys sources only"},
      {"sources:\n  - {engine: csv, file: a.csv, step_scale: 1000, metrics: [a]}\n", "2:44",
       "sources[0].step_scale", "needs a 'step' column"},
      {"sources:\n  - {engine: csv, file: a.csv, step: t, step_scale: 0, metrics: [a]}\n", "2:53",
       "sources[0].step_scale", "must be a positive number"},
      {"sources:\n  - {engine: csv, file: a.csv, metrics: [{column: a, name: 'x:{*}'}]}\n", "2:41",
       "sources[0].metrics", "uses {*}, but 'file' has no wildcard"},
      {"sources:\n  - {engine: csv, file: a.csv, metrics: [{column: a, name: 'x:{'}]}\n", "2:42",
       "sources[0].metrics[0]", "'{' without '}'"},
      {"sources:\n  - {engine: csv, file: /abs/a.csv, metrics: [a]}\n", "2:25", "sources[0].file",
       "must be relative to the run directory"},
      {"sources:\n  - {engine: csv, file: a.csv, stdout: true, metrics: [a]}\n", "2:25", "sources[0].file",
       "give either 'file' or 'stdout: true'"},
      {"sources:\n  - {engine: csv, metrics: [a]}\n", "2:5", "sources[0].file",
       "required key is missing (a glob"},
      {"sources:\n  - {engine: csv, file: a.csv}\n", "2:5", "sources[0].metrics",
       "required key is missing (the columns to collect)"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - regex: '(unclosed'\n        "
       "name: x\n",
       "5:16", "sources[0].patterns[0].regex", "bad regex:"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(a)\\1', name: x}\n",
       "5:17", "sources[0].patterns[0].regex", "bad regex:"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: 'a)(b', name: x, "
       "value: 1}\n",
       "5:17", "sources[0].patterns[0].regex", "bad regex:"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(?<x', name: x}\n",
       "5:17", "sources[0].patterns[0].regex", "bad regex: unterminated group name"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(?<t>a)(?<t>b)', "
       "name: x}\n",
       "5:17", "sources[0].patterns[0].regex", "group name 't' used twice"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(a)(b)', captures: "
       "[x], name: "
       "y}\n",
       "5:37", "sources[0].patterns[0].captures", "1 names for 2 groups"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(?<t>a)', captures: "
       "[x], name: "
       "y}\n",
       "5:38", "sources[0].patterns[0].captures", "the regex names its groups already"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(?<time>a)(b)', name: "
       "x, "
       "value: tmie}\n",
       "5:50", "sources[0].patterns[0].value", "no capture named 'tmie', did you mean 'time'?"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(a)(b)', name: x}\n",
       "5:9", "sources[0].patterns[0]", "missing key 'value': which of the 2 captures is the value?"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(?<v>a)', name: "
       "'x_{w}'}\n",
       "5:34", "sources[0].patterns[0].name", "no capture named 'w'"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(a)', name: x, value: "
       "3}\n",
       "5:40", "sources[0].patterns[0].value", "capture 3 does not exist, the regex has 1"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(a)(b)', name: x, "
       "value: 1, "
       "step: 2, reduce: steps}\n",
       "5:52", "sources[0].patterns[0].step", "'reduce: steps' numbers the matches itself"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - {regex: '(a)', name: x, "
       "reduce: avg}\n",
       "5:41", "sources[0].patterns[0].reduce", "'avg' is not one of last, first, mean"},
      {"sources:\n  - engine: regex\n    stdout: true\n    patterns:\n      - regex: '(a)'\n        name: x\n"
       "        metrics: [{name: y}]\n",
       "6:15", "sources[0].patterns[0].name", "give it in each of 'metrics', or drop 'metrics'"},
      {"sources:\n  - {engine: mllog, file: a.log, intervals: [epoch_start]}\n", "2:46",
       "sources[0].intervals[0]", "give the interval without _start/_stop ('epoch')"},
      {"sources:\n  - {engine: mllog, file: a.log, intervals: [], values: []}\n", "2:5", "sources[0]",
       "nothing to collect"},
      {"sources:\n  - {engine: mllog, file: a.log, instances: each}\n", "2:45", "sources[0].instances",
       "'each' is not one of mean, min, max, separate"},
      {"sources:\n  - {engine: json, file: a.json, values: ['a..b']}\n", "2:43", "sources[0].values[0]",
       "bad path 'a..b': empty component"},
      {"sources:\n  - {engine: yaml, file: a.yaml, values: [{path: 'a[x]'}]}\n", "2:50",
       "sources[0].values[0].path", "bad path 'a[x]': expected [index]"},
      {"sources: []\n", "1:10", "sources", "must not be empty"},
      {"- a\n- b\n", "1:1", "(document)", "expected a map with 'sources'"},
  };
  for (const auto& c : cases) {
    INFO(c.yaml);
    try {
      parse_collector(YAML::Load(c.yaml), "bad.yaml");
      FAIL("no InputError");
    } catch (const InputError& e) {
      CHECK(e.where().file == "bad.yaml");
      CHECK(std::to_string(e.where().line) + ":" + std::to_string(e.where().column) == c.where);
      CHECK(e.key() == c.key);
      CHECK_THAT(e.message(), Catch::Matchers::Contains(c.message));
      CHECK_THAT(e.what(), Catch::Matchers::StartsWith("bad.yaml:" + std::string(c.where) + ": "));
    }
  }
}

TEST_CASE("collector: files that are not YAML, or not there", "[collector]") {
  TempDir dir;
  write_file(dir / "broken.yaml", "name: x\nsources:\n  - {engine: csv, file: [a.csv\n");
  try {
    load_collector(dir / "broken.yaml");
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK(e.where().file == (dir / "broken.yaml").string());
    CHECK(e.where().line == 4);
  }
  write_file(dir / "empty.yaml", "");
  CHECK_THROWS_AS(load_collector(dir / "empty.yaml"), InputError);
  CHECK_THROWS_WITH(load_collector(dir / "missing.yaml"), Catch::Matchers::Contains("cannot read file"));
}

TEST_CASE("collector usage: two nodes' usage files add up, peaks are the largest node's", "[collector]") {
  // The sampler's files of a case on two nodes (sample/sampler.hpp); n2 has no GPU power (no line).
  TempDir run;
  write_file(run / "usage-n1.csv",
             "quantity,value\nseconds,10\ncores_held,4\ncores_used_mean,3.5\nrss_peak_mib,900\ngpus_held,2\n"
             "gpus_used,2\ngpu_memory_peak_mib,1766\ngpu_energy_j,14000\ngpu_power_mean_w,1400\n");
  write_file(
      run / "usage-n2.csv",
      "quantity,value\nseconds,10.5\ncores_held,4\ncores_used_mean,1.5\nrss_peak_mib,1200\ngpus_held,1\n"
      "gpus_used,0\ngpu_memory_peak_mib,0\n");
  write_file(run / "power-n1.csv",
             "time,device,watts\n1000.0,gpu0,700.00\n1000.1,gpu0,702.50\n1000.0,gpu1,698.00\n");
  auto r = campaign::collect::collect({load_collector(repo_root() / "collectors/usage.yaml")}, run.path());
  CHECK(value(r, "sampled_s") == 10.5);
  CHECK(value(r, "cores_held") == 8);
  CHECK(value(r, "cores_used_mean") == 5);
  CHECK(value(r, "rss_peak_mib") == 1200);
  CHECK(value(r, "gpus_held") == 3);
  CHECK(value(r, "gpus_used") == 2);
  CHECK(value(r, "gpu_memory_peak_mib") == 1766);
  CHECK(value(r, "gpu_energy_j") == 14000);
  CHECK(value(r, "gpu_power_mean_w") == 1400);
  CHECK_FALSE(value(r, "cpu_package_energy_j"));  // measured nowhere: no metric, not a 0
  // The power series, steps in ms: power:n1:gpu0 at 1000000 and 1000100.
  CHECK(value(r, "power:n1:gpu0", 1000100) == 702.5);
  CHECK(count(r, "power:n1:gpu0") == 2);
  CHECK(count(r, "power:n1:gpu1") == 1);
}

TEST_CASE("energy to train: the GPUs' power samples within the MLPerf log's run_start..run_stop",
          "[collector][energy]") {
  // Two nodes' GPUs sampled at 1 Hz from t = 1000 s; the run from 1001.5 s to 1004 s. Within the
  // window: n1/gpu0 at 1002, 1003, 1004 (100, 200, 300 W) -> 1 x 150 + 1 x 250 = 400 J; n2/gpu0 at
  // 1002, 1003 (50, 50 W) -> 50 J; n2/package-0 is a CPU's, not counted; 450 J in all.
  TempDir run;
  write_file(
      run / "power-n1.csv",
      "time,device,watts\n1001,gpu0,900\n1002,gpu0,100\n1003,gpu0,200\n1004,gpu0,300\n1005,gpu0,900\n");
  write_file(run / "power-n2.csv",
             "time,device,watts\n1002,gpu0,50\n1003,gpu0,50\n1002,package-0,80\n1003,package-0,80\n");
  write_file(
      run / "output.log",
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1001500, \"event_type\": \"INTERVAL_START\", \"key\": "
      "\"run_start\", \"value\": null, \"metadata\": {\"file\": \"t.py\", \"lineno\": 1}}\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1004000, \"event_type\": \"INTERVAL_END\", \"key\": "
      "\"run_stop\", \"value\": null, \"metadata\": {\"file\": \"t.py\", \"lineno\": 2, \"status\": "
      "\"success\"}}\n");
  auto collectors = {load_collector(repo_root() / "collectors/usage.yaml"),
                     load_collector(repo_root() / "collectors/mlperf_weak.yaml")};
  auto r = campaign::collect::collect(collectors, run.path(), "output.log");
  REQUIRE(value(r, "gpu_energy_to_train_j"));
  CHECK(*value(r, "gpu_energy_to_train_j") == Approx(450));
  // Without the MLPerf log: no window, no figure (not the whole run's energy).
  auto without =
      campaign::collect::collect({load_collector(repo_root() / "collectors/usage.yaml")}, run.path());
  CHECK_FALSE(value(without, "gpu_energy_to_train_j"));
}
