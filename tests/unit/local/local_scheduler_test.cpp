// LocalScheduler against real bash jobs: outcomes, concurrency, dependencies, cancel, walltime,
// and the orchestrator dying (object dropped, process _exit-ed, monitor killed, pid reused).
#include "local/local_scheduler.hpp"

#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <set>

#include "helpers.hpp"
#include "transport/local_shell.hpp"

using campaign::State;
using campaign::local::JobRecord;
using campaign::local::LocalOptions;
using campaign::local::LocalScheduler;
using campaign::local::Phase;
using campaign::local::record_from_json;
using campaign::local::record_to_json;
using campaign::sched::SubmitError;
using campaign::sched::SubmitFailure;
using namespace local_test;

namespace {

// `cores` counted cores, unpinned, and no GPU unless `gpus` names some (ids a job sees).
LocalOptions options(const fs::path& root, int cores = 4, std::vector<std::string> gpus = {}) {
  LocalOptions o;
  o.spool = root / ".local";
  o.cores = cores;
  o.gpus = campaign::resource::Gpus{gpus.empty() ? "" : "CUDA_VISIBLE_DEVICES", std::move(gpus)};
  o.memory_mb = 0;
  o.kill_grace = 500ms;
  return o;
}

JobRecord record_of(const fs::path& root, const std::string& id) {
  auto r = record_from_json(read(root / ".local" / "jobs" / (id + ".json")));
  REQUIRE(r);
  return *r;
}

bool process_gone(pid_t pid) { return !campaign::local::process_start_time(pid); }

// Children of this process that exited and nobody reaped.
int zombie_children() {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string stat = read(e.path() / "stat");
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == ::getpid() && state == "Z") ++n;
  }
  return n;
}

}  // namespace

namespace {

// A FIFO a job waits on (its command `read line < FIFO`) until the test opens it: the job holds its
// cores or GPUs exactly as long as the test needs, not for a sleep's length and a hope.
struct Gate {
  fs::path path;
  Gate(const fs::path& dir, const std::string& name) : path(dir / (name + ".gate")) {
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  }
  std::string wait() const { return "read line < " + path.string(); }
  void open() const { std::ofstream(path) << "go\n"; }  // blocks until the job reads it
};

}  // namespace

TEST_CASE("jobs run detached to completion, with output, marker and times", "[local]") {
  TempDir tmp("basic");
  LocalScheduler s(options(tmp.path));
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    auto script = make_job(tmp.path, "case" + std::to_string(i),
                           "echo \"hello $CAMPAIGN_JOB_ID $CAMPAIGN_JOB_NAME\"; echo oops >&2; pwd");
    ids.push_back(s.submit(request(script, "job-" + std::to_string(i))));
  }
  CHECK(ids == std::vector<std::string>{"1", "2", "3"});
  for (int i = 0; i < 3; ++i) {
    auto j = wait_end(s, ids[i]);
    CHECK(j.state == State::completed);
    CHECK(j.raw_state == "COMPLETED");
    CHECK(j.exit_code == 0);
    CHECK_FALSE(j.signal);
    CHECK(j.name == "job-" + std::to_string(i));
    CHECK(j.submit);
    CHECK(j.start);
    CHECK(j.end);
    REQUIRE(j.elapsed_s);
    CHECK(*j.elapsed_s >= 0);
    CHECK(j.nodes == 1);
    fs::path dir = tmp.path / ("case" + std::to_string(i));
    // The job ran in its run dir; stdout and stderr both went to job-<id>.out.
    CHECK(read(dir / ("job-" + ids[i] + ".out")) ==
          "hello " + ids[i] + " job-" + std::to_string(i) + "\noops\n" + dir.string() + "\n");
    CHECK(read(dir / ".exit") == "0\n");
  }
  CHECK(s.queued_jobs_of_user() == 0);
  // Jobs are not our children: nothing to reap, ever.
  CHECK(zombie_children() == 0);
  // Unknown ids are left out, as under Slurm.
  CHECK(s.query({"99", "x", ids[0]}).size() == 1);
}

