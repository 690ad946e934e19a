// campaign-monitor: the local executor's per-job monitor, a program of its own (local/process.hpp).
//
//   campaign-monitor STATUS WALLTIME_MS GRACE_MS CWD PROGRAM [ARG...]
//
// Started by spawn_detached with posix_spawn (no copy of the orchestrator's address space, which
// holds hundreds of megabytes in a large campaign: fork() there cost a fifth of the executor's CPU),
// in a new session, its standard streams on /dev/null, its environment the job's, and three
// descriptors: 3 the job's output, 4 the report pipe, 5 the gate. It forks the monitor and exits,
// so the monitor is reparented to init and is never the orchestrator's zombie. The monitor forks the
// job (leader of its own process group, blocked at the gate until the orchestrator sends "go"),
// writes "monitor pid, job pid" to the report pipe, then waits: on SIGTERM or at the walltime it
// sends SIGTERM to the job's group, SIGKILL after the grace period; when the job has exited it kills
// what is left of the group and writes STATUS ("started= exit= signal= timeout= terminated=
// end_ms=", end_ms last; parse_monitor_status) whole or not at all.
//
// Only libc, linked statically: it starts in well under a millisecond, once per job.
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kOut = 3, kReport = 4, kGate = 5;

struct Plan {
  const char* status_path;
  long long walltime_ms;
  long long grace_ms;
  const char* cwd;
  char** argv;  // the job's, ending with nullptr
};

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

bool parse_ms(const char* text, long long& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(text, &end, 10);
  return errno == 0 && end != text && *end == '\0' && out >= 0;
}

void set_timer(long long ms) {
  itimerval t{};
  if (ms < 1) ms = 1;  // 0 would disarm
  t.it_value.tv_sec = static_cast<time_t>(ms / 1000);
  t.it_value.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  ::setitimer(ITIMER_REAL, &t, nullptr);
}

// The orchestrator sends two bytes at go: one for the job, one for the monitor. False when the
// gate closed without them (the orchestrator died, or gave the launch up).
bool read_go() {
  char go = 0;
  ssize_t n;
  do {
    n = ::read(kGate, &go, 1);
  } while (n < 0 && errno == EINTR);
  return n == 1;
}

[[noreturn]] void run_job(const Plan& p) {
  ::close(kReport);
  ::setpgid(0, 0);           // the group cancel and timeout signal; the monitor stays outside it
  if (!read_go()) _exit(0);  // the orchestrator died before the record said running: never start
  ::close(kGate);
  // The dispositions are the defaults already (posix_spawn reset them, nothing here sets one); the
  // mask is the monitor's.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::dup2(kOut, STDOUT_FILENO);
  ::dup2(kOut, STDERR_FILENO);
  ::close(kOut);
  if (::chdir(p.cwd) != 0) {
    say(STDERR_FILENO, "campaign local executor: cannot enter ", p.cwd, "\n");
    _exit(1);
  }
  ::execve(p.argv[0], p.argv, environ);
  int err = errno;
  say(STDERR_FILENO, "campaign local executor: cannot execute ", p.argv[0], "\n");
  _exit(err == ENOENT ? 127 : 126);
}

[[noreturn]] void run_monitor(const Plan& p) {
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
  write_all(kReport, ids, sizeof ids);
  ::close(kReport);
  ::close(kOut);

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
  const bool started = read_go();

  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  // A program of its own, with no thread: stdio is safe here (the forked monitor of an earlier
  // version, a copy of the multi-threaded orchestrator, formatted its digits by hand).
  char buf[256];
  const int len =
      std::snprintf(buf, sizeof buf, "started=%d exit=%d signal=%d timeout=%d terminated=%d end_ms=%lld\n",
                    started ? 1 : 0, WIFEXITED(status) ? WEXITSTATUS(status) : 0,
                    WIFSIGNALED(status) ? WTERMSIG(status) : 0, timed_out ? 1 : 0, terminated ? 1 : 0,
                    static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000);
  // Written whole or not at all: a status cut short (a full disk) is not renamed into place, and
  // the executor then reads the job's exit marker instead.
  char tmp[4096];
  if (std::snprintf(tmp, sizeof tmp, "%s.tmp", p.status_path) >= static_cast<int>(sizeof tmp)) _exit(1);
  int fd = ::open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    const bool whole = write_all(fd, buf, static_cast<size_t>(len));
    if (::close(fd) == 0 && whole)
      std::rename(tmp, p.status_path);
    else
      ::unlink(tmp);
  }
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  Plan p{};
  if (argc < 6 || !parse_ms(argv[2], p.walltime_ms) || !parse_ms(argv[3], p.grace_ms)) {
    say(STDERR_FILENO,
        "usage: campaign-monitor STATUS WALLTIME_MS GRACE_MS CWD PROGRAM [ARG...]\n"
        "(started by campaign's local executor, with descriptors 3-5 open)\n");
    return 2;
  }
  p.status_path = argv[1];
  p.cwd = argv[4];
  p.argv = argv + 5;
  // Whatever the orchestrator left open without close-on-exec (a catalog, the spool lock, whose
  // flock would follow the file) is not the job's.
  if (::close_range(kGate + 1, ~0u, 0) != 0) {
    for (int fd = kGate + 1; fd < 65536; ++fd) ::close(fd);
  }
  pid_t monitor = ::fork();
  if (monitor != 0) return monitor < 0 ? 1 : 0;
  run_monitor(p);
}
