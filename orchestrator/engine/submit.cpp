// The engine's submissions: which ready case goes next (node classes round robin, queue limits,
// budget, rate), its script and walltime, and what a refused or unclear submission means.
#include <spdlog/spdlog.h>

#include <map>

#include "engine/engine.hpp"
#include "engine/rules.hpp"

namespace campaign::engine {

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

  catalog_.begin_submit(row.id, script.job_name, walltime, static_cast<int>(c.job_nodes()));
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
      double need = c.node_hours();
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

}  // namespace campaign::engine