TEST_CASE("exit codes and signals propagate", "[local]") {
  TempDir tmp("exit");
  LocalScheduler s(options(tmp.path));
  auto three = s.submit(request(make_job(tmp.path, "three", "exit 3"), "three"));
  auto killed = s.submit(request(make_job(tmp.path, "killed", "trap - EXIT; kill -9 $$"), "killed"));
  auto missing = s.submit(request(make_job(tmp.path, "missing", "/no/such/program"), "missing"));

  auto j = wait_end(s, three);
  CHECK(j.state == State::failed);
  CHECK(j.raw_state == "FAILED");
  CHECK(j.exit_code == 3);
  CHECK(j.reason == "NonZeroExitCode");

  j = wait_end(s, killed);
  CHECK(j.state == State::failed);
  CHECK(j.signal == 9);
  CHECK_FALSE(j.exit_code);
  CHECK(j.reason == "RaisedSignal:9");

  j = wait_end(s, missing);
  CHECK(j.state == State::failed);
  CHECK(j.exit_code == 127);
}

TEST_CASE("submit rejects what cannot run", "[local]") {
  TempDir tmp("invalid");
  LocalScheduler s(options(tmp.path));
  auto script = make_job(tmp.path, "ok", "true");
  auto kind_of = [&](const campaign::sched::SubmitRequest& r) {
    try {
      s.submit(r);
    } catch (const SubmitError& e) {
      return e.kind();
    }
    FAIL("submit accepted " << r.script_path);
    return SubmitFailure::transient;
  };
  CHECK(kind_of(request(tmp.path / "none.sh", "x")) == SubmitFailure::invalid);
  CHECK(kind_of(request(script, "x", {"42"})) == SubmitFailure::invalid);  // unknown dependency
  CHECK(kind_of(request(script, "x", {}, {"--partition=gpu"})) == SubmitFailure::invalid);
  CHECK(kind_of(request(script, "x", {}, {"--time=soon"})) == SubmitFailure::invalid);
  auto bad_dir = request(script, "x");
  bad_dir.workdir = (tmp.path / "nowhere").string();
  CHECK(kind_of(bad_dir) == SubmitFailure::invalid);
  CHECK(s.queued_jobs_of_user() == 0);
  CHECK(s.submit(request(script, "x")) == "1");  // refused submits took no id
}

TEST_CASE("the concurrency limit holds jobs back in submission order", "[local]") {
  TempDir tmp("slots");
  LocalScheduler s(options(tmp.path, 2));
  // A takes both slots (its launcher line says 2 ranks), so B, C wait although each needs one.
  Gate gate(tmp.path, "a");
  auto a = s.submit(request(
      make_job(tmp.path, "a", ": campaign launch -n 2 -- train; " + gate.wait() + "; date +%s%N > end"),
      "a"));
  auto b = s.submit(request(make_job(tmp.path, "b", "date +%s%N > start"), "b"));
  auto c = s.submit(request(make_job(tmp.path, "c", "true"), "c", {}, {"--ntasks=1"}));
  CHECK(record_of(tmp.path, a).demand.cores == 2);
  CHECK(info(s, a).state == State::running);
  auto jb = info(s, b);
  CHECK(jb.state == State::queued);
  CHECK(jb.raw_state == "PENDING");
  CHECK(jb.reason == "Resources");
  CHECK_FALSE(jb.start);
  CHECK(s.queued_jobs_of_user() == 3);

  gate.open();
  CHECK(wait_end(s, a).state == State::completed);
  CHECK(wait_end(s, b).state == State::completed);
  CHECK(wait_end(s, c).state == State::completed);
  CHECK(std::stoll(read(tmp.path / "b" / "start")) >= std::stoll(read(tmp.path / "a" / "end")));

  // A launcher line wider than the machine is capped at its cores instead of waiting forever...
  auto wide = s.submit(request(make_job(tmp.path, "wide", ": campaign launch -n 64 -- x"), "wide"));
  CHECK(record_of(tmp.path, wide).demand.cores == 2);
  CHECK(wait_end(s, wide).state == State::completed);
  // ...a job that says it needs more than there is, is refused.
  try {
    s.submit(request(make_job(tmp.path, "wider", "true"), "wider", {}, {"-n", "64"}));
    FAIL("a job of 64 cores was accepted on 2");
  } catch (const SubmitError& e) {
    CHECK(e.kind() == SubmitFailure::invalid);
    CHECK(std::string(e.what()).find("64 cores per node, more than the node's 2") != std::string::npos);
  }
}

