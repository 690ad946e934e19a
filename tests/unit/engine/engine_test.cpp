// The engine's decisions against a scripted scheduler: queue limits that count the user's other
// jobs, the node-hour budget, afterok dependencies, pending reasons, scheduler outages. The real
// schedulers are exercised by the integration tests (tests/integration); here every job moves only
// when the test says so, so each decision can be checked exactly.
#include "engine/engine.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "../temp_dir.hpp"
#include "catalog/write_fault.hpp"
#include "pack/driver.hpp"
#include "pack/manifest.hpp"
#include "spec/library.hpp"
#include "transport/local_shell.hpp"

using namespace campaign;
namespace fs = std::filesystem;

namespace {

struct TempDir : campaign_test::TempDir {
  TempDir() : campaign_test::TempDir("engine") {}
};

// Jobs stay where the test puts them. `others` are the user's jobs outside the campaign.
class FakeScheduler final : public sched::Scheduler {
 public:
  struct Job {
    sched::SubmitRequest request;
    sched::JobInfo info;
  };
  std::map<std::string, Job> jobs;  // by id
  std::vector<std::string> order;   // ids in submission order
  std::vector<std::string> cancelled;
  int others = 0;
  bool down = false;  // every call throws SchedulerUnavailable
  int refuse = 0;     // the next submissions refused by a limit
  // The next submissions land, then their caller's connection is lost: the submit throws transient.
  int land_then_lose = 0;
  int twice = 0;  // the next submissions make two jobs of one name (a submission answered twice)
  int lose = 0;   // the next submissions' connection is lost before they reach the scheduler
  int queries = 0;
  // Runs at the next query, before it answers: what happened between the markers' read and the poll.
  std::function<void()> before_query;
  // When set, each submitted job writes its exit marker (0) this long after its submission, from
  // another thread, the way job scripts do (.exit.tmp renamed to .exit).
  std::optional<std::chrono::milliseconds> marker_after;
  std::vector<std::thread> writers;
  ~FakeScheduler() {
    for (auto& t : writers) t.join();
  }

  bool here = false;  // runs_jobs_here: its markers are written through this machine's kernel
  bool runs_jobs_here() const override { return here; }
  std::string name() const override { return "fake"; }
  std::string submit(const sched::SubmitRequest& r) override {
    if (down) throw sched::SubmitError(sched::SubmitFailure::transient, "controller down");
    if (lose > 0 && lose--) throw sched::SubmitError(sched::SubmitFailure::transient, "connection lost");
    if (refuse > 0 && refuse--)
      throw sched::SubmitError(sched::SubmitFailure::refused_by_limit, "QOSMaxSubmitJobPerUserLimit");
    std::string id = std::to_string(100 + order.size());
    Job j{r, {}};
    j.info.id = id;
    j.info.name = r.job_name;
    j.info.state = State::queued;
    jobs[id] = j;
    order.push_back(id);
    if (twice > 0 && twice--) {
      std::string again = std::to_string(100 + order.size());
      j.info.id = again;
      jobs[again] = j;
      order.push_back(again);
    }
    if (land_then_lose > 0 && land_then_lose--)
      throw sched::SubmitError(sched::SubmitFailure::transient, "connection lost while running sbatch");
    if (marker_after)
      writers.emplace_back([dir = fs::path(r.workdir), after = *marker_after] {
        std::this_thread::sleep_for(after);
        std::ofstream(dir / ".exit.tmp") << "0\n";
        fs::rename(dir / ".exit.tmp", dir / render::kExitMarker);
      });
    return id;
  }
  std::vector<sched::JobInfo> query(const std::vector<std::string>& ids) override {
    if (down) throw sched::SchedulerUnavailable("controller down");
    ++queries;
    if (before_query) std::exchange(before_query, nullptr)();
    std::vector<sched::JobInfo> out;
    for (auto& id : ids)
      if (auto it = jobs.find(id); it != jobs.end()) {
        // A job that wrote its marker has ended for the scheduler too.
        if (marker_after && fs::exists(fs::path(it->second.request.workdir) / render::kExitMarker))
          it->second.info.state = State::completed;
        out.push_back(it->second.info);
      }
    return out;
  }
  std::vector<sched::JobInfo> find_by_name(const std::vector<std::string>& names) override {
    if (down) throw sched::SchedulerUnavailable("controller down");
    std::vector<sched::JobInfo> out;
    for (auto& [_, j] : jobs)
      if (std::find(names.begin(), names.end(), j.info.name) != names.end()) out.push_back(j.info);
    return out;
  }
  int queued_jobs_of_user() override {
    if (down) throw sched::SchedulerUnavailable("controller down");
    int n = others;
    for (auto& [_, j] : jobs) n += is_active(j.info.state) ? 1 : 0;
    return n;
  }
  void cancel(const std::vector<std::string>& ids) override {
    for (auto& id : ids) {
      cancelled.push_back(id);
      if (auto it = jobs.find(id); it != jobs.end()) it->second.info.state = State::cancelled;  // else a step
    }
  }
  // The running steps of allocations (running_steps); nullopt: steps cannot be cancelled alone.
  std::optional<std::vector<sched::StepInfo>> steps;
  std::optional<std::vector<sched::StepInfo>> running_steps(const std::vector<std::string>&) override {
    return steps;
  }

