// The Slurm back end against a scripted shell: exact commands sent, the number of commands per call
// whatever the number of jobs, fallbacks, and how failures are classified.
#include "sched/slurm.hpp"

#include <catch2/catch.hpp>

#include "fake_shell.hpp"
#include "util/strings.hpp"

using namespace campaign;
using namespace campaign::sched;
using namespace campaign::testing;

namespace {

const std::string kSqueueHeader =
    "JOBID|NAME|STATE|REASON|NODES|TIME|TIME_LIMIT|NODELIST|SUBMIT_TIME|START_TIME\n";
const std::string kSacctHeader =
    "JobID|JobName|State|ExitCode|Reason|Submit|Start|End|Elapsed|NNodes|NodeList\n";

SchedulerOptions bob() {
  SchedulerOptions o;
  o.user = "bob";
  return o;
}

std::string squeue_row(const std::string& id, const std::string& name, const std::string& state,
                       const std::string& reason = "None") {
  return id + "|" + name + "|" + state + "|" + reason +
         "|1|0:10|10:00|cn1|2024-05-01T10:00:00|2024-05-01T10:00:01\n";
}

std::string sacct_row(const std::string& id, const std::string& name, const std::string& state,
                      const std::string& exit_code) {
  return id + "|" + name + "|" + state + "|" + exit_code +
         "|None|2024-05-01T10:00:00|2024-05-01T10:00:01|2024-05-01T10:00:09|00:00:08|1|cn1\n";
}

// A sacct that knows every job it is asked about (COMPLETED), like a healthy slurmdbd.
FakeShell::Responder sacct_knowing_all() {
  return [](const std::vector<std::string>& argv) {
    std::string out = kSacctHeader;
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "-j")
        for (const auto& id : split(argv[i + 1], ',')) out += sacct_row(id, "n" + id, "COMPLETED", "0:0");
    return ok(out);
  };
}

std::vector<std::string> ids_of(const std::vector<JobInfo>& jobs) {
  std::vector<std::string> ids;
  for (const auto& j : jobs) ids.push_back(j.id);
  return ids;
}

}  // namespace

TEST_CASE("slurm submit sends one sbatch with name, dependencies, workdir and extra args", "[slurm]") {
  FakeShell sh;
  sh.on("sbatch", ok("4242;testcluster\n"));
  Slurm slurm(sh, bob());
  SubmitRequest r;
  r.script_path = "/scratch/run/c1/job.sh";
  r.job_name = "cmp1-c1-a1";
  r.workdir = "/scratch/run/c1";
  r.depends_on = {"10", "11"};
  r.extra_args = {"--partition=gpu", "--account=abc"};
  CHECK(slurm.submit(r) == "4242");
  REQUIRE(sh.calls.size() == 1);
  CHECK(sh.calls[0].argv == std::vector<std::string>{"sbatch", "--parsable", "--job-name=cmp1-c1-a1",
                                                     "--dependency=afterok:10:11,singleton",
                                                     "--chdir=/scratch/run/c1", "--partition=gpu",
                                                     "--account=abc", "/scratch/run/c1/job.sh"});
  CHECK(sh.calls[0].timeout == std::chrono::seconds(60));

  SubmitRequest plain;
  plain.script_path = "job.sh";
  plain.job_name = "x";
  slurm.submit(plain);
  CHECK(sh.calls[1].argv ==
        std::vector<std::string>{"sbatch", "--parsable", "--job-name=x", "--dependency=singleton", "job.sh"});

  SubmitRequest array = plain;  // a job array: --array=0-(n-1)%T, tasks ID_INDEX
  array.array_tasks = 200;
  array.array_throttle = 10;
  CHECK(slurm.submit(array) == "4242");
  CHECK(sh.calls[2].argv == std::vector<std::string>{"sbatch", "--parsable", "--job-name=x",
                                                     "--dependency=singleton", "--array=0-199%10", "job.sh"});
  CHECK(slurm.first_array_task() == 0);
  CHECK(slurm.array_task_id("4242", 7) == "4242_7");
}