TEST_CASE("the #LOCAL line: cores, one job at a time when each needs all of them", "[local]") {
  TempDir tmp("cores");
  LocalScheduler s(options(tmp.path, 2));
  // Four jobs of one rank and 2 CPUs on 2 cores run one at a time, never two at once.
  auto name = [](int i) {
    std::string n = "j";  // not "j" + to_string(i): GCC 12 warns wrongly (-Wrestrict) on that
    n += std::to_string(i);
    return n;
  };
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(s.submit(
        request(make_job(tmp.path, name(i),
                         "#LOCAL --cores=2 --gpus=0\ndate +%s%N > start; sleep 0.3; date +%s%N > end"),
                name(i))));
  CHECK(record_of(tmp.path, ids[0]).demand.cores == 2);
  for (auto& id : ids) CHECK(wait_end(s, id).state == State::completed);
  for (int i = 1; i < 4; ++i)
    CHECK(std::stoll(read(tmp.path / name(i) / "start")) >= std::stoll(read(tmp.path / name(i - 1) / "end")));
}

TEST_CASE("a campaign's case holds the demand its request carries, not its script's words", "[local]") {
  TempDir tmp("demand");
  LocalScheduler s(options(tmp.path, 4));
  // The request's demand decides; the script's #LOCAL line (here a different one) is not read back.
  auto r = request(make_job(tmp.path, "planned", "#LOCAL --cores=1\ntrue"), "planned");
  r.demand = campaign::resource::Demand{1, 3, 0, 512, false};
  auto planned = s.submit(r);
  CHECK(record_of(tmp.path, planned).demand == campaign::resource::Demand{1, 3, 0, 512, false});
  // The request's options still come after it, as they come after a #LOCAL line.
  auto more = request(make_job(tmp.path, "more", "true"), "more", {}, {"--cores=2"});
  more.demand = campaign::resource::Demand{1, 3, 0, 0, true};
  auto whole = s.submit(more);
  CHECK(record_of(tmp.path, whole).demand == campaign::resource::Demand{1, 2, 0, 0, true});
  // More than the machine has is refused by the one fit function's words.
  auto big = request(make_job(tmp.path, "big", "true"), "big");
  big.demand = campaign::resource::Demand{1, 5, 0, 0, false};
  try {
    s.submit(big);
    FAIL("a demand of 5 cores on 4 was accepted");
  } catch (const SubmitError& e) {
    CHECK(std::string(e.what()) ==
          "local scheduler: the job asks for 5 cores per node, more than the node's 4 (this machine)");
  }
  for (auto& id : {planned, whole}) CHECK(wait_end(s, id).state == State::completed);
}

TEST_CASE("each job sees its own GPUs, and none when it asks for none", "[local]") {
  TempDir tmp("gpus");
  LocalScheduler s(options(tmp.path, 8, {"3", "5"}));
  CHECK(s.machine().gpus == 2);
  std::map<std::string, Gate> gates;
  auto gpu_job = [&](const std::string& name) {
    const Gate& gate = gates.try_emplace(name, tmp.path, name).first->second;
    return s.submit(
        request(make_job(tmp.path, name,
                         "#LOCAL --cores=1 --gpus=1\necho \"${CUDA_VISIBLE_DEVICES-unset}\" > seen; "
                         "date +%s%N > start; " +
                             gate.wait() + "; date +%s%N > end"),
                name));
  };
  auto a = gpu_job("a"), b = gpu_job("b"), c = gpu_job("c");
  auto cpu = s.submit(request(
      make_job(tmp.path, "cpu", "#LOCAL --cores=1\necho \"${CUDA_VISIBLE_DEVICES-unset}\" > seen"), "cpu"));
  // Two GPU jobs at once, each with one GPU of its own; the third waits for a GPU, not for cores.
  CHECK(info(s, a).state == State::running);
  CHECK(info(s, b).state == State::running);
  CHECK(info(s, c).state == State::queued);
  gates.at("a").open();
  gates.at("b").open();
  CHECK(wait_end(s, a).state == State::completed);
  CHECK(wait_end(s, b).state == State::completed);
  REQUIRE(eventually([&] { return info(s, c).state == State::running; }));
  gates.at("c").open();
  for (auto& id : {c, cpu}) CHECK(wait_end(s, id).state == State::completed);
  std::set<std::string> seen{read(tmp.path / "a" / "seen"), read(tmp.path / "b" / "seen")};
  CHECK(seen == std::set<std::string>{"3\n", "5\n"});
  CHECK((read(tmp.path / "c" / "seen") == "3\n" || read(tmp.path / "c" / "seen") == "5\n"));
  CHECK(std::stoll(read(tmp.path / "c" / "start")) >=
        std::min(std::stoll(read(tmp.path / "a" / "end")), std::stoll(read(tmp.path / "b" / "end"))));
  CHECK(read(tmp.path / "cpu" / "seen") == "\n");  // set and empty: no GPU
  // A job asking for more GPUs than there are is refused.
  CHECK_THROWS_AS(s.submit(request(make_job(tmp.path, "three", "true"), "three", {}, {"--gpus=3"})),
                  SubmitError);
}

