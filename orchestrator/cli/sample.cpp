// `campaign sample [--interval SEC] [--out FILE] [--pid PID] [--gpu auto|on|off] [--duration SEC]
// [--powercap DIR]`: the utilisation, usage and power sampler (sample/sampler.hpp) a job script
// starts beside its command (a job's `sample:` option) and stops with SIGTERM. Exit status 0 when
// stopped, 1 on a write error.
#include <cstdlib>
#include <iostream>

#include "cli/cli.hpp"
#include "sample/sampler.hpp"
#include "sched/launchers.hpp"

namespace campaign::cli {

void add_sample(CLI::App& app, int& status) {
  // Seconds: a positive number (CLI::PositiveNumber's message prints the largest double).
  const CLI::Validator seconds(
      [](std::string& s) {
        double v = 0;
        try {
          v = std::stod(s);
        } catch (...) {
        }
        return v > 0 ? std::string() : "expected a positive number of seconds, got '" + s + "'";
      },
      "SEC>0");
  auto o = std::make_shared<sample::Options>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "sample",
      "Sample this node's CPU utilisation (and a process tree's, and the GPUs' through nvidia-smi) into "
      "utilisation-<node>.csv (the scheduler's name of the node, else the host's) until stopped "
      "(SIGTERM/SIGINT), --pid ends or --duration passes; the GPUs' and CPU packages' power into "
      "power-<node>.csv and what the job used (cores, memory, which GPUs, energy) into usage-<node>.csv, "
      "counting the GPUs CUDA_VISIBLE_DEVICES names where it is set");
  cmd->add_option("--interval", o->interval_s, "Seconds between samples (default 0.1)")->check(seconds);
  cmd->add_option("--out", *out, "The CSV file rows are appended to (default utilisation-<node>.csv)");
  cmd->add_option("--pid", o->pid,
                  "Also sample this process and its descendants (device proc); stop when it ends")
      ->check(CLI::PositiveNumber);
  auto gpu = std::make_shared<std::string>("auto");
  cmd->add_option("--gpu", *gpu, "GPUs through nvidia-smi: auto (where it is on PATH), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_option("--duration", o->duration_s, "Stop after this many seconds (default: when stopped)")
      ->check(seconds);
  cmd->add_option("--powercap", o->powercap,
                  "Where the RAPL package counters are read (default /sys/class/powercap)");
  cmd->callback([o, out, gpu, &status] {
    o->out = *out;
    // In a scheduler's job the node is named as its node lists name it (the catalog's nodes).
    for (const char* v : sched::kNodeNameVariables)
      if (const char* node = std::getenv(v); o->out.empty() && node && *node)
        o->out = sample::kOutputPrefix + std::string(node) + ".csv";
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) o->visible_devices = v;
    o->gpu = *gpu == "on" ? sample::Gpu::on : *gpu == "off" ? sample::Gpu::off : sample::Gpu::auto_;
    status = sample::run(*o, std::cerr);
  });
}

}  // namespace campaign::cli
