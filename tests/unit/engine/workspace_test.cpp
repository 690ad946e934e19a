// The engine's contract with a Workspace (engine/workspace.hpp), with fakes for the workspace and the
// scheduler: scripts are rendered at the workspace's root and prepared there before the attempt is
// committed `submitting`; a workspace that cannot be reached submits nothing; markers are asked for
// the catalog's (local) run directories.
#include "engine/workspace.hpp"

#include <catch2/catch.hpp>

#include "../temp_dir.hpp"
#include "engine/engine.hpp"
#include "matrix/plan.hpp"
#include "spec/campaign.hpp"
#include "spec/system.hpp"

using namespace campaign;
namespace fs = std::filesystem;

namespace {

class FakeWorkspace : public engine::Workspace {
 public:
  fs::path root = "/remote root/camp";
  std::vector<render::Script> prepared;
  std::vector<std::vector<std::string>> marker_requests;
  std::map<std::string, int> markers;  // local run dir -> exit status
  bool reachable = true;

  fs::path script_root() const override { return root; }
  void prepare(const render::Script& script) override {
    if (!reachable) throw sched::SchedulerUnavailable("login node unreachable");
    prepared.push_back(script);
  }
  std::vector<std::optional<int>> read_markers(const std::vector<std::string>& run_dirs) override {
    marker_requests.push_back(run_dirs);
    std::vector<std::optional<int>> out;
    for (auto& d : run_dirs) {
      auto it = markers.find(d);
      out.push_back(it == markers.end() ? std::nullopt : std::optional<int>(it->second));
    }
    return out;
  }
  std::map<std::string, std::string> files;  // path -> text: what put() wrote, and what read_in finds
  std::vector<std::optional<std::string>> read_in(const std::vector<std::string>& run_dirs,
                                                  const std::string& name) override {
    std::vector<std::optional<std::string>> out;
    for (auto& d : run_dirs) {
      auto it = files.find((fs::path(d) / name).string());
      out.push_back(it == files.end() ? std::nullopt : std::optional<std::string>(it->second));
    }
    return out;
  }
  void put(const std::vector<batch::File>& written) override {
    if (!reachable) throw sched::SchedulerUnavailable("login node unreachable");
    for (auto& f : written) files[f.path.string()] = f.text;
  }
};

class FakeScheduler : public sched::Scheduler {
 public:
  std::vector<sched::SubmitRequest> submitted;
  std::string name() const override { return "fake"; }
  std::string submit(const sched::SubmitRequest& r) override {
    submitted.push_back(r);
    return std::to_string(100 + submitted.size());
  }
  std::vector<sched::JobInfo> query(const std::vector<std::string>& ids) override {
    std::vector<sched::JobInfo> out;
    for (auto& id : ids) {
      sched::JobInfo j;
      j.id = id;
      j.state = State::running;
      out.push_back(j);
    }
    return out;
  }
  std::vector<sched::JobInfo> find_by_name(const std::vector<std::string>&) override { return {}; }
  int queued_jobs_of_user() override { return 0; }
  void cancel(const std::vector<std::string>&) override {}
};

class NoShell : public transport::Shell {
 public:
  transport::CommandResult run(const std::vector<std::string>&, std::chrono::milliseconds,
                               const std::string&) override {
    throw std::logic_error("the engine must not run commands itself");
  }
  void put(const fs::path&, const std::string&) override { throw std::logic_error("put"); }
  void get(const std::string&, const fs::path&) override { throw std::logic_error("get"); }
  bool exists(const std::string&) override { throw std::logic_error("exists"); }
  std::optional<std::string> read_file(const std::string&, size_t) override {
    throw std::logic_error("markers go through the workspace");
  }
  std::string describe() const override { return "none"; }
};

}  // namespace

