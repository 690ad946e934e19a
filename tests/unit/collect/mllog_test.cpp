// The mllog engine on real MLPerf HPC logs (CosmoFlow on Piz Daint), on
// weak-scaling instances, and on logs cut at every byte.
#include <catch2/catch.hpp>
#include <regex>

#include "collect/engines.hpp"
#include "helpers.hpp"

using namespace collect_test;
using campaign::collect::collect;
using campaign::collect::CollectError;

namespace {

const char* kMllog = R"(
sources:
  - engine: mllog
    file: mlperf.log
    values: [eval_error]
)";

// Counts what the file says, independently of the engine: lines with this key.
size_t count_key(const std::string& text, const std::string& key) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find("\"key\": \"" + key + "\"", at)) != std::string::npos; ++at) ++n;
  return n;
}

CollectResult collect_log(const std::string& text, const std::string& yaml = kMllog) {
  TempDir run;
  write_file(run / "mlperf.log", text);
  return collect({collector(yaml)}, run.path());
}

}  // namespace

TEST_CASE("mllog: real Piz Daint CosmoFlow logs give every epoch, run and staging time", "[mllog]") {
  struct Expect {
    const char* file;
    size_t epochs;
    double epoch0, epoch1, last_epoch, run_time;
  };
  // Epoch counts and durations read off the logs: (epoch_stop - epoch_start).time_ms / 1000.
  const Expect cases[] = {
      {"daint_gpu_n128_result_1.txt", 64, 679.175, 368.037, 368.390, 24046.097},
      {"daint_gpu_n128_result_2.txt", 67, 686.555, 392.941, 363.716, 26699.983},
      {"daint_gpu_n256_result_1.txt", 100, 489.737, 170.762, 182.718, 17500.075},
      {"daint_gpu_n256_result_2.txt", 119, 482.396, 163.762, 167.602, 20343.686},
      {"daint_gpu_n256_result_3.txt", 136, 359.983, 177.579, 166.628, 24611.604},
  };
  for (const auto& e : cases) {
    SECTION(e.file) {
      const std::string text = read_text(data(std::string("mllog/") + e.file));
      REQUIRE(count_key(text, "epoch_stop") == e.epochs);
      auto r = collect_log(text);
      INFO(all_warnings(r));
      CHECK(r.warnings.empty());
      CHECK(count(r, "epoch_time") == e.epochs);
      CHECK(count(r, "eval_error") == e.epochs);
      CHECK(value(r, "epoch_time", 0.0) == Approx(e.epoch0).margin(1e-9));
      CHECK(value(r, "epoch_time", 1.0) == Approx(e.epoch1).margin(1e-9));
      CHECK(value(r, "epoch_time", static_cast<double>(e.epochs - 1)) == Approx(e.last_epoch).margin(1e-9));
      CHECK(value(r, "run_time") == Approx(e.run_time).margin(1e-9));
      CHECK(value(r, "staging_time"));
      for (const auto& m : r.metrics)
        if (m.name.find("_time") != std::string::npos) CHECK(m.unit == "s");
    }
  }
}

TEST_CASE("mllog: exact values of the n128 result_1 log", "[mllog]") {
  auto r = collect_log(read_text(data("mllog/daint_gpu_n128_result_1.txt")));
  CHECK(value(r, "staging_time") == Approx(0.022).margin(1e-12));
  CHECK(value(r, "eval_error", 0.0) == 0.34239912033081055);
  CHECK(value(r, "eval_error", 63.0) == 0.12387251853942871);
  // 64 epochs + 64 eval_error + run + staging; nothing else was asked for.
  CHECK(r.metrics.size() == 130);
}

TEST_CASE("mllog: the job's output with srun -l prefixes and other lines mixed in", "[mllog]") {
  const std::string text = read_text(data("mllog/daint_gpu_n128_result_1.txt"));
  std::string prefixed = "srun: job 1 started\n";
  size_t i = 0;
  for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1, ++i)
    prefixed +=
        (i % 2 ? "0: " : "  12: ") + text.substr(at, nl - at + 1) + (i % 7 ? "" : "Epoch 3/64 - loss: 0.1\n");
  TempDir run;
  write_file(run / "slurm-1.out", prefixed);
  auto r = collect({campaign::collect::load_collector(repo_root() / "collectors/mlperf.yaml")}, run.path(),
                   "slurm-1.out");
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(count(r, "epoch_time") == 64);
  CHECK(count(r, "eval_time") == 64);
  CHECK(value(r, "epoch_time", 1.0) == Approx(368.037));
  CHECK(value(r, "run_time") == Approx(24046.097));
  // The run's window on the wall clock, for the energy to train: run_stop - run_start = run_time.
  CHECK(value(r, "run_start_ms") == 1603314876927.0);
  CHECK(value(r, "run_stop_ms") == 1603338923024.0);
  CHECK(value(r, "init_time") == Approx(2.158));
  CHECK(value(r, "global_batch_size") == 256);
  CHECK(value(r, "train_samples") == 262144);
  CHECK(r.files == std::vector<std::string>{"slurm-1.out"});
}

TEST_CASE("mllog: a real log cut mid-line is collected up to the cut and flagged", "[mllog]") {
  const std::string text = read_text(data("mllog/daint_gpu_n128_result_1.txt"));
  const size_t cut = text.size() / 2 + 37;
  REQUIRE(text[cut - 1] != '\n');
  const std::string part = text.substr(0, cut);
  const size_t complete_stops = count_key(part.substr(0, part.rfind('\n')), "epoch_stop");
  REQUIRE(complete_stops > 10);
  auto r = collect_log(part);
  CHECK(count(r, "epoch_time") == complete_stops);
  CHECK(value(r, "epoch_time", 0.0) == Approx(679.175));
  CHECK_FALSE(value(r, "run_time"));
  CHECK(has_warning(
      r, "mlperf.log:" + std::to_string(std::count(part.begin(), part.end(), '\n') + 1) + ": truncated"));
  CHECK(has_warning(r, "run was never stopped"));
}

