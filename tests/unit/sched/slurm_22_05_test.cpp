// Parsers and the Slurm back end on real Slurm 22.05.8 outputs recorded on the project's test
// cluster (tests/data/slurm/22.05, see its README for the commands and jobs).
#include <catch2/catch.hpp>
#include <map>

#include "fake_shell.hpp"
#include "sched/slurm.hpp"
#include "sched/slurm_parse.hpp"
#include "util/strings.hpp"

using namespace campaign;
using namespace campaign::sched;
using namespace campaign::testing;

namespace {

std::string rec(const std::string& name) { return data_file("slurm/22.05/" + name); }

std::map<std::string, JobInfo> by_id(const std::vector<JobInfo>& jobs) {
  std::map<std::string, JobInfo> m;
  for (const auto& j : jobs) m[j.id] = j;
  return m;
}

JobInfo scontrol_one(const std::string& name) {
  auto jobs = parse_scontrol_show_job(rec(name));
  REQUIRE(jobs.size() == 1);
  return jobs[0];
}

SchedulerOptions root() {
  SchedulerOptions o;
  o.user = "root";
  return o;
}

}  // namespace

TEST_CASE("22.05: sbatch --parsable outputs", "[slurm][22.05]") {
  CHECK(parse_sbatch(rec("sbatch-parsable.txt")) == std::optional<std::string>("147"));
  CHECK(parse_sbatch(rec("sbatch-parsable-cluster.txt")) ==
        std::optional<std::string>("148"));  // "148;testcluster"
  CHECK(parse_sbatch(rec("sbatch-parsable-array.txt")) == std::optional<std::string>("155"));
}

TEST_CASE("22.05: sbatch errors are classified", "[slurm][22.05]") {
  auto kind = [](const std::string& base) {
    return classify_sbatch_error(recorded("slurm/22.05/" + base).err);
  };
  CHECK(kind("sbatch-refused-limit") == SubmitFailure::refused_by_limit);
  CHECK(kind("sbatch-slurmctld-down") == SubmitFailure::transient);
  CHECK(kind("sbatch-invalid-constraint") == SubmitFailure::invalid);
  CHECK(kind("sbatch-too-many-nodes") == SubmitFailure::invalid);
  CHECK(kind("sbatch-invalid-account") == SubmitFailure::invalid);
}

TEST_CASE("22.05: squeue with the header-parsed format", "[slurm][22.05]") {
  auto jobs = parse_squeue(rec("squeue-pending-running.txt"));
  REQUIRE(jobs.size() == 9);  // the row "155_[3-4%2]" is tasks 3 and 4
  auto m = by_id(jobs);
  CHECK(m["146"].state == State::queued);  // requeued after a node failure
  CHECK(m["146"].reason == "BeginTime");
  CHECK(m["153"].reason == "Dependency");
  CHECK(m["155_3"].reason == "JobArrayTaskLimit");  // pending array tasks, one row each
  CHECK(m["155_4"].array_task == 4);
  CHECK(m["155_4"].state == State::queued);
  CHECK(m["155_1"].array_task == 1);
  CHECK_FALSE(m["146"].array_task);
  CHECK(m["150"].state == State::running);
  CHECK(m["150"].elapsed_s == Approx(3));
  CHECK(m["150"].nodelist == "gn1");
  CHECK(m["150"].reason.empty());
  CHECK(m["155_1"].name == "rec-array");

  auto mixed = parse_squeue(rec("squeue-left-queue-mixed.txt"));
  REQUIRE(mixed.size() == 1);
  CHECK(mixed[0].id == "152");
  CHECK(parse_squeue(rec("squeue-left-queue-recent.txt")).empty());
}

