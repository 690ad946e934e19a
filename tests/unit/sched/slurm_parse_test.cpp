// Slurm parsers on recorded outputs (tests/data/slurm/parsers; the 22.05 recordings of the test
// cluster have their own file) and on small hand-written samples where no recording exists (marked).
#include "sched/slurm_parse.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>

#include "fake_shell.hpp"
#include "util/strings.hpp"

using namespace campaign;
using namespace campaign::sched;
using campaign::testing::data_file;
using campaign::testing::local;

namespace {

// The gc3pie recordings keep their source's `{jobid}` placeholder.
std::string gc3pie(const std::string& name) {
  return std::regex_replace(data_file("slurm/parsers/" + name), std::regex(R"(\{jobid\})"), "123");
}
const std::vector<std::string> kGc3pieColumns =
    split("jobid,exitcode,state,ncpus,elapsed,totalcpu,submit,start,end,maxrss,maxvmsize", ',');

JobInfo only(const std::vector<JobInfo>& jobs) {
  REQUIRE(jobs.size() == 1);
  return jobs[0];
}

}  // namespace

TEST_CASE("map_slurm_state covers every Slurm job state", "[slurm][parse]") {
  struct Case {
    const char* raw;
    State state;
  };
  const Case cases[] = {
      {"PENDING", State::queued},
      {"RUNNING", State::running},
      {"COMPLETING", State::running},
      {"COMPLETED", State::completed},
      {"FAILED", State::failed},
      {"TIMEOUT", State::timeout},
      {"NODE_FAIL", State::node_fail},
      {"PREEMPTED", State::preempted},
      {"OUT_OF_MEMORY", State::oom},
      {"CANCELLED", State::cancelled},
      {"CANCELLED by 1000", State::cancelled},
      {"CANCELLED by 0", State::cancelled},
      {"CANCELLED+", State::cancelled},
      {"BOOT_FAIL", State::node_fail},
      {"DEADLINE", State::timeout},
      {"REQUEUED", State::queued},
      {"REQUEUE_HOLD", State::queued},
      {"REQUEUE_FED", State::queued},
      {"SUSPENDED", State::running},
      {"STOPPED", State::running},
      {"CONFIGURING", State::running},
      {"RESIZING", State::running},
      {"SIGNALING", State::running},
      {"STAGE_OUT", State::running},
      {"SPECIAL_EXIT", State::failed},
      {"REVOKED", State::cancelled},
      {"PD", State::queued},
      {"R", State::running},
      {"CG", State::running},
      {"CA", State::cancelled},
      {"OOM", State::oom},
      {" running ", State::running},
  };
  for (const auto& c : cases) {
    INFO(c.raw);
    CHECK(map_slurm_state(c.raw) == c.state);
  }
  CHECK_FALSE(map_slurm_state("").has_value());
  CHECK_FALSE(map_slurm_state("FROBNICATED").has_value());
}

TEST_CASE("exit codes and durations", "[slurm][parse]") {
  auto e = parse_slurm_exit_code("3:0");
  REQUIRE(e);
  CHECK(e->code == 3);
  CHECK(e->signal == 0);
  e = parse_slurm_exit_code("0:9");
  REQUIRE(e);
  CHECK(e->code == 0);
  CHECK(e->signal == 9);
  CHECK(parse_slurm_exit_code("-2:0")->code == -2);
  CHECK_FALSE(parse_slurm_exit_code("3").has_value());
  CHECK_FALSE(parse_slurm_exit_code("a:b").has_value());

  CHECK(parse_slurm_duration("00:08:07") == Approx(487));
  CHECK(parse_slurm_duration("1-02:03:04") == Approx(93784));
  CHECK(parse_slurm_duration("1:05") == Approx(65));  // squeue %M: minutes:seconds
  CHECK(parse_slurm_duration("0:00") == Approx(0));
  CHECK(parse_slurm_duration("05:05.002") == Approx(305.002));
  CHECK_FALSE(parse_slurm_duration("INVALID").has_value());
  CHECK_FALSE(parse_slurm_duration("UNLIMITED").has_value());
  CHECK_FALSE(parse_slurm_duration("00:00:-02").has_value());  // recorded in 2012 (gc3pie)
}

