// Who we talk to and who we are: strict host-key checking (unknown, changed, accepted once),
// public-key authentication (wrong key, ssh-agent), and a refused connection.
#include <netinet/in.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "fixture.hpp"

using campaign::ssh::AuthenticationError;
using campaign::ssh::ConnectError;
using campaign::ssh::HostKeyError;
using campaign::ssh::SshShell;
using campaign::transport::LocalShell;
using namespace ssh_test;

namespace {

// "SHA256:..." of a public key file, as OpenSSH prints it.
std::string fingerprint(const fs::path& pub) {
  LocalShell local;
  auto r = local.run({"ssh-keygen", "-l", "-E", "sha256", "-f", pub.string()});
  REQUIRE(r.exit_code == 0);
  auto start = r.out.find("SHA256:");
  REQUIRE(start != std::string::npos);
  return r.out.substr(start, r.out.find(' ', start) - start);
}

// A loopback port nobody listens on.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace

TEST_CASE("an unknown host key is refused, naming its fingerprint", "[ssh][hostkey]") {
  auto o = sshd().options();
  o.known_hosts = (test_root() / "empty_known_hosts").string();
  write_file(o.known_hosts, "");
  SshShell sh(o);
  const std::string fp = fingerprint(sshd().dir / "target_host_ed25519.pub");
  CHECK_THROWS_AS(sh.run({"true"}), HostKeyError);
  CHECK_THROWS_WITH(sh.connect(), Catch::Contains(fp) && Catch::Contains("--accept-new-host-key") &&
                                      Catch::Contains("[127.0.0.1]:" + std::to_string(sshd().port)));
  // A missing known_hosts file is no different.
  o.known_hosts = (test_root() / "no-such-dir" / "known_hosts").string();
  SshShell missing(o);
  CHECK_THROWS_WITH(missing.connect(), Catch::Contains(fp));
}

TEST_CASE("accept_new_host_key records the key once, then checks it", "[ssh][hostkey]") {
  auto o = sshd().options();
  o.known_hosts = (test_root() / "tofu" / "sub" / "known_hosts").string();
  o.accept_new_host_key = true;
  {
    SshShell sh(o);
    CHECK(sh.run({"true"}).ok());
  }
  std::string recorded = slurp(o.known_hosts);
  CHECK(recorded.find("[127.0.0.1]:" + std::to_string(sshd().port)) != std::string::npos);
  CHECK(recorded.find("ssh-ed25519") != std::string::npos);
  o.accept_new_host_key = false;
  SshShell again(o);
  CHECK(again.run({"true"}).ok());
}

TEST_CASE("a changed host key is refused, even with accept_new_host_key", "[ssh][hostkey]") {
  Sshd own(test_root() / "rekey");
  auto o = own.options();
  {
    SshShell before(o);
    REQUIRE(before.run({"true"}).ok());
  }
  own.rekey();
  const std::string fp = fingerprint(own.dir / "target_host_ed25519.pub");
  for (bool accept : {false, true}) {
    o.accept_new_host_key = accept;
    SshShell after(o);
    CHECK_THROWS_AS(after.connect(), HostKeyError);
    CHECK_THROWS_WITH(after.connect(), Catch::Contains("CHANGED") && Catch::Contains(fp));
  }
}

TEST_CASE("a key the server does not know is a clear authentication error", "[ssh][auth]") {
  const fs::path key = test_root() / "stranger_ed25519";
  LocalShell local;
  REQUIRE(local.run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.string()}).exit_code == 0);
  auto o = sshd().options();
  o.identity = key.string();
  ::unsetenv("SSH_AUTH_SOCK");
  SshShell sh(o);
  CHECK_THROWS_AS(sh.connect(), AuthenticationError);
  CHECK_THROWS_WITH(sh.run({"true"}),
                    Catch::Contains("authentication failed") && Catch::Contains(key.string()));

  SECTION("so is a file that is not a key") {
    o.identity = (test_root() / "not-a-key").string();
    write_file(o.identity, "hello\n");
    SshShell bad(o);
    CHECK_THROWS_WITH(bad.connect(), Catch::Contains("not a private key"));
  }
}

TEST_CASE("keys in ssh-agent are used", "[ssh][auth]") {
  LocalShell local;
  const std::string socket = (test_root() / "agent.sock").string();
  auto agent = local.run({"ssh-agent", "-s", "-a", socket});
  REQUIRE(agent.exit_code == 0);
  auto at = agent.out.find("SSH_AGENT_PID=");
  REQUIRE(at != std::string::npos);
  const pid_t agent_pid = std::stoi(agent.out.substr(at + 14));
  ::setenv("SSH_AUTH_SOCK", socket.c_str(), 1);
  auto added = local.run({"ssh-add", sshd().identity});
  CHECK(added.exit_code == 0);

  auto o = sshd().options();
  o.identity.clear();
  SshShell sh(o);
  CHECK(sh.run({"true"}).ok());

  ::unsetenv("SSH_AUTH_SOCK");
  ::kill(agent_pid, SIGTERM);
}

TEST_CASE("nothing listening: a clear error within the connect timeout", "[ssh]") {
  auto o = sshd().options();
  o.port = closed_port();
  o.connect_timeout = 3s;
  SshShell sh(o);
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(sh.run({"true"}), ConnectError);
  CHECK_THROWS_WITH(sh.connect(),
                    Catch::Contains("refused") && Catch::Contains("127.0.0.1:" + std::to_string(o.port)));
  CHECK(seconds_since(t0) < 3);
}
