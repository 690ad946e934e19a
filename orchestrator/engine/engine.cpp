#include "engine/engine.hpp"

#include <fnmatch.h>
#include <spdlog/spdlog.h>

#include <boost/asio.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <set>
#include <thread>

#include "engine/marker_watch.hpp"
#include "engine/markers.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::engine {

namespace {

JobUpdate update_from(const sched::JobInfo& info) {
  JobUpdate u;
  if (!info.reason.empty()) u.reason = info.reason;
  if (info.exit_code) u.exit_code = *info.exit_code;
  if (info.start) u.started = *info.start;
  if (info.end) u.ended = *info.end;
  if (info.elapsed_s) u.elapsed_s = static_cast<std::int64_t>(*info.elapsed_s);
  if (!info.nodelist.empty()) u.node_list = info.nodelist;
  return u;
}

bool is_failure_end(State s) {
  return is_final(s) && s != State::completed && s != State::collected && s != State::collect_failed;
}

// Final, and the scheduler has had its say: a completion on the exit marker alone is not yet.
bool settled(const AttemptRow& a) {
  return is_final(a.state) && (a.state != State::completed || a.confirmed);
}

bool succeeded(const AttemptRow& a) {
  return settled(a) &&
         (a.state == State::completed || a.state == State::collected || a.state == State::collect_failed);
}

constexpr const char* kAwaitingAccounting = "exit marker 0; awaiting the scheduler's accounting";

constexpr const char* kDependencyReason = "dependency ";

// Job ids grow with time on every scheduler here; compare as numbers when they are.
bool newer_id(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() > b.size();
  return a > b;
}

// The plan's cases in the order they are offered to the scheduler: round robin over node classes
// (step, partition), the plan's order within each class. Slurm's main scheduling pass stops at the
// first job it cannot start; a queue holding every mc case before every gpu case leaves freed gpu
// nodes idle until the backfill pass.
std::vector<size_t> interleaved_order(const matrix::Plan& plan) {
  std::map<std::pair<size_t, size_t>, std::vector<size_t>> classes;
  std::vector<std::pair<size_t, size_t>> first_seen;
  for (size_t i = 0; i < plan.cases.size(); ++i) {
    auto key = std::pair{plan.cases[i].step, plan.cases[i].partition};
    auto& list = classes[key];
    if (list.empty()) first_seen.push_back(key);
    list.push_back(i);
  }
  std::vector<size_t> order;
  order.reserve(plan.cases.size());
  for (size_t round = 0; order.size() < plan.cases.size(); ++round)
    for (auto& key : first_seen)
      if (round < classes[key].size()) order.push_back(classes[key][round]);
  return order;
}

}  // namespace