TEST_CASE("parse_slurm_time", "[slurm][parse]") {
  CHECK(parse_slurm_time("2016-02-16T12:16:33") == local("2016-02-16T12:16:33"));
  CHECK_FALSE(parse_slurm_time("Unknown"));
  CHECK_FALSE(parse_slurm_time("None"));
  CHECK_FALSE(parse_slurm_time(""));
  CHECK_FALSE(parse_slurm_time("2016-02-30T12:16:33"));
  CHECK_FALSE(parse_slurm_time("Dec 28 19:56"));  // LSF's
}

TEST_CASE("parse_sbatch reads the job id", "[slurm][parse]") {
  CHECK(parse_sbatch("4242\n") == std::optional<std::string>("4242"));
  CHECK(parse_sbatch("4242;testcluster\n") == std::optional<std::string>("4242"));
  CHECK(parse_sbatch("sbatch: warning: something odd\n77\n") == std::optional<std::string>("77"));
  // The non-parsable acknowledgement, as recorded by gc3pie (%d is the source's placeholder).
  auto msgs = data_file("slurm/parsers/gc3pie-slurm-cli-messages.txt");
  auto line = msgs.substr(msgs.find("Submitted batch job"));
  line = line.substr(0, line.find('\n'));
  CHECK(parse_sbatch(std::regex_replace(line, std::regex("%d"), "123")) == std::optional<std::string>("123"));
  CHECK_FALSE(parse_sbatch("").has_value());
  CHECK_FALSE(parse_sbatch("sbatch: error: Batch job submission failed\n").has_value());
}

TEST_CASE("classify_sbatch_error", "[slurm][parse]") {
  CHECK(classify_sbatch_error(
            "sbatch: error: QOSMaxSubmitJobPerUserLimit\nsbatch: error: Batch job submission "
            "failed: Job violates accounting/QOS policy (job submit limit, user's size and/or "
            "time limits)") == SubmitFailure::refused_by_limit);
  CHECK(classify_sbatch_error("sbatch: error: AssocMaxSubmitJobLimit") == SubmitFailure::refused_by_limit);
  CHECK(classify_sbatch_error(
            "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
            "(job submit limit, user's size and/or time limits)") == SubmitFailure::refused_by_limit);
  CHECK(classify_sbatch_error("sbatch: error: Batch job submission failed: Socket timed out on send/recv "
                              "operation") == SubmitFailure::transient);
  CHECK(
      classify_sbatch_error("sbatch: error: Batch job submission failed: Unable to contact slurm controller "
                            "(connect failure)") == SubmitFailure::transient);
  CHECK(classify_sbatch_error("sbatch: error: Batch job submission failed: Invalid feature specification") ==
        SubmitFailure::invalid);
  CHECK(classify_sbatch_error("sbatch: error: invalid partition specified: bogus") == SubmitFailure::invalid);
  // A per-job size limit will not lift by waiting.
  CHECK(classify_sbatch_error(
            "sbatch: error: QOSMaxWallDurationPerJobLimit\nsbatch: error: Batch job submission "
            "failed: Job violates accounting/QOS policy") == SubmitFailure::invalid);
  auto msgs = data_file("slurm/parsers/gc3pie-slurm-cli-messages.txt");
  auto pos = msgs.find("sbatch: error:");
  REQUIRE(pos != std::string::npos);
  CHECK(classify_sbatch_error(msgs.substr(pos, msgs.find('\n', pos) - pos)) == SubmitFailure::invalid);
}

