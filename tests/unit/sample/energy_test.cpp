#include "sample/energy.hpp"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "sample/nvidia_smi.hpp"

using namespace campaign::sample;
namespace fs = std::filesystem;

TEST_CASE("power integrated by the trapezoid rule over the readings' time stamps") {
  PowerIntegral p;
  CHECK(p.joules() == 0);
  CHECK_FALSE(p.mean_watts());
  // The first three readings of the H100 under load (load-noheader-nounits.csv):
  // 18:36:19.637 692.42 W, 19.744 692.42 W, 19.844 697.41 W.
  // By hand: 0.107 s x (692.42 + 692.42) / 2 + 0.100 s x (692.42 + 697.41) / 2
  //        = 74.08894 + 69.4915 = 143.58044 J over 0.207 s: 693.6253 W.
  p.add(1795804579.637, 692.42);
  CHECK_FALSE(p.mean_watts());  // one reading: no energy
  p.add(1795804579.744, 692.42);
  p.add(1795804579.844, 697.41);
  CHECK(p.joules() == Approx(143.58044).margin(1e-3));
  CHECK(p.seconds() == Approx(0.207).margin(1e-6));
  CHECK(*p.mean_watts() == Approx(693.6253).margin(1e-3));
  CHECK(p.readings() == 3);
  // A reading not later than the last adds nothing (nvidia-smi repeats a time stamp at most).
  p.add(1795804579.844, 5000);
  p.add(1795804579.800, 5000);
  CHECK(p.joules() == Approx(143.58044).margin(1e-3));
  CHECK(p.readings() == 3);
}

