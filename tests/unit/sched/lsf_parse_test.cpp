// LSF parsers on outputs recorded on real LSF systems (tests/data/lsf, Summit among them) and on
// hand-written samples where no recording exists (marked as such).
#include "sched/lsf_parse.hpp"

#include <catch2/catch.hpp>
#include <regex>

#include "fake_shell.hpp"

using namespace campaign;
using namespace campaign::sched;
using campaign::testing::data_file;
using campaign::testing::local;

namespace {

// The recordings are from several years; bjobs prints no year, so tests fix the time they ran.
const Time kNow = local("2025-03-01T12:00:00");

}  // namespace

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

TEST_CASE("parse_lsf_time reads every time format of the recordings", "[lsf][parse]") {
  SECTION("-o and -json: month, day, minutes, and the L/E/X flag") {
    CHECK(parse_lsf_time("Dec 28 19:56", kNow) == local("2024-12-28T19:56:00"));
    CHECK(parse_lsf_time("Jan  7 09:59 L", kNow) == local("2025-01-07T09:59:00"));
    CHECK(parse_lsf_time("May 28 12:45", kNow) == local("2024-05-28T12:45:00"));
  }
  SECTION("the default table (bjobs, bjobs -w)") {
    CHECK(parse_lsf_time("Oct 19 17:10", kNow) == local("2024-10-19T17:10:00"));
    CHECK(parse_lsf_time("Oct 31 13:00", kNow) == local("2024-10-31T13:00:00"));
  }
  SECTION("bjobs -W: numeric with seconds") {
    CHECK(parse_lsf_time("10/19-17:10:27", kNow) == local("2024-10-19T17:10:27"));
    CHECK(parse_lsf_time("10/19-17:14:49", kNow) == local("2024-10-19T17:14:49"));
  }
  SECTION("bjobs -l and -UF: weekday and seconds, with or without a year") {
    CHECK(parse_lsf_time("Tue Jul 24 10:03:15", kNow) == local("2024-07-24T10:03:15"));
    CHECK(parse_lsf_time("Tue May 6 15:45:10", kNow) == local("2024-05-06T15:45:10"));
    CHECK(parse_lsf_time("Mon Aug  4 12:28:51 2014", kNow) == local("2014-08-04T12:28:51"));
  }
  SECTION("hand-written: seconds, a year and flags on the short form") {
    CHECK(parse_lsf_time("Dec 28 19:56:03", kNow) == local("2024-12-28T19:56:03"));
    CHECK(parse_lsf_time("Dec 28 19:56:03 E", kNow) == local("2024-12-28T19:56:03"));
    CHECK(parse_lsf_time("Dec 28 19:56 2021 X", kNow) == local("2021-12-28T19:56:00"));
    CHECK(parse_lsf_time("2021/12/28-19:56:03", kNow) == local("2021-12-28T19:56:03"));
  }
  SECTION("not times") {
    CHECK_FALSE(parse_lsf_time("", kNow));
    CHECK_FALSE(parse_lsf_time("-", kNow));
    CHECK_FALSE(parse_lsf_time("Foo 28 19:56", kNow));
    CHECK_FALSE(parse_lsf_time("Feb 30 10:00", kNow));
    CHECK_FALSE(parse_lsf_time("Dec 28 25:00", kNow));
    CHECK_FALSE(parse_lsf_time("2024-12-28T19:56:00", kNow));  // Slurm's, not LSF's
  }
}

TEST_CASE("parse_lsf_time finds every time in the recorded outputs", "[lsf][parse]") {
  // Whatever bjobs view printed them: the default table, -w, -W, -l, -UF, -json.
  static const std::regex time_like(
      R"((?:[A-Z][a-z]{2} +)?[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}(?::\d{2})?(?: \d{4})?(?: [LEX]\b)?|\d{2}/\d{2}-\d{2}:\d{2}:\d{2})");
  int found = 0;
  for (const char* file :
       {"bjobs-default-pend-run-exit-gc3pie.txt", "bjobs-w-nextflow.txt", "ibm-doc-lsf4-bjobs-default.txt",
        "bjobs-l-done-gc3pie.txt", "bjobs-l-exit-code-42-gc3pie.txt",
        "bjobs-l-exit-code-127-with-year-gc3pie.txt", "ibm-doc-bjobs-UF.txt",
        "bjobs-json-allfields-done-batcheuphoria.json", "bjobs-json-exit-done-batcheuphoria.json",
        "bjobs-json-summit-psusp-buildtest.txt"}) {
    std::string text = data_file(std::string("lsf/") + file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), time_like); it != std::sregex_iterator();
         ++it) {
      INFO(file << ": " << it->str());
      CHECK(parse_lsf_time(it->str(), kNow));
      ++found;
    }
  }
  CHECK(found == 49);  // all of them: none slipped past the pattern
}