TEST_CASE("slurm submit failures carry the kind the engine acts on", "[slurm]") {
  struct Case {
    transport::CommandResult result;
    SubmitFailure kind;
  };
  const Case cases[] = {
      {failed(1,
              "sbatch: error: QOSMaxSubmitJobPerUserLimit\nsbatch: error: Batch job submission failed: Job "
              "violates accounting/QOS policy (job submit limit, user's size and/or time limits)\n"),
       SubmitFailure::refused_by_limit},
      {failed(1, "sbatch: error: AssocMaxSubmitJobLimit\n"), SubmitFailure::refused_by_limit},
      {failed(1, "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation\n"),
       SubmitFailure::transient},
      {failed(1,
              "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect "
              "failure)\n"),
       SubmitFailure::transient},
      {failed(1, "sbatch: error: Batch job submission failed: Invalid feature specification\n"),
       SubmitFailure::invalid},
      {failed(1, "sbatch: error: invalid partition specified: nope\n"), SubmitFailure::invalid},
      {timed_out(), SubmitFailure::transient},
      {failed(127, "sbatch: command not found\n"), SubmitFailure::invalid},
      {ok("", "sbatch: warning: odd\n"), SubmitFailure::transient},  // exit 0 without an id: may exist
      {failed(137, ""), SubmitFailure::transient},  // killed half-way (the session serving it died)
  };
  for (const auto& c : cases) {
    FakeShell sh;
    sh.on("sbatch", c.result);
    Slurm slurm(sh, bob());
    SubmitRequest r;
    r.script_path = "job.sh";
    r.job_name = "n";
    INFO(c.result.err);
    try {
      slurm.submit(r);
      FAIL("submit did not throw");
    } catch (const SubmitError& e) {
      CHECK(e.kind() == c.kind);
      CHECK(std::string(e.what()).find("sbatch") != std::string::npos);
    }
  }
}

TEST_CASE("slurm query: one squeue, then one sacct for the jobs that left the queue", "[slurm]") {
  FakeShell sh;
  sh.on("squeue",
        ok(kSqueueHeader + squeue_row("1", "a", "PENDING", "ReqNodeNotAvail, UnavailableNodes:cn2") +
           squeue_row("2", "b", "RUNNING") + squeue_row("99", "someone-else", "RUNNING")));
  sh.on("sacct", ok(kSacctHeader + sacct_row("3", "c", "FAILED", "3:0") +
                    sacct_row("4", "d", "CANCELLED by 1000", "0:9")));
  sh.on("scontrol", failed(1, "slurm_load_jobs error: Invalid job id specified\n"));
  Slurm slurm(sh, bob());

  auto jobs = slurm.query({"4", "1", "3", "2", "5"});
  CHECK(ids_of(jobs) == std::vector<std::string>{"4", "1", "3", "2"});  // asked order; 5 is unknown: absent
  CHECK(jobs[0].state == State::cancelled);
  CHECK(jobs[0].signal == 9);
  CHECK(jobs[1].state == State::queued);
  CHECK(jobs[1].reason == "ReqNodeNotAvail, UnavailableNodes:cn2");
  CHECK(jobs[2].state == State::failed);
  CHECK(jobs[2].exit_code == 3);
  CHECK(jobs[3].state == State::running);

  REQUIRE(sh.count("squeue") == 1);
  REQUIRE(sh.count("sacct") == 1);
  CHECK(sh.calls_to("squeue")[0].argv == std::vector<std::string>{"env", "SLURM_TIME_FORMAT=standard",
                                                                  "squeue", "-r", "-u", "bob", "-o",
                                                                  "%i|%j|%T|%r|%D|%M|%l|%N|%V|%S"});
  CHECK(sh.calls_to("sacct")[0].argv ==
        std::vector<std::string>{"env", "SLURM_TIME_FORMAT=standard", "sacct", "-X", "-P", "-o",
                                 "JobID,JobName%200,State,ExitCode,Reason,Submit,Start,End,Elapsed,NNodes,"
                                 "NodeList,ConsumedEnergyRaw",
                                 "-j", "4,3,5"});
  // 5 is in neither: slurmctld was asked once about it (accounting may lag behind).
  CHECK(sh.count("scontrol") == 1);
  CHECK(sh.calls.size() == 3);
}

