// The built-in launcher, each case in a forked child (it owns the signal mask and stdout there):
// rank environment, labels, fail-fast, signal forwarding, exit statuses.
#include "local/launch.hpp"

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <set>

#include "helpers.hpp"

using campaign::local::launch;
using campaign::local::LaunchError;
using campaign::local::LaunchOptions;
using namespace local_test;

namespace {

std::vector<std::string> sh(const std::string& script) { return {"/bin/sh", "-c", script}; }

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace

TEST_CASE("every rank gets its place in the job", "[local][launch]") {
  TempDir tmp("launch-env");
  ::unsetenv("MASTER_PORT");
  int rc = in_child(
      [] {
        return launch(3, sh("echo $RANK/$WORLD_SIZE $LOCAL_RANK/$LOCAL_WORLD_SIZE $MASTER_ADDR "
                            "$SLURM_PROCID/$SLURM_NTASKS $SLURM_LOCALID $SLURM_NNODES $SLURM_NODEID "
                            "port=$MASTER_PORT"));
      },
      tmp.path / "out");
  CHECK(rc == 0);
  auto lines = sorted_lines(read(tmp.path / "out"));
  REQUIRE(lines.size() == 3);
  std::set<std::string> ports;
  for (int r = 0; r < 3; ++r) {
    std::string rank = std::to_string(r);
    std::string expected = rank + "/3 " + rank + "/3 127.0.0.1 " + rank + "/3 " + rank + " 1 0 port=";
    CHECK(lines[r].substr(0, expected.size()) == expected);
    ports.insert(lines[r].substr(expected.size()));
  }
  REQUIRE(ports.size() == 1);  // one rendezvous port for all
  int port = std::stoi(*ports.begin());
  CHECK(port > 0);
  CHECK(port < 65536);
}

TEST_CASE("an inherited MASTER_PORT is kept, inherited ranks are not", "[local][launch]") {
  TempDir tmp("launch-port");
  int rc = in_child(
      [] {
        ::setenv("MASTER_PORT", "29555", 1);
        ::setenv("RANK", "7", 1);
        return launch(2, sh("echo $RANK $MASTER_PORT"));
      },
      tmp.path / "out");
  CHECK(rc == 0);
  CHECK(sorted_lines(read(tmp.path / "out")) == std::vector<std::string>{"0 29555", "1 29555"});
}

TEST_CASE("each rank is shown its GPUs of the job's: k ranks per GPU, or a block each", "[local][launch]") {
  TempDir tmp("launch-gpus");
  auto seen = [&](const char* visible, int ranks) {
    int rc = in_child(
        [&] {
          ::setenv("CUDA_VISIBLE_DEVICES", visible, 1);
          return launch(ranks, sh("echo $LOCAL_RANK=$CUDA_VISIBLE_DEVICES"));
        },
        tmp.path / "out");
    CHECK(rc == 0);
    return sorted_lines(read(tmp.path / "out"));
  };
  using V = std::vector<std::string>;
  CHECK(seen("7", 2) == V{"0=7", "1=7"});
  CHECK(seen("3,5", 4) == V{"0=3", "1=3", "2=5", "3=5"});
  CHECK(seen("0,1,2,3", 2) == V{"0=0,1", "1=2,3"});
  CHECK(seen("4", 1) == V{"0=4"});
  CHECK(seen("", 2) == V{"0=", "1="});  // a job without GPUs keeps seeing none
}

TEST_CASE("labels prefix each line with its rank, like srun -l", "[local][launch]") {
  TempDir tmp("launch-label");
  LaunchOptions o;
  o.label = true;
  int rc = in_child([&] { return launch(2, sh("echo a$RANK; echo b$RANK >&2; printf c$RANK"), o); },
                    tmp.path / "out");
  CHECK(rc == 0);
  CHECK(sorted_lines(read(tmp.path / "out")) ==
        std::vector<std::string>{"0: a0", "0: b0", "0: c0", "1: a1", "1: b1", "1: c1"});
}

TEST_CASE("a failing rank takes the others down quickly", "[local][launch]") {
  TempDir tmp("launch-fail");
  LaunchOptions o;
  o.kill_grace = 500ms;
  auto t0 = std::chrono::steady_clock::now();
  int rc = in_child(
      [&] { return launch(3, sh("if [ $RANK = 1 ]; then sleep 0.2; exit 3; fi; exec sleep 30"), o); },
      tmp.path / "out");
  CHECK(rc == 3);                                      // the first failure, not the SIGTERM of the others
  CHECK(std::chrono::steady_clock::now() - t0 < 15s);  // cut short: the others would sleep 30 s

  SECTION("ranks that ignore SIGTERM are killed after the grace period") {
    t0 = std::chrono::steady_clock::now();
    rc = in_child(
        [&] {
          // Rank 0 fails once rank 1 is deaf to SIGTERM.
          std::string ready = (tmp.path / "deaf").string();
          return launch(
              2,
              sh("if [ $RANK = 0 ]; then while [ ! -e " + ready +
                 " ]; do sleep 0.01; done; exit 2; fi; trap '' TERM; touch " + ready + "; exec sleep 30"),
              o);
        },
        tmp.path / "out2");
    CHECK(rc == 2);
    auto took = std::chrono::steady_clock::now() - t0;
    CHECK(took >= 500ms);
    CHECK(took < 15s);  // killed: it would sleep 30 s
  }
}

TEST_CASE("SIGTERM and SIGINT reach every rank", "[local][launch]") {
  TempDir tmp("launch-signal");
  for (int sig : {SIGTERM, SIGINT}) {
    auto t0 = std::chrono::steady_clock::now();
    std::string marker = (tmp.path / ("ready" + std::to_string(sig))).string();
    int rc = in_child(
        // Each rank reports the signal it got on its own line; `wait` returns on a trapped signal.
        [&] {
          return launch(2,
                        sh("trap 'kill $! 2>/dev/null; echo got-$RANK; exit 9' TERM INT; sleep 30 & touch " +
                           marker + "$RANK; wait"));
        },
        tmp.path / "out",
        [&](pid_t child) {
          REQUIRE(eventually([&] { return fs::exists(marker + "0") && fs::exists(marker + "1"); }));
          ::kill(child, sig);
        });
    CHECK(rc == 9);
    CHECK(sorted_lines(read(tmp.path / "out")) == std::vector<std::string>{"got-0", "got-1"});
    CHECK(std::chrono::steady_clock::now() - t0 < 15s);  // cut short: the ranks would sleep 30 s
  }
}

TEST_CASE("exit statuses: signals, missing programs, bad arguments", "[local][launch]") {
  TempDir tmp("launch-status");
  CHECK(in_child([] { return launch(1, sh("kill -KILL $$")); }, tmp.path / "o1") == 128 + SIGKILL);
  // One rank of several killed by a signal while the others exit 0: the job did not succeed (the
  // job script's exit marker carries this status).
  CHECK(in_child([] { return launch(3, sh("if [ $RANK = 2 ]; then kill -SEGV $$; fi; exit 0")); },
                 tmp.path / "o4") == 128 + SIGSEGV);
  CHECK(in_child([] { return launch(2, {"/no/such/program"}); }, tmp.path / "o2") == 127);
  CHECK(read(tmp.path / "o2").find("cannot run /no/such/program") != std::string::npos);
  CHECK(in_child([] { return launch(4, sh("exit 0")); }, tmp.path / "o3") == 0);
  CHECK_THROWS_AS(launch(0, sh("true")), LaunchError);
  CHECK_THROWS_AS(launch(1, {}), LaunchError);
}