TEST_CASE("an exclusive job is shown the GPUs it asked for, as beside others", "[local]") {
  TempDir tmp("exclusive-gpus");
  LocalScheduler s(options(tmp.path, 4, {"3", "5"}));
  auto job = [&](const std::string& name, const std::string& line) {
    return s.submit(
        request(make_job(tmp.path, name, line + "\necho \"${CUDA_VISIBLE_DEVICES-unset}\" > seen"), name));
  };
  // One after the other: each alone on the machine, so each is given the lowest GPUs.
  auto shared = job("shared", "#LOCAL --cores=2 --gpus=1");
  CHECK(wait_end(s, shared).state == State::completed);
  auto alone = job("alone", "#LOCAL --cores=2 --gpus=1 --exclusive");
  CHECK(wait_end(s, alone).state == State::completed);
  auto none = job("none", "#LOCAL --cores=2 --gpus=0 --exclusive");
  CHECK(wait_end(s, none).state == State::completed);
  auto all = job("all", "#LOCAL --exclusive");
  CHECK(wait_end(s, all).state == State::completed);
  CHECK(read(tmp.path / "shared" / "seen") == "3\n");
  CHECK(read(tmp.path / "alone" / "seen") == "3\n");
  CHECK(read(tmp.path / "none" / "seen") == "\n");
  CHECK(read(tmp.path / "all" / "seen") == "3,5\n");  // an exclusive job that does not say: all
}

TEST_CASE("an exclusive job holds the whole machine", "[local]") {
  TempDir tmp("exclusive");
  LocalScheduler s(options(tmp.path, 4));
  Gate gate(tmp.path, "whole");
  auto whole = s.submit(request(
      make_job(tmp.path, "whole", "#LOCAL --exclusive\n" + gate.wait() + "; date +%s%N > end"), "whole"));
  auto small =
      s.submit(request(make_job(tmp.path, "small", "#LOCAL --cores=1\ndate +%s%N > start"), "small"));
  CHECK(record_of(tmp.path, whole).held_cores.size() == 4);
  CHECK(info(s, small).state == State::queued);
  gate.open();
  CHECK(wait_end(s, small).state == State::completed);
  CHECK(std::stoll(read(tmp.path / "small" / "start")) >= std::stoll(read(tmp.path / "whole" / "end")));
}

TEST_CASE("a job is pinned to its cores on the machine's CPUs", "[local]") {
  TempDir tmp("pin");
  LocalOptions o = options(tmp.path);
  o.cores = 0;  // this machine's CPUs, pinned
  LocalScheduler s(o);
  auto one = s.submit(request(
      make_job(tmp.path, "one", "#LOCAL --cores=1\ngrep Cpus_allowed_list /proc/self/status > mask"), "one"));
  CHECK(wait_end(s, one).state == State::completed);
  std::string mask = read(tmp.path / "one" / "mask");
  // One CPU: a single number, no range or list.
  CHECK(mask.find_first_of(",-") == std::string::npos);
}

TEST_CASE("afterok dependencies wait, and cancel when they fail", "[local]") {
  TempDir tmp("deps");
  LocalScheduler s(options(tmp.path));
  Gate gate(tmp.path, "a");
  auto a = s.submit(request(make_job(tmp.path, "a", gate.wait() + "; date +%s%N > end"), "a"));
  auto b = s.submit(request(make_job(tmp.path, "b", "date +%s%N > start"), "b", {a}));
  auto jb = info(s, b);
  CHECK(jb.state == State::queued);
  CHECK(jb.reason == "Dependency");
  gate.open();
  CHECK(wait_end(s, b).state == State::completed);
  CHECK(std::stoll(read(tmp.path / "b" / "start")) >= std::stoll(read(tmp.path / "a" / "end")));

  auto bad = s.submit(request(make_job(tmp.path, "bad", "sleep 0.2; exit 1"), "bad"));
  auto after_bad = s.submit(request(make_job(tmp.path, "after_bad", "touch ran"), "after_bad", {bad}));
  auto chain = s.submit(request(make_job(tmp.path, "chain", "touch ran"), "chain", {after_bad}));
  auto j = wait_end(s, chain);
  CHECK(j.state == State::cancelled);
  CHECK(j.reason == "DependencyNeverSatisfied");
  j = info(s, after_bad);
  CHECK(j.state == State::cancelled);
  CHECK(j.raw_state == "CANCELLED");
  CHECK(j.reason == "DependencyNeverSatisfied");
  CHECK_FALSE(fs::exists(tmp.path / "after_bad" / "ran"));
  CHECK_FALSE(fs::exists(tmp.path / "chain" / "ran"));
}

