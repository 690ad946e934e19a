// Detached job start (see process.hpp for the process tree) and process identity through /proc.
//
// Not util/process.hpp's run_program: the job must outlive us (new session, double fork, a monitor
// that writes its status), so what runs after posix_spawn is a program of its own,
// local/monitor/campaign_monitor.cpp; only the spawn attributes and argv/envp arrays are shared.
#include "local/process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "util/atomic_file.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace campaign::local {

namespace fs = std::filesystem;

FileLock::FileLock(const Fd& fd) : fd_(fd.get()) {
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) throw Error(std::string("cannot lock the local spool: ") + std::strerror(errno));
  }
}

FileLock::~FileLock() { ::flock(fd_, LOCK_UN); }

std::optional<uint64_t> process_start_time(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  // Read at every tick for every running job: one read(2) into a buffer, no streams.
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.open()) return std::nullopt;
  char buf[1024];
  ssize_t n;
  do {
    n = ::read(fd.get(), buf, sizeof buf - 1);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  std::string_view line(buf, static_cast<size_t>(n));
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  auto close = line.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view field;
  size_t pos = close + 1;
  for (int i = 3; i <= 22; ++i) {
    pos = line.find_first_not_of(' ', pos);
    if (pos == std::string_view::npos) return std::nullopt;
    size_t end = std::min(line.find(' ', pos), line.size());
    field = line.substr(pos, end - pos);
    pos = end;
    if (i == 3 && (field == "Z" || field == "X" || field == "x")) return std::nullopt;
  }
  uint64_t start = 0;
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), start);
  if (ec != std::errc() || ptr != field.data() + field.size()) return std::nullopt;
  return start;
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

#ifndef CAMPAIGN_HELPERS_FROM_BIN
#define CAMPAIGN_HELPERS_FROM_BIN "../libexec/campaign"
#endif

namespace {

// campaign-monitor: beside the binary (the build tree), or where an installation puts it. Found
// once: the binary does not move while it runs.
const std::vector<fs::path>& monitor_candidates() {
  static const std::vector<fs::path> candidates = [] {
    std::vector<fs::path> c;
    if (fs::path dir = own_executable().parent_path(); !dir.empty()) {
      c.push_back(dir / "campaign-monitor");
      c.push_back((dir / CAMPAIGN_HELPERS_FROM_BIN / "campaign-monitor").lexically_normal());
    }
    return c;
  }();
  return candidates;
}

// Moves a descriptor above the monitor's 3-5, so that no dup2 onto 0-5 in the child clobbers it.
Fd high_fd(Fd fd) {
  if (fd.get() > 5) return fd;
  int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 6);
  if (moved < 0) throw SpawnError(std::string("fcntl: ") + std::strerror(errno));
  return Fd(moved);
}

}  // namespace

const fs::path& monitor_program() {
  static const fs::path found = [] {
    for (const auto& c : monitor_candidates())
      if (::access(c.c_str(), X_OK) == 0) return c;
    return fs::path();
  }();
  if (found.empty()) {
    std::string looked;
    for (const auto& c : monitor_candidates()) looked += (looked.empty() ? "" : ", ") + c.string();
    throw Error("the local executor cannot start jobs: its program campaign-monitor is missing (looked for " +
                looked + "); it is built and installed with campaign");
  }
  return found;
}

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
  const fs::path& monitor = monitor_program();
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

  // posix_spawn, not fork: no copy of our address space (campaign_monitor.cpp says what it does).
  // Nothing of ours reaches it: not our terminal or log pipe (a reader waiting for end of file
  // would wait for the job), not the catalog or the spool lock (close-on-exec, and it closes
  // every descriptor past 5).
  SpawnAttributes setup;
  setup.default_signals(POSIX_SPAWN_SETSID);
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDWR, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, STDIN_FILENO, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, STDIN_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, out.get(), 3);
  posix_spawn_file_actions_adddup2(&setup.actions, report_write.get(), 4);
  posix_spawn_file_actions_adddup2(&setup.actions, gate_read.get(), 5);
  std::vector<std::string> args = {monitor.string(), request.status_path.string(),
                                   std::to_string(std::max<int64_t>(0, request.walltime.count())),
                                   std::to_string(std::max<int64_t>(0, request.kill_grace.count())),
                                   request.cwd.string()};
  args.insert(args.end(), request.argv.begin(), request.argv.end());
  std::vector<char*> argv = c_array(args), envp = c_array(request.env);
  pid_t intermediate = -1;
  int rc =
      ::posix_spawn(&intermediate, monitor.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  if (rc != 0) throw SpawnError("cannot start " + monitor.string() + ": " + std::strerror(rc));

  report_write.reset();
  gate_read.reset();
  out.reset();
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