std::string Counts::line() const {
  static const State order[] = {State::planned,   State::submitting,    State::queued, State::running,
                                State::completed, State::collected,     State::failed, State::timeout,
                                State::node_fail, State::preempted,     State::oom,    State::lost,
                                State::cancelled, State::collect_failed};
  std::string out;
  for (State s : order) {
    auto it = by_state.find(s);
    if (it == by_state.end() || it->second == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(it->second) + " " + std::string(to_string(s));
  }
  return out;
}

Engine::Engine(const matrix::Plan& plan, const fs::path& workdir, Catalog& catalog,
               sched::Scheduler& scheduler, transport::Shell& shell, EngineOptions options)
    : plan_(plan),
      workdir_(workdir),
      catalog_(catalog),
      scheduler_(scheduler),
      shell_(shell),
      options_(std::move(options)),
      renderer_(plan),
      local_workspace_(shell, workdir),
      workspace_(options_.workspace ? *options_.workspace : local_workspace_),
      submit_order_(interleaved_order(plan)),
      rate_(plan.system.limits.max_submits_per_minute),
      started_at_(now()) {}

Clock::time_point Engine::now() const { return options_.steady_now ? options_.steady_now() : Clock::now(); }

Time Engine::wall() const {
  if (options_.wall_now) return options_.wall_now();
  return std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
}

void Engine::start() {
  CampaignRow row;
  row.name = plan_.campaign.name;
  row.spec_text = plan_.campaign.text;
  row.spec_hash = plan_.campaign.sha256;
  row.system = plan_.system.name;
  row.workdir = workdir_.string();
  campaign_id_ = catalog_.upsert_campaign(row);
  if (options_.code) catalog_.record_code_version(campaign_id_, *options_.code);
  if (auto rec = catalog_.find_campaign(row.name))
    job_id_prefix_ =
        render::campaign_id(row.name, workdir_, std::to_string(rec->created.time_since_epoch().count()));

  std::vector<CaseRow> rows;
  rows.reserve(plan_.cases.size());
  for (auto& c : plan_.cases) {
    CaseRow r;
    r.key = c.key;
    r.step = plan_.step_of(c).name;
    r.name = c.name;
    const auto& names = plan_.step_of(c).schema->names;
    for (size_t i = 0; i < names.size(); ++i) r.params[names[i]] = c.values[i].text;
    r.run_dir = (workdir_ / c.name).string();
    r.script = (workdir_ / c.name / render::kScriptName).string();
    rows.push_back(std::move(r));
  }
  auto sync = catalog_.sync_cases(campaign_id_, rows);
  case_ids_ = sync.ids;
  for (size_t i = 0; i < case_ids_.size(); ++i) plan_index_[case_ids_[i]] = i;
  if (sync.inserted) spdlog::info("{} new cases in the catalog", sync.inserted);
  if (sync.retired) spdlog::warn("{} cases of the catalog are no longer in the campaign file", sync.retired);

  auto latest = catalog_.latest_attempts(campaign_id_);
  reconcile(latest);  // throws SchedulerUnavailable: nothing may be submitted before this succeeds
  // Completions an earlier run saw on their markers alone: the scheduler is asked again.
  for (auto& a : latest)
    if (a.state == State::completed && !a.confirmed) unconfirmed_[a.id] = {a.job_id, 0};
  int ours = 0;
  for (auto& a : latest) ours += is_active(a.state) ? 1 : 0;
  others_in_queue_ = std::max(0, scheduler_.queued_jobs_of_user() - ours);

  if (options_.retry_failed) {
    int n = 0;
    for (auto& a : latest)
      if (a.in_spec && is_failure_end(a.state)) {
        catalog_.new_attempt_for_retry(a.case_id, "campaign resume --failed");
        ++n;
      }
    if (n) spdlog::info("resume --failed: {} cases get a new attempt", n);
  }
  report(false);
}

bool Engine::reconcile(std::vector<AttemptRow>& latest) {
  std::vector<AttemptRow*> pending;
  std::vector<std::string> names;
  for (auto& a : latest)
    if (a.state == State::submitting) pending.push_back(&a), names.push_back(a.job_name);
  if (pending.empty()) return false;
  auto jobs = scheduler_.find_by_name(names);
  bool changed = false;
  for (auto* a : pending) {
    const sched::JobInfo* found = nullptr;
    for (auto& j : jobs)
      if (j.name == a->job_name && (!found || newer_id(j.id, found->id))) found = &j;
    if (found) {
      spdlog::info("{}: adopting job {} submitted before an interruption", a->case_name, found->id);
      State seen = found->state == State::lost ? State::queued : found->state;
      catalog_.record_job_id(a->id, found->id, seen);
      catalog_.update_state(a->id, seen, update_from(*found));
      a->state = seen;
      a->job_id = found->id;
    } else if (a->submitted && !submit_ended_here_.count(a->id) &&
               wall() - *a->submitted < std::chrono::duration<double>(options_.submit_grace_s)) {
      // The submit command of a run that died may still be on its way: look again at the next poll.
      if (awaiting_submission_.insert(a->id).second)
        spdlog::info(
            "{}: no job named {} yet; its submission may still be on its way (waiting up to {:.0f} s)",
            a->case_name, a->job_name, options_.submit_grace_s);
      continue;
    } else {
      spdlog::info("{}: no job named {}: the submission never reached the scheduler", a->case_name,
                   a->job_name);
      catalog_.revert_submitting(a->id, "no job of this name: not submitted");
      a->state = State::planned;
    }
    awaiting_submission_.erase(a->id);
    submit_ended_here_.erase(a->id);
    changed = true;
  }
  return changed;
}

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
  for (auto& [_, u] : unconfirmed_) ids.push_back(u.first);
  if (ids.empty()) return false;
  std::vector<sched::JobInfo> infos = scheduler_.query(ids);
  std::map<std::string, const sched::JobInfo*> by_id;
  for (auto& j : infos) by_id[j.id] = &j;
  bool changed = false;
  // Completions on the marker: confirmed or corrected once the job has ended for the scheduler too.
  for (auto& a : latest) {
    auto u = unconfirmed_.find(a.id);
    if (u == unconfirmed_.end()) continue;
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

bool Engine::plan_retries(std::vector<AttemptRow>& latest) {
  bool changed = false;
  std::map<std::int64_t, const AttemptRow*> by_case;
  for (auto& a : latest) by_case[a.case_id] = &a;
  for (auto& a : latest) {
    if (!a.in_spec) continue;
    if (is_failure_end(a.state) && a.reason.rfind(kDependencyReason, 0) == 0) {
      // Cancelled because a dependency failed: try again once every dependency can still succeed.
      auto pi = plan_index_.find(a.case_id);
      if (pi == plan_index_.end()) continue;
      bool viable = true;
      for (size_t d : plan_.cases[pi->second].after) {
        auto dep = by_case.find(case_ids_[d]);
        if (dep != by_case.end() && is_failure_end(dep->second->state)) viable = false;
      }
      if (viable) {
        catalog_.new_attempt_for_retry(a.case_id, "its dependency is being retried");
        changed = true;
      }
      continue;
    }
    if (is_failure_end(a.state) && should_retry(a.state, a.number, plan_.campaign.retry)) {
      spdlog::info("{}: attempt {} ended {}; retrying (attempt {} of {})", a.case_name, a.number,
                   to_string(a.state), a.number + 1, plan_.campaign.retry.max_attempts);
      catalog_.new_attempt_for_retry(a.case_id, "retry policy: " + std::string(to_string(a.state)));
      changed = true;
    }
  }
  if (changed) latest = catalog_.latest_attempts(campaign_id_);
  return changed;
}

long Engine::walltime_for(const AttemptRow& row, const matrix::Case& c) {
  if (row.number <= 1) return c.walltime_s;
  int timeouts = 0;
  for (auto& a : catalog_.attempts_of_case(row.case_id)) timeouts += a.state == State::timeout ? 1 : 0;
  const auto& part = plan_.partition_of(c);
  long limit = part.max_walltime_s ? part.max_walltime_s : plan_.system.limits.max_walltime_s;
  return next_walltime(c.walltime_s, timeouts, plan_.campaign.retry, limit);
}

bool Engine::submit_one(AttemptRow& row, size_t index, const std::vector<std::string>& after) {
  const matrix::Case& c = plan_.cases[index];
  long walltime = walltime_for(row, c);
  render::RenderOptions ro{workspace_.script_root(), options_.campaign_exe, row.number, walltime,
                           job_id_prefix_};
  render::Script script = renderer_.render(c, ro);
  // The script and a clean run directory first (where the job runs): a stale
  // marker of an earlier attempt must not complete this one.
  workspace_.prepare(script);

  catalog_.begin_submit(row.id, script.job_name, walltime, static_cast<int>(c.nodes));
  sched::SubmitRequest req;
  req.script_path = script.path.string();
  req.job_name = script.job_name;
  req.workdir = script.run_dir.string();
  req.depends_on = after;
  req.walltime_s = walltime;
  std::string id;
  try {
    id = scheduler_.submit(req);
  } catch (const sched::SubmitError& e) {
    switch (e.kind()) {
      case sched::SubmitFailure::refused_by_limit:
        catalog_.revert_submitting(row.id, std::string("refused by a limit: ") + e.what());
        row.state = State::planned;
        submit_pause_until_ = now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(options_.limit_pause_s));
        spdlog::warn("{}: the scheduler refused the submission ({}); trying again in {:.0f} s", row.case_name,
                     e.what(), options_.limit_pause_s);
        return false;
      case sched::SubmitFailure::transient:
        // The job may exist: the next poll reconciles it by name. Our submit command has ended, so
        // no job of this name can appear later: no grace period for it.
        spdlog::warn("{}: submission outcome unknown ({}); reconciling by job name", row.case_name, e.what());
        row.state = State::submitting;
        row.job_name = script.job_name;
        submit_ended_here_.insert(row.id);
        scheduler_problem_ = e.what();  // no more submissions until a poll succeeds
        latest_valid_ = false;
        poll_soon_ = true;
        return false;
      case sched::SubmitFailure::invalid: {
        catalog_.revert_submitting(row.id, std::string("rejected: ") + e.what());
        JobUpdate u;
        u.reason = std::string("the scheduler rejected the job: ") + e.what();
        catalog_.update_state(row.id, State::cancelled, u);
        row.state = State::cancelled;
        row.reason = *u.reason;
        spdlog::error("{}: {}", row.case_name, *u.reason);
        return true;
      }
    }
  }
  if (options_.hook) options_.hook("after_submit");
  catalog_.record_job_id(row.id, id);
  row.state = State::queued;
  row.job_id = id;
  row.job_name = script.job_name;
  spdlog::info("{}: submitted job {} ({})", row.case_name, id, script.job_name);
  return true;
}

bool Engine::submit_ready(std::vector<AttemptRow>& latest) {
  more_to_submit_ = false;
  if (now() < submit_pause_until_) return false;
  // A long burst of submissions (each a scheduler command) is cut into slices so that markers and
  // polls are not starved: the next slice follows at once.
  auto slice_end = now() + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(options_.submit_slice_s));
  std::map<std::int64_t, AttemptRow*> by_case;
  int ours_active = 0;
  for (auto& a : latest) {
    by_case[a.case_id] = &a;
    ours_active += (is_active(a.state) || a.state == State::submitting) ? 1 : 0;
  }
  const auto& limits = plan_.system.limits;
  std::optional<double> budget;
  double committed = 0;
  if (plan_.campaign.budget_node_hours) {
    budget = *plan_.campaign.budget_node_hours;
    committed = catalog_.consumed_node_hours(campaign_id_) + catalog_.in_flight_node_hours(campaign_id_);
  }
  bool changed = false;
  for (size_t i : submit_order_) {
    auto it = by_case.find(case_ids_[i]);
    if (it == by_case.end()) continue;
    AttemptRow& row = *it->second;
    if (row.state != State::planned || !row.in_spec) continue;
    std::vector<std::string> after;
    bool ready = true;
    for (size_t d : plan_.cases[i].after) {
      const AttemptRow& dep = *by_case.at(case_ids_[d]);
      if (succeeded(dep)) continue;
      if (is_active(dep.state) && !dep.job_id.empty()) {
        after.push_back(dep.job_id);
        continue;
      }
      if (is_failure_end(dep.state)) {
        JobUpdate u;
        u.reason =
            std::string(kDependencyReason) + dep.case_name + " ended " + std::string(to_string(dep.state));
        catalog_.update_state(row.id, State::cancelled, u);
        row.state = State::cancelled;
        row.reason = *u.reason;
        changed = true;
      }
      ready = false;
      break;
    }
    if (!ready) continue;
    if (others_in_queue_ + ours_active >= limits.max_queued_jobs) break;
    const auto& c = plan_.cases[i];
    if (budget) {
      double need = static_cast<double>(c.nodes) * static_cast<double>(c.walltime_s) / 3600.0;
      if (committed + need > *budget) {
        std::string note = fmt::format(
            "budget: {:.1f} node-hours used or in flight, {} would need {:.1f} more of {:.1f}; not "
            "submitting",
            committed, c.name, need, *budget);
        if (note != budget_note_) spdlog::warn("{}", note);  // once, not at every tick
        budget_note_ = note;
        break;
      }
      committed += need;
    }
    if (now() >= slice_end) {
      more_to_submit_ = true;
      break;
    }
    if (!rate_.allow(now())) break;
    bool submitted = submit_one(row, i, after);
    changed |= submitted;
    if (row.state == State::queued) ++ours_active;
    // Refused (wait for the pause) or outcome unknown (the scheduler is in trouble: every further
    // submit would wait for its timeout too; reconcile first).
    if (!submitted && (row.state == State::planned || row.state == State::submitting)) break;
  }
  return changed;
}

