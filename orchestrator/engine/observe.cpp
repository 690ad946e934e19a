// The engine's observations: exit markers and the scheduler's records of its jobs, turned into
// attempt states (a marker 0 is confirmed or corrected by the accounting).
#include <spdlog/spdlog.h>

#include "engine/engine.hpp"
#include "engine/rules.hpp"

namespace campaign::engine {

bool Engine::finish_attempt(AttemptRow& row, State state, const JobUpdate& info) {
  bool changed = catalog_.update_state(row.id, state, info);
  row.state = state;
  if (info.reason) row.reason = *info.reason;
  if (info.exit_code) row.exit_code = info.exit_code;
  if (info.confirmed) row.confirmed = *info.confirmed;
  misses_.erase(row.id);
  marker_exit_.erase(row.id);
  if (changed) {
    spdlog::info("{}: job {} {}{}", row.case_name, row.job_id, to_string(state),
                 info.exit_code && *info.exit_code ? " (exit " + std::to_string(*info.exit_code) + ")" : "");
    if (state == State::completed && row.confirmed && options_.on_completed)
      options_.on_completed(catalog_.attempt(row.id));
  }
  return changed;
}

void Engine::confirm(AttemptRow& row, const sched::JobInfo* info, const std::string& why) {
  unconfirmed_.erase(row.id);
  JobUpdate u;
  if (info) {
    u = update_from(*info);
    if (info->state != State::completed) {
      // The marker said 0, the accounting says otherwise (srun exits 0 after a node failure): the
      // accounting wins, and the retry policy sees the real state.
      u.reason = "the scheduler's accounting says " +
                 (info->raw_state.empty() ? std::string(to_string(info->state)) : info->raw_state) +
                 (info->reason.empty() || info->reason == "None" ? "" : " (" + info->reason + ")") +
                 "; the job's exit marker said 0";
      u.confirmed = true;
      finish_attempt(row, info->state, u);
      spdlog::warn("{}: {}", row.case_name, *u.reason);
      return;
    }
    u.exit_code.reset();  // the marker's 0
    u.reason = "";
  } else {
    u.reason = "accounting unavailable (" + why + "): completed on its exit marker alone";
    spdlog::info("{}: {}", row.case_name, *u.reason);
  }
  u.confirmed = true;
  catalog_.update_state(row.id, State::completed, u);
  row.confirmed = true;
  row.reason = *u.reason;
  if (options_.on_completed) options_.on_completed(catalog_.attempt(row.id));
}

void Engine::confirm_unreachable() {
  if (unconfirmed_.empty() || !unreachable_since_) return;
  double s = std::chrono::duration<double>(now() - *unreachable_since_).count();
  if (s < options_.confirm_timeout_s) return;
  auto& latest = cached_latest();
  for (auto& a : latest)
    if (unconfirmed_.count(a.id))
      confirm(a, nullptr, fmt::format("the scheduler could not be asked for {:.0f} s", s));
}

// Markers first: a zero status completes the attempt at once; a non-zero one
// waits for the scheduler to say why (failed, timeout, node failure...).
bool Engine::apply_markers(std::vector<AttemptRow>& latest) {
  std::vector<AttemptRow*> active;
  std::vector<std::string> dirs;
  for (auto& a : latest)
    if (is_active(a.state) && !a.job_id.empty()) active.push_back(&a), dirs.push_back(a.run_dir);
  if (active.empty()) return false;
  auto markers = workspace_.read_markers(dirs);
  bool changed = false;
  for (size_t i = 0; i < active.size(); ++i) {
    if (!markers[i]) continue;
    if (*markers[i] == 0) {
      JobUpdate u;
      u.exit_code = 0;
      u.ended = wall();
      u.reason = kAwaitingAccounting;
      u.confirmed = false;
      unconfirmed_[active[i]->id] = {active[i]->job_id, 0};
      changed |= finish_attempt(*active[i], State::completed, u);
    } else {
      marker_exit_[active[i]->id] = *markers[i];
    }
  }
  return changed;
}

bool Engine::poll(std::vector<AttemptRow>& latest) {
  std::vector<AttemptRow*> active;
  std::vector<std::string> ids;
  for (auto& a : latest)
    if (is_active(a.state) && !a.job_id.empty()) active.push_back(&a), ids.push_back(a.job_id);
  // Completions already noticed on their markers are asked about every few polls while other jobs
  // run (jobs that left the queue cost the scheduler an accounting query), at every poll once
  // nothing else runs.
  const bool confirm_now =
      !unconfirmed_.empty() && (active.empty() || ++polls_since_confirm_ >= options_.confirm_every_polls);
  if (confirm_now) {
    polls_since_confirm_ = 0;
    for (auto& [_, u] : unconfirmed_) ids.push_back(u.first);
  }
  if (ids.empty()) return false;
  std::vector<sched::JobInfo> infos = scheduler_.query(ids);
  std::map<std::string, const sched::JobInfo*> by_id;
  for (auto& j : infos) by_id[j.id] = &j;
  bool changed = false;
  // Completions on the marker: confirmed or corrected once the job has ended for the scheduler too.
  for (auto& a : latest) {
    auto u = unconfirmed_.find(a.id);
    if (!confirm_now || u == unconfirmed_.end()) continue;
    auto found = by_id.find(u->second.first);
    if (found != by_id.end() && is_final(found->second->state) && found->second->state != State::lost) {
      confirm(a, found->second, "");
      changed = true;
    } else if (found == by_id.end() && ++u->second.second >= options_.confirm_after_polls) {
      confirm(a, nullptr, "the scheduler has no record of job " + a.job_id);
      changed = true;
    }
  }
  std::vector<std::string> to_cancel;
  for (auto* a : active) {
    auto marker = marker_exit_.find(a->id);
    auto it = by_id.find(a->job_id);
    if (it == by_id.end()) {
      if (marker != marker_exit_.end()) {  // the scheduler forgot the job; its marker did not
        JobUpdate u;
        u.exit_code = marker->second;
        u.reason = "exit status from the job's marker file";
        changed |= finish_attempt(*a, State::failed, u);
      } else if (++misses_[a->id] >= options_.lost_after_polls) {
        JobUpdate u;
        u.reason = "the scheduler no longer knows job " + a->job_id + " and it left no exit marker";
        changed |= finish_attempt(*a, State::lost, u);
      }
      continue;
    }
    misses_.erase(a->id);
    const sched::JobInfo& info = *it->second;
    JobUpdate u = update_from(info);
    if (is_final(info.state)) {
      State s = info.state;
      if (marker != marker_exit_.end()) {
        u.exit_code = marker->second;
        if (s == State::completed) s = State::failed;  // the script's own status wins
      }
      changed |= finish_attempt(*a, s, u);
      continue;
    }
    if (marker != marker_exit_.end()) continue;  // ending (COMPLETING): the final state comes next poll
    if (info.waiting == sched::Waiting::dependency_failed) {
      to_cancel.push_back(a->job_id);
      JobUpdate c;
      c.reason = std::string(kDependencyReason) + "failed: " + info.reason;
      changed |= finish_attempt(*a, State::cancelled, c);
      continue;
    }
    if (info.state != a->state) {
      changed |= catalog_.update_state(a->id, info.state, u);
      a->state = info.state;
    } else if (u.reason.value_or("") != a->reason) {
      catalog_.update_state(a->id, a->state, u);  // same state: stores the new pending reason
      if (info.waiting == sched::Waiting::nodes_unavailable)
        spdlog::warn("{}: job {} pending on {} (transient on real systems; not cancelled)", a->case_name,
                     a->job_id, *u.reason);
    }
    a->reason = u.reason.value_or("");
  }
  if (!to_cancel.empty()) scheduler_.cancel(to_cancel);
  return changed;
}

}  // namespace campaign::engine
