#include "sample/sampler.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
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
  // The bound is far beyond the child's 0.3 s, so that stopping at its end, not at the bound, is
  // told apart however slowly a loaded machine runs the sampler.
  o.duration_s = 60;
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  std::thread reaper([&] { ::waitpid(child, &status, 0); });
  CHECK(run(o, log) == 0);
  reaper.join();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

namespace {
std::map<std::string, double> read_usage(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  CHECK(line == kUsageHeader);
  std::map<std::string, double> out;
  while (std::getline(in, line)) {
    auto comma = line.find(',');
    out[line.substr(0, comma)] = std::stod(line.substr(comma + 1));
  }
  return out;
}

// A fake nvidia-smi: GPU 0 (GPU-aaaa) at 50 % and 100 W with 883 MiB used, GPU 1 (GPU-bbbb) idle at
// 70 W; its compute apps: `app_pid` on GPU 0 and a process of no one's tree on GPU 1.
fs::path fake_smi(const fs::path& dir, int app_pid) {
  fs::path smi = dir / "nvidia-smi";
  std::ofstream f(smi);
  f << "#!/bin/bash\n"
       "case \"$1\" in\n"
       "--query-gpu=*)\n"
       "  for i in 1 2 3 4 5 6 7 8 9 10; do\n"
       "    t=$(date '+%Y/%m/%d %H:%M:%S.%3N')\n"
       "    echo \"$t, 0, 50, 100.00, 883, GPU-aaaa\"; echo \"$t, 1, 0, 70.00, 0, GPU-bbbb\"; sleep 0.05\n"
       "  done;;\n"
       "--query-compute-apps=*)\n"
       "  echo \""
    << app_pid
    << ", GPU-aaaa, 874\"; echo '999999999, GPU-bbbb, 10';;\n"
       "esac\n"
       "exec sleep 10\n";
  f.close();
  fs::permissions(smi, fs::perms::owner_all);
  return smi;
}
}  // namespace