TEST_CASE("with every core held, a waiting job's dependency cancelled still cancels it at once", "[local]") {
  // A tick skips its look at the waiting jobs while every core is held and nothing ended: an end
  // (here a cancel of a waiting job) is what makes it look again.
  TempDir tmp("full");
  LocalScheduler s(options(tmp.path, 1));
  Gate gate(tmp.path, "hold");
  auto hold = s.submit(request(make_job(tmp.path, "hold", gate.wait()), "hold"));
  auto target = s.submit(request(make_job(tmp.path, "target", "true"), "target"));
  auto after = s.submit(request(make_job(tmp.path, "after", "touch ran"), "after", {target}));
  CHECK(info(s, hold).state == State::running);
  CHECK(info(s, target).reason == "Resources");
  CHECK(info(s, after).reason == "Dependency");
  s.cancel({target});
  auto j = info(s, after);  // hold still runs
  CHECK(j.state == State::cancelled);
  CHECK(j.reason == "DependencyNeverSatisfied");
  CHECK(info(s, hold).state == State::running);
  // So is one given after its dependency was cancelled.
  auto late = s.submit(request(make_job(tmp.path, "late", "touch ran"), "late", {target}));
  CHECK(info(s, late).reason == "DependencyNeverSatisfied");
  // A job given while the core is held waits, and starts once it frees.
  auto next = s.submit(request(make_job(tmp.path, "next", "true"), "next"));
  CHECK(info(s, next).reason == "Resources");
  gate.open();
  CHECK(wait_end(s, hold).state == State::completed);
  CHECK(wait_end(s, next).state == State::completed);
  CHECK_FALSE(fs::exists(tmp.path / "after" / "ran"));
}

TEST_CASE("cancel stops a running job's whole process group, and pending jobs at once", "[local]") {
  TempDir tmp("cancel");
  LocalScheduler s(options(tmp.path, 1));
  auto running = s.submit(request(make_job(tmp.path, "run", "sleep 30 & echo $! > child; wait"), "run"));
  auto pending = s.submit(request(make_job(tmp.path, "pend", "touch ran"), "pend"));
  // The whole line: the shell creates the file before echo writes to it.
  const auto child_file = tmp.path / "run" / "child";
  REQUIRE(
      eventually([&] { return fs::exists(child_file) && read(child_file).find('\n') != std::string::npos; }));
  pid_t child = std::stoi(read(child_file));
  CHECK(info(s, pending).state == State::queued);

  auto t0 = std::chrono::steady_clock::now();
  s.cancel({pending, running, "12345"});
  CHECK(info(s, pending).state == State::cancelled);
  auto j = wait_end(s, running, 3s);
  CHECK(std::chrono::steady_clock::now() - t0 <
        15s);  // cut short: the job would sleep 30 s, however loaded the machine
  CHECK(j.state == State::cancelled);
  CHECK(j.exit_code == 143);  // the script's TERM trap ran
  CHECK(read(tmp.path / "run" / ".exit") == "143\n");
  CHECK(eventually([&] { return process_gone(child); }, 2s));
  CHECK_FALSE(fs::exists(tmp.path / "pend" / "ran"));

  // Cancelling what has ended changes nothing.
  auto done = s.submit(request(make_job(tmp.path, "done", "true"), "done"));
  CHECK(wait_end(s, done).state == State::completed);
  s.cancel({done});
  CHECK(info(s, done).state == State::completed);
}