TEST_CASE("parse_sacct on recorded outputs", "[slurm][parse]") {
  SECTION("completed: steps are not jobs, times kept as printed") {
    auto j = only(parse_sacct(gc3pie("gc3pie-sacct-done-ok.txt"), kGc3pieColumns));
    CHECK(j.id == "123");
    CHECK(j.state == State::completed);
    CHECK(j.raw_state == "COMPLETED");
    CHECK(j.exit_code == 0);
    CHECK_FALSE(j.signal.has_value());
    CHECK(j.submit == local("2016-02-16T12:16:33"));
    CHECK(j.start == local("2016-02-16T14:24:46"));
    CHECK(j.end == local("2016-02-16T14:32:53"));
    CHECK(j.elapsed_s == Approx(487));
  }
  SECTION("ten steps, one job") {
    auto j = only(parse_sacct(gc3pie("gc3pie-sacct-done-fractional-rusage.txt"), kGc3pieColumns));
    CHECK(j.state == State::completed);
    CHECK(j.elapsed_s == Approx(449));
  }
  SECTION("failed with exit code 1") {
    auto j = only(parse_sacct(gc3pie("gc3pie-sacct-done-fail-early.txt"), kGc3pieColumns));
    CHECK(j.state == State::failed);
    CHECK(j.exit_code == 1);
  }
  SECTION("cancelled by a user") {
    auto j = only(parse_sacct(gc3pie("gc3pie-sacct-done-cancelled.txt"), kGc3pieColumns));
    CHECK(j.state == State::cancelled);
    CHECK(j.raw_state == "CANCELLED by 1000");
  }
  SECTION("timeout with a signal in ExitCode") {
    auto j = only(parse_sacct(gc3pie("gc3pie-sacct-done-timeout.txt"), kGc3pieColumns));
    CHECK(j.state == State::timeout);
    CHECK(j.signal == 1);
    CHECK_FALSE(j.exit_code.has_value());
  }
  SECTION("node failure") {
    auto j = only(parse_sacct(gc3pie("gc3pie-sacct-done-node-fail.txt"), kGc3pieColumns));
    CHECK(j.state == State::node_fail);
    CHECK(j.elapsed_s == Approx(4907));
  }
  SECTION("still running: no end, no exit code") {
    auto j = only(parse_sacct(gc3pie("gc3pie-sacct-almost-done.txt"), kGc3pieColumns));
    CHECK(j.state == State::running);
    CHECK_FALSE(j.end);
    CHECK_FALSE(j.exit_code.has_value());
    CHECK(j.start == local("2016-03-31T09:33:25"));
  }
}

TEST_CASE("parse_sacct reads columns by header name, in any order", "[slurm][parse]") {
  // The recorded rows with a header line, then with their columns reversed: same jobs either way.
  auto rows = gc3pie("gc3pie-sacct-done-fail-early.txt");
  auto header = join(kGc3pieColumns, "|");
  auto straight = parse_sacct(header + "\n" + rows);

  std::vector<std::string> reversed_cols(kGc3pieColumns.rbegin(), kGc3pieColumns.rend());
  std::string reversed = join(reversed_cols, "|") + "\n";
  for (const auto& line : split(rows, '\n')) {
    if (line.empty()) continue;
    auto f = split(line, '|');
    f.pop_back();  // --parsable's trailing '|'
    std::vector<std::string> r(f.rbegin(), f.rend());
    reversed += join(r, "|") + "\n";
  }
  auto flipped = parse_sacct(reversed);
  REQUIRE(straight.size() == 1);
  REQUIRE(flipped.size() == 1);
  CHECK(flipped[0].id == straight[0].id);
  CHECK(flipped[0].state == State::failed);
  CHECK(flipped[0].exit_code == straight[0].exit_code);
  CHECK(flipped[0].end == straight[0].end);
}

