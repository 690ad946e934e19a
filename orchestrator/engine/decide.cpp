// What markers, polls and the scheduler's silence mean for the engine's attempts, and when a case
// gets a new attempt (decide.hpp). Pure: rows and observations in, actions out.
#include "engine/decide.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "engine/policy.hpp"
#include "engine/rules.hpp"
#include "pack/driver.hpp"

namespace campaign::engine {

namespace {

// Job ids grow with time on every scheduler here; compare as numbers when they are.
bool newer_id(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() > b.size();
  return a > b;
}

bool has_job(const AttemptRow& a) { return is_active(a.state) && !a.job_id.empty(); }

// Jobs by id, for rows that ask in turn: a packed allocation's cases come one after the other, so
// the last answer is kept (a campaign of 100,000 packed cases asks 100,000 times a poll).
class JobsById {
 public:
  explicit JobsById(const std::vector<sched::JobInfo>& jobs) {
    for (auto& j : jobs) by_id_[j.id] = &j;
  }
  const sched::JobInfo* find(const std::string& id) {
    if (last_id_ != id) {
      auto it = by_id_.find(id);
      last_id_ = id;
      last_ = it == by_id_.end() ? nullptr : it->second;
    }
    return last_;
  }

 private:
  std::map<std::string, const sched::JobInfo*> by_id_;
  std::string last_id_;
  const sched::JobInfo* last_ = nullptr;
};

// A job's state as the scheduler printed it ("CANCELLED by 0"), else ours.
std::string state_text(const sched::JobInfo& j) {
  return j.raw_state.empty() ? std::string(to_string(j.state)) : j.raw_state;
}

// An attempt's job is done with: what the engine remembered about it is dropped.
void forget(Memory& memory, std::int64_t attempt) {
  memory.missing.erase(attempt);
  memory.marker_exit.erase(attempt);
  memory.awaiting_steps.erase(attempt);
}

// An attempt ends.
void finish(Actions& out, Memory& memory, const AttemptRow& a, State state, JobUpdate u) {
  forget(memory, a.id);
  out.marks.push_back({a.id, state, std::move(u), "", "", false});
}

// A completion on the marker, settled: `info` is the scheduler's record of the ended job, null
// when there is none (`why` says why).
void confirm(Actions& out, Memory& memory, const AttemptRow& a, const sched::JobInfo* info,
             const std::string& why) {
  memory.unconfirmed.erase(a.id);
  JobUpdate u;
  Mark m{a.id, State::completed, {}, "", "", false};
  if (info) {
    u = update_from(*info);
    if (info->state != State::completed) {
      // The marker said 0, the accounting says otherwise (srun exits 0 after a node failure): the
      // accounting wins, and the retry policy sees the real state.
      u.reason = "the scheduler's accounting says " + state_text(*info) +
                 (info->reason.empty() ? "" : " (" + info->reason + ")") + "; the job's exit marker said 0";
      m.state = info->state;
      if (a.cause == Cause::user) {
        u.cause = Cause::user;  // the user cancelled it meanwhile: it stays as it ended, no retry
        *u.reason += "; cancelled by the user meanwhile: not retried";
      }
      m.note = a.case_name + ": " + *u.reason;
      m.warn = true;
      forget(memory, a.id);
    } else {
      u.exit_code.reset();  // the marker's 0
      u.reason = "";
    }
  } else {
    u.reason = "accounting unavailable (" + why + "): completed on its exit marker alone";
    m.note = a.case_name + ": " + *u.reason;
  }
  u.confirmed = true;
  m.update = std::move(u);
  out.marks.push_back(std::move(m));
}

}  // namespace

namespace {

// `job` is `id` or one of its array's tasks ("50_3", "50[3]").
bool of_job(const std::string& job, const std::string& id) {
  return job == id ||
         (job.size() > id.size() && job.compare(0, id.size(), id) == 0 && !std::isdigit(job[id.size()]));
}

}  // namespace

bool job_of(const AttemptRow& a, const sched::JobInfo& j) {
  return j.name == a.job_name && j.array_task == a.array_task;
}

Actions on_reconcile(const std::vector<AttemptRow>& latest, const std::vector<sched::JobInfo>& found,
                     const std::map<std::int64_t, sched::SubmitRecord>& records, Time now, const Rules& rules,
                     Memory& memory) {
  using Outcome = sched::SubmitRecord::Outcome;
  Actions out;
  std::set<std::string> cancelled;
  for (auto& a : latest) {
    if (a.state != State::submitting) continue;
    auto rec = records.find(a.id);
    const sched::SubmitRecord none;
    const sched::SubmitRecord& record = rec == records.end() ? none : rec->second;
    std::vector<const sched::JobInfo*> jobs;
    for (auto& j : found)
      if (job_of(a, j)) jobs.push_back(&j);
    // Which of several is its own: one that has started (it writes the run directory and its exit
    // marker; the others are cancelled while they wait), the first to start, then the one its submit
    // command printed, then the oldest.
    auto started = [](const sched::JobInfo* j) {
      return j->state != State::queued && j->state != State::lost;
    };
    auto better = [&](const sched::JobInfo* j, const sched::JobInfo* than) {
      if (started(j) != started(than)) return started(j);
      // Of two that started, the first: it claimed the run directory (render::claim_file); a later
      // one found its claim and left.
      if (j->start && than->start && *j->start != *than->start) return *j->start < *than->start;
      const bool rj = record.outcome == Outcome::submitted && of_job(j->id, record.job_id);
      const bool rt = record.outcome == Outcome::submitted && of_job(than->id, record.job_id);
      if (rj != rt) return rj;
      return newer_id(than->id, j->id);
    };
    const sched::JobInfo* job = nullptr;
    for (auto* j : jobs)
      if (!job || better(j, job)) job = j;
    if (job) {
      State seen = job->state == State::lost ? State::queued : job->state;
      JobUpdate u = update_from(*job);
      if (!a.step_name.empty()) {
        // A packed case's own end is its step's, judged by the next poll (on_poll): its allocation's
        // state, even COMPLETED, says nothing of it.
        seen = State::queued;
        u = JobUpdate{};
      }
      Mark m{a.id, seen, std::move(u), job->id, "", false};
      m.note = a.case_name + ": adopting job " + job->id + " of its submission";
      out.marks.push_back(std::move(m));
      for (auto* j : jobs) {
        if (j == job) continue;
        out.duplicates.push_back({a.id, j->id, job->id, is_final(j->state)});
        if (!is_final(j->state) && cancelled.insert(j->id).second) out.cancel.push_back(j->id);
      }
    } else if (record.outcome == Outcome::submitted) {
      Mark m{a.id, State::queued, {}, record.job_id, "", false};
      m.note = a.case_name + ": adopting job " + record.job_id + ", which its submit command recorded";
      out.marks.push_back(std::move(m));
    } else if (record.outcome == Outcome::refused) {
      out.notes.push_back(a.case_name + ": its submit command ended without submitting: " + record.message);
      out.reverts.push_back({a.id, "not submitted: " + record.message});
    } else if (double wait =
                   record.outcome == Outcome::started ? rules.submit_record_wait_s : rules.submit_grace_s;
               a.submitted && now - *a.submitted < std::chrono::duration<double>(wait)) {
      // The submit command may still be running, or its job on its way: look again at the next poll.
      if (memory.awaiting_submission.insert(a.id).second)
        out.notes.push_back(fmt::format(
            "{}: no job named {} yet; its submission {} (waiting up to {:.0f} s)", a.case_name, a.job_name,
            record.outcome == Outcome::unclear   ? "failed unclearly (" + record.message + ")"
            : record.outcome == Outcome::started ? std::string("still runs on the login node")
                                                 : std::string("may still be on its way"),
            wait));
      continue;
    } else {
      out.notes.push_back(a.case_name + ": no job named " + a.job_name +
                          ": the submission never reached the scheduler");
      out.reverts.push_back({a.id, "no job of this name: not submitted"});
    }
    memory.awaiting_submission.erase(a.id);
  }
  return out;
}

SubmitFailed on_submit_failure(const std::vector<const AttemptRow*>& attempts, sched::SubmitFailure kind,
                               const std::string& what) {
  SubmitFailed out;
  switch (kind) {
    case sched::SubmitFailure::refused_by_limit:
      for (auto* a : attempts) out.actions.reverts.push_back({a->id, "refused by a limit: " + what});
      out.pause = true;
      break;
    case sched::SubmitFailure::transient:
      out.unclear = true;
      break;
    case sched::SubmitFailure::invalid:
      for (auto* a : attempts)
        out.actions.reverts.push_back(
            {a->id, "rejected: " + what, "the scheduler rejected the job: " + what});
      break;
  }
  return out;
}

std::vector<std::string> marker_dirs(const std::vector<AttemptRow>& latest) {
  std::vector<std::string> dirs;
  for (auto& a : latest)
    if (has_job(a)) dirs.push_back(a.run_dir);
  return dirs;
}

std::vector<AttemptRow> marker_rows(std::vector<const AttemptRow*> picked) {
  std::erase_if(picked, [](const AttemptRow* a) { return !has_job(*a); });
  std::sort(picked.begin(), picked.end(), std::less<>());  // elements of one vector: its order
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  std::vector<AttemptRow> out;
  out.reserve(picked.size());
  for (const AttemptRow* a : picked) out.push_back(*a);
  return out;
}

Actions on_markers(const std::vector<AttemptRow>& latest, const std::vector<std::optional<int>>& markers,
                   Time now, Memory& memory) {
  Actions out;
  size_t i = 0;
  for (auto& a : latest) {
    if (!has_job(a)) continue;
    const std::optional<int>& marker = markers.at(i++);
    if (!marker) continue;
    if (*marker != 0) {
      memory.marker_exit[a.id] = *marker;
      continue;
    }
    JobUpdate u;
    u.exit_code = 0;
    u.ended = now;
    u.reason = kAwaitingAccounting;
    u.confirmed = false;
    memory.unconfirmed[a.id] = {a.job_id, std::nullopt};
    finish(out, memory, a, State::completed, std::move(u));
  }
  return out;
}

std::vector<AttemptRow> started_rows(const std::vector<AttemptRow>& latest) {
  std::vector<AttemptRow> out;
  for (auto& a : latest)
    if (a.state == State::running && has_job(a)) out.push_back(a);
  return out;
}

std::vector<AttemptRow> unmarked_in_ended(const std::vector<AttemptRow>& latest,
                                          const std::vector<sched::JobInfo>& jobs, const Memory& memory) {
  JobsById by_id(jobs);
  std::vector<AttemptRow> out;
  for (auto& a : latest) {
    if (!has_job(a)) continue;
    const sched::JobInfo* j = by_id.find(a.job_id);
    const bool ended = j ? is_final(j->state) && !a.step_name.empty() : true;
    if (ended && !memory.marker_exit.count(a.id)) out.push_back(a);
  }
  return out;
}

PollRequest what_to_poll(const std::vector<AttemptRow>& latest, const Rules& rules, Memory& memory) {
  PollRequest r;
  std::set<std::string> asked;  // packed attempts share their allocation's job
  auto ask = [&](const std::string& id) {
    if (!r.ids.empty() && r.ids.back() == id) return;  // a packed allocation's cases come together
    if (asked.insert(id).second) r.ids.push_back(id);
  };
  for (auto& a : latest)
    if (has_job(a)) ask(a.job_id);
  r.confirm = !memory.unconfirmed.empty() &&
              (r.ids.empty() || ++memory.polls_since_confirm >= rules.confirm_every_polls);
  if (r.confirm) {
    memory.polls_since_confirm = 0;
    for (auto& [_, u] : memory.unconfirmed) ask(u.job_id);
  }
  return r;
}

PackedQuery packed_query(const std::vector<AttemptRow>& latest, const PollRequest& request,
                         const std::vector<sched::JobInfo>& jobs, const Memory& memory) {
  JobsById by_id(jobs);
  PackedQuery q;
  std::set<std::string> asked;
  for (auto& a : latest) {
    if (a.step_name.empty()) continue;
    const sched::JobInfo* job = by_id.find(a.job_id);
    bool active = has_job(a) && job && is_final(job->state);
    bool confirming = request.confirm && memory.unconfirmed.count(a.id);
    // A case waiting in a running allocation runs once the driver started it (its start marker).
    bool waiting = a.state == State::queued && job && job->state == State::running;
    // An allocation neither the queue nor the accounting knows: did the driver start the case?
    bool vanished = has_job(a) && !job && memory.missing.count(a.id);
    if (active || waiting || vanished) q.markers.push_back(&a);
    if ((active || confirming) && asked.insert(a.job_id).second) q.allocations.push_back(a.job_id);
  }
  return q;
}

void read_start_markers(const PackedQuery& packed, const std::vector<std::optional<std::string>>& texts,
                        const std::set<std::int64_t>& stepless, PollAnswer& answer) {
  for (size_t k = 0; k < packed.markers.size(); ++k) {
    const AttemptRow& a = *packed.markers[k];
    if (auto m = k < texts.size() && texts[k] ? pack::parse_start_marker(*texts[k]) : std::nullopt;
        m && m->allocation == a.job_name && m->launched)
      answer.started.insert(a.id);
    if (stepless.count(a.case_id)) answer.stepless.insert(a.id);
  }
}

namespace {

const sched::StepInfo* step_of(const AttemptRow& a, const std::vector<sched::StepInfo>& steps) {
  for (auto& s : steps)
    if (s.job_id == a.job_id && s.name == a.step_name) return &s;
  return nullptr;
}

// A step's record in the shape of a job's, for the rules shared with jobs.
sched::JobInfo as_job(const sched::StepInfo& s) {
  sched::JobInfo j;
  j.id = s.step_id;
  j.name = s.name;
  j.state = s.state;
  j.raw_state = s.raw_state;
  j.exit_code = s.exit_code;
  j.signal = s.signal;
  j.start = s.start;
  j.end = s.end;
  j.elapsed_s = s.elapsed_s;
  j.nodelist = s.nodelist;
  return j;
}

// A packed attempt's completion on its marker: its own step's record confirms or corrects it;
// its allocation ending in a failure afterwards does not.
void confirm_packed(Actions& out, Memory& memory, const AttemptRow& a, const sched::JobInfo* allocation,
                    const PollAnswer& answer, const Rules& rules) {
  const auto& u = memory.unconfirmed.at(a.id);
  const sched::StepInfo* step = step_of(a, answer.steps.steps);
  if (step && step->state == State::cancelled) {
    // Steps are cancelled when their allocation ends (srun may still exit 0 on a failed node): the
    // allocation's end says why, once it is known.
    if (!allocation || !is_final(allocation->state)) return;
    sched::JobInfo j = as_job(*step);
    if (allocation->state != State::completed) {
      j.state = allocation->state;
      j.raw_state =
          step->raw_state + " when its allocation " + a.job_id + " ended " + state_text(*allocation);
    }
    confirm(out, memory, a, &j, "");
  } else if (step && is_final(step->state)) {
    sched::JobInfo j = as_job(*step);
    confirm(out, memory, a, &j, "");
  } else if (!step && (!allocation || is_final(allocation->state))) {
    if (allocation && (!answer.steps.kept || answer.stepless.count(a.id))) {
      // No step of it will ever be recorded: its marker is all there is.
      confirm(out, memory, a, nullptr,
              answer.steps.kept ? "it launches no job step" : "the scheduler keeps no step records");
    } else if (allocation && answer.steps.ended.count(a.job_id)) {
      // The accounting holds the allocation's end and no step of it (decide.hpp): the allocation's end
      // is its only record, and a failure of it wins over the marker (srun exits 0 on a failed node).
      if (allocation->state == State::completed) {
        confirm(out, memory, a, nullptr, "the accounting has no record of its job step " + a.step_name);
      } else {
        sched::JobInfo j = *allocation;
        j.raw_state = "no step " + a.step_name + " of it, and its allocation " + a.job_id + " ended " +
                      state_text(*allocation);
        confirm(out, memory, a, &j, "");
      }
    } else {
      // The accounting may lag minutes behind: wait for its record by time, not by a count of polls.
      if (!u.unrecorded_since) memory.unconfirmed[a.id].unrecorded_since = answer.now;
      const auto wait = std::chrono::duration<double>(rules.accounting_wait_s);
      if (answer.now - *u.unrecorded_since < wait ||
          (answer.accounting_failing_since && answer.now - *answer.accounting_failing_since < wait))
        return;
      const std::string none = fmt::format("no accounting record of its job step {} after {:.0f} s",
                                           a.step_name, rules.accounting_wait_s);
      if (allocation && allocation->state == State::node_fail) {
        // Its allocation's node failed, and srun exits 0 when its node fails: the marker cannot tell a
        // step cut by the failure from one that ended before it. The scheduler's NODE_FAIL wins.
        sched::JobInfo j = *allocation;
        j.raw_state = none + ", and its allocation " + a.job_id + " ended " + state_text(*allocation) +
                      " (a step's launcher may exit 0 when its node fails)";
        confirm(out, memory, a, &j, "");
      } else {
        confirm(out, memory, a, nullptr, none);
      }
    }
  }
}

// A packed attempt whose allocation ended without a zero marker from it: charged only when its
// step ran (decide.hpp, on_poll).
void end_packed(Actions& out, Memory& memory, const AttemptRow& a, const sched::JobInfo& allocation,
                const PollAnswer& answer, const Rules& rules) {
  const sched::StepInfo* step = step_of(a, answer.steps.steps);
  auto marker = memory.marker_exit.find(a.id);
  // Its script failed by itself (a zero marker would have completed it already) in an allocation
  // that ended well: nothing else to blame.
  const bool own_failure = allocation.state == State::completed && marker != memory.marker_exit.end();
  // Only the accounting's steps can vouch for a case, and only for one that launches a step.
  const bool vouched = answer.steps.kept && !answer.stepless.count(a.id);
  const bool no_step = !step && vouched && answer.steps.ended.count(a.job_id);
  // Where the accounting will say whether its step ran, it is waited for before anything else: a
  // start marker that cannot be read now is no evidence that the driver never launched it.
  const auto wait = std::chrono::duration<double>(rules.accounting_wait_s);
  if (!step && vouched && !no_step && !own_failure &&
      (answer.now - memory.awaiting_steps.hold(a.id, answer.now) < wait ||
       (answer.accounting_failing_since && answer.now - *answer.accounting_failing_since < wait)))
    return;  // the accounting's record of the allocation's end, and with it of its steps, is on its way
  // Its script's exit marker says it was launched as surely as its start marker does (which may not
  // be readable now).
  const bool launched = answer.started.count(a.id) || marker != memory.marker_exit.end();
  std::string never;  // why it never ran, when it did not
  if (!step && !launched) {
    never = "its allocation " + a.job_id + " ended before it started";
  } else if (no_step && !own_failure) {
    never = "its allocation " + a.job_id + " ended " + state_text(allocation) +
            " before its step started (the accounting has no step of it)";
  }
  if (!never.empty()) {
    forget(memory, a.id);
    out.returns.push_back({a.id, never});
    return;
  }
  JobUpdate u = step ? update_from(as_job(*step)) : JobUpdate{};
  State s;
  if (step && is_final(step->state) && step->state != State::cancelled) {
    s = step->state;  // its own end, before or apart from the allocation's
  } else if (allocation.state != State::completed) {
    s = allocation.state;  // cut by its allocation's end (time limit, node failure, cancellation)
    u.reason = "its allocation " + a.job_id + " ended " + state_text(allocation) + " while it ran";
    if (!step && vouched)
      *u.reason += fmt::format(" (judged on its start marker: no accounting of its steps after {:.0f} s)",
                               rules.accounting_wait_s);
  } else {
    s = State::failed;
    if (marker == memory.marker_exit.end())
      u.reason = "its step ended without an exit marker";
    else if (no_step)
      u.reason = "its script exited " + std::to_string(marker->second) + " before its step started";
  }
  if (marker != memory.marker_exit.end()) {
    u.exit_code = marker->second;
    if (s == State::completed) s = State::failed;  // the script's own status wins
  }
  finish(out, memory, a, s, std::move(u));
}

}  // namespace

Actions on_poll(const std::vector<AttemptRow>& latest, const PollRequest& request, const PollAnswer& answer,
                const Rules& rules, Memory& memory) {
  Actions out;
  JobsById jobs(answer.jobs);
  // Completions on the marker: confirmed or corrected once the job has ended for the scheduler too.
  if (request.confirm)
    for (auto& a : latest) {
      auto u = memory.unconfirmed.find(a.id);
      if (u == memory.unconfirmed.end()) continue;
      const sched::JobInfo* found = jobs.find(u->second.job_id);
      if (!a.step_name.empty())
        confirm_packed(out, memory, a, found, answer, rules);
      else if (found && is_final(found->state) && found->state != State::lost)
        confirm(out, memory, a, found, "");
      else if (!found) {
        if (!u->second.unrecorded_since) memory.unconfirmed[a.id].unrecorded_since = answer.now;
        if (answer.now - *u->second.unrecorded_since >=
            std::chrono::duration<double>(rules.accounting_wait_s))
          confirm(out, memory, a, nullptr,
                  fmt::format("the scheduler has had no record of job {} for {:.0f} s", a.job_id,
                              rules.accounting_wait_s));
      }
    }
  std::set<std::string> cancelled;
  for (auto& a : latest) {
    if (!has_job(a)) continue;
    auto marker = memory.marker_exit.find(a.id);
    const sched::JobInfo* job = jobs.find(a.job_id);
    if (!job) {
      // A packed case's non-zero marker alone cannot say whether it ran (its srun may have been
      // refused by its dying allocation): it waits for its allocation's record like a job without one.
      const bool waited = answer.now - memory.missing.hold(a.id, answer.now) >=
                          std::chrono::duration<double>(rules.lost_after_s);
      if (marker != memory.marker_exit.end() && (a.step_name.empty() || waited)) {
        // the scheduler forgot the job; its marker did not
        JobUpdate u;
        u.exit_code = marker->second;
        u.reason = "exit status from the job's marker file";
        if (!a.step_name.empty())  // it was launched: its script wrote the marker
          *u.reason += fmt::format(
              " (judged on its start marker: neither the queue nor the accounting knew its allocation {} "
              "for {:.0f} s)",
              a.job_id, rules.lost_after_s);
        finish(out, memory, a, State::failed, std::move(u));
      } else if (marker == memory.marker_exit.end() && waited && !a.step_name.empty() &&
                 !answer.started.count(a.id)) {
        // A packed case its driver never started: its allocation vanished before it ran.
        out.returns.push_back({a.id, fmt::format("its allocation {} was known neither to the queue nor to "
                                                 "the accounting for {:.0f} s, and never started it",
                                                 a.job_id, rules.lost_after_s)});
        forget(memory, a.id);
      } else if (marker == memory.marker_exit.end() && waited) {
        // By time, not by a count of polls: the accounting may lag behind the queue's forgetting.
        JobUpdate u;
        u.reason = fmt::format("the scheduler has not known job {} for {:.0f} s and it left no exit marker",
                               a.job_id, rules.lost_after_s);
        finish(out, memory, a, State::lost, std::move(u));
      }
      continue;
    }
    memory.missing.erase(a.id);
    const sched::JobInfo& info = *job;
    if (is_final(info.state) && !a.step_name.empty()) {
      end_packed(out, memory, a, info, answer, rules);
      continue;
    }
    State seen = info.state;
    // Running only once the driver started it; until then a packed case waits in its allocation.
    if (!a.step_name.empty() && seen == State::running && a.state == State::queued &&
        !answer.started.count(a.id))
      seen = State::queued;
    // The same state and pending reason (most rows at most polls: the cases waiting in a running
    // allocation): nothing to mark, and no update made of the job's record for each of them.
    if (!is_final(info.state) && marker == memory.marker_exit.end() &&
        info.waiting != sched::Waiting::dependency_failed && seen == a.state && info.reason == a.reason)
      continue;
    JobUpdate u = update_from(info);
    if (!a.step_name.empty())
      u.exit_code.reset(), u.ended.reset(), u.elapsed_s.reset(), u.started.reset();  // the allocation's
    if (is_final(info.state)) {
      State s = info.state;
      if (marker != memory.marker_exit.end()) {
        u.exit_code = marker->second;
        if (s == State::completed) s = State::failed;  // the script's own status wins
      }
      finish(out, memory, a, s, std::move(u));
      continue;
    }
    if (marker != memory.marker_exit.end()) continue;  // ending (COMPLETING): the final state comes next poll
    if (info.waiting == sched::Waiting::dependency_failed) {
      if (cancelled.insert(a.job_id).second) out.cancel.push_back(a.job_id);
      JobUpdate c;
      c.reason = std::string(kDependencyReason) + "failed: " + info.reason;
      c.cause = Cause::dependency;
      finish(out, memory, a, State::cancelled, std::move(c));
      continue;
    }
    // A state the job moved to, or a new pending reason for the same state.
    if (seen == a.state && u.reason.value_or("") == a.reason) continue;
    Mark m{a.id, seen, std::move(u), "", "", false};
    if (seen == a.state && info.waiting == sched::Waiting::nodes_unavailable) {
      m.note = a.case_name + ": job " + a.job_id + " pending on " + info.reason +
               " (transient on real systems; not cancelled)";
      m.warn = true;
    }
    out.marks.push_back(std::move(m));
  }
  return out;
}

Actions on_unreachable(const std::vector<AttemptRow>& latest, double seconds, const Rules& rules,
                       Memory& memory) {
  Actions out;
  if (memory.unconfirmed.empty() || seconds < rules.confirm_timeout_s) return out;
  for (auto& a : latest)
    if (memory.unconfirmed.count(a.id))
      confirm(out, memory, a, nullptr, fmt::format("the scheduler could not be asked for {:.0f} s", seconds));
  return out;
}

Actions retries(const matrix::Plan& plan, const std::vector<std::int64_t>& case_ids,
                const std::vector<AttemptRow>& latest) {
  Actions out;
  // Every tick asks: the maps only once a case cancelled for its dependency is met.
  std::map<std::int64_t, const AttemptRow*> by_case;
  std::map<std::int64_t, size_t> plan_index;
  for (auto& a : latest) {
    if (!is_failure_end(a.state) || !a.in_spec || a.cause == Cause::user) continue;
    if (a.cause == Cause::dependency) {
      if (by_case.empty()) {
        for (auto& b : latest) by_case[b.case_id] = &b;
        for (size_t i = 0; i < case_ids.size(); ++i) plan_index[case_ids[i]] = i;
      }
      // Cancelled because a dependency failed: try again once every dependency can still succeed.
      auto pi = plan_index.find(a.case_id);
      if (pi == plan_index.end()) continue;
      bool viable = true;
      for (size_t d : plan.cases[pi->second].after) {
        auto dep = by_case.find(case_ids[d]);
        if (dep != by_case.end() && is_failure_end(dep->second->state)) viable = false;
      }
      if (viable) out.retries.push_back({a.case_id, "its dependency is being retried", ""});
      continue;
    }
    if (should_retry(a.state, a.number, plan.campaign.retry))
      out.retries.push_back(
          {a.case_id, "retry policy: " + std::string(to_string(a.state)),
           fmt::format("{}: attempt {} ended {}; retrying (attempt {} of {})", a.case_name, a.number,
                       to_string(a.state), a.number + 1, plan.campaign.retry.max_attempts)});
  }
  return out;
}

Actions resume_failed(const std::vector<AttemptRow>& latest) {
  Actions out;
  for (auto& a : latest)
    if (a.in_spec && is_failure_end(a.state))
      out.retries.push_back({a.case_id, "campaign resume --failed", ""});
  if (!out.retries.empty())
    out.notes.push_back(fmt::format("resume --failed: {} cases get a new attempt", out.retries.size()));
  return out;
}

Actions run_again(const std::vector<AttemptRow>& latest, const std::set<std::string>& keys) {
  Actions out;
  for (auto& a : latest)
    if (a.in_spec && settled(a) && keys.count(a.case_key))
      out.retries.push_back({a.case_id, "campaign resume --again", "", true});
  if (!out.retries.empty())
    out.notes.push_back(fmt::format("resume --again: {} cases get a new attempt", out.retries.size()));
  return out;
}

bool in_tail(const std::vector<AttemptRow>& latest, const Memory& memory) {
  return !memory.unconfirmed.empty() && std::none_of(latest.begin(), latest.end(), [](const AttemptRow& a) {
    return a.in_spec && (is_active(a.state) || a.state == State::submitting);
  });
}

}  // namespace campaign::engine
