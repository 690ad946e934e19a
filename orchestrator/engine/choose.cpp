// Which ready case is offered to the scheduler next (decide.hpp): node classes round robin, the
// user's queue limit, the campaign's node-hour budget, dependencies. Pure.
#include <fmt/format.h>

#include <map>
#include <set>

#include "engine/decide.hpp"
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

SubmitChoice choose_submissions(const matrix::Plan& plan, const std::vector<size_t>& order,
                                const std::vector<std::int64_t>& case_ids,
                                const std::vector<AttemptRow>& latest, int others_in_queue,
                                std::optional<double> committed_node_hours) {
  SubmitChoice out;
  // What the user's queue limit counts is jobs: the cases of one allocation are one job (an
  // array's tasks count one each, as Slurm counts them).
  std::map<std::int64_t, const AttemptRow*> by_case;
  std::set<std::string> allocations;
  int ours_active = 0;
  for (auto& a : latest) {
    by_case[a.case_id] = &a;
    if (!is_active(a.state) && a.state != State::submitting) continue;
    if (a.step_name.empty() || allocations.insert(a.job_name).second) ++ours_active;
  }
  int new_jobs = 0;
  std::set<size_t> packed_steps;  // steps whose ready cases already count as one new allocation
  const auto& limits = plan.system.limits;
  const auto& budget = plan.campaign.budget_node_hours;
  double committed = committed_node_hours.value_or(0);
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
        out.actions.marks.push_back({row.id, State::cancelled, std::move(u), "", "", false});
      }
      ready = false;
      break;
    }
    if (!ready) continue;
    const auto& c = plan.cases[i];
    const bool packed = plan.step_of(c).pack.has_value();
    const int cost = packed && packed_steps.count(c.step) ? 0 : 1;
    if (cost && others_in_queue + ours_active + new_jobs + cost > limits.max_queued_jobs) {
      out.queue_full = true;
      out.ours_in_queue = ours_active;
      break;
    }
    if (budget) {
      double need = plan.node_hours_of(c);
      if (committed + need > *budget) {
        out.budget_note = fmt::format(
            "budget: {:.1f} node-hours used or in flight, {} would need {:.1f} more of {:.1f}; not "
            "submitting",
            committed, c.name, need, *budget);
        break;
      }
      committed += need;
    }
    new_jobs += cost;
    if (packed) packed_steps.insert(c.step);
    chosen[row.case_id] = out.ready.size();
    out.ready.push_back(std::move(s));
  }
  return out;
}

}  // namespace campaign::engine
