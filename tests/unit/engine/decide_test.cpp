// The engine's decisions on hand-made rows and observations: no catalog, no scheduler, no clock.
#include "engine/decide.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "engine/rules.hpp"
#include "pack/driver.hpp"
#include "rows.hpp"

using namespace campaign;
using namespace campaign::engine;
using namespace engine_test;

namespace {

const Time kNow{std::chrono::seconds(1'800'000'000)};

sched::JobInfo job(std::string id, State state, std::string raw = "") {
  sched::JobInfo j;
  j.id = std::move(id);
  j.state = state;
  j.raw_state = std::move(raw);
  return j;
}

}  // namespace

TEST_CASE(
    "a zero marker completes the attempt at once, unconfirmed; another status waits for the scheduler") {
  std::vector<AttemptRow> latest{row(1, State::running, "11"), row(2, State::queued),
                                 row(3, State::running, "13")};
  REQUIRE(marker_dirs(latest) == std::vector<std::string>{"/w/c1", "/w/c3"});
  Memory m;
  Actions a = on_markers(latest, {0, 2}, kNow, m);
  REQUIRE(a.marks.size() == 1);
  CHECK(a.marks[0].attempt == 1);
  CHECK(a.marks[0].state == State::completed);
  CHECK(a.marks[0].update.confirmed == false);
  CHECK(a.marks[0].update.ended == kNow);
  CHECK(m.unconfirmed.at(1).job_id == "11");
  CHECK(m.marker_exit == std::map<std::int64_t, int>{{3, 2}});
}

TEST_CASE(
    "a tick reads the markers of the jobs that run; a poll those of the jobs it found ended or not at all") {
  std::vector<AttemptRow> latest{row(1, State::running, "11"), row(2, State::queued, "12"),
                                 row(3, State::queued, "13"),  row(4, State::queued, "14"),
                                 row(5, State::running, "15"), row(6, State::completed, "16"),
                                 row(7, State::queued, "17")};
  latest[2].step_name = "c3";  // packed in allocation 13
  std::vector<std::int64_t> ids;
  for (auto& a : started_rows(latest)) ids.push_back(a.id);
  CHECK(ids == std::vector<std::int64_t>{1, 5});  // the queued ones wait for the poll that sees them run

  Memory m;
  m.marker_exit[5] = 3;  // known already
  // 12 still waits; allocation 13 ended between two polls; 14 and 15 are not known to the scheduler
  // any more; 17, a job of its own, ended: its record says how.
  const std::vector<sched::JobInfo> answer{job("11", State::running), job("12", State::queued),
                                           job("13", State::completed), job("17", State::failed)};
  ids.clear();
  for (auto& a : unmarked_in_ended(latest, answer, m)) ids.push_back(a.id);
  CHECK(ids == std::vector<std::int64_t>{3, 4});
  ids.clear();
  for (auto& a : unmarked_in_ended(latest, {}, m)) ids.push_back(a.id);  // no answer: every active job
  CHECK(ids == std::vector<std::int64_t>{1, 2, 3, 4, 7});
}

TEST_CASE(
    "completions on their markers are asked about every third poll while jobs run, at every poll after") {
  Rules rules;
  Memory m;
  m.unconfirmed[1] = {"11", std::nullopt};
  std::vector<AttemptRow> latest{row(1, State::completed, "11"), row(2, State::running, "12")};
  auto first = what_to_poll(latest, rules, m);  // a new engine's first poll asks
  CHECK(first.confirm);
  CHECK(first.ids == std::vector<std::string>{"12", "11"});
  CHECK_FALSE(what_to_poll(latest, rules, m).confirm);
  CHECK_FALSE(what_to_poll(latest, rules, m).confirm);
  CHECK(what_to_poll(latest, rules, m).confirm);
  latest[1].state = State::completed;  // nothing runs: every poll
  m.unconfirmed[2] = {"12", std::nullopt};
  CHECK(what_to_poll(latest, rules, m).confirm);
  CHECK(what_to_poll(latest, rules, m).confirm);
}

TEST_CASE("the accounting confirms a marker's completion, or corrects it, or is given up on") {
  Rules rules;
  Memory m;
  m.unconfirmed = {{1, {"11", std::nullopt}}, {2, {"12", std::nullopt}}, {3, {"13", std::nullopt}}};
  std::vector<AttemptRow> latest{row(1, State::completed, "11"), row(2, State::completed, "12"),
                                 row(3, State::completed, "13")};
  PollRequest request{{"11", "12", "13"}, true};
  auto ok = job("11", State::completed);
  ok.exit_code = 0;
  ok.elapsed_s = 42;
  auto node_fail = job("12", State::node_fail, "NODE_FAIL");
  Actions a = on_poll(latest, request, {{ok, node_fail}, {}, {}, {}, kNow}, rules, m);
  REQUIRE(a.marks.size() == 2);
  CHECK(a.marks[0].state == State::completed);
  CHECK(a.marks[0].update.confirmed == true);
  CHECK(a.marks[0].update.elapsed_s == 42);
  CHECK(a.marks[0].update.reason == "");
  CHECK(a.marks[1].state == State::node_fail);
  CHECK(a.marks[1].warn);
  CHECK(a.marks[1].note == "c2: " + *a.marks[1].update.reason);  // the log names the case
  CHECK(*a.marks[1].update.reason ==
        "the scheduler's accounting says NODE_FAIL; the job's exit marker said 0");
  CHECK(m.unconfirmed.size() == 1);
  // Job 13 unknown to the scheduler: given up on accounting_wait_s after the first poll that did not
  // know it, however many polls came in between (the accounting may lag minutes behind).
  auto at = [](int s) {
    PollAnswer none;
    none.now = kNow + std::chrono::seconds(s);
    return none;
  };
  for (int s : {0, 1, 2, 3, 60, 119}) CHECK(on_poll(latest, request, at(s), rules, m).marks.empty());
  Actions given_up = on_poll(latest, request, at(120), rules, m);
  REQUIRE(given_up.marks.size() == 1);
  CHECK(given_up.marks[0].update.reason->find(
            "accounting unavailable (the scheduler has had no record of job 13 for 120 s)") == 0);
  CHECK(m.unconfirmed.empty());
}

TEST_CASE("an unreachable scheduler is waited for up to confirm_timeout_s before markers are trusted alone") {
  Rules rules;
  Memory m;
  m.unconfirmed[1] = {"11", std::nullopt};
  std::vector<AttemptRow> latest{row(1, State::completed, "11")};
  CHECK(on_unreachable(latest, 599, rules, m).marks.empty());
  Actions a = on_unreachable(latest, 601, rules, m);
  REQUIRE(a.marks.size() == 1);
  CHECK(a.marks[0].update.confirmed == true);
  CHECK(a.marks[0].update.reason->find("could not be asked for 601 s") != std::string::npos);
}

TEST_CASE("a job the scheduler forgot fails on its marker, or is lost after lost_after_s without one") {
  Rules rules;
  Memory m;
  m.marker_exit[1] = 3;
  std::vector<AttemptRow> latest{row(1, State::running, "11"), row(2, State::running, "12")};
  PollRequest request{{"11", "12"}, false};
  auto at = [](int s) {
    PollAnswer none;
    none.now = kNow + std::chrono::seconds(s);
    return none;
  };
  Actions first = on_poll(latest, request, at(0), rules, m);
  REQUIRE(first.marks.size() == 1);
  CHECK(first.marks[0].state == State::failed);
  CHECK(first.marks[0].update.exit_code == 3);
  // By time, not by a count of polls: ten quick polls lose nothing.
  for (int s = 1; s <= 10; ++s) CHECK(on_poll(latest, request, at(s), rules, m).marks.empty());
  CHECK(on_poll(latest, request, at(119), rules, m).marks.empty());
  Actions lost = on_poll(latest, request, at(120), rules, m);
  REQUIRE(lost.marks.size() == 1);
  CHECK(lost.marks.back().attempt == 2);
  CHECK(lost.marks.back().state == State::lost);
  // A job the scheduler knows again in between starts the wait afresh.
  Memory again;
  on_poll(latest, request, at(0), rules, again);
  auto back = job("12", State::running);
  on_poll(latest, request, {{job("11", State::running), back}, {}, {}, {}, kNow + std::chrono::seconds(100)},
          rules, again);
  CHECK(on_poll(latest, request, at(130), rules, again).marks.empty());
}

TEST_CASE(
    "the script's non-zero status beats the scheduler's COMPLETED; a failed dependency cancels the job") {
  Rules rules;
  Memory m;
  m.marker_exit[1] = 1;
  std::vector<AttemptRow> latest{row(1, State::running, "11"), row(2, State::queued, "12"),
                                 row(3, State::queued, "13")};
  auto dep = job("12", State::queued);
  dep.reason = "DependencyNeverSatisfied";
  dep.waiting = sched::Waiting::dependency_failed;
  auto down = job("13", State::queued);
  down.reason = "ReqNodeNotAvail";
  down.waiting = sched::Waiting::nodes_unavailable;
  Actions a = on_poll(latest, {{"11", "12", "13"}, false},
                      {{job("11", State::completed), dep, down}, {}, {}, {}}, rules, m);
  REQUIRE(a.marks.size() == 3);
  CHECK(a.marks[0].state == State::failed);
  CHECK(a.marks[0].update.exit_code == 1);
  CHECK(a.marks[1].state == State::cancelled);
  CHECK(*a.marks[1].update.reason == "dependency failed: DependencyNeverSatisfied");
  CHECK(a.cancel == std::vector<std::string>{"12"});
  CHECK(a.marks[2].state == State::queued);  // same state, new reason: stored, said, not cancelled
  CHECK(a.marks[2].warn);
  CHECK(m.marker_exit.empty());
}

TEST_CASE(
    "submissions left by an interruption: adopted by name, waited for within the grace, then reverted") {
  Rules rules;
  Memory m;
  const std::map<std::int64_t, sched::SubmitRecord> none;
  auto recent = row(1, State::submitting);
  recent.submitted = kNow - std::chrono::seconds(10);
  auto old = row(2, State::submitting);
  old.submitted = kNow - std::chrono::seconds(100);
  auto adopted = row(3, State::submitting);
  auto older_job = job("30", State::running), newer_job = job("31", State::queued);
  older_job.name = newer_job.name = "job-3";
  std::vector<AttemptRow> latest{recent, old, adopted};
  Actions a = on_reconcile(latest, {older_job, newer_job}, none, kNow, rules, m);
  REQUIRE(a.marks.size() == 1);
  CHECK(a.marks[0].adopt_job == "30");  // the oldest of two jobs of one name is adopted,
  CHECK(a.marks[0].state == State::running);
  REQUIRE(a.duplicates.size() == 1);  // the other is a duplicate: cancelled and reported
  CHECK(a.duplicates[0].job_id == "31");
  CHECK(a.duplicates[0].adopted == "30");
  CHECK(a.cancel == std::vector<std::string>{"31"});
  REQUIRE(a.reverts.size() == 1);
  CHECK(a.reverts[0].attempt == 2);
  CHECK(a.notes.size() == 2);                                             // waiting for c1, reverting c2
  CHECK(on_reconcile({recent}, {}, none, kNow, rules, m).notes.empty());  // said once
}

TEST_CASE("of two jobs of a name that both started, the first is adopted, whatever the record says") {
  // Sim seed 294430: the link kept the engine blind while one copy ran and ended and the other started
  // (Slurm's singleton released it); the first claimed the run directory, the second found its claim.
  Rules rules;
  Memory m;
  auto first = job("31", State::completed, "COMPLETED"), second = job("30", State::running);
  first.name = second.name = "job-1";
  first.start = kNow - std::chrono::seconds(20);
  second.start = kNow - std::chrono::seconds(5);
  std::map<std::int64_t, sched::SubmitRecord> records;
  records[1] = {sched::SubmitRecord::Outcome::submitted, "30", ""};  // its sbatch printed the second
  Actions a = on_reconcile({row(1, State::submitting)}, {second, first}, records, kNow, rules, m);
  REQUIRE(a.marks.size() == 1);
  CHECK(a.marks[0].adopt_job == "31");
  CHECK(a.marks[0].state == State::completed);
  CHECK(a.cancel == std::vector<std::string>{"30"});
  first.start = second.start;  // the same second: the record decides
  a = on_reconcile({row(1, State::submitting)}, {second, first}, records, kNow, rules, m);
  CHECK(a.marks[0].adopt_job == "30");
}

TEST_CASE("a job that found its attempt claimed by another names it in the reason") {
  auto left = job("30", State::failed, "FAILED");
  left.exit_code = render::kClaimedElsewhere;
  CHECK(update_from(left).reason ==
        "another job of this attempt had run in its run directory; this one left it (exit status 75)");
}

TEST_CASE("a submission whose outcome was unclear: never reverted at once; its record decides when kept") {
  // The submit command that failed over a dropped connection may still run on the login node and
  // land its job later: a revert at once submitted cases twice (issue 30).
  using Outcome = sched::SubmitRecord::Outcome;
  Rules rules;
  Memory m;
  auto a = row(1, State::submitting);
  a.submitted = kNow - std::chrono::seconds(1);
  const std::vector<AttemptRow> latest{a};
  auto with = [](Outcome o, std::string id = "", std::string message = "") {
    return std::map<std::int64_t, sched::SubmitRecord>{{1, {o, std::move(id), std::move(message)}}};
  };
  SECTION("the command started and has not ended: waited for, submit_record_wait_s at most") {
    CHECK(on_reconcile(latest, {}, with(Outcome::started), kNow, rules, m).reverts.empty());
    CHECK(on_reconcile(latest, {}, with(Outcome::started), kNow + std::chrono::seconds(118), rules, m)
              .reverts.empty());
    CHECK(on_reconcile(latest, {}, with(Outcome::started), kNow + std::chrono::seconds(119), rules, m)
              .reverts.size() == 1);
  }
  SECTION("no record at all, or no records kept: the grace period, for our own failed submission too") {
    CHECK(on_reconcile(latest, {}, with(Outcome::none), kNow, rules, m).reverts.empty());
    CHECK(on_reconcile(latest, {}, {}, kNow + std::chrono::seconds(58), rules, m).reverts.empty());
    CHECK(on_reconcile(latest, {}, {}, kNow + std::chrono::seconds(59), rules, m).reverts.size() == 1);
  }
  SECTION("the record has the job id, the name lookup not yet: adopted") {
    Actions x = on_reconcile(latest, {}, with(Outcome::submitted, "77"), kNow, rules, m);
    REQUIRE(x.marks.size() == 1);
    CHECK(x.marks[0].adopt_job == "77");
    CHECK(x.marks[0].state == State::queued);
  }
  SECTION("the record says nothing was submitted: planned again at once") {
    Actions x =
        on_reconcile(latest, {}, with(Outcome::refused, "", "QOSMaxSubmitJobPerUserLimit"), kNow, rules, m);
    REQUIRE(x.reverts.size() == 1);
    CHECK(x.notes[0].find("QOSMaxSubmitJobPerUserLimit") != std::string::npos);
  }
  SECTION("an unclear record (the command was killed): waited for like no record") {
    CHECK(on_reconcile(latest, {}, with(Outcome::unclear, "", "killed"), kNow, rules, m).reverts.empty());
  }
  SECTION("two jobs of its name: the recorded one is adopted, the other cancelled") {
    auto first = job("40", State::queued), second = job("41", State::queued);
    first.name = second.name = "job-1";
    Actions x = on_reconcile(latest, {first, second}, with(Outcome::submitted, "41"), kNow, rules, m);
    REQUIRE(x.marks.size() == 1);
    CHECK(x.marks[0].adopt_job == "41");
    CHECK(x.cancel == std::vector<std::string>{"40"});
    REQUIRE(x.duplicates.size() == 1);
    CHECK(x.duplicates[0].job_id == "40");
  }
  SECTION("a duplicate that already ended is reported, not cancelled") {
    auto first = job("40", State::running), second = job("41", State::completed);
    first.name = second.name = "job-1";
    Actions x = on_reconcile(latest, {first, second}, {}, kNow, rules, m);
    CHECK(x.marks[0].adopt_job == "40");
    CHECK(x.cancel.empty());
    CHECK(x.duplicates.size() == 1);
  }
}

TEST_CASE("tasks of a job array left submitting are adopted task by task, by the array's name") {
  Rules rules;
  Memory m;
  std::vector<AttemptRow> latest;
  for (int k = 0; k < 3; ++k) {
    auto a = row(k + 1, State::submitting);
    a.job_name = "cmpx-arr1";
    a.array_task = k;
    latest.push_back(a);
  }
  // The scheduler lists tasks 0 and 2 (task 1 ended and left its memory, say), and an ordinary job
  // of the same name cannot be any task's.
  auto t0 = job("50_0", State::completed), t2 = job("50_2", State::queued), plain = job("49", State::running);
  t0.name = t2.name = plain.name = "cmpx-arr1";
  t0.array_task = 0;
  t2.array_task = 2;
  auto old = latest[1];
  old.submitted = kNow - std::chrono::seconds(100);
  latest[1] = old;
  Actions a = on_reconcile(latest, {plain, t2, t0}, {}, kNow, rules, m);
  REQUIRE(a.marks.size() == 2);
  CHECK(a.marks[0].attempt == 1);
  CHECK(a.marks[0].adopt_job == "50_0");
  CHECK(a.marks[0].state == State::completed);
  CHECK(a.marks[1].attempt == 3);
  CHECK(a.marks[1].adopt_job == "50_2");
  REQUIRE(a.reverts.size() == 1);  // no record of task 1: reverted like any job never seen
  CHECK(a.reverts[0].attempt == 2);
}

TEST_CASE("retries: by the policy's failure classes, and dependents again once their dependency retries") {
  auto plan = plan_of(kDeps);
  REQUIRE(plan.cases.size() == 3);
  std::vector<std::int64_t> ids{1, 2, 3};
  auto latest = deps_rows(plan, State::node_fail, State::cancelled);
  latest[1].reason = latest[2].reason = "dependency prepare ended node_fail";
  latest[1].cause = latest[2].cause = Cause::dependency;  // the reason's words alone decide nothing
  Actions a = retries(plan, ids, latest);
  REQUIRE(a.retries.size() == 1);  // prepare; its dependents wait until it is no longer failed
  CHECK(a.retries[0].case_id == 1);
  CHECK(a.retries[0].reason == "retry policy: node_fail");
  latest[0].state = State::planned;  // its new attempt
  a = retries(plan, ids, latest);
  CHECK(a.retries.size() == 2);
  latest[0].number = 2;
  latest[0].state = State::node_fail;  // the last attempt the policy allows
  CHECK(retries(plan, ids, latest).retries.empty());
}

TEST_CASE(
    "a cancel that met an unconfirmed completion holds when the accounting corrects it (sim seed 2264)") {
  // `campaign cancel` found case 1 completed on its marker: nothing to cancel, its cause says `user`.
  Rules rules;
  Memory m;
  m.unconfirmed = {{1, {"11", std::nullopt}}};
  std::vector<AttemptRow> latest{row(1, State::completed, "11")};
  latest[0].cause = Cause::user;
  Actions a = on_poll(latest, {{"11"}, true}, {{job("11", State::node_fail, "NODE_FAIL")}, {}, {}, {}, kNow},
                      rules, m);
  REQUIRE(a.marks.size() == 1);
  CHECK(a.marks[0].state == State::node_fail);
  CHECK(a.marks[0].update.cause == Cause::user);
  CHECK(a.marks[0].update.reason->find("cancelled by the user meanwhile: not retried") != std::string::npos);
  // The retry policy would run a node failure again; not one the user cancelled.
  auto plan = plan_of(kDeps);
  auto rows = deps_rows(plan, State::node_fail, State::node_fail);
  rows[0].cause = Cause::user;
  Actions r = retries(plan, {1, 2, 3}, rows);
  for (auto& retry : r.retries) CHECK(retry.case_id != 1);
  rows[0].cause = Cause::none;
  CHECK(retries(plan, {1, 2, 3}, rows).retries.size() == r.retries.size() + 1);
}

namespace {

AttemptRow packed(std::int64_t id, State state) {
  AttemptRow a = row(id, state, "50");
  a.job_name = "cmpx-pack1";
  a.step_name = "step-" + std::to_string(id);
  return a;
}

sched::StepInfo step(const std::string& name, State state, std::string raw = "") {
  sched::StepInfo s;
  s.job_id = "50";
  s.step_id = "50." + name.substr(5);
  s.name = name;
  s.state = state;
  s.raw_state = std::move(raw);
  return s;
}

// What Slurm's accounting answers for allocation 50: `steps`, and its end unless told otherwise.
sched::StepRecords records(std::vector<sched::StepInfo> steps, std::set<std::string> ended = {"50"}) {
  return {std::move(steps), true, std::move(ended)};
}

// What a back end without step accounting answers (LSF, the local executor).
sched::StepRecords no_step_accounting() { return sched::StepRecords(); }

}  // namespace

TEST_CASE(
    "resume --failed: a new attempt for every failed case in the campaign, whatever the policy or cause") {
  std::vector<AttemptRow> latest = {row(1, State::failed),    row(2, State::completed),
                                    row(3, State::cancelled), row(4, State::timeout),
                                    row(5, State::failed),    row(6, State::running, "60")};
  latest[2].cause = Cause::user;  // cancelled by the user: `retries` never retries it, resume --failed does
  latest[3].number = 9;           // past any max_attempts
  latest[4].in_spec = false;      // no longer in the campaign file
  Actions a = resume_failed(latest);
  std::vector<std::int64_t> cases;
  for (auto& r : a.retries) cases.push_back(r.case_id);
  CHECK(cases == std::vector<std::int64_t>{1, 3, 4});
  CHECK(a.retries[0].reason == "campaign resume --failed");
  CHECK(a.notes == std::vector<std::string>{"resume --failed: 3 cases get a new attempt"});
  CHECK(resume_failed({row(1, State::completed)}).empty());
}

TEST_CASE("resume --again: a new attempt for every chosen case that settled, completed ones too") {
  std::vector<AttemptRow> latest = {row(1, State::completed), row(2, State::collected),
                                    row(3, State::failed),    row(4, State::running, "60"),
                                    row(5, State::completed), row(6, State::completed)};
  latest[4].in_spec = false;    // not chosen (--case/--only) or no longer in the file
  latest[5].confirmed = false;  // completed on its marker, awaiting the accounting: not settled yet
  std::set<std::string> keys;
  for (auto& r : latest) keys.insert(r.case_key = fmt::format("k{}", r.id));
  // Only the cases the user chose: not those brought along because the chosen ones run after them.
  CHECK(run_again(latest, {latest[0].case_key}).retries.size() == 1);
  Actions a = run_again(latest, keys);
  std::vector<std::int64_t> cases;
  for (auto& r : a.retries) {
    cases.push_back(r.case_id);
    CHECK(r.requested);
  }
  CHECK(cases == std::vector<std::int64_t>{1, 2, 3});
  CHECK(a.notes == std::vector<std::string>{"resume --again: 3 cases get a new attempt"});
}

TEST_CASE("packed attempts share their allocation's job: it is asked about once") {
  Rules rules;
  Memory m;
  std::vector<AttemptRow> latest{packed(1, State::running), packed(2, State::queued),
                                 row(3, State::queued, "51")};
  CHECK(what_to_poll(latest, rules, m).ids == std::vector<std::string>{"50", "51"});
}

TEST_CASE("an allocation's end: each packed case takes its step's end, the cut, or the plan again") {
  Rules rules;
  Memory m;
  m.marker_exit[3] = 143;  // the driver's SIGTERM reached its script
  std::vector<AttemptRow> latest{packed(1, State::running), packed(2, State::running),
                                 packed(3, State::running), packed(4, State::running)};
  auto alloc = job("50", State::timeout, "TIMEOUT");
  PollRequest request{{"50"}, false};
  PackedQuery q = packed_query(latest, request, {alloc}, m);
  CHECK(q.allocations == std::vector<std::string>{"50"});
  CHECK(q.markers.size() == 4);
  auto failed = step("step-1", State::failed, "FAILED");
  failed.exit_code = 3;
  auto cut = step("step-3", State::cancelled, "CANCELLED by 0");
  SECTION("with step accounting: the step record is the truth") {
    // 1: its step failed on its own before the end; 2: its start marker says launched, but the
    // accounting, which holds the allocation's end, has no step of it; 3: its step cancelled at
    // the end, its script said 143; 4: never started.
    PollAnswer answer{{alloc}, records({failed, cut}), {1, 2, 3}, {}};
    Actions a = on_poll(latest, request, answer, rules, m);
    REQUIRE(a.marks.size() == 2);
    CHECK(a.marks[0].attempt == 1);
    CHECK(a.marks[0].state == State::failed);
    CHECK(a.marks[0].update.exit_code == 3);
    CHECK(a.marks[1].attempt == 3);
    CHECK(a.marks[1].state == State::timeout);
    CHECK(*a.marks[1].update.reason == "its allocation 50 ended TIMEOUT while it ran");
    CHECK(a.marks[1].update.exit_code == 143);
    REQUIRE(a.returns.size() == 2);
    CHECK(a.returns[0].attempt == 2);
    CHECK(a.returns[0].reason ==
          "its allocation 50 ended TIMEOUT before its step started (the accounting has no step of it)");
    CHECK(a.returns[1].attempt == 4);
    CHECK(a.returns[1].reason == "its allocation 50 ended before it started");
  }
  SECTION("without step accounting: a launched case was cut, one not launched returns") {
    // 2's start marker says launched: cut by the time limit; 4's was written, the driver died
    // before launching it (not in `started`).
    PollAnswer answer{{alloc}, no_step_accounting(), {1, 2, 3}, {}};
    Actions a = on_poll(latest, request, answer, rules, m);
    REQUIRE(a.marks.size() == 3);
    CHECK(a.marks[0].state == State::timeout);
    CHECK(a.marks[1].attempt == 2);
    CHECK(a.marks[1].state == State::timeout);
    CHECK(*a.marks[1].update.reason == "its allocation 50 ended TIMEOUT while it ran");
    CHECK(a.marks[2].update.exit_code == 143);
    REQUIRE(a.returns.size() == 1);
    CHECK(a.returns[0].attempt == 4);
  }
  CHECK(m.marker_exit.empty());
  CHECK(m.awaiting_steps.empty());
}

TEST_CASE(
    "a start marker alone is not a start: cases whose srun failed in a dying allocation are planned again") {
  // Issue 25: 8 one-node cases on 4 nodes, a node of one set DOWN. The allocation ends NODE_FAIL;
  // 1 and 2 were running (steps cancelled); as their steps ended the driver started 3 and 4 on
  // the freed nodes (start markers, launched), whose srun failed at once (exit markers 1): no step.
  Rules rules;
  Memory m;
  m.marker_exit[3] = 1;
  m.marker_exit[4] = 1;
  std::vector<AttemptRow> latest{packed(1, State::running), packed(2, State::running),
                                 packed(3, State::running), packed(4, State::queued)};
  auto alloc = job("50", State::node_fail, "NODE_FAIL");
  PollRequest request{{"50"}, false};
  CHECK(packed_query(latest, request, {alloc}, m).markers.size() == 4);
  auto steps = {step("step-1", State::cancelled, "CANCELLED"), step("step-2", State::cancelled, "CANCELLED")};
  SECTION("the accounting holds the allocation's end: 3 and 4 never ran") {
    Actions a = on_poll(latest, request, {{alloc}, records(steps), {1, 2, 3, 4}, {}}, rules, m);
    REQUIRE(a.marks.size() == 2);
    for (auto& mark : a.marks) {
      CHECK(mark.state == State::node_fail);
      CHECK(*mark.update.reason == "its allocation 50 ended NODE_FAIL while it ran");
    }
    REQUIRE(a.returns.size() == 2);
    CHECK(a.returns[0].attempt == 3);
    CHECK(a.returns[1].attempt == 4);
    CHECK(a.returns[1].reason ==
          "its allocation 50 ended NODE_FAIL before its step started (the accounting has no step of it)");
    CHECK(m.marker_exit.empty());
  }
  SECTION("the accounting lacks the allocation's end: 3 and 4 wait for it, accounting_wait_s at most") {
    Actions first = on_poll(latest, request, {{alloc}, records(steps, {}), {1, 2, 3, 4}, {}}, rules, m);
    CHECK(first.marks.size() == 2);  // 1 and 2: their steps ran
    CHECK(first.returns.empty());
    CHECK(m.awaiting_steps.size() == 2);
    std::vector<AttemptRow> left{latest[2], latest[3]};
    SECTION("then it comes") {
      Actions a = on_poll(left, request, {{alloc}, records(steps), {3, 4}, {}}, rules, m);
      CHECK(a.marks.empty());
      CHECK(a.returns.size() == 2);
      CHECK(m.awaiting_steps.empty());
    }
    SECTION("it never comes: judged without steps, on their launched start markers, after a while") {
      // However many polls come meanwhile: only the time waited counts.
      const Time t0{};
      for (int poll = 0; poll < 10; ++poll)
        CHECK(on_poll(left, request,
                      {{alloc}, records(steps, {}), {3, 4}, {}, t0 + std::chrono::seconds(poll)}, rules, m)
                  .empty());
      CHECK(on_poll(left, request, {{alloc}, records(steps, {}), {3, 4}, {}, t0 + std::chrono::seconds(119)},
                    rules, m)
                .empty());
      Actions a = on_poll(
          left, request, {{alloc}, records(steps, {}), {3, 4}, {}, t0 + std::chrono::seconds(120)}, rules, m);
      REQUIRE(a.marks.size() == 2);
      CHECK(a.marks[0].state == State::node_fail);
      CHECK(a.marks[0].update.exit_code == 1);
      CHECK(m.awaiting_steps.empty());
    }
  }
}

TEST_CASE(
    "at a poll whose step accounting failed, a case is judged without it only after a streak of failures") {
  // Sim seed 97121: the accounting answered between failures; the first poll after a long outage of
  // slurmctld failed to reach it, past accounting_wait_s since the allocation ended.
  Rules rules;
  Memory m;
  m.marker_exit[3] = 1;  // launched as its allocation died, its srun refused: no step
  std::vector<AttemptRow> latest{packed(3, State::running)};
  auto alloc = job("50", State::node_fail, "NODE_FAIL");
  PollRequest request{{"50"}, false};
  const Time t0{};
  auto at = [&](int s) { return t0 + std::chrono::seconds(s); };
  CHECK(on_poll(latest, request, {{alloc}, records({}, {}), {3}, {}, at(0)}, rules, m).empty());
  PollAnswer failed{{alloc}, records({}, {}), {3}, {}, at(500)};  // what a failed step query leaves
  failed.steps.ended.clear();
  failed.accounting_failing_since = at(500);
  CHECK(on_poll(latest, request, failed, rules, m).empty());  // a passing failure: the next poll asks
  SECTION("the accounting answers: no step of it, it never ran") {
    Actions a = on_poll(latest, request, {{alloc}, records({}), {3}, {}, at(505)}, rules, m);
    CHECK(a.marks.empty());
    REQUIRE(a.returns.size() == 1);
  }
  SECTION("slurmdbd down: after accounting_wait_s of failures, judged on its start marker") {
    failed.now = at(619);
    CHECK(on_poll(latest, request, failed, rules, m).empty());
    failed.now = at(620);
    Actions a = on_poll(latest, request, failed, rules, m);
    REQUIRE(a.marks.size() == 1);
    CHECK(a.marks[0].state == State::node_fail);
    CHECK(a.marks[0].update.reason->find("judged on its start marker") != std::string::npos);
  }
}

TEST_CASE("a packed case whose allocation vanished: planned again unless its driver started it") {
  // Sim seed 77475: slurmctld purged the allocation (MinJobAge) while slurmdbd lagged behind.
  Rules rules;
  Memory m;
  std::vector<AttemptRow> latest{packed(1, State::queued), packed(2, State::queued)};
  PollRequest request{{"50"}, false};
  const Time t0{};
  CHECK(on_poll(latest, request, {{}, records({}, {}), {}, {}, t0}, rules, m).empty());
  PackedQuery q = packed_query(latest, request, {}, m);
  CHECK(q.markers.size() == 2);  // vanished: their start markers say whether the driver started them
  Actions a =
      on_poll(latest, request, {{}, records({}, {}), {2}, {}, t0 + std::chrono::seconds(120)}, rules, m);
  REQUIRE(a.returns.size() == 1);
  CHECK(a.returns[0].attempt == 1);
  CHECK(a.returns[0].reason ==
        "its allocation 50 was known neither to the queue nor to the accounting for 120 s, and never started "
        "it");
  REQUIRE(a.marks.size() == 1);
  CHECK(a.marks[0].attempt == 2);
  CHECK(a.marks[0].state == State::lost);
}

TEST_CASE("a case that launches no step (launch: false) is judged on its launched start marker") {
  // Its command runs in its script: no step of its own ever shows in the accounting.
  Rules rules;
  Memory m;
  std::vector<AttemptRow> latest{packed(1, State::running), packed(2, State::running)};
  auto alloc = job("50", State::node_fail, "NODE_FAIL");
  PollRequest request{{"50"}, false};
  PollAnswer answer{{alloc}, records({}), {1}, {}};
  answer.stepless = {1, 2};
  Actions a = on_poll(latest, request, answer, rules, m);
  REQUIRE(a.marks.size() == 1);
  CHECK(a.marks[0].attempt == 1);  // launched: cut while it ran
  CHECK(a.marks[0].state == State::node_fail);
  REQUIRE(a.returns.size() == 1);
  CHECK(a.returns[0].attempt == 2);  // its start marker does not say launched
}

TEST_CASE("in an allocation that ended well, a script that failed before its step is charged") {
  // Its srun refused its options, or a module did not load: it would fail the same way every time.
  Rules rules;
  Memory m;
  m.marker_exit[1] = 2;
  std::vector<AttemptRow> latest{packed(1, State::running), packed(2, State::running)};
  auto alloc = job("50", State::completed, "COMPLETED");
  PollRequest request{{"50"}, false};
  SECTION("the accounting has no step of it") {
    Actions a = on_poll(latest, request, {{alloc}, records({step("step-2", State::completed)}), {1, 2}, {}},
                        rules, m);
    REQUIRE(a.marks.size() == 2);
    CHECK(a.marks[0].state == State::failed);
    CHECK(a.marks[0].update.exit_code == 2);
    CHECK(*a.marks[0].update.reason == "its script exited 2 before its step started");
    CHECK(a.marks[1].state == State::completed);  // 2: no zero marker read yet; its step's record
    CHECK(a.returns.empty());
  }
  SECTION("without step accounting") {
    Actions a = on_poll({latest[0]}, request, {{alloc}, no_step_accounting(), {1}, {}}, rules, m);
    REQUIRE(a.marks.size() == 1);
    CHECK(a.marks[0].state == State::failed);
    CHECK(a.marks[0].update.exit_code == 2);
  }
}

TEST_CASE("a packed completion is confirmed by its own step, and kept when its allocation fails later") {
  Rules rules;
  Memory m;
  m.unconfirmed = {{1, {"50", std::nullopt}}, {2, {"50", std::nullopt}}, {3, {"50", std::nullopt}}};
  std::vector<AttemptRow> latest{packed(1, State::completed), packed(2, State::completed),
                                 packed(3, State::completed)};
  auto alloc = job("50", State::node_fail, "NODE_FAIL");
  PollRequest request{{"50"}, true};
  CHECK(packed_query(latest, request, {alloc}, m).allocations == std::vector<std::string>{"50"});
  // The accounting has the two steps, not yet the allocation's end.
  PollAnswer answer{
      {alloc},
      records({step("step-1", State::completed), step("step-2", State::node_fail, "NODE_FAIL")}, {}),
      {},
      {},
      kNow};
  Actions a = on_poll(latest, request, answer, rules, m);
  REQUIRE(a.marks.size() == 2);
  CHECK(a.marks[0].state == State::completed);  // the allocation's NODE_FAIL came after it
  CHECK(a.marks[0].update.confirmed == true);
  CHECK(a.marks[1].state == State::node_fail);  // its own step's record corrects the marker
  // 3 has no step record while the accounting lacks its allocation's end: it waits for it by time,
  // accounting_wait_s, however many polls come (slurmdbd may lag; srun may exit 0 on a node failure).
  for (int s : {0, 1, 2, 3, 119}) {
    answer.now = kNow + std::chrono::seconds(s);
    CHECK(on_poll(latest, request, answer, rules, m).marks.empty());
  }
  SECTION("the accounting's end comes, without a step of it: the allocation's NODE_FAIL is its end") {
    answer.steps.ended = {"50"};
    Actions last = on_poll(latest, request, answer, rules, m);
    REQUIRE(last.marks.size() == 1);
    CHECK(last.marks[0].state == State::node_fail);
    CHECK(last.marks[0].update.reason->find("no step step-3 of it") != std::string::npos);
  }
  SECTION("it never comes, and its allocation's node failed: NODE_FAIL after accounting_wait_s, saying so") {
    // srun exits 0 when its node fails: a zero marker cannot outweigh the scheduler's NODE_FAIL.
    answer.now = kNow + std::chrono::seconds(120);
    Actions last = on_poll(latest, request, answer, rules, m);
    REQUIRE(last.marks.size() == 1);
    CHECK(last.marks[0].state == State::node_fail);
    CHECK(last.marks[0].update.reason->find("no accounting record of its job step step-3 after 120 s") !=
          std::string::npos);
    CHECK(last.marks[0].update.reason->find("launcher may exit 0 when its node fails") != std::string::npos);
  }
  SECTION("it never comes, its allocation ended well: confirmed on its marker alone, saying so") {
    answer.jobs = {job("50", State::completed, "COMPLETED")};
    answer.now = kNow + std::chrono::seconds(120);
    Actions last = on_poll(latest, request, answer, rules, m);
    REQUIRE(last.marks.size() == 1);
    CHECK(last.marks[0].state == State::completed);
    CHECK(last.marks[0].update.reason->find("no accounting record of its job step step-3 after 120 s") !=
          std::string::npos);
  }
  SECTION("a back end without step accounting: its marker is all there is, at once") {
    answer.steps = no_step_accounting();
    Actions last = on_poll(latest, request, answer, rules, m);
    REQUIRE(last.marks.size() == 1);
    CHECK(last.marks[0].state == State::completed);
    CHECK(last.marks[0].update.reason->find("keeps no step records") != std::string::npos);
  }
}

TEST_CASE("a packed completion whose step was cancelled by its allocation's node failure is a node failure") {
  Rules rules;
  Memory m;
  m.unconfirmed = {{1, {"50", std::nullopt}}};
  std::vector<AttemptRow> latest{packed(1, State::completed)};
  PollRequest request{{"50"}, true};
  auto running = job("50", State::running);
  PollAnswer early{{running}, records({step("step-1", State::cancelled, "CANCELLED")}, {}), {}, {}};
  CHECK(on_poll(latest, request, early, rules, m).marks.empty());  // why: only the allocation's end tells
  PollAnswer late{{job("50", State::node_fail, "NODE_FAIL")},
                  records({step("step-1", State::cancelled, "CANCELLED")}),
                  {},
                  {}};
  Actions a = on_poll(latest, request, late, rules, m);
  REQUIRE(a.marks.size() == 1);
  CHECK(a.marks[0].state == State::node_fail);
  CHECK(*a.marks[0].update.reason ==
        "the scheduler's accounting says CANCELLED when its allocation 50 ended NODE_FAIL; the job's exit "
        "marker "
        "said 0");
}

TEST_CASE("a packed case runs once the driver started it, not when its allocation starts") {
  Rules rules;
  Memory m;
  std::vector<AttemptRow> latest{packed(1, State::queued), packed(2, State::queued),
                                 packed(3, State::running)};
  auto alloc = job("50", State::running);
  PollRequest request{{"50"}, false};
  CHECK(packed_query(latest, request, {alloc}, m).markers.size() == 2);  // the queued ones
  Actions a = on_poll(latest, request, {{alloc}, no_step_accounting(), {2}, {}}, rules, m);
  REQUIRE(a.marks.size() == 1);  // 1 waits for free nodes; 3 stays running
  CHECK(a.marks[0].attempt == 2);
  CHECK(a.marks[0].state == State::running);
  CHECK_FALSE(a.marks[0].update.started);  // the allocation's start is not the case's
}

TEST_CASE("a failed submission: refused waits for the limit, transient is reconciled, invalid is cancelled") {
  AttemptRow a = row(1, State::submitting), b = row(2, State::submitting);
  const std::vector<const AttemptRow*> both{&a, &b};
  auto refused =
      on_submit_failure(both, sched::SubmitFailure::refused_by_limit, "QOSMaxSubmitJobPerUserLimit");
  CHECK(refused.pause);
  CHECK_FALSE(refused.unclear);
  REQUIRE(refused.actions.reverts.size() == 2);
  CHECK(refused.actions.reverts[1].reason == "refused by a limit: QOSMaxSubmitJobPerUserLimit");
  CHECK(refused.actions.reverts[1].rejected.empty());  // planned again, not cancelled

  // The job may exist or still land: nothing changes now, the attempts stay submitting.
  auto unclear = on_submit_failure(both, sched::SubmitFailure::transient, "connection lost");
  CHECK(unclear.unclear);
  CHECK_FALSE(unclear.pause);
  CHECK(unclear.actions.empty());

  auto invalid = on_submit_failure({&a}, sched::SubmitFailure::invalid, "Invalid partition name specified");
  REQUIRE(invalid.actions.reverts.size() == 1);
  CHECK(invalid.actions.reverts[0].rejected ==
        "the scheduler rejected the job: Invalid partition name specified");
  CHECK_FALSE(invalid.pause);
  CHECK_FALSE(invalid.unclear);
}

TEST_CASE(
    "cancel: planned and with a job at once; not a submission of unknown outcome; a packed case by its "
    "step") {
  std::vector<AttemptRow> latest{row(1, State::planned), row(2, State::queued, "20"),
                                 row(3, State::submitting), row(4, State::completed, "40")};
  latest[3].confirmed = false;  // completed on its marker, unconfirmed
  auto all = choose_cancel(latest, {1, 2, 3, 4}, std::nullopt);
  CHECK(all.cancelled == 2);
  CHECK(all.actions.cancel == std::vector<std::string>{"20"});
  REQUIRE(all.actions.marks.size() == 3);
  CHECK(all.actions.marks[0].attempt == 4);  // keeps its completion, with the user's cause
  CHECK(all.actions.marks[0].state == State::completed);
  CHECK(all.actions.marks[0].update.cause == Cause::user);
  CHECK(all.actions.marks[1].state == State::cancelled);
  CHECK(all.actions.marks[2].attempt == 2);

  // Two packed cases of allocation 50: one named alone.
  std::vector<AttemptRow> packed{row(5, State::running, "50"), row(6, State::running, "50")};
  packed[0].step_name = "s5";
  packed[1].step_name = "s6";
  CHECK(cancel_partial(packed, {5}) == std::vector<std::string>{"50"});
  CHECK(cancel_partial(packed, {5, 6}).empty());  // the whole allocation
  sched::StepInfo s5;
  s5.job_id = "50";
  s5.step_id = "50.1";
  s5.name = "s5";
  auto own = choose_cancel(packed, {5}, std::vector<sched::StepInfo>{s5});
  CHECK(own.actions.cancel == std::vector<std::string>{"50.1"});
  CHECK(own.cancelled == 1);
  auto not_yet = choose_cancel(packed, {5}, std::vector<sched::StepInfo>{});
  CHECK(not_yet.refused == std::vector<std::string>{"c5 (allocation 50, beside c6)"});
  CHECK(not_yet.actions.empty());
  // A scheduler that cannot end a step alone: the allocation goes, the case beside named.
  auto whole = choose_cancel(packed, {5}, std::nullopt);
  CHECK(whole.cancelled == 2);
  CHECK(whole.actions.cancel == std::vector<std::string>{"50"});
  REQUIRE(whole.actions.marks.size() == 2);
  CHECK(whole.actions.marks[1].note == "c6: cancelled with its allocation 50 (a case of it matched)");
  CHECK(whole.actions.marks[1].warn);
}

TEST_CASE("a start marker counts when it names the attempt's own allocation and says it launched the case") {
  std::vector<AttemptRow> latest{row(1, State::queued, "10"), row(2, State::queued, "10"),
                                 row(3, State::queued, "10"), row(4, State::running, "10")};
  for (auto& a : latest) {
    a.job_name = "alloc-s2";
    a.step_name = a.case_name;
  }
  auto marker = [](const std::string& allocation, bool launched) {
    pack::StartMarker m;
    m.allocation = allocation;
    m.launched = launched;
    return std::optional<std::string>(pack::to_json(m));
  };
  PackedQuery packed;
  for (auto& a : latest) packed.markers.push_back(&a);
  PollAnswer answer;
  read_start_markers(packed,
                     {marker("alloc-s2", true), marker("alloc", true),  // an earlier allocation's
                      marker("alloc-s2", false), std::nullopt},         // not launched yet; none
                     {4}, answer);
  CHECK(answer.started == std::set<std::int64_t>{1});
  CHECK(answer.stepless == std::set<std::int64_t>{4});
}
