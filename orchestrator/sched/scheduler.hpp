// One interface over batch schedulers ("slurm", "lsf", and "local"), chosen by name from a registry.
// The engine submits, polls, reconciles and cancels through it and never sees a scheduler command.
//
// Invariants:
//  - every call costs a fixed, small number of scheduler commands whatever the number of jobs (id and
//    name lists are split only to keep command lines short); never one command per job;
//  - a scheduler command that fails is an exception (SchedulerUnavailable, SubmitError), never a job
//    state: only what the scheduler printed about a job becomes a JobInfo, so an outage cannot mark
//    jobs failed;
//  - a job the scheduler no longer knows is absent from query()'s result (not "lost"): deciding that
//    is the engine's business, with the run directory's exit marker.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "resource/model.hpp"
#include "sched/nodelist.hpp"
#include "transport/shell.hpp"
#include "util/error.hpp"
#include "util/state.hpp"

namespace campaign::sched {

// Seconds since the epoch, as the catalog stores them.
using Time = std::chrono::sys_seconds;
inline Time current_time() {
  return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
}

// What a pending job waits for, as far as the engine acts on it; each back end reads its scheduler's
// words for it (Slurm's DependencyNeverSatisfied and ReqNodeNotAvail, LSF's pending reasons).
enum class Waiting {
  other,              // priority, resources, its dependencies still running...
  dependency_failed,  // a dependency ended without success: the job can never start
  nodes_unavailable,  // the nodes it asks for are down, drained or reserved: usually transient
};

struct JobInfo {
  std::string id, name;
  campaign::State state = campaign::State::queued;
  std::string raw_state;             // as printed, e.g. "CANCELLED by 1000", "EXIT"
  std::string reason;                // pending reason or termination reason; "" when the scheduler says none
  Waiting waiting = Waiting::other;  // of a pending job, from `reason`
  std::optional<int> exit_code, signal;  // exit_code only once the job has ended
  // Read by each back end from its scheduler's own notation; start and end only once they happened.
  std::optional<Time> submit, start, end;
  std::optional<double> elapsed_s;
  int nodes = 0;
  std::string nodelist;  // as the scheduler prints it; node_names() as a list
  std::vector<std::string> node_names() const { return sched::node_names(nodelist); }
  // A task of a job array: its index (Slurm "123_4" -> 4, LSF "123[5]" -> 5); `id` is the task's.
  std::optional<long> array_task;
  // The energy the accounting recorded for the job's nodes (Slurm's ConsumedEnergyRaw, joules; the
  // whole nodes', whatever else ran on them); unset where it records none (no AcctGatherEnergyType).
  std::optional<double> energy_j;
};

// One job step of an allocation, as the accounting knows it (batch/extern steps left out): in a
// packed run each case is a step of one allocation, and its step record is the per-case truth.
struct StepInfo {
  std::string job_id;   // the allocation's id, e.g. "2086" ("2086_3" for an array task)
  std::string step_id;  // e.g. "2086.3"
  std::string name;     // the step's name (srun -J)
  campaign::State state = campaign::State::running;  // mapped as jobs' states are
  std::string raw_state;                             // as printed, e.g. "CANCELLED by 0", "NODE_FAIL"
  std::optional<int> exit_code, signal;              // only once the step has ended
  std::optional<Time> start, end;
  std::optional<double> elapsed_s;
  std::string nodelist;  // as the scheduler prints it; node_names() as a list
  std::vector<std::string> node_names() const { return sched::node_names(nodelist); }
  std::optional<double> energy_j;  // as JobInfo's, of the step's nodes while it ran
};

// What the accounting holds about some allocations' steps (Scheduler::query_steps).
struct StepRecords {
  std::vector<StepInfo> steps;
  // The back end keeps step records (Slurm with accounting); false: no step will ever be known.
  bool kept = false;
  // Allocations whose own end the accounting holds. It records a step when the step starts and the
  // job's end after it (slurmctld sends its records in order), so a step of these allocations that
  // `steps` lacks never existed.
  std::set<std::string> ended;
};

struct SubmitRequest {
  std::string script_path;  // where the scheduler can read it (on the login node for remote shells)
  std::string job_name;
  std::string workdir;                  // "" keeps the scheduler's default
  std::vector<std::string> depends_on;  // job ids that must complete successfully first (afterok)
  std::vector<std::string> extra_args;  // passed before the script, verbatim
  // A job array of this many tasks (0: an ordinary job), at most `array_throttle` running at once
  // (0: no limit of its own); task indices start at Scheduler::first_array_task().
  long array_tasks = 0;
  long array_throttle = 0;
  // The job's time limit. Batch schedulers read it from the script's directives; a back end whose
  // scripts carry none (the local executor) applies this one.
  long walltime_s = 0;
  // What the job holds of each node it spans (matrix::Plan::demand_of), for a back end that places
  // jobs itself (the local executor); batch schedulers read their scripts' directives. Unset: a
  // script of the user's or a batch's own: the local executor reads its `#LOCAL` line.
  std::optional<resource::Demand> demand;
  // Where the submit command records its outcome, as a path prefix on the machine the scheduler's
  // commands run on (files PREFIX.rc, .out, .err); "" records nothing. A back end that
  // records_submissions() runs its submit command under a wrapper that survives the loss of the
  // connection that started it and writes the record when the command ends, so that after an
  // unclear outcome the engine learns whether the job was submitted before it submits again.
  std::string record;
};

// What a submit command left in its record (SubmitRequest::record).
struct SubmitRecord {
  enum class Outcome {
    none,       // no record: the command has not started (yet), or the back end keeps none
    started,    // it started and has not ended (or its wrapper died before it could say)
    submitted,  // it printed the job id `job_id`
    refused,    // it failed, saying that nothing was submitted (a limit, an invalid request)
    unclear,    // it failed or was killed in a way that may have submitted the job
  };
  Outcome outcome = Outcome::none;
  std::string job_id;
  std::string message;  // what the command said, when it failed
};

// Job arrays by scheduler kind: whether the back end submits them and the index of an array's
// first task (Slurm 0, LSF 1); the local executor has none (an array step runs one job per case).
struct ArrayTraits {
  bool supported = false;
  long first_task = 0;
};
ArrayTraits array_traits(std::string_view kind);

struct SchedulerOptions {
  // Whose jobs squeue/bjobs list. Empty: asked once through the shell (`id -un`), which over SSH is
  // the account on the login node rather than the local one.
  std::string user;
  // Limit for each scheduler command; past it the command counts as failed.
  std::chrono::milliseconds command_timeout = std::chrono::seconds(60);
  // Id and name lists are split so that no command line is longer than this; far below ARG_MAX and
  // SSH limits, and still thousands of ids per command.
  size_t max_command_chars = 32000;
  // How far back find_by_name() searches accounting (Slurm's sacct -S).
  std::chrono::hours history = std::chrono::hours(24 * 7);
  // LSF: feed the script on bsub's standard input (`bsub < script`, #BSUB lines always parsed)
  // instead of passing it as an argument (`bsub script`, as Summit documents).
  bool lsf_script_on_stdin = false;
  // LSF: query with `bjobs -o ... -json` (LSF 10.1); false uses `-noheader` with a delimiter.
  bool lsf_json = true;
};

// Anything that stops a scheduler call.
class SchedulerError : public Error {
 public:
  using Error::Error;
};

// A query, listing or cancel command failed, timed out or printed something unreadable. Transient by
// nature: retry later with backoff; says nothing about the jobs themselves.
class SchedulerUnavailable : public SchedulerError {
 public:
  using SchedulerError::SchedulerError;
};

// A scheduler command printed something its parser cannot read (changed format, truncated output).
// Handled like any failed poll: retried, never turned into job states.
class UnexpectedOutput : public SchedulerUnavailable {
 public:
  using SchedulerUnavailable::SchedulerUnavailable;
};

enum class SubmitFailure {
  // The scheduler refused because of a per-user or per-account limit (queued jobs, submissions):
  // nothing was submitted; retry once jobs have left the queue.
  refused_by_limit,
  // The controller did not answer or the answer was lost (timeout, connection error, unreadable
  // output). The job MAY exist: reconcile with find_by_name() before submitting again.
  transient,
  // The request itself is wrong (partition, feature, account, script): nothing was submitted and
  // retrying the same request will fail again.
  invalid,
};
std::string_view to_string(SubmitFailure kind);

class SubmitError : public SchedulerError {
 public:
  SubmitError(SubmitFailure kind, const std::string& message);
  SubmitFailure kind() const { return kind_; }

