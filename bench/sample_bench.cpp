// The utilisation sampler's own cost (issue 13): runs it in this process for --seconds at
// --interval, sampling the node, the process tree of this benchmark's parent (as a job script's
// --pid $$ does) and, where nvidia-smi is on the PATH, the GPUs through one long-lived
// `nvidia-smi -lms` child. Its cost is the CPU time of this process (utime+stime of
// /proc/self/stat) plus that of its children (the nvidia-smi, reaped when the sampler stops:
// getrusage RUSAGE_CHILDREN), as a percentage of one core; the rows it wrote are counted per device,
// so GPU rows are claimed only when there are some. Target: under 1 % of one core at 10 Hz.
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sample/proc_stat.hpp"
#include "sample/sampler.hpp"
#include "targets.hpp"

using namespace campaign;

namespace {

unsigned long long own_ticks() {
  std::ifstream f("/proc/self/stat");
  std::stringstream s;
  s << f.rdbuf();
  auto st = sample::parse_pid_stat(s.str());
  return st ? st->ticks : 0;
}

double children_cpu_s() {
  struct rusage ru {};
  getrusage(RUSAGE_CHILDREN, &ru);
  auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Runs campaign sample's loop for a while and prints its CPU time, its nvidia-smi child's included, as "
      "% "
      "of one core"};
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
  double children_before = children_cpu_s();
  auto t0 = std::chrono::steady_clock::now();
  int status = sample::run(o, std::cerr);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double own_s = static_cast<double>(own_ticks() - before) / static_cast<double>(hz);
  double children_s = children_cpu_s() - children_before;
  std::map<std::string, size_t> rows;  // per device: cpu, proc, gpu<i>
  {
    std::ifstream f(out);
    std::string line;
    std::getline(f, line);  // header
    while (std::getline(f, line)) {
      auto a = line.find(','), b = line.find(',', a + 1);
      if (a != std::string::npos && b != std::string::npos) ++rows[line.substr(a + 1, b - a - 1)];
    }
  }
  std::filesystem::remove(out);
  if (status != 0) {
    std::printf("FAILED: the sampler exited %d\n", status);
    return 1;
  }
  std::string devices;
  size_t gpu_rows = 0;
  for (auto& [device, n] : rows) {
    devices += (devices.empty() ? "" : ", ") + std::to_string(n) + " " + device;
    if (device.rfind("gpu", 0) == 0) gpu_rows += n;
  }
  std::printf("sampled %.1f s at %.0f Hz: rows %s%s\n", wall, 1 / interval,
              devices.empty() ? "none" : devices.c_str(),
              gpu_rows ? "" : " (no GPU rows: no nvidia-smi on the PATH, or it gave none)");
  double percent = 100 * (own_s + children_s) / wall;
  std::printf(
      "CPU time: sampler %.2f s + its children (nvidia-smi) %.2f s = %.3f %% of one core (%ld ticks/s)\n",
      own_s, children_s, percent, hz);
  bool ok = rows["cpu"] > 0 && rows["proc"] > 0;
  if (!ok) std::printf("FAILED: no cpu or proc rows\n");
  bench::target(
      "sampler CPU at " + std::to_string(static_cast<int>(1 / interval + 0.5)) + " Hz, children included",
      percent, bench::Op::below, 1, "% of one core");
  return ok ? 0 : 1;
}
