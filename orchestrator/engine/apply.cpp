// The engine's effects: observations gathered for the decisions (decide.hpp) and their actions
// performed on the catalog and the scheduler, with the rows the loop caches kept in step.
#include <spdlog/spdlog.h>

#include <unordered_map>

#include "engine/engine.hpp"
#include "engine/rules.hpp"
#include "pack/driver.hpp"

namespace campaign::engine {

namespace {

const std::vector<State> kEveryState = {
    State::planned, State::submitting, State::queued,    State::running,       State::completed,
    State::failed,  State::timeout,    State::cancelled, State::node_fail,     State::preempted,
    State::oom,     State::lost,       State::collected, State::collect_failed};

}  // namespace

void Engine::read_again(const std::vector<std::pair<AttemptRow*, std::int64_t>>& rows) noexcept {
  try {
    for (auto& [row, id] : rows) *row = attempt(id);
  } catch (...) {  // the catalog cannot be read either: every row is read again before the next use
    latest_valid_ = false;
  }
}

AttemptRow* Engine::row_of(std::vector<AttemptRow>& latest, std::int64_t id) {
  if (auto it = row_index_.find(id);
      it != row_index_.end() && it->second < latest.size() && latest[it->second].id == id)
    return &latest[it->second];
  row_index_.clear();
  row_index_.reserve(latest.size());
  for (size_t k = 0; k < latest.size(); ++k) row_index_.emplace(latest[k].id, k);
  auto it = row_index_.find(id);
  return it == row_index_.end() ? nullptr : &latest[it->second];
}

bool Engine::apply(const Actions& actions, std::vector<AttemptRow>& latest, bool decided) {
  std::unordered_map<std::int64_t, AttemptRow*> rows;  // the rows the actions name
  auto name = [&](std::int64_t attempt) {
    if (rows.count(attempt)) return;
    AttemptRow* row = row_of(latest, attempt);
    if (!row) throw std::out_of_range("no attempt " + std::to_string(attempt) + " among the rows");
    rows.emplace(attempt, row);
  };
  for (auto& m : actions.marks) name(m.attempt);
  for (auto& r : actions.returns) name(r.attempt);
  for (auto& r : actions.reverts) name(r.attempt);
  for (auto& d : actions.duplicates) name(d.attempt);
  // Said once the writes are committed: a kill -9 or an error before leaves none of them done.
  std::vector<std::pair<bool, std::string>> said;  // (warning, text)
  std::vector<AttemptRow*> completed;              // confirmed completions, to collect
  bool changed = false;
  // The rows the writes touch and the attempts they held: read again when the writes roll back, so
  // that the rows stay in step with the catalog whatever fails (an error needs no re-read of every
  // row; copying each row beforehand was 3 % of the engine's CPU at 30,000 cases).
  std::vector<std::pair<AttemptRow*, std::int64_t>> touched;
  for (auto& [id, row] : rows) touched.emplace_back(row, id);
  std::unordered_map<std::int64_t, AttemptRow*> retried;  // by case
  if (!actions.retries.empty()) {
    for (auto& r : actions.retries) retried.emplace(r.case_id, nullptr);
    for (auto& a : latest)
      if (auto it = retried.find(a.case_id); it != retried.end()) {
        it->second = &a;
        touched.emplace_back(&a, a.id);
      }
  }
  try {
    // The scheduler first: when cancelling fails, no state has changed (the next poll decides again).
    if (!actions.cancel.empty()) scheduler_.cancel(actions.cancel);
    const auto recorded = decided ? memory_.changes() : std::vector<Observation>{};
    std::optional<Catalog::WriteGroup> group;  // none for a poll that changed nothing (most of them)
    if (!actions.empty() || !recorded.empty()) group.emplace(catalog_);
    for (auto& d : actions.duplicates) {
      // A second job of one attempt's name (a submission that landed twice): cancelled above; said
      // loudly, kept in the catalog and counted for the run's summary.
      std::string what = "job " + d.job_id + " is a second job of the attempt's name (its own is " +
                         d.adopted +
                         (d.ended ? "): it had already ended (it ran while the scheduler could not be asked)"
                                  : "): cancelled");
      catalog_.add_event("duplicate", what, {.attempt_id = d.attempt});
      said.emplace_back(true, rows.at(d.attempt)->case_name + ": " + what);
    }
    for (auto& m : actions.marks) {
      AttemptRow& row = *rows.at(m.attempt);
      if (!m.adopt_job.empty()) {
        catalog_.record_job_id(row, m.adopt_job, m.state);
        watch_stale_ = true;
        changed = true;
      }
      const bool moved = catalog_.update_state(row, m.state, m.update);  // the row kept as written
      const bool settles = m.update.confirmed.value_or(false);  // a completion on its marker, settled
      if (moved && is_final(m.state)) {
        const auto& exit = m.update.exit_code;
        said.emplace_back(false, row.case_name + ": " +
                                     (row.job_id.empty() ? "" : "job " + row.job_id + " ") +
                                     std::string(to_string(m.state)) +
                                     (exit && *exit ? " (exit " + std::to_string(*exit) + ")" : ""));
      }
      if (!m.note.empty()) said.emplace_back(m.warn, m.note);
      if (m.state == State::completed && row.confirmed && (moved || settles)) completed.push_back(&row);
      changed |= moved || settles;
    }
    for (auto& r : actions.returns) {
      AttemptRow& row = *rows.at(r.attempt);
      said.emplace_back(false, row.case_name + ": " + r.reason + "; planned again");
      catalog_.return_to_plan(r.attempt, r.reason);
      refresh(row);
      changed = true;
    }
    for (auto& r : actions.reverts) {
      catalog_.revert_submitting(r.attempt, r.reason);
      if (!r.rejected.empty()) {
        JobUpdate u;
        u.reason = r.rejected;
        catalog_.update_state(r.attempt, State::cancelled, u);
        said.emplace_back(true, rows.at(r.attempt)->case_name + ": " + r.rejected);
      }
      refresh(*rows.at(r.attempt));
      changed = true;
    }
    for (auto& r : actions.retries) {
      if (!r.note.empty()) said.emplace_back(false, r.note);
      const std::int64_t id = catalog_.new_attempt_for_retry(r.case_id, r.reason, r.requested);
      if (AttemptRow* row = retried.at(r.case_id)) {  // the case's latest attempt is the new one
        *row = attempt(id);
        row_index_[id] = static_cast<size_t>(row - latest.data());
      }
      changed = true;
    }
    catalog_.record_observations(recorded);
    if (group) group->commit();
  } catch (...) {
    if (decided) memory_.undo();  // as the catalog still has it
    read_again(touched);
    throw;
  }

  duplicates_cancelled_ += static_cast<int>(actions.duplicates.size());
  for (auto& note : actions.notes) spdlog::info("{}", note);
  for (auto& [warn, text] : said) warn ? spdlog::warn("{}", text) : spdlog::info("{}", text);
  // Collected after the commit: a completion is in the catalog, confirmed, before its outputs are
  // read (what a run leaves completed and not collected, it collects at its end; `campaign collect`).
  if (options_.on_completed)
    for (AttemptRow* row : completed)
      if (options_.on_completed(*row)) refresh(*row);  // collected, or collect_failed
  return changed;
}

bool Engine::apply_decision(const std::function<Actions()>& decide, std::vector<AttemptRow>& latest) {
  memory_.mark();
  Actions actions;
  try {
    actions = decide();
  } catch (...) {
    memory_.undo();
    throw;
  }
  return apply(actions, latest, true);
}

std::string Engine::record_of(const AttemptRow& a) const {
  // Unique to the submission: an attempt refused by a limit is submitted again under its name.
  return (workspace_.script_root() / ".submit" /
          (a.job_name + "." + std::to_string(a.submitted ? a.submitted->time_since_epoch().count() : 0)))
      .string();
}

bool Engine::reconcile(std::vector<AttemptRow>& latest) {
  std::vector<std::string> names;
  for (auto& a : latest)
    if (a.state == State::submitting) names.push_back(a.job_name);
  if (names.empty()) return false;
  unclear_submissions_ = true;  // a job of these names may land twice: swept for at the end
  auto found = scheduler_.find_by_name(names);
  std::map<std::int64_t, sched::SubmitRecord> records;
  if (scheduler_.records_submissions()) {
    std::vector<const AttemptRow*> asked;
    std::vector<std::string> prefixes;
    for (auto& a : latest)
      if (a.state == State::submitting && a.submitted) asked.push_back(&a), prefixes.push_back(record_of(a));
    std::vector<sched::SubmitRecord> got;
    try {
      got = scheduler_.submission_records(prefixes);
    } catch (const sched::SchedulerUnavailable&) {
      // The jobs found by name are adopted without the records (they only rank several); an attempt
      // without one waits for its record (on_reconcile would take a missing record for none), and the
      // failure stands for it.
      std::vector<AttemptRow> with_jobs;
      bool waiting = false, adoptable = false;
      for (auto& a : latest) {
        const bool has =
            std::any_of(found.begin(), found.end(), [&](const sched::JobInfo& j) { return job_of(a, j); });
        if (a.state == State::submitting) (has ? adoptable : waiting) = true;
        if (a.state != State::submitting || has) with_jobs.push_back(a);
      }
      if (adoptable)
        apply_decision([&] { return on_reconcile(with_jobs, found, {}, wall(), rules_, memory_); }, latest);
      if (waiting) throw;
      return adoptable;
    }
    for (size_t k = 0; k < asked.size(); ++k) {
      sched::SubmitRecord r = got.at(k);
      if (r.outcome == sched::SubmitRecord::Outcome::submitted && asked[k]->array_task)
        r.job_id = scheduler_.array_task_id(r.job_id, *asked[k]->array_task);
      records[asked[k]->id] = std::move(r);
    }
  }
  return apply_decision([&] { return on_reconcile(latest, found, records, wall(), rules_, memory_); },
                        latest);
}

void Engine::sweep_duplicates() {
  // Jobs of this campaign's names that no attempt owns: a submission that landed twice, found after
  // its attempt was adopted. Only after a run that had unclear submissions: it costs a name lookup.
  if (!unclear_submissions_) return;
  std::set<std::string> owned, names;
  for (auto& a : catalog_.attempts_in(campaign_id_, kEveryState)) {
    if (!a.job_id.empty()) owned.insert(a.job_id);
    if (!a.job_name.empty()) names.insert(a.job_name);
  }
  if (names.empty()) return;
  std::vector<std::string> stray;
  for (auto& j : scheduler_.find_by_name({names.begin(), names.end()}))
    if (!owned.count(j.id) && !is_final(j.state)) stray.push_back(j.id);
  if (stray.empty()) return;
  scheduler_.cancel(stray);
  for (auto& id : stray) {
    std::string what = "job " + id +
                       " of this campaign's names is owned by no attempt (a submission that "
                       "landed twice): cancelled";
    catalog_.add_event("duplicate", what, {.campaign_id = campaign_id_});
    spdlog::warn("{}", what);
    ++duplicates_cancelled_;
  }
}

void Engine::record_energy() {
  // A packed allocation's energy is final only once the allocation ends, after its cases' steps
  // settled them: one question at the end for the settled attempts that lack it (none at all where
  // the accounting records no energy).
  std::vector<AttemptRow*> lacking;
  std::vector<std::string> ids;
  for (auto& a : cached_latest())
    if (a.in_spec && settled(a) && !a.job_id.empty() && !a.energy_j) {
      ids.push_back(a.job_id);
      lacking.push_back(&a);
    }
  if (ids.empty()) return;
  auto energy = scheduler_.consumed_energy(ids);
  if (energy.empty()) return;
  for (AttemptRow* a : lacking)
    if (auto it = energy.find(a->job_id); it != energy.end()) {
      JobUpdate u;
      u.energy_j = it->second;
      catalog_.update_state(*a, a->state, u);  // the row kept as written
    }
}

bool Engine::apply_markers(std::vector<AttemptRow>& latest) {
  if (!read_marker_in_) return apply_markers_of(started_rows(latest), latest, wall());
  std::vector<const AttemptRow*> picked;
  for (std::int64_t id : *read_marker_in_)
    if (const AttemptRow* a = row_of(latest, id)) picked.push_back(a);
  return apply_markers_of(marker_rows(std::move(picked)), latest, wall());
}

bool Engine::apply_markers_of(const std::vector<AttemptRow>& rows, std::vector<AttemptRow>& latest,
                              Time now) {
  auto dirs = marker_dirs(rows);
  if (dirs.empty()) return false;
  const auto markers = workspace_.read_markers(dirs);
  return apply_decision([&] { return on_markers(rows, markers, now, memory_); }, latest);
}

bool Engine::poll(std::vector<AttemptRow>& latest) {
  PollRequest request = what_to_poll(latest, rules_, memory_);
  if (request.ids.empty()) return false;
  PollAnswer answer;
  answer.jobs = scheduler_.query(request.ids);
  answer.now = wall();
  const bool changed = apply_markers_of(unmarked_in_ended(latest, answer.jobs, memory_), latest, answer.now);
  PackedQuery packed = packed_query(latest, request, answer.jobs, memory_);
  if (!packed.allocations.empty()) {
    try {
      answer.steps = scheduler_.query_steps(packed.allocations);
      if (!accounting_problem_.empty()) spdlog::info("job step accounting answers again");
      accounting_problem_.clear();
      accounting_failing_since_.reset();
    } catch (const sched::SchedulerUnavailable& e) {
      // The queue answered, the accounting did not (slurmdbd down): as an accounting that lags, its
      // steps are waited for, accounting_wait_s at most, and the other jobs are judged meanwhile.
      if (accounting_problem_.empty()) spdlog::warn("job step accounting unavailable: {}", e.what());
      accounting_problem_ = e.what();
      if (!accounting_failing_since_) accounting_failing_since_ = answer.now;
      answer.steps.kept = true;
      answer.accounting_failing_since = accounting_failing_since_;
    }
  }
  // Start markers through the workspace: on this machine or on the login node.
  // A case waiting to start whose directory the watch saw nothing in has not started: not read.
  std::vector<std::string> dirs;
  std::vector<size_t> read;  // indices into packed.markers
  for (size_t k = 0; k < packed.markers.size(); ++k) {
    const AttemptRow* a = packed.markers[k];
    if (read_start_in_ && a->state == State::queued && !read_start_in_(a->id)) continue;
    dirs.push_back(a->run_dir);
    read.push_back(k);
  }
  std::vector<std::optional<std::string>> texts(packed.markers.size());
  if (!dirs.empty()) {
    auto got = workspace_.read_in(dirs, pack::kStartMarker);
    for (size_t i = 0; i < read.size() && i < got.size(); ++i) texts[read[i]] = std::move(got[i]);
  }
  read_start_markers(packed, texts, stepless_cases_, answer);
  return apply_decision([&] { return on_poll(latest, request, answer, rules_, memory_); }, latest) || changed;
}

void Engine::confirm_unreachable(std::vector<AttemptRow>& latest) {
  if (!unreachable_since_) return;
  double s = std::chrono::duration<double>(now() - *unreachable_since_).count();
  apply_decision([&] { return on_unreachable(latest, s, rules_, memory_); }, latest);
}

}  // namespace campaign::engine
