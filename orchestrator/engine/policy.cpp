#include "engine/policy.hpp"

#include <algorithm>
#include <cmath>

namespace campaign::engine {

Clock::duration quiet_gap(Clock::duration tick_cpu, double cap_s) {
  const auto cap = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cap_s));
  const auto gap = std::chrono::duration_cast<Clock::duration>(tick_cpu * kQuietFactor);
  return std::clamp(gap, Clock::duration::zero(), std::max(cap, Clock::duration::zero()));
}

bool RateLimit::allow(Clock::time_point now) {
  while (!recent_.empty() && now - recent_.front() >= std::chrono::minutes(1)) recent_.pop_front();
  if (static_cast<long>(recent_.size()) >= per_minute_) return false;
  recent_.push_back(now);
  return true;
}

bool should_retry(State s, int attempt, const spec::RetryPolicy& policy) {
  if (attempt >= policy.max_attempts) return false;
  std::string_view name = to_string(s);
  return std::find(policy.on.begin(), policy.on.end(), name) != policy.on.end();
}

long next_walltime(long base_s, int earlier_timeouts, const spec::RetryPolicy& policy, long limit_s) {
  double w = static_cast<double>(base_s) * std::pow(policy.walltime_factor, earlier_timeouts);
  long out = static_cast<long>(std::ceil(w / 60.0)) * 60;  // whole minutes, as schedulers count
  if (limit_s > 0) out = std::min(out, limit_s);
  return std::max(out, base_s);
}

}  // namespace campaign::engine
