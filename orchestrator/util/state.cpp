#include "util/state.hpp"

#include <array>

namespace campaign {

namespace {
constexpr std::array<std::string_view, 14> kNames = {
    "planned",   "submitting", "queued",    "running", "completed", "failed",    "timeout",
    "cancelled", "node_fail",  "preempted", "oom",     "lost",      "collected", "collect_failed",
};
}  // namespace

std::string_view to_string(State s) { return kNames[static_cast<size_t>(s)]; }

std::optional<State> state_from_string(std::string_view s) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<State>(i);
  return std::nullopt;
}

}  // namespace campaign
