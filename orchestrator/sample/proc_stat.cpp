#include "sample/proc_stat.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <string>
#include <vector>

#include "util/fd.hpp"

namespace campaign::sample {

namespace {

// The next blank-separated unsigned number of `s` from `pos`; nullopt at the end or on a non-number.
std::optional<unsigned long long> next_number(std::string_view s, size_t& pos) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
  unsigned long long v = 0;
  auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), v);
  if (ec != std::errc()) return std::nullopt;
  pos = static_cast<size_t>(end - s.data());
  return v;
}

// The whole of a small /proc file (one read is not enough for /proc/stat on big nodes).
std::optional<std::string> slurp(const char* path) {
  Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.open()) return std::nullopt;
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

std::optional<PidStat> read_pid(int pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  auto text = slurp(path.c_str());
  return text ? parse_pid_stat(*text) : std::nullopt;
}

// Children of `pid` from the kernel's per-thread lists; nullopt when the kernel has none.
std::optional<std::vector<int>> children_of(int pid) {
  std::string task = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(task.c_str());
  if (!d) return std::vector<int>{};  // gone
  std::vector<int> out;
  bool supported = true;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    auto text = slurp((task + "/" + e->d_name + "/children").c_str());
    if (!text) {
      supported = ::access((task + "/" + e->d_name).c_str(), F_OK) != 0;  // a thread that just ended
      if (!supported) break;
      continue;
    }
    size_t pos = 0;
    while (auto v = next_number(*text, pos)) out.push_back(static_cast<int>(*v));
  }
  ::closedir(d);
  if (!supported) return std::nullopt;
  return out;
}

// Every process's parent, by scanning /proc.
std::vector<PidStat> all_processes() {
  std::vector<PidStat> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    int pid = 0;
    auto [end, ec] = std::from_chars(e->d_name, e->d_name + std::char_traits<char>::length(e->d_name), pid);
    if (ec != std::errc() || *end != '\0') continue;
    if (auto s = read_pid(pid)) out.push_back(*s);
  }
  ::closedir(d);
  return out;
}

}  // namespace

std::optional<CpuTimes> parse_proc_stat(std::string_view text) {
  if (text.substr(0, 4) != "cpu ") return std::nullopt;
  size_t pos = 4;
  // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user and nice)
  unsigned long long f[8] = {};
  int n = 0;
  for (; n < 8; ++n) {
    auto v = next_number(text, pos);
    if (!v) break;
    f[n] = *v;
  }
  if (n < 4) return std::nullopt;  // kernels before 2.6 had four fields; fewer is not /proc/stat
  CpuTimes t;
  for (auto v : f) t.total += v;
  t.busy = t.total - f[3] - f[4];
  return t;
}

std::optional<double> cpu_percent(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total || after.busy < before.busy) return std::nullopt;
  double busy = static_cast<double>(after.busy - before.busy);
  return 100.0 * busy / static_cast<double>(after.total - before.total);
}

std::optional<PidStat> parse_pid_stat(std::string_view text) {
  PidStat s;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s.pid);
  size_t close = text.rfind(')');
  if (ec != std::errc() || close == std::string_view::npos) return std::nullopt;
  // After ')': state (field 3), then ppid (4) ... utime (14), stime (15) ... starttime (22).
  size_t pos = close + 1;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  while (pos < text.size() && text[pos] != ' ') ++pos;  // the state letter
  long long f[22] = {};
  for (int field = 4; field <= 22; ++field) {
    // Some fields are signed (tpgid is -1 without a terminal; priority and nice).
    while (pos < text.size() && text[pos] == ' ') ++pos;
    auto [e, err] = std::from_chars(text.data() + pos, text.data() + text.size(), f[field - 1]);
    if (err != std::errc()) return std::nullopt;
    pos = static_cast<size_t>(e - text.data());
  }
  if (f[13] < 0 || f[14] < 0 || f[21] < 0) return std::nullopt;
  // vsize (23), rss (24): read where the line has them.
  for (int field = 23; field <= 24; ++field) {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    long long v = 0;
    auto [e, err] = std::from_chars(text.data() + pos, text.data() + text.size(), v);
    if (err != std::errc()) break;
    pos = static_cast<size_t>(e - text.data());
    if (field == 24 && v > 0) s.rss_pages = static_cast<unsigned long long>(v);
  }
  s.ppid = static_cast<int>(f[3]);
  s.ticks = static_cast<unsigned long long>(f[13] + f[14]);
  s.start = static_cast<unsigned long long>(f[21]);
  return s;
}

unsigned long long tree_delta(const TreeTicks& before, const TreeTicks& after) {
  unsigned long long sum = 0;
  for (auto& [key, ticks] : after) {
    auto it = before.find(key);
    unsigned long long prev = it == before.end() ? 0 : it->second;
    if (ticks > prev) sum += ticks - prev;
  }
  return sum;
}

double core_percent(unsigned long long ticks, double seconds, long ticks_per_second) {
  if (seconds <= 0 || ticks_per_second <= 0) return 0;
  return 100.0 * static_cast<double>(ticks) / static_cast<double>(ticks_per_second) / seconds;
}

std::optional<CpuTimes> read_cpu_times() {
  auto text = slurp("/proc/stat");
  return text ? parse_proc_stat(*text) : std::nullopt;
}

TreeTicks read_tree(int root, int exclude, unsigned long long* rss_pages) {
  TreeTicks out;
  if (rss_pages) *rss_pages = 0;
  auto add = [&](const PidStat& s) {
    out[{s.pid, s.start}] = s.ticks;
    if (rss_pages) *rss_pages += s.rss_pages;
  };
  std::vector<int> todo = {root};
  std::vector<PidStat> scanned;  // filled on the first process whose children the kernel cannot list
  bool scan = false;
  while (!todo.empty()) {
    int pid = todo.back();
    todo.pop_back();
    if (pid == exclude) continue;
    auto s = read_pid(pid);
    if (!s) continue;  // ended meanwhile
    add(*s);
    std::optional<std::vector<int>> kids = scan ? std::nullopt : children_of(pid);
    if (!kids) {
      if (!scan) scanned = all_processes(), scan = true;
      kids.emplace();
      for (auto& p : scanned)
        if (p.ppid == pid) kids->push_back(p.pid);
    }
    todo.insert(todo.end(), kids->begin(), kids->end());
  }
  return out;
}

}  // namespace campaign::sample