std::vector<AttemptRow>& Engine::cached_latest() {
  if (!latest_valid_) {
    latest_ = catalog_.latest_attempts(campaign_id_);
    latest_valid_ = true;
  }
  return latest_;
}

bool Engine::tick(bool poll_scheduler) {
  // This process is the catalog's only writer and mirrors what it writes in the cached rows (state,
  // job id and name, reason): they are read again at each poll, after retries are planned and after
  // an unclear submission, not at every tick.
  if (poll_scheduler) latest_valid_ = false;
  auto& latest = cached_latest();
  bool changed = false;
  bool unresolved = false;
  // Attempts left `submitting` are looked up by name at the poll cadence, not every tick: one may
  // stay unresolved for up to submit_grace_s.
  if (poll_scheduler &&
      std::any_of(latest.begin(), latest.end(), [](auto& a) { return a.state == State::submitting; })) {
    try {
      changed |= reconcile(latest);
    } catch (const sched::SchedulerUnavailable& e) {
      if (scheduler_problem_.empty())
        spdlog::warn("scheduler unavailable, cannot reconcile submissions yet: {}", e.what());
      scheduler_problem_ = e.what();
      unresolved = true;  // submit nothing until the outcome of earlier submissions is known
    }
  }
  changed |= apply_markers(latest);
  if (poll_scheduler) {
    try {
      changed |= poll(latest);
      if (!scheduler_problem_.empty()) spdlog::info("the scheduler answers again");
      scheduler_problem_.clear();
      unreachable_since_.reset();
    } catch (const sched::SchedulerUnavailable& e) {
      if (scheduler_problem_.empty()) spdlog::warn("scheduler unavailable, will retry: {}", e.what());
      scheduler_problem_ = e.what();
      if (!unreachable_since_) unreachable_since_ = now();
      confirm_unreachable();
    }
  }
  changed |= plan_retries(latest);
  if (scheduler_problem_.empty() && !unresolved) {
    try {
      changed |= submit_ready(latest);
    } catch (const sched::SchedulerUnavailable& e) {
      scheduler_problem_ = e.what();
    }
  }
  if (changed) report(false);
  return changed;
}

