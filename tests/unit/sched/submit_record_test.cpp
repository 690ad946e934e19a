// The wrapper that records a submit command's outcome (sched/command.hpp), run by a real POSIX sh
// through LocalShell: what it records for each ending, and that it outlives the process that
// started it (over ssh: the connection's session, killed when the link drops).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <thread>

#include "../temp_dir.hpp"
#include "sched/command.hpp"
#include "sched/slurm.hpp"
#include "transport/local_shell.hpp"

using namespace campaign;
using namespace campaign::sched;
namespace fs = std::filesystem;

namespace {

// A back end's reading, simplified: exit 0 prints the id; 1 says nothing was submitted.
std::string read_id(const std::vector<std::string>& argv, const transport::CommandResult& r) {
  if (r.exit_code == 1) throw SubmitError(SubmitFailure::refused_by_limit, "refused: " + r.err);
  if (r.exit_code != 0) throw SubmitError(SubmitFailure::transient, argv.at(0) + " failed");
  return r.out.substr(0, r.out.find('\n'));
}

SubmitRecord record_of(transport::Shell& shell, const std::string& prefix) {
  return command::read_records(shell, {prefix}, {"submit"}, read_id).at(0);
}

}  // namespace

TEST_CASE("the submission record says what the submit command did, and prints what it printed") {
  campaign_test::TempDir dir("record");
  transport::LocalShell shell;
  const std::string prefix = (dir.path / ".submit" / "job-a1.100").string();
  using Outcome = SubmitRecord::Outcome;
  CHECK(record_of(shell, prefix).outcome == Outcome::none);  // nothing ran yet

  SECTION("it printed a job id") {
    auto r = shell.run(
        command::recorded({"sh", "-c", "echo 4242; echo note >&2"}, prefix, std::chrono::seconds(30)));
    CHECK(r.exit_code == 0);
    CHECK(r.out == "4242\n");  // the caller reads the command's own output
    CHECK(r.err == "note\n");
    auto rec = record_of(shell, prefix);
    CHECK(rec.outcome == Outcome::submitted);
    CHECK(rec.job_id == "4242");
  }
  SECTION("it said that nothing was submitted") {
    auto r = shell.run(
        command::recorded({"sh", "-c", "echo limit >&2; exit 1"}, prefix, std::chrono::seconds(30)));
    CHECK(r.exit_code == 1);
    auto rec = record_of(shell, prefix);
    CHECK(rec.outcome == Outcome::refused);
    CHECK(rec.message.find("limit") != std::string::npos);
  }
  SECTION("it was killed: it may have submitted") {
    shell.run(command::recorded({"sh", "-c", "kill -9 $$"}, prefix, std::chrono::seconds(30)));
    CHECK(record_of(shell, prefix).outcome == Outcome::unclear);
  }
  SECTION("it ran past its limit: killed by the wrapper's timeout, unclear") {
    auto r = shell.run(command::recorded({"sleep", "30"}, prefix, std::chrono::seconds(1)));
    CHECK(r.exit_code == 137);
    CHECK(record_of(shell, prefix).outcome == Outcome::unclear);
  }
  SECTION("a half-written status is no status yet") {
    fs::create_directories(dir.path / ".submit");
    std::ofstream(prefix + ".rc") << "";
    CHECK(record_of(shell, prefix).outcome == Outcome::none);
    std::ofstream(prefix + ".out") << "";
    CHECK(record_of(shell, prefix).outcome == Outcome::started);
  }
  SECTION("a new submission under the same prefix drops the old status before it runs") {
    shell.run(command::recorded({"sh", "-c", "exit 1"}, prefix, std::chrono::seconds(30)));
    REQUIRE(record_of(shell, prefix).outcome == Outcome::refused);
    const std::string gate = (dir.path / "gate").string();
    REQUIRE(::mkfifo(gate.c_str(), 0600) == 0);
    // The second command waits on the gate, in the background: meanwhile there is no record.
    auto wrapped = command::recorded({"sh", "-c", "cat \"$0\" >/dev/null; echo 9", gate}, prefix,
                                     std::chrono::seconds(30));
    std::vector<std::string> launch = {"sh", "-c", "\"$@\" >/dev/null 2>&1 </dev/null &", "launch"};
    launch.insert(launch.end(), wrapped.begin(), wrapped.end());
    shell.run(launch);
    // The wrapper removed the old status first thing; wait for that state, not for a time.
    for (int i = 0; i < 3000 && fs::exists(prefix + ".rc"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(record_of(shell, prefix).outcome == Outcome::started);
    std::ofstream(gate) << "go\n";  // opens the gate
    for (int i = 0; i < 3000 && !fs::exists(prefix + ".rc"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    auto rec = record_of(shell, prefix);
    CHECK(rec.outcome == Outcome::submitted);
    CHECK(rec.job_id == "9");
  }
}

TEST_CASE("the recorded submit command outlives the process that started it (a dropped connection)") {
  campaign_test::TempDir dir("record");
  transport::LocalShell shell;
  const std::string prefix = (dir.path / ".submit" / "job-a1.100").string();
  const std::string gate = (dir.path / "gate").string();
  REQUIRE(::mkfifo(gate.c_str(), 0600) == 0);
  // The session that started the submission dies (SIGKILL, as sshd's per-connection process does
  // when the link drops) while the command is still waiting to reach the scheduler (the gate).
  auto wrapped = command::recorded({"sh", "-c", "cat \"$0\" >/dev/null; echo 5150", gate}, prefix,
                                   std::chrono::seconds(30));
  std::vector<std::string> session = {"sh", "-c", "\"$@\" >/dev/null 2>&1 </dev/null & kill -9 $$",
                                      "session"};
  session.insert(session.end(), wrapped.begin(), wrapped.end());
  auto r = shell.run(session);
  CHECK(r.exit_code == 137);  // the session is gone
  // The command has not ended (the wrapper may still be starting: wait for the state that matters).
  for (int i = 0; i < 3000 && !fs::exists(prefix + ".out"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(record_of(shell, prefix).outcome == SubmitRecord::Outcome::started);
  std::ofstream(gate) << "go\n";  // the command reaches the scheduler after its session died
  for (int i = 0; i < 3000 && !fs::exists(prefix + ".rc"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto rec = record_of(shell, prefix);
  CHECK(rec.outcome == SubmitRecord::Outcome::submitted);  // and its record says so
  CHECK(rec.job_id == "5150");
}