TEST_CASE("the recorded H100 run's energy: 41 readings at 10 Hz, about 2817 J over 4.04 s") {
  std::ifstream head(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/idle-csv-units.csv");
  std::string header;
  std::getline(head, header);
  auto columns = SmiColumns::from_header(header);
  REQUIRE(columns);
  PowerIntegral p;
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/load-noheader-nounits.csv");
  for (std::string line; std::getline(in, line);)
    if (auto r = parse_smi_line(line, *columns)) p.add(r->time, *r->power_w);
  // Written from the definition with Python (datetime.strptime of each time stamp, then
  // sum((t[i]-t[i-1]) * (w[i]+w[i-1]) / 2)): 2816.928 J over 4.037 s, 697.778 W.
  CHECK(p.readings() == 41);
  CHECK(p.joules() == Approx(2816.928).margin(0.01));
  CHECK(p.seconds() == Approx(4.037).margin(1e-6));
  CHECK(*p.mean_watts() == Approx(697.778).margin(0.01));
}

TEST_CASE("energy to train: the samples within run_start..run_stop integrated, nothing interpolated",
          "[energy]") {
  // The first three H100 readings again (see above).
  const std::vector<double> t = {1795804579.637, 1795804579.744, 1795804579.844};
  const std::vector<double> w = {692.42, 692.42, 697.41};
  // [19.700, 19.900] holds the last two: 0.100 s x (692.42 + 697.41) / 2 = 69.4915 J; the first's
  // 56 ms inside the window before 19.744 are not guessed.
  CHECK(*energy_within(t, w, 1795804579.700, 1795804579.900) == Approx(69.4915).margin(1e-3));
  CHECK(*energy_within(t, w, 1795804579.637, 1795804579.744) == Approx(74.08894).margin(1e-3));  // inclusive
  CHECK(*energy_within(t, w, 0, 2e9) == Approx(143.58044).margin(1e-3));
  CHECK_FALSE(energy_within(t, w, 1795804579.700, 1795804579.800));  // one sample: no energy
  CHECK_FALSE(energy_within(t, w, 2e9, 3e9));

  // The recorded run, window 18:36:20.500 to 18:36:22.500 local time. Written from the definition
  // with Python (the readings whose datetime.strptime falls in the window, then the trapezoid): 20
  // readings, 20.549 to 22.465, 1338.1508 J.
  std::ifstream head(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/idle-csv-units.csv");
  std::string header;
  std::getline(head, header);
  auto columns = SmiColumns::from_header(header);
  REQUIRE(columns);
  std::vector<double> times, watts;
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/load-noheader-nounits.csv");
  for (std::string line; std::getline(in, line);)
    if (auto r = parse_smi_line(line, *columns)) times.push_back(r->time), watts.push_back(*r->power_w);
  const double start = *parse_smi_timestamp("2026/11/27 18:36:20.500");
  const double stop = *parse_smi_timestamp("2026/11/27 18:36:22.500");
  CHECK(*energy_within(times, watts, start, stop) == Approx(1338.1508).margin(0.01));
}

TEST_CASE("a RAPL counter's growth, once round when it wrapped") {
  CHECK(*counter_delta(100, 350, 1000) == 250);
  CHECK(*counter_delta(900, 50, 1000) == 150);  // 100 to the wrap, 50 after
  CHECK_FALSE(counter_delta(900, 50, 0));       // no range known: no guess
}

namespace {
void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
}  // namespace

TEST_CASE("powercap's package zones: absent, unreadable or readable, subzones and psys left out") {
  campaign_test::TempDir dir("powercap");
  CHECK(find_packages(dir.path / "none").state == Powercap::absent);
  CHECK(find_packages(dir.path).state == Powercap::absent);
  write(dir.path / "intel-rapl:0/name", "package-0\n");
  write(dir.path / "intel-rapl:0/energy_uj", "123456789\n");
  write(dir.path / "intel-rapl:0/max_energy_range_uj", "262143328850\n");
  write(dir.path / "intel-rapl:0:0/name", "core\n");  // a part of package-0
  write(dir.path / "intel-rapl:0:0/energy_uj", "5\n");
  write(dir.path / "intel-rapl:1/name", "psys\n");  // the platform: packages and more
  write(dir.path / "intel-rapl:1/energy_uj", "7\n");
  write(dir.path / "intel-rapl-mmio:0/name", "package-0\n");  // the same package through MMIO
  write(dir.path / "intel-rapl-mmio:0/energy_uj", "9\n");
  auto p = find_packages(dir.path);
  CHECK(p.state == Powercap::readable);
  REQUIRE(p.packages.size() == 1);
  CHECK(p.packages[0].name == "package-0");
  CHECK(p.packages[0].max_range_uj == 262143328850ULL);
  CHECK(*read_energy_uj(p.packages[0]) == 123456789);
  // Since Linux 5.10 energy_uj is root's only: the zone is there, its counter is not readable. (A
  // directory in its place stands for that where the test runs as root, who reads any file.)
  write(dir.path / "intel-rapl:2/name", "package-1\n");
  if (::geteuid() == 0) {
    fs::create_directories(dir.path / "intel-rapl:2/energy_uj");
  } else {
    write(dir.path / "intel-rapl:2/energy_uj", "1\n");
    fs::permissions(dir.path / "intel-rapl:2/energy_uj", fs::perms::none);
  }
  auto q = find_packages(dir.path);
  CHECK(q.state == Powercap::unreadable);
  CHECK(q.packages.size() == 2);
  CHECK(std::string(to_string(q.state)) == "unreadable");
}

TEST_CASE("an allocation's energy split among its packed cases by what each held") {
  // An allocation's 9000 J (sacct ConsumedEnergy); case a held 4 cores for 100 s, b 2 cores for
  // 100 s, c 4 cores for 50 s: 400 + 200 + 200 = 800 core-seconds; a 4/8, b 2/8, c 2/8.
  auto s = split_by_held(9000, {4 * 100.0, 2 * 100.0, 4 * 50.0});
  REQUIRE(s.size() == 3);
  CHECK(s[0] == Approx(4500));
  CHECK(s[1] == Approx(2250));
  CHECK(s[2] == Approx(2250));
  CHECK(s[0] + s[1] + s[2] == Approx(9000));
  CHECK(split_by_held(9000, {0, 0}) == std::vector<double>{0, 0});
  CHECK(split_by_held(9000, {0, 10}) == std::vector<double>{0, 9000});
}

TEST_CASE(
    "power.draw, a 1 s average on the H100, against power.draw.instant: the same under load, late after it") {
  std::ifstream head(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/idle-csv-units.csv");
  std::string header;
  std::getline(head, header);
  auto average = SmiColumns::from_header(header);
  REQUIRE(average);
  SmiColumns instant = *average;
  instant.power = 6;  // power.draw.instant, the column after power.draw
  auto energy = [](const std::string& file, const SmiColumns& c) {
    PowerIntegral p;
    std::ifstream in(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/" + file);
    for (std::string line; std::getline(in, line);)
      if (auto r = parse_smi_line(line, c)) p.add(r->time, *r->power_w);
    return p.joules();
  };
  // Written from the definition with Python, as above: under load 2816.928 J (power.draw) and
  // 2825.485 J (instant), 0.3 % apart; in the 1.41 s after the load 251.908 J and 177.023 J: the
  // average still counts the load's last second.
  CHECK(energy("load-noheader-nounits.csv", *average) == Approx(2816.928).margin(0.01));
  CHECK(energy("load-noheader-nounits.csv", instant) == Approx(2825.485).margin(0.01));
  CHECK(energy("after-noheader-nounits.csv", *average) == Approx(251.908).margin(0.01));
  CHECK(energy("after-noheader-nounits.csv", instant) == Approx(177.023).margin(0.01));
}
