// The attempt state machine: every one of the 14 x 14 pairs of states is
// checked against a table written out here independently of transitions.cpp.
#include "catalog/transitions.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <utility>

using campaign::State;

namespace {

constexpr int kStates = static_cast<int>(State::collect_failed) + 1;

const std::set<std::pair<State, State>>& expected_edges() {
  using S = State;
  static const std::set<std::pair<State, State>> edges = {
      {S::planned, S::submitting},
      {S::planned, S::cancelled},
      // submitting: back to planned, or adopted in whatever state the job is in.
      {S::submitting, S::planned},
      {S::submitting, S::queued},
      {S::submitting, S::running},
      {S::submitting, S::completed},
      {S::submitting, S::failed},
      {S::submitting, S::timeout},
      {S::submitting, S::cancelled},
      {S::submitting, S::node_fail},
      {S::submitting, S::preempted},
      {S::submitting, S::oom},
      {S::queued, S::planned},  // packed: its allocation ended before it started
      {S::queued, S::running},
      {S::queued, S::completed},
      {S::queued, S::failed},
      {S::queued, S::timeout},
      {S::queued, S::cancelled},
      {S::queued, S::node_fail},
      {S::queued, S::preempted},
      {S::queued, S::oom},
      {S::queued, S::lost},
      {S::running, S::planned},  // packed, as queued
      {S::running, S::queued},   // requeued by the scheduler
      {S::running, S::completed},
      {S::running, S::failed},
      {S::running, S::timeout},
      {S::running, S::cancelled},
      {S::running, S::node_fail},
      {S::running, S::preempted},
      {S::running, S::oom},
      {S::running, S::lost},
      {S::lost, S::completed},
      {S::lost, S::failed},
      {S::completed, S::collected},
      {S::completed, S::collect_failed},
      // corrected by the scheduler's accounting (the catalog allows it only before confirmation)
      {S::completed, S::failed},
      {S::completed, S::timeout},
      {S::completed, S::cancelled},
      {S::completed, S::node_fail},
      {S::completed, S::preempted},
      {S::completed, S::oom},
      {S::collected, S::collect_failed},
      {S::collect_failed, S::collected},
  };
  return edges;
}

}  // namespace

TEST_CASE("allowed() matches the table for every pair of states", "[catalog][transitions]") {
  int checked = 0, edges = 0;
  for (int f = 0; f < kStates; ++f) {
    for (int t = 0; t < kStates; ++t) {
      const State from = static_cast<State>(f), to = static_cast<State>(t);
      const bool expected = expected_edges().count({from, to}) > 0;
      INFO(to_string(from) << " -> " << to_string(to));
      CHECK(campaign::allowed(from, to) == expected);
      ++checked;
      edges += expected;
    }
  }
  CHECK(checked == 196);
  CHECK(edges == static_cast<int>(expected_edges().size()));
}

TEST_CASE("no state moves to itself", "[catalog][transitions]") {
  for (int s = 0; s < kStates; ++s)
    CHECK_FALSE(campaign::allowed(static_cast<State>(s), static_cast<State>(s)));
}

TEST_CASE("ended jobs other than completed and lost have no way out", "[catalog][transitions]") {
  for (State s :
       {State::failed, State::timeout, State::cancelled, State::node_fail, State::preempted, State::oom}) {
    INFO(to_string(s));
    CHECK(campaign::successors(s).empty());
    CHECK(campaign::retryable(s));
  }
}

TEST_CASE("successors lists the allowed targets in enum order", "[catalog][transitions]") {
  CHECK(campaign::successors(State::planned) == std::vector<State>{State::submitting, State::cancelled});
  CHECK(campaign::successors(State::completed) ==
        std::vector<State>{State::failed, State::timeout, State::cancelled, State::node_fail,
                           State::preempted, State::oom, State::collected, State::collect_failed});
  CHECK(campaign::successors(State::lost) == std::vector<State>{State::completed, State::failed});
}

TEST_CASE("every state is reachable from planned", "[catalog][transitions]") {
  std::set<State> seen{State::planned};
  std::vector<State> todo{State::planned};
  while (!todo.empty()) {
    State s = todo.back();
    todo.pop_back();
    for (State n : campaign::successors(s))
      if (seen.insert(n).second) todo.push_back(n);
  }
  CHECK(seen.size() == static_cast<size_t>(kStates));
}

TEST_CASE("retryable: only attempts that ended without a usable result", "[catalog][transitions]") {
  const std::set<State> yes = {State::failed,    State::timeout, State::cancelled, State::node_fail,
                               State::preempted, State::oom,     State::lost,      State::collect_failed};
  for (int s = 0; s < kStates; ++s) {
    const State st = static_cast<State>(s);
    INFO(to_string(st));
    CHECK(campaign::retryable(st) == (yes.count(st) > 0));
  }
}
