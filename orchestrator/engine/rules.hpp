// What the engine's parts agree on about attempts and observations: small pure functions, shared by
// the decisions (decide.cpp, choose.cpp) and the loop (engine.cpp, apply.cpp, submit.cpp).
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "matrix/plan.hpp"
#include "render/script.hpp"
#include "sched/scheduler.hpp"
#include "util/strings.hpp"

namespace campaign::engine {

// The catalog update a scheduler's record of a job makes (times, exit code, nodes, reason).
inline JobUpdate update_from(const sched::JobInfo& info) {
  JobUpdate u;
  if (!info.reason.empty()) u.reason = info.reason;
  if (info.exit_code) u.exit_code = *info.exit_code;
  if (info.state == State::failed && info.exit_code == render::kModuleLoadFailed)
    u.reason = "a `module load` in the job script failed (exit status " +
               std::to_string(render::kModuleLoadFailed) +
               "; the module system's message is in the job's output)";
  if (info.state == State::failed && info.exit_code == render::kClaimedElsewhere)
    u.reason = "another job of this attempt had run in its run directory; this one left it (exit status " +
               std::to_string(render::kClaimedElsewhere) + ")";
  if (info.start) u.started = *info.start;
  if (info.end) u.ended = *info.end;
  if (info.elapsed_s) u.elapsed_s = static_cast<std::int64_t>(*info.elapsed_s);
  if (!info.nodelist.empty()) u.node_list = join(info.node_names(), ",");
  if (info.energy_j && is_final(info.state))
    u.energy_j = *info.energy_j;  // a running job's is a running total
  return u;
}

inline bool is_failure_end(State s) {
  return is_final(s) && s != State::completed && s != State::collected && s != State::collect_failed;
}

// Final, and the scheduler has had its say: a completion on the exit marker alone is not yet.
inline bool settled(const AttemptRow& a) {
  return is_final(a.state) && (a.state != State::completed || a.confirmed);
}

inline bool succeeded(const AttemptRow& a) {
  return settled(a) &&
         (a.state == State::completed || a.state == State::collected || a.state == State::collect_failed);
}

inline constexpr const char* kAwaitingAccounting = "exit marker 0; awaiting the scheduler's accounting";

// The reason's words for a dependency's failure (the decision reads Cause::dependency, not these).
inline constexpr const char* kDependencyReason = "dependency ";

}  // namespace campaign::engine
