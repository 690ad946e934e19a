// The embedded scheduler of the `local` system profile: job scripts run with bash on this machine,
// no Slurm. All its state is in files under a spool directory (job_record.hpp), so the orchestrator
// may be killed (even with SIGKILL) and restarted: jobs keep running, detached from it
// (process.hpp), and a new LocalScheduler on the same spool finds them and their end.
//
// There is no daemon: every call is a "tick" under the spool lock that first reaps ended jobs and
// starts pending jobs whose turn has come, then answers. Pending jobs therefore only start when
// somebody calls (submit, query, find_by_name, queued_jobs_of_user, cancel); walltimes and
// cancel escalation do not need calls, the job's monitor enforces them.
//
// What a job holds of the machine (resource/model.hpp): SubmitRequest::demand (a campaign's case,
// as planned), else the script's `#LOCAL` line (a script of the user's; templates/local.sh.mustache
// writes one too, for readers), then SubmitRequest::extra_args, a later option winning:
//   --cores=N, --ntasks=N, -n N   cores
//   --gpus=N                     GPUs
//   --mem=SIZE                   memory (16G, 512M; a bare number is MB)
//   --exclusive                  the whole machine, nothing beside it (without --gpus: all its GPUs)
//   --time=T, -t T               walltime. A bare number is SECONDS (unlike sbatch, where it is
//                                minutes); "HH:MM:SS", "D-HH:MM:SS", "90m", "2h" as for
//                                util/walltime.hpp. Past it: SIGTERM to the job's process group,
//                                SIGKILL after the grace period, state timeout.
// Anything else is SubmitFailure::invalid, and so is a job that asks for more than the machine has
// (resource::fit). A script without any of these says its cores in its `launch -n N` line (the
// built-in launcher's), else 1, capped at the machine's cores.
//
// Each job gets its own cores and GPUs: it is pinned to its cores (sched_setaffinity, when the
// executor knows the machine's CPUs) and sees only its GPUs (CUDA_VISIBLE_DEVICES, or
// ROCR_VISIBLE_DEVICES on AMD; empty for a job without GPUs on a machine that has some). An exclusive
// job holds every core and GPU but is shown the GPUs it asked for, the ones it would get beside others.
//
// Jobs start in submission order; the first that does not fit gets a reservation at the earliest
// time the walltimes of the running jobs guarantee room for it, and a later job may start before it
// only when it fits now and either ends (by its walltime) before that time or leaves room for it
// then (EASY backfill): a wide job is never starved, a small one does not idle the machine. A job
// waiting for a dependency blocks nobody. Dependencies are afterok: a dependency that ends other than
// completed cancels the job (reason DependencyNeverSatisfied).
//
// A job runs as `bash <script>` in its workdir (the request's, else the script's directory), with
// stdout and stderr appended to <workdir>/job-<id>.out and CAMPAIGN_JOB_ID / CAMPAIGN_JOB_NAME set.
// Its outcome comes from the monitor's status file; failing that (monitor killed) from the
// script's exit marker (<workdir>/.exit); failing both, the job is failed with reason "vanished
// without exit status".
//
// One object is not meant for concurrent use from several threads; several objects and processes
// on one spool are fine.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "local/job_record.hpp"
#include "resource/detect.hpp"
#include "resource/model.hpp"
#include "sched/scheduler.hpp"

namespace campaign::local {

struct LocalOptions {
  std::filesystem::path spool;  // <workdir>/.local; created if missing
  // What the machine offers. Unset: detected (resource/detect.hpp), the jobs pinned to the CPUs of
  // this process's affinity mask. `cores` > 0 counts cores without pinning (tests).
  int cores = 0;
  std::optional<resource::Gpus> gpus;
  std::optional<long> memory_mb;
  std::chrono::milliseconds kill_grace = std::chrono::seconds(5);  // SIGTERM -> SIGKILL
  std::string shell = "/bin/bash";
  std::string exit_marker = ".exit";  // render::kExitMarker
  // false: calls only look (status --refresh): pending jobs stay pending; ended ones are reaped.
  bool start_jobs = true;
};

class LocalScheduler final : public sched::Scheduler {
 public:
  // Throws campaign::Error when the spool cannot be created or locked, or (start_jobs) jobs cannot be
  // started: monitor_program().
  explicit LocalScheduler(LocalOptions options);

  std::string name() const override { return "local"; }
  bool starts_jobs_when_polled() const override { return options_.start_jobs; }
  void start_waiting() override;
  bool runs_jobs_here() const override { return true; }
  std::string submit(const sched::SubmitRequest& request) override;
  std::vector<sched::JobInfo> query(const std::vector<std::string>& ids) override;
  std::vector<sched::JobInfo> find_by_name(const std::vector<std::string>& names) override;
  int queued_jobs_of_user() override;
  void cancel(const std::vector<std::string>& ids) override;

  const resource::Node& machine() const { return machine_; }

 private:
  using Records = std::map<long, JobRecord>;

  // Locks the spool, loads and ticks, then calls f(records); spool trouble is SchedulerUnavailable,
  // except a full, read-only or failing file system: StorageError (util/atomic_file.hpp).
  template <class F>
  auto locked(F&& f);
  // The records of jobs not ended (ended ones: ended_); under the lock. The map is this object's
  // copy, kept between calls while no other process wrote a record (the spool's generation).
  Records& load();
  void save(const JobRecord& r);  // under the lock
  void tick(Records& all);        // reap, then start; under the lock
  void reap(JobRecord& r, int64_t now_ms);
  bool start(JobRecord& r, const resource::Placement& where, int64_t now_ms);
  void end(JobRecord& r, State outcome, std::string reason, int64_t end_ms);
  long next_id(const Records& all);
  sched::JobInfo info(const JobRecord& r, const Records& all, int64_t now_ms) const;

  LocalOptions options_;
  Spool spool_;
  resource::Node machine_;
  std::vector<int> cpus_;  // the CPU of each core index; empty: jobs are not pinned
  resource::Gpus gpus_;
  Fd lock_fd_;
  std::string host_;
  // What a call reads is the live jobs, not every job the spool ever had: ended records never
  // change, read once; those live at the last load (live_records_), and the highest id seen.
  std::map<long, JobRecord> ended_;
  long highest_ = 0;
  bool listed_ = false;  // the spool listed once (the first load)
  // The live records as of the spool's generation `generation_` (a burst of submissions had read
  // and parsed every pending record at each submit: a square in the jobs). Invalid after an error
  // within a locked call, when the copy may differ from the files.
  Records live_records_;
  long generation_ = 0;
  bool copy_valid_ = false;
  // The generation is bumped once a hold of the lock, before its first record (readers load under
  // the lock, so one bump tells them of every record the hold writes).
  bool bumped_ = false;
  std::vector<long> ended_since_load_;  // live records that ended: load() drops them from live_records_
  // The live records starting or running (save() keeps it, load() makes it): a tick reaps these
  // without a pass over the pending ones, which it looks at only when one may start or end: a core
  // free, a job ended (freeing cores, deciding a dependency), a job given with dependencies (one may
  // have failed already), or the records read anew.
  std::set<long> started_;
  bool waiting_changed_ = true;
};

// Registers "local" in the scheduler registry (sched/scheduler.hpp) with these options; the shell
// and scheduler options given to the factory are not used.
void register_local_scheduler(LocalOptions options);

}  // namespace campaign::local
