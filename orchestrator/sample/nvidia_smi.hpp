// nvidia-smi's CSV (`--query-gpu=timestamp,index,utilization.gpu --format=csv,noheader,nounits
// -lms N`) as the sampler's rows: one line per GPU and reading, its local-time timestamp
// ("2026/11/25 13:00:00.123") as Unix seconds. With units ("45 %") and with a header too, so
// files recorded with other --query-gpu lists read the same way.
//
// Invariant: a line that is not a reading (a header, "[N/A]", "[Not Supported]", an error
// message) gives no row rather than a wrong one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace campaign::sample {

// The query the sampler runs nvidia-smi with, and where its fields are in a line.
inline constexpr const char* kSmiQuery = "timestamp,index,utilization.gpu";
struct SmiColumns {
  int timestamp = 0;
  int index = 1;  // -1: no index column (a one-GPU recording): GPU 0
  int utilization = 2;
  // From a header line ("timestamp, index, utilization.gpu [%], ..."); nullopt when it lacks the
  // timestamp or the utilisation.
  static std::optional<SmiColumns> from_header(std::string_view header);
};

struct GpuReading {
  double time = 0;  // Unix seconds
  int index = 0;
  double utilization = 0;  // percent
};

// "YYYY/MM/DD HH:MM:SS[.mmm]" in the local time zone (nvidia-smi's) as Unix seconds.
std::optional<double> parse_smi_timestamp(std::string_view text);
std::optional<GpuReading> parse_smi_line(std::string_view line, const SmiColumns& columns = {});

}  // namespace campaign::sample