TEST_CASE("a job past its walltime is terminated, then killed", "[local]") {
  TempDir tmp("walltime");
  LocalScheduler s(options(tmp.path));
  auto polite = s.submit(request(make_job(tmp.path, "polite", "sleep 30"), "polite", {}, {"--time=1"}));
  // Ignores SIGTERM (and so do its children): only SIGKILL after the grace period ends it.
  auto stubborn = s.submit(request(make_job(tmp.path, "stubborn", "trap '' TERM; sleep 30; sleep 30"),
                                   "stubborn", {}, {"-t", "00:00:01"}));
  // The request's walltime applies when no --time option is given (the engine's way). Submitted
  // together with the others so that their walltimes run out at once.
  auto r = request(make_job(tmp.path, "asked", "sleep 30"), "asked");
  r.walltime_s = 1;
  auto asked = s.submit(r);
  auto t0 = std::chrono::steady_clock::now();
  auto j = wait_end(s, polite, 5s);
  CHECK(j.state == State::timeout);
  CHECK(j.raw_state == "TIMEOUT");
  CHECK(j.reason == "TimeLimit");
  CHECK(j.exit_code == 143);
  j = wait_end(s, stubborn, 5s);
  CHECK(j.state == State::timeout);
  CHECK(j.signal == 9);
  auto took = std::chrono::steady_clock::now() - t0;
  CHECK(took >= 1s);
  CHECK(took < 15s);  // cut short: the jobs would sleep 30 s, however loaded the machine
  CHECK(record_of(tmp.path, polite).walltime_s == 1);
  CHECK(wait_end(s, asked, 5s).state == State::timeout);
  CHECK(record_of(tmp.path, asked).walltime_s == 1);
}

TEST_CASE("a restarted orchestrator finds running jobs and their end", "[local]") {
  TempDir tmp("restart");
  std::string id;
  {
    LocalScheduler first(options(tmp.path, 1));
    id = first.submit(request(make_job(tmp.path, "a", "sleep 0.5; exit 4"), "a"));
    first.submit(request(make_job(tmp.path, "b", "true"), "b"));
    CHECK(info(first, id).state == State::running);
  }
  LocalScheduler second(options(tmp.path, 1));
  auto j = info(second, id);
  CHECK(j.state == State::running);
  j = wait_end(second, id);
  CHECK(j.state == State::failed);
  CHECK(j.exit_code == 4);
  // The pending job left behind starts under the new object, and ids keep growing.
  CHECK(wait_end(second, "2").state == State::completed);
  auto found = second.find_by_name({"b", "a", "nope"});
  REQUIRE(found.size() == 2);
  CHECK(found[0].name == "a");
  CHECK(found[1].name == "b");
  CHECK(second.submit(request(make_job(tmp.path, "c", "true"), "c")) == "3");
}

TEST_CASE("jobs outlive an orchestrator process that dies without a word", "[local]") {
  TempDir tmp("kill9");
  auto a = make_job(tmp.path, "a", "sleep 0.3; echo done > result");
  auto b = make_job(tmp.path, "b", "echo done > result");
  int rc = in_child(
      [&] {
        LocalScheduler s(options(tmp.path, 1));
        s.submit(request(a, "a"));
        s.submit(request(b, "b"));  // pending: the only slot is taken
        ::_exit(0);                 // as if killed: no destructors, no goodbye
        return 0;
      },
      tmp.path / "child.log");
  REQUIRE(rc == 0);
  LocalScheduler s(options(tmp.path, 1));
  CHECK(wait_end(s, "1").state == State::completed);
  CHECK(read(tmp.path / "a" / "result") == "done\n");
  CHECK(wait_end(s, "2").state == State::completed);
  CHECK(read(tmp.path / "b" / "result") == "done\n");
}

TEST_CASE("without its monitor a job's outcome comes from its exit marker, else it vanished", "[local]") {
  TempDir tmp("vanish");
  LocalScheduler s(options(tmp.path));
  auto marked = s.submit(request(make_job(tmp.path, "marked", "sleep 0.5; exit 5"), "marked"));
  auto gone = s.submit(request(make_job(tmp.path, "gone", "sleep 30"), "gone"));
  auto rm = record_of(tmp.path, marked), rg = record_of(tmp.path, gone);
  REQUIRE(rm.phase == Phase::running);
  REQUIRE(rg.phase == Phase::running);
  ::kill(rm.monitor.pid, SIGKILL);
  ::kill(rg.monitor.pid, SIGKILL);
  ::kill(-rg.job.pid, SIGKILL);  // no trap runs: no marker

  auto j = wait_end(s, marked);
  CHECK(j.state == State::failed);
  CHECK(j.exit_code == 5);
  CHECK(j.reason == "NonZeroExitCode");
  j = wait_end(s, gone);
  CHECK(j.state == State::failed);
  CHECK(j.reason == "vanished without exit status");
  CHECK_FALSE(j.exit_code);
}

