// TransportGuard: what a failed shell (a dropped SSH link) means for each scheduler call.
#include "sched/transport_guard.hpp"

#include <catch2/catch.hpp>
#include <functional>

using campaign::sched::SchedulerUnavailable;
using campaign::sched::SubmitError;
using campaign::sched::SubmitFailure;

namespace {

// A scheduler whose every call throws what the test says.
class ThrowingScheduler : public campaign::sched::Scheduler {
 public:
  std::function<void()> thrower;
  std::string name() const override { return "throwing"; }
  std::string array_task_id(const std::string& array_id, long index) const override {
    return array_id + "[" + std::to_string(index) + "]";  // as LSF names a task
  }
  std::string submit(const campaign::sched::SubmitRequest&) override {
    thrower();
    return "1";
  }
  std::vector<campaign::sched::JobInfo> query(const std::vector<std::string>&) override {
    thrower();
    return {};
  }
  std::vector<campaign::sched::JobInfo> find_by_name(const std::vector<std::string>&) override {
    thrower();
    return {};
  }
  int queued_jobs_of_user() override {
    thrower();
    return 0;
  }
  void cancel(const std::vector<std::string>&) override { thrower(); }
  campaign::sched::StepRecords query_steps(const std::vector<std::string>&) override {
    thrower();
    campaign::sched::StepInfo step;
    step.step_id = "1.0";
    return {{step}, true, {"1"}};
  }
  std::optional<std::vector<campaign::sched::StepInfo>> running_steps(
      const std::vector<std::string>&) override {
    thrower();
    campaign::sched::StepInfo step;
    step.step_id = "1.2";
    return std::vector<campaign::sched::StepInfo>{step};
  }
};

}  // namespace

TEST_CASE("TransportGuard: a dropped link is a transient error, a refused key is not", "[sched][ssh]") {
  auto inner = std::make_unique<ThrowingScheduler>();
  ThrowingScheduler* raw = inner.get();
  campaign::sched::TransportGuard guard(std::move(inner));
  CHECK(guard.name() == "throwing");

  raw->thrower = [] { throw campaign::transport::TransportError("ssh u@h:22: connection lost"); };
  CHECK_THROWS_AS(guard.query({"1"}), SchedulerUnavailable);
  CHECK_THROWS_AS(guard.find_by_name({"n"}), SchedulerUnavailable);
  CHECK_THROWS_AS(guard.queued_jobs_of_user(), SchedulerUnavailable);
  CHECK_THROWS_AS(guard.cancel({"1"}), SchedulerUnavailable);
  CHECK_THROWS_AS(guard.query_steps({"1"}), SchedulerUnavailable);
  CHECK_THROWS_AS(guard.running_steps({"1"}), SchedulerUnavailable);
  try {
    guard.submit(campaign::sched::SubmitRequest{});
    FAIL("no exception");
  } catch (const SubmitError& e) {
    CHECK(e.kind() == SubmitFailure::transient);
    CHECK(std::string(e.what()).find("connection lost") != std::string::npos);
  }

  raw->thrower = [] { throw campaign::transport::AccessError("host key for [h]:22 has CHANGED"); };
  CHECK_THROWS_AS(guard.query({"1"}), campaign::transport::AccessError);
  CHECK_THROWS_AS(guard.submit(campaign::sched::SubmitRequest{}), campaign::transport::AccessError);

  // The scheduler's own errors pass unchanged.
  raw->thrower = [] { throw SubmitError(SubmitFailure::invalid, "bad partition"); };
  try {
    guard.submit(campaign::sched::SubmitRequest{});
    FAIL("no exception");
  } catch (const SubmitError& e) {
    CHECK(e.kind() == SubmitFailure::invalid);
  }
}

TEST_CASE("TransportGuard passes query_steps to the back end", "[sched]") {
  auto inner = std::make_unique<ThrowingScheduler>();
  inner->thrower = [] {};
  campaign::sched::TransportGuard guard(std::move(inner));
  auto records = guard.query_steps({"1"});
  REQUIRE(records.steps.size() == 1);
  CHECK(records.steps[0].step_id == "1.0");
  CHECK(records.kept);
  CHECK(records.ended == std::set<std::string>{"1"});
}

// Every back end is reached through the guard (cli/backend.cpp): what it does not pass on, the
// engine never sees (cancel of one packed step would become its allocation's; LSF's task ids Slurm's).
TEST_CASE("TransportGuard passes running_steps and array_task_id to the back end", "[sched]") {
  auto inner = std::make_unique<ThrowingScheduler>();
  inner->thrower = [] {};
  campaign::sched::TransportGuard guard(std::move(inner));
  auto steps = guard.running_steps({"1"});
  REQUIRE(steps);
  REQUIRE(steps->size() == 1);
  CHECK((*steps)[0].step_id == "1.2");
  CHECK(guard.array_task_id("7", 3) == "7[3]");
}
