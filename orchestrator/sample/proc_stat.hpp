// CPU utilisation from /proc: the whole node's (/proc/stat) and a process tree's
// (/proc/<pid>/stat of a process and its descendants). Parsing and the delta arithmetic are pure
// functions of the files' text, so they are tested without a /proc of a given shape.
//
// Invariant: a utilisation is computed from two readings of the same counters, never from one
// (the counters count since boot or since the process started).
#pragma once

#include <map>
#include <optional>
#include <string_view>
#include <utility>

namespace campaign::sample {

// The first line of /proc/stat ("cpu  user nice system idle iowait irq softirq steal ..."), in
// clock ticks summed over all CPUs. busy excludes idle and iowait; guest time is already in user.
struct CpuTimes {
  unsigned long long busy = 0;
  unsigned long long total = 0;
};
std::optional<CpuTimes> parse_proc_stat(std::string_view text);
// Percent of the node's CPU time that was busy between two readings; nullopt when no tick passed.
std::optional<double> cpu_percent(const CpuTimes& before, const CpuTimes& after);

// The fields of /proc/<pid>/stat a tree needs. The command name (field 2) may hold spaces and
// parentheses, so fields are counted after its last ')'.
struct PidStat {
  int pid = 0;
  int ppid = 0;
  unsigned long long ticks = 0;      // utime + stime
  unsigned long long start = 0;      // starttime: with pid, names one process even when pids are reused
  unsigned long long rss_pages = 0;  // rss (field 24), resident pages; 0 when the line stops before it
};
std::optional<PidStat> parse_pid_stat(std::string_view text);

// The CPU ticks of each process of a tree at one reading, keyed by (pid, starttime).
using TreeTicks = std::map<std::pair<int, unsigned long long>, unsigned long long>;
// Ticks the tree used between two readings: each process's growth; a process new to the tree
// counts from 0 (it started in the interval); a process gone since counts no more (what it used
// after the earlier reading is lost: short-lived processes are under-counted, never double-counted).
unsigned long long tree_delta(const TreeTicks& before, const TreeTicks& after);
// Percent of one core: `ticks` over `seconds` of wall time at `ticks_per_second` (may exceed 100).
double core_percent(unsigned long long ticks, double seconds, long ticks_per_second);

// Reading /proc. nullopt / empty when the files cannot be read (no /proc, process gone).
std::optional<CpuTimes> read_cpu_times();
// The process `root` and its descendants, without `exclude` and its descendants (the sampler
// itself, when it samples the job script that started it). Children are found through
// /proc/<pid>/task/<tid>/children where the kernel has it, else by scanning every /proc/<pid>/stat.
// `rss_pages`, when given, gets the resident pages summed over the tree (field 24 of each stat:
// shared pages count once per process, as ps and Slurm's jobacct_gather/linux count them).
TreeTicks read_tree(int root, int exclude, unsigned long long* rss_pages = nullptr);

}  // namespace campaign::sample