TEST_CASE("mllog: an excerpt cut at every byte never fails beyond 'no records'", "[mllog][cut]") {
  const std::string full_log = read_text(data("mllog/daint_gpu_n128_result_1.txt"));
  // The first 40 lines: init, run, staging and the first epochs.
  size_t end = 0;
  for (int i = 0; i < 40; ++i) end = full_log.find('\n', end) + 1;
  const std::string full = full_log.substr(0, end);
  const auto c = collector(kMllog);
  const auto& spec = std::get<campaign::collect::MllogSpec>(c.sources.at(0)->spec);
  const auto reference = collect_log(full);
  REQUIRE(count(reference, "epoch_time") >= 3);
  for (size_t cut = 0; cut <= full.size(); ++cut) {
    INFO("cut at " << cut);
    const std::string text = full.substr(0, cut);
    std::vector<campaign::collect::Metric> metrics;
    std::vector<std::string> warnings;
    campaign::collect::Warnings w(warnings);
    campaign::collect::Output out{metrics, w};
    try {
      campaign::collect::run_mllog(spec, {"mlperf.log", text}, out);
    } catch (const CollectError& e) {
      REQUIRE(std::string(e.what()) == "mlperf.log: no :::MLLOG records");
      REQUIRE(cut < 9);
      continue;
    }
    // The last record counts once its closing brace is there; the newline after it is optional.
    const size_t last_nl = text.rfind('\n');
    const bool whole_line = cut == full.size() || full[cut] == '\n';
    const std::string complete =
        whole_line ? text : text.substr(0, last_nl == std::string::npos ? 0 : last_nl);
    size_t epochs = 0;
    for (const auto& m : metrics) {
      REQUIRE(m.value == value(reference, m.name, m.step));
      epochs += m.name == "epoch_time";
    }
    REQUIRE(epochs == count_key(complete, "epoch_stop"));
  }
}

TEST_CASE("mllog: weak scaling instances are averaged, or kept apart", "[mllog]") {
  auto rec = [](const std::string& key, long t, int instance, int epoch) {
    return ":::MLLOG {\"time_ms\": " + std::to_string(t) + ", \"key\": \"" + key +
           "\", \"value\": null, \"metadata\": {\"instance_id\": " + std::to_string(instance) +
           (epoch >= 0 ? ", \"epoch_num\": " + std::to_string(epoch) : std::string()) + "}}\n";
  };
  // Two instances interleaved; instance 1 is twice as slow.
  std::string log;
  log += rec("run_start", 0, 0, -1) + rec("run_start", 0, 1, -1);
  log += rec("epoch_start", 1000, 0, 0) + rec("epoch_start", 1000, 1, 0);
  log += rec("epoch_stop", 11000, 0, 0) + rec("epoch_start", 11000, 0, 1);
  log += rec("epoch_stop", 21000, 1, 0) + rec("epoch_stop", 21000, 0, 1);
  log += rec("run_stop", 30000, 0, -1) + rec("run_stop", 50000, 1, -1);

  auto mean = collect_log(log, "sources: [{engine: mllog, file: mlperf.log, intervals: [epoch, run]}]");
  INFO(all_warnings(mean));
  CHECK(mean.warnings.empty());
  CHECK(value(mean, "epoch_time", 0.0) == Approx(15));  // (10 + 20) / 2
  CHECK(value(mean, "epoch_time", 1.0) == Approx(10));  // only instance 0 ran it
  CHECK(value(mean, "run_time") == Approx(40));

  auto mx =
      collect_log(log, "sources: [{engine: mllog, file: mlperf.log, intervals: [run], instances: max}]");
  CHECK(value(mx, "run_time") == Approx(50));

  auto sep = collect_log(
      log, "sources: [{engine: mllog, file: mlperf.log, intervals: [epoch], instances: separate}]");
  CHECK(value(sep, "epoch_time[0]", 0.0) == Approx(10));
  CHECK(value(sep, "epoch_time[1]", 0.0) == Approx(20));
  CHECK(value(sep, "epoch_time[0]", 1.0) == Approx(10));
  CHECK(sep.metrics.size() == 3);
}

TEST_CASE("mllog: custom interval step key and value scale", "[mllog]") {
  const std::string log =
      ":::MLLOG {\"time_ms\": 0, \"key\": \"block_start\", \"value\": null, \"metadata\": "
      "{\"first_epoch_num\": 4}}\n"
      ":::MLLOG {\"time_ms\": 2500, \"key\": \"block_stop\", \"value\": null, \"metadata\": "
      "{\"first_epoch_num\": 4}}\n"
      ":::MLLOG {\"time_ms\": 2500, \"key\": \"throughput\", \"value\": 12.5, \"metadata\": {}}\n"
      ":::MLLOG {\"time_ms\": 2500, \"key\": \"converged\", \"value\": true, \"metadata\": {}}\n";
  auto r = collect_log(log, R"(
sources:
  - engine: mllog
    file: mlperf.log
    intervals: [{key: block, name: block_seconds, step: first_epoch_num}]
    values: [{key: throughput, unit: samples/ms, scale: 1000, name: tput}, converged]
)");
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(value(r, "block_seconds", 4.0) == Approx(2.5));
  CHECK(value(r, "tput") == Approx(12500));
  CHECK(value(r, "converged") == 1);
}
