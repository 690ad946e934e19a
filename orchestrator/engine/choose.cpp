// What goes to the scheduler next (decide.hpp): node classes round robin, the dependencies, the
// batch jobs the steps ask for, the user's queue limit and the campaign's node-hour budget. Pure.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/decide.hpp"
#include "engine/policy.hpp"
#include "engine/rules.hpp"

namespace campaign::engine {

// Slurm's main scheduling pass stops at the first job it cannot start; a queue holding every mc
// case before every gpu case leaves freed gpu nodes idle until the backfill pass. So: round robin
// over node classes (step, partition), the plan's order within each class.
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

namespace {

// The planned cases whose dependencies are met, in `order`; a case whose dependency failed is
// cancelled. A dependency chosen earlier in this choice is named by its index in the result.
void find_ready(const matrix::Plan& plan, const std::vector<size_t>& order,
                const std::vector<std::int64_t>& case_ids,
                const std::map<std::int64_t, const AttemptRow*>& by_case, SubmitChoice& out) {
  std::map<std::int64_t, size_t> chosen;  // case id -> index in out.ready
  for (size_t i : order) {
    auto it = by_case.find(case_ids[i]);
    if (it == by_case.end()) continue;
    const AttemptRow& row = *it->second;
    if (row.state != State::planned || !row.in_spec) continue;
    Submission s{i, row.id, {}, {}};
    bool ready = true;
    for (size_t d : plan.cases[i].after) {
      const AttemptRow& dep = *by_case.at(case_ids[d]);
      if (succeeded(dep)) continue;
      if (auto c = chosen.find(dep.case_id); c != chosen.end()) {
        s.after_ready.push_back(c->second);
        continue;
      }
      if (is_active(dep.state) && !dep.job_id.empty()) {
        s.after.push_back(dep.job_id);
        continue;
      }
      if (is_failure_end(dep.state)) {
        JobUpdate u;
        u.reason =
            std::string(kDependencyReason) + dep.case_name + " ended " + std::string(to_string(dep.state));
        u.cause = Cause::dependency;
        out.actions.marks.push_back({row.id, State::cancelled, std::move(u), "", "", false});
      }
      ready = false;
      break;
    }
    if (!ready) continue;
    chosen[row.case_id] = out.ready.size();
    out.ready.push_back(std::move(s));
  }
}

// The campaign's jobs the user's queue limit counts now: an allocation's cases are one job, an
// array's tasks one each (as Slurm counts them).
int ours_in_queue(const std::vector<AttemptRow>& latest) {
  std::set<std::string> allocations;
  int n = 0;
  for (auto& a : latest) {
    if (!is_active(a.state) && a.state != State::submitting) continue;
    if (a.step_name.empty() || allocations.insert(a.job_name).second) ++n;
  }
  return n;
}

}  // namespace

SubmitChoice choose_submissions(const matrix::Plan& plan, const std::vector<size_t>& order,
                                const std::vector<std::int64_t>& case_ids,
                                const std::vector<AttemptRow>& latest, const SubmitLimits& limits) {
  SubmitChoice out;
  std::map<std::int64_t, const AttemptRow*> by_case;
  for (auto& a : latest) by_case[a.case_id] = &a;
  find_ready(plan, order, case_ids, by_case, out);

  // A retry after timeouts asks for more time (engine/policy.hpp), never past the partition's limit.
  std::map<size_t, long> walltime;
  for (auto& s : out.ready) {
    const matrix::Case& c = plan.cases[s.plan_index];
    auto t = limits.timeouts.find(case_ids[s.plan_index]);
    const auto& part = plan.partition_of(c);
    long limit = part.max_walltime_s ? part.max_walltime_s : plan.system.limits.max_walltime_s;
    walltime[s.plan_index] = t == limits.timeouts.end()
                                 ? c.walltime_s
                                 : next_walltime(c.walltime_s, t->second, plan.campaign.retry, limit);
  }
  auto walltime_of = [&](size_t i) { return walltime.at(i); };

  // Batches in the order of their first case: a step that shares batch jobs (pack, arrays) forms
  // them, of all its ready cases, where its first ready case comes.
  std::map<size_t, size_t> member_of;  // plan index -> index in out.ready
  for (size_t k = 0; k < out.ready.size(); ++k) member_of[out.ready[k].plan_index] = k;
  std::vector<batch::Shape> shapes;
  std::set<size_t> grouped_steps;
  for (auto& s : out.ready) {
    const matrix::Case& c = plan.cases[s.plan_index];
    const auto& step = plan.step_of(c);
    if (!step.pack && !(step.array && limits.arrays)) {
      auto one = batch::group(plan, {s.plan_index}, walltime_of, limits.arrays);
      shapes.insert(shapes.end(), one.begin(), one.end());
      continue;
    }
    if (!grouped_steps.insert(c.step).second) continue;
    std::vector<size_t> cases;
    for (auto& r : out.ready)
      if (plan.cases[r.plan_index].step == c.step) cases.push_back(r.plan_index);
    auto group = batch::group(plan, cases, walltime_of, limits.arrays);
    shapes.insert(shapes.end(), group.begin(), group.end());
  }

  const auto& sys = plan.system.limits;
  const auto& budget = plan.campaign.budget_node_hours;
  const int ours = ours_in_queue(latest);
  int queued = limits.others_in_queue + ours;
  double committed = limits.committed_node_hours.value_or(0);
  std::map<size_t, size_t> batch_of;  // index in out.ready -> index in out.batches
  for (batch::Shape& shape : shapes) {
    Batch b;
    // Its members' dependencies: running jobs, or batches of this choice (which must come first).
    bool waits = false;
    for (size_t i : shape.ids) {
      const Submission& s = out.ready[member_of.at(i)];
      b.after.insert(b.after.end(), s.after.begin(), s.after.end());
      for (size_t d : s.after_ready) {
        auto it = batch_of.find(d);
        if (it == batch_of.end())
          waits = true;  // its dependency did not get in: next time
        else if (std::find(b.after_batches.begin(), b.after_batches.end(), it->second) ==
                 b.after_batches.end())
          b.after_batches.push_back(it->second);
      }
    }
    if (waits) break;
    if (limits.queue) {
      const long room = static_cast<long>(sys.max_queued_jobs) - queued;
      if (shape.queue_slots() > room) {
        out.queue_full = true;
        const long chunk = std::max(1L, static_cast<long>(sys.max_queued_jobs) / 10);
        // Part of an array fits; while our own jobs will free places, wait for a tenth of the limit.
        if (shape.kind != batch::Kind::array || room < 1 || (ours > 0 && room < chunk)) break;
        shape = batch::first_tasks(shape, static_cast<size_t>(room));
      }
      if (budget) {
        double need = batch::node_hours(plan, shape);
        if (committed + need > *budget) {
          out.budget_note = fmt::format(
              "budget: {:.1f} node-hours used or in flight, {} would need {:.1f} more of {:.1f}; not "
              "submitting",
              committed, plan.cases[shape.ids.front()].name, need, *budget);
          break;
        }
        committed += need;
      }
    }
    std::sort(b.after.begin(), b.after.end());
    b.after.erase(std::unique(b.after.begin(), b.after.end()), b.after.end());
    for (size_t i : shape.ids) {
      b.members.push_back(member_of.at(i));
      batch_of[member_of.at(i)] = out.batches.size();
    }
    b.node_hours = batch::node_hours(plan, shape);
    queued += static_cast<int>(shape.queue_slots());
    b.shape = std::move(shape);
    out.batches.push_back(std::move(b));
    if (out.queue_full) break;  // a cut array: the rest waits
  }
  return out;
}

}  // namespace campaign::engine
