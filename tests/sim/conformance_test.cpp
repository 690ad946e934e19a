// The model checked against the real thing: the job sequences that tests/slurm/record-*.sh ran on the
// virtual cluster (Slurm 22.05.8), replayed through SlurmModel, end in the states that the real
// commands printed, as the real back end's parsers read them (tests/data/slurm/22.05 and its README
// for each job). Exit codes are compared as zero or not: the model's failing command exits 1.
//
// What the model leaves out (the engine never asks for it, or reads it nowhere):
//  - requeue after NODE_FAIL (rec-nodefail-requeued, PENDING BeginTime): job scripts say
//    --no-requeue (templates/slurm.sh.mustache), so a node failure ends the job, as rec-nodefail;
//  - --begin (rec-pending-begin), account and QOS limits (sbatch-refused-limit: the model never
//    refuses a submission), invalid requests (sbatch-invalid-*, -too-many-nodes): the back end's
//    classification of these is tested on the recorded outputs (slurm_22_05_test.cpp), and the
//    engine's answer to each in decide_test ("a failed submission");
//  - an array's throttle (%2: tasks wait with JobArrayTaskLimit), nodes and node lists, signals, a
//    step's own time limit (rec-step-own-time-limit): the model's steps end by their command or with
//    their allocation.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "model.hpp"
#include "sched/slurm.hpp"
#include "sched/slurm_parse.hpp"
#include "util/strings.hpp"

using namespace campaign;
using campaign::sched::JobInfo;
using campaign::sched::StepInfo;