  // What consumed_energy answers (the accounting's energy of ended jobs), and what it was asked.
  std::map<std::string, double> energy;
  std::vector<std::vector<std::string>> energy_asked;
  std::map<std::string, double> consumed_energy(const std::vector<std::string>& ids) override {
    energy_asked.push_back(ids);
    std::map<std::string, double> out;
    for (auto& id : ids)
      if (auto it = energy.find(id); it != energy.end()) out[id] = it->second;
    return out;
  }

  size_t active() const {
    size_t n = 0;
    for (auto& [_, j] : jobs) n += is_active(j.info.state) ? 1 : 0;
    return n;
  }
  // The job ran `elapsed_s` and ended with `status`: its marker and the scheduler's record.
  void finish(const std::string& id, int status = 0, long elapsed_s = 60) {
    write_marker(id, status);
    Job& j = jobs.at(id);
    j.info.state = status == 0 ? State::completed : State::failed;
    j.info.exit_code = status;
    j.info.elapsed_s = static_cast<double>(elapsed_s);
  }
  // Only the marker: the scheduler has not seen the job end (yet), or will say something else.
  void write_marker(const std::string& id, int status = 0) {
    std::ofstream(fs::path(jobs.at(id).request.workdir) / render::kExitMarker) << status << "\n";
  }
  std::string id_of(const std::string& case_name) const {
    for (auto& id : order)
      if (fs::path(jobs.at(id).request.workdir).filename() == case_name) return id;
    return "";
  }
};

struct Setup {
  TempDir dir;
  matrix::Plan plan;
  Catalog catalog;
  FakeScheduler sched;
  transport::LocalShell shell;
  std::vector<std::string> collected;  // cases handed to collection (on_completed), in order
  // The engine's clock: moves only when a test says so.
  engine::Clock::time_point steady{};
  Time wall{std::chrono::seconds(1'800'000'000)};
  std::chrono::seconds submit_takes{0};  // how long each submission takes on the engine's clock
  engine::Engine engine;

  Setup(const std::string& yaml, long max_queued, int others = 0)
      : plan(make_plan(yaml, max_queued, dir.path)),
        catalog(Catalog::open(dir.path)),
        engine(plan, dir.path, catalog, (sched.others = others, sched), shell, options(*this)) {
    engine.start();
  }
  // While other jobs run, completions on their markers are asked about at every 3rd poll.
  void polls(int n) {
    for (int i = 0; i < n; ++i) engine.tick(true);
  }
  void advance(std::chrono::seconds s) {
    steady += s;
    wall += s;
  }
  static matrix::Plan make_plan(const std::string& yaml, long max_queued, const fs::path& workdir) {
    auto c = spec::parse_campaign(yaml, (workdir / "c.yaml").string());
    auto s =
        spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "testcluster", ".yaml"));
    s.limits.max_queued_jobs = max_queued;
    return matrix::expand(spec::for_system(c, s.name), s, workdir.string());
  }
  static engine::EngineOptions options(Setup& s) {
    engine::EngineOptions o;
    o.on_completed = [&s](const AttemptRow& a) {
      s.collected.push_back(a.case_name);
      return false;  // nothing written
    };
    o.steady_now = [&s] { return s.steady; };
    o.wall_now = [&s] { return s.wall; };
    o.hook = [&s](const std::string& point) {
      if (point == "after_submit") s.advance(s.submit_takes);
    };
    return o;
  }
  State state_of(const std::string& case_name) {
    for (auto& a : catalog.latest_attempts(engine.campaign_id()))
      if (a.case_name == case_name) return a.state;
    FAIL("no case " << case_name);
    return State::planned;
  }
  AttemptRow attempt_of(const std::string& case_name) {
    for (auto& a : catalog.latest_attempts(engine.campaign_id()))
      if (a.case_name == case_name) return a;
    FAIL("no case " << case_name);
    return {};
  }
};

const char* kSix = R"(name: six
matrix:
  n: [1, 2, 3, 4, 5, 6]
case_name: c{{n}}
job: {partition: mc, nodes: 1, walltime: "01:00:00", command: "true"}
)";

