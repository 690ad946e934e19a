// The Slurm back end against a real Slurm (the virtual `testcluster` of tests/slurm/start-cluster.sh):
// submit small scripts through Slurm + LocalShell, poll query() until they end, and check what the
// engine will rely on: COMPLETED, FAILED with exit code 3, CANCELLED, an afterok dependency,
// find_by_name, and the classification of sbatch's real error messages; query_steps on an
// allocation running two named job steps, as a packed run does; singleton; and every walltime form
// read as Slurm reads it.
//
// Needs: a running cluster (sinfo answers), sbatch/squeue/sacct/scontrol/scancel in PATH, a writable
// temporary directory visible to the nodes (on testcluster every node is this machine). Takes about
// half a minute. Run by tests/integration/slurm_backend.sh, which starts the cluster; fails when sinfo
// does not answer.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "sched/slurm.hpp"
#include "sched/slurm_parse.hpp"
#include "transport/local_shell.hpp"
#include "util/walltime.hpp"

using namespace campaign;
using namespace campaign::sched;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct WorkDir {
  fs::path path;
  WorkDir() {
    path = fs::temp_directory_path() / ("campaign-slurm-it-" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~WorkDir() { fs::remove_all(path); }
};

std::string write_script(const fs::path& dir, const std::string& name, const std::string& body) {
  auto p = dir / (name + ".sh");
  std::ofstream(p) << "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --time=00:05:00\n#SBATCH --output=" << name
                   << ".out\n"
                   << body << "\n";
  fs::permissions(p, fs::perms::owner_all);
  return p.string();
}

// Polls until every job has a final state; at most `limit`.
std::map<std::string, JobInfo> wait_final(Scheduler& s, const std::vector<std::string>& ids,
                                          std::chrono::seconds limit = 120s) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  std::map<std::string, JobInfo> last;
  for (;;) {
    bool all_final = true;
    try {
      for (auto& j : s.query(ids)) last[j.id] = j;
    } catch (const SchedulerUnavailable& e) {
      WARN("query failed, retrying as the engine would: " << e.what());
    }
    for (const auto& id : ids)
      if (!last.count(id) || !is_final(last[id].state)) all_final = false;
    if (all_final || std::chrono::steady_clock::now() > deadline) return last;
    std::this_thread::sleep_for(1s);
  }
}

// Whatever happens, no job of a test outlives it: cancels `ids` when it goes.
struct CancelAll {
  Scheduler& s;
  std::vector<std::string>& ids;
  ~CancelAll() {
    try {
      s.cancel(ids);
    } catch (const std::exception&) {
    }
  }
};

}  // namespace

TEST_CASE("Slurm back end on a real cluster", "[integration][slurm]") {
  transport::LocalShell shell;
  if (!shell.run({"sinfo", "-h"}, 20s).ok())
    FAIL("sinfo does not answer: no Slurm cluster (tests/slurm/start-cluster.sh starts one)");
  WorkDir dir;
  SchedulerOptions options;  // user asked through the shell
  auto sched = make_scheduler("slurm", shell, options);
  std::string tag = "sched-it-" + std::to_string(::getpid());

  // Whatever happens, no job of this test outlives it.
  std::vector<std::string> submitted;
  CancelAll cancel_all{*sched, submitted};

  auto submit = [&](const std::string& name, const std::string& body, std::vector<std::string> deps = {}) {
    SubmitRequest r;
    r.script_path = write_script(dir.path, name, body);
    r.job_name = tag + "-" + name;
    r.workdir = dir.path.string();
    r.depends_on = std::move(deps);
    submitted.push_back(sched->submit(r));
    return submitted.back();
  };

  std::string ok_id = submit("ok", "echo hello");
  std::string fail_id = submit("fail", "exit 3");
  std::string after_id = submit("after", "echo after", {ok_id});
  std::string long_id = submit("long", "sleep 300");
  CHECK_FALSE(ok_id.empty());

  // The long job is cancelled once Slurm has it running (or at least queued).
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto q = sched->query({long_id});
    REQUIRE(q.size() == 1);
    if (q[0].state == State::running) break;
    std::this_thread::sleep_for(500ms);
  }
  CHECK(sched->queued_jobs_of_user() >= 1);
  sched->cancel({long_id});
  sched->cancel({long_id});  // cancelling an ended job again is not an error

  auto final = wait_final(*sched, {ok_id, fail_id, after_id, long_id});
  REQUIRE(final.size() == 4);
  CHECK(final[ok_id].state == State::completed);
  CHECK(final[ok_id].exit_code == 0);
  // No check on the name here: for a few seconds after a short job ends, sacct (22.05) may list it
  // under slurmdbd's placeholder name "allocation".
  CHECK(final[ok_id].end);
  CHECK(final[ok_id].nodes == 1);
  CHECK_FALSE(final[ok_id].nodelist.empty());
  CHECK(final[fail_id].state == State::failed);
  CHECK(final[fail_id].exit_code == 3);
  CHECK(final[after_id].state == State::completed);
  CHECK(final[long_id].state == State::cancelled);
  CHECK(final[long_id].raw_state.rfind("CANCELLED", 0) == 0);
  CHECK(std::ifstream(dir.path / "ok.out").good());  // --chdir took effect

  // Reconciliation after a crash: the jobs are found again by name.
  auto found = sched->find_by_name({tag + "-ok", tag + "-fail", tag + "-never-submitted"});
  std::map<std::string, std::string> by_name;
  for (const auto& j : found) by_name[j.name] = j.id;
  CHECK(by_name[tag + "-ok"] == ok_id);
  CHECK(by_name[tag + "-fail"] == fail_id);
  CHECK_FALSE(by_name.count(tag + "-never-submitted"));

  // sbatch's own error messages, classified.
  auto refused = [&](std::vector<std::string> extra) {
    SubmitRequest r;
    r.script_path = write_script(dir.path, "bad", "true");
    r.job_name = tag + "-bad";
    r.extra_args = std::move(extra);
    try {
      sched->submit(r);
    } catch (const SubmitError& e) {
      INFO(e.what());
      return std::optional<SubmitFailure>(e.kind());
    }
    return std::optional<SubmitFailure>();
  };
  CHECK(refused({"--partition=no-such-partition"}) == SubmitFailure::invalid);
  CHECK(refused({"--constraint=no-such-feature"}) == SubmitFailure::invalid);
}

