// A benchmark's reference, measured beside it in the same run: another program (the pandas code a
// study would write, run with Debian's /usr/bin/python3) timed from its start to its exit. It prints
// its results on stdout for the benchmark to compare with its own, and as its last line its peak
// memory, its /proc/self/status "VmHWM:" line: getrusage's ru_maxrss of a child started by
// posix_spawn would count the parent's memory it shared before exec.
#pragma once

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "util/process.hpp"

namespace bench {

struct Reference {
  bool ok = false;     // started, and exited 0
  std::string why;     // when not ok: what went wrong (its last line of stderr)
  double wall_s = 0;   // start to exit
  double peak_mb = 0;  // its VmHWM; 0 when it did not say
  std::string out;     // its stdout, without the VmHWM line
};

inline Reference run_reference(const std::vector<std::string>& argv, std::chrono::seconds timeout) {
  campaign::RunOptions o;
  o.timeout = timeout;
  auto t0 = std::chrono::steady_clock::now();
  campaign::RunResult r = campaign::run_program(argv, o);
  Reference ref;
  ref.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ref.out = r.out;
  if (auto at = ref.out.rfind("VmHWM:"); at != std::string::npos) {
    ref.peak_mb = std::strtod(ref.out.c_str() + at + 6, nullptr) / 1024.0;  // "VmHWM:  123456 kB"
    ref.out.erase(at);
  }
  ref.ok = r.start_error == 0 && !r.timed_out && r.status && campaign::shell_exit_code(*r.status) == 0;
  if (!ref.ok) {
    std::string err = r.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    auto nl = err.rfind('\n');
    ref.why = r.start_error ? argv[0] + ": cannot start"
              : r.timed_out ? argv[0] + ": timed out"
                            : (nl == std::string::npos ? err : err.substr(nl + 1));
    if (ref.why.empty()) ref.why = argv[0] + " failed";
  }
  return ref;
}

}  // namespace bench