// Three one-core cases packed into one allocation of a node.
const char* kPacked = R"(name: packed
matrix:
  n: [1, 2, 3]
case_name: p{{n}}
job: {partition: mc, ranks: 1, cpus_per_rank: 1, walltime: "00:10:00", command: "true"}
pack: {nodes: 1, walltime: "01:00:00"}
)";

// A staging step the two training cases depend on.
const char* kDeps = R"(name: deps
matrix:
  n: [1, 2]
case_name: train-{{n}}
job: {partition: mc, nodes: 1, walltime: "00:10:00", command: "true"}
steps:
  prepare: {matrix: {}, case_name: prepare, job: {command: "true"}}
  train: {after: [prepare]}
)";

}  // namespace

TEST_CASE("the queue limit counts the user's jobs outside the campaign") {
  Setup s(kSix, 5, 3);  // 3 of the user's 5 places are taken by other work
  s.engine.tick(true);
  CHECK(s.sched.jobs.size() == 2);
  s.engine.tick(true);
  CHECK(s.sched.jobs.size() == 2);  // still full
  s.sched.finish(s.sched.order[0]);
  s.engine.tick(true);
  CHECK(s.state_of("c1") == State::completed);
  CHECK(s.sched.jobs.size() == 3);  // one place freed, one more job
  CHECK(s.sched.active() == 2);
}

TEST_CASE("the budget stops new submissions once consumed plus in flight would pass it") {
  // 1 node x 1 h per case, budget 2.5 node-hours: two in flight at once, at most.
  Setup s(std::string(kSix) + "budget: 2.5\n", 100);
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 2);
  // Each ran 30 min: 1 node-hour consumed, so one more (1 h requested) fits, a second would not.
  s.sched.finish(s.sched.order[0], 0, 1800);
  s.sched.finish(s.sched.order[1], 0, 1800);
  s.engine.tick(true);
  s.engine.tick(true);
  CHECK(s.sched.jobs.size() == 3);
  CHECK(s.state_of("c4") == State::planned);
  // It ran 1 h: 2 consumed; nothing more fits.
  s.sched.finish(s.sched.order[2], 0, 3600);
  s.engine.tick(true);
  s.engine.tick(true);
  CHECK(s.sched.jobs.size() == 3);
  CHECK(s.catalog.consumed_node_hours(s.engine.campaign_id()) == Approx(2.0));
  CHECK_FALSE(s.engine.finished());  // the rest stays planned, not failed
}

TEST_CASE("a dependent step is submitted with afterok on its dependency's job") {
  Setup s(kDeps, 100);
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 3);
  const std::string prep = s.sched.id_of("prepare");
  REQUIRE(!prep.empty());
  for (const char* c : {"train-1", "train-2"}) {
    auto& req = s.sched.jobs.at(s.sched.id_of(c)).request;
    CHECK(req.depends_on == std::vector<std::string>{prep});
  }
  CHECK(s.sched.jobs.at(prep).request.depends_on.empty());
}

TEST_CASE("a failed dependency cancels the waiting cases; they are not submitted") {
  Setup s(kDeps,
          1);  // one job at a time: the training cases wait unsubmitted behind prepare
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 1);
  s.sched.finish(s.sched.order[0], 2);
  s.engine.tick(true);  // the marker says 2; the scheduler says failed
  s.engine.tick(true);
  CHECK(s.state_of("prepare") == State::failed);
  CHECK(s.state_of("train-1") == State::cancelled);
  CHECK(s.state_of("train-2") == State::cancelled);
  CHECK(s.sched.jobs.size() == 1);
  CHECK(s.attempt_of("train-1").reason.find("prepare ended failed") != std::string::npos);
  CHECK(s.engine.finished());
}

TEST_CASE("a job pending on ReqNodeNotAvail keeps its place and its reason") {
  Setup s(kSix, 1);
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 1);
  s.sched.jobs.begin()->second.info.reason = "ReqNodeNotAvail, UnavailableNodes:cn2";
  s.engine.tick(true);
  CHECK(s.sched.cancelled.empty());
  CHECK(s.state_of("c1") == State::queued);
  CHECK(s.attempt_of("c1").reason == "ReqNodeNotAvail, UnavailableNodes:cn2");
}

TEST_CASE("a job whose dependency can never be satisfied is cancelled, with the scheduler's reason") {
  Setup s(kDeps, 100);
  s.engine.tick(true);
  const std::string train = s.sched.id_of("train-1");
  s.sched.jobs.at(train).info.reason = "DependencyNeverSatisfied";
  s.sched.jobs.at(train).info.waiting = sched::Waiting::dependency_failed;
  s.engine.tick(true);
  auto attempts = s.catalog.attempts_of_case(s.attempt_of("train-1").case_id);
  CHECK(attempts.at(0).state == State::cancelled);
  CHECK(attempts.at(0).reason == "dependency failed: DependencyNeverSatisfied");
  CHECK(s.sched.cancelled == std::vector<std::string>{train});
  CHECK(attempts.size() == 2);  // prepare may still succeed: the case gets another attempt
  CHECK(s.state_of("train-2") == State::queued);
}

