// The attempt state machine as one pure function (flux-core style): which
// edges exist between the states of util/state.hpp. The catalog refuses any
// other change of an attempt's state, so a stored state is always reachable
// from `planned` by the events recorded for that attempt.
//
//   planned    -> submitting | cancelled (cancelled before it was ever submitted)
//   submitting -> planned (reconcile found no job) | queued | running | any end
//                 state but lost (the job was adopted, or first seen, already there)
//   queued     -> planned (packed: its allocation ended before it started) | running | any end state
//   running    -> planned (as queued) | queued (requeued by the scheduler, same job id) | any end state
//   lost       -> completed | failed (a late exit marker settles it)
//   completed  -> collected | collect_failed, once confirmed; any end state
//                 but lost while unconfirmed (the job's exit marker said 0, the
//                 scheduler's accounting then said NODE_FAIL, TIMEOUT...). The
//                 catalog checks the confirmed flag (catalog.hpp), this the edges.
//   collected <-> collect_failed (re-collection)
// End states (failed, timeout, cancelled, node_fail, preempted, oom) have no
// way out: a retry is a new attempt, nothing is overwritten. No state goes to
// itself: staying in a state is not a transition.
#pragma once

#include <vector>

#include "util/state.hpp"

namespace campaign {

bool allowed(State from, State to);

// Every state `from` may move to, in enum order.
std::vector<State> successors(State from);

// True when a case whose latest attempt is in `s` may get a new attempt:
// the job ended without a usable result. completed (not yet collected) and
// collected attempts are never rerun.
bool retryable(State s);

}  // namespace campaign