TEST_CASE("slurm query: an id sacct does not know yet is asked of scontrol, once", "[slurm]") {
  FakeShell sh;
  sh.on("squeue", ok(kSqueueHeader));
  sh.on("sacct", ok(kSacctHeader + sacct_row("3", "c", "COMPLETED", "0:0")));
  sh.on("scontrol",
        ok("JobId=5 JobName=e JobState=COMPLETED Reason=None ExitCode=0:0 NumNodes=1 NodeList=cn1\n"));
  Slurm slurm(sh, bob());
  auto jobs = slurm.query({"3", "5"});
  CHECK(ids_of(jobs) == std::vector<std::string>{"3", "5"});
  CHECK(jobs[1].state == State::completed);
  REQUIRE(sh.count("scontrol") == 1);
  CHECK(sh.calls_to("scontrol")[0].argv ==
        std::vector<std::string>{"env", "SLURM_TIME_FORMAT=standard", "scontrol", "-o", "show", "job", "5"});

  // Purged everywhere: absent, and not an error.
  FakeShell gone;
  gone.on("squeue", ok(kSqueueHeader));
  gone.on("sacct", ok(kSacctHeader));
  gone.on("scontrol", failed(1, "slurm_load_jobs error: Invalid job id specified\n"));
  Slurm s2(gone, bob());
  CHECK(s2.query({"7"}).empty());
}

TEST_CASE("slurm query costs the same two commands for 1 or 2000 jobs", "[slurm]") {
  for (size_t n : {1u, 50u, 2000u}) {
    FakeShell sh;
    sh.on("squeue", ok(kSqueueHeader));
    sh.on("sacct", sacct_knowing_all());
    Slurm slurm(sh, bob());
    std::vector<std::string> ids;
    for (size_t i = 0; i < n; ++i) ids.push_back(std::to_string(1000000 + i));
    auto jobs = slurm.query(ids);
    CHECK(jobs.size() == n);
    CHECK(sh.count("squeue") == 1);
    CHECK(sh.count("sacct") == 1);
    CHECK(sh.calls.size() == 2);
  }
}

TEST_CASE("slurm query splits long id lists by command-line length only", "[slurm]") {
  FakeShell sh;
  sh.on("squeue", ok(kSqueueHeader));
  sh.on("sacct", sacct_knowing_all());
  auto opts = bob();
  opts.max_command_chars = 400;
  Slurm slurm(sh, opts);
  std::vector<std::string> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(std::to_string(5000000 + i));
  auto jobs = slurm.query(ids);
  CHECK(ids_of(jobs) == ids);
  CHECK(sh.count("squeue") == 1);
  auto calls = sh.calls_to("sacct");
  REQUIRE(calls.size() > 1);
  std::vector<std::string> asked;
  for (const auto& c : calls) {
    size_t len = 0;
    for (const auto& a : c.argv) len += a.size() + 1;
    CHECK(len <= 400);
    auto part = split(c.argv.back(), ',');
    asked.insert(asked.end(), part.begin(), part.end());
  }
  CHECK(asked == ids);  // every id exactly once, in order
}

TEST_CASE("slurm query with accounting disabled falls back to scontrol and stops asking sacct", "[slurm]") {
  FakeShell sh;
  sh.on("squeue", ok(kSqueueHeader));
  sh.on("sacct", failed(1, "SLURM accounting storage is disabled\n"));  // as recorded (gc3pie)
  sh.on("scontrol",
        ok("JobId=3 JobName=c JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0 NumNodes=1 NodeList=cn1\n"
           "JobId=4 JobName=d JobState=COMPLETED Reason=None ExitCode=0:0 NumNodes=1 NodeList=cn2\n"
           "JobId=8 JobName=other JobState=RUNNING Reason=None ExitCode=0:0 NumNodes=1 NodeList=cn3\n"));
  Slurm slurm(sh, bob());
  auto jobs = slurm.query({"3", "4"});
  REQUIRE(ids_of(jobs) == std::vector<std::string>{"3", "4"});
  CHECK(jobs[0].exit_code == 3);
  // Several ids: one scontrol for all jobs, not one per job.
  CHECK(sh.calls_to("scontrol")[0].argv ==
        std::vector<std::string>{"env", "SLURM_TIME_FORMAT=standard", "scontrol", "-o", "show", "job"});

  slurm.query({"3", "4"});
  CHECK(sh.count("sacct") == 1);
  CHECK(sh.count("scontrol") == 2);
}