TEST_CASE("22.05: scontrol show job -o for every outcome", "[slurm][22.05]") {
  auto completed = scontrol_one("scontrol-show-job-completed.txt");
  CHECK(completed.id == "147");
  CHECK(completed.state == State::completed);
  CHECK(completed.exit_code == 0);
  CHECK(completed.nodes == 2);
  CHECK(completed.nodelist == "cn[1-2]");
  CHECK(completed.end == local("2026-11-22T05:48:15"));

  auto failed_job = scontrol_one("scontrol-show-job-failed.txt");
  CHECK(failed_job.state == State::failed);
  CHECK(failed_job.exit_code == 3);
  CHECK(failed_job.reason == "NonZeroExitCode");

  auto timeout = scontrol_one("scontrol-show-job-timeout.txt");
  CHECK(timeout.state == State::timeout);
  CHECK(timeout.reason == "TimeLimit");
  CHECK(timeout.signal == 15);
  CHECK(timeout.elapsed_s == Approx(89));

  auto cancelled = scontrol_one("scontrol-show-job-cancelled.txt");
  CHECK(cancelled.state == State::cancelled);
  CHECK(cancelled.signal == 15);

  auto node_fail = scontrol_one("scontrol-show-job-node-fail.txt");
  CHECK(node_fail.state == State::node_fail);
  CHECK(node_fail.reason == "NodeDown");

  auto begin = scontrol_one("scontrol-show-job-pending-begin.txt");
  CHECK(begin.state == State::queued);
  CHECK(begin.reason == "BeginTime");
  CHECK_FALSE(begin.start);  // StartTime there is a forecast
  CHECK_FALSE(begin.end);
  CHECK(begin.nodelist.empty());

  CHECK(scontrol_one("scontrol-show-job-pending-dependency.txt").reason == "Dependency");
  CHECK(scontrol_one("scontrol-show-job-requeued.txt").state == State::queued);
  auto running = scontrol_one("scontrol-show-job-running.txt");
  CHECK(is_active(running.state));
  CHECK_FALSE(running.exit_code.has_value());

  // An array job id lists its tasks, each under its ARRAYID_TASK id.
  auto array = parse_scontrol_show_job(rec("scontrol-show-job-array.txt"));
  auto tasks = by_id(array);
  REQUIRE(array.size() == 4);
  CHECK(tasks["155_1"].state == State::running);
  CHECK(tasks["155_2"].state == State::running);
  CHECK(tasks["155_3"].state == State::queued);  // "155_[3-4%2]": one per task, as squeue -r names them
  CHECK(tasks["155_4"].reason == "JobArrayTaskLimit");
  CHECK(tasks["155_4"].array_task == 4);
  CHECK(tasks["155_1"].name == "rec-array");
  CHECK(parse_scontrol_show_job(rec("scontrol-show-job-purged.txt")).empty());
}

TEST_CASE("22.05: of every job slurmctld lists, only the lines of the jobs asked about are parsed",
          "[slurm][22.05]") {
  std::string every;  // `scontrol -o show job` without an id: every job it holds
  for (const char* f : {"completed", "failed", "timeout", "cancelled", "running", "pending-dependency",
                        "array", "array-task-pending"})
    every += rec("scontrol-show-job-" + std::string(f) + ".txt");
  const auto all = by_id(parse_scontrol_show_job(every));
  REQUIRE(all.size() == 11);
  // A job, a task by its array id (JobId 157 is task 155_2), a task still pending with others
  // ("155_[3-4%2]"), a pending task alone (3499_4), and one slurmctld no longer holds.
  const std::vector<std::string> asked{"149", "155_2", "155_4", "3499_4", "999"};
  const auto got = by_id(parse_scontrol_show_job(scontrol_lines_of(every, asked)));
  std::vector<std::string> ids;
  for (auto& [id, job] : got) {
    ids.push_back(id);
    CHECK(job.state == all.at(id).state);
    CHECK(job.end == all.at(id).end);
  }
  // The pending tasks come together: 155_3 with 155_4, as the parse expands them.
  CHECK(ids == std::vector<std::string>{"149", "155_2", "155_3", "155_4", "3499_4"});
  CHECK(scontrol_lines_of(every, {"148"}).empty());
}

TEST_CASE("22.05: sacct -X -P with the back end's fields", "[slurm][22.05]") {
  auto jobs = parse_sacct(rec("sacct-mixed-states.txt"));
  REQUIRE(jobs.size() == 14);
  auto m = by_id(jobs);
  CHECK(m["145"].state == State::node_fail);
  CHECK(m["146"].state == State::queued);
  CHECK(m["146"].nodelist.empty());  // "None assigned"
  CHECK(m["147"].state == State::completed);
  CHECK(m["147"].nodes == 2);
  CHECK(m["147"].nodelist == "cn[1-2]");
  CHECK(m["148"].state == State::completed);
  CHECK(m["149"].state == State::failed);
  CHECK(m["149"].exit_code == 3);
  CHECK(m["150"].state == State::timeout);
  CHECK(m["150"].elapsed_s == Approx(89));
  CHECK(m["151"].state == State::cancelled);
  CHECK(m["151"].raw_state == "CANCELLED by 0");
  CHECK(m["152"].state == State::running);
  CHECK_FALSE(m["152"].end);
  CHECK_FALSE(m["152"].exit_code.has_value());
  CHECK(m["153"].reason == "Dependency");
  CHECK_FALSE(m["154"].start);
  CHECK(m["155_2"].state == State::failed);
  CHECK(m["155_2"].exit_code == 1);
  CHECK(m["155_3"].state == State::completed);

  // -D lists both lives of the requeued job; the latest is what counts.
  auto dup = by_id(parse_sacct(rec("sacct-mixed-states-duplicates.txt")));
  REQUIRE(dup.size() == 2);
  CHECK(dup["146"].state == State::queued);
  CHECK(dup["145"].state == State::node_fail);

  // Without -X, steps (.batch, .0) are not jobs.
  auto steps = parse_sacct(rec("sacct-steps.txt"));
  REQUIRE(steps.size() == 3);
  CHECK(by_id(steps)["150"].state == State::timeout);

  CHECK(parse_sacct(rec("sacct-by-name.txt")).size() == 6);
  CHECK(parse_sacct(rec("sacct-unknown-job.txt")).empty());
}

