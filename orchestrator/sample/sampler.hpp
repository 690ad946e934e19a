// `campaign sample`: a utilisation sampler beside a job, one per node. Every `interval` seconds it
// appends the node's CPU utilisation (device `cpu`, /proc/stat) and, with a pid, that process
// tree's (device `proc`, percent of one core); where nvidia-smi runs it keeps ONE nvidia-smi -lms
// going and appends its readings as `gpu<index>`. File format: `time,device,utilization`
// (docs: the issue 13 contract, format 3), Unix seconds, one file per node.
//
// Invariants: each batch of rows is written and flushed before the next wait, so a job killed
// mid-way keeps what was sampled; within a device, times only increase (a reading not later than
// the device's last one is dropped); the sampler never outlives SIGTERM/SIGINT, its --pid or its
// --duration by more than one interval, and takes its nvidia-smi with it.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

namespace campaign::sample {

enum class Gpu { auto_, on, off };

struct Options {
  double interval_s = 0.1;
  // Empty: utilisation-<hostname>.csv here (`campaign sample` names the scheduler's node first).
  std::filesystem::path out;
  int pid = 0;  // 0: no process tree; else stop when it ends
  Gpu gpu = Gpu::auto_;
  double duration_s = 0;           // 0: until stopped
  std::string smi = "nvidia-smi";  // the program (tests put a fake in its place)
};

inline constexpr const char* kHeader = "time,device,utilization";
// utilisation-<hostname>.csv: one file per node of the job, matched by kOutputGlob.
inline constexpr const char* kOutputPrefix = "utilisation-";
inline constexpr const char* kOutputGlob = "utilisation-*.csv";
std::filesystem::path default_output();

// Samples until stopped. Returns the exit status: 0 when stopped by a signal, by the end of --pid
// or of --duration; 1 when the file cannot be written or --gpu on finds no nvidia-smi.
int run(const Options& options, std::ostream& log);

}  // namespace campaign::sample
