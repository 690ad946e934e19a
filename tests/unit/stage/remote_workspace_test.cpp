// Staging for a system reached over ssh, against a real sshd: where the remote work directory is,
// how a job script gets there (one command, stale marker gone, local mirror kept), markers read at
// remote paths in one command, inputs sent only when changed, results fetched back by pattern.
#include "stage/remote_workspace.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "../ssh/fixture.hpp"
#include "sched/scheduler.hpp"
#include "stage/remote_record.hpp"

using campaign::ssh::SshShell;
using campaign::stage::RemoteWorkspace;
using namespace ssh_test;

namespace {

campaign::spec::System system_with_workdir(const std::string& workdir) {
  campaign::spec::System s;
  s.name = "remote";
  s.workdir = workdir;
  return s;
}

std::string remote_home(SshShell& sh) {
  auto r = sh.run({"sh", "-c", "printf %s \"$HOME\""});
  REQUIRE(r.ok());
  return r.out;
}

}  // namespace

TEST_CASE("the remote work directory is expanded on the remote side", "[ssh][stage]") {
  SshShell sh(sshd().options());
  const std::string home = remote_home(sh);
  using campaign::stage::resolve_remote_root;
  CHECK(resolve_remote_root(sh, system_with_workdir(""), "camp", "") == home + "/campaign-runs/camp");
  CHECK_THROWS_WITH(resolve_remote_root(sh, system_with_workdir("${CAMPAIGN_NO_SUCH_VAR}/x"), "camp", ""),
                    Catch::Contains("CAMPAIGN_NO_SUCH_VAR") && Catch::Contains("not set on ssh"));
  // The other cases with the environment read once: each login shell may take long (profile scripts).
  const auto env = campaign::stage::remote_environment(sh);
  const std::string where = sh.describe();
  auto resolve = [&](const std::string& workdir, const std::string& option) {
    return resolve_remote_root(env, where, system_with_workdir(workdir), "camp", option);
  };
  CHECK(resolve("${HOME}/scratch", "") == home + "/scratch/camp");
  // The shipped profiles' form: a default when the variable is not set there.
  CHECK(resolve("${CAMPAIGN_NO_SUCH_VAR:-.}/campaigns", "") == home + "/campaigns/camp");
  // --remote-workdir wins, taken as is (no campaign name appended), relative to the home directory.
  CHECK(resolve("${HOME}/scratch", "/tmp/x y/") == "/tmp/x y/");
  CHECK(resolve("", "runs/a") == home + "/runs/a");
  CHECK(resolve("", "~/b") == home + "/b");
}

