// The engine's submissions: the cases choose_submissions() picked (decide.hpp), within the rate and
// a time slice; each one's script and walltime, and what a refused or unclear submission means.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "array/array.hpp"
#include "engine/engine.hpp"
#include "engine/rules.hpp"
#include "pack/planner.hpp"
#include "pack/script.hpp"
#include "render/batch.hpp"
#include "util/walltime.hpp"

namespace campaign::engine {

namespace {

// A batch job of several cases, run in the directory of its script (render::batch_dir).
sched::SubmitRequest batch_request(const std::filesystem::path& script, const std::string& job_name,
                                   const std::vector<std::string>& after, long walltime_s) {
  sched::SubmitRequest req;
  req.script_path = script.string();
  req.job_name = job_name;
  req.workdir = script.parent_path().string();
  req.depends_on = after;
  req.walltime_s = walltime_s;
  return req;
}

}  // namespace

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
  return submit_job({&row}, req);
}

// Packed: the cases' scripts and run directories, each attempt committed `submitting` with the
// allocation's name and its own step's, then the manifest and the allocation script, then the submission.
bool Engine::submit_allocation(const pack::StepAllocation& alloc, const std::vector<AttemptRow*>& rows,
                               const std::vector<long>& walltimes, const std::vector<std::string>& after) {
  pack::Allocation a = pack::allocation_of(
      plan_, alloc, render::allocation_name(job_id_prefix_, rows.front()->id), workspace_.script_root());
  std::vector<std::pair<AttemptRow*, render::Script>> scripts;
  for (size_t k = 0; k < rows.size(); ++k) {
    const matrix::Case& c = plan_.cases[alloc.ids[k]];
    const long walltime = walltimes[k];
    render::RenderOptions ro{workspace_.script_root(), options_.campaign_exe, rows[k]->number, walltime,
                             job_id_prefix_};
    ro.packed = true;
    render::Script script = renderer_.render(c, ro);
    workspace_.prepare(script);
    a.cases.push_back(pack::packed_case(plan_, c, script, walltime));
    scripts.emplace_back(rows[k], std::move(script));
  }
  std::vector<Catalog::SubmitStart> starts;
  for (size_t k = 0; k < scripts.size(); ++k)
    starts.push_back({scripts[k].first->id, a.job_name, a.cases[k].walltime_s,
                      static_cast<int>(a.cases[k].demand.nodes), scripts[k].second.job_name, std::nullopt});
  catalog_.begin_submit(starts);
  pack::write_allocation(a, pack::render_allocation(plan_, a, options_.campaign_exe));
  spdlog::info("allocation {}: {} cases on {} nodes for {}", a.job_name, rows.size(), a.nodes,
               format_hms(a.walltime_s));
  return submit_job(rows, batch_request(a.dir / pack::kAllocationScript, a.job_name, after, a.walltime_s));
}

// A job array: the cases' scripts and run directories, each attempt committed `submitting` with the
// array's name and its task's index, then the index file and the array script, then the submission;
// each case then knows its own task's id.
bool Engine::submit_array(const array::PlannedArray& planned, const std::vector<AttemptRow*>& rows,
                          const std::vector<long>& walltimes, const std::vector<std::string>& after) {
  const auto& spec = *plan_.step_of(plan_.cases[planned.ids.front()]).array;
  array::ArrayJob job;
  job.job_name = render::array_name(job_id_prefix_, rows.front()->id);
  job.partition = plan_.system.partitions[planned.partition].name;
  job.walltime_s = planned.walltime_s;
  job.throttle = spec.throttle.value_or(0);
  job.first_task = scheduler_.first_array_task();
  job.dir = render::batch_dir(workspace_.script_root(), job.job_name);
  std::vector<Catalog::SubmitStart> starts;
  for (size_t k = 0; k < rows.size(); ++k) {
    const matrix::Case& c = plan_.cases[planned.ids[k]];
    render::RenderOptions ro{workspace_.script_root(), options_.campaign_exe, rows[k]->number, walltimes[k],
                             job_id_prefix_};
    render::Script script = renderer_.render(c, ro);
    workspace_.prepare(script);
    job.scripts.push_back(script.path);
    const long task = job.first_task + static_cast<long>(k);
    starts.push_back({rows[k]->id, job.job_name, walltimes[k], static_cast<int>(c.job_nodes()), "", task});
  }
  catalog_.begin_submit(starts);
  for (size_t k = 0; k < rows.size(); ++k) rows[k]->array_task = starts[k].array_task;
  array::write_array(job, array::render_array(plan_, plan_.cases[planned.ids.front()], job));
  spdlog::info("array {}: {} tasks{} for {}", job.job_name, rows.size(),
               job.throttle ? fmt::format(", at most {} running", job.throttle) : std::string(),
               format_hms(job.walltime_s));
  auto req = batch_request(job.dir / array::kArrayScript, job.job_name, after, job.walltime_s);
  req.array_tasks = static_cast<long>(rows.size());
  req.array_throttle = job.throttle;
  return submit_job(rows, req);
}