TEST_CASE("22.05: sacct steps of packed allocations (steps/)", "[slurm][22.05]") {
  const auto columns = split(Slurm::kSacctStepFields, ',');
  auto named = [&](const std::string& file) {
    std::map<std::string, StepInfo> m;
    for (const auto& s : parse_sacct_steps(rec("steps/" + file), columns).steps) m[s.name] = s;
    return m;
  };

  auto running = named("sacct-steps-running.txt");
  REQUIRE(running.size() == 5);  // no job lines, no .batch steps
  const auto& killed_early = running["rec-step-killed-by-scancel-of-the-allocation"];  // whole, no width
  CHECK(killed_early.step_id == "2592.0");
  CHECK(killed_early.job_id == "2592");
  CHECK(killed_early.state == State::running);
  CHECK_FALSE(killed_early.end);  // "Unknown"
  CHECK_FALSE(killed_early.exit_code.has_value());
  CHECK(killed_early.start == local("2026-11-25T11:55:10"));
  CHECK(running["rec-step-ok"].state == State::completed);  // ended while the allocation runs

  auto ended = named("sacct-steps-ended.txt");
  REQUIRE(ended.size() == 5);
  const auto& ok = ended["rec-step-ok"];
  CHECK(ok.step_id == "2592.2");
  CHECK(ok.state == State::completed);
  CHECK(ok.exit_code == 0);
  CHECK_FALSE(ok.signal.has_value());
  CHECK(ok.nodelist == "cn3");
  CHECK(ok.end == local("2026-11-25T11:55:13"));
  CHECK(ok.elapsed_s == Approx(3));
  const auto& fail = ended["rec-step-fail"];
  CHECK(fail.state == State::failed);
  CHECK(fail.exit_code == 3);
  CHECK(fail.nodelist == "cn2");
  // scancel of the allocation: its running step is CANCELLED (signal 15), not "CANCELLED by 0".
  const auto& killed = ended["rec-step-killed-by-scancel-of-the-allocation"];
  CHECK(killed.state == State::cancelled);
  CHECK(killed.raw_state == "CANCELLED");
  CHECK(killed.signal == 15);
  CHECK_FALSE(killed.exit_code.has_value());
  CHECK(killed.end == local("2026-11-25T11:55:14"));
  // The step's own limit (srun -t 1) is its TIMEOUT; the allocation's limit cancels its steps.
  const auto& own_limit = ended["rec-step-own-time-limit"];
  CHECK(own_limit.job_id == "2593");
  CHECK(own_limit.state == State::timeout);
  CHECK(own_limit.signal == 15);
  CHECK(own_limit.elapsed_s == Approx(86));
  CHECK(ended["rec-step-cut-by-allocation-limit"].state == State::cancelled);
  CHECK(ended["rec-step-cut-by-allocation-limit"].signal == 15);
}

