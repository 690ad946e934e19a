// The LSF back end against a scripted shell fed with recorded LSF outputs: exact commands, one
// bjobs per call, "not found" as an answer, failure classification.
#include "sched/lsf.hpp"

#include <catch2/catch.hpp>

#include "fake_shell.hpp"

using namespace campaign;
using namespace campaign::sched;
using namespace campaign::testing;

namespace {

SchedulerOptions bob() {
  SchedulerOptions o;
  o.user = "bob";
  return o;
}

const std::string kFields =
    "jobid jobindex job_name stat exit_code exit_reason pend_reason submit_time start_time finish_time "
    "run_time "
    "nexec_host";

std::string record(const std::string& id, const std::string& name, const std::string& stat,
                   const std::string& exit_code = "", const std::string& exit_reason = "") {
  return R"({"JOBID":")" + id + R"(","JOB_NAME":")" + name + R"(","STAT":")" + stat + R"(","EXIT_CODE":")" +
         exit_code + R"(","EXIT_REASON":")" + exit_reason +
         R"(","PEND_REASON":"","SUBMIT_TIME":"May  1 10:00","START_TIME":"May  1 10:01",)" +
         R"j("FINISH_TIME":"May  1 10:02 L","RUN_TIME":"60 second(s)","NEXEC_HOST":"1"})j";
}

std::string document(const std::vector<std::string>& records) {
  std::string s = R"({"COMMAND":"bjobs","JOBS":)" + std::to_string(records.size()) + R"(,"RECORDS":[)";
  for (size_t i = 0; i < records.size(); ++i) s += (i ? "," : "") + records[i];
  return s + "]}";
}

}  // namespace

TEST_CASE("lsf submit passes the script as an argument, as Summit documents", "[lsf]") {
  FakeShell sh;
  // A site esub's message before the acknowledgement (recorded).
  sh.on("bsub", ok(data_file("lsf/bsub-submitted-named-queue-with-esub-message.txt")));
  Lsf lsf(sh, bob());
  SubmitRequest r;
  r.script_path = "/gpfs/run/c1/job.lsf";
  r.job_name = "cmp1-c1-a1";
  r.workdir = "/gpfs/run/c1";
  r.depends_on = {"10", "11"};
  r.extra_args = {"-P", "ABC123"};
  CHECK(lsf.submit(r) == "473713");
  REQUIRE(sh.calls.size() == 1);
  CHECK(sh.calls[0].argv == std::vector<std::string>{"bsub", "-J", "cmp1-c1-a1", "-cwd", "/gpfs/run/c1", "-w",
                                                     "done(10) && done(11)", "-P", "ABC123",
                                                     "/gpfs/run/c1/job.lsf"});
  CHECK(sh.calls[0].stdin_data.empty());
}

TEST_CASE("lsf submits a job array as name[1-n]%T, its elements ID[i]", "[lsf]") {
  FakeShell sh;
  sh.on("bsub", ok(data_file("lsf/bsub-submitted-default-queue-summit.txt")));
  Lsf lsf(sh, bob());
  SubmitRequest r;
  r.script_path = "/gpfs/.alloc/cmp1-arr4/job.sh";
  r.job_name = "cmp1-arr4";
  r.array_tasks = 200;
  r.array_throttle = 10;
  std::string id = lsf.submit(r);
  CHECK(sh.calls[0].argv == std::vector<std::string>{"bsub", "-J", "cmp1-arr4[1-200]%10", r.script_path});
  CHECK(lsf.first_array_task() == 1);
  CHECK(lsf.array_task_id(id, 7) == id + "[7]");
  r.array_throttle = 0;
  lsf.submit(r);
  CHECK(sh.calls[1].argv[2] == "cmp1-arr4[1-200]");
}

