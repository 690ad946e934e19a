#include "sample/nvidia_smi.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "../zone.hpp"

using namespace campaign::sample;

// nvidia-smi prints local time; the tests fix the zone (campaign_test::Zone).
using campaign_test::Zone;

TEST_CASE("nvidia-smi timestamps are local time with milliseconds") {
  Zone utc("UTC");
  CHECK(*parse_smi_timestamp("2026/11/25 13:00:00.123") == Approx(1795611600.123).margin(1e-6));
  CHECK(*parse_smi_timestamp("2026/11/25 13:00:00") == Approx(1795611600.0));
  {
    Zone cet("CET-1CEST,M3.5.0,M10.5.0/3");  // summer and winter time
    CHECK(*parse_smi_timestamp("2026/11/25 14:00:00.500") == Approx(1795611600.5));
    CHECK(*parse_smi_timestamp("2026/07/01 14:00:00.000") == Approx(1782907200.0));  // 12:00 UTC
  }
  CHECK_FALSE(parse_smi_timestamp("2026-11-25 13:00:00"));
  CHECK_FALSE(parse_smi_timestamp("2026/11/25 13:00"));
  CHECK_FALSE(parse_smi_timestamp("2026/11/25 13:00:00."));
  CHECK_FALSE(parse_smi_timestamp("timestamp"));
}

TEST_CASE("the sampler's query: timestamp, index, utilization.gpu without header and units") {
  Zone utc("UTC");
  // The documented line format of --query-gpu=timestamp,index,utilization.gpu
  // --format=csv,noheader,nounits (nvidia-smi --help-query-gpu).
  auto r = parse_smi_line("2026/11/25 13:00:00.123, 3, 97");
  REQUIRE(r);
  CHECK(r->time == Approx(1795611600.123).margin(1e-6));
  CHECK(r->index == 3);
  CHECK(r->utilization == 97);
  // What is not a reading gives no row.
  CHECK_FALSE(parse_smi_line("2026/11/25 13:00:00.123, 0, [N/A]"));
  CHECK_FALSE(parse_smi_line("2026/11/25 13:00:00.123, 0, [Not Supported]"));
  CHECK_FALSE(parse_smi_line("timestamp, index, utilization.gpu [%]"));
  CHECK_FALSE(parse_smi_line("Failed to initialize NVML: Driver/library version mismatch"));
  CHECK_FALSE(parse_smi_line("2026/11/25 13:00:00.123, 0"));
  CHECK_FALSE(parse_smi_line(""));
}

TEST_CASE("recorded nvidia-smi output (Saga, tests/data/nvidia-smi) reads as GPU 0's series") {
  Zone utc("UTC");
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nvidia-smi/saga-monitor.csv");
  std::string header;
  REQUIRE(std::getline(in, header));
  auto columns = SmiColumns::from_header(header);
  REQUIRE(columns);
  CHECK(columns->timestamp == 0);
  CHECK(columns->index == -1);
  CHECK(columns->utilization == 1);
  std::vector<GpuReading> rows;
  for (std::string line; std::getline(in, line);)
    if (auto r = parse_smi_line(line, *columns)) rows.push_back(*r);
  REQUIRE(rows.size() == 4);
  // 2021/11/03 21:42:44.210 as UTC
  CHECK(rows[0].time == Approx(1635975764.210).margin(1e-6));
  CHECK(rows[0].utilization == 0);
  CHECK(rows[1].utilization == 82);
  CHECK(rows[3].time - rows[0].time == Approx(3.001).margin(1e-6));
  for (auto& r : rows) CHECK(r.index == 0);
  CHECK_FALSE(SmiColumns::from_header("index, name, memory.used [MiB]"));
}

namespace {
// The readings of a recorded file, read with the columns of `header` (the recordings without a header
// were made with the same --query-gpu list as idle-csv-units.csv, whose header names it).
std::vector<GpuReading> h100_readings(const std::string& name, const SmiColumns& columns) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/" + name);
  std::vector<GpuReading> rows;
  for (std::string line; std::getline(in, line);)
    if (auto r = parse_smi_line(line, columns)) rows.push_back(*r);
  return rows;
}
SmiColumns h100_columns() {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/idle-csv-units.csv");
  std::string header;
  std::getline(in, header);
  auto c = SmiColumns::from_header(header);
  REQUIRE(c);
  return *c;
}
}  // namespace

