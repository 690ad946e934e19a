#include "sample/sampler.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <vector>

#include "sample/nvidia_smi.hpp"
#include "sample/proc_stat.hpp"
#include "util/fd.hpp"
#include "util/process.hpp"
#include "util/signal_block.hpp"

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
  double utilization;
};

// Appends batches to the file, header first when it is new, keeping each device's times increasing.
class Writer {
 public:
  explicit Writer(const fs::path& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "a");
    if (file_ && std::ftell(file_) == 0) std::fprintf(file_, "%s\n", kHeader);
  }
  ~Writer() {
    if (file_) std::fclose(file_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  bool ok() const { return file_ != nullptr; }

  bool write(std::vector<Row>& batch) {
    std::stable_sort(batch.begin(), batch.end(), [](const Row& a, const Row& b) { return a.time < b.time; });
    for (auto& r : batch) {
      auto [it, fresh] = last_.try_emplace(r.device, r.time);
      if (!fresh && r.time <= it->second) continue;
      it->second = r.time;
      std::fprintf(file_, "%.3f,%s,%.1f\n", r.time, r.device.c_str(), r.utilization);
    }
    batch.clear();
    return std::fflush(file_) == 0 && !std::ferror(file_);
  }

 private:
  fs::path path_;
  std::FILE* file_ = nullptr;
  std::map<std::string, double> last_;
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

// One nvidia-smi -lms, its stdout read line by line.
class Smi {
 public:
  Smi(const std::string& program, double interval_s, std::ostream& log) : log_(log) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    Fd read_end(fds[0]), write_end(fds[1]);
    long ms = std::max(1L, std::lround(interval_s * 1000));
    std::vector<std::string> argv{program, std::string("--query-gpu=") + kSmiQuery,
                                  "--format=csv,noheader,nounits", "-lms", std::to_string(ms)};
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

  // Reads what is there; complete lines become rows. Returns false at end of output.
  bool drain(std::vector<Row>& batch) {
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
        if (auto r = parse_smi_line(line))
          batch.push_back({r->time, "gpu" + std::to_string(r->index), r->utilization});
        else if (!line.empty() && !warned_)
          log_ << "campaign sample: skipping nvidia-smi line '" << line << "'\n", warned_ = true;
      }
      pending_.erase(0, start);
      if (!open) {
        log_ << "campaign sample: nvidia-smi ended; GPU sampling stops\n";
        fd_.reset();
      }
      return open;
    }
  }

 private:
  std::ostream& log_;
  pid_t pid_ = -1;
  Fd fd_;
  std::string pending_;
  bool warned_ = false;
};

bool alive(int pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

fs::path default_output() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  return fs::path(kOutputPrefix + std::string(host) + ".csv");
}

int run(const Options& o, std::ostream& log) {
  SignalFd signals{SIGTERM, SIGINT};
  fs::path out = o.out.empty() ? default_output() : o.out;
  Writer writer(out);
  if (!writer.ok()) {
    log << "campaign sample: cannot write " << out.string() << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  std::optional<Smi> smi;
  if (o.gpu != Gpu::off) {
    if (on_path(o.smi)) {
      smi.emplace(o.smi, o.interval_s, log);
    } else if (o.gpu == Gpu::on) {
      log << "campaign sample: --gpu on, but no " << o.smi << " on PATH\n";
      return 1;
    }
  }
  const long hz = ::sysconf(_SC_CLK_TCK);
  const int self = static_cast<int>(::getpid());
  const auto interval =
      std::chrono::duration_cast<Mono::duration>(std::chrono::duration<double>(o.interval_s));
  const Mono::time_point start = Mono::now();
  std::optional<Mono::time_point> end;
  if (o.duration_s > 0)
    end = start + std::chrono::duration_cast<Mono::duration>(std::chrono::duration<double>(o.duration_s));

  std::optional<CpuTimes> cpu = read_cpu_times();
  TreeTicks tree;
  if (o.pid > 0) tree = read_tree(o.pid, self);
  Mono::time_point last = start, next = start + interval;
  std::vector<Row> batch;
  for (bool stop = false; !stop;) {
    // Wait for the next sample time, reading nvidia-smi and watching for a signal meanwhile.
    for (;;) {
      auto now = Mono::now();
      if (now >= next) break;
      pollfd fds[2] = {{signals.get(), POLLIN, 0}, {smi ? smi->fd() : -1, POLLIN, 0}};
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
      int n = ::poll(fds, 2, static_cast<int>(ms));
      if (n < 0 && errno != EINTR) break;
      if (n > 0 && (fds[1].revents & (POLLIN | POLLHUP))) smi->drain(batch);
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
      TreeTicks now_tree = read_tree(o.pid, self);
      batch.push_back({t, "proc", core_percent(tree_delta(tree, now_tree), seconds, hz)});
      tree = std::move(now_tree);
      if (!alive(o.pid)) stop = true;
    }
    if (smi && smi->fd() >= 0) smi->drain(batch);
    if (!writer.write(batch)) {
      log << "campaign sample: cannot write " << out.string() << ": " << std::strerror(errno) << "\n";
      return 1;
    }
    last = now;
    if (end && now >= *end) stop = true;
    // A fixed cadence; after a stall (a suspended job) start again from now rather than catch up.
    next += interval;
    if (next <= now) next = now + interval;
  }
  return 0;
}

}  // namespace campaign::sample