TEST_CASE("22.05: the Slurm back end replaying recorded outputs", "[slurm][22.05]") {
  SECTION("a poll over queued, running and departed jobs") {
    FakeShell sh;
    sh.on("squeue", recorded("slurm/22.05/squeue-pending-running"));
    sh.on("sacct", recorded("slurm/22.05/sacct-mixed-states"));
    sh.on("scontrol", recorded("slurm/22.05/scontrol-show-job-purged"));
    Slurm slurm(sh, root());
    auto jobs = slurm.query({"152", "153", "147", "149", "150", "999999"});
    auto m = by_id(jobs);
    CHECK(jobs.size() == 5);  // 999999 never existed
    CHECK(m["152"].state == State::running);
    CHECK(m["153"].state == State::queued);
    CHECK(m["147"].state == State::completed);
    CHECK(m["149"].exit_code == 3);
    CHECK(m["150"].state == State::timeout);
    CHECK(sh.count("squeue") == 1);
    CHECK(sh.count("sacct") == 1);
    CHECK(sh.calls_to("sacct")[0].argv.back() == "147,149,999999");  // only the departed ones
  }
  SECTION("slurmctld down") {
    FakeShell sh;
    sh.on("squeue", recorded("slurm/22.05/squeue-slurmctld-down"));
    Slurm slurm(sh, root());
    CHECK_THROWS_AS(slurm.query({"147"}), SchedulerUnavailable);
  }
  SECTION("slurmdbd down: slurmctld still remembers the job") {
    FakeShell sh;
    sh.on("squeue", recorded("slurm/22.05/squeue-left-queue-recent"));
    sh.on("sacct", recorded("slurm/22.05/sacct-slurmdbd-down"));
    sh.on("scontrol", recorded("slurm/22.05/scontrol-show-job-completed"));
    Slurm slurm(sh, root());
    auto jobs = slurm.query({"147"});
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].state == State::completed);
  }
  SECTION("slurmdbd and slurmctld both down") {
    FakeShell sh;
    sh.on("squeue", recorded("slurm/22.05/squeue-left-queue-recent"));
    sh.on("sacct", recorded("slurm/22.05/sacct-slurmdbd-down"));
    sh.on("scontrol", recorded("slurm/22.05/scontrol-show-job-slurmctld-down"));
    Slurm slurm(sh, root());
    CHECK_THROWS_AS(slurm.query({"147"}), SchedulerUnavailable);
  }
  SECTION("submission refused by an association limit") {
    FakeShell sh;
    sh.on("sbatch", recorded("slurm/22.05/sbatch-refused-limit"));
    Slurm slurm(sh, root());
    SubmitRequest r;
    r.script_path = "job.sh";
    r.job_name = "n";
    try {
      slurm.submit(r);
      FAIL("no error");
    } catch (const SubmitError& e) {
      CHECK(e.kind() == SubmitFailure::refused_by_limit);
      CHECK(std::string(e.what()).find("AssocMaxSubmitJobLimit") != std::string::npos);
    }
  }
  SECTION("scancel of an unknown job is quiet") {
    FakeShell sh;
    sh.on("scancel", recorded("slurm/22.05/scancel-unknown-job"));
    Slurm slurm(sh, root());
    CHECK_NOTHROW(slurm.cancel({"999999"}));
  }
  SECTION("the steps of two allocations") {
    FakeShell sh;
    sh.on("sacct", recorded("slurm/22.05/steps/sacct-steps-ended"));
    Slurm slurm(sh, root());
    auto records = slurm.query_steps({"2592", "2593"});
    CHECK(records.ended == std::set<std::string>{"2592", "2593"});
    auto& steps = records.steps;
    REQUIRE(steps.size() == 5);
    CHECK(steps[0].step_id == "2592.0");
    CHECK(steps[4].step_id == "2593.1");
    CHECK(sh.count("sacct") == 1);
  }
}

TEST_CASE("22.05: job arrays, task by task in squeue -r, scontrol and sacct", "[slurm][22.05]") {
  auto queue = by_id(parse_squeue(rec("squeue-r-array.txt")));
  REQUIRE(queue.size() == 6);
  for (long t = 0; t < 6; ++t) {
    const auto& j = queue["3499_" + std::to_string(t)];
    CHECK(j.array_task == t);
    CHECK(j.name == "rec-array2");
    CHECK(j.state == (t < 2 ? State::running : State::queued));
  }
  auto pending = scontrol_one("scontrol-show-job-array-task-pending.txt");
  CHECK(pending.id == "3499_4");
  CHECK(pending.array_task == 4);
  CHECK(pending.state == State::queued);
  // sacct lists tasks still pending together: "3499_[4-5%2]" becomes 3499_4 and 3499_5.
  auto acct = parse_sacct(rec("sacct-array-pending.txt"));
  auto m = by_id(acct);
  REQUIRE(acct.size() == 6);
  CHECK(m["3499_0"].state == State::completed);
  CHECK(m["3499_2"].state == State::running);
  CHECK(m["3499_4"].state == State::queued);
  CHECK(m["3499_5"].array_task == 5);
  CHECK(m["3499_5"].name == "rec-array2");
}

