// LSF parsers on outputs recorded on real LSF systems (tests/data/lsf, Summit among them) and on
// hand-written samples where no recording exists (marked as such).
#include "sched/lsf_parse.hpp"

#include <catch2/catch.hpp>

#include "fake_shell.hpp"

using namespace campaign;
using namespace campaign::sched;
using campaign::testing::data_file;

TEST_CASE("map_lsf_state", "[lsf][parse]") {
  CHECK(map_lsf_state("PEND") == State::queued);
  CHECK(map_lsf_state("PSUSP") == State::queued);  // held, or waiting on a dependency (OLCF guide)
  CHECK(map_lsf_state("WAIT") == State::queued);
  CHECK(map_lsf_state("RUN") == State::running);
  CHECK(map_lsf_state("USUSP") == State::running);
  CHECK(map_lsf_state("SSUSP") == State::running);
  CHECK(map_lsf_state("UNKWN") == State::running);  // contact lost, not an end
  CHECK(map_lsf_state("ZOMBI") == State::node_fail);
  CHECK(map_lsf_state("DONE") == State::completed);
  CHECK(map_lsf_state("POST_DONE") == State::completed);
  CHECK(map_lsf_state("POST_ERR") == State::failed);
  CHECK(map_lsf_state("run") == State::running);
  CHECK(map_lsf_state("EXIT") == State::failed);
  CHECK(map_lsf_state("EXIT", "TERM_RUNLIMIT: job killed after reaching LSF run time limit") ==
        State::timeout);
  CHECK(map_lsf_state("EXIT", "job killed after reaching LSF run time limit") == State::timeout);
  CHECK(map_lsf_state("EXIT", "TERM_OWNER") == State::cancelled);
  CHECK(map_lsf_state("EXIT", "TERM_FORCE_ADMIN") == State::cancelled);
  CHECK(map_lsf_state("EXIT", "TERM_MEMLIMIT") == State::oom);
  CHECK(map_lsf_state("EXIT", "TERM_PREEMPT") == State::preempted);
  CHECK(map_lsf_state("EXIT", "TERM_REMOVE_HUNG_JOB") == State::node_fail);
  CHECK(map_lsf_state("EXIT", "TERM_CWD_NOTEXIST") == State::failed);
  CHECK_FALSE(map_lsf_state("").has_value());
  CHECK_FALSE(map_lsf_state("NEW_STATE").has_value());
}

TEST_CASE("parse_bsub on recorded acknowledgements", "[lsf][parse]") {
  CHECK(parse_bsub(data_file("lsf/bsub-submitted-default-queue-summit.txt")) ==
        std::optional<std::string>("26238"));
  CHECK(parse_bsub(data_file("lsf/bsub-submitted-queue-batch-summit.txt")) ==
        std::optional<std::string>("3386667"));
  CHECK(parse_bsub(data_file("lsf/bsub-submitted-named-queue-with-esub-message.txt")) ==
        std::optional<std::string>("473713"));
  CHECK(parse_bsub(data_file("lsf/bsub-submitted-default-queue-nextflow.txt")) ==
        std::optional<std::string>("2329803"));
  CHECK(parse_bsub(data_file("lsf/bsub-interactive-summit.txt")) == std::optional<std::string>("779469"));
  CHECK_FALSE(parse_bsub("").has_value());
  CHECK_FALSE(parse_bsub("Bad resource requirement syntax. Job not submitted.\n").has_value());
}

TEST_CASE("classify_bsub_error", "[lsf][parse]") {
  // Hand-written: no recording of failing bsub runs was found.
  CHECK(classify_bsub_error("User <bob>: Pending job threshold reached. Job not submitted.") ==
        SubmitFailure::refused_by_limit);
  CHECK(classify_bsub_error("LSF is down. Please wait ...") == SubmitFailure::transient);
  CHECK(classify_bsub_error("batch system daemon not responding ... still trying") ==
        SubmitFailure::transient);
  CHECK(classify_bsub_error("Queue does not exist. Job not submitted.") == SubmitFailure::invalid);
  CHECK(classify_bsub_error("Request aborted by esub. Job not submitted.") == SubmitFailure::invalid);
}

TEST_CASE("parse_lsf_run_time", "[lsf][parse]") {
  CHECK(parse_lsf_run_time("16038 second(s)") == Approx(16038));  // Summit, balsam recording
  CHECK(parse_lsf_run_time("00:00:01") == Approx(1));
  CHECK(parse_lsf_run_time("01:02:03") == Approx(3723));
  CHECK_FALSE(parse_lsf_run_time("").has_value());
  CHECK_FALSE(parse_lsf_run_time("-").has_value());
}

