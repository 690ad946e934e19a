// The engine's submissions: the batch jobs choose_submissions() picked (decide.hpp), within the rate
// and a time slice: each case's script and run directory, the attempts committed `submitting`, a
// batch's own files, then the scheduler's answer and what a refused or unclear one means. Every file
// goes through the Workspace, so that packed runs and arrays work over ssh as single jobs do.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <optional>

#include "batch/files.hpp"
#include "engine/engine.hpp"
#include "engine/rules.hpp"
#include "util/walltime.hpp"

namespace campaign::engine {

// A batch: its cases' scripts (packed ones as job steps) and clean run directories first (a stale
// marker of an earlier attempt must not complete this one), then its attempts committed
// `submitting` in one transaction with the batch's job name (an allocation's cases with their own
// step's, an array's with their task's index), then the batch's own files (manifest or index before
// its script), then the submission.
bool Engine::submit_batch(const Batch& b, const std::vector<AttemptRow*>& rows,
                          const std::vector<std::string>& after) {
  const batch::Shape& s = b.shape;
  std::vector<render::Script> scripts;
  for (size_t k = 0; k < rows.size(); ++k) {
    render::RenderOptions ro{workspace_.script_root(), options_.campaign_exe, rows[k]->number, s.walltimes[k],
                             job_id_prefix_};
    ro.packed = s.kind == batch::Kind::allocation;
    scripts.push_back(renderer_->render(plan_.cases[s.ids[k]], ro));
    workspace_.prepare(scripts.back());
  }
  std::string job_name = scripts.front().job_name;
  if (s.kind == batch::Kind::allocation) {
    job_name = render::allocation_name(job_id_prefix_, rows.front()->id);
    // A packed case its allocation never started is planned again under the same attempt: its next
    // allocation needs a name of its own, or reconciliation could adopt the old, ended one.
    int earlier = 0;
    for (auto& e : catalog_.events_of_attempt(rows.front()->id)) earlier += e.to == State::submitting ? 1 : 0;
    if (earlier) job_name += "-s" + std::to_string(earlier + 1);
  }
  if (s.kind == batch::Kind::array) job_name = render::array_name(job_id_prefix_, rows.front()->id);
  const long first_task = scheduler_.first_array_task();
  std::vector<Catalog::SubmitStart> starts;
  for (size_t k = 0; k < rows.size(); ++k) {
    const matrix::Case& c = plan_.cases[s.ids[k]];
    Catalog::SubmitStart st{
        rows[k]->id, job_name, s.walltimes[k], static_cast<int>(plan_.demand_of(c).nodes), "", std::nullopt};
    if (s.kind == batch::Kind::single) st.nodes = static_cast<int>(c.job_nodes());
    if (s.kind == batch::Kind::allocation) st.step_name = scripts[k].job_name;
    if (s.kind == batch::Kind::array) st.array_task = first_task + static_cast<long>(k);
    starts.push_back(std::move(st));
  }
  catalog_.begin_submit(starts, rows);  // the rows kept as written, not read back

  sched::SubmitRequest req;
  req.job_name = job_name;
  req.depends_on = after;
  req.walltime_s = s.walltime_s;
  if (scheduler_.records_submissions()) req.record = record_of(*rows.front());
  if (s.kind == batch::Kind::single) {
    req.script_path = scripts.front().path.string();
    req.workdir = scripts.front().run_dir.string();
    req.demand = plan_.demand_of(plan_.cases[s.ids.front()]);
  } else {
    batch::Files files = batch::files_of(plan_, s, job_name, workspace_.script_root(), scripts,
                                         options_.campaign_exe, first_task);
    workspace_.put(files.files);
    req.script_path = files.script.string();
    req.workdir = files.script.parent_path().string();
    if (s.kind == batch::Kind::array) {
      req.array_tasks = static_cast<long>(rows.size());
      req.array_throttle = s.throttle;
    }
    spdlog::info("{} {}: {} cases{} for {}", batch::to_string(s.kind), job_name, rows.size(),
                 s.kind == batch::Kind::allocation ? fmt::format(" on {} nodes", s.nodes)
                 : s.throttle                      ? fmt::format(", at most {} running", s.throttle)
                                                   : std::string(),
                 format_hms(s.walltime_s));
  }
  return submit_job(rows, req);
}

bool Engine::submit_job(const std::vector<AttemptRow*>& rows, const sched::SubmitRequest& req) {
  const std::string who = rows.size() == 1 ? rows.front()->case_name : req.job_name;
  std::string id;
  try {
    id = scheduler_.submit(req);
  } catch (const sched::SubmitError& e) {
    // What the failure means is decided (on_submit_failure); here it is carried out and said.
    std::vector<const AttemptRow*> attempts(rows.begin(), rows.end());
    SubmitFailed failed = on_submit_failure(attempts, e.kind(), e.what());
    std::vector<AttemptRow> latest;  // apply() works on rows: these, written back after
    for (auto* row : rows) latest.push_back(*row);
    const bool changed = apply(failed.actions, latest);
    for (size_t k = 0; k < rows.size(); ++k) *rows[k] = latest[k];
    if (failed.pause) {
      submit_pause_until_ = now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(options_.limit_pause_s));
      spdlog::warn("{}: the scheduler refused the submission ({}); trying again in {:.0f} s", who, e.what(),
                   options_.limit_pause_s);
    }
    if (failed.unclear) {
      spdlog::warn("{}: submission outcome unknown ({}); reconciling by job name{}", who, e.what(),
                   req.record.empty() ? "" : " and the submit command's record");
      unclear_submissions_ = true;
      scheduler_problem_ = e.what();  // no more submissions until a poll succeeds
      poll_soon_ = true;
    }
    return changed && !failed.pause;  // a refusal: nothing changed that the loop must act on
  }
  last_job_id_ = id;
  if (options_.hook) options_.hook("after_submit");
  // The job ids of an allocation's or array's cases in one transaction, the rows kept as written.
  try {
    Catalog::WriteGroup group(catalog_);
    for (auto* row : rows)  // a task of an array is its own job: query, cancel and accounting by its id
      catalog_.record_job_id(*row, row->array_task ? scheduler_.array_task_id(id, *row->array_task) : id);
    group.commit();
    watch_stale_ = true;
  } catch (...) {
    std::vector<std::pair<AttemptRow*, std::int64_t>> touched;
    for (auto* row : rows) touched.emplace_back(row, row->id);
    read_again(touched);  // as the catalog has them
    throw;
  }
  spdlog::info("{}: submitted job {} ({})", who, id, req.job_name);
  return true;
}