TEST_CASE("slurm query when slurmdbd is down: scontrol if it knows, else unavailable", "[slurm]") {
  auto make = [](FakeShell& sh) {
    sh.on("squeue", ok(kSqueueHeader));
    sh.on("sacct", failed(1, "sacct: error: Problem talking to the database: Connection refused\n"));
  };
  FakeShell knows;
  make(knows);
  knows.on("scontrol", ok("JobId=3 JobName=c JobState=COMPLETED ExitCode=0:0\n"));
  Slurm s1(knows, bob());
  CHECK(ids_of(s1.query({"3"})) == std::vector<std::string>{"3"});

  FakeShell forgot;
  make(forgot);
  forgot.on("scontrol", failed(1, "slurm_load_jobs error: Invalid job id specified\n"));
  Slurm s2(forgot, bob());
  CHECK_THROWS_AS(s2.query({"3"}), SchedulerUnavailable);
}

TEST_CASE("slurm query: a failing squeue is SchedulerUnavailable and nothing else runs", "[slurm]") {
  for (auto result :
       {failed(1, "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"),
        timed_out(), failed(127, "squeue: command not found\n"), ok("garbage without header\n")}) {
    FakeShell sh;
    sh.on("squeue", result);
    Slurm slurm(sh, bob());
    CHECK_THROWS_AS(slurm.query({"1", "2"}), SchedulerUnavailable);
    CHECK(sh.calls.size() == 1);
  }
  FakeShell sh;
  Slurm slurm(sh, bob());
  CHECK(slurm.query({}).empty());
  CHECK(sh.calls.empty());
}

TEST_CASE("slurm asks the user name once when not configured", "[slurm]") {
  FakeShell sh;
  sh.on("id -un", ok("alice\n"));
  sh.on("squeue", ok(kSqueueHeader + squeue_row("1", "a", "RUNNING")));
  Slurm slurm(sh, SchedulerOptions{});
  slurm.query({"1"});
  slurm.queued_jobs_of_user();
  CHECK(sh.count("id") == 1);
  CHECK(sh.calls_to("squeue")[1].argv[5] == "alice");

  FakeShell broken;
  broken.on("id -un", failed(1, "id: cannot find name for user ID 1234\n"));
  Slurm s2(broken, SchedulerOptions{});
  CHECK_THROWS_AS(s2.queued_jobs_of_user(), SchedulerUnavailable);
}

TEST_CASE("slurm find_by_name: queued and finished jobs of those names", "[slurm]") {
  FakeShell sh;
  sh.on("squeue", ok(kSqueueHeader + squeue_row("20", "cmp-a-1", "PENDING", "Priority") +
                     squeue_row("21", "unrelated", "RUNNING") + squeue_row("22", "cmp-d-1", "COMPLETED")));
  sh.on("sacct",
        ok(kSacctHeader + sacct_row("20", "cmp-a-1", "PENDING", "0:0") +
           sacct_row("15", "cmp-b-1", "COMPLETED", "0:0") + sacct_row("16", "cmp-b-1", "FAILED", "2:0")));
  Slurm slurm(sh, bob());
  auto jobs = slurm.find_by_name({"cmp-a-1", "cmp-b-1", "cmp-c-1", "cmp-d-1"});
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].id == "20");
  CHECK(jobs[0].reason == "Priority");  // squeue's fresher view of a queued job
  CHECK(jobs[1].id == "15");
  CHECK(jobs[2].id == "16");
  CHECK(jobs[2].exit_code == 2);
  CHECK(jobs[3].id == "22");  // ended moments ago: only slurmctld knows it by name yet
  REQUIRE(sh.count("squeue") == 1);
  // -t all: jobs that just ended are still in slurmctld, while slurmdbd may list them under a
  // placeholder name for a while (seen on Slurm 22.05).
  CHECK(sh.calls_to("squeue")[0].argv == std::vector<std::string>{"env", "SLURM_TIME_FORMAT=standard",
                                                                  "squeue", "-r", "-u", "bob", "-t", "all",
                                                                  "-o", "%i|%j|%T|%r|%D|%M|%l|%N|%V|%S"});
  REQUIRE(sh.count("sacct") == 1);
  CHECK(sh.calls_to("sacct")[0].argv ==
        std::vector<std::string>{"env", "SLURM_TIME_FORMAT=standard", "sacct", "-X", "-P", "-u", "bob", "-S",
                                 "now-168hours", "-E", "now", "-o",
                                 "JobID,JobName%200,State,ExitCode,Reason,Submit,Start,End,Elapsed,NNodes,"
                                 "NodeList,ConsumedEnergyRaw",
                                 "--name=cmp-a-1,cmp-b-1,cmp-c-1,cmp-d-1"});

  // Looking must not fail silently: an empty answer would mean "submit again".
  FakeShell down;
  down.on("squeue", ok(kSqueueHeader));
  down.on("sacct", failed(1, "sacct: error: Problem talking to the database: Connection refused\n"));
  Slurm s2(down, bob());
  CHECK_THROWS_AS(s2.find_by_name({"cmp-a-1"}), SchedulerUnavailable);
}

