// The attempt states: which are final, which active (the engine folds ask both of every row), and
// their names both ways.
#include "util/state.hpp"

#include <catch2/catch.hpp>

using namespace campaign;

TEST_CASE("final states are those after running; active ones queued and running", "[state]") {
  const State every[] = {State::planned,   State::submitting,    State::queued,  State::running,
                         State::completed, State::failed,        State::timeout, State::cancelled,
                         State::node_fail, State::preempted,     State::oom,     State::lost,
                         State::collected, State::collect_failed};
  for (State s : every) {
    const std::string_view n = to_string(s);
    INFO(n);
    const bool before_end =
        s == State::planned || s == State::submitting || s == State::queued || s == State::running;
    CHECK(is_final(s) == !before_end);
    CHECK(is_active(s) == (s == State::queued || s == State::running));
    CHECK(state_from_string(n) == s);
  }
  CHECK_FALSE(state_from_string("finished"));
}
