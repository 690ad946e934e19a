// The states of one attempt of a case (ARCHITECTURE.md, "Invariants").
//
//   planned -> submitting -> queued -> running -> completed | failed | timeout |
//   cancelled | node_fail | preempted | oom | lost ; completed -> collected |
//   collect_failed
//
// Scheduler back ends map their own states onto these; the catalog stores the
// lower-case names returned by to_string().
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace campaign {

enum class State {
  planned,
  submitting,
  queued,
  running,
  completed,
  failed,
  timeout,
  cancelled,
  node_fail,
  preempted,
  oom,
  lost,
  collected,
  collect_failed,
};

std::string_view to_string(State s);
std::optional<State> state_from_string(std::string_view s);

// True once the job has ended (whatever the outcome); the scheduler has nothing more to say.
// Inline: the engine's folds ask it of every row of a campaign at every tick. Every state declared
// after `running` is final (state_test checks each).
inline bool is_final(State s) { return s > State::running; }
// True while the scheduler still owns the job (queued or running).
inline bool is_active(State s) { return s == State::queued || s == State::running; }

}  // namespace campaign