bool Engine::submit_job(const std::vector<AttemptRow*>& rows, const sched::SubmitRequest& req) {
  const std::string who = rows.size() == 1 ? rows.front()->case_name : req.job_name;
  std::string id;
  try {
    id = scheduler_.submit(req);
  } catch (const sched::SubmitError& e) {
    switch (e.kind()) {
      case sched::SubmitFailure::refused_by_limit:
        for (auto* row : rows) {
          catalog_.revert_submitting(row->id, std::string("refused by a limit: ") + e.what());
          row->state = State::planned;
          row->array_task.reset();
        }
        submit_pause_until_ = now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(options_.limit_pause_s));
        spdlog::warn("{}: the scheduler refused the submission ({}); trying again in {:.0f} s", who, e.what(),
                     options_.limit_pause_s);
        return false;
      case sched::SubmitFailure::transient:
        // The job may exist: the next poll reconciles it by name. Our submit command has ended, so
        // no job of this name can appear later: no grace period for it.
        spdlog::warn("{}: submission outcome unknown ({}); reconciling by job name", who, e.what());
        for (auto* row : rows) {
          row->state = State::submitting;
          row->job_name = req.job_name;
          memory_.submit_ended_here.insert(row->id);
        }
        scheduler_problem_ = e.what();  // no more submissions until a poll succeeds
        latest_valid_ = false;
        poll_soon_ = true;
        return false;
      case sched::SubmitFailure::invalid: {
        JobUpdate u;
        u.reason = std::string("the scheduler rejected the job: ") + e.what();
        for (auto* row : rows) {
          catalog_.revert_submitting(row->id, std::string("rejected: ") + e.what());
          catalog_.update_state(row->id, State::cancelled, u);
          row->state = State::cancelled;
          row->reason = *u.reason;
        }
        spdlog::error("{}: {}", who, *u.reason);
        return true;
      }
    }
  }
  if (options_.hook) options_.hook("after_submit");
  for (auto* row : rows) {
    // A task of an array is its own job for the scheduler: query, cancel and accounting by its id.
    std::string own = row->array_task ? scheduler_.array_task_id(id, *row->array_task) : id;
    catalog_.record_job_id(row->id, own);
    row->state = State::queued;
    row->job_id = own;
    row->job_name = req.job_name;
  }
  spdlog::info("{}: submitted job {} ({})", who, id, req.job_name);
  return true;
}