TEST_CASE("parse_bjobs_json on recorded outputs", "[lsf][parse]") {
  SECTION("EXIT and DONE records") {
    auto jobs = parse_bjobs_json(data_file("lsf/bjobs-json-exit-done-batcheuphoria.json"));
    REQUIRE(jobs.size() == 6);
    CHECK(jobs[0].id == "487641");
    CHECK(jobs[0].name == "RoddyTest_testScript");
    CHECK(jobs[0].state == State::failed);
    CHECK(jobs[0].raw_state == "EXIT");
    CHECK(jobs[0].end == "Jan  7 09:59");  // the " L" flag dropped
    CHECK(jobs[3].id == "491861");
    CHECK(jobs[3].state == State::completed);
    CHECK(jobs[3].exit_code == 0);
    CHECK(jobs[5].name == "RoddyTest_testScriptMultiInMixedParameters");
  }
  SECTION("all fields of a DONE job") {
    auto jobs = parse_bjobs_json(data_file("lsf/bjobs-json-allfields-done-batcheuphoria.json"));
    REQUIRE(jobs.size() == 1);
    const auto& j = jobs[0];
    CHECK(j.id == "22005");
    CHECK(j.name == "ls -l");
    CHECK(j.state == State::completed);
    CHECK(j.exit_code == 0);
    CHECK(j.submit == "Dec 28 19:56");
    CHECK(j.start == "Dec 28 19:56");
    CHECK(j.end == "Dec 28 19:56");
    CHECK(j.elapsed_s == Approx(1));
  }
  SECTION("an exit code printed for a DONE job is kept") {
    auto jobs = parse_bjobs_json(data_file("lsf/bjobs-json-allfields-exit1-pendreason-batcheuphoria.json"));
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].exit_code == 1);
    CHECK(jobs[0].reason.empty());  // a pend reason means nothing once the job has ended
  }
  SECTION("Summit: command line echoed before the JSON, PSUSP job") {
    auto jobs = parse_bjobs_json(data_file("lsf/bjobs-json-summit-psusp-buildtest.txt"));
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].name == "hold_job");
    CHECK(jobs[0].state == State::queued);
    CHECK(jobs[0].raw_state == "PSUSP");
    CHECK(jobs[0].submit == "May 28 12:45");
    CHECK(jobs[0].start.empty());
    CHECK_FALSE(jobs[0].exit_code.has_value());
  }
  SECTION("a truncated document is an error, not an empty answer") {
    CHECK_THROWS_AS(parse_bjobs_json(data_file("lsf/bjobs-json-summit-fragment-balsam.txt")),
                    UnexpectedOutput);
  }
}

TEST_CASE("parse_bjobs_json on hand-written records", "[lsf][parse]") {
  // The back end's field list; no public recording of it exists.
  std::string text = R"json({
    "COMMAND":"bjobs","JOBS":4,"RECORDS":[
      {"JOBID":"1","JOB_NAME":"c-a","STAT":"PEND","EXIT_CODE":"","EXIT_REASON":"",
       "PEND_REASON":"Job dependency condition not satisfied;","SUBMIT_TIME":"May  1 10:00","START_TIME":"",
       "FINISH_TIME":"","RUN_TIME":"0 second(s)","NEXEC_HOST":""},
      {"JOBID":"2","JOB_NAME":"c-b","STAT":"EXIT","EXIT_CODE":"3","EXIT_REASON":"",
       "PEND_REASON":"","SUBMIT_TIME":"May  1 10:00","START_TIME":"May  1 10:01",
       "FINISH_TIME":"May  1 10:02 L","RUN_TIME":"60 second(s)","NEXEC_HOST":"2"},
      {"JOBID":"3","JOB_NAME":"c-c","STAT":"EXIT","EXIT_CODE":"140","EXIT_REASON":"TERM_RUNLIMIT: job killed after reaching LSF run time limit",
       "PEND_REASON":"","SUBMIT_TIME":"","START_TIME":"","FINISH_TIME":"","RUN_TIME":"","NEXEC_HOST":"1"},
      {"JOBID":"4","ERROR":"Job <4> is not found"}
    ]})json";
  auto jobs = parse_bjobs_json(text);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].state == State::queued);
  CHECK(jobs[0].reason == "Job dependency condition not satisfied");
  CHECK(jobs[1].state == State::failed);
  CHECK(jobs[1].exit_code == 3);
  CHECK(jobs[1].nodes == 2);
  CHECK(jobs[1].end == "May  1 10:02");
  CHECK(jobs[1].elapsed_s == Approx(60));
  CHECK(jobs[2].state == State::timeout);
  CHECK(jobs[2].reason.find("TERM_RUNLIMIT") == 0);
  CHECK(parse_bjobs_json("").empty());
  // Messages instead of a document: answers when they say "no job", errors otherwise.
  CHECK(parse_bjobs_json("No unfinished job found\n").empty());
  CHECK(parse_bjobs_json("Job <9> is not found\n").empty());
  CHECK_THROWS_AS(parse_bjobs_json("LSF daemon (LIM) not responding ... still trying\n"), UnexpectedOutput);
}

TEST_CASE("parse_bjobs_noheader", "[lsf][parse]") {
  // Hand-written: only single-field -noheader recordings exist.
  std::vector<std::string> fields = {"jobid",       "job_name",    "stat",        "exit_code",
                                     "exit_reason", "pend_reason", "submit_time", "start_time",
                                     "finish_time", "run_time",    "nexec_host"};
  std::string text =
      "LSF is processing your request. Please wait ...\n"
      "5^c-x^RUN^-^-^-^May  1 10:00^May  1 10:01^-^30 second(s)^1\n"
      "6^c^y^EXIT^1^-^-^May  1 10:00^May  1 10:01^May  1 10:02 L^60 second(s)^1\n";
  auto jobs = parse_bjobs_noheader(text, fields, '^');
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].id == "5");
  CHECK(jobs[0].state == State::running);
  CHECK(jobs[0].end.empty());
  CHECK(jobs[0].elapsed_s == Approx(30));
  CHECK(jobs[1].name == "c^y");
  CHECK(jobs[1].state == State::failed);
  CHECK(jobs[1].exit_code == 1);
}

TEST_CASE("parse_bjobs_not_found on recorded messages", "[lsf][parse]") {
  CHECK(parse_bjobs_not_found(data_file("lsf/bjobs-not-found-stderr.txt")) ==
        std::vector<std::string>{"943186"});
  CHECK(parse_bjobs_not_found(data_file("lsf/ibm-doc-bjobs-exit-codes-not-found.txt")) ==
        std::vector<std::string>{"123", "123", "123"});
  CHECK(parse_bjobs_not_found("").empty());
}
