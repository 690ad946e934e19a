// LocalShell: argv without a shell, output capture without deadlock, timeouts that really kill,
// missing programs, and the file operations.
#include "transport/local_shell.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../temp_dir.hpp"

using campaign::transport::CommandResult;
using campaign::transport::LocalShell;
using campaign::transport::TransportError;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using campaign_test::TempDir;

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// True once `pid` has exited (gone, or a zombie nobody reaped yet), polling for up to 3 s.
bool eventually_dead(int pid) {
  for (int i = 0; i < 300; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("run captures stdout, stderr and the exit status", "[transport]") {
  LocalShell sh;
  auto r = sh.run({"sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK(sh.run({"true"}).ok());
  CHECK(sh.describe() == "local");
}

TEST_CASE("arguments reach the program as they are, never re-parsed by a shell", "[transport]") {
  LocalShell sh;
  auto r = sh.run({"printf", "%s\\n", "a b", "$HOME", "; rm -rf x", "'q'", "*"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "a b\n$HOME\n; rm -rf x\n'q'\n*\n");
}

TEST_CASE("stdin data is delivered and closed", "[transport]") {
  LocalShell sh;
  auto r = sh.run({"cat"}, 10s, "line 1\nline 2\n");
  CHECK(r.out == "line 1\nline 2\n");
  // Without data the child's stdin is empty rather than the orchestrator's terminal.
  CHECK(sh.run({"cat"}, 10s).out.empty());
}

TEST_CASE("large inputs and outputs on all pipes do not deadlock", "[transport]") {
  LocalShell sh;
  std::string big(6 << 20, 'x');
  auto t0 = std::chrono::steady_clock::now();
  // cat echoes 6 MiB while we are still writing it: needs reading and writing interleaved.
  auto r = sh.run({"cat"}, 30s, big);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.size() == big.size());
  CHECK(r.out == big);
  auto both = sh.run({"sh", "-c", "head -c 3000000 /dev/zero; head -c 2000000 /dev/zero >&2"}, 30s);
  CHECK(both.out.size() == 3000000);
  CHECK(both.err.size() == 2000000);
  CHECK(seconds_since(t0) < 20);
}

TEST_CASE("a child that ignores its input does not kill the caller with SIGPIPE", "[transport]") {
  LocalShell sh;
  auto r = sh.run({"true"}, 10s, std::string(8 << 20, 'y'));
  CHECK(r.exit_code == 0);
  CHECK_FALSE(r.timed_out);
}

TEST_CASE("a timeout kills the child and everything it started", "[transport]") {
  LocalShell sh;
  auto t0 = std::chrono::steady_clock::now();
  auto r = sh.run({"sleep", "30"}, 100ms);
  CHECK(r.timed_out);
  CHECK(r.exit_code == 137);
  CHECK_FALSE(r.ok());
  CHECK(seconds_since(t0) < 5);

  // What the command started in the background dies with it.
  t0 = std::chrono::steady_clock::now();
  r = sh.run({"sh", "-c", "sleep 30 & echo $!; wait"}, 200ms);
  CHECK(r.timed_out);
  CHECK(seconds_since(t0) < 5);
  REQUIRE_FALSE(r.out.empty());
  CHECK(eventually_dead(std::stoi(r.out)));

  // Closed its output but kept running: the deadline still holds.
  t0 = std::chrono::steady_clock::now();
  r = sh.run({"sh", "-c", "exec >&- 2>&-; sleep 30"}, 100ms);
  CHECK(r.timed_out);
  CHECK(seconds_since(t0) < 5);
}

TEST_CASE("a child killed by a signal reports 128+N", "[transport]") {
  LocalShell sh;
  auto r = sh.run({"sh", "-c", "kill -TERM $$"});
  CHECK(r.exit_code == 128 + 15);
  CHECK_FALSE(r.timed_out);
}

TEST_CASE("a missing program is exit status 127 with a message naming it", "[transport]") {
  LocalShell sh;
  auto r = sh.run({"campaign-no-such-program-xyz", "--help"});
  CHECK(r.exit_code == 127);
  CHECK(r.err.find("campaign-no-such-program-xyz") != std::string::npos);
  CHECK(r.err.find("not found") != std::string::npos);
  CHECK_THROWS_AS(sh.run({}), TransportError);
}

TEST_CASE("a file that cannot be executed is exit status 126", "[transport]") {
  TempDir dir;
  auto script = dir.path / "not-executable.sh";
  write(script, "#!/bin/sh\necho hi\n");
  fs::permissions(script, fs::perms::owner_read | fs::perms::owner_write);
  LocalShell sh;
  auto r = sh.run({script.string()});
  // root may execute files without x bits only if some x bit is set; none is here.
  CHECK(r.exit_code == 126);
}

TEST_CASE("put, get, exists and read_file work on local paths", "[transport]") {
  TempDir dir;
  LocalShell sh;
  auto a = dir.path / "a.txt";
  write(a, "hello\n");
  auto b = (dir.path / "b.txt").string();

  CHECK_FALSE(sh.exists(b));
  sh.put(a, b);
  CHECK(sh.exists(b));
  CHECK(sh.read_file(b) == std::optional<std::string>("hello\n"));
  CHECK(sh.read_file(b, 3) == std::optional<std::string>("hel"));
  CHECK_FALSE(sh.read_file((dir.path / "missing").string()).has_value());
  CHECK_THROWS_AS(sh.read_file(dir.path.string()), TransportError);

  write(a, "overwritten\n");
  sh.put(a, b);  // replaces
  auto c = dir.path / "c.txt";
  sh.get(b, c);
  CHECK(sh.read_file(c.string()) == std::optional<std::string>("overwritten\n"));

  CHECK_THROWS_AS(sh.get((dir.path / "missing").string(), c), TransportError);
  CHECK_THROWS_AS(sh.put(dir.path / "missing", b), TransportError);
}

TEST_CASE("display_command quotes words for a reader", "[transport]") {
  using campaign::transport::display_command;
  CHECK(display_command({"squeue", "-u", "bob", "-o", "%i|%j"}) == "squeue -u bob -o '%i|%j'");
  CHECK(display_command({"echo", "", "it's"}) == "echo '' 'it'\\''s'");
}
