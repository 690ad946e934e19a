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
// Submit options, in SubmitRequest::extra_args (anything else is SubmitFailure::invalid):
//   --time=T, -t T     walltime. A bare number is SECONDS (unlike sbatch, where it is minutes);
//                      "HH:MM:SS", "D-HH:MM:SS", "90m", "2h" as for util/walltime.hpp.
//                      Past it: SIGTERM to the job's process group, SIGKILL after the grace
//                      period, state timeout.
//   --ntasks=N, -n N   slots the job takes. Without it: N of the first `launch -n N` in the script
//                      (the built-in launcher's line), else 1. Capped at the limit, so that every
//                      job can run some day.
// Jobs start in submission order (a job that does not fit blocks the ones after it, so wide jobs
// are not starved); a job waiting for a dependency does not block others. Dependencies are afterok:
// a dependency that ends other than completed cancels the job (reason DependencyNeverSatisfied).
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
#include <string>

#include "local/job_record.hpp"
#include "sched/scheduler.hpp"

namespace campaign::local {

struct LocalOptions {
  std::filesystem::path spool;  // <workdir>/.local; created if missing
  int slots = 0;                // concurrency limit; <= 0: std::thread::hardware_concurrency()
  std::chrono::milliseconds kill_grace = std::chrono::seconds(5);  // SIGTERM -> SIGKILL
  std::string shell = "/bin/bash";
  std::string exit_marker = ".exit";  // render::kExitMarker
};

class LocalScheduler final : public sched::Scheduler {
 public:
  // Throws campaign::Error when the spool cannot be created or locked.
  explicit LocalScheduler(LocalOptions options);

  std::string name() const override { return "local"; }
  bool starts_jobs_when_polled() const override { return true; }
  std::string submit(const sched::SubmitRequest& request) override;
  std::vector<sched::JobInfo> query(const std::vector<std::string>& ids) override;
  std::vector<sched::JobInfo> find_by_name(const std::vector<std::string>& names) override;
  int queued_jobs_of_user() override;
  void cancel(const std::vector<std::string>& ids) override;

  int slots() const { return slots_; }

 private:
  using Records = std::map<long, JobRecord>;

  // Locks the spool, loads and ticks, then calls f(records); spool trouble is SchedulerUnavailable.
  template <class F>
  auto locked(F&& f);
  Records load();                 // every record of the spool; under the lock
  void save(const JobRecord& r);  // under the lock
  void tick(Records& all);        // reap, then start; under the lock
  void reap(JobRecord& r, int64_t now_ms);
  bool start(JobRecord& r, int64_t now_ms);
  void end(JobRecord& r, State outcome, std::string reason, int64_t end_ms);
  long next_id(const Records& all);
  sched::JobInfo info(const JobRecord& r, const Records& all, int64_t now_ms) const;

  LocalOptions options_;
  Spool spool_;
  int slots_;
  Fd lock_fd_;
  std::string host_;
  std::map<long, JobRecord> ended_;  // ended records never change: read once
};

// Registers "local" in the scheduler registry (sched/scheduler.hpp) with these options; the shell
// and scheduler options given to the factory are not used.
void register_local_scheduler(LocalOptions options);

}  // namespace campaign::local
