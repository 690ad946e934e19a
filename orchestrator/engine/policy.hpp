// The engine's pure decisions, kept apart from time and I/O so they are
// tested directly: poll backoff, submission rate, retries, walltime growth.
#pragma once

#include <chrono>
#include <deque>
#include <vector>

#include "spec/campaign.hpp"
#include "util/state.hpp"

namespace campaign::engine {

using Clock = std::chrono::steady_clock;

// The interval between scheduler polls: starts at `min`, grows by `factor`
// while polls change nothing, back to `min` as soon as one does.
class Backoff {
 public:
  Backoff(double min_s, double max_s, double factor = 1.5)
      : min_(min_s), max_(max_s), factor_(factor), cur_(min_s) {}
  double next(bool changed) {
    cur_ = changed ? min_ : std::min(max_, cur_ * factor_);
    return cur_;
  }
  double current() const { return cur_; }
  void reset() { cur_ = min_; }

 private:
  double min_, max_, factor_, cur_;
};

// How long the run loop stays quiet after a tick that cost `tick_cpu` of this process's CPU: a
// tick reads every case, so one per exit marker would make a campaign's cost grow with the square
// of its cases. Waiting kQuietFactor times the tick's cost keeps the loop under about 1/(1 +
// kQuietFactor) of a core however large the campaign; markers that come meanwhile are taken
// together by the next tick. Never longer than `cap_s` (the poll interval's ceiling), so a large
// campaign is slower to notice an end, never deaf to it. While ends keep coming, the loop runs at
// that share of a core, so its folds cost each case about 1 / ((1 + kQuietFactor) x cases ended a
// second): at 20, 0.25 ms a case at 200 cases a second, half of all its CPU a case at 20,000 short
// cases (0.58 ms at 20, 0.43 ms at 50, the same binary otherwise, bench/scale_bench.sh). 50: the
// loop takes 2 % of a core; a 100,000-case tick of about 30 ms notices an end 1.5 s later.
inline constexpr double kQuietFactor = 50;
Clock::duration quiet_gap(Clock::duration tick_cpu, double cap_s);

// Where a watch sees every exit marker (the jobs run on this machine), a tick reads the markers it
// saw; every run directory's marker is read at least this often all the same.
inline constexpr std::chrono::seconds kFullMarkerRead{30};

// At most `per_minute` submissions in any sliding minute.
class RateLimit {
 public:
  explicit RateLimit(long per_minute) : per_minute_(per_minute) {}
  bool allow(Clock::time_point now);  // records the submission when allowed
 private:
  long per_minute_;
  std::deque<Clock::time_point> recent_;
};

// Whether a case whose latest attempt (number `attempt`) ended in `s` gets a
// new attempt automatically under `policy`.
bool should_retry(State s, int attempt, const spec::RetryPolicy& policy);

// Walltime of the next attempt: each earlier timeout multiplies it by the
// policy's factor, never past `limit_s`.
long next_walltime(long base_s, int earlier_timeouts, const spec::RetryPolicy& policy, long limit_s);

}  // namespace campaign::engine
