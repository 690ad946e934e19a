// The catalog's typed API: campaigns, case sync, the submission life cycle,
// retries, metrics, node-hours, events, read-only access and check().
#include "catalog/catalog.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <iostream>

#include "catalog/schema.hpp"
#include "catalog/transitions.hpp"
#include "helpers.hpp"

using namespace campaign;
using campaign::test::numbered;
using campaign::test::TempDir;

namespace {

Time at(std::int64_t s) { return Time(std::chrono::seconds(s)); }

CaseRow make_case(const std::string& key, int ranks) {
  CaseRow r;
  r.key = key;
  r.step = "train";
  r.name = "ranks-" + std::to_string(ranks) + "-" + key;
  r.params = {{"ranks", ranks}, {"partition", "gpu"}};
  r.run_dir = "runs/" + r.name;
  r.script = r.run_dir + "/job.sh";
  return r;
}

CampaignRow make_campaign(const std::string& hash = "h1") {
  return CampaignRow{"cosmoflow", "name: cosmoflow\n", hash, "perlmutter", "/scratch/w"};
}

// A catalog in a temp dir with a settable clock, one campaign and `n` cases.
struct Fixture {
  TempDir dir;
  std::int64_t now = 1'700'000'000;
  Catalog cat = Catalog::open(dir.path());
  std::int64_t campaign = 0;
  std::vector<std::int64_t> cases;

  explicit Fixture(int n = 3) {
    cat.set_clock([this] { return at(now); });
    campaign = cat.upsert_campaign(make_campaign());
    std::vector<CaseRow> rows;
    for (int i = 0; i < n; ++i) rows.push_back(make_case(numbered("k", i), 1 << i));
    cases = cat.sync_cases(campaign, rows).ids;
  }

  std::int64_t latest(std::int64_t case_id) { return cat.attempts_of_case(case_id).back().id; }

  // Drives the latest attempt of `case_id` to queued with job id `job`.
  std::int64_t queue(std::int64_t case_id, const std::string& job) {
    std::int64_t a = latest(case_id);
    cat.begin_submit(a, numbered("cf-", a), 3600, 2);
    cat.record_job_id(a, job);
    return a;
  }
};

std::vector<State> state_events(Catalog& cat, std::int64_t attempt) {
  std::vector<State> out;
  for (const EventRow& e : cat.events_of_attempt(attempt))
    if (e.kind == "state") out.push_back(*e.to);
  return out;
}

}  // namespace

