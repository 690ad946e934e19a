// The attempt state machine; see transitions.hpp for the diagram.
#include "catalog/transitions.hpp"

namespace campaign {

namespace {

// The ends a scheduler can report for a job that has left its queue.
bool is_job_end(State s) {
  switch (s) {
    case State::completed:
    case State::failed:
    case State::timeout:
    case State::cancelled:
    case State::node_fail:
    case State::preempted:
    case State::oom:
    case State::lost:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool allowed(State from, State to) {
  if (from == to) return false;
  switch (from) {
    case State::planned:
      return to == State::submitting || to == State::cancelled;
    case State::submitting:
      // `lost` needs a job id that vanished; a submitting attempt without a
      // job goes back to planned instead.
      return to == State::planned || to == State::queued || to == State::running ||
             (is_job_end(to) && to != State::lost);
    // -> planned: a packed attempt whose allocation ended before its step started.
    case State::queued:
      return to == State::planned || to == State::running || is_job_end(to);
    case State::running:
      return to == State::planned || to == State::queued || is_job_end(to);
    case State::lost:
      return to == State::completed || to == State::failed;
    case State::completed:
      return to == State::collected || to == State::collect_failed || (is_job_end(to) && to != State::lost);
    case State::collected:
      return to == State::collect_failed;
    case State::collect_failed:
      return to == State::collected;
    case State::failed:
    case State::timeout:
    case State::cancelled:
    case State::node_fail:
    case State::preempted:
    case State::oom:
      return false;
  }
  return false;
}

std::vector<State> successors(State from) {
  std::vector<State> out;
  for (int i = 0; i <= static_cast<int>(State::collect_failed); ++i)
    if (allowed(from, static_cast<State>(i))) out.push_back(static_cast<State>(i));
  return out;
}

bool retryable(State s) {
  switch (s) {
    case State::failed:
    case State::timeout:
    case State::cancelled:
    case State::node_fail:
    case State::preempted:
    case State::oom:
    case State::lost:
    case State::collect_failed:
      return true;
    default:
      return false;
  }
}

}  // namespace campaign
