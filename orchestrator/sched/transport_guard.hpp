// A Scheduler decorator that turns transport failures into the scheduler errors the engine knows.
// The back ends run their commands through a transport::Shell and only interpret what the commands
// print; when the shell itself fails (an SSH link that dropped, a reconnection that failed, a
// command whose outcome is unknown because the link died under it) they let its TransportError
// through. Wrapped in this guard, such a failure says what it means for the jobs:
//
//  - in submit(): SubmitError(transient): the job may or may not exist, so the engine reconciles
//    by job name before submitting again (never a second job for the same attempt);
//  - in every other call: SchedulerUnavailable: retried with backoff, never a job state.
//
// Invariant: a transport::AccessError (unknown or changed host key, rejected key) passes unchanged:
// retrying cannot fix it, and the run stops with its message.
#pragma once

#include <memory>

#include "sched/scheduler.hpp"

namespace campaign::sched {

class TransportGuard final : public Scheduler {
 public:
  explicit TransportGuard(std::unique_ptr<Scheduler> inner);

  std::string name() const override { return inner_->name(); }
  bool starts_jobs_when_polled() const override { return inner_->starts_jobs_when_polled(); }
  std::string array_task_id(const std::string& array_id, long index) const override {
    return inner_->array_task_id(array_id, index);
  }
  std::string submit(const SubmitRequest& request) override;
  bool records_submissions() const override { return inner_->records_submissions(); }
  std::vector<SubmitRecord> submission_records(const std::vector<std::string>& records) override;
  std::vector<JobInfo> query(const std::vector<std::string>& ids) override;
  std::vector<JobInfo> find_by_name(const std::vector<std::string>& names) override;
  int queued_jobs_of_user() override;
  void cancel(const std::vector<std::string>& ids) override;
  StepRecords query_steps(const std::vector<std::string>& ids) override;
  std::optional<std::vector<StepInfo>> running_steps(const std::vector<std::string>& ids) override;
  std::map<std::string, double> consumed_energy(const std::vector<std::string>& ids) override;

  Scheduler& inner() { return *inner_; }

 private:
  std::unique_ptr<Scheduler> inner_;
};

}  // namespace campaign::sched
