// Reaching the target through a jump host (the only one of the two test servers that allows TCP
// forwarding): commands and files work, the jump host really carries the session, its host key is
// checked too, and a dropped jump link is reconnected.
#include <catch2/catch.hpp>

#include "fixture.hpp"

using campaign::ssh::ConnectError;
using campaign::ssh::HostKeyError;
using campaign::ssh::SshShell;
using namespace ssh_test;

namespace {

campaign::ssh::SshOptions via_jump() {
  auto o = sshd().options();
  o.jump = sshd().user + "@127.0.0.1:" + std::to_string(sshd().jump_port);
  return o;
}

}  // namespace

TEST_CASE("commands and files go through the jump host", "[ssh][jump]") {
  SshShell sh(via_jump());
  auto r = sh.run({"sh", "-c", "echo via; echo $SSH_CONNECTION"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("via\n", 0) == 0);
  CHECK(sh.describe() == "ssh " + sshd().user + "@127.0.0.1");
  // The jump host serves a connection right now: ours.
  CHECK_FALSE(descendants(sshd().jump_pid).empty());

  std::string data(2'000'000, 'j');
  write_file(test_root() / "jump-src", data);
  sh.put(test_root() / "jump-src", (test_root() / "jump" / "dst").string());
  CHECK(slurp(test_root() / "jump" / "dst") == data);
  auto big = sh.run({"cat", (test_root() / "jump" / "dst").string()});
  CHECK(big.out.size() == data.size());
  auto echo = sh.run({"cat"}, std::chrono::seconds(30), data);
  CHECK(echo.out == data);
  CHECK(sh.stats().connects == 1);
}

TEST_CASE("a dropped jump link is reconnected", "[ssh][jump][reconnect]") {
  SshShell sh(via_jump());
  REQUIRE(sh.run({"true"}).ok());
  Sshd::kill_connections(sshd().jump_pid);
  CHECK(sh.run({"echo", "again"}).out == "again\n");
  CHECK(sh.stats().connects == 2);
}

TEST_CASE("the jump host's key and reachability are checked", "[ssh][jump]") {
  SECTION("unknown jump host key") {
    auto o = via_jump();
    o.known_hosts = (test_root() / "target_only_known_hosts").string();
    std::string line = slurp(sshd().known_hosts);
    write_file(o.known_hosts, line.substr(0, line.find('\n') + 1));  // the target's line only
    SshShell sh(o);
    CHECK_THROWS_AS(sh.connect(), HostKeyError);
    CHECK_THROWS_WITH(sh.connect(), Catch::Contains("[127.0.0.1]:" + std::to_string(sshd().jump_port)));
  }
  SECTION("a target the jump host cannot reach") {
    auto o = via_jump();
    o.port = 1;  // nothing listens on port 1
    SshShell sh(o);
    CHECK_THROWS_AS(sh.connect(), ConnectError);
    CHECK_THROWS_WITH(sh.connect(), Catch::Contains("jump host") && Catch::Contains(":1"));
  }
  SECTION("a jump host that forbids forwarding") {
    auto o = sshd().options();
    o.jump = sshd().user + "@127.0.0.1:" + std::to_string(sshd().port);  // the target, no forwarding
    SshShell sh(o);
    CHECK_THROWS_WITH(sh.connect(), Catch::Contains("allow TCP forwarding"));
  }
}

TEST_CASE("jump tunnels leak no descriptors or threads", "[ssh][jump]") {
  {
    SshShell warm(via_jump());
    warm.run({"true"});
  }
  size_t before = open_fds();
  for (int i = 0; i < 3; ++i) {
    SshShell sh(via_jump());
    sh.run({"true"});
    sh.exists("/");
  }
  CHECK(open_fds() == before);
}