TEST_CASE("a scheduler outage changes no state and submits nothing; polling resumes after it") {
  Setup s(kSix, 2);
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 2);
  s.sched.down = true;
  s.sched.jobs.at(s.sched.order[0]).info.state = State::running;
  for (int i = 0; i < 5; ++i) s.engine.tick(true);
  CHECK(s.state_of("c1") == State::queued);
  CHECK(s.state_of("c2") == State::queued);
  CHECK(s.state_of("c3") == State::planned);
  CHECK_FALSE(s.engine.scheduler_problem().empty());
  s.sched.down = false;
  s.sched.finish(s.sched.order[1]);
  s.engine.tick(true);
  CHECK(s.state_of("c1") == State::running);
  CHECK(s.state_of("c2") == State::completed);
  CHECK(s.engine.scheduler_problem().empty());
  CHECK(s.sched.jobs.size() == 3);  // c2's place went to c3
}

TEST_CASE("a job the scheduler forgot without a marker is lost after lost_after_s, then retried") {
  Setup s(std::string(kSix) + "retry: {max_attempts: 2, on: [lost]}\n", 1);
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 1);
  s.sched.jobs.clear();  // purged from the scheduler's memory, no marker written
  s.polls(10);
  s.advance(std::chrono::seconds(119));
  s.polls(2);
  CHECK(s.attempt_of("c1").state == State::queued);  // not yet: the accounting may lag, however often asked
  s.advance(std::chrono::seconds(1));
  s.engine.tick(true);
  auto a = s.attempt_of("c1");
  CHECK(a.number == 2);  // lost after 120 s, and the policy retries lost attempts
  CHECK(a.state == State::queued);
}

TEST_CASE("after a kill, a new engine remembers what the killed one committed: a job missing since when") {
  Setup s(std::string(kSix) + "retry: {max_attempts: 2, on: [lost]}\n", 1);
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 1);
  s.sched.jobs.clear();  // purged, no marker
  s.engine.tick(true);   // missing since now
  REQUIRE(s.engine.memory().missing.size() == 1);
  s.advance(std::chrono::seconds(100));
  // kill -9 of the first engine: a second one starts on the same catalog.
  engine::Engine again(s.plan, s.dir.path, s.catalog, s.sched, s.shell, Setup::options(s));
  again.start();
  CHECK(engine::memory_difference(again.memory(), s.engine.memory()) == "");
  s.advance(std::chrono::seconds(20));
  again.tick(true);
  // Lost 120 s after it went missing, not 120 s after the restart.
  CHECK(s.attempt_of("c1").number == 2);
}

TEST_CASE("run() notices an exit marker the moment it appears, not at the next read") {
  // Markers are read once an hour and the scheduler asked once an hour: only the watch on the run
  // directories can end this run. Were it missing, the watchdog's SIGTERM would (exit 130).
  TempDir dir;
  auto c = spec::parse_campaign(std::string(kSix), (dir.path / "c.yaml").string());
  auto sys =
      spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "testcluster", ".yaml"));
  sys.limits.poll_min_s = sys.limits.poll_max_s = 3600;
  auto plan = matrix::expand(spec::for_system(c, sys.name), sys, dir.path.string());
  Catalog catalog = Catalog::open(dir.path);
  FakeScheduler sched;
  sched.marker_after = std::chrono::milliseconds(100);
  sched.here = true;  // the jobs run on this machine: only then are their directories watched
  transport::LocalShell shell;
  engine::EngineOptions o;
  o.marker_interval_s = 3600;
  engine::Engine engine(plan, dir.path, catalog, sched, shell, o);
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    for (int i = 0; i < 300 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!done) ::kill(::getpid(), SIGTERM);
  });
  int rc = engine.run();
  done = true;
  watchdog.join();
  CHECK(rc == 0);
  CHECK(engine.counts().by_state[State::completed] == 6);
}

