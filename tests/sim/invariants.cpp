#include "invariants.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "engine/rules.hpp"

namespace sim {

using campaign::State;

namespace {

const campaign::Time kEpoch = VirtualClock{}.wall();  // virtual time 0

struct Seen {  // where an attempt's command ran
  const Job* job;
  const Run* run;
};

// A second job of one submission (sbatch answered twice) that the engine cancelled as soon as it
// learnt of it: what ran of it before cannot be helped (both may start before any poll can see
// them), what matters is that it was not left to run unowned.
// A second job of a submission answered twice that the engine cancelled, or that started while
// slurmctld could not be asked (nothing could have stopped it) and that the engine reported.
bool caught_twice(const Job& j, const Verdict& v) {
  if (j.origin != "twice") return false;
  if (j.scancelled) return true;
  bool unreachable = false;
  for (auto& [from, to] : v.outages) unreachable |= j.start >= from && j.start < to;
  return unreachable && v.reported_duplicates.count(j.id);
}

// "/late" or "/twice" when a job of the set came from a submission whose answer was lost.
std::string origin_tag(const std::vector<const Job*>& jobs) {
  for (auto* j : jobs)
    if (j->origin != "sbatch") return "/" + j->origin;
  return "";
}

}  // namespace

std::vector<Violation> check(const Verdict& v) {
  std::vector<Violation> out;
  std::map<std::int64_t, std::vector<Seen>> ran;   // attempt -> its command's runs
  std::map<std::int64_t, std::vector<Seen>> runs;  // attempt -> every run record (ran or not)
  for (auto& j : v.jobs)
    for (auto& r : j.runs) {
      runs[r.who.attempt].push_back({&j, &r});
      if (r.start >= 0) ran[r.who.attempt].push_back({&j, &r});
    }
  std::set<std::string> owned;
  for (auto& attempts : v.attempts)
    for (auto& a : attempts)
      if (!a.job_id.empty()) owned.insert(a.job_id);

  for (auto& attempts : v.attempts)
    for (auto& a : attempts) {
      const std::string who = fmt::format("{} attempt {} (id {}, job {})", a.case_name, a.number, a.id,
                                          a.job_id.empty() ? "-" : a.job_id);
      auto& mine = ran[a.id];
      size_t uncaught = 0;
      for (auto& s : mine) uncaught += s.job->id == a.job_id || !caught_twice(*s.job, v) ? 1 : 0;
      if (mine.size() > 1 && uncaught > 1) {
        std::vector<const Job*> jobs;
        std::string where;
        for (auto& s : mine) {
          jobs.push_back(s.job);
          where += fmt::format(" job {} ({}) at t={:.1f};", s.job->id, s.job->origin, s.run->start);
        }
        std::string tag = origin_tag(jobs);
        if (tag.empty() && !a.step_name.empty())
          tag = "/returned";  // a packed case planned again though it ran
        out.push_back({"duplicate_run" + tag,
                       who + ": its command ran " + std::to_string(mine.size()) + " times:" + where});
      }
      // The run in the job the attempt owns (an array task's id is its own).
      const Run* own = nullptr;
      for (auto& s : runs[a.id])
        if (s.job->id == a.job_id) own = s.run;
      const Job* own_job = nullptr;
      for (auto& j : v.jobs)
        if (j.id == a.job_id) own_job = &j;
      const bool packed = !a.step_name.empty();
      const bool marker_only = a.reason.find("accounting unavailable") != std::string::npos;
      const bool outage = a.reason.find("could not be asked") != std::string::npos;
      // slurmdbd lagging longer than the engine's accounting_wait_s: judging on the marker is its choice.
      const bool excused = marker_only && !outage && own_job && own_job->lag > v.accounting_wait_s;
      if (a.state == State::completed && a.confirmed && !excused &&
          (!own || own->start < 0 || own->end < 0 || own->state != State::completed))
        out.push_back({std::string("completed_unsupported") + (packed ? "/packed" : "") +
                           (marker_only ? "/marker_only" : "") + (outage ? "/outage" : ""),
                       who + ": confirmed completed (" + a.reason + ") but the model says " +
                           (!own || own->start < 0 ? "it never ran there"
                            : own->end < 0         ? "it still runs"
                                                   : own->raw)});
      const bool charged = a.state == State::failed || a.state == State::timeout ||
                           a.state == State::node_fail || a.state == State::preempted ||
                           a.state == State::oom || a.state == State::lost;
      // An ended allocation whose steps the accounting did not record within accounting_wait_s: its cases
      // are judged on their start markers (a case launched as it died, its srun refused, is charged).
      const bool on_start_marker = a.reason.find("judged on its start marker") != std::string::npos;
      const bool excused_charge = on_start_marker && own_job && own_job->lag > v.accounting_wait_s;
      if (charged && mine.empty() && !excused_charge)
        out.push_back({"charged_never_ran", who + ": ended " + std::string(campaign::to_string(a.state)) +
                                                " (" + a.reason + ") but its command never ran"});
      // A packed completion on marker 0 whose step record had not come after accounting_wait_s, in an
      // allocation that ended NODE_FAIL, takes NODE_FAIL (srun exits 0 when its node fails): the
      // documented choice when slurmdbd lags longer than that.
      const bool no_step_record = a.reason.find("no accounting record of its job step") != std::string::npos;
      const bool excused_failure = no_step_record && own_job && own_job->lag > v.accounting_wait_s;
      if (charged && a.state != State::lost && own && own->end >= 0 && own->state == State::completed &&
          !excused_failure)
        out.push_back({"failure_unsupported", who + ": ended " + std::string(campaign::to_string(a.state)) +
                                                  " (" + a.reason +
                                                  ") but the model says its run completed"});
      // Adopted by name a job submitted before this submission began (a returned packed case submitted
      // again keeps its allocation's name). The catalog stamps whole seconds, rounded down.
      if (a.submitted && !a.job_id.empty())
        for (auto& j : v.jobs)
          if (j.id == a.job_id && j.submit < static_cast<double>((*a.submitted - kEpoch).count()))
            out.push_back({"adopted_stale_job", who + ": owns job " + j.id + " (" + j.name + ", " + j.raw +
                                                    "), submitted before this submission began"});
      // Neither slurmctld (past MinJobAge) nor slurmdbd (its lag) knew the job for `unknown` seconds; a
      // job unknown for longer than the engine's accounting_wait_s may be given up as lost.
      if (a.state == State::lost && !a.job_id.empty())
        for (auto& j : v.jobs) {
          const double unknown = j.submit + j.lag - (j.end + v.min_job_age);
          if (j.id == a.job_id && unknown <= v.accounting_wait_s)
            out.push_back(
                {"lost_known_job", fmt::format("{}: lost ({}) but slurmdbd knew job {} ({}) {:.0f} s after "
                                               "slurmctld forgot it",
                                               who, a.reason, a.job_id, j.raw, std::max(0.0, unknown))});
        }
    }

  std::set<std::string> active(v.active_at_end.begin(), v.active_at_end.end());
  for (auto& j : v.jobs) {
    if (owned.count(j.id) || caught_twice(j, v)) continue;
    bool ran_any = false;
    for (auto& r : j.runs) ran_any |= r.start >= 0;
    if (ran_any || active.count(j.id))
      out.push_back(
          {"orphan_job" + origin_tag({&j}),
           fmt::format("job {} ({}, {}) {} and no attempt in the catalog owns it", j.id, j.name, j.origin,
                       active.count(j.id) ? "was still queued or running when `run` ended" : "ran")});
  }

  for (auto& c : v.cancels)
    for (auto id : c.case_ids)
      for (auto& j : v.jobs)
        for (auto& r : j.runs)
          if (r.who.case_id == id && r.start > c.at)
            out.push_back(
                {"cancel_ignored", fmt::format("{} (attempt id {}): its command started at t={:.1f} in job "
                                               "{}, after `cancel` at t={:.1f}",
                                               r.who.case_name, r.who.attempt, r.start, j.id, c.at)});

  if (!v.finished)
    for (auto& attempts : v.attempts)
      if (!attempts.empty() && attempts.back().in_spec && !campaign::engine::settled(attempts.back()))
        out.push_back(
            {"unsettled", fmt::format("{}: {} when the virtual time ran out", attempts.back().case_name,
                                      campaign::to_string(attempts.back().state))});
  return out;
}

}  // namespace sim
