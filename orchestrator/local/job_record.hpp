// The local executor's persistent state: one small JSON record per job in the spool directory,
// the id counter, and the monitor's status files. Layout of a spool (`<workdir>/.local`):
//
//   lock                  flock'ed by every scheduler call, so calls from several processes
//                         (campaign run, status --refresh, cancel) never interleave
//   next_id               the next job id (text)
//   jobs/<id>.json        the record (JobRecord)
//   jobs/<id>.<n>.status  written once by the monitor of launch n when the job ends
//
// Invariants: files only change by write-to-temporary + rename, so a reader (or a restarted
// orchestrator) sees the old or the new content, never a torn one; an ended record never changes
// again; ids only grow.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "local/process.hpp"
#include "resource/model.hpp"
#include "util/atomic_file.hpp"
#include "util/state.hpp"

namespace campaign::local {

// Where a job is in the local executor's life cycle. `starting` exists only while a launch is in
// progress under the lock; finding it later means that launch was cut short (its job never ran).
enum class Phase { pending, starting, running, ended };

struct JobRecord {
  long id = 0;
  std::string name;
  std::string script;            // absolute
  std::string workdir;           // absolute; the job's cwd, where its output and exit marker go
  std::string output;            // absolute: workdir/job-<id>.out
  std::vector<long> depends_on;  // afterok
  // What it holds of the machine while it runs (nodes: 1), and what it was given: indices into the
  // executor's CPUs and GPUs (local_scheduler.hpp).
  resource::Demand demand;
  std::vector<long> held_cores, held_gpus;
  long walltime_s = 0;  // 0: none
  Phase phase = Phase::pending;
  int launch = 0;  // launches so far; names the status file of the current one
  ProcessId monitor, job;
  int64_t submit_ms = 0, start_ms = 0, end_ms = 0;  // wall clock, ms since the epoch; 0: not yet
  bool cancel_requested = false;
  int64_t cancel_ms = 0;
  bool walltime_exceeded = false;  // the orchestrator itself killed it at its walltime
  // Once ended: completed, failed, cancelled or timeout.
  State outcome = State::failed;
  std::optional<int> exit_code, signal;
  std::string reason;
};

std::string_view to_string(Phase p);

class Spool {
 public:
  explicit Spool(std::filesystem::path root) : root_(std::move(root)) {}
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path jobs() const { return root_ / "jobs"; }
  std::filesystem::path lock() const { return root_ / "lock"; }
  std::filesystem::path counter() const { return root_ / "next_id"; }
  // Bumped (under the lock) before each record is written: a reader whose copy of the live
  // records is of the generation the file still holds need not read them again.
  std::filesystem::path generation() const { return root_ / "generation"; }
  std::filesystem::path record(long id) const { return jobs() / (std::to_string(id) + ".json"); }
  std::filesystem::path status(long id, int launch) const {
    return jobs() / (std::to_string(id) + "." + std::to_string(launch) + ".status");
  }

 private:
  std::filesystem::path root_;
};

std::string record_to_json(const JobRecord& r);
// nullopt when the text is not a record (hand-edited, foreign file).
std::optional<JobRecord> record_from_json(const std::string& text);

// Small files: nullopt when missing; throws Error when present but unreadable.
std::optional<std::string> read_small_file(const std::filesystem::path& path);

}  // namespace campaign::local