TEST_CASE("a job whose exit marker was begun but never renamed into place could not write its end",
          "[local]") {
  TempDir tmp("unwritten");
  LocalScheduler s(options(tmp.path));
  auto id = s.submit(request(make_job(tmp.path, "full", "sleep 30"), "full"));
  auto r = record_of(tmp.path, id);
  REQUIRE(r.phase == Phase::running);
  // What `echo $? > .exit.tmp && mv ...` leaves on a full disk: the file created, its write refused.
  write(tmp.path / "full" / ".exit.tmp", "");
  ::kill(r.monitor.pid, SIGKILL);  // its status cannot be written either
  ::kill(-r.job.pid, SIGKILL);
  auto j = wait_end(s, id);
  CHECK(j.state == State::failed);
  CHECK(j.reason ==
        "ended without an exit status: neither its status nor its exit marker could be written (was the disk "
        "full?)");
}

TEST_CASE("a reused pid is not mistaken for the job", "[local]") {
  TempDir tmp("pidreuse");
  LocalOptions o = options(tmp.path);
  fs::create_directories(o.spool / "jobs");
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  auto fake = [&](long id, campaign::local::ProcessId p) {
    JobRecord r;
    r.id = id;
    r.name = "fake" + std::to_string(id);
    r.script = (tmp.path / "job.sh").string();
    r.workdir = tmp.path.string();
    r.phase = Phase::running;
    r.launch = 1;
    r.monitor = p;
    r.job = p;
    r.submit_ms = r.start_ms = now;
    write(o.spool / "jobs" / (std::to_string(id) + ".json"), record_to_json(r));
  };
  // This test process is alive, but started at another time than the record says.
  auto self_start = campaign::local::process_start_time(::getpid());
  REQUIRE(self_start);
  fake(1, {::getpid(), *self_start + 1});
  // Same pid, right start time: that one is running.
  fake(2, {::getpid(), *self_start});

  LocalScheduler s(o);
  auto j = info(s, "1");
  CHECK(j.state == State::failed);
  CHECK(j.reason == "vanished without exit status");
  CHECK(info(s, "2").state == State::running);
  // The next id is past the ones found, counter file or not.
  CHECK(s.submit(request(make_job(tmp.path, "next", "true"), "next")) == "3");
  CHECK(wait_end(s, "3").state == State::completed);
}

TEST_CASE("a launch cut short before go is started again", "[local]") {
  TempDir tmp("starting");
  LocalOptions o = options(tmp.path);
  fs::create_directories(o.spool / "jobs");
  JobRecord r;
  r.id = 1;
  r.name = "interrupted";
  auto script = make_job(tmp.path, "i", "echo $CAMPAIGN_JOB_ID >> runs");
  r.script = script.string();
  r.workdir = (tmp.path / "i").string();
  r.output = (tmp.path / "i" / "job-1.out").string();
  r.phase = Phase::starting;
  r.launch = 1;
  write(o.spool / "jobs" / "1.json", record_to_json(r));
  write(o.spool / "next_id", "7\n");

  LocalScheduler s(o);
  CHECK(wait_end(s, "1").state == State::completed);
  CHECK(read(tmp.path / "i" / "runs") == "1\n");  // exactly once
  CHECK(record_of(tmp.path, "1").launch == 2);
  CHECK(s.submit(request(script, "x")) == "7");  // the counter wins over the records
}

TEST_CASE("ids never repeat, even when records are removed", "[local]") {
  TempDir tmp("ids");
  LocalScheduler s(options(tmp.path));
  auto script = make_job(tmp.path, "a", "true");
  CHECK(s.submit(request(script, "a")) == "1");
  CHECK(s.submit(request(script, "a")) == "2");
  CHECK(wait_end(s, "2").state == State::completed);
  fs::remove(tmp.path / ".local" / "jobs" / "2.json");
  LocalScheduler other(options(tmp.path));
  CHECK(other.submit(request(script, "a")) == "3");
  CHECK(other.query({"2"}).empty());
}

TEST_CASE("the local scheduler is reachable through the registry", "[local]") {
  TempDir tmp("registry");
  campaign::local::register_local_scheduler(options(tmp.path, 3));
  campaign::transport::LocalShell shell;
  auto s = campaign::sched::make_scheduler("local", shell, {});
  CHECK(s->name() == "local");
  auto id = s->submit(request(make_job(tmp.path, "a", "true"), "a"));
  CHECK(wait_end(*s, id).state == State::completed);
  CHECK(fs::exists(tmp.path / ".local" / "jobs" / (id + ".json")));
}