TEST_CASE("recorded H100 output (driver 580): power.draw, memory.used and the uuid, with and without units") {
  Zone utc("UTC");
  SmiColumns c = h100_columns();
  // timestamp, index, uuid, utilization.gpu [%], utilization.memory [%], power.draw [W], ...,
  // memory.used [MiB] (10th), ...
  CHECK(c.timestamp == 0);
  CHECK(c.index == 1);
  CHECK(c.uuid == 2);
  CHECK(c.utilization == 3);
  CHECK(c.power == 5);
  CHECK(c.memory == 9);
  auto idle = h100_readings("idle-csv-units.csv", c);
  REQUIRE(idle.size() == 20);
  // Line 2: "2026/11/27 18:36:10.633, 0, GPU-73e2..., 0 %, 0 %, 70.57 W, 70.61 W, ..., 0 MiB, ..."
  CHECK(idle[0].time == Approx(1795804570.633).margin(1e-6));
  CHECK(idle[0].utilization == 0);
  REQUIRE(idle[0].power_w);
  CHECK(*idle[0].power_w == Approx(70.57));
  CHECK(*idle[0].memory_mib == 0);
  CHECK(idle[0].uuid == "GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece");
  for (auto& r : idle) CHECK((r.power_w && *r.power_w > 60 && *r.power_w < 80));  // idle: about 70 W

  auto load = h100_readings("load-noheader-nounits.csv", c);
  REQUIRE(load.size() == 41);
  // First line: "2026/11/27 18:36:19.637, 0, GPU-..., 99, 31, 692.42, 762.60, 692.42, 700.00, 883, ..."
  CHECK(load[0].utilization == 99);
  CHECK(*load[0].power_w == Approx(692.42));
  CHECK(*load[0].memory_mib == 883);
  for (auto& r : load) CHECK((*r.power_w > 680 && *r.power_w < 780));  // under load: about 690-770 W

  // A board without power management answers [N/A]: the row stays, without power.
  auto na = parse_smi_line("2026/11/27 18:36:19.637, 0, 99, [N/A], 883, GPU-1");
  REQUIRE(na);
  CHECK(na->utilization == 99);
  CHECK_FALSE(na->power_w);
  CHECK(*na->memory_mib == 883);
  // The sampler's own queries: power.draw, which every driver with power management has (not
  // power.draw.instant, which an older driver would refuse, failing the whole query).
  CHECK(std::string(kSmiQuery) == "timestamp,index,utilization.gpu,power.draw,memory.used,uuid");
  CHECK(std::string(kSmiAppsQuery) == "pid,gpu_uuid,used_memory");
  auto own =
      parse_smi_line("2026/11/27 18:36:19.637, 1, 99, 692.42, 883, GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece");
  REQUIRE(own);
  CHECK(own->index == 1);
  CHECK(*own->power_w == Approx(692.42));
  CHECK(own->uuid == "GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece");
  auto wrong = parse_smi_line("2026/11/27 18:36:19.637, 1, 99, 692.42 MiB, 883");  // a wrong unit is no power
  REQUIRE(wrong);
  CHECK_FALSE(wrong->power_w);
}

TEST_CASE("recorded --query-compute-apps: the job's pid on its GPU") {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nvidia-smi/h100-driver580/compute-apps-noheader.csv");
  std::string line;
  REQUIRE(std::getline(in, line));
  auto a = parse_smi_app(line);  // "694, GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece, 874"
  REQUIRE(a);
  CHECK(a->pid == 694);
  CHECK(a->uuid == "GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece");
  CHECK(*a->memory_mib == 874);
  auto units = parse_smi_app("694, GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece, 874 MiB");
  REQUIRE(units);
  CHECK(*units->memory_mib == 874);
  CHECK_FALSE(parse_smi_app("pid, gpu_uuid, used_gpu_memory [MiB]"));
  CHECK_FALSE(parse_smi_app("No running processes found"));
  CHECK_FALSE(parse_smi_app(""));
}
