#include "sched/transport_guard.hpp"

namespace campaign::sched {

namespace {

template <class F>
auto guarded(const char* what, F&& call) {
  try {
    return call();
  } catch (const transport::AccessError&) {
    throw;
  } catch (const transport::TransportError& e) {
    throw SchedulerUnavailable(std::string(what) + ": " + e.what());
  }
}

}  // namespace

TransportGuard::TransportGuard(std::unique_ptr<Scheduler> inner) : inner_(std::move(inner)) {}

std::string TransportGuard::submit(const SubmitRequest& request) {
  try {
    return inner_->submit(request);
  } catch (const transport::AccessError&) {
    throw;
  } catch (const transport::TransportError& e) {
    throw SubmitError(SubmitFailure::transient, std::string("submitting ") + request.job_name + ": " +
                                                    e.what() + " (the job may have been submitted)");
  }
}

std::vector<SubmitRecord> TransportGuard::submission_records(const std::vector<std::string>& records) {
  return guarded("reading submission records", [&] { return inner_->submission_records(records); });
}

std::vector<JobInfo> TransportGuard::query(const std::vector<std::string>& ids) {
  return guarded("asking for job states", [&] { return inner_->query(ids); });
}

std::vector<JobInfo> TransportGuard::find_by_name(const std::vector<std::string>& names) {
  return guarded("looking up jobs by name", [&] { return inner_->find_by_name(names); });
}

int TransportGuard::queued_jobs_of_user() {
  return guarded("counting queued jobs", [&] { return inner_->queued_jobs_of_user(); });
}

StepRecords TransportGuard::query_steps(const std::vector<std::string>& ids) {
  return guarded("asking for job steps", [&] { return inner_->query_steps(ids); });
}

std::map<std::string, double> TransportGuard::consumed_energy(const std::vector<std::string>& ids) {
  return guarded("asking for jobs' energy", [&] { return inner_->consumed_energy(ids); });
}

std::optional<std::vector<StepInfo>> TransportGuard::running_steps(const std::vector<std::string>& ids) {
  return guarded("asking for running job steps", [&] { return inner_->running_steps(ids); });
}

void TransportGuard::cancel(const std::vector<std::string>& ids) {
  guarded("cancelling jobs", [&] {
    inner_->cancel(ids);
    return 0;
  });
}

}  // namespace campaign::sched
