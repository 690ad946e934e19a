// Process plumbing for the local executor: descriptors, the spool lock, process identity through
// /proc, and starting a job detached from the orchestrator under a small monitor process.
//
// Invariants: a job outlives the orchestrator (its own session, never our child, so never our
// zombie); the job runs its script only after the orchestrator said "go", i.e. after its record
// says running, so a crash mid-launch can never leave a job running that its record calls pending;
// whatever ends the job, the monitor records how in a status file it writes once, atomically; no
// descriptor of the orchestrator (catalog, spool lock, terminal) leaks into the monitor or the job.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "util/fd.hpp"

namespace campaign::local {

// An exclusive flock(2) held for the lifetime of the object. flock locks belong to the open file,
// so two objects in one process exclude each other just like two processes do.
class FileLock {
 public:
  explicit FileLock(const Fd& fd);  // blocks until the lock is ours; throws Error
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

// A process as the kernel knows it: a pid alone can be reused, the pair (pid, start time since
// boot in clock ticks, /proc/PID/stat field 22) cannot.
struct ProcessId {
  pid_t pid = 0;
  uint64_t start = 0;
};

// The start time of `pid`; nullopt when there is no such process or it has already exited (zombie).
std::optional<uint64_t> process_start_time(pid_t pid);
// True while exactly this process runs: same pid, same start time, not a zombie.
bool is_alive(const ProcessId& p);

// What the monitor wrote when the job ended (one line "key=value ...", local/monitor/).
struct MonitorStatus {
  bool started = true;      // false: the orchestrator never said go, the script did not run
  int exit_code = 0;        // when the job exited
  int signal = 0;           // when a signal killed it (exit_code then 0)
  bool timed_out = false;   // the monitor killed it at its walltime
  bool terminated = false;  // the monitor was asked to stop it (cancel)
  int64_t end_ms = 0;       // wall clock, milliseconds since the epoch
};
std::optional<MonitorStatus> parse_monitor_status(const std::string& text);

struct SpawnRequest {
  std::vector<std::string> argv;  // argv[0] is an absolute path (execve, no PATH lookup)
  std::vector<std::string> env;   // "NAME=value"
  std::filesystem::path cwd;
  std::filesystem::path output;                // stdout and stderr, appended
  std::filesystem::path status_path;           // written by the monitor when the job ends
  std::chrono::milliseconds walltime{0};       // 0: none
  std::chrono::milliseconds kill_grace{5000};  // SIGTERM -> SIGKILL
};

// A job started but still waiting at the gate: it runs only after go() is called, and gives up
// (recording started=0) if the object is destroyed first or the orchestrator dies.
class PendingSpawn {
 public:
  PendingSpawn(ProcessId monitor, ProcessId job, Fd gate);
  PendingSpawn(PendingSpawn&&) = default;
  const ProcessId& monitor() const { return monitor_; }
  const ProcessId& job() const { return job_; }
  void go();

 private:
  ProcessId monitor_, job_;
  Fd gate_;
};

// A process could not be started (pipe, fork, /proc); the output file could not be opened.
class SpawnError : public Error {
 public:
  using Error::Error;
};
// The job's output file cannot be opened: the job cannot run, trying again will not help.
class OutputUnavailable : public SpawnError {
 public:
  using SpawnError::SpawnError;
};

// The program that starts and watches each job (local/monitor/campaign_monitor.cpp): beside the
// binary, or under <prefix>/libexec/campaign. Throws Error when it is in neither place.
const std::filesystem::path& monitor_program();

// Starts `request` detached: orchestrator -> (posix_spawn) campaign-monitor, new session -> (fork)
// monitor, reparented to init once the first exits -> (fork) job, leader of its own process group,
// blocked until go(). No fork of the orchestrator: its address space is never copied. The monitor waits for
// the job; on SIGTERM or at the walltime it sends SIGTERM to the job's process group, then SIGKILL after the
// grace period; when the job has exited it kills what is left of the group and writes `status_path`. Throws
// SpawnError (OutputUnavailable), or StorageError when the output file cannot be created for want of room
// (util/atomic_file.hpp), and monitor_program()'s Error.
PendingSpawn spawn_detached(const SpawnRequest& request);

}  // namespace campaign::local
