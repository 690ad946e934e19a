// The window analysis (issue 13) at campaign scale: 1,000 runs x 100 epochs
// x 10 Hz utilisation samples (about 6 million samples) in a catalog the
// bench builds, read back and analysed (per-epoch window means, moving
// average, progress curves, mean ± std per group) in one process whose wall
// time and peak RSS are printed. Targets: <= 2 s and <= 300 MB.
//
// Beside it, the same study as the seed analysis did it, a pandas/numpy
// loop over per-run CSV files (the sampler's utilisation-<host>.csv and
// epochs.csv), run with Debian's python3 (apt install python3-pandas); the
// ratio of the two times is printed, and both print their grand mean so the
// two can be seen to agree.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/scaling.hpp"
#include "catalog/catalog.hpp"
#include "collect/import.hpp"
#include "report/input.hpp"
#include "spec/library.hpp"

using namespace campaign;
namespace fs = std::filesystem;
using Seconds = std::chrono::duration<double>;

namespace {

constexpr int kEpochs = 100;
constexpr std::int64_t kEpochMs = 6000, kGapMs = 50, kSampleMs = 100;  // 10 Hz

const char* kCampaign = R"(name: window-bench
matrix:
  loader: [original, ring_buffer]
  io_limit: [0, 250, 500, 1000, 2000]
  repeat: 100
case_name: run-{{loader}}-io{{io_limit}}-r{{repeat}}
job: {command: "true"}
analyses:
  - {name: util, scaling: window, x: io_limit, compare: {axis: loader, baseline: original}, warmup: 1,
     ratio: {axis: loader, numerator: original, denominator: ring_buffer},
     window: {series: 'utilization:{node}:gpu{i}', smooth: 5, points: 101}}
)";

// The seed study's loop, as pandas users write it: per run read both files, per epoch mask the
// samples of its window, mean, rolling mean, np.interp onto the progress grid; then per group.
const char* kPython = R"PY(import os, sys, time, resource
t0 = time.time()
import numpy as np, pandas as pd
root, runs, points, smooth, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
grid = np.linspace(0, 100, points)
rows, curves = [], {}
for d in sorted(os.listdir(root))[:runs]:
    util = pd.read_csv(os.path.join(root, d, "utilisation-node1.csv"))
    epochs = pd.read_csv(os.path.join(root, d, "epochs.csv"))
    util = util[util.device.str.startswith("gpu")]
    first, last = util.time.iloc[0], util.time.iloc[-1]
    means, cs = [], []
    for _, ep in epochs.iterrows():
        if ep.epoch < warmup:
            continue
        if first > ep.start_time or last < ep.end_time:
            print("skipped: %s epoch %d" % (d, ep.epoch), file=sys.stderr)
            continue
        w = util[(util.time >= ep.start_time) & (util.time <= ep.end_time)]
        means.append(w.utilization.mean())
        smoothed = w.utilization.rolling(smooth, min_periods=1).mean().to_numpy()
        progress = (w.time.to_numpy() - ep.start_time) / (ep.end_time - ep.start_time) * 100
        cs.append(np.interp(grid, progress, smoothed))
    _, loader, io, rep = d.split("-")
    rows.append((loader, int(io[2:]), int(rep[1:]), np.mean(means)))
    curves.setdefault((loader, io), []).append(np.mean(cs, axis=0))
df = pd.DataFrame(rows, columns=["loader", "io_limit", "repeat", "util"])
summary = df.groupby(["io_limit", "loader"]).util.agg(["mean", "std", "count"])
bands = {k: (np.mean(v, axis=0), np.std(v, axis=0, ddof=1)) for k, v in curves.items()}
print("python: %d runs in %.3f s, peak RSS %.1f MB, grand mean %.6f" % (len(rows), time.time() - t0,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, summary["mean"].mean()))
)PY";

// Deterministic utilisation: a curve over each epoch plus noise, lower for the original loader.
double util_at(int run, std::int64_t k, bool original) {
  std::uint64_t h = static_cast<std::uint64_t>(run) * 6364136223846793005ULL + static_cast<std::uint64_t>(k);
  h ^= h >> 29, h *= 0xbf58476d1ce4e5b9ULL, h ^= h >> 32;
  double noise = static_cast<double>(h % 1000) / 100.0;
  double phase = std::sin(static_cast<double>(k % 60) / 60.0 * 3.14159);
  return (original ? 40 : 70) + 20 * phase + noise;
}

struct Run {
  std::string name;
  bool original;
  std::int64_t t0_ms;
};