bool Engine::finished() {
  for (auto& a : catalog_.latest_attempts(campaign_id_))
    if (a.in_spec && !settled(a)) return false;
  return true;
}

int Engine::cancel(const std::string& pattern) {
  auto latest = catalog_.latest_attempts(campaign_id_);
  std::vector<std::string> ids;
  std::vector<AttemptRow*> rows;
  for (auto& a : latest) {
    if (!pattern.empty() && fnmatch(pattern.c_str(), a.case_name.c_str(), 0) != 0) continue;
    if (a.state == State::planned || (is_active(a.state) && !a.job_id.empty())) {
      rows.push_back(&a);
      if (!a.job_id.empty()) ids.push_back(a.job_id);
    }
  }
  if (!ids.empty()) scheduler_.cancel(ids);
  for (auto* a : rows) {
    JobUpdate u;
    u.reason = "cancelled by the user";
    finish_attempt(*a, State::cancelled, u);
  }
  return static_cast<int>(rows.size());
}

Counts Engine::counts() { return counts_of(catalog_.latest_attempts(campaign_id_)); }

Counts Engine::counts_of(const std::vector<AttemptRow>& latest) {
  Counts c;
  for (auto& a : latest) {
    if (!a.in_spec) continue;
    c.by_state[a.state]++;
    c.cases++;
  }
  c.node_hours = catalog_.consumed_node_hours(campaign_id_);
  return c;
}