TEST_CASE("slurm find_by_name without accounting uses slurmctld's memory", "[slurm]") {
  FakeShell sh;
  sh.on("squeue", ok(kSqueueHeader));
  sh.on("sacct", failed(1, "SLURM accounting storage is disabled\n"));
  sh.on("scontrol", ok("JobId=31 JobName=cmp-a-1 JobState=COMPLETED ExitCode=0:0\n"
                       "JobId=32 JobName=zzz JobState=COMPLETED ExitCode=0:0\n"));
  Slurm slurm(sh, bob());
  auto jobs = slurm.find_by_name({"cmp-a-1"});
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == "31");
}

TEST_CASE("slurm queued_jobs_of_user counts all the user's active jobs", "[slurm]") {
  FakeShell sh;
  sh.on("squeue", ok(kSqueueHeader + squeue_row("1", "a", "PENDING") + squeue_row("2", "b", "RUNNING") +
                     squeue_row("3", "c", "COMPLETING") + squeue_row("4", "d", "COMPLETED")));
  Slurm slurm(sh, bob());
  CHECK(slurm.queued_jobs_of_user() == 3);
  CHECK(sh.calls.size() == 1);
}

TEST_CASE("slurm cancel: one scancel, ended jobs are not an error", "[slurm]") {
  FakeShell sh;
  sh.on("scancel", failed(1, "scancel: error: Kill job error on job id 3: Invalid job id specified\n"));
  Slurm slurm(sh, bob());
  slurm.cancel({"1", "2", "3", "2"});
  REQUIRE(sh.calls.size() == 1);
  CHECK(sh.calls[0].argv == std::vector<std::string>{"scancel", "1", "2", "3"});

  // scancel exits 0 on permission problems (gc3pie recording): still a failure.
  FakeShell denied;
  denied.on("scancel", ok("", "scancel: error: Kill job error on job id 4: Access/permission denied\n"));
  Slurm s2(denied, bob());
  CHECK_THROWS_AS(s2.cancel({"4"}), SchedulerUnavailable);

  FakeShell many;
  many.on("scancel", ok(""));
  auto opts = bob();
  opts.max_command_chars = 100;
  Slurm s3(many, opts);
  std::vector<std::string> ids;
  for (int i = 0; i < 60; ++i) ids.push_back(std::to_string(7000000 + i));
  s3.cancel(ids);
  CHECK(many.calls.size() > 1);
  size_t total = 0;
  for (const auto& c : many.calls) total += c.argv.size() - 1;
  CHECK(total == ids.size());
}

TEST_CASE("slurm query_steps: one sacct without -X for all the allocations", "[slurm]") {
  FakeShell sh;
  sh.on("sacct", ok("2086|pack|RUNNING|0:0|2024-05-01T10:00:00|Unknown|00:01:00|cn[1-3]\n"
                    "2086.batch|batch|RUNNING|0:0|2024-05-01T10:00:00|Unknown|00:01:00|cn1\n"
                    "2086.0|case-a|COMPLETED|0:0|2024-05-01T10:00:01|2024-05-01T10:00:31|00:00:30|cn1\n"
                    "2086.1|case-b|FAILED|3:0|2024-05-01T10:00:01|2024-05-01T10:00:02|00:00:01|cn2\n"
                    "2087.0|case-c|RUNNING|0:0|2024-05-01T10:00:01|Unknown|00:00:59|cn4\n"));
  Slurm slurm(sh, bob());
  auto records = slurm.query_steps({"2086", "2087", "2086"});
  CHECK(records.kept);
  CHECK(records.ended.empty());  // 2086 runs; 2087's own line is not there
  auto& steps = records.steps;
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].name == "case-a");
  CHECK(steps[0].state == State::completed);
  CHECK(steps[1].exit_code == 3);
  CHECK(steps[2].job_id == "2087");
  REQUIRE(sh.calls.size() == 1);
  CHECK(sh.calls[0].argv == std::vector<std::string>{"env", "SLURM_TIME_FORMAT=standard", "sacct", "-P", "-n",
                                                     "-o", Slurm::kSacctStepFields, "-j", "2086,2087"});
  CHECK(slurm.query_steps({}).steps.empty());
  CHECK(sh.calls.size() == 1);
}