TEST_CASE("the accounting's energy: with a job's end as polled, and at the run's end for those without",
          "[energy]") {
  TempDir dir;
  auto c = spec::parse_campaign(std::string(kSix), (dir.path / "c.yaml").string());
  auto sys =
      spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "testcluster", ".yaml"));
  auto plan = matrix::expand(spec::for_system(c, sys.name), sys, dir.path.string());
  Catalog catalog = Catalog::open(dir.path);
  FakeScheduler sched;
  sched.marker_after = std::chrono::milliseconds(10);
  transport::LocalShell shell;
  engine::EngineOptions o;
  engine::Engine engine(plan, dir.path, catalog, sched, shell, o);
  for (int i = 0; i < 6; ++i) sched.energy[std::to_string(100 + i)] = 1000.0 + i;
  sched.energy.erase("105");  // the accounting has none for it
  CHECK(engine.run() == 0);
  REQUIRE(sched.energy_asked.size() == 1);  // once, at the end, for the six
  CHECK(sched.energy_asked[0].size() == 6);
  for (auto& a : catalog.latest_attempts(engine.campaign_id())) {
    if (a.job_id == "105")
      CHECK_FALSE(a.energy_j);
    else
      CHECK(a.energy_j == sched.energy.at(a.job_id));
  }
}

TEST_CASE("a polled job's end carries its accounted energy; a running total is not kept", "[energy]") {
  Setup s(kSix, 1);
  s.engine.tick(true);
  const std::string id = s.sched.order.at(0);
  s.sched.jobs.at(id).info.state = State::running;
  s.sched.jobs.at(id).info.energy_j = 50.0;  // sacct's figure so far
  s.polls(1);
  CHECK_FALSE(s.attempt_of("c1").energy_j);
  s.sched.finish(id, 0, 42);
  s.sched.jobs.at(id).info.energy_j = 420.0;
  s.polls(3);
  CHECK(s.attempt_of("c1").energy_j == 420.0);
}

TEST_CASE("a node failure under an exit marker 0 is a node failure: corrected, retried, not collected") {
  // srun exits 0 after "Node failure on cn1", so the job script's marker says 0; sacct says NODE_FAIL.
  Setup s(std::string(kSix) + "retry: {max_attempts: 2, on: [node_fail]}\n", 1);
  s.engine.tick(true);
  const std::string id = s.sched.order.at(0);
  s.sched.jobs.at(id).info.state = State::running;
  s.engine.tick(true);  // the poll: it runs
  s.sched.write_marker(id, 0);
  s.engine.tick(false);  // the marker alone
  auto a = s.attempt_of("c1");
  CHECK(a.state == State::completed);
  CHECK_FALSE(a.confirmed);
  CHECK(s.collected.empty());
  CHECK_FALSE(s.engine.finished());
  s.sched.jobs.at(id).info.state = State::node_fail;
  s.sched.jobs.at(id).info.raw_state = "NODE_FAIL";
  s.polls(3);
  auto attempts = s.catalog.attempts_of_case(a.case_id);
  REQUIRE(attempts.size() == 2);
  CHECK(attempts[0].state == State::node_fail);
  CHECK(attempts[0].reason.find("the scheduler's accounting says NODE_FAIL") != std::string::npos);
  CHECK(attempts[1].number == 2);  // the retry
  CHECK(s.collected.empty());
  CHECK(s.catalog.check().empty());
}

TEST_CASE("a completion is collected once the accounting confirms it, with the accounting's times") {
  Setup s(kSix, 1);
  s.engine.tick(true);
  const std::string id = s.sched.order.at(0);
  s.sched.jobs.at(id).info.state = State::running;  // COMPLETING: still in the queue
  s.sched.write_marker(id, 0);
  s.engine.tick(true);
  s.engine.tick(true);
  CHECK(s.attempt_of("c1").state == State::completed);
  CHECK_FALSE(s.attempt_of("c1").confirmed);
  CHECK(s.attempt_of("c1").reason == "exit marker 0; awaiting the scheduler's accounting");
  CHECK(s.collected.empty());
  s.sched.finish(id, 0, 42);
  s.polls(3);
  auto a = s.attempt_of("c1");
  CHECK(a.confirmed);
  CHECK(a.elapsed_s == 42);
  CHECK(a.reason.empty());
  CHECK(s.collected == std::vector<std::string>{"c1"});
}

TEST_CASE("dependent cases wait until their dependency's completion is confirmed") {
  Setup s(kDeps, 1);  // one job at a time: the training cases are submitted after prepare
  s.engine.tick(true);
  const std::string prep = s.sched.id_of("prepare");
  REQUIRE(s.sched.jobs.size() == 1);
  s.sched.jobs.at(prep).info.state = State::running;
  s.sched.write_marker(prep, 0);
  s.engine.tick(true);
  s.engine.tick(true);
  CHECK(s.state_of("prepare") == State::completed);
  CHECK(s.sched.jobs.size() == 1);  // not yet: the accounting may still say the node failed
  s.sched.finish(prep);
  s.engine.tick(true);
  CHECK(s.sched.jobs.size() == 2);
}

