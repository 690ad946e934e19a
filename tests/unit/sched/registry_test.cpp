// The scheduler registry and the command-line chunking every back end relies on.
#include <catch2/catch.hpp>

#include "fake_shell.hpp"
#include "sched/scheduler.hpp"

using namespace campaign;
using namespace campaign::sched;
using campaign::testing::FakeShell;

TEST_CASE("make_scheduler picks back ends by name", "[sched]") {
  FakeShell sh;
  CHECK(make_scheduler("slurm", sh, {})->name() == "slurm");
  CHECK(make_scheduler("lsf", sh, {})->name() == "lsf");
  try {
    make_scheduler("slrum", sh, {});
    FAIL("no error for an unknown scheduler");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("did you mean 'slurm'") != std::string::npos);
  }
  CHECK(sh.calls.empty());  // constructing runs nothing
}

TEST_CASE("register_scheduler adds a back end", "[sched]") {
  struct Dummy : Scheduler {
    std::string name() const override { return "dummy"; }
    std::string submit(const SubmitRequest&) override { return "1"; }
    std::vector<JobInfo> query(const std::vector<std::string>&) override { return {}; }
    std::vector<JobInfo> find_by_name(const std::vector<std::string>&) override { return {}; }
    int queued_jobs_of_user() override { return 0; }
    void cancel(const std::vector<std::string>&) override {}
  };
  register_scheduler("dummy",
                     [](transport::Shell&, const SchedulerOptions&) { return std::make_unique<Dummy>(); });
  FakeShell sh;
  CHECK(make_scheduler("dummy", sh, {})->name() == "dummy");
  auto kinds = scheduler_kinds();
  CHECK(std::find(kinds.begin(), kinds.end(), "dummy") != kinds.end());
}

TEST_CASE("chunk_by_length keeps every item once, in order, within the limit", "[sched]") {
  std::vector<std::string> items;
  for (int i = 0; i < 50; ++i) items.push_back(std::to_string(100000 + i));  // 6 chars + separator
  auto chunks = chunk_by_length(items, 20, 20 + 7 * 10);
  REQUIRE(chunks.size() == 5);
  std::vector<std::string> back;
  for (const auto& c : chunks) {
    CHECK(c.size() == 10);
    back.insert(back.end(), c.begin(), c.end());
  }
  CHECK(back == items);
  CHECK(chunk_by_length(items, 0, 1000000).size() == 1);
  CHECK(chunk_by_length({}, 0, 10).empty());
  // An item longer than the limit still goes out, alone.
  auto lone = chunk_by_length({"a", std::string(50, 'x'), "b"}, 0, 10);
  REQUIRE(lone.size() == 3);
  CHECK(lone[1].size() == 1);
}

TEST_CASE("SubmitFailure names", "[sched]") {
  CHECK(to_string(SubmitFailure::refused_by_limit) == "refused_by_limit");
  CHECK(to_string(SubmitFailure::transient) == "transient");
  CHECK(to_string(SubmitFailure::invalid) == "invalid");
  SubmitError e(SubmitFailure::transient, "x");
  CHECK(e.kind() == SubmitFailure::transient);
}
