#include "model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "pack/driver.hpp"

namespace sim {

using campaign::State;
namespace sched = campaign::sched;

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

campaign::Time wall(double s) {
  return campaign::Time(std::chrono::seconds(1'800'000'000 + static_cast<long>(s)));
}

std::string raw_of(State s) {
  switch (s) {
    case State::completed:
      return "COMPLETED";
    case State::failed:
      return "FAILED";
    case State::timeout:
      return "TIMEOUT";
    case State::node_fail:
      return "NODE_FAIL";
    case State::preempted:
      return "PREEMPTED";
    case State::cancelled:
      return "CANCELLED by 1000";
    default:
      return "RUNNING";
  }
}

}  // namespace

void SlurmModel::call(const char* what) {
  calls_.point(what);
  for (auto& [from, to] : faults_.outages)
    if (clock_.t >= from && clock_.t < to)
      throw sched::SchedulerUnavailable(std::string("sim: slurmctld unreachable (") + what + ")");
  if (rng_.chance(faults_.flaky))
    throw sched::SchedulerUnavailable(std::string("sim: connection lost (") + what + ")");
}

Job* SlurmModel::find(const std::string& id) {
  for (auto& j : jobs_)
    if (j.id == id) return &j;
  return nullptr;
}

void SlurmModel::land(const sched::SubmitRequest& r, const std::vector<Member>& members,
                      const std::string& origin, std::string* id_out) {
  auto draw = [&](Job& j) {
    j.queue_delay = rng_.uniform(0, 30);
    j.lag = rng_.chance(0.5) ? rng_.uniform(0.3 * faults_.lag_max, faults_.lag_max) : rng_.uniform(0, 2);
    if (rng_.chance(faults_.node_fail))
      j.cut_state = State::node_fail;
    else if (rng_.chance(faults_.timeout))
      j.cut_state = State::timeout;
    else if (rng_.chance(faults_.preempt))
      j.cut_state = State::preempted;
    else
      return;
    j.cut = rng_.uniform(1, 60);
    j.srun_exits_0 = rng_.chance(faults_.srun_exits_0);
  };
  auto run_of = [&](const Member& m) {
    Run run;
    run.who = m;
    run.duration = rng_.uniform(5, 60);
    run.fails = rng_.chance(faults_.fail);
    return run;
  };
  Job base;
  base.name = r.job_name;
  base.origin = origin;
  base.deps = r.depends_on;
  base.submit = clock_.t;
  const std::string id = std::to_string(next_id_++);
  if (id_out) *id_out = id;
  if (r.array_tasks > 0) {
    for (long i = 0; i < r.array_tasks; ++i) {
      Job j = base;
      j.id = id + "_" + std::to_string(i);
      j.task = i;
      j.parent = id;
      for (auto& m : members)
        if (m.task == i) j.runs.push_back(run_of(m));
      draw(j);
      if (shape) shape(j);
      jobs_.push_back(std::move(j));
    }
  } else {
    Job j = base;
    j.id = id;
    j.packed = !members.empty() && !members.front().step_name.empty();
    for (auto& m : members) {
      j.runs.push_back(run_of(m));
      if (j.packed) {
        j.runs.back().offset = rng_.uniform(0, 20);
        j.runs.back().refused = rng_.chance(faults_.refused_in_dying);
      }
    }
    draw(j);
    if (shape) shape(j);
    jobs_.push_back(std::move(j));
  }
  trace_(clock_.t,
         fmt::format("sbatch lands: job {} {} ({}, {} cases{}{})", id, r.job_name, origin, members.size(),
                     r.array_tasks ? ", array" : "", r.depends_on.empty() ? "" : ", afterok"));
}

void SlurmModel::record(const std::string& prefix, sched::SubmitRecord::Outcome o, const std::string& id) {
  if (prefix.empty()) return;
  records_[prefix] = {o, id,
                      o == sched::SubmitRecord::Outcome::unclear ? "sim: slurmctld did not answer" : ""};
}

std::vector<sched::SubmitRecord> SlurmModel::submission_records(const std::vector<std::string>& prefixes) {
  calls_.point("records");
  if (rng_.chance(faults_.flaky)) throw sched::SchedulerUnavailable("sim: connection lost (records)");
  std::vector<sched::SubmitRecord> out;
  for (auto& p : prefixes) {
    auto it = records_.find(p);
    out.push_back(it == records_.end() ? sched::SubmitRecord{} : it->second);
  }
  return out;
}

std::string SlurmModel::submit(const sched::SubmitRequest& r) {
  using Outcome = sched::SubmitRecord::Outcome;
  const std::vector<Member> members = members_of(r.job_name);
  try {
    calls_.point("sbatch");
  } catch (const KillNine&) {
    // `campaign run` died while its sbatch was on its way: the command may still reach slurmctld.
    if (rng_.chance(faults_.land_late)) {
      double at = clock_.t + rng_.uniform(0, 30);
      pending_.push_back({at, r, members});
      record(r.record, Outcome::started);
      trace_(fmt::format("the killed run's sbatch {} lands at t={:.1f}", r.job_name, at));
    }
    throw;
  }
  bool down = false;
  for (auto& [from, to] : faults_.outages) down |= clock_.t >= from && clock_.t < to;
  if (down) {
    record(r.record, Outcome::unclear);
    throw sched::SubmitError(sched::SubmitFailure::transient, "sim: slurmctld unreachable");
  }
  if (rng_.chance(faults_.flaky)) {
    // The connection dropped; the remote sbatch may have gone on without us.
    if (rng_.chance(faults_.land_twice)) {
      std::string first;
      land(r, members, "twice", &first);
      land(r, members, "twice", nullptr);
      record(r.record, Outcome::submitted, first);  // it printed one of them
    } else if (rng_.chance(faults_.land_late)) {
      double at = clock_.t + rng_.uniform(0, 90);
      pending_.push_back({at, r, members});
      record(r.record, Outcome::started);
      trace_(fmt::format("sbatch {} lost its connection; it lands at t={:.1f}", r.job_name, at));
    }
    throw sched::SubmitError(sched::SubmitFailure::transient, "sim: sbatch lost its connection");
  }
  std::string id;
  land(r, members, "sbatch", &id);
  record(r.record, Outcome::submitted, id);
  calls_.point("sbatch answered");  // killed between the scheduler's answer and the catalog's commit
  return id;
}

void SlurmModel::advance(double t) {
  for (size_t k = 0; k < pending_.size();) {
    if (pending_[k].at > t) {
      ++k;
      continue;
    }
    Pending p = std::move(pending_[k]);
    pending_.erase(pending_.begin() + static_cast<long>(k));
    const double now = clock_.t;
    clock_.t = p.at;
    std::string id;
    land(p.request, p.members, "late", &id);
    record(p.request.record, sched::SubmitRecord::Outcome::submitted, id);
    clock_.t = now;
  }
  for (size_t k = 0; k < jobs_.size(); ++k) progress(jobs_[k], t);
}

void SlurmModel::end_run(Job& j, Run& r, double at, State s, const std::string& raw,
                         std::optional<int> marker) {
  r.end = at;
  r.state = s;
  r.raw = raw;
  r.exit = marker;
  if (marker) ws_.write(r.who.run_dir, campaign::render::kExitMarker, std::to_string(*marker));
  trace_(at, fmt::format("job {}: {} ends {}{}", j.id, r.who.case_name, raw,
                         marker ? fmt::format(", exit marker {}", *marker) : ", no exit marker"));
}

void SlurmModel::end_job(Job& j, double at, State s, const std::string& raw) {
  j.end = at;
  j.state = s;
  j.raw = raw;
  trace_(at, fmt::format("job {} ({}) ends {}", j.id, j.name, raw));
}

void SlurmModel::cut_job(Job& j, double at, State s, const std::string& raw) {
  const bool srun0 = s == State::node_fail && j.srun_exits_0;
  for (auto& r : j.runs) {
    if (r.start >= 0 && r.end < 0) {
      // Running at the cut: a packed case's step is cancelled with its allocation.
      end_run(j, r, at, j.packed ? State::cancelled : s, j.packed ? "CANCELLED" : raw,
              srun0 ? std::optional<int>(0) : std::nullopt);
    } else if (r.start < 0 && r.end < 0 && j.packed && r.refused) {
      // The driver launched it as cut steps freed their nodes; srun failed at once: no step, no run.
      campaign::pack::StartMarker m;
      m.allocation = j.name;
      m.job_name = r.who.step_name;
      m.time = static_cast<double>(wall(at).time_since_epoch().count());
      ws_.write(r.who.run_dir, campaign::pack::kStartMarker, campaign::pack::to_json(m));
      end_run(j, r, at, State::failed, "srun refused in a dying allocation", 1);
    }
  }
  end_job(j, at, s, raw);
}

void SlurmModel::progress(Job& j, double t) {
  if (!j.active()) return;
  if (j.start < 0) {
    double ready = j.submit + j.queue_delay;
    for (auto& dep : j.deps)
      for (auto& d : jobs_) {
        if (d.id != dep && d.parent != dep) continue;
        if (d.active() || d.end > t)
          ready = kNever;
        else if (d.state != State::completed)
          j.dependency_never = true;
        else
          ready = std::max(ready, d.end);
      }
    // --dependency=singleton (Slurm::sbatch_argv): not while another job of its name runs; the tasks
    // of one array are not held by each other.
    for (auto& d : jobs_) {
      if (&d == &j || d.name != j.name || d.start < 0 || (!j.parent.empty() && d.parent == j.parent))
        continue;
      ready = d.active() ? kNever : std::max(ready, d.end);
    }
    if (j.dependency_never || ready > t) return;
    j.start = ready;
    j.state = State::running;
    j.raw = "RUNNING";
    trace_(j.start, fmt::format("job {} ({}) starts", j.id, j.name));
  }
  const double cut_t = j.cut >= 0 ? j.start + j.cut : kNever;
  const double horizon = std::min(t, cut_t);
  double natural = j.start;
  for (auto& r : j.runs) {
    const double launch = j.start + r.offset;
    if (r.start < 0 && r.end < 0 && launch <= horizon && launch < cut_t) {
      r.step = j.packed;
      if (j.packed) {
        campaign::pack::StartMarker m;
        m.allocation = j.name;
        m.job_name = r.who.step_name;
        m.time = static_cast<double>(wall(launch).time_since_epoch().count());
        ws_.write(r.who.run_dir, campaign::pack::kStartMarker, campaign::pack::to_json(m));
      }
      // The script's first act: its attempt's claim (render::claim_file). Another job's claim there:
      // it leaves at once, exit 75, no exit marker.
      const std::string claim = ws_.claim(r.who.run_dir, r.who.number, j.id);
      if (claim != j.id) {
        r.left = true;
        r.end = launch;
        r.state = State::failed;
        r.raw = "FAILED";
        trace_(launch,
               fmt::format("job {}: {} (attempt id {}) finds its run directory claimed by job {}: exits 75",
                           j.id, r.who.case_name, r.who.attempt, claim));
      } else {
        r.start = launch;
        trace_(launch, fmt::format("job {}: {} (attempt id {}) runs its command", j.id, r.who.case_name,
                                   r.who.attempt));
      }
    }
    if (r.start >= 0 && r.end < 0 && r.start + r.duration <= horizon && r.start + r.duration < cut_t)
      end_run(j, r, r.start + r.duration, r.fails ? State::failed : State::completed,
              r.fails ? "FAILED" : "COMPLETED", r.fails ? 1 : 0);
    natural = std::max(natural, r.end >= 0 ? r.end : std::max(r.start, launch) + r.duration);
  }
  if (j.packed) natural += 1;  // the driver exits after its last case
  if (natural < cut_t && natural <= t) {
    const bool failed = !j.packed && !j.runs.empty() && (j.runs.front().fails || j.runs.front().left);
    end_job(j, natural, failed ? State::failed : State::completed, failed ? "FAILED" : "COMPLETED");
  } else if (cut_t <= t) {
    cut_job(j, cut_t, j.cut_state, raw_of(j.cut_state));
  }
}

double SlurmModel::next_event(double t) const {
  double next = kNever;
  auto at = [&](double when) {
    if (when > t) next = std::min(next, when);
  };
  for (auto& p : pending_) at(p.at);
  for (auto& j : jobs_) {
    if (!j.active()) {
      at(j.end + faults_.min_job_age);  // slurmctld forgets it
      at(j.end + j.lag);                // the accounting learns its end
      continue;
    }
    if (j.start < 0) {
      at(j.submit + j.queue_delay);
      at(j.submit + j.lag);
      continue;  // waiting for dependencies: their ends are events of their own
    }
    if (j.cut >= 0) at(j.start + j.cut);
    for (auto& r : j.runs) {
      at(j.start + r.offset);
      if (r.start >= 0 && r.end < 0) at(r.start + r.duration);
      if (r.start >= 0) at(r.start + j.lag);
    }
  }
  return next;
}

bool SlurmModel::ctld_knows(const Job& j) const {
  return j.active() || clock_.t <= j.end + faults_.min_job_age;
}

sched::JobInfo SlurmModel::info_at(const Job& j, double at) const {
  sched::JobInfo i;
  i.id = j.id;
  i.name = j.name;
  i.array_task = j.task;
  i.submit = wall(j.submit);
  i.nodes = 1;
  if (j.end >= 0 && at >= j.end) {
    i.state = j.state;
    i.raw_state = j.raw;
    if (j.start >= 0) i.start = wall(j.start), i.nodelist = "cn1";
    i.end = wall(j.end);
    i.elapsed_s = j.start >= 0 ? j.end - j.start : 0;
    const bool left = !j.packed && !j.runs.empty() && j.runs.front().left;
    i.exit_code = j.state == State::failed ? (left ? 75 : 1) : 0;
  } else if (j.start >= 0 && at >= j.start) {
    i.state = State::running;
    i.raw_state = "RUNNING";
    i.start = wall(j.start);
    i.nodelist = "cn1";
  } else {
    i.state = State::queued;
    i.raw_state = "PENDING";
    const bool ctld_now = at >= clock_.t;  // only slurmctld says why a job waits
    if (ctld_now && j.dependency_never) {
      i.reason = "DependencyNeverSatisfied";
      i.waiting = sched::Waiting::dependency_failed;
    } else if (ctld_now) {
      i.reason = j.deps.empty() ? "Priority" : "Dependency";
    }
  }
  return i;
}

std::vector<sched::JobInfo> SlurmModel::query(const std::vector<std::string>& ids) {
  call("squeue/sacct");
  std::vector<sched::JobInfo> out;
  for (auto& id : ids) {
    const Job* j = find(id);
    if (!j) continue;
    const bool acct = clock_.t - j->lag >= j->submit;
    if (ctld_knows(*j) && j->active())
      out.push_back(info_at(*j, clock_.t));  // squeue
    else if (acct)
      out.push_back(info_at(*j, clock_.t - j->lag));  // sacct, as far as slurmdbd got
    else if (ctld_knows(*j))
      out.push_back(info_at(*j, clock_.t));  // scontrol, until MinJobAge
  }
  return out;
}

std::vector<sched::JobInfo> SlurmModel::find_by_name(const std::vector<std::string>& names) {
  call("squeue -t all/sacct --name");
  std::vector<sched::JobInfo> out;
  for (auto& j : jobs_) {
    if (std::find(names.begin(), names.end(), j.name) == names.end()) continue;
    const bool acct = clock_.t - j.lag >= j.submit;
    if (ctld_knows(j) && (j.active() || !acct))
      out.push_back(info_at(j, clock_.t));
    else if (acct)
      out.push_back(info_at(j, clock_.t - j.lag));
  }
  if (getenv("SIM_CALLS"))
    for (auto& i : out)
      trace_(clock_.t, fmt::format("  found {} {} task {}", i.id, i.name, i.array_task ? *i.array_task : -1));
  return out;
}

int SlurmModel::queued_jobs_of_user() {
  call("squeue");
  return static_cast<int>(std::count_if(jobs_.begin(), jobs_.end(), [](const Job& j) { return j.active(); }));
}

void SlurmModel::cancel(const std::vector<std::string>& ids) {
  call("scancel");
  for (auto& id : ids) {
    if (auto dot = id.find('.'); dot != std::string::npos) {
      Job* j = find(id.substr(0, dot));
      size_t k = std::stoul(id.substr(dot + 1));
      if (!j || !j->active() || k >= j->runs.size()) continue;
      Run& r = j->runs[k];
      if (r.start >= 0 && r.end < 0) end_run(*j, r, clock_.t, State::cancelled, "CANCELLED by 1000", 143);
      continue;
    }
    for (auto& j : jobs_) {
      if ((j.id != id && j.parent != id) || !j.active()) continue;
      trace_(fmt::format("scancel {}", j.id));
      j.scancelled = true;
      if (j.start < 0)
        end_job(j, clock_.t, State::cancelled, "CANCELLED by 1000");
      else
        cut_job(j, clock_.t, State::cancelled, "CANCELLED by 1000");
    }
  }
}

sched::StepRecords SlurmModel::query_steps(const std::vector<std::string>& ids) {
  call("sacct steps");
  sched::StepRecords out;
  out.kept = true;
  for (auto& id : ids) {
    const Job* j = find(id);
    if (!j || !j->packed) continue;
    const double tv = clock_.t - j->lag;
    for (size_t k = 0; k < j->runs.size(); ++k) {
      const Run& r = j->runs[k];
      const double began = r.left ? r.end : r.start;  // a step whose script left at once ran too
      if (!r.step || began < 0 || began > tv) continue;
      sched::StepInfo s;
      s.job_id = j->id;
      s.step_id = j->id + "." + std::to_string(k);
      s.name = r.who.step_name;
      s.start = wall(began);
      s.nodelist = "cn1";
      if (r.end >= 0 && r.end <= tv) {
        s.state = r.state;
        s.raw_state = r.raw;
        s.end = wall(r.end);
        s.elapsed_s = r.end - began;
        // As sacct prints them (steps/sacct-steps-ended.txt): a step its allocation's cancel or time
        // limit ended has no exit code, signal 15 (0:15).
        if (r.state == State::cancelled || r.state == State::timeout)
          s.signal = 15;
        else
          s.exit_code = r.state == State::completed ? 0 : r.left ? 75 : 1;
      } else {
        s.raw_state = "RUNNING";
      }
      out.steps.push_back(std::move(s));
    }
    if (j->end >= 0 && j->end <= tv) out.ended.insert(j->id);
    if (getenv("SIM_CALLS"))
      trace_(clock_.t, fmt::format("  steps of {}: lag {:.1f}, end {:.1f}", id, j->lag, j->end));
  }
  return out;
}

std::optional<std::vector<sched::StepInfo>> SlurmModel::running_steps(const std::vector<std::string>& ids) {
  call("squeue -s");
  std::vector<sched::StepInfo> out;
  for (auto& id : ids) {
    const Job* j = find(id);
    if (!j || !j->packed || !j->active()) continue;
    for (size_t k = 0; k < j->runs.size(); ++k)
      if (j->runs[k].start >= 0 && j->runs[k].end < 0) {
        sched::StepInfo s;
        s.job_id = j->id;
        s.step_id = j->id + "." + std::to_string(k);
        s.name = j->runs[k].who.step_name;
        out.push_back(std::move(s));
      }
  }
  return out;
}

}  // namespace sim