TEST_CASE("parse_sacct with the back end's own field list", "[slurm][parse]") {
  // Hand-written in the shape of `sacct -X -P -o JobID,JobName%200,State,...` (header as sacct prints it).
  std::string text =
      "JobID|JobName|State|ExitCode|Reason|Submit|Start|End|Elapsed|NNodes|NodeList\n"
      "101|c1-a|FAILED|3:0|NonZeroExitCode|2024-05-01T10:00:00|2024-05-01T10:00:05|2024-05-01T10:01:05|"
      "00:01:00|2|cn[1-2]\n"
      "102|c1|b|COMPLETED|0:0|None|2024-05-01T10:00:00|2024-05-01T10:00:05|2024-05-01T10:00:06|00:00:01|1|"
      "gn1\n"
      "103|c1-c|PENDING|0:0|Dependency|2024-05-01T10:00:00|Unknown|Unknown|00:00:00|1|None assigned\n"
      "104|c1-d|CANCELLED by 0|0:15|None|2024-05-01T10:00:00|2024-05-01T10:00:01|2024-05-01T10:00:09|"
      "00:00:08|1|cn3\n"
      "105|c1-e|REQUEUED|0:0|None|2024-05-01T10:00:00|2024-05-01T10:00:01|2024-05-01T10:00:09|00:00:08|1|"
      "cn4\n"
      "105|c1-e|COMPLETED|0:0|None|2024-05-01T10:00:10|2024-05-01T10:00:11|2024-05-01T10:00:19|00:00:08|1|"
      "cn4\n";
  auto jobs = parse_sacct(text);
  REQUIRE(jobs.size() == 5);
  CHECK(jobs[0].state == State::failed);
  CHECK(jobs[0].exit_code == 3);
  CHECK(jobs[0].reason == "NonZeroExitCode");
  CHECK(jobs[0].nodes == 2);
  CHECK(jobs[0].nodelist == "cn[1-2]");
  CHECK(jobs[1].name == "c1|b");  // a '|' in a job name folds back into the name
  CHECK(jobs[1].state == State::completed);
  CHECK(jobs[1].nodelist == "gn1");
  CHECK(jobs[2].state == State::queued);
  CHECK(jobs[2].reason == "Dependency");
  CHECK_FALSE(jobs[2].start);
  CHECK(jobs[2].nodelist.empty());
  CHECK_FALSE(jobs[2].exit_code.has_value());
  CHECK(jobs[3].state == State::cancelled);
  CHECK(jobs[3].signal == 15);
  CHECK(jobs[3].reason.empty());
  CHECK(jobs[4].state == State::completed);  // requeued then completed: the last record wins
  CHECK(jobs[4].start == local("2024-05-01T10:00:11"));

  CHECK(parse_sacct("").empty());
  CHECK(parse_sacct("JobID|JobName|State|ExitCode\n").empty());
  CHECK_THROWS_AS(parse_sacct("sacct: error: Unknown arguments\n"), UnexpectedOutput);
}

TEST_CASE("parse_squeue_steps: the running numbered steps, names whole", "[slurm][parse]") {
  // squeue -h -s -o "%i|%j" on the test cluster (Slurm 22.05): an allocation's batch step, two steps
  // of packed cases and an array task's step.
  auto steps = parse_squeue_steps(
      "4092.batch|batch\n4092.0|cmp1a2b-pfc-victim-a1\n4092.1|cmp1a2b-pfc-keep-1-a1\n4093_2.0|sleep\n"
      "4092.extern|extern\n\n");
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].job_id == "4092");
  CHECK(steps[0].step_id == "4092.0");
  CHECK(steps[0].name == "cmp1a2b-pfc-victim-a1");
  CHECK(steps[1].step_id == "4092.1");
  CHECK(steps[2].job_id == "4093_2");
  CHECK(steps[2].step_id == "4093_2.0");
  CHECK(parse_squeue_steps("").empty());
}

