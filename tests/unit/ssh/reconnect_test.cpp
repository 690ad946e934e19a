// Links that drop: the per-connection sshd process is SIGKILLed between commands (the next command
// reconnects, runs once) or during one (unknown outcome, then the shell recovers); keepalives flow
// on schedule. (OpenSSH 9.2 with ClientAliveInterval 1 / ClientAliveCountMax 1 did not drop a
// silent client within seconds, so "the server would have hung up" is not tested here.)
#include <catch2/catch.hpp>

#include "fixture.hpp"

using campaign::ssh::OutcomeUnknownError;
using campaign::ssh::SshShell;
using namespace ssh_test;

TEST_CASE("a link killed between commands is reconnected transparently", "[ssh][reconnect]") {
  SshShell sh(sshd().options());
  REQUIRE(sh.run({"echo", "one"}).out == "one\n");
  REQUIRE_FALSE(descendants(sshd().pid).empty());

  Sshd::kill_connections(sshd().pid);
  auto r = sh.run({"echo", "two"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "two\n");
  CHECK(sh.stats().connects == 2);

  SECTION("a command retried on the fresh session runs exactly once") {
    const fs::path log = test_root() / "once.log";
    fs::remove(log);
    Sshd::kill_connections(sshd().pid);
    CHECK(sh.run({"sh", "-c", "echo ran >> \"$1\"", "sh", log.string()}).ok());
    CHECK(slurp(log) == "ran\n");
    CHECK(sh.stats().connects == 3);
  }
  SECTION("file operations too") {
    Sshd::kill_connections(sshd().pid);
    CHECK(sh.exists("/"));
    Sshd::kill_connections(sshd().pid);
    write_file(test_root() / "re-put", "again\n");
    sh.put(test_root() / "re-put", (test_root() / "re-put-remote").string());
    CHECK(slurp(test_root() / "re-put-remote") == "again\n");
    CHECK(sh.stats().connects == 4);
  }
}

TEST_CASE("a link killed while a command runs: unknown outcome, then recovery", "[ssh][reconnect]") {
  SshShell sh(sshd().options());
  REQUIRE(sh.run({"true"}).ok());
  std::thread killer([] {
    // Once `sleep 20` runs remotely, the command is surely in the server's hands.
    for (int i = 0; i < 500 && !Sshd::runs(sshd().pid, {"sleep", "20"}); ++i)
      std::this_thread::sleep_for(10ms);
    Sshd::kill_connections(sshd().pid);
  });
  auto t0 = std::chrono::steady_clock::now();
  std::string message;
  try {
    sh.run({"sleep", "20"});
  } catch (const OutcomeUnknownError& e) {
    message = e.what();
  }
  killer.join();
  CHECK(seconds_since(t0) < 10);
  CHECK(message.find("whether it ran is unknown") != std::string::npos);
  CHECK(message.find("sleep 20") != std::string::npos);
  // The caller decides what to do; the shell itself is usable again at once.
  auto after = sh.run({"echo", "after"});
  CHECK(after.out == "after\n");
  CHECK(sh.stats().connects == 2);
}

TEST_CASE("reconnection backs off until the server is back, then gives up clearly", "[ssh][reconnect]") {
  Sshd own(test_root() / "comeback");
  auto o = own.options();
  // Waits 50, 100, ..., 6400 ms between attempts: 12.7 s in all for the server's restart, which
  // a loaded machine may take seconds over.
  o.reconnect_attempts = 9;
  o.reconnect_backoff = 50ms;
  SshShell sh(o);
  REQUIRE(sh.run({"true"}).ok());

  own.stop();  // the login node goes away...
  auto t0 = std::chrono::steady_clock::now();
  std::thread comeback([&] {
    std::this_thread::sleep_for(200ms);  // ...and is back a moment later
    own.restart();
  });
  auto r = sh.run({"echo", "back"});
  comeback.join();
  CHECK(r.out == "back\n");
  CHECK(sh.stats().connects == 2);
  CHECK(seconds_since(t0) >= 0.2);

  own.stop();
  o.reconnect_attempts = 3;
  o.reconnect_backoff = 50ms;
  SshShell doomed(o);
  own.restart();
  REQUIRE(doomed.run({"true"}).ok());
  own.stop();
  t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(doomed.run({"true"}), Catch::Contains("refused") && Catch::Contains("failed 3 times"));
  CHECK(seconds_since(t0) >= 0.15);  // 50 + 100 ms of backoff
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("keepalives flow while idle and during quiet commands", "[ssh][keepalive]") {
  auto o = sshd().options();
  o.keepalive_interval = 50ms;
  SshShell sh(o);
  REQUIRE(sh.run({"true"}).ok());
  // Waited for, not counted after a fixed sleep: a loaded machine may wake the thread late, and
  // the verdict is that keepalives flow, not how punctually.
  const auto t0 = std::chrono::steady_clock::now();
  while (sh.stats().keepalives < 4 && seconds_since(t0) < 30) std::this_thread::sleep_for(10ms);
  const long idle = sh.stats().keepalives;
  CHECK(idle >= 4);
  // A quiet command 40 intervals long: at least a few of them are sent whatever the load.
  CHECK(sh.run({"sleep", "2"}).ok());
  CHECK(sh.stats().keepalives >= idle + 3);
  CHECK(sh.stats().connects == 1);

  // A link that dies while idle is noticed by a keepalive and replaced at the next use.
  Sshd::kill_connections(sshd().pid);
  std::this_thread::sleep_for(200ms);
  CHECK(sh.run({"echo", "x"}).out == "x\n");
  CHECK(sh.stats().connects == 2);

  o.keepalive_interval = 0ms;
  SshShell quiet(o);
  REQUIRE(quiet.run({"true"}).ok());
  std::this_thread::sleep_for(200ms);
  CHECK(quiet.stats().keepalives == 0);
}