TEST_CASE("a completion the scheduler has no record of is confirmed on its marker, saying so") {
  Setup s(kSix, 1);
  s.engine.tick(true);
  const std::string id = s.sched.order.at(0);
  s.sched.write_marker(id, 0);
  s.sched.jobs.erase(id);  // no accounting: purged, or an executor that keeps no records
  s.polls(9);
  s.advance(std::chrono::seconds(100));
  s.polls(3);
  CHECK_FALSE(s.attempt_of("c1").confirmed);  // asked several times, not for long enough
  s.advance(std::chrono::seconds(30));
  s.polls(3);  // asked again past accounting_wait_s without a record
  auto attempts = s.catalog.attempts_of_case(s.attempt_of("c1").case_id);
  CHECK(attempts.at(0).confirmed);
  CHECK(attempts.at(0).reason.find("accounting unavailable (the scheduler has had no record of job") == 0);
  CHECK(s.collected == std::vector<std::string>{"c1"});
}

TEST_CASE("while the scheduler cannot be reached, completions wait for it; past the timeout they stand") {
  Setup s(kSix, 1);
  s.engine.tick(true);
  const std::string id = s.sched.order.at(0);
  s.sched.write_marker(id, 0);
  s.sched.down = true;
  for (int i = 0; i < 3; ++i) s.engine.tick(true);
  s.advance(std::chrono::seconds(599));
  s.engine.tick(true);
  CHECK_FALSE(s.attempt_of("c1").confirmed);  // 600 s by default
  CHECK(s.collected.empty());
  s.advance(std::chrono::seconds(2));
  s.engine.tick(true);
  auto a = s.catalog.attempts_of_case(s.attempt_of("c1").case_id).at(0);
  CHECK(a.confirmed);
  CHECK(a.reason ==
        "accounting unavailable (the scheduler could not be asked for 601 s): completed on its "
        "exit marker alone");
  CHECK(s.collected == std::vector<std::string>{"c1"});
}

TEST_CASE("a submission refused by a limit pauses submissions for limit_pause_s, then goes on") {
  Setup s(kSix, 100);
  s.sched.refuse = 1;
  s.engine.tick(true);
  CHECK(s.sched.jobs.empty());
  CHECK(s.state_of("c1") == State::planned);
  s.advance(std::chrono::seconds(29));
  s.engine.tick(true);
  CHECK(s.sched.jobs.empty());  // 30 s by default
  s.advance(std::chrono::seconds(2));
  s.engine.tick(true);
  CHECK(s.sched.jobs.size() == 6);
}

TEST_CASE("ready cases are submitted round robin over node classes, in the plan's order within each") {
  Setup s(R"(name: classes
matrix:
  partition: [mc, gpu]
  n: [1, 2, 3]
case_name: "{{partition}}-{{n}}"
job: {partition: "{{partition}}", nodes: 1, walltime: "00:10:00", command: "true"}
)",
          100);
  s.engine.tick(true);
  std::vector<std::string> names;
  for (auto& id : s.sched.order) names.push_back(fs::path(s.sched.jobs.at(id).request.workdir).filename());
  CHECK(names == std::vector<std::string>{"mc-1", "gpu-1", "mc-2", "gpu-2", "mc-3", "gpu-3"});
}

TEST_CASE("cancel --case of a packed case: its running step alone, else refused, or the allocation") {
  SECTION("Slurm: the case's step is cancelled, the allocation and the others go on") {
    Setup s(kPacked, 100);
    s.engine.tick(true);
    REQUIRE(s.sched.jobs.size() == 1);
    const std::string alloc = s.sched.order.at(0);
    auto step = [&](const std::string& k, const std::string& c) {
      sched::StepInfo st;
      st.job_id = alloc, st.step_id = alloc + "." + k, st.name = s.attempt_of(c).step_name;
      return st;
    };
    s.sched.steps = std::vector<sched::StepInfo>{step("0", "p1"), step("1", "p2")};
    CHECK(s.engine.cancel("p2") == 1);
    CHECK(s.sched.cancelled == std::vector<std::string>{alloc + ".1"});
    CHECK(s.state_of("p2") == State::cancelled);
    CHECK(s.state_of("p1") != State::cancelled);
    CHECK(s.state_of("p3") != State::cancelled);
    // A case without a step yet (p3 waits in the allocation) is refused; nothing changes.
    CHECK_THROWS_WITH(s.engine.cancel("p3"), Catch::Contains("cannot cancel a packed case alone") &&
                                                 Catch::Contains("p3 (allocation " + alloc + ", beside p1)"));
    CHECK(s.state_of("p3") != State::cancelled);
    CHECK(s.sched.cancelled.size() == 1);
    // Every case of the allocation: the allocation itself.
    CHECK(s.engine.cancel("p*") == 2);
    CHECK(s.sched.cancelled.back() == alloc);
  }
  SECTION("without steps to cancel (LSF, local): the allocation, its other cases with it") {
    Setup s(kPacked, 100);
    s.engine.tick(true);
    CHECK(s.engine.cancel("p2") == 3);
    CHECK(s.sched.cancelled == std::vector<std::string>{s.sched.order.at(0)});
    CHECK(s.state_of("p1") == State::cancelled);
  }
}

