// The local executor's building blocks: process identity, the start gate of a detached job, the
// monitor's status line and the job record's JSON form.
#include "local/process.hpp"

#include <fcntl.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <set>

#include "helpers.hpp"
#include "local/job_record.hpp"

using namespace campaign::local;
using namespace local_test;

TEST_CASE("process identity survives pid reuse checks", "[local][process]") {
  auto self = process_start_time(::getpid());
  REQUIRE(self);
  CHECK(*self > 0);
  CHECK(is_alive({::getpid(), *self}));
  CHECK_FALSE(is_alive({::getpid(), *self + 1}));
  CHECK_FALSE(is_alive({::getpid(), 0}));
  CHECK_FALSE(is_alive({0, *self}));

  // A zombie is not alive, whatever its pid and start time.
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  auto start = process_start_time(child);
  REQUIRE(eventually([&] { return !process_start_time(child); }, 2s));
  ::waitpid(child, nullptr, 0);
  if (start) CHECK_FALSE(is_alive({child, *start}));
}

TEST_CASE("the monitor's status line", "[local][process]") {
  auto s = parse_monitor_status("started=1 exit=3 signal=0 timeout=1 terminated=0 end_ms=1700000000123\n");
  REQUIRE(s);
  CHECK(s->started);
  CHECK(s->exit_code == 3);
  CHECK(s->signal == 0);
  CHECK(s->timed_out);
  CHECK_FALSE(s->terminated);
  CHECK(s->end_ms == 1700000000123);
  CHECK_FALSE(parse_monitor_status("started=1 exit=3"));  // torn: end_ms comes last
  CHECK_FALSE(parse_monitor_status("garbage"));
  CHECK_FALSE(parse_monitor_status(""));
}

TEST_CASE("a detached job waits at its gate and runs only after go", "[local][process]") {
  TempDir tmp("gate");
  auto make = [&](const std::string& name) {
    SpawnRequest r;
    r.argv = {"/bin/bash", "-c", "echo $$ > " + name + ".pid; echo out; echo err >&2; exit 7"};
    r.env = {"PATH=/usr/bin:/bin"};
    r.cwd = tmp.path;
    r.output = tmp.path / (name + ".out");
    r.status_path = tmp.path / (name + ".status");
    return r;
  };

  SECTION("go: it runs, and the monitor records how it ended") {
    auto req = make("go");
    PendingSpawn p = spawn_detached(req);
    CHECK(is_alive(p.monitor()));
    CHECK(is_alive(p.job()));
    CHECK(p.monitor().pid != p.job().pid);
    std::this_thread::sleep_for(100ms);
    CHECK_FALSE(fs::exists(tmp.path / "go.pid"));  // still at the gate
    p.go();
    REQUIRE(eventually([&] { return fs::exists(req.status_path); }));
    auto s = parse_monitor_status(read(req.status_path));
    REQUIRE(s);
    CHECK(s->started);
    CHECK(s->exit_code == 7);
    CHECK(read(req.output) == "out\nerr\n");
    CHECK(std::stoi(read(tmp.path / "go.pid")) == p.job().pid);
    CHECK(eventually([&] { return !is_alive(p.monitor()); }, 2s));
  }

  SECTION("neither our memory nor our descriptors reach the monitor or the job") {
    // A descriptor without close-on-exec, as a library might leave one (a lock would follow it).
    const int null = ::open("/dev/null", O_RDONLY);
    const int leaked = ::fcntl(null, F_DUPFD, 40);  // past 3-5, which the monitor takes
    ::close(null);
    REQUIRE(leaked >= 40);
    auto req = make("clean");
    PendingSpawn p = spawn_detached(req);
    ::close(leaked);
    auto fds_of = [](pid_t pid) {
      std::set<int> fds;
      for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd"))
        fds.insert(std::stoi(e.path().filename().string()));
      return fds;
    };
    // Both are campaign-monitor's image, not a fork of ours (fork copied all our memory per job).
    CHECK(fs::read_symlink("/proc/" + std::to_string(p.monitor().pid) + "/exe").filename() ==
          "campaign-monitor");
    CHECK(fs::read_symlink("/proc/" + std::to_string(p.job().pid) + "/exe").filename() ==
          "campaign-monitor");  // at the gate, before its exec
    // Whatever else they hold is closed before the monitor exists: nothing past the three they get.
    CHECK(*fds_of(p.monitor().pid).rbegin() <= 5);
    CHECK(*fds_of(p.job().pid).rbegin() <= 5);
    // Each then closes what it does not need (the report pipe once the pids are sent).
    CHECK(eventually([&] { return fds_of(p.monitor().pid) == std::set<int>{0, 1, 2, 5}; }));  // the gate
    CHECK(eventually([&] { return fds_of(p.job().pid) == std::set<int>{0, 1, 2, 3, 5}; }));   // output, gate
    p.go();
    REQUIRE(eventually([&] { return fs::exists(req.status_path); }));
    CHECK(read(req.output) == "out\nerr\n");
  }

  SECTION("no go: it gives up without running") {
    auto req = make("nogo");
    { PendingSpawn p = spawn_detached(req); }
    REQUIRE(eventually([&] { return fs::exists(req.status_path); }));
    auto s = parse_monitor_status(read(req.status_path));
    REQUIRE(s);
    CHECK_FALSE(s->started);
    CHECK_FALSE(fs::exists(tmp.path / "nogo.pid"));
  }

  SECTION("an output that cannot be opened is its own error") {
    auto req = make("x");
    req.output = tmp.path / "no" / "such" / "dir" / "x.out";
    CHECK_THROWS_AS(spawn_detached(req), OutputUnavailable);
  }

  SECTION("SIGTERM to the monitor stops the job's group") {
    auto req = make("term");
    // It says when it ignores SIGTERM: a signal sent before its trap would end it by SIGTERM.
    req.argv = {"/bin/bash", "-c", "trap '' TERM; touch term.ready; sleep 30"};
    req.kill_grace = 300ms;
    PendingSpawn p = spawn_detached(req);
    p.go();
    REQUIRE(eventually([&] { return fs::exists(tmp.path / "term.ready"); }, 10s));
    ::kill(p.monitor().pid, SIGTERM);
    REQUIRE(eventually([&] { return fs::exists(req.status_path); }, 3s));
    auto s = parse_monitor_status(read(req.status_path));
    REQUIRE(s);
    CHECK(s->terminated);
    CHECK(s->signal == SIGKILL);  // it ignored SIGTERM
  }
}

