// SshShell::run against a real sshd: exit codes and streams, large outputs and inputs, timeouts that
// kill, signals, many commands over one session, and arguments that must not be re-interpreted.
#include <catch2/catch.hpp>

#include "fixture.hpp"

using campaign::ssh::SshShell;
using namespace ssh_test;

TEST_CASE("run returns exit status, stdout and stderr", "[ssh]") {
  SshShell sh(sshd().options());
  auto r = sh.run({"sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.ok());

  auto t = sh.run({"true"});
  CHECK(t.ok());
  CHECK(t.out.empty());
  CHECK(sh.describe() == "ssh " + sshd().user + "@127.0.0.1");
}

TEST_CASE("a missing program exits 127 and a signal 128+N", "[ssh]") {
  SshShell sh(sshd().options());
  auto missing = sh.run({"no-such-program-campaign"});
  CHECK(missing.exit_code == 127);
  CHECK(missing.err.find("not found") != std::string::npos);
  auto killed = sh.run({"sh", "-c", "kill -TERM $$"});
  CHECK(killed.exit_code == 143);
  CHECK_FALSE(killed.timed_out);
}

TEST_CASE("run moves megabytes both ways without deadlock", "[ssh]") {
  SshShell sh(sshd().options());
  SECTION("5 MB on stdout and 1 MB on stderr at once") {
    auto r = sh.run({"sh", "-c",
                     "head -c 1000000 /dev/zero >&2 & head -c 5000000 /dev/urandom | od -An -v -tx1 | head "
                     "-c 5000000; wait"});
    CHECK(r.exit_code == 0);
    CHECK(r.out.size() == 5000000);
    CHECK(r.err.size() == 1000000);
  }
  SECTION("5 MB through stdin and back") {
    std::string input;
    for (int i = 0; input.size() < 5000000; ++i) input += "line " + std::to_string(i) + "\n";
    auto r = sh.run({"cat"}, std::chrono::seconds(60), input);
    CHECK(r.exit_code == 0);
    CHECK(r.out.size() == input.size());
    CHECK(r.out == input);
  }
  SECTION("input the program never reads") {
    auto r = sh.run({"sh", "-c", "echo done"}, std::chrono::seconds(30), std::string(3000000, 'x'));
    CHECK(r.exit_code == 0);
    CHECK(r.out == "done\n");
  }
  SECTION("no input is end of file at once") {
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run({"cat"}, std::chrono::seconds(10));
    CHECK(r.ok());
    CHECK(seconds_since(t0) < 5);
  }
  SECTION("input with a NUL and no final newline") {
    std::string input("a\0b", 3);
    auto r = sh.run({"od", "-An", "-c"}, std::chrono::seconds(10), input);
    CHECK(r.out.find("a  \\0   b") != std::string::npos);
  }
}

TEST_CASE("a command past its timeout is killed and reported", "[ssh]") {
  SshShell sh(sshd().options());
  auto t0 = std::chrono::steady_clock::now();
  auto r = sh.run({"sleep", "31.25"}, std::chrono::milliseconds(400));
  double took = seconds_since(t0);
  CHECK(r.timed_out);
  CHECK(r.exit_code == 137);
  CHECK(took < 15);  // not the 31 s it would sleep
  // The remote process is gone too, and the session still works.
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = sh.run({"pgrep", "-fx", "sleep 31.25"}).exit_code == 1;
    if (!gone) std::this_thread::sleep_for(100ms);
  }
  CHECK(gone);
  CHECK(sh.stats().connects == 1);

  SECTION("options.command_timeout caps a longer request") {
    auto o = sshd().options();
    o.command_timeout = 250ms;
    SshShell capped(o);
    auto c = capped.run({"sleep", "20"}, std::chrono::seconds(60));
    CHECK(c.timed_out);
  }
}

TEST_CASE("200 commands share one session", "[ssh]") {
  SshShell sh(sshd().options());
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) {
    auto r = sh.run({"echo", std::to_string(i)});
    REQUIRE(r.exit_code == 0);
    REQUIRE(r.out == std::to_string(i) + "\n");
  }
  double took = seconds_since(t0);
  WARN("200 commands over one SSH session: " << took << " s");
  CHECK(sh.stats().connects == 1);
  CHECK(sh.stats().commands == 200);
}

TEST_CASE("arguments reach the remote program literally", "[ssh][quote]") {
  SshShell sh(sshd().options());
  const fs::path dir = test_root() / "inject";
  fs::create_directories(dir);
  const fs::path pwned = dir / "pwned";
  const std::string nasty = "spaces 'single' \"double\" $(touch " + pwned.string() + ") `touch " +
                            pwned.string() + "` ; touch " + pwned.string() + " * $HOME ~ \\ \n";
  auto r = sh.run({"printf", "%s", nasty});
  CHECK(r.exit_code == 0);
  CHECK(r.out == nasty);
  CHECK_FALSE(fs::exists(pwned));

  // As a file name (no '/' in it): an injected `touch` would run in the remote working directory.
  const std::string cwd = sh.run({"pwd"}).out.substr(0, sh.run({"pwd"}).out.size() - 1);
  const std::string tag = "pwned-" + std::to_string(::getpid());
  const std::string name = "a file 'q' \"d\" $(touch " + tag + ") `touch " + tag + "` ; touch " + tag + " *";
  auto t = sh.run({"touch", (dir / name).string()});
  CHECK(t.exit_code == 0);
  CHECK(fs::exists(dir / name));
  CHECK(sh.exists((dir / name).string()));
  CHECK_FALSE(fs::exists(fs::path(cwd) / tag));
  CHECK(sh.run({"ls", (dir / name).string()}).out == (dir / name).string() + "\n");
}

TEST_CASE("connecting and dropping sessions leaks no descriptors", "[ssh]") {
  {
    SshShell warm(sshd().options());
    warm.run({"true"});
  }
  size_t before = open_fds();
  for (int i = 0; i < 3; ++i) {
    SshShell sh(sshd().options());
    sh.run({"true"});
    sh.exists("/");
  }
  CHECK(open_fds() == before);
}