namespace {

std::string recorded(const std::string& name) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/slurm/22.05/" + name);
  REQUIRE(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The state of job `id` in a recorded `sacct -P` output, read from its State column.
State recorded_state(const std::string& text, const std::string& id) {
  for (auto& line : split(text, '\n'))
    if (auto f = split(line, '|'); f.size() > 2 && f[0] == id) return sched::map_slurm_state(f[2]).value();
  FAIL("no job " << id);
  return State::planned;
}

// How one job of the model runs: its command's length, whether it fails, and a cut (node failure,
// time limit) after its start.
struct Shape {
  double duration = 1;
  bool fails = false;
  double cut = -1;
  State cut_state = State::node_fail;
};

struct World {
  sim::VirtualClock clock;
  sim::Rng rng{1};
  sim::Faults faults;  // none drawn: each job is shaped as recorded
  sim::Calls calls;
  sim::Trace trace{false, &clock};
  sim::FakeWorkspace ws{"/conformance", rng, faults, calls};
  sim::SlurmModel model{clock, rng, faults, calls, ws, trace};
  std::map<std::string, std::vector<sim::Member>> members;  // by job name
  std::map<std::string, std::vector<Shape>> shapes;         // by job name: per task, or per step

  World() {
    calls.trace = &trace;
    model.members_of = [this](const std::string& name) { return members[name]; };
    model.shape = [this](sim::Job& j) {
      const auto& s = shapes.at(j.name);
      j.queue_delay = 0;
      for (size_t k = 0; k < j.runs.size(); ++k) {
        const Shape& r = s.at(j.task ? static_cast<size_t>(*j.task) : k);
        j.runs[k].offset = 0;
        j.runs[k].duration = r.duration;
        j.runs[k].fails = r.fails;
      }
      const Shape& whole = s.at(j.task ? static_cast<size_t>(*j.task) : 0);
      j.cut = whole.cut;
      j.cut_state = whole.cut_state;
    };
  }
  // sbatch of a job of `name`: one case, an array of `shapes.size()` tasks, or (steps) an allocation
  // whose cases are the named steps.
  std::string submit(const std::string& name, std::vector<Shape> s, bool array = false,
                     const std::vector<std::string>& steps = {}, const std::vector<std::string>& after = {}) {
    sched::SubmitRequest r;
    r.job_name = name;
    r.depends_on = after;
    auto& m = members[name];
    const size_t n = steps.empty() ? s.size() : steps.size();
    for (size_t k = 0; k < n; ++k) {
      sim::Member who;
      who.attempt = who.case_id = static_cast<std::int64_t>(members.size() * 100 + k);
      who.number = 1;
      who.case_name = steps.empty() ? name : steps[k];
      who.run_dir = "/conformance/" + name + "/" + std::to_string(k);
      if (!steps.empty()) who.step_name = steps[k];
      if (array) who.task = static_cast<long>(k);
      m.push_back(who);
    }
    if (array) r.array_tasks = static_cast<long>(s.size());
    shapes[name] = std::move(s);
    return model.submit(r);
  }
  void at(double t) {
    clock.t = t;
    model.advance(t);
  }
  JobInfo job(const std::string& id) {
    auto got = model.query({id});
    REQUIRE(got.size() == 1);
    return got.front();
  }
};

}  // namespace

TEST_CASE("single jobs end as on the cluster (sacct-mixed-states.txt)", "[sim][conformance]") {
  std::map<std::string, JobInfo> real;
  for (auto& j : sched::parse_sacct(recorded("sacct-mixed-states.txt"))) real[j.name] = j;
  World w;
  const auto completed = w.submit("rec-completed", {{1}});
  const auto failed = w.submit("rec-failed", {{1, true}});
  const auto timeout = w.submit("rec-timeout", {{600, false, 89, State::timeout}});
  const auto cancelled = w.submit("rec-cancelled", {{600}});
  const auto nodefail = w.submit("rec-nodefail", {{600, false, 2, State::node_fail}});
  const auto running = w.submit("rec-running", {{10'000}});
  const auto waiting = w.submit("rec-pending-dependency", {{1}}, false, {}, {running});
  w.at(5);
  w.model.cancel({cancelled});  // scancel while it runs
  w.at(200);
  for (auto [name, id] :
       std::vector<std::pair<std::string, std::string>>{{"rec-completed", completed},
                                                        {"rec-failed", failed},
                                                        {"rec-timeout", timeout},
                                                        {"rec-cancelled", cancelled},
                                                        {"rec-nodefail", nodefail},
                                                        {"rec-running", running},
                                                        {"rec-pending-dependency", waiting}}) {
    INFO(name);
    const JobInfo model = w.job(id);
    const JobInfo& cluster = real.at(name);
    CHECK(model.state == cluster.state);
    CHECK((model.exit_code.value_or(0) != 0) == (cluster.exit_code.value_or(0) != 0));
  }
  // Why the dependent waits, as slurmctld says it (scontrol and squeue on the cluster).
  const auto why = sched::parse_scontrol_show_job(recorded("scontrol-show-job-pending-dependency.txt"));
  REQUIRE(why.size() == 1);
  CHECK(w.job(waiting).reason == why.front().reason);
  // A job no command knows (never existed, or purged from slurmctld and slurmdbd alike).
  CHECK(sched::parse_sacct(recorded("sacct-unknown-job.txt")).empty());
  CHECK(w.model.query({"999999"}).empty());
}

TEST_CASE("array tasks end as on the cluster (sacct-mixed-states.txt, arrays/)", "[sim][conformance]") {
  SECTION("155: four tasks, the second fails") {
    const auto text = recorded("sacct-mixed-states.txt");
    World w;
    const auto id = w.submit("rec-array", {{30}, {30, true}, {30}, {30}}, true);
    w.at(200);
    for (long k = 0; k < 4; ++k) {
      INFO("task " << k);
      // The cluster numbered them 1-4 (--array=1-4), the model 0-3.
      CHECK(w.job(id + "_" + std::to_string(k)).state ==
            recorded_state(text, "155_" + std::to_string(k + 1)));
    }
  }
  SECTION("4087: done, time limit, scancel of a task; 4088: node failure under both tasks") {
    const auto text = recorded("arrays/sacct-array-ended.txt");
    World w;
    const auto limit = w.submit("rec-array-limit", {{1}, {600, false, 87, State::timeout}, {600}}, true);
    const auto down = w.submit("rec-array-nodefail",
                               {{600, false, 1, State::node_fail}, {600, false, 1, State::node_fail}}, true);
    w.at(1);
    w.model.cancel({limit + "_2"});
    w.at(300);
    for (long k = 0; k < 3; ++k) {
      INFO("task " << k);
      CHECK(w.job(limit + "_" + std::to_string(k)).state ==
            recorded_state(text, "4087_" + std::to_string(k)));
    }
    for (long k = 0; k < 2; ++k)
      CHECK(w.job(down + "_" + std::to_string(k)).state == recorded_state(text, "4088_" + std::to_string(k)));
  }
}

TEST_CASE("job steps of packed allocations end as on the cluster (steps/sacct-steps-ended.txt)",
          "[sim][conformance]") {
  const auto text = recorded("steps/sacct-steps-ended.txt");
  std::map<std::string, StepInfo> real;
  for (auto& s : sched::parse_sacct_steps(text, split(sched::Slurm::kSacctStepFields, ',')).steps)
    real[s.name] = s;
  World w;
  // 2592: three steps side by side; the allocation scancelled while the third runs.
  const auto steps =
      w.submit("rec-steps", {{3}, {1, true}, {600}}, false,
               {"rec-step-ok", "rec-step-fail", "rec-step-killed-by-scancel-of-the-allocation"});
  // 2593: the allocation's time limit cuts its step.
  const auto limit = w.submit("rec-steps-timelimit", {{600, false, 146, State::timeout}}, false,
                              {"rec-step-cut-by-allocation-limit"});
  w.at(4);
  w.model.cancel({steps});
  w.at(400);
  CHECK(w.job(steps).state == recorded_state(text, "2592"));
  CHECK(w.job(limit).state == recorded_state(text, "2593"));
  auto model = w.model.query_steps({steps, limit});
  CHECK(model.ended.size() == 2);
  REQUIRE(model.steps.size() == 4);
  for (auto& s : model.steps) {
    INFO(s.name);
    const StepInfo& cluster = real.at(s.name);
    CHECK(s.state == cluster.state);
    CHECK((s.exit_code.value_or(0) != 0) == (cluster.exit_code.value_or(0) != 0));
  }
}