TEST_CASE("prepare puts the script where it runs and in the local mirror", "[ssh][stage]") {
  SshShell sh(sshd().options());
  const fs::path base = test_root() / "prepare";
  const fs::path local = base / "local";
  const std::string remote = (base / "remote root").string();
  RemoteWorkspace ws(sh, local, remote);
  CHECK(ws.script_root() == fs::path(remote));

  campaign::render::Script script;
  script.case_name = "it's $(touch pwned) c1";
  script.run_dir = fs::path(remote) / script.case_name;
  script.path = script.run_dir / "job.sh";
  script.text = "#!/bin/bash\necho hi\n";
  // Stale markers of an earlier attempt on both sides.
  write_file(script.run_dir / ".exit", "1\n");
  write_file(local / script.case_name / ".exit", "1\n");

  const long before = sh.stats().commands;
  ws.prepare(script);
  CHECK(sh.stats().commands - before == 1);
  CHECK(slurp(script.path) == script.text);
  struct stat st {};
  REQUIRE(::stat(script.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0100) != 0);
  CHECK_FALSE(fs::exists(script.run_dir / ".exit"));
  CHECK(slurp(local / script.case_name / "job.sh") == script.text);
  CHECK_FALSE(fs::exists(local / script.case_name / ".exit"));
  CHECK_FALSE(fs::exists(base / "pwned"));

  // Markers: the catalog's local run directories, read at their remote places in one command.
  write_file(script.run_dir / ".exit", "0\n");
  const std::vector<std::string> dirs = {(local / script.case_name).string(), (local / "not-yet").string()};
  CHECK(ws.remote_dir(dirs[0]) == (fs::path(remote) / script.case_name).string());
  const long before_markers = sh.stats().commands;
  auto markers = ws.read_markers(dirs);
  CHECK(sh.stats().commands - before_markers == 1);
  REQUIRE(markers.size() == 2);
  CHECK(markers[0] == std::optional<int>(0));
  CHECK_FALSE(markers[1]);

  // Results come back by pattern: collectors' files, the job's output, the marker; not the rest.
  write_file(script.run_dir / "history.csv", "epoch,time\n0,1\n");
  write_file(script.run_dir / "slurm-42.out", "output\n");
  write_file(script.run_dir / "slurm-41.out", "an earlier attempt\n");
  write_file(script.run_dir / "checkpoint.h5", "large\n");
  write_file(script.run_dir / "utilisation-nid0001.csv", "time,device,utilization\n");
  write_file(script.run_dir / "power-nid0001.csv", "time,device,watts\n");  // the sampler's too
  write_file(script.run_dir / "usage-nid0001.csv", "quantity,value\n");
  auto collector = campaign::collect::parse_collector(
      YAML::Load("sources: [{engine: csv, file: history.csv, metrics: [time]},"
                 " {engine: regex, file: '*.h5', required: false, patterns: [{regex: 'x(\\d)', name: x}]}]"),
      "inline");
  campaign::spec::Fetch fetch;
  fetch.exclude = {"*.h5"};
  auto patterns = campaign::stage::fetch_patterns({collector}, fetch, "42");
  auto r = ws.fetch({{dirs[0], patterns}}, fetch.exclude);
  const std::string c = script.case_name;
  CHECK(r.transferred == std::vector<std::string>{c + "/.exit", c + "/history.csv", c + "/power-nid0001.csv",
                                                  c + "/slurm-42.out", c + "/usage-nid0001.csv",
                                                  c + "/utilisation-nid0001.csv"});
  CHECK(slurp(local / c / "history.csv") == "epoch,time\n0,1\n");
  CHECK_FALSE(fs::exists(local / c / "checkpoint.h5"));
  CHECK_FALSE(fs::exists(local / c / "slurm-41.out"));
  CHECK(ws.fetch({{dirs[0], patterns}}, fetch.exclude).transferred.empty());
}

TEST_CASE("a dead link while preparing is a transient scheduler problem", "[ssh][stage]") {
  Sshd own(test_root() / "prepare-dead");
  auto options = own.options();
  options.reconnect_attempts = 1;
  SshShell sh(options);
  sh.connect();
  RemoteWorkspace ws(sh, test_root() / "prepare-dead" / "local",
                     (test_root() / "prepare-dead" / "r").string());
  own.stop();
  campaign::render::Script script;
  script.case_name = "c";
  script.run_dir = test_root() / "prepare-dead" / "r" / "c";
  script.path = script.run_dir / "job.sh";
  script.text = "true\n";
  CHECK_THROWS_AS(ws.prepare(script), campaign::sched::SchedulerUnavailable);
  // Markers cannot be read: nothing is known, nothing throws.
  auto markers = ws.read_markers({(test_root() / "prepare-dead" / "local" / "c").string()});
  REQUIRE(markers.size() == 1);
  CHECK_FALSE(markers[0]);
}

TEST_CASE("inputs are sent once, literally, and only again when they change", "[ssh][stage]") {
  SshShell sh(sshd().options());
  const fs::path base = test_root() / "inputs";
  campaign::spec::Campaign c;
  c.dir = base / "campaign";
  write_file(c.dir / "data" / "it's a $(touch pwned) file.txt", "literal\n");
  write_file(c.dir / "data" / "__pycache__" / "x.pyc", "skip\n");
  write_file(c.dir / "config.yaml", "a: 1\n");
  campaign::spec::Input dir_input;
  dir_input.from = "data";
  dir_input.to = "data";
  dir_input.exclude = {"__pycache__"};
  campaign::spec::Input file_input;
  file_input.from = "config.yaml";
  file_input.to = "configs/main.yaml";
  c.inputs = {dir_input, file_input};
  const std::string root = (base / "remote").string();

  auto first = campaign::stage::stage_inputs(sh, c, root);
  CHECK(first.transferred ==
        std::vector<std::string>{"data/it's a $(touch pwned) file.txt", "configs/main.yaml"});
  CHECK(slurp(base / "remote" / "data" / "it's a $(touch pwned) file.txt") == "literal\n");
  CHECK(slurp(base / "remote" / "configs" / "main.yaml") == "a: 1\n");
  CHECK_FALSE(fs::exists(base / "remote" / "data" / "__pycache__"));
  CHECK_FALSE(fs::exists(base / "remote" / "data" / "pwned"));
  CHECK(campaign::stage::stage_inputs(sh, c, root).transferred.empty());
  write_file(c.dir / "config.yaml", "a: 2\n");
  CHECK(campaign::stage::stage_inputs(sh, c, root).transferred ==
        std::vector<std::string>{"configs/main.yaml"});

  campaign::spec::Input missing;
  missing.from = "nowhere";
  missing.to = "nowhere";
  c.inputs = {missing};
  CHECK_THROWS_WITH(campaign::stage::stage_inputs(sh, c, root), Catch::Contains("does not exist"));
}