std::optional<Engine::PendingChoice> Engine::resume_choice(std::vector<AttemptRow>& latest) {
  std::optional<PendingChoice> p = std::move(pending_choice_);
  pending_choice_.reset();
  if (!p || p->others_in_queue != others_in_queue_ || plan_.campaign.budget_node_hours) return std::nullopt;
  for (size_t k = p->next; k < p->choice.batches.size(); ++k) {
    const Batch& b = p->choice.batches[k];
    if (!b.after.empty() || !b.after_batches.empty()) return std::nullopt;
    for (size_t m : b.members) {  // each still planned and in the campaign
      const AttemptRow* a = row_of(latest, p->choice.ready[m].attempt);
      if (!a || !a->in_spec || a->state != State::planned) return std::nullopt;
    }
  }
  return p;
}

bool Engine::submit_ready(std::vector<AttemptRow>& latest) {
  more_to_submit_ = false;
  std::optional<PendingChoice> pending = resume_choice(latest);
  if (now() < submit_pause_until_) return false;
  bool changed = false;
  if (!pending) {
    // Every tick asks; once every case has its job, or while the last choice would be made the same
    // (chooses_nothing_again), the choice is skipped.
    ChoiceInputs inputs = choice_inputs(latest, dependency_cases_);
    if (inputs.planned == 0) return false;
    if (idle_choice_ && chooses_nothing_again(plan_, *idle_choice_, inputs, others_in_queue_)) return false;
    pending.emplace();
    pending->choice = choose(latest);
    pending->job_of.assign(pending->choice.batches.size(), "");
    pending->others_in_queue = others_in_queue_;
    changed = apply(pending->choice.actions, latest);
    idle_choice_ = idle_choice(pending->choice, inputs);
  }
  const SubmitChoice& choice = pending->choice;
  std::vector<std::string>& job_of = pending->job_of;  // the job id each batch got
  // A long burst of submissions (each a scheduler command) is cut into slices so that markers and
  // polls are not starved: the next slice follows at once, with the rest of this choice.
  auto slice_end = now() + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(options_.submit_slice_s));
  for (size_t k = pending->next; k < choice.batches.size(); ++k) {
    const Batch& b = choice.batches[k];
    std::vector<std::string> after = b.after;
    for (size_t d : b.after_batches) after.push_back(job_of[d]);
    // A dependency of this choice was not submitted (rejected, or stopped): the next tick decides.
    if (std::find(after.begin(), after.end(), "") != after.end()) continue;
    if (now() >= slice_end || !rate_.allow(now())) {
      more_to_submit_ = now() >= slice_end;
      pending->next = k;
      pending_choice_ = std::move(pending);
      return changed;
    }
    std::vector<AttemptRow*> members;
    for (size_t m : b.members) members.push_back(row_of(latest, choice.ready[m].attempt));
    const bool submitted = submit_batch(b, members, after);
    changed |= submitted;
    // The batch's job id (an array's, not a task's: dependents wait for the whole array).
    if (submitted && members.front()->state == State::queued) job_of[k] = last_job_id_;
    // Refused (wait for the pause) or outcome unknown (the scheduler is in trouble: every further
    // submit would wait for its timeout too; reconcile first).
    if (!submitted &&
        (members.front()->state == State::planned || members.front()->state == State::submitting))
      return changed;
  }
  return changed;
}

SubmitChoice Engine::choose(const std::vector<AttemptRow>& latest) {
  SubmitLimits limits;
  limits.others_in_queue = others_in_queue_;
  limits.arrays = scheduler_.has_arrays();
  if (plan_.campaign.budget_node_hours)
    limits.committed_node_hours =
        catalog_.consumed_node_hours(campaign_id_) + catalog_.in_flight_node_hours(campaign_id_);
  // A retry after a timeout asks for more time: the attempt history of retried cases.
  for (auto& a : latest)
    if (a.state == State::planned && a.number > 1) {
      int timeouts = 0;
      for (auto& earlier : catalog_.attempts_of_case(a.case_id))
        timeouts += earlier.state == State::timeout ? 1 : 0;
      if (timeouts) limits.timeouts[a.case_id] = timeouts;
    }
  SubmitChoice choice = choose_submissions(plan_, submit_order_, case_ids_, latest, limits);
  if (!choice.budget_note.empty() && choice.budget_note != budget_note_)
    spdlog::warn("{}", choice.budget_note);  // once, not at every tick
  budget_note_ = choice.budget_note;
  return choice;
}

}  // namespace campaign::engine
