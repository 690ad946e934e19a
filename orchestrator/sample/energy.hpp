// Energy from what a node exposes: power readings integrated over their time stamps (GPUs: nvidia-smi's
// power.draw; this driver generation has no energy counter field), the CPU packages' RAPL counters
// under powercap (/sys/class/powercap/intel-rapl:N, `energy_uj`, wrapping at `max_energy_range_uj`),
// and the share of a figure that a case's held resources make of a whole (a node's package energy,
// an allocation's `sacct` ConsumedEnergy among its packed cases).
//
// Invariants: energy is never extrapolated: the trapezoid spans the first to the last reading only,
// and a reading not later than the one before it adds nothing; a counter read once gives no energy.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace campaign::sample {

// Power readings of one device as they come, integrated by the trapezoid rule over their time stamps:
// sum of (t[i] - t[i-1]) * (w[i] + w[i-1]) / 2.
class PowerIntegral {
 public:
  void add(double time, double watts);
  double joules() const { return joules_; }
  double seconds() const { return last_ && first_ ? *last_ - *first_ : 0; }
  std::size_t readings() const { return readings_; }
  // Energy over the time it spans; nullopt with fewer than two readings.
  std::optional<double> mean_watts() const;

 private:
  std::optional<double> first_, last_;
  double last_watts_ = 0;
  double joules_ = 0;
  std::size_t readings_ = 0;
};

// MLPerf Power's energy to train, for one device: the power samples that fall within the run's window
// [start, stop] (run_start to run_stop of the MLPerf log), integrated over time (PowerIntegral's
// trapezoid; nothing interpolated at the window's edges); nullopt with fewer than two such samples.
// `times` and `watts` pair up, in time order.
std::optional<double> energy_within(const std::vector<double>& times, const std::vector<double>& watts,
                                    double start, double stop);

// A counter's growth from `before` to `after`, once round when it wrapped at `max_range`
// (after < before); nullopt when it went back without a known range.
std::optional<unsigned long long> counter_delta(unsigned long long before, unsigned long long after,
                                                unsigned long long max_range);

// The CPU package zones of powercap: the top-level zones `intel-rapl:N` named `package-*` (not their
// subzones `core`, `uncore`, `dram`, nor `psys`, which hold parts or all of the same energy).
// `absent`: no such zone under root (no powercap, or no RAPL); `unreadable`: the zones are there but
// `energy_uj` cannot be read (root only since Linux 5.10); `readable`: every package's counter reads.
struct PackageZone {
  std::string name;  // "package-0"
  std::filesystem::path energy;
  unsigned long long max_range_uj = 0;
};
struct Powercap {
  enum State { absent, unreadable, readable } state = absent;
  std::vector<PackageZone> packages;
};
Powercap find_packages(const std::filesystem::path& root);
const char* to_string(Powercap::State s);
std::optional<unsigned long long> read_energy_uj(const PackageZone& zone);

// `total` split in proportion to what each part held (units x seconds: cores x s, GPUs x s); parts
// that held nothing get 0; all zeros when nothing was held. The shares add up to `total`.
std::vector<double> split_by_held(double total, const std::vector<double>& held);

}  // namespace campaign::sample
