// The regex engine: the shipped timers and gpu-util collectors on recorded outputs (beside tau's
// engine on its pprof text), capture naming, reductions, and lines that would break std::regex.
#include <catch2/catch.hpp>
#include <chrono>

#include "helpers.hpp"

using namespace collect_test;
using campaign::collect::collect;
using campaign::collect::load_collector;

TEST_CASE("regex: timers.yaml reads 'Mean epoch time' from stdout, tau.yaml TAU pprof rows", "[regex]") {
  TempDir run;
  fs::copy_file(data("tau/pprof.txt"), run / "pprof.txt");
  fs::copy_file(data("job/slurm-4242.out"), run / "slurm-4242.out");
  auto r = collect({load_collector(repo_root() / "collectors/timers.yaml"),
                    load_collector(repo_root() / "collectors/tau.yaml")},
                   run.path(), run / "slurm-4242.out");
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(value(r, "mean_epoch_time") == Approx(28.4));
  // No mean listing: node 0's; "1:15.412" is m:ss.mmm, "31,145" msec with a thousands separator.
  CHECK(value(r, "tau_inclusive:.TAU application") == Approx(75.412));
  CHECK(value(r, "tau_exclusive:.TAU application") == Approx(0.000052));
  CHECK(value(r, "tau_exclusive:MPI_Allreduce()") == Approx(31.145));
  CHECK(value(r, "tau_inclusive:void train_epoch(Model &, Batch *)") == Approx(71.794));
  CHECK(value(r, "tau_calls:MPI_Allreduce()") == 3000);
  CHECK(value(r, "tau_exclusive:void checkpoint(const char *)") == Approx(0.301));
  // The tau collector's default component: MPI_* exclusive times, their share of the application's
  // inclusive time, and across the two nodes.
  CHECK(value(r, "component:mpi") == Approx(31.145 + 9.050));
  CHECK(value(r, "component_percent:mpi") == Approx(100 * (31.145 + 9.050) / 75.412));
  // POP's efficiencies over the two nodes: useful = runtime - MPI, 75.412 - 40.195 = 35.217 and
  // 75.398 - 41.511 = 33.887 s; the runtime is node 0's 75.412 s.
  CHECK(value(r, "pop_load_balance:mpi") == Approx((35.217 + 33.887) / 2 / 35.217));
  CHECK(value(r, "pop_communication_efficiency:mpi") == Approx(35.217 / 75.412));
  CHECK(value(r, "pop_parallel_efficiency:mpi") == Approx((35.217 + 33.887) / 2 / 75.412));
  // Node 0: 6 routines x 3 metrics and the application time; the total's 2 routines x 3; per rank
  // 11 values (checkpoint on node 0 only) and 2 runtimes; the component's two and POP's three; the
  // mean epoch time. Header and separator lines are not rows.
  CHECK(r.metrics.size() == 18 + 1 + 6 + 11 + 2 + 2 + 3 + 1);
  CHECK(r.files == std::vector<std::string>{"slurm-4242.out", "pprof.txt"});
}

TEST_CASE("regex: timers.yaml and tau.yaml are optional throughout", "[regex]") {
  TempDir run;
  auto r = collect({load_collector(repo_root() / "collectors/timers.yaml"),
                    load_collector(repo_root() / "collectors/tau.yaml")},
                   run.path());
  CHECK(r.metrics.empty());
  CHECK(r.warnings.empty());
  CHECK(r.files.empty());
}

