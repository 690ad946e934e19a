// What the engine remembers between its decisions beside the attempts' rows, and how it is kept:
// every change a decision makes to it is recorded in the catalog as observations (Catalog::
// Observation), in the transaction that carries out the decision's actions (Engine::apply_decision),
// and an engine that starts folds them back. So after kill -9 a new `campaign run` remembers exactly
// what the killed one had committed: a job missing since 10:02 is still missing since 10:02 (not
// since the restart, which would push its verdict back by the time the run was down).
// Pure: no catalog, clock or I/O (tests/cli/boundaries.sh).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"

namespace campaign::engine {

// One recorded fact per attempt: a map that notes, from mark() on, each entry as it was before its
// first change, so that what changed since (Memory::changes) and the way back (undo) cost what
// changed, not what is held (a campaign of 100,000 cases holds thousands of completions awaiting
// the accounting; a copy and a comparison of them at every decision was a tenth of the run's CPU).
// Entries are read through const access only: every change goes through a member that notes it.
template <class V>
class Facts {
 public:
  using Map = std::map<std::int64_t, V>;
  using const_iterator = typename Map::const_iterator;

  Facts() = default;
  Facts(std::initializer_list<typename Map::value_type> init) : map_(init) {}
  Facts& operator=(std::initializer_list<typename Map::value_type> init) {
    clear();
    for (auto& [k, v] : init) (*this)[k] = v;
    return *this;
  }

  const_iterator begin() const { return map_.begin(); }
  const_iterator end() const { return map_.end(); }
  const_iterator find(std::int64_t k) const { return map_.find(k); }
  size_t count(std::int64_t k) const { return map_.count(k); }
  const V& at(std::int64_t k) const { return map_.at(k); }
  bool empty() const { return map_.empty(); }
  size_t size() const { return map_.size(); }
  bool operator==(const Facts& o) const { return map_ == o.map_; }
  bool operator==(const Map& m) const { return map_ == m; }

  V& operator[](std::int64_t k) {
    note(k);
    return map_[k];
  }
  // The value held for `k`; `v` from now when none is.
  const V& hold(std::int64_t k, const V& v) {
    if (auto it = map_.find(k); it != map_.end()) return it->second;
    note(k);
    return map_.emplace(k, v).first->second;
  }
  size_t erase(std::int64_t k) {
    if (!map_.count(k)) return 0;
    note(k);
    return map_.erase(k);
  }
  void clear() {
    for (auto& [k, _] : map_) note(k);
    map_.clear();
  }

  // Forgets what was noted: changes are counted from here.
  void mark() { before_.clear(); }
  // Back to the last mark().
  void undo() {
    for (auto& [k, was] : before_)
      if (was)
        map_[k] = *was;
      else
        map_.erase(k);
    before_.clear();
  }
  // Each entry changed since the last mark() (by attempt): as it was, nullopt when none was held.
  const std::map<std::int64_t, std::optional<V>>& noted() const { return before_; }

 private:
  void note(std::int64_t k) {
    if (before_.count(k)) return;
    auto it = map_.find(k);
    before_.emplace(k, it == map_.end() ? std::nullopt : std::optional<V>(it->second));
  }
  Map map_;
  std::map<std::int64_t, std::optional<V>> before_;
};

struct Memory {
  // --- recorded (memory_changes, fold_memory) ---
  // Attempt id -> since when the scheduler has not known its job (no record in the queue or the
  // accounting) while it left no exit marker.
  Facts<Time> missing;
  Facts<int> marker_exit;  // attempt id -> non-zero exit marker awaiting the scheduler
  struct Unconfirmed {
    std::string job_id;
    std::optional<Time> unrecorded_since;  // the scheduler has had no record of the job (or step) since
    bool operator==(const Unconfirmed&) const = default;
  };
  // Attempts completed on their marker, awaiting the scheduler's accounting.
  Facts<Unconfirmed> unconfirmed;
  // Packed attempts whose allocation ended without a step record of theirs, while the accounting
  // has not recorded the allocation's end yet: since when.
  Facts<Time> awaiting_steps;

  // --- this process's only: a new engine starts them afresh, as it should ---
  // Starts "due": an engine's first poll asks (status --refresh is one tick, resume starts afresh).
  int polls_since_confirm = std::numeric_limits<int>::max() - 1;
  std::set<std::int64_t> awaiting_submission;  // submitting attempts with no job yet (said once)

  // Changes counted from here (Facts::mark); the process's own part kept as it is.
  void mark();
  // Back as it was at the last mark(), both parts.
  void undo();
  // The observations that turn the recorded part as it was at the last mark() into what it is now:
  // memory_changes(at the mark, now), at the cost of what changed.
  std::vector<Observation> changes() const;

 private:
  int marked_polls_ = 0;
  std::set<std::int64_t> marked_awaiting_;
};

// The observations that turn `before`'s recorded part into `after`'s, by fact then attempt.
std::vector<Observation> memory_changes(const Memory& before, const Memory& after);
// The memory that `recorded` (oldest first) leaves: for each attempt and fact, its last observation.
Memory fold_memory(const std::vector<Observation>& recorded);
// The recorded parts of `a` and `b` are equal; else what differs first, for a message.
std::string memory_difference(const Memory& a, const Memory& b);

}  // namespace campaign::engine
