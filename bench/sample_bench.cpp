// The utilisation sampler's own cost (issue 13: under 1 % of one core at 10 Hz): runs it in this
// process for --seconds at --interval, sampling the node, the process tree of this benchmark's
// parent (as a job script's --pid $$ does) and nvidia-smi where there is one, and prints the CPU
// time it used (utime+stime of /proc/self/stat) as a percentage of one core.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sample/proc_stat.hpp"
#include "sample/sampler.hpp"

using namespace campaign;

namespace {
unsigned long long own_ticks() {
  std::ifstream f("/proc/self/stat");
  std::stringstream s;
  s << f.rdbuf();
  auto st = sample::parse_pid_stat(s.str());
  return st ? st->ticks : 0;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs campaign sample's loop for a while and prints its CPU time as % of one core"};
  double seconds = 20, interval = 0.1;
  app.add_option("--seconds", seconds, "How long to sample (default 20)");
  app.add_option("--interval", interval, "Seconds between samples (default 0.1, 10 Hz)");
  CLI11_PARSE(app, argc, argv);

  auto out = std::filesystem::temp_directory_path() / ("sample-bench-" + std::to_string(::getpid()) + ".csv");
  sample::Options o;
  o.interval_s = interval;
  o.out = out;
  o.pid = static_cast<int>(::getppid());
  o.duration_s = seconds;
  const long hz = ::sysconf(_SC_CLK_TCK);
  unsigned long long before = own_ticks();
  auto t0 = std::chrono::steady_clock::now();
  int status = sample::run(o, std::cerr);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  unsigned long long used = own_ticks() - before;
  size_t rows = 0;
  {
    std::ifstream f(out);
    for (std::string line; std::getline(f, line);) ++rows;
  }
  std::filesystem::remove(out);
  if (status != 0) return status;
  double percent = sample::core_percent(used, wall, hz);
  std::printf("sampled %.1f s at %.0f Hz: %zu rows (cpu, proc%s)\n", wall, 1 / interval, rows ? rows - 1 : 0,
              ", gpu where nvidia-smi runs");
  std::printf("sampler CPU time: %.2f s = %.3f %% of one core (target < 1 %%; %ld ticks/s resolution)\n",
              static_cast<double>(used) / static_cast<double>(hz), percent, hz);
  return 0;
}
