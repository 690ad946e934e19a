#include "sample/sampler.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <vector>

#include "sample/energy.hpp"
#include "sample/nvidia_smi.hpp"
#include "sample/proc_stat.hpp"
#include "util/atomic_file.hpp"
#include "util/fd.hpp"
#include "util/process.hpp"
#include "util/signal_block.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace campaign::sample {

namespace {

using Mono = std::chrono::steady_clock;

// The rows' times: the wall clock, as the workload's epoch windows are.
double unix_now() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

struct Row {
  double time;
  std::string device;
  double utilization;  // or watts, in the power file
};

// Appends batches to the file, header first when it is new, keeping each device's times increasing.
class Writer {
 public:
  Writer(const fs::path& path, const char* header) : path_(path) {
    file_ = std::fopen(path.c_str(), "a");
    if (file_ && std::ftell(file_) == 0) std::fprintf(file_, "%s\n", header);
  }
  ~Writer() {
    if (file_) std::fclose(file_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  bool ok() const { return file_ != nullptr; }
  void digits(int d) { digits_ = d; }

  bool write(std::vector<Row>& batch) {
    std::stable_sort(batch.begin(), batch.end(), [](const Row& a, const Row& b) { return a.time < b.time; });
    for (auto& r : batch) {
      auto [it, fresh] = last_.try_emplace(r.device, r.time);
      if (!fresh && r.time <= it->second) continue;
      it->second = r.time;
      std::fprintf(file_, "%.3f,%s,%.*f\n", r.time, r.device.c_str(), digits_, r.utilization);
    }
    batch.clear();
    return std::fflush(file_) == 0 && !std::ferror(file_);
  }

 private:
  fs::path path_;
  std::FILE* file_ = nullptr;
  std::map<std::string, double> last_;
  int digits_ = 1;
};

bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon - start);
    if (::access(((dir.empty() ? "." : dir) + "/" + program).c_str(), X_OK) == 0) return true;
    if (colon == std::string::npos) return false;
    start = colon + 1;
  }
}

// One nvidia-smi -lms, its stdout read line by line; each complete line goes to `on_line`, which says
// whether it was a reading.
class Smi {
 public:
  using OnLine = std::function<bool(std::string_view)>;
  Smi(const std::string& program, const std::string& query, double interval_s, std::ostream& log,
      OnLine on_line)
      : log_(log), on_line_(std::move(on_line)), query_(query) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    Fd read_end(fds[0]), write_end(fds[1]);
    long ms = std::max(1L, std::lround(interval_s * 1000));
    std::vector<std::string> argv{program, query, "--format=csv,noheader,nounits", "-lms",
                                  std::to_string(ms)};
    std::vector<char*> cargv = c_array(argv);
    SpawnAttributes sa;
    posix_spawn_file_actions_addopen(&sa.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&sa.actions, write_end.get(), STDOUT_FILENO);
    sa.default_signals();
    int rc = ::posix_spawnp(&pid_, program.c_str(), &sa.actions, &sa.attr, cargv.data(), environ);
    if (rc != 0) {
      log_ << "campaign sample: cannot start " << program << ": " << std::strerror(rc) << "\n";
      pid_ = -1;
      return;
    }
    fd_ = std::move(read_end);
    ::fcntl(fd_.get(), F_SETFL, O_NONBLOCK);
  }
  ~Smi() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st;
      ::waitpid(pid_, &st, 0);
    }
  }
  Smi(const Smi&) = delete;
  Smi& operator=(const Smi&) = delete;
  int fd() const { return fd_.get(); }

  // Reads what is there; complete lines go to on_line. Returns false at end of output.
  bool drain() {
    char buf[4096];
    for (;;) {
      ssize_t n = ::read(fd_.get(), buf, sizeof buf);
      if (n > 0) {
        pending_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      bool open = n < 0 && errno == EAGAIN;
      size_t start = 0;
      for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string_view line(pending_.data() + start, nl - start);
        if (!on_line_(line) && !line.empty() && !warned_)
          log_ << "campaign sample: skipping nvidia-smi line '" << line << "'\n", warned_ = true;
      }
      pending_.erase(0, start);
      if (!open) {
        log_ << "campaign sample: nvidia-smi " << query_.substr(0, query_.find('='))
             << " ended; it is not sampled "
             << "any more\n";
        fd_.reset();
      }
      return open;
    }
  }

 private:
  std::ostream& log_;
  OnLine on_line_;
  std::string query_;
  pid_t pid_ = -1;
  Fd fd_;
  std::string pending_;
  bool warned_ = false;
};