bool Engine::submit_ready(std::vector<AttemptRow>& latest) {
  more_to_submit_ = false;
  if (now() < submit_pause_until_) return false;
  std::optional<double> committed;
  if (plan_.campaign.budget_node_hours)
    committed = catalog_.consumed_node_hours(campaign_id_) + catalog_.in_flight_node_hours(campaign_id_);
  SubmitChoice choice =
      choose_submissions(plan_, submit_order_, case_ids_, latest, others_in_queue_, committed);
  if (!choice.budget_note.empty() && choice.budget_note != budget_note_)
    spdlog::warn("{}", choice.budget_note);  // once, not at every tick
  budget_note_ = choice.budget_note;
  bool changed = apply(choice.actions, latest);
  // A long burst of submissions (each a scheduler command) is cut into slices so that markers and
  // polls are not starved: the next slice follows at once.
  auto slice_end = now() + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(options_.submit_slice_s));
  std::map<std::int64_t, AttemptRow*> rows;
  for (auto& a : latest) rows[a.id] = &a;
  // The afterok job ids of a submission: dependencies running, and those submitted earlier in this
  // choice; nullopt when one of those was rejected (the next tick cancels this one).
  auto afterok = [&](const Submission& s) -> std::optional<std::vector<std::string>> {
    std::vector<std::string> after = s.after;
    for (size_t d : s.after_ready) after.push_back(rows.at(choice.ready[d].attempt)->job_id);
    if (std::find(after.begin(), after.end(), "") != after.end()) return std::nullopt;
    return after;
  };
  // Cases of packed and array steps share batch jobs: grouped per step, after the others' turn. A
  // back end without arrays (the local executor) runs an array step's cases as ordinary jobs.
  std::map<size_t, std::vector<const Submission*>> grouped;
  for (auto& s : choice.ready) {
    const auto& step = plan_.step_of(plan_.cases[s.plan_index]);
    if (step.pack || (step.array && scheduler_.has_arrays())) {
      grouped[plan_.cases[s.plan_index].step].push_back(&s);
      continue;
    }
    AttemptRow& row = *rows.at(s.attempt);
    auto after = afterok(s);
    if (!after) continue;
    if (now() >= slice_end) {
      more_to_submit_ = true;
      break;
    }
    if (!rate_.allow(now())) break;
    bool submitted = submit_one(row, s.plan_index, *after);
    changed |= submitted;
    // Refused (wait for the pause) or outcome unknown (the scheduler is in trouble: every further
    // submit would wait for its timeout too; reconcile first).
    if (!submitted && (row.state == State::planned || row.state == State::submitting)) return changed;
  }
  for (auto& [step, subs] : grouped) {
    std::map<size_t, const Submission*> by_index;
    std::map<size_t, long> walltime;  // a retry after a timeout asks for more (one catalog read each)
    std::vector<size_t> cases;
    for (auto* s : subs) {
      by_index[s->plan_index] = s;
      walltime[s->plan_index] = walltime_for(*rows.at(s->attempt), plan_.cases[s->plan_index]);
      cases.push_back(s->plan_index);
    }
    auto walltime_of = [&](size_t i) { return walltime.at(i); };
    // One batch job for the cases `ids`, after the union of their dependencies; false: stop here.
    auto submit_group = [&](const std::vector<size_t>& ids, auto&& submit) {
      if (now() >= slice_end) {
        more_to_submit_ = true;
        return false;
      }
      if (!rate_.allow(now())) return false;
      std::vector<AttemptRow*> members;
      std::vector<long> walltimes;
      std::vector<std::string> after;
      for (size_t i : ids) {
        members.push_back(rows.at(by_index.at(i)->attempt));
        walltimes.push_back(walltime.at(i));
        auto a = afterok(*by_index.at(i));
        if (!a) return true;  // a dependency was rejected: the next tick cancels these
        after.insert(after.end(), a->begin(), a->end());
      }
      std::sort(after.begin(), after.end());
      after.erase(std::unique(after.begin(), after.end()), after.end());
      bool submitted = submit(members, walltimes, after);
      changed |= submitted;
      return submitted ||
             (members.front()->state != State::planned && members.front()->state != State::submitting);
    };
    if (plan_.steps[step].pack) {
      for (auto& alloc : pack::allocate_step(plan_, cases, walltime_of))
        if (!submit_group(alloc.ids,
                          [&](auto& m, auto& w, auto& a) { return submit_allocation(alloc, m, w, a); }))
          return changed;
    } else {
      // The queue limit let only a few of the step's cases in: while our own jobs will free places,
      // wait for a tenth of the limit rather than submit an array per freed place.
      const int chunk = std::max(1, static_cast<int>(plan_.system.limits.max_queued_jobs / 10));
      if (choice.queue_full && choice.ours_in_queue > 0 && static_cast<int>(cases.size()) < chunk) continue;
      for (auto& arr : array::group_arrays(plan_, cases, walltime_of))
        if (!submit_group(arr.ids, [&](auto& m, auto& w, auto& a) { return submit_array(arr, m, w, a); }))
          return changed;
    }
  }
  return changed;
}

}  // namespace campaign::engine
