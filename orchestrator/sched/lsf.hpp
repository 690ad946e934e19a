// IBM Spectrum LSF back end (Summit and its kin): bsub, bjobs, bkill.
//
// Commands per call, whatever the number of jobs (id lists split only by command-line length):
//   submit               1 bsub (script as argument, or on stdin with lsf_script_on_stdin; under
//                        the recording wrapper, command.hpp, when a record is asked)
//   submission_records   1 read of the records' files (only after an unclear submission)
//   query                1 bjobs -o '<fields>' -json IDS (or -noheader with a delimiter)
//   find_by_name         1 bjobs -a -u USER: unfinished jobs and those finished within LSF's
//                        CLEAN_PERIOD (one hour by default); LSF keeps no longer history in bjobs
//   queued_jobs_of_user  1 bjobs -u USER
//   cancel               1 bkill IDS
// "Job <N> is not found" (a job purged from mbatchd) and "No unfinished job found" are answers, not
// failures, whatever bjobs' exit status (it depends on LSB_BJOBS_CONSISTENT_EXIT_CODE).
#pragma once

#include "sched/scheduler.hpp"

namespace campaign::sched {

class Lsf final : public Scheduler {
 public:
  Lsf(transport::Shell& shell, SchedulerOptions options);

  std::string name() const override { return "lsf"; }
  std::string array_task_id(const std::string& array_id, long index) const override {
    return array_id + "[" + std::to_string(index) + "]";
  }
  std::string submit(const SubmitRequest& request) override;
  bool records_submissions() const override { return true; }
  std::vector<SubmitRecord> submission_records(const std::vector<std::string>& records) override;
  std::vector<JobInfo> query(const std::vector<std::string>& ids) override;
  std::vector<JobInfo> find_by_name(const std::vector<std::string>& names) override;
  int queued_jobs_of_user() override;
  void cancel(const std::vector<std::string>& ids) override;

  static constexpr const char* kFields =
      "jobid jobindex job_name stat exit_code exit_reason pend_reason submit_time start_time finish_time "
      "run_time "
      "nexec_host";
  static constexpr char kDelimiter = '^';  // for -noheader: in no field we read

 private:
  const std::string& user();
  // bsub's result: the job id, or the SubmitError it means.
  std::string read_bsub(const std::vector<std::string>& argv, const transport::CommandResult& r);
  // bjobs with `filters` (-a, -u USER), the configured output format and `ids` (split by length).
  std::vector<JobInfo> bjobs(const std::vector<std::string>& filters, const std::vector<std::string>& ids,
                             const std::string& fields);

  transport::Shell& shell_;
  SchedulerOptions options_;
  std::string user_;
};

}  // namespace campaign::sched