bool alive(int pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// power-<X> / usage-<X> beside utilisation-<X>.
fs::path sibling_of(const fs::path& out, const std::string& prefix) {
  std::string name = out.filename().string();
  if (name.rfind(kOutputPrefix, 0) == 0) name = name.substr(std::string(kOutputPrefix).size());
  return out.parent_path() / (prefix + name);
}

int cores_of_mask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

// What the job used, accumulated over the samples (Options' usage-<node>.csv).
struct UsageTally {
  double seconds = 0;
  int cores_held = 0;
  bool tree = false;
  unsigned long long ticks = 0;
  unsigned long long rss_peak_pages = 0;
  std::set<int> tree_pids;
  bool gpus_seen = false;
  bool apps_queried = false;  // and answered: false again after an answer that is not a process
  struct GpuTally {
    std::string uuid;
    bool held = false;
    PowerIntegral power;
    double memory_peak = 0;
  };
  std::map<int, GpuTally> gpus;                // by index
  std::set<std::pair<int, std::string>> apps;  // (pid, gpu uuid)
  Powercap powercap;
  std::vector<std::optional<unsigned long long>> package_last;
  int package_reads = 0;
  double package_uj = 0;
  double online_cpus = 0;

  std::string text(long hz) const {
    std::ostringstream o;
    o.precision(10);
    o << kUsageHeader << "\n";
    auto line = [&](const char* q, double v) { o << q << "," << v << "\n"; };
    line("seconds", seconds);
    if (cores_held > 0) line("cores_held", cores_held);
    if (tree) {
      double cpu = static_cast<double>(ticks) / static_cast<double>(hz);
      line("cpu_seconds", cpu);
      if (seconds > 0) line("cores_used_mean", cpu / seconds);
      line("rss_peak_mib", static_cast<double>(rss_peak_pages) *
                               static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0));
    }
    if (gpus_seen) {
      int held = 0, readings = 0;
      double joules = 0, watts = 0, memory = 0;
      bool power = false;
      std::set<std::string> held_uuids;
      for (auto& [index, g] : gpus) {
        if (!g.held) continue;
        ++held;
        held_uuids.insert(g.uuid);
        memory += g.memory_peak;
        readings += static_cast<int>(g.power.readings());
        if (auto w = g.power.mean_watts()) power = true, joules += g.power.joules(), watts += *w;
      }
      line("gpus_held", held);
      line("gpu_memory_peak_mib", memory);
      if (power) {
        line("gpu_energy_j", joules);
        line("gpu_power_mean_w", watts);
        line("gpu_power_readings", readings);
      }
      if (apps_queried) {
        std::set<std::string> used;
        std::set<int> pids;
        for (auto& [pid, uuid] : apps)
          if (tree ? tree_pids.count(pid) > 0 : held_uuids.count(uuid) > 0)
            used.insert(uuid), pids.insert(pid);
        line("gpus_used", static_cast<double>(used.size()));
        line("gpu_apps", static_cast<double>(pids.size()));
      }
    }
    if (powercap.state != Powercap::absent)
      line("cpu_package_readable", powercap.state == Powercap::readable);
    if (powercap.state == Powercap::readable && package_reads >= 2) {
      double j = package_uj * 1e-6;
      line("cpu_package_energy_j", j);
      if (online_cpus > 0 && cores_held > 0) {
        // The node's packages over the case's run, split between its CPUs and the others by what each
        // held (the same seconds each: CPUs alone decide).
        double held = std::min<double>(cores_held, online_cpus);
        line("cpu_package_share", held / online_cpus);
        line("cpu_package_energy_share_j", split_by_held(j, {held, online_cpus - held})[0]);
      }
    }
    return o.str();
  }
};

}  // namespace

