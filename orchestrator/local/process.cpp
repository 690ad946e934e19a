// Detached job start (see process.hpp for the process tree) and process identity through /proc.
//
// Not util/process.hpp's run_program: the job must outlive us (new session, double fork, a monitor
// that writes its status), which posix_spawn cannot express; only the argv/envp arrays are shared.
//
// Everything between fork() and execve()/_exit() runs in a copy of a possibly multi-threaded
// process, so it only calls async-signal-safe functions on data prepared before the fork: no
// allocation, no locks, no stdio, no exceptions.
#include "local/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "util/atomic_file.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace campaign::local {

FileLock::FileLock(const Fd& fd) : fd_(fd.get()) {
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) throw Error(std::string("cannot lock the local spool: ") + std::strerror(errno));
  }
}

FileLock::~FileLock() { ::flock(fd_, LOCK_UN); }

std::optional<uint64_t> process_start_time(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close + 1));
  std::string state;
  rest >> state;  // field 3
  if (state == "Z" || state == "X" || state == "x") return std::nullopt;
  std::string field;
  for (int i = 4; i <= 22; ++i) {
    if (!(rest >> field)) return std::nullopt;
  }
  try {
    return std::stoull(field);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool is_alive(const ProcessId& p) {
  if (p.pid <= 0 || p.start == 0) return false;
  auto start = process_start_time(p.pid);
  return start && *start == p.start;
}

std::optional<MonitorStatus> parse_monitor_status(const std::string& text) {
  MonitorStatus s;
  bool complete = false;
  for (const auto& word : split(trim(text), ' ')) {
    auto eq = word.find('=');
    if (eq == std::string::npos) return std::nullopt;
    std::string key = word.substr(0, eq);
    long long v = 0;
    try {
      v = std::stoll(word.substr(eq + 1));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (key == "started") s.started = v != 0;
    if (key == "exit") s.exit_code = static_cast<int>(v);
    if (key == "signal") s.signal = static_cast<int>(v);
    if (key == "timeout") s.timed_out = v != 0;
    if (key == "terminated") s.terminated = v != 0;
    if (key == "end_ms") {
      s.end_ms = v;
      complete = true;  // written last
    }
  }
  if (!complete) return std::nullopt;
  return s;
}

namespace {

// ---- Async-signal-safe helpers, for use between fork and exec ----------------------------------

bool write_all(int fd, const void* data, size_t n) {
  auto p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void say(int fd, const char* a, const char* b = "", const char* c = "") {
  write_all(fd, a, std::strlen(a));
  write_all(fd, b, std::strlen(b));
  write_all(fd, c, std::strlen(c));
}

// Appends "key=value " to buf; returns the new length.
size_t put_field(char* buf, size_t len, size_t cap, const char* key, long long value) {
  char digits[24];
  int n = 0;
  bool negative = value < 0;
  unsigned long long v = negative ? 0ull - static_cast<unsigned long long>(value) : value;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (negative) digits[n++] = '-';
  for (const char* k = key; *k && len < cap; ++k) buf[len++] = *k;
  if (len < cap) buf[len++] = '=';
  while (n > 0 && len < cap) buf[len++] = digits[--n];
  if (len < cap) buf[len++] = ' ';
  return len;
}

void set_timer(long long ms) {
  itimerval t{};
  if (ms < 1) ms = 1;  // 0 would disarm
  t.it_value.tv_sec = static_cast<time_t>(ms / 1000);
  t.it_value.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  ::setitimer(ITIMER_REAL, &t, nullptr);
}

// Default dispositions and an empty mask, whatever the orchestrator set up for itself (an ignored
// signal would stay ignored across exec).
void reset_signals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Everything the children need, prepared before the fork.
struct Plan {
  std::vector<char*> argv, envp;
  const char* cwd;
  const char* status_path;
  const char* status_tmp;
  long long walltime_ms;
  long long grace_ms;
  int devnull, out, report, gate;
  int max_fd;
};

[[noreturn]] void run_job(const Plan& p) {
  ::close(p.report);
  ::setpgid(0, 0);  // the group cancel and timeout signal; the monitor stays outside it
  char go = 0;
  ssize_t n;
  do {
    n = ::read(p.gate, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) _exit(0);  // the orchestrator died before the record said running: never start
  ::close(p.gate);
  reset_signals();
  ::dup2(p.out, STDOUT_FILENO);
  ::dup2(p.out, STDERR_FILENO);
  ::close(p.out);
  if (::chdir(p.cwd) != 0) {
    say(STDERR_FILENO, "campaign local executor: cannot enter ", p.cwd, "\n");
    _exit(1);
  }
  ::execve(p.argv[0], p.argv.data(), p.envp.data());
  int err = errno;
  say(STDERR_FILENO, "campaign local executor: cannot execute ", p.argv[0], "\n");
  _exit(err == ENOENT ? 127 : 126);
}

[[noreturn]] void run_monitor(const Plan& p) {
  reset_signals();
  // Signals are taken synchronously with sigwaitinfo: no handler, no lost wake-up.
  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, SIGTERM);
  sigaddset(&wanted, SIGALRM);
  sigaddset(&wanted, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &wanted, nullptr);

  pid_t job = ::fork();
  if (job < 0) _exit(1);  // the orchestrator reads no pids and reports the failure
  if (job == 0) run_job(p);
  // The job does this too; doing it here as well means the group exists before anyone learns the
  // job's pid, so a cancel right after submit cannot miss it.
  ::setpgid(job, job);
  pid_t ids[2] = {::getpid(), job};
  write_all(p.report, ids, sizeof ids);
  ::close(p.report);
  ::close(p.out);

  if (p.walltime_ms > 0) set_timer(p.walltime_ms);
  enum { running, term_sent, kill_sent } phase = running;
  bool timed_out = false, terminated = false;
  for (;;) {
    siginfo_t info{};
    int r = ::waitid(P_PID, static_cast<id_t>(job), &info, WEXITED | WNOWAIT | WNOHANG);
    if (r == 0 && info.si_pid == job) break;
    if (r < 0 && errno != EINTR) break;
    int sig = ::sigwaitinfo(&wanted, nullptr);
    if ((sig == SIGTERM || sig == SIGALRM) && phase == running) {
      (sig == SIGTERM ? terminated : timed_out) = true;
      ::kill(-job, SIGTERM);
      phase = term_sent;
      set_timer(p.grace_ms);
    } else if (sig == SIGALRM && phase == term_sent) {
      ::kill(-job, SIGKILL);
      phase = kill_sent;
    }
  }
  // The job is a zombie still, so its process group id cannot have been reused: stragglers
  // (background processes of the script) end with the job, as under Slurm.
  ::kill(-job, SIGKILL);
  int status = 0;
  while (::waitpid(job, &status, 0) < 0 && errno == EINTR) {
  }
  // The orchestrator sends two bytes at go: one was the job's, the other is ours.
  char go = 0;
  ssize_t n;
  do {
    n = ::read(p.gate, &go, 1);
  } while (n < 0 && errno == EINTR);

  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  char buf[256];
  size_t len = 0;
  len = put_field(buf, len, sizeof buf, "started", n == 1 ? 1 : 0);
  len = put_field(buf, len, sizeof buf, "exit", WIFEXITED(status) ? WEXITSTATUS(status) : 0);
  len = put_field(buf, len, sizeof buf, "signal", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  len = put_field(buf, len, sizeof buf, "timeout", timed_out ? 1 : 0);
  len = put_field(buf, len, sizeof buf, "terminated", terminated ? 1 : 0);
  len = put_field(buf, len, sizeof buf, "end_ms",
                  static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000);
  buf[len - 1] = '\n';
  // write_file_atomic done by hand: this is a forked child, where only async-signal-safe calls
  // are allowed (no ofstream, no allocation).
  // A status cut short (a full disk) is not renamed into place: the executor then reads the job's
  // exit marker instead.
  int fd = ::open(p.status_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    const bool whole = write_all(fd, buf, len);
    if (::close(fd) == 0 && whole)
      ::rename(p.status_tmp, p.status_path);
    else
      ::unlink(p.status_tmp);
  }
  _exit(0);
}

void close_fds_except(int a, int b, int c, int max_fd) {
  int keep[3] = {a, b, c};
  std::sort(keep, keep + 3);
  unsigned lo = 3;
  auto close_between = [&](unsigned from, unsigned to) {
    if (from > to) return;
    if (::close_range(from, to, 0) == 0) return;
    for (unsigned fd = from; fd <= to && fd <= static_cast<unsigned>(max_fd); ++fd)
      ::close(static_cast<int>(fd));
  };
  for (int k : keep) {
    if (static_cast<unsigned>(k) > lo) close_between(lo, static_cast<unsigned>(k) - 1);
    lo = static_cast<unsigned>(k) + 1;
  }
  close_between(lo, ~0u);
}

[[noreturn]] void run_intermediate(const Plan& p) {
  // Nothing of the orchestrator's: not its terminal or log pipe (a reader waiting for end of file
  // would wait for the job), not the catalog or the spool lock (flock locks follow the file).
  ::dup2(p.devnull, STDIN_FILENO);
  ::dup2(p.devnull, STDOUT_FILENO);
  ::dup2(p.devnull, STDERR_FILENO);
  close_fds_except(p.out, p.report, p.gate, p.max_fd);
  ::setsid();
  pid_t monitor = ::fork();
  if (monitor != 0) _exit(monitor < 0 ? 1 : 0);
  run_monitor(p);
}

// Moves a descriptor above 2, so that the dup2 calls onto 0-2 in the child cannot clobber it.
Fd high_fd(Fd fd) {
  if (fd.get() > 2) return fd;
  int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 3);
  if (moved < 0) throw SpawnError(std::string("fcntl: ") + std::strerror(errno));
  return Fd(moved);
}

}  // namespace

PendingSpawn::PendingSpawn(ProcessId monitor, ProcessId job, Fd gate)
    : monitor_(monitor), job_(job), gate_(std::move(gate)) {}

void PendingSpawn::go() {
  if (!gate_.open()) return;
  // MSG_NOSIGNAL: if the job was killed meanwhile, an error here must not be a SIGPIPE for us.
  ::send(gate_.get(), "gg", 2, MSG_NOSIGNAL);
  gate_.reset();
}

PendingSpawn spawn_detached(const SpawnRequest& request) {
  if (request.argv.empty()) throw SpawnError("cannot start a job without a command");
  Fd devnull = high_fd(Fd(::open("/dev/null", O_RDWR | O_CLOEXEC)));
  if (!devnull.open()) throw SpawnError(std::string("/dev/null: ") + std::strerror(errno));
  Fd out(::open(request.output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  // A full or read-only file system is not the job's fault: it waits until there is room.
  if (!out.open() && is_storage_errno(errno)) throw StorageError(request.output.string(), errno);
  if (!out.open())
    throw OutputUnavailable("cannot open the job's output " + request.output.string() + ": " +
                            std::strerror(errno));
  out = high_fd(std::move(out));

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw SpawnError(std::string("pipe: ") + std::strerror(errno));
  Fd report_read(fds[0]);
  Fd report_write = high_fd(Fd(fds[1]));
  // A socket pair rather than a pipe only for send(MSG_NOSIGNAL) in go().
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw SpawnError(std::string("socketpair: ") + std::strerror(errno));
  Fd gate_write(fds[0]);
  Fd gate_read = high_fd(Fd(fds[1]));

  std::string status_tmp = request.status_path.string() + ".tmp";
  std::string cwd = request.cwd.string(), status_path = request.status_path.string();
  Plan plan{};
  plan.argv = c_array(request.argv);
  plan.envp = c_array(request.env);
  plan.cwd = cwd.c_str();
  plan.status_path = status_path.c_str();
  plan.status_tmp = status_tmp.c_str();
  plan.walltime_ms = request.walltime.count();
  plan.grace_ms = request.kill_grace.count();
  plan.devnull = devnull.get();
  plan.out = out.get();
  plan.report = report_write.get();
  plan.gate = gate_read.get();
  rlimit lim{};
  plan.max_fd = (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
                    ? static_cast<int>(std::min<rlim_t>(lim.rlim_cur, 1 << 20))
                    : 65536;

  pid_t intermediate = ::fork();
  if (intermediate < 0) throw SpawnError(std::string("fork: ") + std::strerror(errno));
  if (intermediate == 0) run_intermediate(plan);

  report_write.reset();
  gate_read.reset();
  out.reset();
  devnull.reset();
  while (::waitpid(intermediate, nullptr, 0) < 0 && errno == EINTR) {
  }

  pid_t ids[2] = {0, 0};
  size_t got = 0;
  while (got < sizeof ids) {
    ssize_t n = ::read(report_read.get(), reinterpret_cast<char*>(ids) + got, sizeof ids - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof ids) throw SpawnError("the job's monitor process did not start");
  // Both are alive here: the job waits at the gate, the monitor waits for the job.
  auto monitor_start = process_start_time(ids[0]);
  auto job_start = process_start_time(ids[1]);
  if (!monitor_start || !job_start)
    throw SpawnError("the job's processes ended before they could be recorded");
  return PendingSpawn({ids[0], *monitor_start}, {ids[1], *job_start}, std::move(gate_write));
}

}  // namespace campaign::local
