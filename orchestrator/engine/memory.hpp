// What the engine remembers between its decisions beside the attempts' rows, and how it is kept:
// every change a decision makes to it is recorded in the catalog as observations (Catalog::
// Observation), in the transaction that carries out the decision's actions (Engine::apply_decision),
// and an engine that starts folds them back. So after kill -9 a new `campaign run` remembers exactly
// what the killed one had committed: a job missing since 10:02 is still missing since 10:02 (not
// since the restart, which would push its verdict back by the time the run was down).
// Pure: no catalog, clock or I/O (tests/cli/boundaries.sh).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"

namespace campaign::engine {

struct Memory {
  // --- recorded (memory_changes, fold_memory) ---
  // Attempt id -> since when the scheduler has not known its job (no record in the queue or the
  // accounting) while it left no exit marker.
  std::map<std::int64_t, Time> missing;
  std::map<std::int64_t, int> marker_exit;  // attempt id -> non-zero exit marker awaiting the scheduler
  struct Unconfirmed {
    std::string job_id;
    std::optional<Time> unrecorded_since;  // the scheduler has had no record of the job (or step) since
    bool operator==(const Unconfirmed&) const = default;
  };
  // Attempts completed on their marker, awaiting the scheduler's accounting.
  std::map<std::int64_t, Unconfirmed> unconfirmed;
  // Packed attempts whose allocation ended without a step record of theirs, while the accounting
  // has not recorded the allocation's end yet: since when.
  std::map<std::int64_t, Time> awaiting_steps;

  // --- this process's only: a new engine starts them afresh, as it should ---
  // Starts "due": an engine's first poll asks (status --refresh is one tick, resume starts afresh).
  int polls_since_confirm = std::numeric_limits<int>::max() - 1;
  std::set<std::int64_t> awaiting_submission;  // submitting attempts with no job yet (said once)
};

// The observations that turn `before`'s recorded part into `after`'s, by fact then attempt.
std::vector<Observation> memory_changes(const Memory& before, const Memory& after);
// The memory that `recorded` (oldest first) leaves: for each attempt and fact, its last observation.
Memory fold_memory(const std::vector<Observation>& recorded);
// The recorded parts of `a` and `b` are equal; else what differs first, for a message.
std::string memory_difference(const Memory& a, const Memory& b);

}  // namespace campaign::engine