TEST_CASE("parse_sacct_steps on recorded outputs: numbered steps only", "[slurm][parse]") {
  SECTION("ten steps and a batch step") {
    auto records = parse_sacct_steps(gc3pie("gc3pie-sacct-done-fractional-rusage.txt"), kGc3pieColumns);
    auto& steps = records.steps;
    REQUIRE(steps.size() == 10);
    CHECK(records.ended == std::set<std::string>{"123"});  // the job's own line: ended, with its End
    CHECK_FALSE(records.kept);                             // the back end's to say
    for (size_t i = 0; i < steps.size(); ++i) {
      CHECK(steps[i].step_id == "123." + std::to_string(i));
      CHECK(steps[i].job_id == "123");
      CHECK(steps[i].state == State::completed);
      CHECK(steps[i].exit_code == 0);
    }
    CHECK(steps[0].start == local("2013-08-30T23:16:30"));
    CHECK(steps[0].end == local("2013-08-30T23:23:26"));
    CHECK(steps[0].elapsed_s == Approx(416));
  }
  SECTION("the step of a failed node, cancelled with a negative exit code") {
    auto steps = parse_sacct_steps(gc3pie("gc3pie-sacct-done-node-fail.txt"), kGc3pieColumns).steps;
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].step_id == "123.0");
    CHECK(steps[0].state == State::cancelled);
    CHECK(steps[0].raw_state == "CANCELLED by 1000");
    CHECK(steps[0].exit_code == -2);
  }
  SECTION("only the job and its batch step: no steps") {
    CHECK(parse_sacct_steps(gc3pie("gc3pie-sacct-almost-done.txt"), kGc3pieColumns).steps.empty());
    CHECK(parse_sacct_steps(gc3pie("gc3pie-sacct-done-timeout.txt"), kGc3pieColumns).steps.empty());
  }
}

TEST_CASE("parse_sacct_steps: array tasks, extern steps, running steps, names with '|'", "[slurm][parse]") {
  // Hand-written in the shape of `sacct -P -n -o JobID,JobName,State,ExitCode,Start,End,Elapsed,NodeList`
  // (no recording of array steps or a '|' in a step name exists).
  const auto columns = split("JobID,JobName,State,ExitCode,Start,End,Elapsed,NodeList", ',');
  std::string text =
      "155_2|rec-array|RUNNING|0:0|2024-05-01T10:00:00|Unknown|00:00:30|cn1\n"
      "155_2.batch|batch|RUNNING|0:0|2024-05-01T10:00:00|Unknown|00:00:30|cn1\n"
      "155_2.extern|extern|RUNNING|0:0|2024-05-01T10:00:00|Unknown|00:00:30|cn1\n"
      "155_2.0|a|b|RUNNING|0:0|2024-05-01T10:00:01|Unknown|00:00:29|cn1\n"
      "156.interactive|interactive|COMPLETED|0:0|2024-05-01T10:00:00|2024-05-01T10:00:02|00:00:02|cn2\n"
      "156.0|t|TIMEOUT|0:15|2024-05-01T10:00:00|2024-05-01T10:02:00|00:02:00|cn[2-3]\n"
      "157|alloc|NODE_FAIL|0:0|2024-05-01T10:00:00|2024-05-01T10:01:00|00:01:00|cn4\n"
      "158|alloc|COMPLETED|0:0|2024-05-01T10:00:00|Unknown|00:01:00|cn4\n";
  auto records = parse_sacct_steps(text, columns);
  auto& steps = records.steps;
  // Ended: 157 (155_2 runs; 158 has no End yet, as after an outage of slurmdbd).
  CHECK(records.ended == std::set<std::string>{"157"});
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].job_id == "155_2");
  CHECK(steps[0].step_id == "155_2.0");
  CHECK(steps[0].name == "a|b");
  CHECK(steps[0].state == State::running);
  CHECK_FALSE(steps[0].end);  // "Unknown" while running
  CHECK_FALSE(steps[0].exit_code.has_value());
  CHECK(steps[0].start == local("2024-05-01T10:00:01"));
  CHECK(steps[1].step_id == "156.0");
  CHECK(steps[1].state == State::timeout);
  CHECK(steps[1].signal == 15);
  CHECK_FALSE(steps[1].exit_code.has_value());
  CHECK(steps[1].nodelist == "cn[2-3]");
  CHECK(steps[1].elapsed_s == Approx(120));

  CHECK(parse_sacct_steps("", columns).steps.empty());
  CHECK_THROWS_AS(parse_sacct_steps("1.0|x\n", split("JobName,ExitCode", ',')), UnexpectedOutput);
}