TEST_CASE("LSF times without a year: the submit year, and the next one after a new year", "[lsf][parse]") {
  const Time new_year = local("2025-01-01T00:30:00");
  SECTION("submitted on Dec 31, started on Jan 1") {
    auto submit = parse_lsf_time("Dec 31 23:50", new_year);
    CHECK(submit == local("2024-12-31T23:50:00"));
    CHECK(parse_lsf_time("Jan  1 00:10", new_year, submit) == local("2025-01-01T00:10:00"));
    // Polled weeks later, the same times.
    CHECK(parse_lsf_time("Jan  1 00:10", local("2025-01-20T08:00:00"), submit) ==
          local("2025-01-01T00:10:00"));
  }
  SECTION("a start in the same year as the submission") {
    auto submit = parse_lsf_time("Dec 30 10:00", new_year);
    CHECK(parse_lsf_time("Dec 31 23:55", new_year, submit) == local("2024-12-31T23:55:00"));
  }
  SECTION("a clock ahead of ours by minutes is not a year ago") {
    CHECK(parse_lsf_time("Jan  1 00:10", local("2024-12-31T23:58:00")) == local("2025-01-01T00:10:00"));
  }
  SECTION("the whole record") {
    std::string text = R"json({"COMMAND":"bjobs","JOBS":1,"RECORDS":[
      {"JOBID":"9","JOB_NAME":"c","STAT":"DONE","EXIT_CODE":"","EXIT_REASON":"","PEND_REASON":"",
       "SUBMIT_TIME":"Dec 31 23:50","START_TIME":"Jan  1 00:10","FINISH_TIME":"Jan  1 00:20 L",
       "RUN_TIME":"600 second(s)","NEXEC_HOST":"1"}]})json";  // hand-written
    for (Time now : {local("2025-01-01T00:30:00"), local("2025-02-15T00:00:00")}) {
      auto jobs = parse_bjobs_json(text, now);
      REQUIRE(jobs.size() == 1);
      CHECK(jobs[0].submit == local("2024-12-31T23:50:00"));
      CHECK(jobs[0].start == local("2025-01-01T00:10:00"));
      CHECK(jobs[0].end == local("2025-01-01T00:20:00"));
    }
  }
}