TEST_CASE("lsf submit can feed the script on stdin", "[lsf]") {
  FakeShell sh;
  sh.on("bsub", ok(data_file("lsf/bsub-submitted-default-queue-summit.txt")));
  sh.files["/gpfs/job.lsf"] = "#!/bin/bash\n#BSUB -nnodes 2\njsrun hostname\n";
  auto opts = bob();
  opts.lsf_script_on_stdin = true;
  Lsf lsf(sh, opts);
  SubmitRequest r;
  r.script_path = "/gpfs/job.lsf";
  r.job_name = "n";
  CHECK(lsf.submit(r) == "26238");
  CHECK(sh.calls[0].argv == std::vector<std::string>{"bsub", "-J", "n"});
  CHECK(sh.calls[0].stdin_data == sh.files["/gpfs/job.lsf"]);

  r.script_path = "/gpfs/missing.lsf";
  try {
    lsf.submit(r);
    FAIL("no error for a missing script");
  } catch (const SubmitError& e) {
    CHECK(e.kind() == SubmitFailure::invalid);
  }
}

TEST_CASE("lsf submit failures are classified", "[lsf]") {
  struct Case {
    transport::CommandResult result;
    SubmitFailure kind;
  };
  const Case cases[] = {
      {failed(255, "User <bob>: Pending job threshold reached. Job not submitted.\n"),
       SubmitFailure::refused_by_limit},
      {failed(255, "Queue does not exist. Job not submitted.\n"), SubmitFailure::invalid},
      {failed(255, "LSF is down. Please wait ...\n"), SubmitFailure::transient},
      {timed_out(), SubmitFailure::transient},
      {ok("Generic job.\n"), SubmitFailure::transient},  // no acknowledgement: it may still exist
      {failed(143, ""), SubmitFailure::transient},       // killed half-way: it may exist
  };
  for (const auto& c : cases) {
    FakeShell sh;
    sh.on("bsub", c.result);
    Lsf lsf(sh, bob());
    SubmitRequest r;
    r.script_path = "j.lsf";
    r.job_name = "n";
    INFO(c.result.err);
    try {
      lsf.submit(r);
      FAIL("submit did not throw");
    } catch (const SubmitError& e) {
      CHECK(e.kind() == c.kind);
    }
  }
}

TEST_CASE("lsf query: one bjobs -json for all ids; purged jobs are absent, not errors", "[lsf]") {
  FakeShell sh;
  // bjobs exits 255 when one of the ids is unknown (LSB_BJOBS_CONSISTENT_EXIT_CODE=Y).
  sh.on("bjobs", failed(255, data_file("lsf/bjobs-not-found-stderr.txt"),
                        document({record("1", "a", "RUN"), record("2", "b", "EXIT", "3"),
                                  record("3", "c", "EXIT", "",
                                         "TERM_RUNLIMIT: job killed after reaching LSF run time limit")})));
  Lsf lsf(sh, bob());
  auto jobs = lsf.query({"3", "1", "943186", "2"});
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].id == "3");
  CHECK(jobs[0].state == State::timeout);
  CHECK(jobs[1].state == State::running);
  CHECK(jobs[2].exit_code == 3);
  REQUIRE(sh.calls.size() == 1);
  CHECK(sh.calls[0].argv ==
        std::vector<std::string>{"bjobs", "-o", kFields, "-json", "3", "1", "943186", "2"});
}

TEST_CASE("lsf query: other complaints are SchedulerUnavailable", "[lsf]") {
  for (auto result :
       {failed(255, "LSF daemon (LIM) not responding ... still trying\n"), timed_out(),
        failed(127, "bjobs: command not found\n"), ok("{\"COMMAND\":\"bjobs\",\"RECORDS\":[")}) {
    FakeShell sh;
    sh.on("bjobs", result);
    Lsf lsf(sh, bob());
    CHECK_THROWS_AS(lsf.query({"1"}), SchedulerUnavailable);
  }
}