 private:
  SubmitFailure kind_;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string name() const = 0;
  // True when asking about jobs is what starts pending ones (the local executor, which has no
  // daemon): the engine then asks again soon after a change instead of backing off.
  virtual bool starts_jobs_when_polled() const { return false; }
  // For such an executor: start the waiting jobs that fit now, and nothing else (called the moment
  // a job's exit marker appears, so that its cores do not wait for the run loop's next poll).
  virtual void start_waiting() {}
  // True when the jobs run on this machine, so that their files (exit markers) are written through
  // this kernel and an inotify watch sees each one (engine/marker_watch.hpp).
  virtual bool runs_jobs_here() const { return false; }

  // Job arrays: whether this back end submits them, the index of an array's first task, and the
  // id of task `index` of array job `array_id` (the id query() and cancel() take for that task).
  bool has_arrays() const { return array_traits(name()).supported; }
  long first_array_task() const { return array_traits(name()).first_task; }
  virtual std::string array_task_id(const std::string& array_id, long index) const {
    return array_id + "_" + std::to_string(index);
  }

  // Submits one job script (one job array with SubmitRequest::array_tasks) and returns its job id
  // (an array's own id, without a task). Throws SubmitError.
  virtual std::string submit(const SubmitRequest& request) = 0;
  // The back end's submit command records its outcome (SubmitRequest::record); false: an unclear
  // submission can only be looked for by name.
  virtual bool records_submissions() const { return false; }
  // The records of earlier submissions, one per prefix, in order (Outcome::none where a back end
  // keeps none). Throws SchedulerUnavailable when they cannot be read now.
  virtual std::vector<SubmitRecord> submission_records(const std::vector<std::string>& records) {
    return std::vector<SubmitRecord>(records.size());
  }
  // The state of these jobs, in the order asked; ids the scheduler no longer knows are left out.
  // Throws SchedulerUnavailable.
  virtual std::vector<JobInfo> query(const std::vector<std::string>& ids) = 0;
  // Jobs carrying any of these names, queued or recently finished (possibly several per name).
  // Throws SchedulerUnavailable: an empty answer must mean "no such job", never "could not look".
  virtual std::vector<JobInfo> find_by_name(const std::vector<std::string>& names) = 0;
  // Jobs of the user that the scheduler still holds (pending, running, suspended), all campaigns
  // and other work included: what per-user queue limits count.
  virtual int queued_jobs_of_user() = 0;
  // Cancels these jobs; jobs that already ended are not an error.
  virtual void cancel(const std::vector<std::string>& ids) = 0;
  // The steps of the jobs `ids`, in the accounting's order; a back end without step accounting
  // returns none (and `kept` false): only Slurm has it (LSF's bjobs shows no jsrun steps, the local
  // executor runs no steps). Throws SchedulerUnavailable when the scheduler cannot be asked (as query
  // does).
  virtual StepRecords query_steps(const std::vector<std::string>& /*ids*/) { return {}; }
  // The steps of the jobs `ids` that run now (ids, names; cancel() takes a step's id alone), or
  // nullopt where the back end cannot end one step of a job (LSF, the local executor). Throws
  // SchedulerUnavailable.
  virtual std::optional<std::vector<StepInfo>> running_steps(const std::vector<std::string>& /*ids*/) {
    return std::nullopt;
  }
  // The energy the accounting recorded for these ended jobs (JobInfo::energy_j), by id; jobs without
  // one are left out. Empty where the back end records none (only Slurm does, with an energy plugin;
  // Slurm asks only once some answer of this process carried energy). Throws SchedulerUnavailable.
  virtual std::map<std::string, double> consumed_energy(const std::vector<std::string>& /*ids*/) {
    return {};
  }
};

using SchedulerFactory =
    std::function<std::unique_ptr<Scheduler>(transport::Shell&, const SchedulerOptions&)>;

// Adds or replaces a back end in the registry ("slurm" and "lsf" are built in).
void register_scheduler(const std::string& kind, SchedulerFactory factory);
// The registered kinds, sorted.
std::vector<std::string> scheduler_kinds();
// A scheduler of this kind running its commands through `shell`, which must outlive it.
// Throws campaign::Error for an unknown kind (with a "did you mean" hint).
std::unique_ptr<Scheduler> make_scheduler(const std::string& kind, transport::Shell& shell,
                                          const SchedulerOptions& options);

// Splits `items` into consecutive groups such that `fixed_chars` plus the items of a group, each
// followed by one separator character, stays within `max_chars`; an item too long on its own still
// gets a group. For putting many ids on command lines of bounded length.
std::vector<std::vector<std::string>> chunk_by_length(const std::vector<std::string>& items,
                                                      size_t fixed_chars, size_t max_chars);

}  // namespace campaign::sched
