// nvidia-smi's CSV (`--query-gpu=timestamp,index,utilization.gpu,power.draw,memory.used,uuid
// --format=csv,noheader,nounits -lms N`) as the sampler's rows: one line per GPU and reading, its
// local-time timestamp ("2026/11/25 13:00:00.123") as Unix seconds. With units ("45 %", "70.57 W",
// "883 MiB") and with a header too, so files recorded with other --query-gpu lists read the same
// way. The compute apps (`--query-compute-apps=pid,gpu_uuid,used_memory`): which process used which
// GPU.
//
// Invariant: a line that is not a reading (a header, "[N/A]", "[Not Supported]", an error
// message) gives no row rather than a wrong one; a power or memory field that is not a number
// ("[N/A]" where the board has no power management) leaves that value unset, not the row.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace campaign::sample {

// The query the sampler runs nvidia-smi with, and where its fields are in a line. `power.draw`, not
// `power.draw.instant`: every driver with power management has it (asking an older driver for a
// field it lacks fails the whole query); on Ampere and newer it is a 1 s average (--help-query-gpu).
inline constexpr const char* kSmiQuery = "timestamp,index,utilization.gpu,power.draw,memory.used,uuid";
inline constexpr const char* kSmiAppsQuery = "pid,gpu_uuid,used_memory";
struct SmiColumns {
  int timestamp = 0;
  int index = 1;  // -1: no index column (a one-GPU recording): GPU 0
  int utilization = 2;
  int power = 3;   // -1: none; a line with fewer fields has no power either
  int memory = 4;  // memory.used, MiB
  int uuid = 5;
  // From a header line ("timestamp, index, utilization.gpu [%], ..."); nullopt when it lacks the
  // timestamp or the utilisation.
  static std::optional<SmiColumns> from_header(std::string_view header);
};

struct GpuReading {
  double time = 0;  // Unix seconds
  int index = 0;
  double utilization = 0;            // percent
  std::optional<double> power_w;     // power.draw, W
  std::optional<double> memory_mib;  // memory.used, MiB
  std::string uuid;                  // "" when not in the line
};

// One line of --query-compute-apps=pid,gpu_uuid,used_memory (noheader; units or not): a process
// that holds a context on a GPU. nullopt for anything else ("No running processes found", a header).
struct GpuApp {
  int pid = 0;
  std::string uuid;
  std::optional<double> memory_mib;
};
std::optional<GpuApp> parse_smi_app(std::string_view line);

// "YYYY/MM/DD HH:MM:SS[.mmm]" in the local time zone (nvidia-smi's) as Unix seconds.
std::optional<double> parse_smi_timestamp(std::string_view text);
std::optional<GpuReading> parse_smi_line(std::string_view line, const SmiColumns& columns = {});

}  // namespace campaign::sample
