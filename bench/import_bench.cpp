// Imports and collects 10,000 run directories of 100-epoch history.csv files
// into a fresh catalog and builds the scaling tables, printing files/s, the
// total time and peak memory. Target (issue 4): at least 5x faster than the
// seed analysis' pandas code on the same files (about 11 s and 128 MB here),
// so about 2 s or less, catalog writes included.
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/scaling.hpp"
#include "analysis/spec.hpp"
#include "catalog/catalog.hpp"
#include "collect/import.hpp"
#include "report/input.hpp"
#include "spec/library.hpp"

using namespace campaign;
namespace fs = std::filesystem;
using Seconds = std::chrono::duration<double>;

int main(int argc, char** argv) {
  const int ranks = 100, reps = 100, epochs = 100;
  CLI::App app{
      "Imports and collects 10,000 run directories of 100-epoch history.csv files into a fresh "
      "catalog and builds the scaling tables; prints files/s, the time and peak memory"};
  fs::path root = fs::temp_directory_path() / ("import-bench-" + std::to_string(getpid()));
  bool keep = false;
  app.add_option("dir", root,
                 "Directory to work in, removed first (default: a new one under the temp directory)");
  app.add_flag("--keep", keep,
               "Write DIR's results tree once and keep it (to profile the import alone); only the catalog "
               "is made anew");
  CLI11_PARSE(app, argc, argv);
  fs::path tree = root / "results";
  bool reuse = keep && fs::exists(tree / ("run-n" + std::to_string(ranks) + "-r" + std::to_string(reps)));
  fs::remove_all(reuse ? root / "w" : root);
  std::printf("%s %d run directories of %d-epoch history.csv under %s\n", reuse ? "reusing" : "writing",
              ranks * reps, epochs, root.c_str());
  for (int r = 1; r <= ranks && !reuse; ++r)
    for (int k = 1; k <= reps; ++k) {
      fs::path d = tree / ("run-n" + std::to_string(r) + "-r" + std::to_string(k));
      fs::create_directories(d);
      std::ofstream out(d / "history.csv");
      out << "epoch,loss,lr,mae,time,val_loss,val_mae\n";
      for (int e = 0; e < epochs; ++e)
        out << e << ",0.123456789012345,0.001,0.0987654321,"
            << 27.5 + 0.01 * r + 0.001 * k + (e == 0 ? 10 : 0) + 0.0001 * e << ",0.2345678901,0.0876543210\n";
    }
  std::string yaml = R"(name: import-bench
params: {n_per_rank: 512}
matrix:
  ranks: [)";
  for (int r = 1; r <= ranks; ++r) yaml += (r > 1 ? ", " : "") + std::to_string(r);
  yaml += R"(]
  repeat: 100
case_name: run-n{{ranks}}-r{{repeat}}
job: {command: "true", ranks: ranks}
collectors: [cosmoflow]
analyses:
  - {name: weak, scaling: weak, x: ranks, time: {metric: epoch_time, warmup: 1}, samples: n_per_rank * ranks}
)";
  fs::path campaign_file =
      fs::path(CAMPAIGN_SOURCE_DIR) / "campaigns" / "import-bench.yaml";  // for collector lookup
  auto t0 = std::chrono::steady_clock::now();
  auto c = spec::parse_campaign(yaml, campaign_file.string());
  auto sys = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "local", ".yaml"));
  auto plan = matrix::expand(spec::for_system(c, "local"), sys, (root / "w").string());
  auto collectors = collect::load_collectors(c);
  auto t_alone = std::chrono::steady_clock::now();
  {  // the collectors alone, files already in the page cache: the floor for the import
    auto a = std::chrono::steady_clock::now();
    size_t n = 0;
    for (auto& e : fs::directory_iterator(tree))
      n += collect::collect(collectors.at("main"), e.path()).metrics.size();
    std::printf("collectors alone: %.3f s for %zu metrics\n",
                Seconds(std::chrono::steady_clock::now() - a).count(), n);
  }
  auto t1 = std::chrono::steady_clock::now();
  Catalog catalog = Catalog::open(root / "w");
  auto s = collect::import_runs(catalog, plan, root / "w", tree, collectors);
  auto t2 = std::chrono::steady_clock::now();
  auto id = catalog.find_campaign("import-bench")->id;
  auto specs = analysis::parse_analyses(c.analyses, c.file);
  auto cases = report::case_results(catalog, id, report::metrics_used(specs));
  auto t_read = std::chrono::steady_clock::now();
  auto tables = analysis::analyze_all(specs, cases);
  auto t3 = std::chrono::steady_clock::now();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  double total =
      Seconds(t_alone - t0).count() + Seconds(t3 - t1).count();  // without the collectors-alone run
  std::printf(
      "plan %.3f s; import + collect %zu files %.3f s (%.0f files/s, %zu collected, %zu failed); "
      "tables %.3f s (%zu rows; %.3f s reading the catalog)\n",
      Seconds(t_alone - t0).count(), s.found, Seconds(t2 - t1).count(),
      static_cast<double>(s.found) / Seconds(t2 - t1).count(), s.collected, s.failed,
      Seconds(t3 - t2).count(),
      tables.empty() || tables[0].tables.empty() ? size_t(0) : tables[0].tables[0].rows.size(),
      Seconds(t_read - t2).count());
  std::printf("total %.3f s = %.0f files/s, peak RSS %.1f MB (seed pandas code: ~11 s, 128 MB)\n", total,
              static_cast<double>(s.found) / total, static_cast<double>(ru.ru_maxrss) / 1024.0);
  fs::remove_all(keep ? root / "w" : root);
  return s.collected == static_cast<size_t>(ranks * reps) ? 0 : 1;
}
