#include "sample/nvidia_smi.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

using namespace campaign::sample;

namespace {
// nvidia-smi prints local time; the tests fix the zone and put the old one back.
struct Zone {
  std::string old;
  bool had;
  explicit Zone(const char* tz) {
    const char* o = std::getenv("TZ");
    had = o != nullptr;
    if (had) old = o;
    ::setenv("TZ", tz, 1);
    ::tzset();
  }
  ~Zone() {
    if (had)
      ::setenv("TZ", old.c_str(), 1);
    else
      ::unsetenv("TZ");
    ::tzset();
  }
};
}  // namespace

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