TEST_CASE("parse_squeue", "[slurm][parse]") {
  // Hand-written in the shape of `squeue -u USER -o '%i|%j|%T|%r|%D|%M|%l|%N|%V|%S'`; no recording yet.
  std::string text =
      "JOBID|NAME|STATE|REASON|NODES|TIME|TIME_LIMIT|NODELIST|SUBMIT_TIME|START_TIME\n"
      "11|a|PENDING|ReqNodeNotAvail, UnavailableNodes:cn2|1|0:00|10:00||2024-05-01T10:00:00|"
      "2024-05-01T11:00:00\n"
      "12|b|PENDING|Dependency|2|0:00|10:00||2024-05-01T10:00:00|N/A\n"
      "16|e|PENDING|DependencyNeverSatisfied|1|0:00|10:00||2024-05-01T10:00:00|N/A\n"
      "13|c|PENDING|Priority|1|0:00|10:00||2024-05-01T10:00:00|N/A\n"
      "14|d|RUNNING|None|4|1:05|10:00|cn[1-4]|2024-05-01T10:00:00|2024-05-01T10:00:03\n"
      "15|with|bar|COMPLETING|None|1|2:00:00|3:00:00|gn1|2024-05-01T10:00:00|2024-05-01T10:00:03\n";
  auto jobs = parse_squeue(text);
  REQUIRE(jobs.size() == 6);
  CHECK(jobs[0].id == "11");
  CHECK(jobs[0].state == State::queued);
  CHECK(jobs[0].reason == "ReqNodeNotAvail, UnavailableNodes:cn2");
  // What the engine acts on, in its own terms.
  CHECK(jobs[0].waiting == Waiting::nodes_unavailable);
  CHECK(jobs[1].waiting == Waiting::other);
  CHECK(jobs[2].waiting == Waiting::dependency_failed);
  CHECK_FALSE(jobs[0].start);  // an expected start, not a start
  CHECK(jobs[1].reason == "Dependency");
  CHECK(jobs[1].nodes == 2);
  CHECK(jobs[3].reason == "Priority");
  CHECK(jobs[4].state == State::running);
  CHECK(jobs[4].reason.empty());
  CHECK(jobs[4].elapsed_s == Approx(65));
  CHECK(jobs[4].nodelist == "cn[1-4]");
  CHECK(jobs[4].start == local("2024-05-01T10:00:03"));
  CHECK(jobs[4].submit == local("2024-05-01T10:00:00"));
  CHECK(jobs[5].name == "with|bar");
  CHECK(jobs[5].state == State::running);
  CHECK(jobs[5].elapsed_s == Approx(7200));

  CHECK(parse_squeue("").empty());
  CHECK(parse_squeue("JOBID|NAME|STATE\n").empty());
  // Column order comes from the header; compact states (%t) are understood.
  auto compact = parse_squeue("ST|JOBID\nPD|7\nR|8\n");
  REQUIRE(compact.size() == 2);
  CHECK(compact[0].id == "7");
  CHECK(compact[0].state == State::queued);
  CHECK(compact[1].state == State::running);
  CHECK_THROWS_AS(parse_squeue("slurm_load_jobs error: Unable to contact slurm controller\n"),
                  UnexpectedOutput);
}

