// The engine's memory as recorded observations: what a decision changed, recorded, folds back to
// exactly what the engine held (what an engine started after a kill -9 remembers).
#include "engine/memory.hpp"

#include <catch2/catch.hpp>

using namespace campaign;
using campaign::engine::fold_memory;
using campaign::engine::Memory;
using campaign::engine::memory_changes;
using campaign::engine::memory_difference;

namespace {

Time at(long s) { return Time(std::chrono::seconds(1'800'000'000 + s)); }

}  // namespace

TEST_CASE("every change to the memory, recorded and folded, gives the memory back") {
  std::vector<Observation> log;
  Memory held;
  Memory m;
  auto step = [&](Memory& next) {
    auto changes = memory_changes(held, next);
    CHECK(next.changes() == changes);  // what was noted since the mark: the same, in the same order
    log.insert(log.end(), changes.begin(), changes.end());
    next.mark();
    held = next;
    CHECK(memory_difference(fold_memory(log), held) == "");
  };
  m.missing[1] = at(0);
  m.marker_exit[2] = 137;
  m.unconfirmed[3] = {"77", std::nullopt};
  m.awaiting_steps[4] = at(5);
  step(m);
  m.unconfirmed[3].unrecorded_since = at(10);  // a value changes
  m.missing.erase(1);                          // a fact ends
  m.missing[5] = at(12);
  step(m);
  m.unconfirmed.erase(3);
  m.marker_exit.erase(2);
  m.awaiting_steps.clear();
  step(m);
  m.unconfirmed[3] = {"78", at(20)};  // held again, with another job
  m.marker_exit[6] = 1;
  m.marker_exit.erase(6);     // came and went between two marks: nothing
  m.missing[5] = at(12);      // set to what it was: nothing
  m.missing.hold(5, at(99));  // held already: kept
  step(m);
  CHECK(fold_memory(log).unconfirmed.at(3) == Memory::Unconfirmed{"78", at(20)});
  CHECK(fold_memory(log).missing == std::map<std::int64_t, Time>{{5, at(12)}});
}

TEST_CASE("undo puts the memory back as it was at the mark, both parts") {
  Memory m;
  m.missing[1] = at(0);
  m.unconfirmed[3] = {"77", std::nullopt};
  m.awaiting_submission.insert(4);
  m.mark();
  const Memory before = m;
  m.missing.erase(1);
  m.missing[2] = at(1);
  m.unconfirmed[3].unrecorded_since = at(10);
  m.awaiting_steps.hold(8, at(2));
  m.awaiting_submission.clear();
  m.polls_since_confirm = 3;
  CHECK(m.changes().size() == 4);
  m.undo();
  CHECK(memory_difference(m, before) == "");
  CHECK(m.changes().empty());
  CHECK(m.awaiting_submission == std::set<std::int64_t>{4});
  CHECK(m.polls_since_confirm == before.polls_since_confirm);
}

TEST_CASE("what is not recorded changes nothing in the catalog: the poll cadence, the notes said once") {
  Memory a, b;
  b.polls_since_confirm = 0;
  b.awaiting_submission.insert(9);
  CHECK(memory_changes(a, b).empty());
  CHECK(memory_difference(a, b) == "");
}

TEST_CASE("a difference in the recorded part is named") {
  Memory a, b;
  a.marker_exit[2] = 1;
  CHECK(memory_difference(a, b) == "marker_exit of attempt 2: 1 in one, absent in the other");
  b.marker_exit[2] = 2;
  CHECK(memory_difference(a, b) == "marker_exit of attempt 2: 1 in one, different in the other");
  CHECK(memory_difference(b, b) == "");
}

TEST_CASE("the one fact a version 10 catalog kept folds to a completion awaiting the accounting") {
  // What migration 11 records for an attempt completed on its marker (attempts.confirmed = 0).
  Memory m = fold_memory({{7, "unconfirmed", true, std::nullopt, "88"}});
  REQUIRE(m.unconfirmed.count(7));
  CHECK(m.unconfirmed.at(7).job_id == "88");
  CHECK_FALSE(m.unconfirmed.at(7).unrecorded_since);
}
