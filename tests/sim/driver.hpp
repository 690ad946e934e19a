// One schedule: a random small campaign and a fault schedule drawn from a seed, the real engine run
// through them on the virtual clock (killed and resumed where the schedule says), then the invariants.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "invariants.hpp"

namespace sim {

struct ScheduleOptions {
  bool trace = false;             // print the world's events and the engine's log
  std::filesystem::path workdir;  // the catalog's directory (tmpfs for speed), reused by each schedule
  // "all"; "kills": only kill -9 and resume (with the killed run's sbatch landing late); "none": no fault
  // at all. The campaign drawn from a seed is the same under each.
  std::string faults = "all";
  // After every tick, the engine's cached rows must equal the catalog's (violation "cached_rows"), and
  // its memory what the catalog's observations fold to (violation "memory": what a new engine would
  // start from after a kill -9).
  bool check_rows = false;
};

// Where a schedule's real time went, in seconds (for the bench).
struct Spent {
  double open = 0;    // Catalog::open (a fresh catalog at the start, again after each kill)
  double engine = 0;  // Engine::start, tick, cancel, finished: the engine and its catalog
  double check = 0;   // reading the catalog's attempts back and checking the invariants
};

struct Outcome {
  Spent spent;
  std::vector<Violation> violations;
  std::string summary;  // the campaign and faults drawn, for the report
  int kills = 0;
  long calls = 0;
  double virtual_s = 0;
};

Outcome run_schedule(std::uint64_t seed, const ScheduleOptions& options);

}  // namespace sim