// Writes the catalog (and, for python, the same runs as files): in a child process, so the
// analysis' peak RSS below is its own.
void build(const fs::path& root, const matrix::Plan& plan, bool files) {
  Catalog catalog = Catalog::open(root / "w");
  auto id = collect::sync_campaign(catalog, plan, root / "w", {});
  (void)id;
  auto latest = catalog.latest_attempts(catalog.find_campaign("window-bench")->id);
  std::vector<Catalog::ImportedRun> batch;
  for (size_t j = 0; j < latest.size(); ++j) {
    const AttemptRow& a = latest[j];
    Run r{a.case_name, a.case_name.find("original") != std::string::npos,
          1764075600000LL + static_cast<std::int64_t>(j) * 1000000};
    Catalog::ImportedRun run;
    run.attempt_id = a.id;
    run.origin = r.name;
    std::ofstream util, ep;
    if (files) {
      fs::create_directories(root / "results" / r.name);
      util.open(root / "results" / r.name / "utilisation-node1.csv");
      ep.open(root / "results" / r.name / "epochs.csv");
      util << "time,device,utilization\n";
      ep << "epoch,start_time,end_time,epoch_time\n";
    }
    char buf[96];
    for (int e = 0; e < kEpochs; ++e) {
      std::int64_t start = r.t0_ms + 1025 + e * (kEpochMs + kGapMs), end = start + kEpochMs;
      run.metrics.push_back({"epoch_start", e, static_cast<double>(start) / 1000, "s"});
      run.metrics.push_back({"epoch_end", e, static_cast<double>(end) / 1000, "s"});
      run.metrics.push_back({"epoch_time", e, static_cast<double>(kEpochMs) / 1000, "s"});
      if (files) {
        std::snprintf(buf, sizeof buf, "%d,%.3f,%.3f,%.3f\n", e, static_cast<double>(start) / 1000,
                      static_cast<double>(end) / 1000, static_cast<double>(kEpochMs) / 1000);
        ep << buf;
      }
    }
    const std::int64_t last = r.t0_ms + 1025 + kEpochs * (kEpochMs + kGapMs) + 1000;
    for (std::int64_t k = 0, t = r.t0_ms; t <= last; ++k, t += kSampleMs) {
      double v = util_at(static_cast<int>(j), k, r.original);
      run.metrics.push_back({"utilization:node1:gpu0", t, v, "%"});
      if (files) {
        std::snprintf(buf, sizeof buf, "%.3f,gpu0,%.6f\n", static_cast<double>(t) / 1000, v);
        util << buf;
      }
    }
    batch.push_back(std::move(run));
    if (batch.size() == 50 || j + 1 == latest.size()) {
      catalog.import_runs(batch);
      batch.clear();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "The window analysis over 1,000 runs x 100 epochs x 10 Hz samples (about 6 million) from a catalog "
      "built here: wall time and peak RSS, beside the seed study's pandas loop"};
  fs::path root = fs::temp_directory_path() / ("window-bench-" + std::to_string(getpid()));
  int python_runs = 1000;
  app.add_option("dir", root, "Directory to work in, removed first and at the end");
  app.add_option("--python-runs", python_runs,
                 "Runs the pandas loop reads (0: skip it; fewer than 1,000: its time is scaled up)");
  CLI11_PARSE(app, argc, argv);
  fs::remove_all(root);
  fs::create_directories(root);
  auto c = spec::parse_campaign(kCampaign,
                                (fs::path(CAMPAIGN_SOURCE_DIR) / "campaigns" / "window-bench.yaml").string());
  auto sys = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "local", ".yaml"));
  auto plan = matrix::expand(spec::for_system(c, "local"), sys, (root / "w").string());

  auto b0 = std::chrono::steady_clock::now();
  pid_t child = fork();
  if (child == 0) {
    build(root, plan, python_runs > 0);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "building the catalog failed\n");
    return 1;
  }
  std::printf("catalog of %zu runs built in %.1f s (%.0f MB)\n", plan.cases.size(),
              Seconds(std::chrono::steady_clock::now() - b0).count(),
              static_cast<double>(fs::file_size(Catalog::db_path(root / "w"))) / 1e6);

  auto t0 = std::chrono::steady_clock::now();
  Catalog catalog = Catalog::open(root / "w");
  auto specs = analysis::parse_analyses(c.analyses, c.file);
  auto id = catalog.find_campaign("window-bench")->id;
  auto cases = report::case_results(catalog, id, report::metrics_used(specs), report::sampled_used(specs));
  auto t1 = std::chrono::steady_clock::now();
  auto results = analysis::analyze_all(specs, cases);
  auto t2 = std::chrono::steady_clock::now();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  size_t samples = 0;
  for (auto& cs : cases)
    for (auto& s : cs.sampled) samples += s.values.size();
  // The grand mean of the group means, to compare with the pandas loop's.
  double sum = 0;
  int n = 0;
  const auto& t = results.at(0).tables.at(0);
  for (size_t r = 0; r < t.rows.size(); ++r)
    for (const char* col : {"utilization", "utilization_ring_buffer"})
      if (auto v = t.number(r, col)) sum += *v, ++n;
  const double ours = Seconds(t2 - t0).count();
  std::printf(
      "campaign: %zu runs, %zu samples: read %.3f s + analyse %.3f s = %.3f s (target <= 2 s), peak RSS %.1f "
      "MB "
      "(target <= 300 MB), %zu excluded, grand mean %.6f\n",
      cases.size(), samples, Seconds(t1 - t0).count(), Seconds(t2 - t1).count(), ours,
      static_cast<double>(ru.ru_maxrss) / 1024.0, results[0].excluded.size(), sum / n);

  int rc = 0;
  if (python_runs > 0) {
    std::ofstream(root / "seed_loop.py") << kPython;
    std::string cmd = "/usr/bin/python3 " + (root / "seed_loop.py").string() + " " +
                      (root / "results").string() + " " + std::to_string(python_runs) + " 101 5 1 > " +
                      (root / "python.out").string();
    auto p0 = std::chrono::steady_clock::now();
    rc = std::system(cmd.c_str());
    double py = Seconds(std::chrono::steady_clock::now() - p0).count();
    std::ifstream out(root / "python.out");
    std::string line;
    std::getline(out, line);
    std::printf("%s\n", line.c_str());
    if (rc == 0) {
      double scaled = py * 1000.0 / python_runs;
      std::printf("pandas loop %s%.1f s vs campaign %.3f s: %.0fx\n",
                  python_runs < 1000 ? "(scaled to 1,000 runs) " : "", scaled, ours, scaled / ours);
    } else {
      std::printf("the pandas loop failed (exit %d; python3-pandas installed?)\n", rc);
    }
  }
  fs::remove_all(root);
  return rc == 0 && ours <= 2 && ru.ru_maxrss / 1024 <= 300 ? 0 : 1;
}
