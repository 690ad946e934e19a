// Running helpers from an argv: output, exit codes, working directory,
// time limit, and the PATH search used to find gnuplot.
#include "report/process.hpp"

#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace campaign::report;
using fixtures::TempDir;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST_CASE("run_process passes arguments literally and captures output", "[report][process]") {
  auto sh = find_executable("sh", "/usr/bin:/bin");
  REQUIRE(sh);
  TempDir dir;
  ProcessResult r = run_process(
      {sh->string(), "-c", "printf '%s|' \"$@\"; pwd; echo err >&2; exit 4", "sh", "a b", "$HOME", "'q'"},
      dir.path, 10s);
  CHECK(r.exit_code == 4);
  CHECK_FALSE(r.timed_out);
  CHECK(r.output == "a b|$HOME|'q'|" + fs::canonical(dir.path).string() + "\nerr\n");
}

TEST_CASE("run_process kills what outlives its time limit", "[report][process]") {
  auto sleep = find_executable("sleep", "/usr/bin:/bin");
  REQUIRE(sleep);
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = run_process({sleep->string(), "30"}, "", 300ms);
  CHECK(r.timed_out);
  CHECK(r.exit_code == -1);
  CHECK(std::chrono::steady_clock::now() - start < 15s);  // not the 30 s it would sleep
}

TEST_CASE("run_process does not wait for grandchildren holding its output", "[report][process]") {
  auto sh = find_executable("sh", "/usr/bin:/bin");
  REQUIRE(sh);
  auto start = std::chrono::steady_clock::now();
  // The background sleep keeps the pipe open after sh exits.
  ProcessResult r = run_process({sh->string(), "-c", "sleep 3 & echo done"}, "", 20s);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(r.timed_out);
  CHECK(r.output == "done\n");
  CHECK(std::chrono::steady_clock::now() - start < 2500ms);
}

TEST_CASE("a program that cannot be started exits 127", "[report][process]") {
  TempDir dir;
  ProcessResult r = run_process({(dir.path / "missing").string()}, "", 5s);
  CHECK(r.exit_code == 127);
  CHECK_THAT(r.output, Catch::Contains("cannot run"));
}

TEST_CASE("find_executable searches the given path only", "[report][process]") {
  TempDir dir;
  fs::path tool = dir.path / "tool";
  { std::ofstream(tool) << "#!/bin/sh\n"; }
  CHECK_FALSE(find_executable("tool", dir.path.string()));  // not executable yet
  fs::permissions(tool, fs::perms::owner_all);
  CHECK(find_executable("tool", "/nonexistent:" + dir.path.string()) == tool);
  CHECK_FALSE(find_executable("tool", ""));
  CHECK_FALSE(find_executable("tool", "::"));
  CHECK(find_executable(tool.string(), "") == tool);
  CHECK_FALSE(find_executable((dir.path / "nope").string(), dir.path.string()));
  CHECK_FALSE(find_executable("", dir.path.string()));
}