TEST_CASE("the engine renders at the workspace's root and prepares before submitting", "[engine]") {
  const campaign_test::TempDir scratch("engine-ws");  // removed however the test ends
  const fs::path& workdir = scratch.path;
  auto system = spec::load_system_file(fs::path(CAMPAIGN_SOURCE_DIR) / "systems" / "testcluster.yaml");
  auto campaign = spec::parse_campaign(R"(name: camp
matrix: {n: [1, 2]}
case_name: c{{n}}
job: {partition: mc, nodes: 1, walltime: 5m, command: "echo {{workdir}}"}
)",
                                       (workdir / "camp.yaml").string());
  FakeWorkspace ws;
  auto plan = matrix::expand(campaign, system, ws.root.string());
  Catalog catalog = Catalog::open(workdir);
  FakeScheduler scheduler;
  NoShell shell;
  engine::EngineOptions eo;
  eo.workspace = &ws;
  engine::Engine engine(plan, workdir, catalog, scheduler, shell, eo);
  engine.start();

  ws.reachable = false;
  engine.tick(true);
  CHECK(scheduler.submitted.empty());
  for (auto& a : catalog.latest_attempts(engine.campaign_id())) CHECK(a.state == State::planned);

  ws.reachable = true;
  engine.tick(true);
  REQUIRE(scheduler.submitted.size() == 2);
  REQUIRE(ws.prepared.size() == 2);
  const auto& s = ws.prepared[0];
  CHECK(s.run_dir == ws.root / "c1");
  CHECK(s.text.find("cd '/remote root/camp/c1'") != std::string::npos);
  CHECK(s.text.find("echo '/remote root/camp'") != std::string::npos);
  CHECK(scheduler.submitted[0].script_path == (ws.root / "c1" / "job.sh").string());
  CHECK(scheduler.submitted[0].workdir == (ws.root / "c1").string());
  CHECK_FALSE(fs::exists(workdir / "c1"));  // writing the local copy is the workspace's business

  // The catalog keeps the local run directories; markers are asked for them, once the jobs run.
  auto latest = catalog.latest_attempts(engine.campaign_id());
  CHECK(latest[0].run_dir == (workdir / "c1").string());
  ws.markers[(workdir / "c1").string()] = 0;
  engine.tick(false);  // queued: no marker is read before the scheduler says they run
  CHECK(ws.marker_requests.empty());
  engine.tick(true);  // the poll: both run
  CHECK(ws.marker_requests.empty());
  engine.tick(false);
  REQUIRE_FALSE(ws.marker_requests.empty());
  CHECK(ws.marker_requests.back() ==
        std::vector<std::string>{(workdir / "c1").string(), (workdir / "c2").string()});
  latest = catalog.latest_attempts(engine.campaign_id());
  CHECK(latest[0].state == State::completed);
  CHECK(latest[1].state == State::running);
}

TEST_CASE("a packed allocation's files and its cases' start markers go through the workspace", "[engine]") {
  const campaign_test::TempDir scratch("engine-wsp");  // removed however the test ends
  const fs::path& workdir = scratch.path;
  auto system = spec::load_system_file(fs::path(CAMPAIGN_SOURCE_DIR) / "systems" / "testcluster.yaml");
  auto campaign = spec::parse_campaign(R"(name: camp
matrix: {n: [1, 2]}
case_name: c{{n}}
job: {partition: mc, nodes: 1, cpus_per_rank: 1, walltime: 5m, command: "true"}
pack: {nodes: 1}
)",
                                       (workdir / "camp.yaml").string());
  FakeWorkspace ws;
  auto plan = matrix::expand(campaign, system, ws.root.string());
  Catalog catalog = Catalog::open(workdir);
  FakeScheduler scheduler;
  NoShell shell;
  engine::EngineOptions eo;
  eo.workspace = &ws;
  eo.campaign_exe = "/remote/bin/campaign";
  engine::Engine engine(plan, workdir, catalog, scheduler, shell, eo);
  engine.start();
  engine.tick(true);
  // One allocation: its manifest, then its script, written where the jobs run, and submitted there.
  REQUIRE(scheduler.submitted.size() == 1);
  const std::string script = scheduler.submitted[0].script_path;
  CHECK(script.rfind((ws.root / ".alloc").string(), 0) == 0);
  REQUIRE(ws.files.count(script));
  CHECK(ws.files.at(script).find("/remote/bin/campaign pack-exec") != std::string::npos);
  const std::string manifest = (fs::path(script).parent_path() / "manifest.json").string();
  REQUIRE(ws.files.count(manifest));
  CHECK(ws.files.at(manifest).find("\"run_dir\": \"/remote root/camp/c1\"") != std::string::npos);
  CHECK_FALSE(fs::exists(workdir / ".alloc"));  // nothing written on this machine by the engine
  // Both cases share the 4-core node: one allocation of 1 node.
  CHECK(ws.files.at(manifest).find("\"nodes\": 1") != std::string::npos);

  // The allocation runs; a case runs once its start marker (read through the workspace) names it.
  auto latest = catalog.latest_attempts(engine.campaign_id());
  const std::string alloc = latest[0].job_name;
  ws.files[(workdir / "c1" / ".start").string()] =
      R"({"allocation": ")" + alloc + R"(", "job_name": "x", "time": 1, "nodes": [], "slots": [0]})";
  for (int k = 0; k < 3; ++k) engine.tick(true);
  latest = catalog.latest_attempts(engine.campaign_id());
  CHECK(latest[0].state == State::running);
  CHECK(latest[1].state == State::queued);
}