TEST_CASE("Slurm query_steps on a real allocation with two named steps", "[integration][slurm]") {
  transport::LocalShell shell;
  if (!shell.run({"sinfo", "-h"}, 20s).ok())
    FAIL("sinfo does not answer: no Slurm cluster (tests/slurm/start-cluster.sh starts one)");
  WorkDir dir;
  auto sched = make_scheduler("slurm", shell, SchedulerOptions{});
  std::string tag = "steps-it-" + std::to_string(::getpid());

  // Two concurrent steps on nodes of their own, as the pack driver starts cases; the script notes
  // which node each got.
  auto script = dir.path / "alloc.sh";
  std::ofstream(script)
      << "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --constraint=mc\n#SBATCH --time=00:05:00\n"
      << "#SBATCH --output=alloc.out\n"
      << "nodes=($(scontrol show hostnames \"$SLURM_JOB_NODELIST\"))\n"
      << "echo ${nodes[0]} > ok.node; echo ${nodes[1]} > fail.node\n"
      << "srun --exact -N1 -n1 -w ${nodes[0]} -J " << tag << "-ok true &\n"
      << "srun --exact -N1 -n1 -w ${nodes[1]} -J " << tag << "-fail bash -c 'exit 3' &\n"
      << "wait\n";
  SubmitRequest r;
  r.script_path = script.string();
  r.job_name = tag;
  r.workdir = dir.path.string();
  std::string id = sched->submit(r);
  std::vector<std::string> submitted{id};
  CancelAll cancel{*sched, submitted};

  auto job = wait_final(*sched, {id});
  REQUIRE(job.count(id));
  CHECK(job[id].state == State::completed);  // `wait` without arguments returns 0: a step failed, not the job

  // The steps reach the accounting shortly after the allocation.
  std::map<std::string, StepInfo> steps;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  for (;;) {
    steps.clear();
    for (const auto& s : sched->query_steps({id}).steps) steps[s.name] = s;
    bool done = steps.size() == 2;
    for (const auto& [name, s] : steps) done = done && is_final(s.state) && s.end;
    if (done || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(1s);
  }
  auto node = [&](const char* file) {
    std::string n;
    std::ifstream(dir.path / file) >> n;
    return n;
  };
  REQUIRE(steps.size() == 2);
  const auto& ok = steps[tag + "-ok"];
  const auto& fail = steps[tag + "-fail"];
  CHECK(ok.job_id == id);
  CHECK(ok.step_id.rfind(id + ".", 0) == 0);
  CHECK(ok.state == State::completed);
  CHECK(ok.exit_code == 0);
  CHECK(ok.nodelist == node("ok.node"));
  CHECK(ok.start);
  CHECK(ok.end);
  CHECK(fail.state == State::failed);
  CHECK(fail.raw_state == "FAILED");
  CHECK(fail.exit_code == 3);
  CHECK(fail.nodelist == node("fail.node"));
  CHECK(fail.step_id != ok.step_id);
}

TEST_CASE("Slurm holds a second job of a name while the first runs, not the tasks of one array",
          "[integration][slurm]") {
  // Slurm::sbatch_argv asks for --dependency=singleton: a submission answered twice (the answer lost
  // with the connection, the command sent again) must not run twice before the engine can cancel one
  // (issue 29, sim seeds 14797 and 39927); an array's tasks, which share the name, must still run
  // side by side.
  transport::LocalShell shell;
  if (!shell.run({"sinfo", "-h"}, 20s).ok())
    FAIL("sinfo does not answer: no Slurm cluster (tests/slurm/start-cluster.sh starts one)");
  WorkDir dir;
  auto sched = make_scheduler("slurm", shell, SchedulerOptions{});
  const std::string tag = "singleton-it-" + std::to_string(::getpid());
  std::vector<std::string> submitted;
  CancelAll cancel_all{*sched, submitted};
  auto submit = [&](const std::string& file, const std::string& name, const std::string& body,
                    long tasks = 0) {
    SubmitRequest r;
    r.script_path = write_script(dir.path, file, body);
    r.job_name = name;
    r.workdir = dir.path.string();
    r.array_tasks = tasks;
    submitted.push_back(sched->submit(r));
    return submitted.back();
  };
  const fs::path gate = dir.path / "gate";
  // The first waits for the gate (2 minutes at most); the second copy of its name must wait for it.
  const std::string first =
      submit("first", tag, "for i in $(seq 240); do [ -e gate ] && exit 0; sleep 0.5; done; exit 1");
  const std::string second = submit("second", tag, "touch second-ran");
  // Until the first runs and the second is pending on its dependency (a minute at most): without the
  // hold, the second would start on one of the idle nodes instead, and this never happens.
  auto deadline = std::chrono::steady_clock::now() + 60s;
  bool running = false, held = false;
  while (!(running && held) && std::chrono::steady_clock::now() < deadline) {
    for (auto& j : sched->query({first, second})) {
      if (j.id == first) running = j.state == State::running;
      if (j.id == second) held = j.state == State::queued && j.reason == "Dependency";
    }
    if (!(running && held)) std::this_thread::sleep_for(500ms);
  }
  REQUIRE(running);
  REQUIRE(held);
  CHECK_FALSE(fs::exists(dir.path / "second-ran"));
  std::ofstream(gate).put('\n');
  auto ends = wait_final(*sched, {first, second});
  CHECK(ends[first].state == State::completed);
  CHECK(ends[second].state == State::completed);
  REQUIRE(ends[first].end);
  REQUIRE(ends[second].start);
  CHECK(*ends[second].start >= *ends[first].end);

  // Two tasks of one array: each waits until both have started (they fail if they ran one after
  // the other).
  const std::string array = submit("array", tag + "-array",
                                   "touch started-$SLURM_ARRAY_TASK_ID\n"
                                   "for i in $(seq 120); do [ -e started-0 ] && [ -e started-1 ] && exit 0; "
                                   "sleep 0.5; done; exit 1",
                                   2);
  auto tasks = wait_final(*sched, {array + "_0", array + "_1"});
  CHECK(tasks[array + "_0"].state == State::completed);
  CHECK(tasks[array + "_1"].state == State::completed);
}

TEST_CASE("every walltime form means to Slurm what parse_walltime reads", "[integration][slurm]") {
  // Slurm's own grammar (sbatch --time): minutes, minutes:seconds, hours:minutes:seconds, days-hours,
  // days-hours:minutes, days-hours:minutes:seconds; Slurm rounds up to whole minutes (issue 33: "1:00"
  // had been read as an hour). The partition's MaxTime is one day: every form stays within it.
  transport::LocalShell shell;
  if (!shell.run({"sinfo", "-h"}, 20s).ok())
    FAIL("sinfo does not answer: no Slurm cluster (tests/slurm/start-cluster.sh starts one)");
  WorkDir dir;
  std::vector<std::string> held;
  struct CancelHeld {
    transport::LocalShell& shell;
    std::vector<std::string>& ids;
    ~CancelHeld() {
      std::vector<std::string> argv{"scancel"};
      argv.insert(argv.end(), ids.begin(), ids.end());
      if (ids.size()) shell.run(argv, 30s);
    }
  } cancel{shell, held};
  for (std::string form :
       {"30", "5:00", "0:30", "10:45", "01:30:00", "0-12", "1-00", "0-06:30", "0-00:10:45"}) {
    INFO("--time=" << form);
    const auto ours = parse_walltime(form);
    REQUIRE(ours);
    auto r = shell.run({"sbatch", "--parsable", "--hold", "--time=" + form, "--chdir=" + dir.path.string(),
                        "--output=/dev/null", "--wrap", "true"},
                       30s);
    REQUIRE(r.ok());
    const std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
    held.push_back(id);
    auto show = shell.run({"scontrol", "-o", "show", "job", id}, 30s);
    REQUIRE(show.ok());
    const auto at = show.out.find("TimeLimit=");
    REQUIRE(at != std::string::npos);
    const std::string limit = show.out.substr(at + 10, show.out.find(' ', at) - at - 10);
    const auto slurm = parse_slurm_duration(limit);
    REQUIRE(slurm);
    CHECK(static_cast<long>(*slurm) == walltime_minutes(*ours) * 60);
  }
}