void Engine::report(bool final) {
  if (!options_.progress) return;
  Counts c = final ? counts() : counts_of(cached_latest());
  long secs = static_cast<long>(std::chrono::duration<double>(now() - started_at_).count());
  char head[64];
  std::snprintf(head, sizeof head, "[%s] %d cases: ", format_hms(secs).c_str(), c.cases);
  char tail[64];
  std::snprintf(tail, sizeof tail, " | %.2f node-h", c.node_hours);
  std::string line = head + c.line() + tail;
  if (!scheduler_problem_.empty()) line += " | scheduler unavailable";
  if (line == last_progress_ && !final) return;
  last_progress_ = line;
  options_.progress(line, final);
}

int Engine::run() {
  start();
  boost::asio::io_context io;
  boost::asio::steady_timer timer(io);
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  int signal_received = 0;
  // Markers written through this machine's kernel wake the loop at once (a cancelled wait runs the
  // tick now); others are read on the timer. A remote workspace's run directories are on another
  // machine: not watched.
  std::optional<MarkerWatch> watch;
  if (workspace_.watchable()) watch.emplace(io, render::kExitMarker, [&] { timer.cancel(); });
  auto stop = [&] {
    signals.cancel();
    watch.reset();  // its pending read would keep io.run() going
  };
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    signal_received = sig;
    timer.cancel();
    watch.reset();
  });
  Backoff backoff(plan_.system.limits.poll_min_s, plan_.system.limits.poll_max_s);
  Clock::time_point next_poll = Clock::now();
  auto marker_step = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::min(options_.marker_interval_s, plan_.system.limits.poll_min_s)));
  std::function<void(const boost::system::error_code&)> on_tick = [&](const boost::system::error_code& ec) {
    if (signal_received || (ec && ec != boost::asio::error::operation_aborted)) return;
    bool poll_now = Clock::now() >= next_poll;
    bool changed = tick(poll_now);
    if (watch) {
      std::set<std::string> dirs;
      for (auto& a : latest_)
        if (is_active(a.state) && !a.job_id.empty()) dirs.insert(a.run_dir);
      watch->watch(dirs);
    }
    // The poll interval backs off unless the scheduler must be asked soon: a job whose marker says
    // it failed waits for the scheduler's verdict, a submission's outcome is unknown. Jobs that
    // start or complete (markers) do not need the scheduler. The local executor is the exception:
    // its calls are what starts pending jobs, and they cost no daemon anything.
    bool soon = poll_soon_ || !marker_exit_.empty() || (changed && scheduler_.starts_jobs_when_polled());
    poll_soon_ = false;
    // The tail: nothing runs any more, only completions await the accounting (and the dependents or
    // the end of the run wait for them). The scheduler is asked at once, then at the shortest interval.
    bool tail =
        !unconfirmed_.empty() && std::none_of(latest_.begin(), latest_.end(), [](const AttemptRow& a) {
          return a.in_spec && (is_active(a.state) || a.state == State::submitting);
        });
    soon |= tail;
    if (tail && changed && !poll_now) {
      backoff.reset();
      next_poll = Clock::now();
    } else if (poll_now) {
      double wait = backoff.next(soon);
      next_poll =
          Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait));
    } else if (soon) {
      backoff.reset();
      next_poll = std::min(next_poll, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                         std::chrono::duration<double>(backoff.current())));
    }
    bool all_final = std::all_of(latest_.begin(), latest_.end(),
                                 [](const AttemptRow& a) { return !a.in_spec || settled(a); });
    if (all_final && finished()) {
      stop();
      return;
    }
    if (!options_.wait) {
      auto latest = catalog_.latest_attempts(campaign_id_);
      bool waiting = std::any_of(latest.begin(), latest.end(), [](auto& a) {
        return a.in_spec && (a.state == State::planned || a.state == State::submitting);
      });
      if (!waiting || !changed) {
        stop();
        return;
      }
    }
    auto wait = std::min(marker_step, std::max(Clock::duration::zero(), next_poll - Clock::now()));
    timer.expires_after(more_to_submit_ ? Clock::duration::zero() : wait);
    timer.async_wait(on_tick);
  };
  boost::asio::post(io, [&] { on_tick({}); });
  io.run();
  report(true);
  if (signal_received) {
    spdlog::warn("interrupted by signal {}: jobs keep running; `campaign run` again picks them up",
                 signal_received);
    return 130;
  }
  if (!options_.wait && !finished()) return 0;
  for (auto& a : catalog_.latest_attempts(campaign_id_))
    if (a.in_spec && !succeeded(a)) return 1;
  return 0;
}

}  // namespace campaign::engine
