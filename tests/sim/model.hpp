// A model of Slurm's observable behaviour behind sched::Scheduler, on the virtual clock: sbatch (job
// arrays, afterok), squeue then sacct (accounting lag, jobs purged from slurmctld after MinJobAge),
// packed allocations whose cases run as job steps, scancel of jobs and steps, and the faults of the
// schedule (Faults). It also keeps the truth the invariants judge the engine by: which attempt's
// command ran in which job, how often, and how it ended.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sched/scheduler.hpp"
#include "workspace.hpp"
#include "world.hpp"

namespace sim {

// A case attempt a submitted job runs: what its script (or its allocation's manifest, or its array's
// index) says. The driver reads it from the rows the engine committed `submitting` before sbatch.
struct Member {
  std::int64_t attempt = 0;
  std::int64_t case_id = 0;
  int number = 0;  // the attempt's
  std::string case_name, run_dir, step_name;
  std::optional<long> task;
};

// One case's command in a job (a packed one as a job step).
struct Run {
  Member who;
  double offset = 0;            // packed: launched this long after the allocation starts
  double duration = 0;          // how long its command runs
  bool fails = false;           // exits 1 on its own
  bool refused = false;         // packed, launched while the allocation dies: srun fails at once, no step
  bool left = false;            // its script found the attempt claimed by another job: exit 75, never ran
  double start = -1, end = -1;  // its command ran [start, end); start < 0: it never ran
  bool step = false;            // packed: a step record exists (from start)
  campaign::State state = campaign::State::running;
  std::string raw;
  std::optional<int> exit;
};

struct Job {
  std::string id, name;
  std::string origin = "sbatch";  // or "late" (landed after a transient failure), "twice" (answered twice)
  std::optional<long> task;       // a task of array `parent`
  std::string parent;
  bool packed = false;
  std::vector<std::string> deps;  // afterok
  std::vector<Run> runs;          // a single job or array task: one; an allocation: its cases
  double submit = 0, queue_delay = 0, start = -1, end = -1;
  double cut = -1;  // after its start: a fault ends it (cut_state) unless it ended before
  campaign::State cut_state = campaign::State::node_fail;
  bool srun_exits_0 = false;
  bool dependency_never = false;
  double lag = 0;           // this job's accounting lag
  bool scancelled = false;  // ended by the engine's scancel while queued or running
  campaign::State state = campaign::State::queued;
  std::string raw = "PENDING";
  bool active() const { return end < 0; }
};

class SlurmModel final : public campaign::sched::Scheduler {
 public:
  SlurmModel(VirtualClock& clock, Rng& rng, const Faults& faults, Calls& calls, FakeWorkspace& ws,
             const Trace& trace)
      : clock_(clock), rng_(rng), faults_(faults), calls_(calls), ws_(ws), trace_(trace) {}

  // Reads what a submitted job name runs (set by the driver).
  std::function<std::vector<Member>(const std::string& job_name)> members_of;
  // Called with each job as it lands, after its draw: a test that replays a recorded sequence
  // (conformance_test.cpp) sets how it runs and ends.
  std::function<void(Job&)> shape;

  std::string name() const override { return "slurm"; }
  std::string submit(const campaign::sched::SubmitRequest& request) override;
  // As the real back end: its sbatch runs under the wrapper that records its outcome (submitted when
  // it lands, started while a cut-off one is still on its way, unclear when slurmctld did not answer,
  // none when the connection dropped before it started).
  bool records_submissions() const override { return true; }
  std::vector<campaign::sched::SubmitRecord> submission_records(
      const std::vector<std::string>& records) override;
  std::vector<campaign::sched::JobInfo> query(const std::vector<std::string>& ids) override;
  std::vector<campaign::sched::JobInfo> find_by_name(const std::vector<std::string>& names) override;
  int queued_jobs_of_user() override;
  void cancel(const std::vector<std::string>& ids) override;
  campaign::sched::StepRecords query_steps(const std::vector<std::string>& ids) override;
  std::optional<std::vector<campaign::sched::StepInfo>> running_steps(
      const std::vector<std::string>& ids) override;

  // Moves every job to virtual time `t` (jobs land, start, write markers, end).
  void advance(double t);
  // The earliest time after `t` at which something happens by itself (a landing, start, launch or end).
  double next_event(double t) const;
  const std::vector<Job>& jobs() const { return jobs_; }

 private:
  void call(const char* what);  // a kill point, then slurmctld's reachability
  Job* find(const std::string& id);
  void land(const campaign::sched::SubmitRequest& r, const std::vector<Member>& members,
            const std::string& origin, std::string* id);
  void progress(Job& j, double t);
  void end_run(Job& j, Run& r, double at, campaign::State s, const std::string& raw,
               std::optional<int> marker);
  void end_job(Job& j, double at, campaign::State s, const std::string& raw);
  void cut_job(Job& j, double at, campaign::State s, const std::string& raw);
  campaign::sched::JobInfo info_at(const Job& j, double at) const;
  bool ctld_knows(const Job& j) const;

  struct Pending {  // a submission that lands later
    double at;
    campaign::sched::SubmitRequest request;
    std::vector<Member> members;
  };
  void record(const std::string& prefix, campaign::sched::SubmitRecord::Outcome o,
              const std::string& id = "");
  VirtualClock& clock_;
  Rng& rng_;
  const Faults& faults_;
  Calls& calls_;
  FakeWorkspace& ws_;
  const Trace& trace_;
  std::vector<Job> jobs_;
  std::vector<Pending> pending_;
  std::map<std::string, campaign::sched::SubmitRecord> records_;  // by SubmitRequest::record
  long next_id_ = 1000;
};

}  // namespace sim
