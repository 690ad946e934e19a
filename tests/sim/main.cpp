// sim: the deterministic simulator (tests/sim/README.md). Runs schedules from seeds and reports
// every invariant violation with the seed that replays it:
//   sim --first 1 --count 10000          random schedules, seeds 1..10000
//   sim --seed 4711 --trace              one schedule again, step by step
//   sim --seeds tests/sim/seeds.txt      the kept regression seeds
//   sim --bench --count 2000             schedules per second (TARGET line)
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "../../bench/targets.hpp"
#include "driver.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  CLI::App app{"Deterministic simulator: the real engine against a model of Slurm, under random faults"};
  std::optional<std::uint64_t> seed;
  std::uint64_t first = 1;
  long count = 1000;
  bool trace = false, bench = false, kinds = false, check_rows = false;
  std::string seeds_file, workdir, faults = "all";
  std::vector<std::string> allow;
  app.add_option("--seed", seed, "Run this one schedule");
  app.add_flag("--trace", trace, "Print the world's events and the engine's log");
  app.add_option("--first", first, "First seed of a range");
  app.add_option("--count", count, "Schedules in the range");
  app.add_option("--seeds", seeds_file, "Run the seeds listed in this file (one per line, # comments)");
  app.add_option("--allow", allow,
                 "Violation classes not to fail on (a prefix, e.g. orphan_job, or a last part, e.g. outage)");
  app.add_flag("--kinds", kinds,
               "Print each schedule's violation classes, one line per seed (to compare engines)");
  app.add_flag("--check-rows", check_rows,
               "After every tick, compare the engine's cached rows and its memory with the catalog (its "
               "rows, the fold of its observations)");
  app.add_option("--faults", faults, "all, kills (kill -9 and resume only) or none")
      ->check(CLI::IsMember({"all", "kills", "none"}));
  app.add_flag("--bench", bench, "Print schedules per second and a TARGET line");
  app.add_option("--workdir", workdir, "Where the catalog lives (default: a new directory on /dev/shm)");
  CLI11_PARSE(app, argc, argv);

  if (trace) {
    auto logger = spdlog::stdout_logger_st("engine");
    logger->set_pattern("          engine: %v");
    spdlog::set_default_logger(logger);
    spdlog::set_level(spdlog::level::info);
  } else {
    spdlog::set_level(spdlog::level::off);
  }
  fs::path dir = workdir.empty()
                     ? (fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path()) /
                           ("campaign-sim-" + std::to_string(getpid()))
                     : fs::path(workdir);
  fs::create_directories(dir);
  sim::ScheduleOptions options{trace, dir, faults, check_rows};

  std::vector<std::uint64_t> seeds;
  if (seed) {
    seeds.push_back(*seed);
  } else if (!seeds_file.empty()) {
    std::ifstream in(seeds_file);
    if (!in) {
      fmt::print(stderr, "sim: cannot read {}\n", seeds_file);
      return 2;
    }
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line.substr(0, line.find('#')));
      std::uint64_t s;
      if (words >> s) seeds.push_back(s);
    }
  } else {
    for (long i = 0; i < count; ++i) seeds.push_back(first + static_cast<std::uint64_t>(i));
  }
  auto allowed = [&](const std::string& kind) {
    for (auto& a : allow)
      if (kind.rfind(a, 0) == 0 ||
          (kind.size() > a.size() && kind.compare(kind.size() - a.size(), a.size(), a) == 0 &&
           kind[kind.size() - a.size() - 1] == '/'))
        return true;
    return false;
  };

  struct ClassStats {
    long schedules = 0;  // schedules that hit it
    std::uint64_t first_seed = 0;
    long first_after = 0;  // schedules run until the first hit
  };
  std::map<std::string, ClassStats> classes;
  long failing = 0, kills = 0, calls = 0;
  sim::Spent spent;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  for (size_t k = 0; k < seeds.size(); ++k) {
    sim::Outcome o = sim::run_schedule(seeds[k], options);
    kills += o.kills;
    spent.open += o.spent.open, spent.engine += o.spent.engine, spent.check += o.spent.check;
    calls += o.calls;
    std::set<std::string> hit;
    bool fails = false;
    for (auto& v : o.violations) {
      hit.insert(v.kind);
      fails |= !allowed(v.kind);
    }
    if (kinds) fmt::print("kinds {}: {}\n", seeds[k], fmt::join(hit, " "));
    for (auto& kind : hit) {
      auto& c = classes[kind];
      if (c.schedules++ == 0) c.first_seed = seeds[k], c.first_after = static_cast<long>(k) + 1;
    }
    if (!kinds && (fails || (seed && !o.violations.empty()))) {
      ++failing;
      if (failing <= 20 || seed) {
        fmt::print("seed {}: {}\n", seeds[k], o.summary);
        for (auto& v : o.violations)
          fmt::print("  {}{}: {}\n", v.kind, allowed(v.kind) ? " (allowed)" : "", v.what);
        fmt::print("  replay: sim --seed {} --trace\n", seeds[k]);
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  fs::remove_all(dir);
  fmt::print("{} schedules in {:.1f} s ({:.0f}/s), {} kill -9 and resume, {} calls into the world\n",
             seeds.size(), secs, static_cast<double>(seeds.size()) / secs, kills, calls);
  for (auto& [kind, c] : classes)
    fmt::print("  {:28} {:6} schedules; first: seed {} (after {} schedules){}\n", kind, c.schedules,
               c.first_seed, c.first_after, allowed(kind) ? " [allowed]" : "");
  if (bench) {
    fmt::print(
        "time: {:.1f} s opening catalogs, {:.1f} s in the engine (its catalog included), {:.1f} s checking, "
        "{:.1f} s the rest (model, driver)\n",
        spent.open, spent.engine, spent.check, secs - spent.open - spent.engine - spent.check);
    bench::target("simulated schedules per CPU second", static_cast<double>(seeds.size()) / cpu,
                  bench::Op::at_least, 1000, "schedules/s");
    fmt::print("violations found: {} schedules of {}\n", failing, seeds.size());
  }
  return failing ? 1 : 0;
}