TEST_CASE("lsf query splits long id lists by command-line length", "[lsf]") {
  FakeShell sh;
  sh.on("bjobs", [](const std::vector<std::string>& argv) {
    std::vector<std::string> recs;
    for (size_t i = 4; i < argv.size(); ++i) recs.push_back(record(argv[i], "n", "DONE"));
    return ok(document(recs));
  });
  auto opts = bob();
  opts.max_command_chars = 300;
  Lsf lsf(sh, opts);
  std::vector<std::string> ids;
  for (int i = 0; i < 80; ++i) ids.push_back(std::to_string(3000000 + i));
  CHECK(lsf.query(ids).size() == ids.size());
  CHECK(sh.calls.size() > 1);
  for (const auto& c : sh.calls) {
    size_t len = 0;
    for (const auto& a : c.argv) len += a.size() + 1;
    CHECK(len <= 300);
  }
}

TEST_CASE("lsf query with -noheader output", "[lsf]") {
  FakeShell sh;
  sh.on("bjobs",
        ok("7^0^c-a^PEND^-^-^Job dependency condition not satisfied;^May  1 10:00^-^-^0 second(s)^-\n"));
  auto opts = bob();
  opts.lsf_json = false;
  Lsf lsf(sh, opts);
  auto jobs = lsf.query({"7"});
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].state == State::queued);
  CHECK(jobs[0].reason == "Job dependency condition not satisfied");
  CHECK(sh.calls[0].argv ==
        std::vector<std::string>{"bjobs", "-noheader", "-o", kFields + " delimiter='^'", "7"});
}

TEST_CASE("lsf find_by_name and queued_jobs_of_user: one bjobs each", "[lsf]") {
  FakeShell sh;
  sh.on("bjobs -a", ok(document({record("1", "cmp-a-1", "DONE"), record("2", "other", "RUN"),
                                 record("3", "cmp-b-1", "PEND")})));
  sh.on("bjobs -u", ok(document({R"({"JOBID":"1","STAT":"RUN"})", R"({"JOBID":"2","STAT":"PEND"})",
                                 R"({"JOBID":"3","STAT":"PSUSP"})"})));
  Lsf lsf(sh, bob());
  auto jobs = lsf.find_by_name({"cmp-a-1", "cmp-b-1"});
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].id == "1");
  CHECK(jobs[1].id == "3");
  CHECK(sh.calls[0].argv == std::vector<std::string>{"bjobs", "-a", "-u", "bob", "-o", kFields, "-json"});
  CHECK(lsf.queued_jobs_of_user() == 3);
  CHECK(sh.calls[1].argv == std::vector<std::string>{"bjobs", "-u", "bob", "-o", "jobid stat", "-json"});

  FakeShell none;
  none.on("bjobs", failed(255, "No unfinished job found\n"));
  Lsf l2(none, bob());
  CHECK(l2.queued_jobs_of_user() == 0);
  CHECK(l2.find_by_name({"x"}).empty());
}

TEST_CASE("lsf cancel: one bkill; jobs already gone are fine", "[lsf]") {
  FakeShell sh;
  sh.on("bkill", ok(data_file("lsf/bkill-being-terminated.txt"), "Job <5>: Job has already finished\n"));
  Lsf lsf(sh, bob());
  lsf.cancel({"473713", "5"});
  REQUIRE(sh.calls.size() == 1);
  CHECK(sh.calls[0].argv == std::vector<std::string>{"bkill", "473713", "5"});

  FakeShell denied;
  denied.on("bkill", failed(255, "Job <6>: User permission denied\n"));
  Lsf l2(denied, bob());
  CHECK_THROWS_AS(l2.cancel({"6"}), SchedulerUnavailable);
}

TEST_CASE("lsf has no step accounting: query_steps answers none without a command", "[lsf]") {
  FakeShell sh;  // no rules: any command would throw
  Lsf lsf(sh, bob());
  auto records = lsf.query_steps({"1", "2"});
  CHECK(records.steps.empty());
  CHECK_FALSE(records.kept);
  CHECK(sh.calls.empty());
}
