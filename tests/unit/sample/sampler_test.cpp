#include "sample/sampler.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../temp_dir.hpp"

using namespace campaign::sample;
namespace fs = std::filesystem;

namespace {
struct Row {
  double time;
  std::string device;
  double utilization;
};
std::vector<Row> read_rows(const fs::path& p, std::string& header) {
  std::ifstream in(p);
  std::getline(in, header);
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::string t, d, u;
    std::getline(s, t, ',');
    std::getline(s, d, ',');
    std::getline(s, u, ',');
    rows.push_back({std::stod(t), d, std::stod(u)});
  }
  return rows;
}
}  // namespace

TEST_CASE("the sampler appends cpu, proc and nvidia-smi rows in time order per device") {
  campaign_test::TempDir dir("sample");
  // A fake nvidia-smi: two GPUs, readings timestamped now in local time, a line it cannot read.
  fs::path smi = dir.path / "nvidia-smi";
  {
    std::ofstream f(smi);
    f << "#!/bin/bash\n"
         "echo 'this is not a reading'\n"
         "for i in 1 2 3 4 5 6 7 8 9 10; do\n"
         "  t=$(date '+%Y/%m/%d %H:%M:%S.%3N')\n"
         "  echo \"$t, 0, 40\"; echo \"$t, 1, [N/A]\"; sleep 0.05\n"
         "done\n"
         "exec sleep 10\n";
  }
  fs::permissions(smi, fs::perms::owner_all);
  Options o;
  o.interval_s = 0.05;
  o.out = dir.path / "u.csv";
  o.pid = static_cast<int>(::getppid());  // its tree holds this test, which the sampler leaves out
  o.gpu = Gpu::on;
  o.duration_s = 0.6;
  o.smi = smi.string();
  std::ostringstream log;
  double t0 = static_cast<double>(::time(nullptr));
  REQUIRE(run(o, log) == 0);
  std::string header;
  auto rows = read_rows(o.out, header);
  CHECK(header == kHeader);
  std::map<std::string, int> count;
  std::map<std::string, double> last;
  for (auto& r : rows) {
    ++count[r.device];
    CHECK(r.time >= t0 - 1);
    if (last.count(r.device)) CHECK(r.time > last[r.device]);
    last[r.device] = r.time;
    CHECK(r.utilization >= 0);
  }
  CHECK(count["cpu"] >= 4);
  CHECK(count["proc"] >= 4);
  CHECK(count["gpu0"] >= 3);
  CHECK(count.count("gpu1") == 0);  // [N/A] is no reading
  CHECK(log.str().find("this is not a reading") != std::string::npos);

  // Run again: appended, no second header.
  o.gpu = Gpu::off;
  o.duration_s = 0.2;
  REQUIRE(run(o, log) == 0);
  auto again = read_rows(o.out, header);
  CHECK(again.size() > rows.size());
  for (auto& r : again) CHECK(r.device != "time");
}

TEST_CASE("the sampler refuses --gpu on without nvidia-smi and an unwritable file") {
  campaign_test::TempDir dir("sample");
  Options o;
  o.out = dir.path / "u.csv";
  o.gpu = Gpu::on;
  o.smi = (dir.path / "no-such-nvidia-smi").string();
  std::ostringstream log;
  CHECK(run(o, log) == 1);
  o.gpu = Gpu::off;
  o.out = dir.path / "missing" / "u.csv";
  CHECK(run(o, log) == 1);
}

TEST_CASE("the sampler stops when its --pid ends") {
  campaign_test::TempDir dir("sample");
  pid_t child = ::fork();
  if (child == 0) {
    ::usleep(300000);
    ::_exit(0);
  }
  Options o;
  o.interval_s = 0.05;
  o.out = dir.path / "u.csv";
  o.pid = child;
  o.gpu = Gpu::off;
  std::ostringstream log;
  // The child becomes a zombie (still "alive" to kill(0)) until reaped: reap it from a thread-free
  // sampler by waiting here first would end the test early, so give the sampler a bound.
  o.duration_s = 5;
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  std::thread reaper([&] { ::waitpid(child, &status, 0); });
  CHECK(run(o, log) == 0);
  reaper.join();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
}
