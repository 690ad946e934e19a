#include "engine/policy.hpp"

#include <catch2/catch.hpp>

#include "engine/markers.hpp"

using namespace campaign;
using namespace campaign::engine;

TEST_CASE("poll backoff grows while nothing changes and resets when something does") {
  Backoff b(0.5, 5, 2);
  CHECK(b.next(false) == 1.0);
  CHECK(b.next(false) == 2.0);
  CHECK(b.next(false) == 4.0);
  CHECK(b.next(false) == 5.0);  // capped at the system's poll_max
  CHECK(b.next(true) == 0.5);   // back to poll_min
  b.next(false);
  b.reset();
  CHECK(b.current() == 0.5);
}

TEST_CASE("the loop stays quiet for fifty times a tick's cost, at most the poll ceiling") {
  using std::chrono::milliseconds;
  CHECK(quiet_gap(milliseconds(5), 2.0) == milliseconds(250));
  CHECK(quiet_gap(milliseconds(30), 2.0) == milliseconds(1500));
  CHECK(quiet_gap(milliseconds(0), 2.0) == Clock::duration::zero());    // a cheap tick: no pause
  CHECK(quiet_gap(milliseconds(500), 2.0) == std::chrono::seconds(2));  // a huge campaign: the cap
  CHECK(quiet_gap(milliseconds(5), 0.0) == Clock::duration::zero());
}

TEST_CASE("at most N submissions in any sliding minute") {
  RateLimit r(3);
  auto t = Clock::now();
  CHECK(r.allow(t));
  CHECK(r.allow(t + std::chrono::seconds(1)));
  CHECK(r.allow(t + std::chrono::seconds(2)));
  CHECK_FALSE(r.allow(t + std::chrono::seconds(30)));
  CHECK(r.allow(t + std::chrono::seconds(61)));  // the first two left the window
  CHECK(r.allow(t + std::chrono::seconds(61)));
  CHECK_FALSE(r.allow(t + std::chrono::seconds(61)));  // t+2 and two at t+61 fill it
}

TEST_CASE("retries follow the policy's states and attempt limit") {
  spec::RetryPolicy p;  // defaults: node_fail, preempted, timeout, lost; 3 attempts
  CHECK(should_retry(State::node_fail, 1, p));
  CHECK(should_retry(State::timeout, 2, p));
  CHECK_FALSE(should_retry(State::timeout, 3, p));  // max_attempts reached
  CHECK_FALSE(should_retry(State::failed, 1, p));   // a failing command is not retried by default
  CHECK_FALSE(should_retry(State::cancelled, 1, p));
  p.on = {"failed"};
  CHECK(should_retry(State::failed, 1, p));
}

TEST_CASE("a timed-out case gets a longer walltime, within the partition's limit") {
  spec::RetryPolicy p;
  p.walltime_factor = 1.5;
  CHECK(next_walltime(3600, 0, p, 86400) == 3600);
  CHECK(next_walltime(3600, 1, p, 86400) == 5400);
  CHECK(next_walltime(3600, 2, p, 86400) == 8100);
  CHECK(next_walltime(3600, 5, p, 7200) == 7200);  // capped
  CHECK(next_walltime(100, 1, p, 0) == 180);       // whole minutes
}

TEST_CASE("exit markers: a status, or nothing for a torn write") {
  CHECK(parse_marker("0\n") == 0);
  CHECK(parse_marker(" 143 ") == 143);
  CHECK_FALSE(parse_marker(""));
  CHECK_FALSE(parse_marker("1x"));
  CHECK_FALSE(parse_marker("300"));
}