bool holds_gpu(const std::optional<std::string>& visible, int index, const std::string& uuid) {
  if (!visible) return true;
  for (const std::string& part : split(*visible, ',')) {
    const std::string entry = trim(part);
    if (starts_with(entry, "GPU-")) {
      if (!uuid.empty() && starts_with(uuid, entry)) return true;  // CUDA takes unique prefixes
      continue;
    }
    int n = -1;
    auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), n);
    if (!entry.empty() && ec == std::errc() && end == entry.data() + entry.size() && n == index) return true;
  }
  return false;
}

fs::path default_output() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  return fs::path(kOutputPrefix + std::string(host) + ".csv");
}

int run(const Options& o, std::ostream& log) {
  SignalFd signals{SIGTERM, SIGINT};
  fs::path out = o.out.empty() ? default_output() : o.out;
  const fs::path power_out = o.power_out.empty() ? sibling_of(out, "power-") : o.power_out;
  const fs::path usage_out = o.usage_out.empty() ? sibling_of(out, "usage-") : o.usage_out;
  Writer writer(out, kHeader);
  if (!writer.ok()) {
    log << "campaign sample: cannot write " << out.string() << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  std::optional<Writer> power_writer;  // opened at its first row: no file on a node without power readings
  std::vector<Row> power_batch;
  const long hz = ::sysconf(_SC_CLK_TCK);
  UsageTally usage;
  usage.cores_held = cores_of_mask();
  usage.online_cpus = static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN));
  usage.tree = o.pid > 0;
  usage.powercap = find_packages(o.powercap);
  usage.package_last.resize(usage.powercap.packages.size());
  std::vector<Row> batch;

  std::optional<Smi> smi, apps;
  if (o.gpu != Gpu::off) {
    if (on_path(o.smi)) {
      smi.emplace(o.smi, std::string("--query-gpu=") + kSmiQuery, o.interval_s, log,
                  [&](std::string_view line) {
                    auto r = parse_smi_line(line);
                    if (!r) return false;
                    std::string device = "gpu" + std::to_string(r->index);
                    batch.push_back({r->time, device, r->utilization});
                    auto& g = usage.gpus[r->index];
                    if (!r->uuid.empty()) g.uuid = r->uuid;
                    g.held = holds_gpu(o.visible_devices, r->index, g.uuid);
                    usage.gpus_seen = true;
                    if (!g.held) return true;
                    if (r->memory_mib) g.memory_peak = std::max(g.memory_peak, *r->memory_mib);
                    if (r->power_w) {
                      g.power.add(r->time, *r->power_w);
                      power_batch.push_back({r->time, device, *r->power_w});
                    }
                    return true;
                  });
      usage.apps_queried = true;
      apps.emplace(o.smi, std::string("--query-compute-apps=") + kSmiAppsQuery, o.interval_s, log,
                   [&](std::string_view line) {
                     auto a = parse_smi_app(line);
                     if (a) usage.apps.insert({a->pid, a->uuid});
                     // An answer that is neither a process nor "none" (an error, a driver that
                     // cannot list them): which GPUs were used is unknown, not "none".
                     else if (!line.empty() && line.find("No running processes") == std::string_view::npos)
                       usage.apps_queried = false;
                     return a.has_value();
                   });
    } else if (o.gpu == Gpu::on) {
      log << "campaign sample: --gpu on, but no " << o.smi << " on PATH\n";
      return 1;
    }
  }
  const int self = static_cast<int>(::getpid());
  const auto interval =
      std::chrono::duration_cast<Mono::duration>(std::chrono::duration<double>(o.interval_s));
  const Mono::time_point start = Mono::now();
  std::optional<Mono::time_point> end;
  if (o.duration_s > 0)
    end = start + std::chrono::duration_cast<Mono::duration>(std::chrono::duration<double>(o.duration_s));

  // The packages' counters: each interval's growth as power, the sum as the run's energy.
  auto read_packages = [&](double t, double seconds) {
    if (usage.powercap.state != Powercap::readable) return;
    for (size_t i = 0; i < usage.powercap.packages.size(); ++i) {
      auto& zone = usage.powercap.packages[i];
      auto now = read_energy_uj(zone);
      if (!now) continue;
      auto& last = usage.package_last[i];
      if (last && seconds > 0)
        if (auto d = counter_delta(*last, *now, zone.max_range_uj)) {
          usage.package_uj += static_cast<double>(*d);
          power_batch.push_back({t, zone.name, static_cast<double>(*d) * 1e-6 / seconds});
        }
      last = now;
    }
    ++usage.package_reads;
  };
  auto write_usage = [&] {
    try {
      write_file_atomic(usage_out, usage.text(hz));
      return true;
    } catch (const std::exception& e) {
      log << "campaign sample: " << e.what() << "\n";
      return false;
    }
  };

  std::optional<CpuTimes> cpu = read_cpu_times();
  TreeTicks tree;
  unsigned long long rss = 0;
  if (o.pid > 0) tree = read_tree(o.pid, self, &rss);
  for (auto& [key, ticks] : tree) usage.tree_pids.insert(key.first);
  usage.rss_peak_pages = rss;
  read_packages(unix_now(), 0);
  Mono::time_point last = start, next = start + interval, last_usage = start;
  for (bool stop = false; !stop;) {
    // Wait for the next sample time, reading nvidia-smi and watching for a signal meanwhile.
    for (;;) {
      auto now = Mono::now();
      if (now >= next) break;
      pollfd fds[3] = {
          {signals.get(), POLLIN, 0}, {smi ? smi->fd() : -1, POLLIN, 0}, {apps ? apps->fd() : -1, POLLIN, 0}};
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
      int n = ::poll(fds, 3, static_cast<int>(ms));
      if (n < 0 && errno != EINTR) break;
      if (n > 0 && (fds[1].revents & (POLLIN | POLLHUP))) smi->drain();
      if (n > 0 && (fds[2].revents & (POLLIN | POLLHUP)) && !apps->drain()) usage.apps_queried = false;
      if (n > 0 && (fds[0].revents & POLLIN)) {
        stop = true;
        break;
      }
    }
    // One sample: the node, the tree, whatever nvidia-smi said.
    auto now = Mono::now();
    double seconds = std::chrono::duration<double>(now - last).count();
    double t = unix_now();
    if (auto c = read_cpu_times()) {
      if (cpu)
        if (auto p = cpu_percent(*cpu, *c)) batch.push_back({t, "cpu", *p});
      cpu = c;
    }
    if (o.pid > 0) {
      TreeTicks now_tree = read_tree(o.pid, self, &rss);
      unsigned long long used = tree_delta(tree, now_tree);
      batch.push_back({t, "proc", core_percent(used, seconds, hz)});
      usage.ticks += used;
      usage.rss_peak_pages = std::max(usage.rss_peak_pages, rss);
      for (auto& [key, ticks] : now_tree) usage.tree_pids.insert(key.first);
      tree = std::move(now_tree);
      if (!alive(o.pid)) stop = true;
    }
    read_packages(t, seconds);
    if (smi && smi->fd() >= 0) smi->drain();
    // The compute apps' nvidia-smi ended by itself: which GPUs were used is unknown from then on.
    if (apps && apps->fd() >= 0 && !apps->drain()) usage.apps_queried = false;
    if (!writer.write(batch)) {
      log << "campaign sample: cannot write " << out.string() << ": " << std::strerror(errno) << "\n";
      return 1;
    }
    if (!power_batch.empty()) {
      if (!power_writer) {
        power_writer.emplace(power_out, kPowerHeader);
        power_writer->digits(2);
      }
      if (!power_writer->ok() || !power_writer->write(power_batch)) {
        log << "campaign sample: cannot write " << power_out.string() << ": " << std::strerror(errno) << "\n";
        return 1;
      }
    }
    last = now;
    usage.seconds = std::chrono::duration<double>(now - start).count();
    if (end && now >= *end) stop = true;
    // The usage file about once a second (a job killed mid-way keeps it), and at the end.
    if (stop || now - last_usage >= std::chrono::seconds(1)) {
      if (!write_usage()) return 1;
      last_usage = now;
    }
    // A fixed cadence; after a stall (a suspended job) start again from now rather than catch up.
    next += interval;
    if (next <= now) next = now + interval;
  }
  return 0;
}

}  // namespace campaign::sample
