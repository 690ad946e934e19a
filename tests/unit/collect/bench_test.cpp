// Timing of the csv hot path: collect() on one run directory with a 100-epoch
// history.csv, many times. Hidden ([.bench]): run `unit_collect [.bench]`.
// The campaign-level target is 10,000 run directories in about a second.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "helpers.hpp"

using namespace collect_test;

TEST_CASE("bench: collect a 100-row history.csv 10,000 times", "[.bench]") {
  TempDir run;
  std::string csv = "epoch,loss,lr,mae,time,val_loss,val_mae\n";
  char row[256];
  for (int e = 0; e < 100; ++e) {
    std::snprintf(row, sizeof row, "%d,%.17g,0.001,%.17g,%.17g,%.17g,%.17g\n", e, 0.9 * std::exp(-0.02 * e),
                  0.5 * std::exp(-0.01 * e), 28.0 + 0.01 * e, 0.95 * std::exp(-0.018 * e),
                  0.55 * std::exp(-0.009 * e));
    csv += row;
  }
  write_file(run / "history.csv", csv);
  auto c = collector(R"(
sources:
  - engine: csv
    file: history.csv
    step: epoch
    metrics:
      - {column: time, name: epoch_time, unit: s}
      - loss
      - val_loss
      - mae
      - val_mae
      - lr
)");
  const int n = 10000;
  size_t metrics = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) metrics += campaign::collect::collect({c}, run.path()).metrics.size();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(metrics == size_t{n} * 600);
  std::printf("collect(history.csv, 100 rows x 6 metrics): %.1f us per run dir, %.2f s for %d\n", s / n * 1e6,
              s, n);
}