TEST_CASE("the remote record names the host and directory, nothing secret", "[stage]") {
  const fs::path dir = test_root() / "record";
  CHECK_FALSE(campaign::stage::read_remote_record(dir));
  campaign::stage::write_remote_record(dir, {"daint", "me@ela.cscs.ch:22", "/scratch/me/campaigns/x"});
  auto r = campaign::stage::read_remote_record(dir);
  REQUIRE(r);
  CHECK(r->system == "daint");
  CHECK(r->host == "me@ela.cscs.ch:22");
  CHECK(r->workdir == "/scratch/me/campaigns/x");
  write_file(dir / "remote.json", "{not json");
  CHECK_THROWS_WITH(campaign::stage::read_remote_record(dir), Catch::Contains("remote.json"));
}

TEST_CASE("a retry keeps the earlier script on both sides; start stamps come back with their times",
          "[ssh][stage]") {
  SshShell sh(sshd().options());
  const fs::path base = test_root() / "retry";
  const fs::path local = base / "local";
  const std::string remote = (base / "remote").string();
  RemoteWorkspace ws(sh, local, remote);
  campaign::render::Script script;
  script.case_name = "c1";
  script.run_dir = fs::path(remote) / "c1";
  script.path = script.run_dir / "job.sh";
  for (int attempt : {1, 2, 2}) {  // attempt 2 twice: a submission retried keeps attempt 1's copy
    script.attempt = attempt;
    script.text = "# attempt " + std::to_string(attempt) + "\n";
    ws.prepare(script);
  }
  CHECK(slurp(script.path) == "# attempt 2\n");
  CHECK(slurp(script.run_dir / "attempt-1" / "job.sh") == "# attempt 1\n");
  CHECK(slurp(local / "c1" / "job.sh") == "# attempt 2\n");
  CHECK(slurp(local / "c1" / "attempt-1" / "job.sh") == "# attempt 1\n");

  // The job's start stamp is fetched with its modification time to the nanosecond, as the
  // collectors' files are: collection compares them in the mirror.
  write_file(script.run_dir / ".started-2", "2\n");
  write_file(script.run_dir / "history.csv", "epoch,time\n0,1\n");
  const timespec stamp[2] = {{0, UTIME_OMIT}, {1700000000, 123456789}};
  const timespec older[2] = {{0, UTIME_OMIT}, {1700000000, 123456788}};
  REQUIRE(::utimensat(AT_FDCWD, (script.run_dir / ".started-2").c_str(), stamp, 0) == 0);
  REQUIRE(::utimensat(AT_FDCWD, (script.run_dir / "history.csv").c_str(), older, 0) == 0);
  auto collector = campaign::collect::parse_collector(
      YAML::Load("sources: [{engine: csv, file: history.csv, metrics: [time]}]"), "inline");
  auto patterns = campaign::stage::fetch_patterns({collector}, {}, "7");
  ws.fetch({{(local / "c1").string(), patterns}}, {});
  struct stat st {};
  REQUIRE(::stat((local / "c1" / ".started-2").c_str(), &st) == 0);
  CHECK(st.st_mtim.tv_sec == 1700000000);
  CHECK(st.st_mtim.tv_nsec == 123456789);
  REQUIRE(::stat((local / "c1" / "history.csv").c_str(), &st) == 0);
  CHECK(st.st_mtim.tv_nsec == 123456788);
}