TEST_CASE("22.05: array tasks ending NODE_FAIL, TIMEOUT and CANCELLED (arrays/)", "[slurm][22.05]") {
  // Array 4087: task 0 completed, 1 reached its time limit, 2 cancelled while running; array 4088:
  // both tasks on cn4, set DOWN.
  auto acct = by_id(parse_sacct(rec("arrays/sacct-array-ended.txt")));
  REQUIRE(acct.size() == 5);
  CHECK(acct["4087_0"].state == State::completed);
  CHECK(acct["4087_1"].state == State::timeout);
  CHECK(acct["4087_1"].array_task == 1);
  CHECK(acct["4087_1"].exit_code == 0);  // sacct's TIMEOUT is 0:0; the state says why
  CHECK(acct["4087_1"].elapsed_s == Approx(87));
  CHECK(acct["4087_2"].state == State::cancelled);
  CHECK(acct["4087_2"].raw_state == "CANCELLED by 0");
  CHECK(acct["4088_0"].state == State::node_fail);
  CHECK(acct["4088_1"].state == State::node_fail);
  CHECK(acct["4088_1"].nodelist == "cn4");
  CHECK(acct["4088_1"].name == "rec-array-nodefail");
  CHECK(acct["4088_0"].end == local("2026-11-26T23:42:44"));
  // Before the time limit: the task still runs; the ended ones are final already.
  auto before = by_id(parse_sacct(rec("arrays/sacct-array-running.txt")));
  REQUIRE(before.size() == 5);
  CHECK(before["4087_1"].state == State::running);
  CHECK_FALSE(before["4087_1"].end);
  CHECK(before["4088_0"].state == State::node_fail);

  // squeue -r -t all keeps ended tasks for MinJobAge, each under its own id, with the end's reason.
  auto queue = by_id(parse_squeue(rec("arrays/squeue-r-array-ended.txt")));
  REQUIRE(queue.size() == 5);
  CHECK(queue["4087_1"].state == State::timeout);
  CHECK(queue["4087_1"].reason == "TimeLimit");
  CHECK(queue["4087_2"].state == State::cancelled);
  CHECK(queue["4088_0"].state == State::node_fail);
  CHECK(queue["4088_0"].reason == "NodeDown");
  CHECK(queue["4088_0"].array_task == 0);
  CHECK(by_id(parse_squeue(rec("arrays/squeue-r-array-running.txt")))["4087_1"].state == State::running);

  // scontrol names an ended task by its own job id (JobId=4091) and ArrayJobId/ArrayTaskId: the
  // task's id is the array's.
  auto node_fail = scontrol_one("arrays/scontrol-show-job-array-node-fail.txt");
  CHECK(node_fail.id == "4088_0");
  CHECK(node_fail.array_task == 0);
  CHECK(node_fail.state == State::node_fail);
  CHECK(node_fail.reason == "NodeDown");
  auto timeout = scontrol_one("arrays/scontrol-show-job-array-timeout.txt");
  CHECK(timeout.id == "4087_1");
  CHECK(timeout.state == State::timeout);
  CHECK(timeout.signal == 15);
  auto cancelled = scontrol_one("arrays/scontrol-show-job-array-cancelled.txt");
  CHECK(cancelled.id == "4087_2");
  CHECK(cancelled.state == State::cancelled);

  SECTION("the back end: ended tasks seen in squeue are read from accounting, in one sacct") {
    FakeShell sh;
    sh.on("squeue", recorded("slurm/22.05/arrays/squeue-r-array-ended"));
    sh.on("sacct", recorded("slurm/22.05/arrays/sacct-array-ended"));
    Slurm slurm(sh, root());
    auto jobs = by_id(slurm.query({"4087_0", "4087_1", "4087_2", "4088_0"}));
    REQUIRE(jobs.size() == 4);
    CHECK(jobs["4087_0"].state == State::completed);
    CHECK(jobs["4087_0"].exit_code == 0);
    CHECK(jobs["4087_1"].state == State::timeout);
    CHECK(jobs["4087_2"].state == State::cancelled);
    CHECK(jobs["4088_0"].state == State::node_fail);
    CHECK(sh.count("sacct") == 1);
    CHECK(sh.count("scontrol") == 0);
  }
}

TEST_CASE("22.05: ConsumedEnergyRaw without an energy plugin is no energy (energy/)",
          "[slurm][22.05][energy]") {
  auto jobs = parse_sacct(rec("energy/sacct-job.txt"));
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].state == State::completed);
  CHECK_FALSE(jobs[0].energy_j);  // "0"
  auto steps = parse_sacct_steps(rec("energy/sacct-steps.txt"), split(Slurm::kSacctStepFields, ','));
  REQUIRE(steps.steps.size() == 1);
  CHECK(steps.steps[0].name == "rec-energy-step");
  CHECK_FALSE(steps.steps[0].energy_j);
  CHECK(steps.ended == std::set<std::string>{"1"});
}
