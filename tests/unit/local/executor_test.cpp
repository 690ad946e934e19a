// The local executor driven through a Shell (`campaign executor`, local/executor.hpp): the same
// jobs, states and errors as LocalScheduler itself, every call one command with its request on
// standard input, and every failure of the far side mapped to the error the engine expects.
#include "local/executor.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace local_test;
using campaign::State;
using campaign::local::LocalOptions;
using campaign::local::serve_executor_request;
using campaign::local::ShellExecutor;
using campaign::sched::SchedulerUnavailable;
using campaign::sched::SubmitError;
using campaign::sched::SubmitFailure;
using campaign::transport::CommandResult;

namespace {

// Answers `<campaign> executor --spool DIR` in this process, as the subcommand would on the remote
// host; anything else (or a scripted failure) as configured.
class ExecutorShell : public campaign::transport::Shell {
 public:
  std::function<std::optional<CommandResult>(const std::vector<std::string>&)> override_result;
  std::vector<std::vector<std::string>> calls;
  std::vector<std::string> inputs;

  CommandResult run(const std::vector<std::string>& argv, std::chrono::milliseconds,
                    const std::string& stdin_data) override {
    calls.push_back(argv);
    inputs.push_back(stdin_data);
    if (override_result)
      if (auto r = override_result(argv)) return *r;
    REQUIRE(argv.size() == 4);
    REQUIRE(argv[1] == "executor");
    REQUIRE(argv[2] == "--spool");
    LocalOptions o;
    o.spool = argv[3];
    o.kill_grace = 500ms;
    return {0, serve_executor_request(o, stdin_data) + "\n", ""};
  }
  void put(const std::filesystem::path&, const std::string&) override {}
  void get(const std::string&, const std::filesystem::path&) override {}
  bool exists(const std::string&) override { return false; }
  std::optional<std::string> read_file(const std::string&, size_t) override { return std::nullopt; }
  std::string describe() const override { return "test-host"; }
};

}  // namespace

TEST_CASE("jobs run through `campaign executor` requests", "[local][executor]") {
  TempDir dir("executor");
  ExecutorShell shell;
  ShellExecutor exec(shell, "/opt/campaign/bin/campaign", (dir.path / ".local").string());

  auto ok = make_job(dir.path, "ok", "echo hello from the job");
  auto bad = make_job(dir.path, "bad", "exit 3");
  std::string a = exec.submit(request(ok, "job-ok", {}, {"--time=60"}));
  std::string b = exec.submit(request(bad, "job-bad", {a}));
  CHECK(shell.calls.front()[0] == "/opt/campaign/bin/campaign");
  // Nothing but the spool travels on the command line.
  for (auto& c : shell.calls) CHECK(c.size() == 4);
  CHECK(shell.inputs.front().find("job-ok") != std::string::npos);

  auto ea = wait_end(exec, a);
  CHECK(ea.state == State::completed);
  CHECK(ea.name == "job-ok");
  CHECK(ea.exit_code == 0);
  auto eb = wait_end(exec, b);
  CHECK(eb.state == State::failed);
  CHECK(eb.exit_code == 3);
  CHECK(read(dir.path / "ok" / ("job-" + a + ".out")).find("hello from the job") != std::string::npos);

  auto found = exec.find_by_name({"job-bad", "no-such-job"});
  REQUIRE(found.size() == 1);
  CHECK(found[0].id == b);
  CHECK(exec.query({}).empty());
  CHECK(exec.queued_jobs_of_user() == 0);

  auto sleeper = make_job(dir.path, "sleeper", "sleep 30");
  std::string c = exec.submit(request(sleeper, "job-sleep"));
  CHECK(exec.queued_jobs_of_user() == 1);
  exec.cancel({c});
  CHECK(wait_end(exec, c).state == State::cancelled);
}

TEST_CASE("a submission's demand travels to the executor as data", "[local][executor]") {
  TempDir dir("executor-demand");
  ExecutorShell shell;
  ShellExecutor exec(shell, "/opt/campaign/bin/campaign", (dir.path / ".local").string());
  auto r = request(make_job(dir.path, "one", "#LOCAL --cores=1\ntrue"), "job-one");
  r.demand = campaign::resource::Demand{1, 1, 0, 256, true};
  std::string id = exec.submit(r);
  auto sent = nlohmann::json::parse(shell.inputs.front());
  CHECK(sent["request"]["demand"] ==
        nlohmann::json{{"nodes", 1}, {"cores", 1}, {"gpus", 0}, {"memory_mb", 256}, {"exclusive", true}});
  auto record = campaign::local::record_from_json(read(dir.path / ".local" / "jobs" / (id + ".json")));
  REQUIRE(record);
  CHECK(record->demand == campaign::resource::Demand{1, 1, 0, 256, true});
  CHECK(wait_end(exec, id).state == State::completed);
}

TEST_CASE("executor failures reach the engine as scheduler errors", "[local][executor]") {
  TempDir dir("executor-errors");
  ExecutorShell shell;
  ShellExecutor exec(shell, "campaign", (dir.path / ".local").string());

  SECTION("a job the executor rejects is invalid") {
    try {
      exec.submit(request(dir.path / "missing.sh", "x"));
      FAIL("no exception");
    } catch (const SubmitError& e) {
      CHECK(e.kind() == SubmitFailure::invalid);
      CHECK(std::string(e.what()).find("test-host") != std::string::npos);
    }
  }
  SECTION("no campaign binary there") {
    shell.override_result = [](const std::vector<std::string>&) {
      return std::optional<CommandResult>(CommandResult{127, "", "sh: campaign: not found\n"});
    };
    try {
      exec.query({"1"});
      FAIL("no exception");
    } catch (const SchedulerUnavailable& e) {
      CHECK(std::string(e.what()).find("access.ssh.campaign") != std::string::npos);
    }
    // A submit whose command did not answer may still have happened: transient, reconciled by name.
    try {
      exec.submit(request(dir.path / "x.sh", "x"));
      FAIL("no exception");
    } catch (const SubmitError& e) {
      CHECK(e.kind() == SubmitFailure::transient);
    }
  }
  SECTION("an answer that is not JSON") {
    shell.override_result = [](const std::vector<std::string>&) {
      return std::optional<CommandResult>(CommandResult{0, "Welcome to the login node!\n", ""});
    };
    CHECK_THROWS_AS(exec.queued_jobs_of_user(), SchedulerUnavailable);
    CHECK_THROWS_AS(exec.find_by_name({"x"}), SchedulerUnavailable);
  }
  SECTION("a request of another protocol version") {
    LocalOptions o;
    o.spool = dir.path / ".local";
    auto answer = nlohmann::json::parse(serve_executor_request(o, R"({"op":"count"})"));
    CHECK(answer["ok"] == false);
    CHECK(answer["error"] == "invalid");
    auto garbage = nlohmann::json::parse(serve_executor_request(o, "{"));
    CHECK(garbage["ok"] == false);
  }
}
