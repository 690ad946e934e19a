#include "resource/detect.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "util/process.hpp"
#include "util/strings.hpp"

namespace campaign::resource {

std::vector<int> usable_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) out.push_back(i);
  if (out.empty()) out.push_back(0);
  return out;
}

namespace {

// The entries of a *_VISIBLE_DEVICES value that name one of `known` (an index or a UUID, or a
// unique prefix of one, as CUDA accepts), in the variable's order; CUDA stops at the first entry
// that names no device.
std::vector<std::string> narrow(const std::vector<std::pair<std::string, std::string>>& known,
                                const std::string& visible) {
  std::vector<std::string> out;
  for (const std::string& raw : split(visible, ',')) {
    std::string e = trim(raw);
    if (e.empty()) break;
    bool found = false;
    for (const auto& [index, uuid] : known)
      if (e == index || (!uuid.empty() && e.size() >= 5 && starts_with(uuid, e))) {
        found = true;
        break;
      }
    if (!found) break;
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return out;
}

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

std::optional<std::string> tool_output(const std::vector<std::string>& argv) {
  RunOptions o;
  o.timeout = std::chrono::seconds(10);
  o.max_output = 1 << 20;
  RunResult r = run_program(argv, o);
  if (r.start_error || r.timed_out || !r.status || shell_exit_code(*r.status) != 0) return std::nullopt;
  return r.out;
}

}  // namespace

std::vector<std::string> nvidia_ids(const std::string& smi_list, bool visible_set,
                                    const std::string& visible) {
  // "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5f2c...)"; MIG devices are listed indented below.
  static const std::regex line(R"(^GPU (\d+):.*\(UUID: ([^)]+)\))");
  std::vector<std::pair<std::string, std::string>> known;
  std::istringstream in(smi_list);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) known.emplace_back(m[1].str(), m[2].str());
  }
  if (visible_set) return narrow(known, visible);
  std::vector<std::string> out;
  for (auto& k : known) out.push_back(k.first);
  return out;
}

std::vector<std::string> rocm_ids(const std::string& smi_output, bool visible_set,
                                  const std::string& visible) {
  // rocm-smi prints one or more lines per device, each starting "GPU[N]".
  static const std::regex tag(R"(GPU\[(\d+)\])");
  std::set<int> seen;
  for (auto it = std::sregex_iterator(smi_output.begin(), smi_output.end(), tag);
       it != std::sregex_iterator(); ++it)
    seen.insert(std::stoi((*it)[1].str()));
  std::vector<std::pair<std::string, std::string>> known;
  for (int i : seen) known.emplace_back(std::to_string(i), "");
  if (visible_set) return narrow(known, visible);
  std::vector<std::string> out;
  for (auto& k : known) out.push_back(k.first);
  return out;
}

Gpus detect_gpus() {
  if (auto out = tool_output({"nvidia-smi", "-L"})) {
    auto v = env("CUDA_VISIBLE_DEVICES");
    return {"CUDA_VISIBLE_DEVICES", nvidia_ids(*out, v.has_value(), v.value_or(""))};
  }
  if (auto out = tool_output({"rocm-smi", "--showid"})) {
    auto v = env("ROCR_VISIBLE_DEVICES");
    if (!v) v = env("HIP_VISIBLE_DEVICES");
    return {"ROCR_VISIBLE_DEVICES", rocm_ids(*out, v.has_value(), v.value_or(""))};
  }
  return {};
}

long memory_mb() {
  std::ifstream in("/proc/meminfo");
  for (std::string l; std::getline(in, l);)
    if (starts_with(l, "MemTotal:")) {
      try {
        return std::stol(l.substr(9)) / 1024;
      } catch (const std::exception&) {
        return 0;
      }
    }
  return 0;
}

}  // namespace campaign::resource