TEST_CASE("parse_scontrol_show_job", "[slurm][parse]") {
  // Hand-written in the shape of `scontrol -o show job` (one line per job) and of the multi-line form.
  std::string oneline =
      "JobId=21 JobName=c1-a UserId=bob(1000) GroupId=bob(1000) Priority=1 JobState=FAILED "
      "Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 RunTime=00:00:02 TimeLimit=00:10:00 "
      "SubmitTime=2024-05-01T10:00:00 StartTime=2024-05-01T10:00:01 EndTime=2024-05-01T10:00:03 "
      "NodeList=cn1 NumNodes=1 NumCPUs=1\n"
      "JobId=22 JobName=c1-b JobState=PENDING Reason=Resources ExitCode=0:0 RunTime=00:00:00 "
      "SubmitTime=2024-05-01T10:00:00 StartTime=2024-05-01T12:00:00 EndTime=2024-05-01T12:10:00 "
      "NodeList=(null) NumNodes=2-2\n"
      "JobId=30 ArrayJobId=29 ArrayTaskId=4 JobName=arr JobState=COMPLETED Reason=None ExitCode=0:0 "
      "RunTime=00:00:05 NodeList=cn2 NumNodes=1\n";
  auto jobs = parse_scontrol_show_job(oneline);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].id == "21");
  CHECK(jobs[0].name == "c1-a");
  CHECK(jobs[0].state == State::failed);
  CHECK(jobs[0].exit_code == 3);
  CHECK(jobs[0].end == local("2024-05-01T10:00:03"));
  CHECK(jobs[0].elapsed_s == Approx(2));
  CHECK(jobs[0].nodelist == "cn1");
  CHECK(jobs[1].state == State::queued);
  CHECK(jobs[1].reason == "Resources");
  CHECK_FALSE(jobs[1].start);  // predictions dropped
  CHECK_FALSE(jobs[1].end);
  CHECK(jobs[1].nodes == 2);
  CHECK(jobs[1].nodelist.empty());
  CHECK(jobs[2].id == "29_4");
  CHECK(jobs[2].exit_code == 0);

  std::string multiline =
      "JobId=40 JobName=my job\n"
      "   UserId=bob(1000) GroupId=bob(1000)\n"
      "   JobState=CANCELLED Reason=None Dependency=(null)\n"
      "   ExitCode=0:15\n"
      "\n"
      "JobId=41 JobName=x\n"
      "   JobState=OUT_OF_MEMORY Reason=OutOfMemory ExitCode=0:125\n";
  jobs = parse_scontrol_show_job(multiline);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].name == "my job");
  CHECK(jobs[0].state == State::cancelled);
  CHECK(jobs[0].signal == 15);
  CHECK(jobs[1].state == State::oom);
  CHECK(parse_scontrol_show_job("No jobs in the system\n").empty());
}

TEST_CASE("every state in recorded Slurm JSON maps to the expected state", "[slurm][parse]") {
  // squeue-shaped job objects of Slurm 23.11 (slurmrestd): job_state is a list.
  auto jobs = nlohmann::json::parse(data_file("slurm/parsers/slurmweb-23.11-slurm-jobs.json"))["jobs"];
  REQUIRE(jobs.size() == 14);
  std::map<int, State> expected = {{776, State::timeout},
                                   {777, State::completed},
                                   {778, State::failed},
                                   {779, State::running},
                                   {787, State::queued}};
  for (const auto& j : jobs) {
    std::string raw = j["job_state"][0];
    auto mapped = map_slurm_state(raw);
    INFO(raw);
    REQUIRE(mapped.has_value());
    auto it = expected.find(j["job_id"].get<int>());
    if (it != expected.end()) CHECK(*mapped == it->second);
  }
  auto archived = nlohmann::json::parse(data_file("slurm/parsers/slurmweb-23.11-slurmdb-job-archived.json"));
  CHECK(map_slurm_state(archived["jobs"][0]["state"]["current"][0].get<std::string>()) == State::cancelled);
  // Slurm 22.05 sacct JSON: a requeued job appears twice, REQUEUED then TIMEOUT.
  auto requeued =
      nlohmann::json::parse(data_file("slurm/parsers/batcheuphoria-22.05-sacct-requeued.json"))["jobs"];
  REQUIRE(requeued.size() == 2);
  CHECK(map_slurm_state(requeued[0]["state"]["current"].get<std::string>()) == State::queued);
  CHECK(map_slurm_state(requeued[1]["state"]["current"].get<std::string>()) == State::timeout);
}

