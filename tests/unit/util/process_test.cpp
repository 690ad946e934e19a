// run_program's options (the shell conventions on top are tested with LocalShell and report).
#include "util/process.hpp"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "../temp_dir.hpp"

using namespace campaign;
using namespace std::chrono_literals;

TEST_CASE("run_program: separate or merged output, stdin, working directory") {
  campaign_test::TempDir dir("process");
  RunOptions o;
  o.stdin_data = "in";
  o.cwd = dir.path;
  RunResult r = run_program({"sh", "-c", "cat; pwd; echo e >&2; exit 3"}, o);
  REQUIRE(r.status);
  CHECK(WEXITSTATUS(*r.status) == 3);
  CHECK(r.out == "in" + std::filesystem::canonical(dir.path).string() + "\n");
  CHECK(r.err == "e\n");
  o.output = Output::merged;
  o.max_output = 4;
  r = run_program({"sh", "-c", "echo ab; echo cd >&2"}, o);
  CHECK(r.out == "ab\nc");
  CHECK(r.err.empty());
}

TEST_CASE("run_program: until exited does not wait for a background process holding the output") {
  RunOptions o;
  o.until = Until::exited;
  auto start = std::chrono::steady_clock::now();
  RunResult r = run_program({"sh", "-c", "sleep 30 & echo done"}, o);
  CHECK(r.out == "done\n");
  CHECK_FALSE(r.timed_out);
  CHECK(std::chrono::steady_clock::now() - start < 15s);  // not the 30 s of the background sleep
}

TEST_CASE("run_program: a program that cannot start, a timeout") {
  CHECK(run_program({"/nonexistent/program"}).start_error == ENOENT);
  RunOptions o;
  o.timeout = 200ms;
  RunResult r = run_program({"sleep", "30"}, o);
  CHECK(r.timed_out);
  REQUIRE(r.status);
  CHECK(shell_exit_code(*r.status) == 128 + SIGKILL);
}