TEST_CASE("regex: gpu-util.yaml reduces nvidia-smi samples of all nodes", "[regex]") {
  TempDir run;
  fs::copy_file(data("nvidia-smi/nvidia-smi-nid001.csv"), run / "nvidia-smi-nid001.csv");
  fs::copy_file(data("nvidia-smi/nvidia-smi-nid002.csv"), run / "nvidia-smi-nid002.csv");
  auto r = collect({load_collector(repo_root() / "collectors/gpu-util.yaml")}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(value(r, "gpu_samples") == 5);  // the [N/A] row and the headers do not count
  CHECK(value(r, "gpu_util_sample_mean") == Approx((0 + 87 + 93 + 4 + 96) / 5.0));
  CHECK(value(r, "gpu_util_max") == 96);
  CHECK(value(r, "gpu_memory_used_max") == 15200);
  CHECK(r.files.size() == 2);
}

TEST_CASE("regex: noheader,nounits nvidia-smi output matches too", "[regex]") {
  TempDir run;
  write_file(run / "nvidia-smi.csv",
             "2024/03/05 10:15:01.123, 50, 1000\n2024/03/05 10:15:06.125, 70, 3000\n");
  auto r = collect({load_collector(repo_root() / "collectors/gpu-util.yaml")}, run.path());
  CHECK(value(r, "gpu_util_sample_mean") == Approx(60));
  CHECK(value(r, "gpu_memory_used_max") == 3000);
}

TEST_CASE("regex: positional captures, name templates, steps and reductions", "[regex]") {
  TempDir run;
  write_file(run / "out.txt",
             "step 1 loss=0.5 phase=train\n"
             "step 2 loss=0.25 phase=train\n"
             "step 3 loss=0.125 phase=eval\n"
             "noise\n");
  auto c = collector(R"(
sources:
  - engine: regex
    file: out.txt
    patterns:
      - regex: 'step (\d+) loss=([0-9.]+) phase=(\w+)'
        captures: [step, loss, phase]
        metrics:
          - {name: 'loss_{phase}', value: loss, step: step}
          - {name: loss_steps, value: loss, reduce: steps}
          - {name: loss_mean, value: loss, reduce: mean}
          - {name: loss_sum, value: 2, reduce: sum}
          - {name: loss_first, value: loss, reduce: first}
          - {name: loss_last, value: loss}
          - {name: loss_min, value: loss, reduce: min}
          - {name: loss_max_ms, value: loss, reduce: max, scale: 1000, unit: ms}
          - {name: lines, reduce: count}
)");
  auto r = collect({c}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(value(r, "loss_train", 1.0) == 0.5);
  CHECK(value(r, "loss_train", 2.0) == 0.25);
  CHECK(value(r, "loss_eval", 3.0) == 0.125);
  CHECK(value(r, "loss_steps", 0.0) == 0.5);
  CHECK(value(r, "loss_steps", 2.0) == 0.125);
  CHECK(value(r, "loss_mean") == Approx(0.875 / 3));
  CHECK(value(r, "loss_sum") == 0.875);
  CHECK(value(r, "loss_first") == 0.5);
  CHECK(value(r, "loss_last") == 0.125);
  CHECK(value(r, "loss_min") == 0.125);
  CHECK(value(r, "loss_max_ms") == 500);
  CHECK(value(r, "lines") == 3);
  CHECK(r.metrics.size() == 3 + 3 + 7);
}

TEST_CASE("regex: (?<name>...) and (?P<name>...) groups are rewritten to positional ones", "[regex]") {
  TempDir run;
  write_file(run / "o.txt", "a=1 b=(2) c=3\n");
  auto c = collector(R"(
sources:
  - engine: regex
    file: o.txt
    patterns:
      - regex: 'a=(?<a>\d) b=\((?:x|(?P<b>\d))\) (?:c)=(?<c>[\d])'
        metrics: [{name: a, value: a}, {name: b, value: b}, {name: c, value: c}]
)");
  auto r = collect({c}, run.path());
  CHECK(value(r, "a") == 1);
  CHECK(value(r, "b") == 2);
  CHECK(value(r, "c") == 3);
}

TEST_CASE("regex: an optional group that does not take part gives no value", "[regex]") {
  TempDir run;
  write_file(run / "o.txt", "x=1\nx=2 y=5\n");
  auto r = collect({collector(R"(
sources:
  - engine: regex
    file: o.txt
    patterns: [{regex: 'x=(\d)(?: y=(\d))?', captures: [x, y], metrics: [{name: y, value: y, reduce: steps}]}]
)")},
                   run.path());
  CHECK(count(r, "y") == 1);
  CHECK(value(r, "y", 0.0) == 5);
}

TEST_CASE("regex: lines of 100 KB and more neither overflow the stack nor take long", "[regex]") {
  TempDir run;
  // Near the 64 KiB limit, with a pattern that needs one step per character.
  std::string near(60 * 1024, 'a');
  write_file(run / "o.txt",
             near + " Mean epoch time: 3.5\n" + std::string(200 * 1024, 'b') + "\nMean epoch time: 4\n");
  auto c = collector(R"(
sources:
  - engine: regex
    file: o.txt
    patterns:
      - {regex: '^(.*)Mean epoch time: ([0-9.]+)', captures: [pre, t], value: t, name: t, reduce: steps}
      - {regex: '(a|b)*M', name: m, reduce: count}
)");
  auto t0 = std::chrono::steady_clock::now();
  auto r = collect({c}, run.path());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(value(r, "t", 0.0) == 3.5);
  CHECK(value(r, "t", 1.0) == 4);
  CHECK(has_warning(r, "o.txt:2: 1 line(s) longer than 64 KiB skipped"));
  CHECK(seconds < 60);
}