TEST_CASE("job records round-trip through JSON", "[local][record]") {
  JobRecord r;
  r.id = 42;
  r.name = "cf-abc-n4-a1";
  r.script = "/w/case/job.sh";
  r.workdir = "/w/case";
  r.output = "/w/case/job-42.out";
  r.depends_on = {40, 41};
  r.demand = {1, 4, 1, 2048, false};
  r.held_cores = {0, 1, 2, 3};
  r.held_gpus = {1};
  r.walltime_s = 3600;
  r.phase = Phase::ended;
  r.launch = 2;
  r.monitor = {1234, 99887766};
  r.job = {1235, 99887767};
  r.submit_ms = 1700000000000;
  r.start_ms = 1700000001000;
  r.end_ms = 1700000002000;
  r.cancel_requested = true;
  r.cancel_ms = 1700000001500;
  r.outcome = campaign::State::cancelled;
  r.signal = 15;
  r.reason = "why \"not\"\\\n\t\x01";  // escaped as JSON wants
  // The record is the JSON object with these keys and values, whatever the formatting.
  const nlohmann::json expected = {{"id", 42},
                                   {"name", r.name},
                                   {"script", r.script},
                                   {"workdir", r.workdir},
                                   {"output", r.output},
                                   {"depends_on", {40, 41}},
                                   {"cores", 4},
                                   {"gpus", 1},
                                   {"memory_mb", 2048},
                                   {"exclusive", false},
                                   {"held_cores", {0, 1, 2, 3}},
                                   {"held_gpus", {1}},
                                   {"walltime_s", 3600},
                                   {"state", "ended"},
                                   {"launch", 2},
                                   {"monitor_pid", 1234},
                                   {"monitor_start", 99887766},
                                   {"pid", 1235},
                                   {"pid_start", 99887767},
                                   {"submit_ms", 1700000000000},
                                   {"start_ms", 1700000001000},
                                   {"end_ms", 1700000002000},
                                   {"cancel_requested", true},
                                   {"cancel_ms", 1700000001500},
                                   {"walltime_exceeded", false},
                                   {"outcome", "cancelled"},
                                   {"exit_code", nullptr},
                                   {"signal", 15},
                                   {"reason", r.reason}};
  CHECK(nlohmann::json::parse(record_to_json(r)) == expected);
  auto back = record_from_json(record_to_json(r));
  REQUIRE(back);
  CHECK(back->reason == r.reason);
  CHECK(record_to_json(*back) == record_to_json(r));
  CHECK(back->depends_on == std::vector<long>{40, 41});
  CHECK(back->demand == r.demand);
  CHECK(back->held_gpus == std::vector<long>{1});
  // A record of an earlier version says `slots`: the cores it holds.
  auto old = record_from_json(
      R"({"id": 7, "name": "n", "script": "/s", "workdir": "/w", "slots": 3, "state": "pending"})");
  REQUIRE(old);
  CHECK(old->demand.cores == 3);
  CHECK(back->job.start == 99887767);
  CHECK(back->outcome == campaign::State::cancelled);
  CHECK_FALSE(back->exit_code);
  CHECK(back->signal == 15);

  CHECK_FALSE(record_from_json(""));
  CHECK_FALSE(record_from_json("{\"id\": 1}"));
  auto text = record_to_json(r);
  CHECK_FALSE(record_from_json(text.substr(0, text.size() / 2)));  // torn
}

TEST_CASE("atomic writes leave no temporaries", "[local][record]") {
  TempDir tmp("atomic");
  campaign::write_file_atomic(tmp.path / "f", "one");
  campaign::write_file_atomic(tmp.path / "f", "two");
  CHECK(read(tmp.path / "f") == "two");
  CHECK(std::distance(fs::directory_iterator(tmp.path), fs::directory_iterator()) == 1);
  CHECK_FALSE(read_small_file(tmp.path / "none"));
  CHECK(read_small_file(tmp.path / "f") == "two");
  CHECK_THROWS_AS(campaign::write_file_atomic(tmp.path / "no" / "f", "x"), campaign::Error);
}