TEST_CASE("slurm query_steps: failures, accounting off, long id lists", "[slurm]") {
  SECTION("slurmdbd down is SchedulerUnavailable") {
    FakeShell sh;
    sh.on("sacct", failed(1, "sacct: error: Problem talking to the database: Connection refused\n"));
    Slurm slurm(sh, bob());
    CHECK_THROWS_AS(slurm.query_steps({"1"}), SchedulerUnavailable);
  }
  SECTION("without accounting there are no steps to ask for") {
    FakeShell sh;
    sh.on("sacct", failed(1, "SLURM accounting storage is disabled\n"));
    Slurm slurm(sh, bob());
    CHECK(slurm.query_steps({"1"}).steps.empty());
    CHECK_FALSE(slurm.query_steps({"1"}).kept);  // no step will ever be known
    CHECK(sh.count("sacct") == 1);
  }
  SECTION("split by command-line length only") {
    FakeShell sh;
    sh.on("sacct", [](const std::vector<std::string>& argv) {
      std::string out;
      for (const auto& id : split(argv.back(), ','))
        out += id + ".0|s" + id + "|COMPLETED|0:0|2024-05-01T10:00:01|2024-05-01T10:00:02|00:00:01|cn1\n";
      return ok(out);
    });
    auto opts = bob();
    opts.max_command_chars = 400;
    Slurm slurm(sh, opts);
    std::vector<std::string> ids;
    for (int i = 0; i < 100; ++i) ids.push_back(std::to_string(5000000 + i));
    auto steps = slurm.query_steps(ids).steps;
    REQUIRE(steps.size() == ids.size());
    CHECK(steps.back().job_id == ids.back());
    CHECK(sh.count("sacct") > 1);
    for (const auto& c : sh.calls_to("sacct")) {
      size_t len = 0;
      for (const auto& a : c.argv) len += a.size() + 1;
      CHECK(len <= 400);
    }
  }
}

TEST_CASE("slurm consumed_energy: asked only once the accounting showed energy, of ended jobs only",
          "[slurm][energy]") {
  FakeShell sh;
  const std::string header =
      "JobID|JobName|State|ExitCode|Reason|Submit|Start|End|Elapsed|NNodes|NodeList|"
      "ConsumedEnergyRaw\n";
  const std::string t = "|None|2024-05-01T10:00:00|2024-05-01T10:00:01|";
  sh.on("squeue", ok(kSqueueHeader));
  sh.on("sacct", ok(header + "3|c|COMPLETED|0:0" + t + "2024-05-01T10:00:09|00:00:08|1|cn1|0\n"));
  Slurm slurm(sh, bob());
  CHECK(slurm.consumed_energy({"3"}).empty());  // nothing seen yet: no call
  CHECK(sh.count("sacct") == 0);
  slurm.query({"3"});
  CHECK(slurm.consumed_energy({"3"}).empty());  // "0": the site gathers none
  CHECK(sh.count("sacct") == 1);

  sh.on("sacct", ok(header + "3|c|COMPLETED|0:0" + t + "2024-05-01T10:00:09|00:00:08|1|cn1|800\n" +
                    "4|d|RUNNING|0:0" + t + "Unknown|00:00:08|1|cn2|300\n"));
  slurm.query({"3"});
  auto energy = slurm.consumed_energy({"3", "4", "3"});
  CHECK(energy == std::map<std::string, double>{{"3", 800.0}});  // 4 runs: a running total is not its energy
  CHECK(sh.calls_to("sacct").back().argv == std::vector<std::string>{"env", "SLURM_TIME_FORMAT=standard",
                                                                     "sacct", "-X", "-P", "-o",
                                                                     Slurm::kSacctFields, "-j", "3,4"});
}
