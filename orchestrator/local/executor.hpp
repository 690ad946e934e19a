// The local executor driven from elsewhere: a campaign on a laptop whose system (scheduler: local)
// is reached over ssh runs its jobs with the executor ON THE REMOTE HOST, by calling the hidden
// subcommand `campaign executor --spool DIR` there through the shell. One call is one process: a
// JSON request on standard input, a JSON answer on standard output.
//
//   request:  {"version": 2, "op": "submit", "request": {script, job_name, workdir, depends_on,
//              extra_args, walltime_s[, demand: {nodes, cores, gpus, memory_mb, exclusive}]}} | {"op":
//              "query", "ids": [...]} | {"op": "find", "names": [...]} | {"op": "count"} | {"op": "cancel",
//              "ids": [...]}
//   answer:   {"ok": true, "id": "12"} | {"ok": true, "jobs": [JobInfo...]} | {"ok": true,
//              "count": 3} | {"ok": true} | {"ok": false, "error": KIND, "message": "..."}
//              with KIND one of invalid, transient, refused_by_limit (submit) or unavailable.
//
// Invariants: nothing travels on a command line but the spool path, so ids, names and paths need no
// quoting and no length limit; every failure of the remote side reaches the engine as the same
// SubmitError / SchedulerUnavailable that LocalScheduler itself would throw, and a call whose
// outcome is unknown (no answer) is a transient submit error, reconciled by job name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "local/local_scheduler.hpp"

namespace campaign::local {

// Runs one request against the executor on `spool` and returns the answer (never throws: a
// malformed request is an answer with ok=false).
std::string serve_executor_request(const LocalOptions& options, const std::string& request);

// A Scheduler that runs every call as `<campaign> executor --spool <spool>` through `shell`.
class ShellExecutor final : public sched::Scheduler {
 public:
  // `campaign` is the binary on the machine the shell reaches; `spool` a directory there.
  // `start_jobs` false: every call only looks (`campaign executor --look`, LocalOptions::start_jobs).
  ShellExecutor(transport::Shell& shell, std::string campaign, std::string spool, bool start_jobs = true,
                std::chrono::milliseconds timeout = std::chrono::seconds(60));

  std::string name() const override { return "local"; }
  bool starts_jobs_when_polled() const override { return start_jobs_; }
  std::string submit(const sched::SubmitRequest& request) override;
  std::vector<sched::JobInfo> query(const std::vector<std::string>& ids) override;
  std::vector<sched::JobInfo> find_by_name(const std::vector<std::string>& names) override;
  int queued_jobs_of_user() override;
  void cancel(const std::vector<std::string>& ids) override;

 private:
  // The parsed answer to `request`; throws SchedulerUnavailable (SubmitError when `submit`) for a
  // failed call or an answer with ok=false.
  nlohmann::json call(const std::string& request, bool submit);
  // The jobs the executor lists for operation `op` ("query", "find") over `values` (ids, names).
  std::vector<sched::JobInfo> jobs(const std::string& op, const char* key,
                                   const std::vector<std::string>& values);

  transport::Shell& shell_;
  std::string campaign_, spool_;
  bool start_jobs_ = true;
  std::chrono::milliseconds timeout_;
};

}  // namespace campaign::local