TEST_CASE("open creates a WAL database at the current schema version", "[catalog]") {
  TempDir dir;
  const auto workdir = dir.path() / "nested" / "work";
  {
    Catalog cat = Catalog::open(workdir);
    CHECK(cat.path() == workdir / "campaign.db");
    CHECK(cat.access() == Access::read_write);
    CHECK(cat.schema_version() == current_schema_version());
    CHECK(cat.check().empty());
  }
  SQLite::Database raw((workdir / "campaign.db").string(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA journal_mode").getString() == "wal");
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == current_schema_version());
  CHECK(std::filesystem::exists(workdir / "campaign.lock"));
}

TEST_CASE("upsert_campaign inserts once and logs what changed", "[catalog]") {
  Fixture f(0);
  CHECK(f.cat.upsert_campaign(make_campaign()) == f.campaign);
  CHECK(f.cat.events(f.campaign, 100).size() == 1);  // "created" only: nothing changed

  f.cat.record_code_version(f.campaign, {.version = "abc123"});
  CHECK(f.cat.upsert_campaign(make_campaign("h2")) == f.campaign);
  auto rec = f.cat.find_campaign("cosmoflow");
  REQUIRE(rec);
  CHECK(rec->spec_hash == "h2");
  CHECK(rec->code.version == "abc123");  // upsert leaves the code version alone
  CHECK(rec->system == "perlmutter");
  auto ev = f.cat.events(f.campaign, 100);
  REQUIRE(ev.size() == 3);
  CHECK(ev[1].message == "code version  -> abc123");
  CHECK(ev[2].kind == "campaign");
  CHECK(ev[2].message == "spec h1 -> h2");

  CHECK_FALSE(f.cat.find_campaign("other"));

  // The commit of the code under test, its date and whether the checkout was modified.
  CodeRecord committed{.version = "abc123",
                       .commit = "0123456789abcdef0123456789abcdef01234567",
                       .date = at(1'600'000'000),
                       .dirty = true};
  f.cat.record_code_version(f.campaign, committed);
  rec = f.cat.find_campaign("cosmoflow");
  CHECK(rec->code.commit == committed.commit);
  CHECK(rec->code.date == at(1'600'000'000));
  CHECK(rec->code.dirty);
  CHECK(f.cat.events(f.campaign, 100).back().message ==
        "commit  -> 0123456789abcdef0123456789abcdef01234567 (modified)");
  const auto events = f.cat.events(f.campaign, 100).size();
  f.cat.record_code_version(f.campaign, committed);  // the same again: no event
  CHECK(f.cat.events(f.campaign, 100).size() == events);

  CHECK(f.cat.upsert_campaign(CampaignRow{"other", "", "h", "local", "/w"}) != f.campaign);
  CHECK(f.cat.campaigns().size() == 2);
  CHECK_THROWS_AS(f.cat.upsert_campaign(CampaignRow{}), CatalogError);
}

TEST_CASE("sync_cases notices a case whose definition changed, once, and names retired cases", "[catalog]") {
  Fixture f(2);  // recorded without a definition (as schema 11 catalogs were)
  auto with = [](CaseRow r, const std::string& d) {
    r.definition = d;
    return r;
  };
  const std::string v1 = R"({"command":"echo v1"})", v2 = R"({"command":"echo v2"})";
  auto first = f.cat.sync_cases(f.campaign, {with(make_case("k0", 1), v1), with(make_case("k1", 2), v1)});
  CHECK(first.changed.empty());  // nothing to compare with yet: recorded silently
  auto same = f.cat.sync_cases(f.campaign, {with(make_case("k0", 1), v1), with(make_case("k1", 2), v1)});
  CHECK(same.changed.empty());
  auto edited = f.cat.sync_cases(f.campaign, {with(make_case("k0", 1), v2)});
  REQUIRE(edited.changed.size() == 1);
  CHECK(edited.changed[0].name == "ranks-1-k0");
  CHECK(edited.changed[0].before == v1);
  CHECK(edited.changed[0].after == v2);
  CHECK(edited.retired_names == std::vector<std::string>{"ranks-2-k1"});
  CHECK(f.cat.sync_cases(f.campaign, {with(make_case("k0", 1), v2)}).changed.empty());  // said once
  CHECK(f.cat.check().empty());
}

TEST_CASE("sync_cases inserts new keys and keeps existing cases and attempts", "[catalog]") {
  Fixture f(3);
  REQUIRE(f.cases.size() == 3);
  auto latest = f.cat.latest_attempts(f.campaign);
  REQUIRE(latest.size() == 3);
  for (const AttemptRow& a : latest) {
    CHECK(a.state == State::planned);
    CHECK(a.number == 1);
    CHECK(a.in_spec);
  }
  auto stored = f.cat.cases_of(f.campaign);
  REQUIRE(stored.size() == 3);
  CHECK(stored[1].params == nlohmann::json{{"ranks", 2}, {"partition", "gpu"}});
  CHECK(stored[1].run_dir == "runs/ranks-2-k1");
  CHECK(stored[1].step == "train");

  const std::int64_t queued = f.queue(f.cases[0], "1001");

  // k1 leaves the campaign file, k3 joins; k0 keeps its queued attempt.
  auto again = f.cat.sync_cases(f.campaign, {make_case("k3", 8), make_case("k0", 1), make_case("k2", 4)});
  CHECK(again.inserted == 1);
  CHECK(again.retired == 1);
  REQUIRE(again.ids.size() == 3);
  CHECK(again.ids[1] == f.cases[0]);
  CHECK(again.ids[2] == f.cases[2]);
  CHECK(f.cat.attempt(queued).state == State::queued);
  CHECK(f.cat.attempts_of_case(f.cases[0]).size() == 1);

  auto cases = f.cat.cases_of(f.campaign);
  REQUIRE(cases.size() == 4);
  CHECK_FALSE(cases[1].in_spec);  // k1 is kept, marked
  CHECK(f.cat.latest_attempts(f.campaign).size() == 4);

  // Listing it again brings it back with its old attempt.
  auto back = f.cat.sync_cases(f.campaign, {make_case("k0", 1), make_case("k1", 2)});
  CHECK(back.inserted == 0);
  CHECK(back.retired == 2);
  CHECK(back.ids[1] == f.cases[1]);
  CHECK(f.cat.cases_of(f.campaign)[1].in_spec);
  CHECK(f.cat.check().empty());
}

TEST_CASE("sync_cases refuses empty and duplicate keys without writing", "[catalog]") {
  Fixture f(1);
  CHECK_THROWS_AS(f.cat.sync_cases(f.campaign, {make_case("a", 1), make_case("a", 2)}), CatalogError);
  CHECK_THROWS_AS(f.cat.sync_cases(f.campaign, {make_case("", 1)}), CatalogError);
  CHECK_THROWS_AS(f.cat.sync_cases(999, {make_case("b", 1)}), CatalogError);
  CHECK(f.cat.cases_of(f.campaign).size() == 1);
}

TEST_CASE("a job's life: submitting, queued, running, completed, collected", "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.latest(f.cases[0]);

  f.cat.begin_submit(a, "cf-1-k0-1", 5400, 4);
  AttemptRow r = f.cat.attempt(a);
  CHECK(r.state == State::submitting);
  CHECK(r.job_name == "cf-1-k0-1");
  CHECK(r.walltime_s == 5400);
  CHECK(r.nodes == 4);
  CHECK(r.submitted == at(f.now));
  CHECK(r.job_id.empty());

  f.now += 2;
  CHECK(f.cat.record_job_id(a, "4242"));
  CHECK_FALSE(f.cat.record_job_id(a, "4242"));  // repeated: no change
  CHECK_THROWS_AS(f.cat.record_job_id(a, "9999"), TransitionError);
  CHECK(f.cat.attempt(a).job_id == "4242");

  // A pending reason is stored without a transition...
  CHECK_FALSE(f.cat.update_state(a, State::queued, {.reason = "Priority"}));
  CHECK(f.cat.attempt(a).reason == "Priority");
  // ...and cleared when the job starts.
  CHECK(f.cat.update_state(a, State::running, {.started = at(f.now + 60), .node_list = "nid[001-004]"}));
  r = f.cat.attempt(a);
  CHECK(r.reason.empty());
  CHECK(r.started == at(f.now + 60));
  CHECK(r.node_list == "nid[001-004]");

  CHECK(
      f.cat.update_state(a, State::completed, {.exit_code = 0, .ended = at(f.now + 660), .elapsed_s = 600}));
  r = f.cat.attempt(a);
  CHECK(r.state == State::completed);
  CHECK(r.exit_code == 0);
  CHECK(r.elapsed_s == 600);
  CHECK(r.started == at(f.now + 60));  // kept: not in this update

  f.cat.record_collection(a, {{"epoch_time", 0, 12.5, "s"}, {"epoch_time", 1, 11.0, "s"}});
  CHECK(f.cat.attempt(a).state == State::collected);

  CHECK(state_events(f.cat, a) == std::vector<State>{State::planned, State::submitting, State::queued,
                                                     State::running, State::completed, State::collected});
  auto ev = f.cat.events_of_attempt(a);
  CHECK(ev[2].message == "job 4242");
  CHECK(ev[4].message == "exit 0");
  CHECK(ev[4].from == State::running);
  CHECK(ev[4].scope.case_id == f.cases[0]);
  CHECK(ev[4].scope.campaign_id == f.campaign);
  CHECK(f.cat.check().empty());
}

TEST_CASE("begin_submit, record_job_id and update_state on rows leave them as the catalog holds them",
          "[catalog]") {
  Fixture f(2);
  const std::int64_t a = f.latest(f.cases[0]);
  f.cat.update_state(a, State::planned, {.reason = "an earlier reason"});  // cleared by the submission
  AttemptRow row = f.cat.attempt(a);
  f.cat.begin_submit({{a, "alloc-1", 600, 2, "step-1", 7}}, {&row});
  CHECK(row == f.cat.attempt(a));
  CHECK(row.submitted == at(f.now));
  CHECK_THROWS_AS(f.cat.record_job_id(row, ""), CatalogError);
  CHECK(f.cat.record_job_id(row, "41"));
  CHECK(row == f.cat.attempt(a));
  CHECK_FALSE(f.cat.record_job_id(row, "41"));  // again: nothing
  CHECK(row == f.cat.attempt(a));
  // Each update, on the row, then the row against the catalog's: every field as written.
  const std::vector<std::pair<State, JobUpdate>> updates = {
      {State::queued, {.reason = "Priority"}},  // no move: info alone
      {State::queued, {}},                      // no move, nothing: the reason stays
      {State::running, {.started = at(f.now + 5), .node_list = "nid[001-002]"}},  // a move clears the reason
      {State::running, {.reason = "still", .cause = Cause::user}},
      {State::completed,
       {.exit_code = 0, .ended = at(f.now + 65), .elapsed_s = 60, .energy_j = 12.5, .confirmed = false}},
      {State::completed, {.energy_j = std::nan(""), .confirmed = true}},  // NaN: stored as NULL, kept
  };
  for (auto& [to, info] : updates) {
    f.now += 1;
    const bool moves = to != row.state;
    CHECK(f.cat.update_state(row, to, info) == moves);
    CHECK(row == f.cat.attempt(a));
  }
  CHECK(row.energy_j == 12.5);
  CHECK(row.reason.empty());  // "still" cleared by the move to completed
  CHECK(row.cause == Cause::none);
  // A refused transition leaves the row as it was.
  const AttemptRow before = row;
  CHECK_THROWS_AS(f.cat.update_state(row, State::failed), TransitionError);  // a confirmed completion
  CHECK(row == before);
  CHECK(row == f.cat.attempt(a));
  // A cause with a move, and a move without one clears it.
  const std::int64_t b = f.queue(f.cases[1], "42");
  AttemptRow other = f.cat.attempt(b);
  CHECK(
      f.cat.update_state(other, State::cancelled, {.reason = "cancelled by the user", .cause = Cause::user}));
  CHECK(other == f.cat.attempt(b));
  CHECK(other.cause == Cause::user);
  CHECK(f.cat.check().empty());
}

TEST_CASE("a completion on the exit marker alone: collected once confirmed, corrected before", "[catalog]") {
  Fixture f(2);
  const std::int64_t a = f.latest(f.cases[0]), b = f.latest(f.cases[1]);
  for (auto [id, job] : {std::pair{a, "1"}, std::pair{b, "2"}}) {
    f.cat.begin_submit(id, std::string("j") + job, 60, 1);
    f.cat.record_job_id(id, job);
    f.cat.update_state(id, State::running);
    f.cat.update_state(id, State::completed, {.exit_code = 0, .confirmed = false});
    CHECK_FALSE(f.cat.attempt(id).confirmed);
    CHECK_THROWS_AS(f.cat.record_collection(id, {{"x", {}, 1, ""}}), TransitionError);
    CHECK_THROWS_AS(f.cat.update_state(id, State::collect_failed), TransitionError);
  }
  // a: the accounting agrees; b: it says the node failed.
  CHECK_FALSE(f.cat.update_state(a, State::completed, {.elapsed_s = 30, .confirmed = true}));
  CHECK(f.cat.attempt(a).confirmed);
  CHECK_THROWS_AS(f.cat.update_state(a, State::node_fail), TransitionError);  // confirmed: final
  f.cat.record_collection(a, {{"x", {}, 1, ""}});
  CHECK(f.cat.attempt(a).state == State::collected);
  CHECK(f.cat.update_state(b, State::node_fail, {.reason = "NODE_FAIL"}));
  CHECK(f.cat.attempt(b).state == State::node_fail);
  CHECK(f.cat.check().empty());
}

TEST_CASE("forbidden transitions throw and change nothing", "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.latest(f.cases[0]);
  const auto events_before = f.cat.events_of_attempt(a).size();

  CHECK_THROWS_AS(f.cat.update_state(a, State::running), TransitionError);           // planned -> running
  CHECK_THROWS_AS(f.cat.update_state(a, State::submitting), TransitionError);        // only via begin_submit
  CHECK_THROWS_AS(f.cat.record_job_id(a, "1"), TransitionError);                     // not submitting
  CHECK_THROWS_AS(f.cat.revert_submitting(a, "no job"), TransitionError);            // not submitting
  CHECK_THROWS_AS(f.cat.record_collection(a, {{"x", {}, 1, ""}}), TransitionError);  // not completed
  CHECK(f.cat.attempt(a).state == State::planned);
  CHECK(f.cat.metrics_of_attempt(a).empty());  // rolled back with the transaction
  CHECK(f.cat.events_of_attempt(a).size() == events_before);

  f.cat.begin_submit(a, "j", 60, 1);
  CHECK_THROWS_AS(f.cat.begin_submit(a, "j", 60, 1), TransitionError);
  CHECK_THROWS_AS(f.cat.update_state(a, State::running), TransitionError);  // submitting needs a job id
  CHECK_THROWS_AS(f.cat.record_job_id(a, "1", State::planned), TransitionError);
  CHECK_THROWS_AS(f.cat.record_job_id(a, "1", State::lost), TransitionError);
  f.cat.record_job_id(a, "1");
  f.cat.update_state(a, State::failed, {.exit_code = 3});
  for (State to : {State::queued, State::running, State::completed, State::collected, State::planned})
    CHECK_THROWS_AS(f.cat.update_state(a, to), TransitionError);
  CHECK(f.cat.attempt(a).state == State::failed);
  CHECK(f.cat.check().empty());

  CHECK_THROWS_AS(f.cat.begin_submit(a, "", 60, 1), CatalogError);
  CHECK_THROWS_AS(f.cat.update_state(12345, State::running), CatalogError);
}

TEST_CASE("record_job_id can adopt a job that has already moved on", "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.latest(f.cases[0]);
  f.cat.begin_submit(a, "j", 60, 1);
  CHECK(f.cat.record_job_id(a, "77", State::completed));
  CHECK(f.cat.attempt(a).state == State::completed);
  CHECK(state_events(f.cat, a) == std::vector<State>{State::planned, State::submitting, State::completed});
}

TEST_CASE("revert_submitting puts the attempt back to planned", "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.latest(f.cases[0]);
  f.cat.begin_submit(a, "cf-a", 60, 1);
  f.cat.revert_submitting(a, "no job named cf-a");
  AttemptRow r = f.cat.attempt(a);
  CHECK(r.state == State::planned);
  CHECK(r.number == 1);
  CHECK_FALSE(r.submitted);
  CHECK(f.cat.events_of_attempt(a).back().message == "no job named cf-a");
  f.cat.begin_submit(a, "cf-a", 60, 1);  // and it can be submitted again
  CHECK(f.cat.attempt(a).state == State::submitting);
}

TEST_CASE("a retry is a new attempt; the old one is kept as it was", "[catalog]") {
  Fixture f(2);
  const std::int64_t first = f.queue(f.cases[0], "500");
  CHECK_THROWS_AS(f.cat.new_attempt_for_retry(f.cases[0], "too early"), TransitionError);  // queued
  f.cat.update_state(first, State::timeout, {.reason = "TIMEOUT", .elapsed_s = 3600});

  const std::int64_t second = f.cat.new_attempt_for_retry(f.cases[0], "retry after timeout");
  CHECK(second != first);
  AttemptRow r = f.cat.attempt(second);
  CHECK(r.number == 2);
  CHECK(r.state == State::planned);
  CHECK(r.job_id.empty());
  CHECK(f.cat.attempt(first).state == State::timeout);
  CHECK(f.cat.attempt(first).job_id == "500");
  CHECK_THROWS_AS(f.cat.new_attempt_for_retry(f.cases[0], "twice"), TransitionError);  // #2 is planned

  auto latest = f.cat.latest_attempts(f.campaign);
  REQUIRE(latest.size() == 2);
  CHECK(latest[0].id == second);
  CHECK(latest[1].number == 1);

  // completed and collected cases are never rerun, unless the user asks (resume --again)
  const std::int64_t other = f.queue(f.cases[1], "501");
  f.cat.update_state(other, State::completed);
  CHECK_THROWS_AS(f.cat.new_attempt_for_retry(f.cases[1], "no"), TransitionError);
  f.cat.record_collection(other, {});
  CHECK_THROWS_AS(f.cat.new_attempt_for_retry(f.cases[1], "no"), TransitionError);
  CHECK_THROWS_AS(f.cat.new_attempt_for_retry(424242, "no"), CatalogError);
  const std::int64_t again = f.cat.new_attempt_for_retry(f.cases[1], "campaign resume --again", true);
  CHECK(f.cat.attempt(again).number == 2);
  CHECK(f.cat.attempt(other).state == State::collected);  // the first attempt and its results stay
  CHECK_THROWS_AS(f.cat.new_attempt_for_retry(f.cases[1], "again", true), TransitionError);  // #2 planned
  CHECK(f.cat.check().empty());
}

TEST_CASE("attempts_in returns the attempts in any of the states, oldest first", "[catalog]") {
  Fixture f(4);
  const std::int64_t q0 = f.queue(f.cases[0], "1");
  const std::int64_t q2 = f.queue(f.cases[2], "2");
  f.cat.update_state(q2, State::running);
  const std::int64_t s3 = f.latest(f.cases[3]);
  f.cat.begin_submit(s3, "j3", 60, 1);

  auto active = f.cat.attempts_in(f.campaign, {State::running, State::queued, State::queued});
  REQUIRE(active.size() == 2);
  CHECK(active[0].id == q0);
  CHECK(active[1].id == q2);
  CHECK(active[1].job_id == "2");
  CHECK(active[1].case_key == "k2");
  auto sub = f.cat.attempts_in(f.campaign, {State::submitting});
  REQUIRE(sub.size() == 1);
  CHECK(sub[0].job_name == "j3");
  CHECK(f.cat.attempts_in(f.campaign, {State::planned}).size() == 1);
  CHECK(f.cat.attempts_in(f.campaign, {}).empty());
  CHECK(f.cat.attempts_in(f.campaign + 1, {State::planned}).empty());
}

TEST_CASE("replace_metrics is idempotent and keeps NaN", "[catalog]") {
  Fixture f(2);
  const std::int64_t a = f.queue(f.cases[0], "1");
  f.cat.update_state(a, State::completed);
  const std::vector<Metric> m = {
      {"loss", 0, std::nan(""), ""}, {"epoch_time", 0, 10.0, "s"}, {"total", {}, 42, "s"}};
  f.cat.replace_metrics(a, m);
  f.cat.replace_metrics(a, m);
  auto got = f.cat.metrics_of_attempt(a);
  REQUIRE(got.size() == 3);
  CHECK(std::isnan(got[0].value));
  CHECK(got[0].step == 0);
  CHECK(got[1].unit == "s");
  CHECK_FALSE(got[2].step);
  CHECK(got[2].value == 42);
  CHECK(f.cat.attempt(a).state == State::completed);  // replace_metrics alone does not collect

  f.cat.update_state(a, State::collect_failed, {.reason = "no epoch_time in output.csv"});
  f.cat.record_collection(a, {{"epoch_time", 0, 9.0, "s"}});
  CHECK(f.cat.attempt(a).state == State::collected);
  CHECK(f.cat.attempt(a).reason.empty());
  f.cat.record_collection(a, {{"epoch_time", 0, 9.5, "s"}, {"epoch_time", 1, 9.25, "s"}});  // re-collect
  CHECK(f.cat.attempt(a).state == State::collected);

  auto rows = f.cat.metrics_of(f.campaign);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].value == 9.25);
  CHECK(rows[1].attempt_id == a);
  CHECK(rows[1].attempt_state == State::collected);
  CHECK(rows[1].case_key == "k0");
  CHECK_THROWS_AS(f.cat.replace_metrics(a, {{"", {}, 1, ""}}), CatalogError);
  CHECK(f.cat.metrics_of_attempt(a).size() == 2);
  CHECK(f.cat.check().empty());
}

TEST_CASE("node-hours: consumed by ended and running attempts, what in-flight ones may still add",
          "[catalog]") {
  Fixture f(4);
  CHECK(f.cat.consumed_node_hours(f.campaign) == 0.0);

  const std::int64_t done = f.queue(f.cases[0], "1");  // 2 nodes, 1 h walltime each
  f.cat.update_state(done, State::completed, {.elapsed_s = 1800});
  const std::int64_t no_elapsed = f.queue(f.cases[1], "2");
  f.cat.update_state(no_elapsed, State::failed, {.started = at(f.now), .ended = at(f.now + 900)});
  const std::int64_t running = f.queue(f.cases[2], "3");
  f.cat.update_state(running, State::running, {.started = at(f.now - 1800)});
  f.queue(f.cases[3], "4");  // queued: nothing consumed yet

  // 2 x 0.5 h + 2 x 0.25 h + 2 x 0.5 h
  CHECK(f.cat.consumed_node_hours(f.campaign) == Approx(2.5));
  // queued: 2 x 1 h; running: the 2 x 0.5 h left of its walltime (what it used is consumed)
  CHECK(f.cat.in_flight_node_hours(f.campaign) == Approx(3.0));
  f.now += 1800;
  CHECK(f.cat.consumed_node_hours(f.campaign) == Approx(3.5));
  CHECK(f.cat.in_flight_node_hours(f.campaign) == Approx(2.0));
  f.now += 3600;  // past its walltime, still running: nothing more is reserved for it
  CHECK(f.cat.in_flight_node_hours(f.campaign) == Approx(2.0));
}

TEST_CASE(
    "node-hours: a completion on its marker of a job never seen running stays in flight until "
    "the accounting says what it used",
    "[catalog]") {
  Fixture f(2);
  const std::int64_t quick = f.queue(f.cases[0], "1");  // 2 nodes, 1 h walltime; ended between two polls
  f.cat.update_state(quick, State::completed, {.ended = at(f.now), .confirmed = false});
  const std::int64_t seen = f.queue(f.cases[1], "2");  // seen running for 0.5 h before its marker
  f.cat.update_state(seen, State::running, {.started = at(f.now - 1800)});
  f.cat.update_state(seen, State::completed, {.ended = at(f.now), .confirmed = false});
  CHECK(f.cat.consumed_node_hours(f.campaign) == Approx(1.0));   // the one seen: 2 x 0.5 h
  CHECK(f.cat.in_flight_node_hours(f.campaign) == Approx(2.0));  // the other: 2 x 1 h at most
  f.cat.update_state(quick, State::completed, {.elapsed_s = 900, .confirmed = true});
  CHECK(f.cat.consumed_node_hours(f.campaign) == Approx(1.5));
  CHECK(f.cat.in_flight_node_hours(f.campaign) == 0.0);
}

TEST_CASE("node-hours reported for the progress line never go down as a job's end is seen (issue 33)",
          "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.queue(f.cases[0], "1");  // 2 nodes
  f.cat.update_state(a, State::running, {.started = at(f.now), .elapsed_s = 0});
  std::vector<double> shown{f.cat.reported_node_hours(f.campaign)};
  // Polls while it runs: the scheduler's elapsed time grows.
  f.now += 1800;
  f.cat.update_state(a, State::running, {.elapsed_s = 1800});
  shown.push_back(f.cat.reported_node_hours(f.campaign));
  // The job ends at 1830 s but the next poll comes at 3600 s: counted to now, it would have shown
  // 2 x 1 h, then 2 x 1830 s once its end was seen (what issue 33 saw: 0.04 -> 0.03).
  f.now += 1800;
  CHECK(f.cat.consumed_node_hours(f.campaign) == Approx(2.0));  // the budget's count, up to now
  shown.push_back(f.cat.reported_node_hours(f.campaign));
  f.cat.update_state(a, State::completed, {.ended = at(f.now - 1770), .elapsed_s = 1830});
  shown.push_back(f.cat.reported_node_hours(f.campaign));
  CHECK(shown == std::vector<double>{0.0, 1.0, 1.0, 2 * 1830 / 3600.0});
  CHECK(std::is_sorted(shown.begin(), shown.end()));
  CHECK(f.cat.consumed_node_hours(f.campaign) == Approx(shown.back()));  // one value once it ended
}

TEST_CASE("events: last N oldest first, scope filled in from the attempt", "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.latest(f.cases[0]);
  for (int i = 0; i < 5; ++i) f.cat.add_event("poll", numbered("cycle ", i), {.attempt_id = a});
  auto ev = f.cat.events(f.campaign, 3);
  REQUIRE(ev.size() == 3);
  CHECK(ev[0].message == "cycle 2");
  CHECK(ev[2].message == "cycle 4");
  CHECK(ev[2].scope.case_id == f.cases[0]);
  CHECK(ev[2].scope.campaign_id == f.campaign);
  CHECK(ev[2].time == at(f.now));
  CHECK_THROWS_AS(f.cat.add_event("state", "forged"), CatalogError);
  CHECK_THROWS_AS(f.cat.add_event("", "x"), CatalogError);
  const auto id = f.cat.add_event("signal", "SIGINT");  // no scope: not in a campaign's log
  CHECK(id > ev[2].id);
  CHECK(f.cat.events(f.campaign, 1)[0].message == "cycle 4");
}

TEST_CASE("read-only access sees committed data, writes nothing, takes no lock", "[catalog]") {
  Fixture f(2);
  f.queue(f.cases[0], "9");
  Catalog ro = Catalog::open(f.dir.path(), Access::read_only);  // while the writer is open
  CHECK(ro.access() == Access::read_only);
  auto latest = ro.latest_attempts(f.campaign);
  REQUIRE(latest.size() == 2);
  CHECK(latest[0].state == State::queued);
  CHECK_THROWS_AS(ro.update_state(latest[0].id, State::running), CatalogError);
  CHECK_THROWS_AS(ro.add_event("x", "y"), CatalogError);

  f.cat.update_state(latest[0].id, State::running);
  CHECK(ro.attempt(latest[0].id).state == State::running);

  TempDir empty;
  CHECK_THROWS_AS(Catalog::open(empty.path(), Access::read_only), CatalogError);
  CHECK_FALSE(std::filesystem::exists(empty.path() / "campaign.db"));
}

TEST_CASE("check() reports a state changed behind the catalog's back", "[catalog]") {
  Fixture f(2);
  const std::int64_t a = f.queue(f.cases[0], "1");
  REQUIRE(f.cat.check().empty());
  {
    SQLite::Database raw(Catalog::db_path(f.dir.path()).string(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE attempts SET state = 'running' WHERE id = " + std::to_string(a));
    raw.exec("INSERT INTO attempts (case_id, number, state, updated) VALUES (" + std::to_string(f.cases[0]) +
             ", 3, 'planned', 0)");
  }
  auto problems = f.cat.check();
  REQUIRE(problems.size() == 4);
  CHECK(problems[0] == "attempt " + std::to_string(a) + " is running but is not the latest of its case");
  CHECK(problems[1].find("attempt number 3, expected 2") != std::string::npos);
  CHECK(problems[2] == "attempt " + std::to_string(a) + " is running but its events end at queued");
  CHECK(problems[3].find("has no state events") != std::string::npos);
}

// Their speed is a benchmark's (bench/import_bench, bench/scale_bench.sh), not a test's.
TEST_CASE("10,000 metrics for 100 attempts, one transaction per attempt", "[catalog]") {
  Fixture f(100);
  std::vector<std::int64_t> attempts;
  for (std::int64_t c : f.cases) {
    std::int64_t a = f.queue(c, numbered("j", c));
    f.cat.update_state(a, State::completed);
    attempts.push_back(a);
  }
  std::vector<Metric> metrics;
  for (int i = 0; i < 100; ++i) metrics.push_back({"epoch_time", i, 10.0 + i, "s"});

  for (std::int64_t a : attempts) f.cat.record_collection(a, metrics);
  CHECK(f.cat.metrics_of(f.campaign).size() == 10'000);
  CHECK(f.cat.metrics_of_attempt(attempts.back()).back().value == 109.0);
}

TEST_CASE("1,000 poll updates, one transaction each", "[catalog]") {
  Fixture f(100);
  std::vector<std::int64_t> attempts;
  for (std::int64_t c : f.cases) attempts.push_back(f.queue(c, numbered("j", c)));

  for (int round = 0; round < 9; ++round)
    for (std::int64_t a : attempts)
      f.cat.update_state(a, State::queued, {.reason = numbered("Priority", round)});
  CHECK(f.cat.attempt(attempts[0]).reason == numbered("Priority", 8));
  for (std::int64_t a : attempts) f.cat.update_state(a, State::running, {.started = at(f.now)});
  CHECK(f.cat.attempts_in(f.campaign, {State::running}).size() == 100);
  CHECK(f.cat.attempt(attempts[0]).reason.empty());
}

TEST_CASE("metric steps round-trip: consecutive, from 1, gapped, descending, none", "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.queue(f.cases[0], "1");
  f.cat.update_state(a, State::completed);
  std::vector<Metric> m;
  for (int e = 0; e < 5; ++e) m.push_back({"epoch_time", e, 10.0 + e, "s"});  // 0..4: stored as 0
  for (int e = 1; e <= 3; ++e) m.push_back({"loss", e, 1.0 / e, ""});         // 1..3: stored as 1
  for (int e : {0, 2, 4, 10}) m.push_back({"eval", e, e * 0.5, ""});          // a blob
  for (int e : {3, 2, 1}) m.push_back({"down", e, e * 1.0, ""});              // a blob
  m.push_back({"one", 7, 7.5, ""});                                           // a single step
  m.push_back({"total", {}, 42, "s"});                                        // no step
  f.cat.replace_metrics(a, m);
  auto got = f.cat.metrics_of_attempt(a);
  REQUIRE(got.size() == m.size());
  for (size_t i = 0; i < m.size(); ++i) {
    CHECK(got[i].name == m[i].name);
    CHECK(got[i].step == m[i].step);
    CHECK(got[i].value == m[i].value);
  }
  auto series = f.cat.metric_series_of(f.campaign, {"loss", "eval"});
  REQUIRE(series.size() == 2);
  CHECK(series[0].name == "loss");
  CHECK(series[0].steps == std::vector<std::optional<std::int64_t>>{1, 2, 3});
  CHECK(series[1].steps == std::vector<std::optional<std::int64_t>>{0, 2, 4, 10});
  CHECK(f.cat.metric_series_of(f.campaign).size() == 6);
}

TEST_CASE("metrics of a case with instances keep their instance; the others have none", "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.queue(f.cases[0], "1");
  f.cat.update_state(a, State::completed);
  std::vector<Metric> m;
  for (std::int64_t i = 0; i < 3; ++i) {
    m.push_back({"run_time", {}, 100.0 + static_cast<double>(i), "s", i});
    for (int e = 0; e < 2; ++e) m.push_back({"epoch_time", e, 10.0 * static_cast<double>(i) + e, "s", i});
  }
  m.push_back({"total", {}, 42, "s"});
  f.cat.record_collection(a, m);
  auto got = f.cat.metrics_of_attempt(a);
  REQUIRE(got.size() == m.size());
  for (auto& g : got)
    if (g.name == "run_time") CHECK(g.value == 100.0 + static_cast<double>(*g.instance));
  auto series = f.cat.metric_series_of(f.campaign, {"run_time", "epoch_time", "total"});
  REQUIRE(series.size() == 7);  // per instance: run_time, epoch_time; and total
  int with_instance = 0;
  for (auto& s : series) {
    if (s.name == "total") CHECK_FALSE(s.instance);
    if (s.name == "epoch_time" && s.instance == 2) CHECK(s.values == std::vector<double>{20.0, 21.0});
    with_instance += s.instance.has_value();
  }
  CHECK(with_instance == 6);
}

TEST_CASE("metric_series_of: a template stands for every series it matches", "[catalog]") {
  Fixture f(1);
  const std::int64_t a = f.queue(f.cases[0], "1");
  f.cat.update_state(a, State::completed);
  std::vector<Metric> m;
  for (const char* n :
       {"utilization:nid1:gpu0", "utilization:nid1:gpu1", "utilization:nid1:cpu", "u[*]:x", "utilization:"})
    m.push_back({n, 1764075600123, 50, "%"});
  f.cat.record_collection(a, m);
  auto names = [&](std::set<std::string> want) {
    std::vector<std::string> out;
    for (auto& s : f.cat.metric_series_of(f.campaign, want)) out.push_back(s.name);
    return out;
  };
  CHECK(names({"utilization:{node}:gpu{i}"}) ==
        std::vector<std::string>{"utilization:nid1:gpu0", "utilization:nid1:gpu1"});
  CHECK(names({"utilization:{node}:{device}", "u[*]:x"}).size() == 4);  // GLOB's own [*] is literal here
  CHECK(names({"u[{k}]:x"}) == std::vector<std::string>{"u[*]:x"});
  CHECK(names({"utilization:{node}"}).size() == 3);  // {..} takes at least one character
  auto s = f.cat.metric_series_of(f.campaign, {"utilization:{n}:cpu"});
  REQUIRE(s.size() == 1);
  CHECK(s[0].steps == std::vector<std::optional<std::int64_t>>{1764075600123});
}

TEST_CASE("a packed attempt whose allocation ended before it started returns to the plan, unspent",
          "[catalog]") {
  Fixture f(2);
  std::int64_t packed = f.latest(f.cases[0]), alone = f.latest(f.cases[1]);
  f.cat.begin_submit(packed, "alloc-1", 600, 1, "alloc-1-a");
  f.cat.begin_submit(alone, "job-2", 600, 1);
  f.cat.record_job_id(packed, "77");
  f.cat.record_job_id(alone, "78");
  auto a = f.cat.attempt(packed);
  CHECK(a.step_name == "alloc-1-a");
  CHECK(a.job_name == "alloc-1");
  CHECK_THROWS_AS(f.cat.return_to_plan(alone, "x"), TransitionError);  // its own job
  f.cat.return_to_plan(packed, "the allocation ended before its step started");
  a = f.cat.attempt(packed);
  CHECK(a.state == State::planned);
  CHECK(a.number == 1);  // the same attempt: none spent
  CHECK(a.job_id.empty());
  CHECK(a.step_name.empty());
  CHECK(state_events(f.cat, packed).back() == State::planned);
  CHECK_THROWS_AS(f.cat.return_to_plan(packed, "again"), TransitionError);  // planned now
}

TEST_CASE("the tasks of a job array begin their submission together, each with its task", "[catalog]") {
  Fixture f(3);
  std::vector<Catalog::SubmitStart> starts;
  for (long k = 0; k < 3; ++k)
    starts.push_back({f.latest(f.cases[static_cast<size_t>(k)]), "cmpx-arr1", 600, 1, "", k});
  f.cat.begin_submit(starts);
  for (long k = 0; k < 3; ++k) {
    auto a = f.cat.attempt(starts[static_cast<size_t>(k)].attempt);
    CHECK(a.state == State::submitting);
    CHECK(a.job_name == "cmpx-arr1");
    CHECK(a.array_task == k);
    CHECK(a.step_name.empty());
  }
  f.cat.record_job_id(starts[1].attempt, "90_1");
  CHECK(f.cat.attempt(starts[1].attempt).job_id == "90_1");
  // All or none: one attempt that is not planned refuses the whole batch.
  Fixture g(2);
  std::int64_t a = g.latest(g.cases[0]), b = g.latest(g.cases[1]);
  g.cat.begin_submit(b, "job-b", 600, 1);
  CHECK_THROWS_AS(g.cat.begin_submit({{a, "arr", 600, 1, "", 0}, {b, "arr", 600, 1, "", 1}}),
                  TransitionError);
  CHECK(g.cat.attempt(a).state == State::planned);
  CHECK_FALSE(g.cat.attempt(a).array_task);
}

TEST_CASE("an in-memory catalog is shared by its name in the process; a failed transaction leaves nothing") {
  Catalog cat = Catalog::open_in_memory("catalog-test-memory");
  const auto campaign = cat.upsert_campaign(make_campaign());
  const auto ids = cat.sync_cases(campaign, {make_case("a", 1), make_case("b", 2)}).ids;
  const auto a = cat.attempts_of_case(ids[0]).back().id;
  // All or none: the second start names an attempt that does not exist, after the first was written.
  CHECK_THROWS(cat.begin_submit(
      {{a, "job-a", 60, 1, "", std::nullopt}, {a + 1000, "job-x", 60, 1, "", std::nullopt}}));
  CHECK(cat.attempt(a).state == State::planned);
  CHECK(cat.events_of_attempt(a).size() == 1);  // its creation only
  cat.begin_submit(a, "job-a", 60, 1);          // nothing was left open: the next transaction begins
  SQLite::Database other(Catalog::memory_uri("catalog-test-memory"),
                         SQLite::OPEN_READONLY | SQLite::OPEN_URI);
  SQLite::Statement q(other, "SELECT state FROM attempts WHERE id = ?");
  q.bind(1, a);
  REQUIRE(q.executeStep());
  CHECK(q.getColumn(0).getString() == "submitting");
}

TEST_CASE("an attempt's accounted energy: stored with its job's end, kept by later updates that lack it",
          "[catalog][energy]") {
  Fixture f(2);
  const std::int64_t a = f.queue(f.cases[0], "1");
  f.cat.update_state(a, State::completed, {.elapsed_s = 60, .energy_j = 1234.5});
  f.cat.update_state(a, State::completed, {.confirmed = true});
  const std::int64_t b = f.queue(f.cases[1], "2");
  f.cat.update_state(b, State::failed, {.exit_code = 1});
  std::map<std::int64_t, AttemptRow> rows;
  for (auto& r : f.cat.latest_attempts(f.campaign)) rows[r.id] = r;
  CHECK(rows.at(a).energy_j == 1234.5);
  CHECK_FALSE(rows.at(b).energy_j);                          // none recorded: NULL, not 0
  f.cat.update_state(b, State::failed, {.energy_j = 10.0});  // learnt later (Engine::record_energy)
  for (auto& r : f.cat.latest_attempts(f.campaign))
    if (r.id == b) CHECK(r.energy_j == 10.0);
}

TEST_CASE("import_runs stores grouped series as record_collection stores the same metrics", "[catalog]") {
  Fixture f(3);
  // Interleaved: a series continued after another, a step that goes back, whole-run values, units,
  // instances.
  std::vector<Metric> m;
  for (int e = 0; e < 3; ++e) m.push_back({"epoch_time", e, 10.0 + e, "s"});
  m.push_back({"loss", 0, 0.5, ""});
  m.push_back({"epoch_time", 3, 13.0, "s"});
  m.push_back({"epoch_time", 1, 99.0, "ms"});  // another unit: another series
  m.push_back({"loss", 5, 0.25, ""});
  m.push_back({"total", {}, 42, "s"});
  m.push_back({"total", {}, std::nan(""), "s"});
  for (std::int64_t i = 0; i < 2; ++i) m.push_back({"run_time", {}, 100.0 + static_cast<double>(i), "s", i});
  std::vector<MetricSeries> series;
  SeriesBuilder group(series);
  for (const Metric& x : m) group.add(x.name, x.unit, x.step, x.value, x.instance);
  REQUIRE(series.size() == 6);
  CHECK(series[0].steps == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(series[1].name == "loss");
  CHECK(series[2].unit == "ms");
  CHECK_FALSE(series[3].stepped);
  CHECK(value_count(series) == m.size());

  const std::int64_t imported = f.latest(f.cases[0]), failed = f.latest(f.cases[1]);
  const std::int64_t collected = f.queue(f.cases[2], "9");
  f.cat.update_state(collected, State::completed);
  f.cat.record_collection(collected, m);
  f.cat.import_runs({{imported, "/runs/a", series, ""}, {failed, "/runs/b", {}, "history.csv:3: bad"}});

  CHECK(state_events(f.cat, imported) ==
        std::vector<State>{State::planned, State::submitting, State::completed, State::collected});
  CHECK(f.cat.events_of_attempt(imported).back().message == std::to_string(m.size()) + " metrics");
  const AttemptRow a = f.cat.attempt(imported);
  CHECK(a.state == State::collected);
  CHECK(a.job_name == "import");
  CHECK(a.job_id == "/runs/a");
  CHECK(a.submitted);
  const AttemptRow b = f.cat.attempt(failed);
  CHECK(b.state == State::collect_failed);
  CHECK(b.reason == "history.csv:3: bad");
  CHECK(state_events(f.cat, failed) ==
        std::vector<State>{State::planned, State::submitting, State::completed, State::collect_failed});

  auto mine = f.cat.metrics_of_attempt(imported), theirs = f.cat.metrics_of_attempt(collected);
  REQUIRE(mine.size() == m.size());
  REQUIRE(theirs.size() == m.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    CHECK(mine[i].name == theirs[i].name);
    CHECK(mine[i].unit == theirs[i].unit);
    CHECK(mine[i].step == theirs[i].step);
    CHECK(mine[i].instance == theirs[i].instance);
    CHECK(std::memcmp(&mine[i].value, &theirs[i].value, sizeof(double)) == 0);
  }
  CHECK(f.cat.check().empty());

  // Only a planned attempt is imported; nothing of the batch is written then.
  CHECK_THROWS_AS(f.cat.import_runs({{imported, "/runs/a", series, ""}}), TransitionError);
  CHECK(f.cat.metrics_of_attempt(imported).size() == m.size());
}

// Every row of `table` (rowid order) as text, each value with its SQLite type.
std::vector<std::string> raw_rows(const std::filesystem::path& workdir, const std::string& table) {
  SQLite::Database raw(Catalog::db_path(workdir).string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(raw, "SELECT * FROM " + table + " ORDER BY rowid");
  std::vector<std::string> out;
  while (q.executeStep()) {
    std::string row;
    for (int i = 0; i < q.getColumnCount(); ++i) {
      const SQLite::Column c = q.getColumn(i);
      row += std::to_string(c.getType()) + ":" +
             std::string(static_cast<const char*>(c.getBlob()), static_cast<size_t>(c.getBytes())) + "|";
    }
    out.push_back(row);
  }
  return out;
}

TEST_CASE("import_runs stores what its statements one at a time stored", "[catalog]") {
  // import_runs writes an attempt's job with its state (one UPDATE), its three moves' events in one
  // INSERT and its series eight to an INSERT: the rows, values and types must be those of one
  // statement for each (as it did before), written here by hand into a twin catalog.
  std::vector<MetricSeries> series;
  SeriesBuilder group(series);
  for (int k = 0; k < 11; ++k)  // more series than one INSERT takes
    for (int e = 0; e < 4; ++e) group.add(numbered("m", k), k % 2 ? "s" : "", e + k, 0.5 * e + k);
  group.add("gaps", "s", 1, 1.0);
  group.add("gaps", "s", 5, 2.0);  // steps not consecutive: a blob of steps
  group.add("total", "J", std::nullopt, 42.0);
  group.add("run_time", "s", std::nullopt, 7.0, 1);
  REQUIRE(series.size() == 14);

  Fixture ours(3), ref(3);
  auto imported = [](Fixture& f) { return std::vector{f.latest(f.cases[0]), f.latest(f.cases[2])}; };
  const auto a = imported(ours), b = imported(ref);
  REQUIRE(a == b);
  ours.cat.import_runs({{a[0], "/runs/a", series, ""}, {a[1], "/runs/c", {}, "history.csv:3: bad"}});
  {
    SQLite::Database raw(Catalog::db_path(ref.dir.path()).string(), SQLite::OPEN_READWRITE);
    SQLite::Transaction tx(raw);
    const std::int64_t now = ref.now;
    auto move = [&](std::int64_t attempt, const char* from, const char* to, const std::string& message) {
      SQLite::Statement q(raw,
                          "INSERT INTO events (time, campaign_id, case_id, attempt_id, kind, from_state, "
                          "to_state, message) SELECT ?, c.campaign_id, a.case_id, a.id, 'state', ?, ?, ? "
                          "FROM attempts a JOIN cases c ON c.id = a.case_id WHERE a.id = ?");
      q.bind(1, now);
      q.bind(2, from);
      q.bind(3, to);
      q.bind(4, message);
      q.bind(5, attempt);
      q.exec();
    };
    auto start = [&](std::int64_t attempt, const std::string& origin) {
      SQLite::Statement q(raw,
                          "UPDATE attempts SET job_name = 'import', job_id = ?, submitted = ? WHERE id = ?");
      q.bind(1, origin);
      q.bind(2, now);
      q.bind(3, attempt);
      q.exec();
    };
    start(b[0], "/runs/a");
    SQLite::Statement done(raw, "UPDATE attempts SET state = 'collected', updated = ? WHERE id = ?");
    done.bind(1, now);
    done.bind(2, b[0]);
    done.exec();
    move(b[0], "planned", "submitting", "imported from /runs/a");
    move(b[0], "submitting", "completed", "a run done outside campaign");
    move(b[0], "completed", "collected", std::to_string(value_count(series)) + " metrics");
    for (const MetricSeries& g : series) {
      SQLite::Statement q(raw,
                          "INSERT INTO metric_series (attempt_id, name, unit, steps, vals, instance) "
                          "VALUES (?, ?, ?, ?, ?, ?)");
      q.bind(1, b[0]);
      q.bind(2, g.name);
      q.bind(3, g.unit);
      if (!g.stepped)
        q.bind(4);
      else if (g.name == "gaps")
        q.bind(4, g.steps.data(), static_cast<int>(g.steps.size() * sizeof(std::int64_t)));
      else
        q.bind(4, g.steps.front());
      q.bind(5, g.vals.data(), static_cast<int>(g.vals.size() * sizeof(double)));
      if (g.instance)
        q.bind(6, *g.instance);
      else
        q.bind(6);
      q.exec();
    }
    start(b[1], "/runs/c");
    SQLite::Statement failed(raw,
                             "UPDATE attempts SET state = 'collect_failed', reason = 'history.csv:3: bad', "
                             "cause = '', updated = ? WHERE id = ?");
    failed.bind(1, now);
    failed.bind(2, b[1]);
    failed.exec();
    move(b[1], "planned", "submitting", "imported from /runs/c");
    move(b[1], "submitting", "completed", "a run done outside campaign");
    move(b[1], "completed", "collect_failed", "history.csv:3: bad");
    tx.commit();
  }
  for (const char* table : {"attempts", "events", "metric_series", "metrics"}) {
    INFO(table);
    CHECK(raw_rows(ours.dir.path(), table) == raw_rows(ref.dir.path(), table));
  }
  CHECK(raw_rows(ours.dir.path(), "metric_series").size() == 14);
  CHECK(ours.cat.check().empty());
}

TEST_CASE("import_runs replaces an attempt's rows of the per-value table too", "[catalog]") {
  // A catalog from before schema 3 may hold metrics one per row: import_runs deletes an attempt's
  // as before (it skips the DELETE only when that table is empty).
  Fixture f(2);
  const std::int64_t a = f.latest(f.cases[0]), other = f.latest(f.cases[1]);
  {
    SQLite::Database raw(Catalog::db_path(f.dir.path()).string(), SQLite::OPEN_READWRITE);
    for (std::int64_t id : {a, other})
      raw.exec("INSERT INTO metrics (attempt_id, name, step, value, unit) VALUES (" + std::to_string(id) +
               ", 'old', 1, 2.0, 's')");
  }
  f.cat.import_runs({{a, "/runs/a", {MetricSeries{"new", "s", std::nullopt, true, {0}, {1.0}}}, ""}});
  const auto mine = f.cat.metrics_of_attempt(a);
  REQUIRE(mine.size() == 1);
  CHECK(mine[0].name == "new");
  CHECK(f.cat.metrics_of_attempt(other).size() == 1);  // another attempt's stay
  CHECK(raw_rows(f.dir.path(), "metrics").size() == 1);
}

TEST_CASE("bulk writes: the catalog reads the same during and after them", "[catalog]") {
  Fixture f(2);
  const std::int64_t a = f.queue(f.cases[0], "1");
  f.cat.update_state(a, State::completed);
  {
    Catalog::BulkWrites bulk(f.cat);
    std::vector<Metric> m;
    for (int e = 0; e < 2000; ++e) m.push_back({"epoch_time", e, 1.0 + e, "s"});
    f.cat.record_collection(a, m);
    CHECK(f.cat.metrics_of_attempt(a).size() == 2000);
    Catalog reader = Catalog::open(f.dir.path(), Access::read_only);
    CHECK(reader.metrics_of_attempt(a).size() == 2000);
  }
  f.cat.update_state(f.queue(f.cases[1], "2"), State::running);
  CHECK(f.cat.metrics_of_attempt(a).size() == 2000);
  CHECK(f.cat.check().empty());
  Catalog reader = Catalog::open(f.dir.path(), Access::read_only);
  CHECK(reader.attempt(a).state == State::collected);
}