TEST_CASE("one spool, two schedulers: each sees the jobs the other gives and ends, by name and id",
          "[local]") {
  // A call reads the live jobs and those given since (the spool's counter), not a listing of
  // every record: what another process (`campaign cancel`, a second run) writes is seen all the same.
  TempDir tmp("two");
  LocalScheduler a(options(tmp.path)), b(options(tmp.path));
  auto first = a.submit(request(make_job(tmp.path, "one", "true"), "job-one"));
  CHECK(wait_end(a, first).state == State::completed);
  auto second = b.submit(request(make_job(tmp.path, "two", "exit 3"), "job-two", {first}));
  CHECK(second == "2");
  auto third = a.submit(request(make_job(tmp.path, "three", "true"), "job-three", {second}));
  CHECK(third == "3");  // after b's: the counter, not a's own last id
  CHECK(wait_end(a, second).exit_code == 3);
  // b's job ended as a failure: a cancels its dependant as a dependency never satisfied.
  CHECK(wait_end(b, third).state == State::cancelled);
  auto named = b.find_by_name({"job-one", "job-three"});
  REQUIRE(named.size() == 2);
  CHECK(named[0].id == "1");
  CHECK(named[1].id == "3");
  CHECK(a.queued_jobs_of_user() == 0);
}

TEST_CASE("a scheduler's copy of the live jobs is read again once another process wrote a record",
          "[local]") {
  // A keeps its live records between calls (a burst of submissions had parsed every pending record
  // at each submit); b's cancel bumps the spool's generation, so a reads the records again.
  TempDir tmp("copy");
  LocalOptions held = options(tmp.path);
  held.start_jobs = false;  // the jobs stay pending: only the records change
  LocalScheduler a(held), b(held);
  auto one = a.submit(request(make_job(tmp.path, "one", "true"), "job-one"));
  auto two = a.submit(request(make_job(tmp.path, "two", "true"), "job-two"));
  REQUIRE(a.query({one, two}).size() == 2);  // a's copy, now of the current generation
  const std::string generation =
      campaign::local::read_small_file(tmp.path / ".local" / "generation").value_or("");
  CHECK(a.query({one}).at(0).state == State::queued);
  CHECK(campaign::local::read_small_file(tmp.path / ".local" / "generation").value_or("") ==
        generation);  // a query that wrote nothing
  b.cancel({one});
  CHECK(campaign::local::read_small_file(tmp.path / ".local" / "generation").value_or("") != generation);
  auto seen = a.query({one, two});
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].state == State::cancelled);
  CHECK(seen[1].state == State::queued);
  // And a's own writes keep its copy current: its cancel is seen by b and by itself.
  a.cancel({two});
  CHECK(a.query({two}).at(0).state == State::cancelled);
  CHECK(b.query({two}).at(0).state == State::cancelled);
  CHECK(a.queued_jobs_of_user() == 0);
}

TEST_CASE("start_waiting starts a waiting job once a job ended, and asks nothing else", "[local]") {
  // The run loop calls it when an exit marker appears: the ended job's core goes to the next job at
  // once, not at the loop's next poll (one job per case ran at 5 starts a second).
  TempDir tmp("start-waiting");
  LocalScheduler s(options(tmp.path, 1));
  CHECK(s.starts_jobs_when_polled());
  Gate gate(tmp.path, "first");  // the first job holds the one core until the gate opens
  auto first = s.submit(request(make_job(tmp.path, "first", gate.wait()), "first"));
  auto second = s.submit(request(make_job(tmp.path, "second", "true"), "second"));
  CHECK(record_of(tmp.path, second).start_ms == 0);  // one core: it waits
  gate.open();
  REQUIRE(eventually([&] { return fs::exists(tmp.path / ".local" / "jobs" / (first + ".1.status")); }));
  CHECK(record_of(tmp.path, second).start_ms == 0);  // nobody called since the first one ended
  s.start_waiting();
  CHECK(record_of(tmp.path, second).start_ms > 0);
  CHECK(record_of(tmp.path, first).phase == campaign::local::Phase::ended);
}

TEST_CASE("a job that ends in the call that looks it up by name is named once", "[local]") {
  // Its monitor has written its status, nobody has reaped it: find_by_name's own tick ends it, and
  // it must not come back twice (as the live record read and the ended one just saved).
  TempDir tmp("named-once");
  LocalScheduler s(options(tmp.path));
  auto id = s.submit(request(make_job(tmp.path, "one", "true"), "job-one"));
  REQUIRE(eventually([&] { return fs::exists(tmp.path / ".local" / "jobs" / (id + ".1.status")); }));
  auto named = s.find_by_name({"job-one"});
  REQUIRE(named.size() == 1);
  CHECK(named[0].id == id);
  CHECK(named[0].state == State::completed);
}
