// `campaign sample`: a utilisation sampler beside a job, one per node. Every `interval` seconds it
// appends the node's CPU utilisation (device `cpu`, /proc/stat) and, with a pid, that process
// tree's (device `proc`, percent of one core); where nvidia-smi runs it keeps ONE nvidia-smi -lms
// going and appends its readings as `gpu<index>`. File format: `time,device,utilization`
// (docs: the issue 13 contract, format 3), Unix seconds, one file per node.
//
// Beside it, what the case used and the energy (issue 31): `power-<node>.csv` (`time,device,watts`:
// `gpu<index>` from nvidia-smi's power.draw, `package-<n>` from the RAPL counters' growth over each
// interval) and `usage-<node>.csv` (`quantity,value`, rewritten whole about once a second and at the
// end: see `Usage`). GPUs count only where the job holds them: those CUDA_VISIBLE_DEVICES names
// (indices or UUIDs) when it is set, else every GPU nvidia-smi shows.
//
// Invariants: each batch of rows is written and flushed before the next wait, so a job killed
// mid-way keeps what was sampled; within a device, times only increase (a reading not later than
// the device's last one is dropped); the sampler never outlives SIGTERM/SIGINT, its --pid or its
// --duration by more than one interval, and takes its nvidia-smi with it.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

namespace campaign::sample {

enum class Gpu { auto_, on, off };

struct Options {
  double interval_s = 0.1;
  // Empty: utilisation-<hostname>.csv here (`campaign sample` names the scheduler's node first).
  std::filesystem::path out;
  int pid = 0;  // 0: no process tree; else stop when it ends
  Gpu gpu = Gpu::auto_;
  double duration_s = 0;                                   // 0: until stopped
  std::string smi = "nvidia-smi";                          // the program (tests put a fake in its place)
  std::filesystem::path powercap = "/sys/class/powercap";  // RAPL's root (tests put a fake there)
  // CUDA_VISIBLE_DEVICES as the job sees it; nullopt: unset (every GPU is the job's).
  std::optional<std::string> visible_devices;
  // Empty: power-<X> and usage-<X> beside `out`, X its name without "utilisation-".
  std::filesystem::path power_out, usage_out;
};

// Whether GPU `index` (`uuid`) is one the job holds, by CUDA_VISIBLE_DEVICES ("0,2", "GPU-...",
// "" for none; an entry that is neither an index nor a UUID prefix, such as MIG-..., matches nothing).
bool holds_gpu(const std::optional<std::string>& visible, int index, const std::string& uuid);

// What `usage-<node>.csv` holds, one `quantity,value` line each, a line only where it was measured:
//   seconds                     sampled wall time
//   cores_held                  CPUs of the sampler's affinity mask (the job's cpuset)
//   cores_used_mean             the tree's CPU time / seconds (with --pid)
//   cpu_seconds                 the tree's CPU time (with --pid)
//   rss_peak_mib                the tree's resident memory at its largest sample (with --pid)
//   gpus_held                   GPUs nvidia-smi showed that the job holds
//   gpus_used                   GPUs a process of the tree held a context on (with --pid; else any
//                               process on a held GPU): nvidia-smi --query-compute-apps
//   gpu_apps                    those processes
//   gpu_memory_peak_mib         memory.used of the held GPUs at its largest, summed over them
//   gpu_energy_j                the held GPUs' power.draw integrated (trapezoid over nvidia-smi's
//                               time stamps), summed
//   gpu_power_mean_w            gpu_energy_j over the seconds the readings span
//   gpu_power_readings          readings integrated
//   cpu_package_readable        1 when the RAPL package counters read, 0 when they are there but
//                               not readable (no line: no powercap package zone on the node)
//   cpu_package_energy_j        the node's packages' energy over the run (counters' growth)
//   cpu_package_share           cores_held / the node's online CPUs
//   cpu_package_energy_share_j  cpu_package_energy_j x cpu_package_share: the case's share
inline constexpr const char* kUsageHeader = "quantity,value";
inline constexpr const char* kPowerHeader = "time,device,watts";

inline constexpr const char* kHeader = "time,device,utilization";
// utilisation-<hostname>.csv: one file per node of the job, matched by kOutputGlob.
inline constexpr const char* kOutputPrefix = "utilisation-";
inline constexpr const char* kOutputGlob = "utilisation-*.csv";
inline constexpr const char* kPowerGlob = "power-*.csv";
inline constexpr const char* kUsageGlob = "usage-*.csv";
std::filesystem::path default_output();

// Samples until stopped. Returns the exit status: 0 when stopped by a signal, by the end of --pid
// or of --duration; 1 when the file cannot be written or --gpu on finds no nvidia-smi.
int run(const Options& options, std::ostream& log);

}  // namespace campaign::sample