TEST_CASE("the sampler records the GPUs the job holds and uses, their power and energy, and its memory") {
  campaign_test::TempDir dir("sample");
  pid_t child = ::fork();
  if (child == 0) {
    ::usleep(3000000);
    ::_exit(0);
  }
  // The package counters of a fake powercap: one package, readable (its counter stands still here).
  fs::create_directories(dir.path / "powercap/intel-rapl:0");
  std::ofstream(dir.path / "powercap/intel-rapl:0/name") << "package-0\n";
  std::ofstream(dir.path / "powercap/intel-rapl:0/energy_uj") << "1000\n";
  Options o;
  o.interval_s = 0.05;
  o.out = dir.path / "utilisation-n1.csv";
  o.pid = child;
  o.gpu = Gpu::on;
  o.duration_s = 0.6;
  o.powercap = dir.path / "powercap";
  std::ostringstream log;

  SECTION("its process on the GPU it holds: used") {
    o.smi = fake_smi(dir.path, child).string();
    o.visible_devices = "0";  // GPU 0 only
    REQUIRE(run(o, log) == 0);
    auto u = read_usage(dir.path / "usage-n1.csv");
    CHECK(u["gpus_held"] == 1);
    CHECK(u["gpus_used"] == 1);
    CHECK(u["gpu_apps"] == 1);
    CHECK(u["gpu_memory_peak_mib"] == 883);
    // A constant 100 W: whatever span the readings cover, their mean is 100 W and the energy 100 W
    // times that span.
    CHECK(u["gpu_power_mean_w"] == Approx(100));
    CHECK(u["gpu_power_readings"] >= 2);
    CHECK(u["gpu_energy_j"] > 0);
    CHECK(u["cpu_package_readable"] == 1);
    CHECK(u["cpu_package_energy_j"] == 0);  // the counter did not move
    CHECK(u.count("rss_peak_mib") == 1);
    CHECK(u["cores_held"] >= 1);
    // The power file: GPU 0's readings only, 100 W each; the package's, 0 W (its counter stands still).
    std::string header;
    auto rows = read_rows(dir.path / "power-n1.csv", header);
    CHECK(header == kPowerHeader);
    std::map<std::string, int> count;
    for (auto& r : rows) {
      ++count[r.device];
      CHECK(r.utilization == (r.device == "gpu0" ? 100 : 0));
    }
    CHECK(count["gpu0"] >= 2);
    CHECK(count["package-0"] >= 1);
    CHECK(count.size() == 2);  // no gpu1: not held
  }
  SECTION("no process of its tree on any GPU: none used; every GPU held when CUDA_VISIBLE_DEVICES is unset") {
    o.smi = fake_smi(dir.path, 999999998).string();
    REQUIRE(run(o, log) == 0);
    auto u = read_usage(dir.path / "usage-n1.csv");
    CHECK(u["gpus_held"] == 2);
    CHECK(u["gpus_used"] == 0);
    CHECK(u["gpu_apps"] == 0);
    CHECK(u["gpu_power_mean_w"] == Approx(170));  // 100 W + 70 W
  }
  SECTION("compute apps that nvidia-smi cannot list: GPUs used unknown, not none") {
    fs::path smi = fake_smi(dir.path, child);
    std::string text;
    {
      std::ifstream in(smi);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    auto at = text.find("--query-compute-apps=*)\n");
    REQUIRE(at != std::string::npos);
    text.insert(at + std::string("--query-compute-apps=*)\n").size(),
                "  echo 'Failed to initialize NVML: Unknown Error'\n");
    std::ofstream(smi) << text;
    o.smi = smi.string();
    REQUIRE(run(o, log) == 0);
    auto u = read_usage(dir.path / "usage-n1.csv");
    CHECK(u["gpus_held"] == 2);
    CHECK(u.count("gpus_used") == 0);
    CHECK(u.count("gpu_apps") == 0);
  }
  SECTION("a compute apps' nvidia-smi that ends by itself: GPUs used unknown, not none") {
    fs::path smi = fake_smi(dir.path, 999999998);
    std::string text;
    {
      std::ifstream in(smi);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    auto at = text.find("--query-compute-apps=*)\n");
    REQUIRE(at != std::string::npos);
    text.insert(at + std::string("--query-compute-apps=*)\n").size(), "  exit 0\n");
    std::ofstream(smi) << text;
    o.smi = smi.string();
    REQUIRE(run(o, log) == 0);
    auto u = read_usage(dir.path / "usage-n1.csv");
    CHECK(u["gpus_held"] == 2);
    CHECK(u.count("gpus_used") == 0);
    CHECK(log.str().find("nvidia-smi --query-compute-apps ended") != std::string::npos);
  }
  SECTION("CUDA_VISIBLE_DEVICES empty: no GPU held, no GPU energy") {
    o.smi = fake_smi(dir.path, child).string();
    o.visible_devices = "";
    REQUIRE(run(o, log) == 0);
    auto u = read_usage(dir.path / "usage-n1.csv");
    CHECK(u["gpus_held"] == 0);
    CHECK(u.count("gpu_energy_j") == 0);
    std::string header;
    for (auto& r : read_rows(dir.path / "power-n1.csv", header)) CHECK(r.device == "package-0");
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

TEST_CASE("CUDA_VISIBLE_DEVICES names the GPUs a job holds by index or UUID prefix") {
  CHECK(holds_gpu(std::nullopt, 3, ""));
  CHECK(holds_gpu(std::string("0,2"), 2, "GPU-x"));
  CHECK_FALSE(holds_gpu(std::string("0,2"), 1, "GPU-x"));
  CHECK_FALSE(holds_gpu(std::string(""), 0, "GPU-x"));
  CHECK(holds_gpu(std::string("GPU-73e2e5fc"), 5, "GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece"));
  CHECK_FALSE(holds_gpu(std::string("GPU-73e2e5fc"), 5, "GPU-00000000-d1a4"));
  CHECK_FALSE(holds_gpu(std::string("MIG-1234"), 0, "GPU-x"));
}

TEST_CASE("the usage file is written while the sampler runs, so a job killed mid-way keeps it") {
  campaign_test::TempDir dir("sample");
  Options o;
  o.interval_s = 0.05;
  o.out = dir.path / "utilisation-n1.csv";
  o.gpu = Gpu::off;
  o.duration_s = 60;
  pid_t sampler = ::fork();
  if (sampler == 0) {
    std::ostringstream log;
    ::_exit(run(o, log));
  }
  // Wait for the file (bounded: 20 s), then kill the sampler as a job's end would, without SIGTERM.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!fs::exists(dir.path / "usage-n1.csv") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(sampler, SIGKILL);
  int status = 0;
  ::waitpid(sampler, &status, 0);
  CHECK(WIFSIGNALED(status));
  REQUIRE(fs::exists(dir.path / "usage-n1.csv"));
  auto u = read_usage(dir.path / "usage-n1.csv");  // whole: written to a temporary name and renamed
  CHECK(u["seconds"] >= 1);
}

TEST_CASE("the RAPL packages' energy over the run, and the case's share by the CPUs it holds") {
  campaign_test::TempDir dir("sample");
  fs::path zone = dir.path / "powercap/intel-rapl:0";
  fs::create_directories(zone);
  std::ofstream(zone / "name") << "package-0\n";
  std::ofstream(zone / "max_energy_range_uj") << "262143328850\n";
  auto set_counter = [&](unsigned long long uj) {  // replaced whole, as the kernel's file reads
    std::ofstream(zone / "energy_uj.new") << uj << "\n";
    fs::rename(zone / "energy_uj.new", zone / "energy_uj");
  };
  set_counter(1000000);
  std::atomic<bool> done{false};
  std::thread counter([&] {  // 1 J more every 5 ms while the sampler runs
    for (unsigned long long uj = 1000000; !done; uj += 1000000) {
      set_counter(uj);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  Options o;
  o.interval_s = 0.05;
  o.out = dir.path / "utilisation-n1.csv";
  o.gpu = Gpu::off;
  o.duration_s = 0.5;
  o.powercap = dir.path / "powercap";
  std::ostringstream log;
  int status = run(o, log);
  done = true;
  counter.join();
  REQUIRE(status == 0);
  auto u = read_usage(dir.path / "usage-n1.csv");
  CHECK(u["cpu_package_readable"] == 1);
  CHECK(u["cpu_package_energy_j"] > 0);
  CHECK(u["cpu_package_energy_j"] == Approx(std::round(u["cpu_package_energy_j"])));  // whole joules moved
  const double online = static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN));
  CHECK(u["cpu_package_share"] == Approx(std::min(u["cores_held"], online) / online));
  CHECK(u["cpu_package_energy_share_j"] == Approx(u["cpu_package_energy_j"] * u["cpu_package_share"]));
  // Its power rows: the counter's growth over each interval.
  std::string header;
  auto rows = read_rows(dir.path / "power-n1.csv", header);
  REQUIRE(!rows.empty());
  for (auto& r : rows) CHECK(r.device == "package-0");
}