TEST_CASE(
    "a burst of submissions cut into slices goes on with its choice; a case that left the plan is not in "
    "it") {
  // Six whole-node cases of 20 minutes, two to an allocation of an hour: three allocations.
  const char* yaml = R"(name: slices
matrix:
  n: [1, 2, 3, 4, 5, 6]
case_name: p{{n}}
job: {partition: mc, ranks: 1, cpus_per_rank: 4, walltime: "00:20:00", command: "true"}
pack: {nodes: 1, walltime: "01:00:00"}
)";
  Setup s(yaml, 100);
  s.submit_takes = std::chrono::seconds(1);  // past the slice (0.5 s): one allocation a slice
  s.engine.tick(false);
  REQUIRE(s.sched.jobs.size() == 1);
  CHECK(s.attempt_of("p1").job_id == s.sched.order[0]);
  CHECK(s.attempt_of("p2").job_id == s.sched.order[0]);
  CHECK(s.state_of("p3") == State::planned);
  s.engine.tick(false);  // the next slice: the choice's second allocation
  REQUIRE(s.sched.jobs.size() == 2);
  CHECK(s.attempt_of("p3").job_id == s.sched.order[1]);
  CHECK(s.attempt_of("p4").job_id == s.sched.order[1]);
  // A member of the rest leaves the plan between two slices: the rest is chosen again, without it.
  CHECK(s.engine.cancel("p6") == 1);
  s.engine.tick(false);
  REQUIRE(s.sched.jobs.size() == 3);
  CHECK(s.attempt_of("p5").job_id == s.sched.order[2]);
  CHECK(s.state_of("p6") == State::cancelled);
  s.engine.tick(false);
  CHECK(s.sched.jobs.size() == 3);
}

TEST_CASE("a packed allocation that wrote its cases' exit markers and ended between two reads: none lost") {
  // The local executor and LSF keep no step records: a packed case's exit marker is its only record.
  // Its driver writes the last cases' markers and then ends; when that falls after the tick's marker
  // read and before its poll, the poll sees the allocation ended and must read those markers first.
  Setup s(kPacked, 100);
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 1);
  const std::string alloc = s.sched.order.at(0);
  s.sched.jobs.at(alloc).info.state = State::running;
  for (const char* c : {"p1", "p2", "p3"}) {
    const AttemptRow a = s.attempt_of(c);
    pack::StartMarker m;
    m.allocation = a.job_name, m.job_name = a.step_name, m.launched = true;
    std::ofstream(fs::path(a.run_dir) / pack::kStartMarker) << pack::to_json(m);
  }
  s.advance(std::chrono::seconds(10));
  s.engine.tick(true);
  CHECK(s.state_of("p1") == State::running);
  // p1 fails by itself and p2, p3 succeed, all after the markers were read: the driver then ends.
  s.sched.before_query = [&] {
    for (auto [c, status] : {std::pair{"p1", 3}, {"p2", 0}, {"p3", 0}})
      std::ofstream(fs::path(s.attempt_of(c).run_dir) / render::kExitMarker) << status << "\n";
    s.sched.jobs.at(alloc).info.state = State::completed;
  };
  s.advance(std::chrono::seconds(10));
  s.engine.tick(true);
  s.advance(std::chrono::seconds(10));
  s.polls(3);
  const AttemptRow p1 = s.attempt_of("p1");
  CHECK(p1.state == State::failed);
  CHECK(p1.exit_code == 3);
  CHECK(p1.reason.find("without an exit marker") == std::string::npos);
  CHECK(s.state_of("p2") == State::completed);
  CHECK(s.state_of("p3") == State::completed);
}

TEST_CASE("a submission whose caller lost the connection after it landed is adopted, never submitted again") {
  Setup s(kSix, 1);
  s.sched.land_then_lose = 1;
  s.engine.tick(true);  // submits c1: the job lands, the answer is lost
  REQUIRE(s.sched.jobs.size() == 1);
  CHECK(s.attempt_of("c1").state == State::submitting);
  // However long the reconciliation takes, and however often it looks, one job only.
  for (int i = 0; i < 5; ++i) {
    s.advance(std::chrono::seconds(30));
    s.engine.tick(true);
  }
  CHECK(s.sched.jobs.size() == 1);
  CHECK(s.attempt_of("c1").job_id == s.sched.order.at(0));
}