TEST_CASE("expand_array_tasks: one JobInfo per task, ranges and lists expanded", "[slurm][parse]") {
  auto j = [](std::string id) {
    JobInfo x;
    x.id = std::move(id);
    x.name = "a";
    return x;
  };
  auto out =
      expand_array_tasks({j("7"), j("8_3"), j("9_[0-2,5,7-8%3]"), j("10_[4]"), j("11_[x]"), j("12.batch")});
  std::vector<std::string> ids;
  for (auto& x : out) ids.push_back(x.id + (x.array_task ? "#" + std::to_string(*x.array_task) : ""));
  CHECK(ids == std::vector<std::string>{"7", "8_3#3", "9_0#0", "9_1#1", "9_2#2", "9_5#5", "9_7#7", "9_8#8",
                                        "10_4#4", "11_[x]", "12.batch"});
}

TEST_CASE("an sbatch that never connected submitted nothing; one that timed out may have") {
  using campaign::sched::sbatch_never_connected;
  CHECK(sbatch_never_connected(
      "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)"));
  CHECK(sbatch_never_connected("sbatch: error: slurm_persist_conn_open: Connection refused"));
  CHECK_FALSE(
      sbatch_never_connected("sbatch: error: Batch job submission failed: Socket timed out on send/recv "
                             "operation"));
}

TEST_CASE("parse_consumed_energy: joules, or none where nothing was gathered", "[slurm][parse][energy]") {
  CHECK(parse_consumed_energy("123456") == 123456.0);
  CHECK(parse_consumed_energy(" 42.5 ") == 42.5);
  CHECK_FALSE(parse_consumed_energy(""));
  CHECK_FALSE(parse_consumed_energy("0"));                     // no AcctGatherEnergyType: never a real figure
  CHECK_FALSE(parse_consumed_energy("18446744073709551614"));  // NO_VAL64
  CHECK_FALSE(parse_consumed_energy("12K"));                   // ConsumedEnergy's rounded form, not Raw
  CHECK_FALSE(parse_consumed_energy("-5"));
}

TEST_CASE("parse_sacct and parse_sacct_steps read ConsumedEnergyRaw", "[slurm][parse][energy]") {
  // Hand-written in the shape of the back end's commands (Slurm::kSacctFields, kSacctStepFields): the
  // test cluster has no energy plugin that can run (no RAPL, no IPMI, no NVML), so no recording has a
  // value; tests/data/slurm/22.05/energy holds what it does print.
  auto jobs = parse_sacct(
      "JobID|JobName|State|ExitCode|Reason|Submit|Start|End|Elapsed|NNodes|NodeList|ConsumedEnergyRaw\n"
      "7|a|COMPLETED|0:0|None|2024-05-01T10:00:00|2024-05-01T10:00:01|2024-05-01T10:01:01|00:01:00|1|nid1|"
      "61234\n"
      "8|b|RUNNING|0:0|None|2024-05-01T10:00:00|2024-05-01T10:00:01|Unknown|00:01:00|1|nid2|0\n");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].energy_j == 61234.0);
  CHECK_FALSE(jobs[1].energy_j);
  const auto columns =
      split("JobID,JobName,State,ExitCode,Start,End,Elapsed,NodeList,ConsumedEnergyRaw", ',');
  auto records = parse_sacct_steps(
      "9|alloc|COMPLETED|0:0|2024-05-01T10:00:00|2024-05-01T10:02:00|00:02:00|nid3|90000\n"
      "9.0|case-a|COMPLETED|0:0|2024-05-01T10:00:00|2024-05-01T10:01:00|00:01:00|nid3|40000\n"
      "9.1|case-b|COMPLETED|0:0|2024-05-01T10:00:00|2024-05-01T10:02:00|00:02:00|nid3|\n",
      columns);
  REQUIRE(records.steps.size() == 2);
  CHECK(records.steps[0].energy_j == 40000.0);
  CHECK_FALSE(records.steps[1].energy_j);
}
