// Slurm back end: sbatch, squeue, sacct (scontrol when accounting is off), scancel.
//
// Commands per call, whatever the number of jobs (id lists split only by command-line length):
//   submit               1 sbatch (under the recording wrapper, command.hpp, when a record is asked)
//   submission_records   1 read of the records' files (only after an unclear submission)
//   query                1 squeue for all the user's jobs; 1 sacct for the ids that left the queue;
//                        1 scontrol only for ids sacct cannot give (accounting off, not yet recorded)
//   find_by_name         1 squeue -t all + 1 sacct (or 1 scontrol without accounting)
//   queued_jobs_of_user  1 squeue
//   cancel               1 scancel
//   query_steps          1 sacct (none when accounting is off: slurmctld keeps no ended steps)
//   running_steps        1 squeue -s
// Query commands run under `env SLURM_TIME_FORMAT=standard` so that times are ISO-8601 whatever the
// user's environment says.
#pragma once

#include "sched/scheduler.hpp"

namespace campaign::sched {

class Slurm final : public Scheduler {
 public:
  Slurm(transport::Shell& shell, SchedulerOptions options);

  std::string name() const override { return "slurm"; }
  std::string submit(const SubmitRequest& request) override;
  bool records_submissions() const override { return true; }
  std::vector<SubmitRecord> submission_records(const std::vector<std::string>& records) override;
  std::vector<JobInfo> query(const std::vector<std::string>& ids) override;
  std::vector<JobInfo> find_by_name(const std::vector<std::string>& names) override;
  int queued_jobs_of_user() override;
  void cancel(const std::vector<std::string>& ids) override;
  StepRecords query_steps(const std::vector<std::string>& ids) override;
  std::optional<std::vector<StepInfo>> running_steps(const std::vector<std::string>& ids) override;
  std::map<std::string, double> consumed_energy(const std::vector<std::string>& ids) override;

  // The squeue format (header-parsed): id, name, state, reason, nodes, elapsed, limit, nodes, submit
  // and start time.
  static constexpr const char* kSqueueFormat = "%i|%j|%T|%r|%D|%M|%l|%N|%V|%S";
  static constexpr const char* kSacctFields =
      "JobID,JobName%200,State,ExitCode,Reason,Submit,Start,End,Elapsed,NNodes,NodeList,ConsumedEnergyRaw";
  // For query_steps, printed without header (-n): -P prints names whole, no width needed.
  static constexpr const char* kSacctStepFields =
      "JobID,JobName,State,ExitCode,Start,End,Elapsed,NodeList,ConsumedEnergyRaw";

 private:
  const std::string& user();
  static std::vector<std::string> sbatch_argv(const SubmitRequest& request);
  // sbatch's result: the job id, or the SubmitError it means.
  std::string read_sbatch(const std::vector<std::string>& argv, const transport::CommandResult& r);
  // All the user's jobs in slurmctld; with `recently_ended`, also those that ended within MinJobAge.
  std::vector<JobInfo> squeue(bool recently_ended);
  // The outputs of `base flag LIST`, one per chunk of `list`; nullopt when accounting is disabled.
  // Throws SchedulerUnavailable on other failures.
  std::optional<std::vector<std::string>> sacct(const std::vector<std::string>& base,
                                                const std::vector<std::string>& list,
                                                const std::string& flag);
  // Jobs slurmctld still remembers: one id asks for that job; several ask for all jobs and parse
  // only theirs (scontrol_lines_of); none, all jobs.
  std::vector<JobInfo> scontrol(const std::vector<std::string>& ids);

  transport::Shell& shell_;
  SchedulerOptions options_;
  std::string user_;
  bool accounting_disabled_ = false;  // learnt once; saves a failing sacct per poll
  // Some answer of the accounting carried a job's or step's energy: the site gathers it
  // (AcctGatherEnergyType), so consumed_energy() asks; until then it saves the call.
  bool energy_seen_ = false;
};

}  // namespace campaign::sched
