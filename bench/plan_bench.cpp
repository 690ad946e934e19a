// Plans a 100,000-case campaign (without writing scripts) and prints cases/s
// and peak memory. Target (issue 2): under 2 s and 300 MB on one core.
// Also renders 2,000 full Slurm scripts to show the per-script cost.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "matrix/plan.hpp"
#include "render/script.hpp"
#include "spec/library.hpp"
#include "targets.hpp"

using namespace campaign;

int main(int argc, char** argv) {
  CLI::App app{
      "Plans a 100,000-case campaign (without writing scripts) and prints cases/s and peak memory; then "
      "renders 2,000 Slurm scripts"};
  CLI11_PARSE(app, argc, argv);
  const char* yaml = R"(name: bench
params: {ranks_per_node: 1, base: 256}
matrix:
  partition:
    - {name: gpu, per_rank: 256, epochs: 16}
    - {name: cpu, per_rank: 32, epochs: 4}
  data:
    - {name: real, suffix: "", config: configs/cosmo.yaml}
    - {name: dummy, suffix: -dummy, config: configs/cosmo_dummy.yaml}
  ranks: [1, 2, 4, 8, 16]
  lr: [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512]
  batch: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
  seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
         26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50]
derived:
  n_train: per_rank * ranks
  n_valid: ceil(n_train / 4)
  steps: n_train / batch * epochs
case_name: b-{{partition}}{{suffix}}-n{{ranks}}-lr{{lr}}-b{{batch}}-s{{seed}}
job:
  ranks: ranks
  ranks_per_node: ranks_per_node
  walltime: "01:00:00"
  command: python train.py {{config}} --n-train {{n_train}} --n-valid {{n_valid}} --lr {{lr}} --batch {{batch}}
)";
  auto t0 = std::chrono::steady_clock::now();
  auto c = spec::parse_campaign(yaml, "bench.yaml");
  auto sys = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "daint", ".yaml"));
  auto plan = matrix::expand(spec::for_system(c, "daint"), sys, "/scratch/bench");
  auto t1 = std::chrono::steady_clock::now();
  double s = std::chrono::duration<double>(t1 - t0).count();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("plan: %zu cases in %.3f s = %.0f cases/s, %.0f node-hours, peak RSS %.1f MB\n",
              plan.cases.size(), s, static_cast<double>(plan.cases.size()) / s, plan.node_hours,
              static_cast<double>(ru.ru_maxrss) / 1024.0);

  render::Renderer r(plan);
  render::RenderOptions o{"/scratch/bench", "campaign", 1, 0, {}};
  const size_t n = 2000;
  size_t bytes = 0;
  auto t2 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < n; ++i) bytes += r.render(plan.cases[(i * 50) % plan.cases.size()], o).text.size();
  double rs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count();
  std::printf("render: %zu Slurm scripts in %.3f s = %.0f scripts/s (%.0f bytes each)\n", n, rs,
              static_cast<double>(n) / rs, static_cast<double>(bytes) / static_cast<double>(n));
  bool ok = plan.cases.size() == 100000;
  if (!ok) std::printf("FAILED: %zu cases planned, not 100000\n", plan.cases.size());
  bench::target("plan of 100,000 cases, time", s, bench::Op::below, 2, "s");
  bench::target("plan of 100,000 cases, peak RSS", static_cast<double>(ru.ru_maxrss) / 1024.0,
                bench::Op::below, 300, "MB");
  return ok ? 0 : 1;
}