TEST_CASE("a failed submission whose job never appears is submitted again only after the grace period") {
  Setup s(kSix, 1);
  s.catalog.set_clock([&s] { return s.wall; });  // the submission's time, as the engine sees time
  s.sched.lose = 1;
  s.engine.tick(true);
  REQUIRE(s.attempt_of("c1").state == State::submitting);
  s.engine.tick(true);
  s.advance(std::chrono::seconds(30));
  s.engine.tick(true);
  CHECK(s.sched.jobs.empty());  // its submit command may still be on its way: not submitted again yet
  s.advance(std::chrono::seconds(31));
  s.engine.tick(true);
  s.engine.tick(true);
  CHECK(s.sched.jobs.size() == 1);
  CHECK(s.attempt_of("c1").state == State::queued);
}

TEST_CASE("two jobs of one attempt's name: one adopted, the other cancelled and recorded") {
  Setup s(kSix, 1);
  s.sched.twice = 1;
  s.sched.land_then_lose = 1;
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 2);
  s.engine.tick(true);
  const auto a = s.attempt_of("c1");
  CHECK(a.job_id == s.sched.order.at(0));
  CHECK(s.sched.cancelled == std::vector<std::string>{s.sched.order.at(1)});
  CHECK(s.engine.duplicates_cancelled() == 1);
  auto events = s.catalog.events_of_kind(s.engine.campaign_id(), "duplicate");
  REQUIRE(events.size() == 1);
  CHECK(events[0].scope.attempt_id == a.id);
  CHECK(events[0].message.find("job " + s.sched.order.at(1)) == 0);
}

TEST_CASE("cancel waits for a submission whose outcome is unknown, then cancels its job") {
  TempDir dir;
  auto plan = Setup::make_plan(kSix, 1, dir.path);
  FakeScheduler sched;
  transport::LocalShell shell;
  Time wall{std::chrono::seconds(1'800'000'000)};
  {
    Catalog catalog = Catalog::open(dir.path);
    catalog.set_clock([&] { return wall; });
    engine::EngineOptions o;
    o.wall_now = [&] { return wall; };
    engine::Engine first(plan, dir.path, catalog, sched, shell, o);
    first.start();
    sched.lose = 1;
    first.tick(true);  // c1 left `submitting`, as by a run killed during its sbatch
    REQUIRE(catalog.latest_attempts(first.campaign_id()).at(0).state == State::submitting);
  }
  Catalog catalog = Catalog::open(dir.path);
  catalog.set_clock([&] { return wall; });
  engine::EngineOptions o;
  o.wall_now = [&] { return wall; };
  int naps = 0;
  // While cancel waits, the submission that was on its way lands.
  o.sleep = [&](double) {
    if (++naps != 2) return;
    sched::SubmitRequest late;
    late.job_name = catalog.latest_attempts(1).at(0).job_name;
    late.workdir = (dir.path / "c1").string();
    sched.submit(late);
  };
  engine::Engine cancel(plan, dir.path, catalog, sched, shell, o);
  cancel.start();
  cancel.cancel("c1");
  REQUIRE(sched.jobs.size() == 1);
  CHECK(sched.cancelled == std::vector<std::string>{sched.order.at(0)});  // the job that landed
  CHECK(catalog.latest_attempts(1).at(0).state == State::cancelled);
}

TEST_CASE("a decision whose writes the disk refuses leaves nothing of them; the next tick makes them") {
  struct Disarm {
    ~Disarm() { catalog_testing::fail_writes(0); }
  } disarm;
  catalog_testing::fail_writes(0);  // the layer under the catalog the setup opens
  Setup s(kSix, 100);
  s.engine.tick(true);
  REQUIRE(s.sched.jobs.size() == 6);
  for (int k = 0; k < 3; ++k) s.sched.finish(s.sched.order[k]);
  catalog_testing::fail_writes(SQLITE_FULL);
  CHECK_THROWS_AS(s.engine.tick(true), CatalogStorageError);
  catalog_testing::fail_writes(0);
  for (int k = 1; k <= 6; ++k) CHECK(s.state_of("c" + std::to_string(k)) == State::queued);
  s.engine.tick(true);
  for (int k = 1; k <= 6; ++k)
    CHECK(s.state_of("c" + std::to_string(k)) == (k <= 3 ? State::completed : State::queued));
  REQUIRE(s.engine.cached_rows());
  CHECK(*s.engine.cached_rows() == s.catalog.latest_attempts(s.engine.campaign_id()));
  CHECK(s.catalog.check().empty());
}
