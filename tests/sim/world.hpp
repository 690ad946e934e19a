// What the simulated world shares: a seeded random source, the virtual clock, the fault schedule, the
// counter of calls into the world (where kill -9 strikes) and the trace. Everything is deterministic
// given the seed: no real time, no threads, no real files besides the catalog.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "engine/policy.hpp"

namespace sim {

// splitmix64: the same numbers on every platform and standard library (std distributions are not).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  long below(long n) { return static_cast<long>(next() % static_cast<std::uint64_t>(n)); }
  double uniform(double a, double b) { return a + (b - a) * static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return p > 0 && uniform(0, 1) < p; }
};

// Virtual seconds since the schedule began; wall time is an arbitrary fixed epoch plus them.
struct VirtualClock {
  double t = 0;
  campaign::Time wall() const {
    return campaign::Time(std::chrono::seconds(1'800'000'000 + static_cast<long>(t)));
  }
  campaign::engine::Clock::time_point steady() const {
    return campaign::engine::Clock::time_point(
        std::chrono::duration_cast<campaign::engine::Clock::duration>(std::chrono::duration<double>(t)));
  }
};

// One schedule's faults, drawn from its seed (driver.cpp).
struct Faults {
  double flaky = 0;       // a scheduler or workspace call fails (transport) with this probability
  double land_late = 0;   // a submission that failed transiently still lands, later
  double land_twice = 0;  // a submission lands twice and its answer is lost
  std::vector<std::pair<double, double>> outages;  // slurmctld unreachable in [from, to)
  double fail = 0;                                 // a case's command exits 1
  double node_fail = 0, timeout = 0, preempt = 0;  // a job or allocation is cut
  double srun_exits_0 = 0;      // after a node failure, srun exits 0 (marker 0, accounting NODE_FAIL)
  double refused_in_dying = 0;  // a packed case launched as its allocation dies: srun fails at once
  double lag_max = 0;           // accounting lag (slurmdbd behind slurmctld), seconds
  double min_job_age = 300;     // slurmctld forgets ended jobs after this
  std::vector<long> kills;      // call points at which `campaign run` is killed (ascending)
};

// kill -9 of `campaign run`: thrown from inside any call into the world; nothing catches it but the driver.
struct KillNine {};

struct Trace {
  bool on = false;
  const VirtualClock* clock = nullptr;
  void operator()(const std::string& line) const { (*this)(clock ? clock->t : 0.0, line); }
  // Something that happened at `at` (the model moves jobs to the clock's time after the fact).
  void operator()(double at, const std::string& line) const {
    if (on) std::printf("[t=%7.1f] %s\n", at, line.c_str());
  }
};

// Every call into the world (scheduler, workspace) passes here: the fault schedule's kill points.
struct Calls {
  long n = 0;
  std::vector<long> kills;
  size_t next = 0;
  const Trace* trace = nullptr;
  void point(const char* what) {
    ++n;
    if (getenv("SIM_CALLS")) (*trace)(std::string("call: ") + what);
    if (next < kills.size() && n >= kills[next]) {
      ++next;
      (*trace)(std::string("kill -9 of `campaign run` in ") + what);
      throw KillNine{};
    }
  }
};

}  // namespace sim
