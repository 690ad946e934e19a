// The pack driver started again in the same allocation (pack/driver.hpp, pack/case_lock.hpp): what
// its predecessor left in the run directories decides, never the time it waits.
#include "pack/driver.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <sstream>

#include "../temp_dir.hpp"
#include "pack/case_lock.hpp"
#include "render/script.hpp"
#include "util/atomic_file.hpp"

using namespace campaign;
using namespace campaign::pack;
namespace fs = std::filesystem;

namespace {

double now_s() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
}

// One node of 2 cores; each case appends a line to RUN_DIR/runs when its script runs.
Allocation allocation(const fs::path& workdir, const std::vector<long>& cores) {
  Allocation a;
  a.job_name = "cmpt-pack1-a1";
  a.nodes = 1;
  a.node = {2, 0, 0};
  a.walltime_s = 3600;
  a.dir = workdir / ".alloc" / a.job_name;
  a.grace_s = 1;
  for (size_t i = 0; i < cores.size(); ++i) {
    PackedCase c;
    c.case_name = "case-" + std::to_string(i);
    c.job_name = "cmpt-case-" + std::to_string(i) + "-a1";
    c.run_dir = workdir / c.case_name;
    c.demand = {1, cores[i], 0, 0, false};
    c.walltime_s = 3600;
    c.script = c.run_dir / "job.sh";
    fs::create_directories(c.run_dir);
    std::ofstream(c.script) << "cd " << c.run_dir << " || exit 1\necho ran >> runs\necho 0 > "
                            << render::kExitMarker << "\n";
    a.cases.push_back(c);
  }
  return a;
}

// What a driver before this one wrote when it started case `c` on cores 0 and 1 of node 0.
void started_before(const Allocation& a, const PackedCase& c, bool launched, double time) {
  StartMarker m{a.job_name, c.job_name, time, {}, {0}, {{0, {0, 1}, {}}}, launched};
  write_file_atomic(c.run_dir / kStartMarker, to_json(m));
}

long runs(const PackedCase& c) {
  std::ifstream in(c.run_dir / "runs");
  long n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST_CASE("a start marker whose launch never came: the restarted driver makes it", "[pack]") {
  campaign_test::TempDir t("driver");
  Allocation a = allocation(t.path, {2});
  const PackedCase& c = a.cases[0];
  started_before(a, c, false, now_s() - 1);
  Fd lock = take_case_lock(c.run_dir);  // the driver before took it, then died: free again
  lock.reset();
  std::ostringstream log;
  SECTION("its script never ran: started now, once") {
    CHECK(run_allocation(a, {{}, &log}) == 0);
    CHECK(runs(c) == 1);
    CHECK(log.str().find("start again case-0") != std::string::npos);
    CHECK(read_start_marker(c.run_dir)->launched);
  }
  SECTION("its script ran (its start stamp is newer than the marker): never again") {
    std::ofstream(c.run_dir / render::start_stamp(1)) << "1\n";
    CHECK(run_allocation(a, {{}, &log}) == 0);
    CHECK(runs(c) == 0);
    CHECK(log.str().find("skip case-0") != std::string::npos);
  }
}

TEST_CASE("a case whose processes outlived the driver is held until they end, not its walltime", "[pack]") {
  campaign_test::TempDir t("driver");
  // case-0 took both cores in the allocation's first driver; case-1 waits for them.
  Allocation a = allocation(t.path, {2, 2});
  const PackedCase& held = a.cases[0];
  started_before(a, held, true, now_s() - 1);
  // Its script still runs: a process holding the case's lock, as the spawn hands it over.
  Fd lock = take_case_lock(held.run_dir);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::execlp("sleep", "sleep", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  lock.reset();
  CHECK(case_life(held.run_dir) == CaseLife::running);
  std::ostringstream log;
  CHECK(run_allocation(a, {{}, &log}) == 0);  // before, it held case-0's cores for an hour
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(case_life(held.run_dir) == CaseLife::ended);
  CHECK(runs(held) == 0);  // never started twice
  CHECK(runs(a.cases[1]) == 1);
  const std::string text = log.str();
  CHECK(text.find("hold case-0: started in this allocation, its processes still run") != std::string::npos);
  CHECK(text.find("end case-0: held until its processes ended") != std::string::npos);
  CHECK(text.find("end case-0") < text.find("start case-1"));
}

TEST_CASE("a case's lock is taken once, and its absence is unknown", "[pack]") {
  campaign_test::TempDir t("driver");
  CHECK(case_life(t.path) == CaseLife::unknown);  // no lock file: a case of an older driver
  Fd lock = take_case_lock(t.path);
  CHECK(case_life(t.path) == CaseLife::running);
  CHECK_THROWS_WITH(take_case_lock(t.path), Catch::Contains("still runs"));
  lock.reset();
  CHECK(case_life(t.path) == CaseLife::ended);
}