TEST_CASE("parse_bjobs_json on recorded outputs", "[lsf][parse]") {
  SECTION("EXIT and DONE records") {
    auto jobs = parse_bjobs_json(data_file("lsf/bjobs-json-exit-done-batcheuphoria.json"), kNow);
    REQUIRE(jobs.size() == 6);
    CHECK(jobs[0].id == "487641");
    CHECK(jobs[0].name == "RoddyTest_testScript");
    CHECK(jobs[0].state == State::failed);
    CHECK(jobs[0].raw_state == "EXIT");
    CHECK(jobs[0].end == local("2025-01-07T09:59:00"));  // "Jan  7 09:59 L": L marks an actual time
    CHECK(jobs[3].id == "491861");
    CHECK(jobs[3].state == State::completed);
    CHECK(jobs[3].exit_code == 0);
    CHECK(jobs[5].name == "RoddyTest_testScriptMultiInMixedParameters");
  }
  SECTION("all fields of a DONE job") {
    auto jobs = parse_bjobs_json(data_file("lsf/bjobs-json-allfields-done-batcheuphoria.json"), kNow);
    REQUIRE(jobs.size() == 1);
    const auto& j = jobs[0];
    CHECK(j.id == "22005");
    CHECK(j.name == "ls -l");
    CHECK(j.state == State::completed);
    CHECK(j.exit_code == 0);
    CHECK(j.submit == local("2024-12-28T19:56:00"));
    CHECK(j.start == local("2024-12-28T19:56:00"));
    CHECK(j.end == local("2024-12-28T19:56:00"));
    CHECK(j.elapsed_s == Approx(1));
  }
  SECTION("an exit code printed for a DONE job is kept") {
    auto jobs = parse_bjobs_json(data_file("lsf/bjobs-json-allfields-exit1-pendreason-batcheuphoria.json"));
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].exit_code == 1);
    CHECK(jobs[0].reason.empty());  // a pend reason means nothing once the job has ended
  }
  SECTION("Summit: command line echoed before the JSON, PSUSP job") {
    auto jobs = parse_bjobs_json(data_file("lsf/bjobs-json-summit-psusp-buildtest.txt"), kNow);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].name == "hold_job");
    CHECK(jobs[0].state == State::queued);
    CHECK(jobs[0].raw_state == "PSUSP");
    CHECK(jobs[0].submit == local("2024-05-28T12:45:00"));
    CHECK_FALSE(jobs[0].start);
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
  auto jobs = parse_bjobs_json(text, kNow);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].state == State::queued);
  CHECK(jobs[0].reason == "Job dependency condition not satisfied");
  CHECK(jobs[1].state == State::failed);
  CHECK(jobs[1].exit_code == 3);
  CHECK(jobs[1].nodes == 2);
  CHECK(jobs[1].submit == local("2024-05-01T10:00:00"));
  CHECK(jobs[1].start == local("2024-05-01T10:01:00"));
  CHECK(jobs[1].end == local("2024-05-01T10:02:00"));
  CHECK(jobs[1].elapsed_s == Approx(60));
  CHECK(jobs[2].state == State::timeout);
  CHECK(jobs[2].reason.find("TERM_RUNLIMIT") == 0);
  CHECK(parse_bjobs_json("").empty());
  // Messages instead of a document: answers when they say "no job", errors otherwise.
  CHECK(parse_bjobs_json("No unfinished job found\n").empty());
  CHECK(parse_bjobs_json("Job <9> is not found\n").empty());
  CHECK_THROWS_AS(parse_bjobs_json("LSF daemon (LIM) not responding ... still trying\n"), UnexpectedOutput);
}

TEST_CASE("parse_bjobs_json: elements of a job array", "[lsf][parse]") {
  // Hand-written after IBM's bjobs -o documentation (fields jobid, jobindex, job_name; an element's
  // name is "name[i]"): no public recording of an array with these fields exists.
  std::string text = R"json({
    "COMMAND":"bjobs","JOBS":3,"RECORDS":[
      {"JOBID":"70","JOBINDEX":"1","JOB_NAME":"cmpx-arr4[1]","STAT":"DONE","EXIT_CODE":""},
      {"JOBID":"70","JOBINDEX":"2","JOB_NAME":"cmpx-arr4[2]","STAT":"PEND","EXIT_CODE":""},
      {"JOBID":"71","JOBINDEX":"0","JOB_NAME":"plain","STAT":"RUN","EXIT_CODE":""}
    ]})json";
  auto jobs = parse_bjobs_json(text, kNow);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].id == "70[1]");
  CHECK(jobs[0].array_task == 1);
  CHECK(jobs[0].name == "cmpx-arr4");
  CHECK(jobs[0].state == State::completed);
  CHECK(jobs[1].id == "70[2]");
  CHECK(jobs[1].state == State::queued);
  CHECK(jobs[2].id == "71");
  CHECK_FALSE(jobs[2].array_task);
  CHECK(jobs[2].name == "plain");
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
  auto jobs = parse_bjobs_noheader(text, fields, '^', kNow);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].id == "5");
  CHECK(jobs[0].state == State::running);
  CHECK(jobs[0].start == local("2024-05-01T10:01:00"));
  CHECK_FALSE(jobs[0].end);
  CHECK(jobs[0].elapsed_s == Approx(30));
  CHECK(jobs[1].name == "c^y");
  CHECK(jobs[1].state == State::failed);
  CHECK(jobs[1].exit_code == 1);
  CHECK(jobs[1].end == local("2024-05-01T10:02:00"));
}

TEST_CASE("parse_bjobs_not_found on recorded messages", "[lsf][parse]") {
  CHECK(parse_bjobs_not_found(data_file("lsf/bjobs-not-found-stderr.txt")) ==
        std::vector<std::string>{"943186"});
  CHECK(parse_bjobs_not_found(data_file("lsf/ibm-doc-bjobs-exit-codes-not-found.txt")) ==
        std::vector<std::string>{"123", "123", "123"});
  CHECK(parse_bjobs_not_found("").empty());
}
