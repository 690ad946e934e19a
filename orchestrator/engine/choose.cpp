// What goes to the scheduler next (decide.hpp): node classes round robin, the dependencies, the
// batch jobs the steps ask for, the user's queue limit and the campaign's node-hour budget. Pure.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

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

// Each case's latest attempt by case id: a table where the ids are dense (a campaign's cases are
// inserted together), else a hash map. A tree of 100,000 rows cost a choice 15 ms.
class RowsByCase {
 public:
  explicit RowsByCase(const std::vector<AttemptRow>& latest) {
    if (latest.empty()) return;
    auto [lo, hi] = std::minmax_element(latest.begin(), latest.end(),
                                        [](auto& a, auto& b) { return a.case_id < b.case_id; });
    first_ = lo->case_id;
    const auto span = static_cast<std::uint64_t>(hi->case_id - lo->case_id) + 1;
    if (span <= 4 * latest.size() + 64) {
      dense_.assign(span, nullptr);
      for (auto& a : latest) dense_[static_cast<size_t>(a.case_id - first_)] = &a;
    } else {
      sparse_.reserve(latest.size());
      for (auto& a : latest) sparse_[a.case_id] = &a;
    }
  }
  const AttemptRow* find(std::int64_t case_id) const {
    if (!sparse_.empty()) {
      auto it = sparse_.find(case_id);
      return it == sparse_.end() ? nullptr : it->second;
    }
    if (case_id < first_ || static_cast<std::uint64_t>(case_id - first_) >= dense_.size()) return nullptr;
    return dense_[static_cast<size_t>(case_id - first_)];
  }

 private:
  std::int64_t first_ = 0;
  std::vector<const AttemptRow*> dense_;
  std::unordered_map<std::int64_t, const AttemptRow*> sparse_;
};

// The planned cases whose dependencies are met, in `order`, at most `cap` of them; a case whose
// dependency failed is cancelled. A dependency chosen earlier in this choice is named by its index
// in the result.
void find_ready(const matrix::Plan& plan, const std::vector<size_t>& order,
                const std::vector<std::int64_t>& case_ids, const RowsByCase& by_case, size_t cap,
                SubmitChoice& out) {
  std::unordered_map<std::int64_t, size_t> chosen;  // case id -> index in out.ready
  for (size_t i : order) {
    if (out.ready.size() >= cap) break;
    const AttemptRow* found = by_case.find(case_ids[i]);
    if (!found) continue;
    const AttemptRow& row = *found;
    if (row.state != State::planned || !row.in_spec) continue;
    Submission s{i, row.id, {}, {}};
    bool ready = true;
    for (size_t d : plan.cases[i].after) {
      const AttemptRow& dep = *by_case.find(case_ids[d]);
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
// array's tasks one each (as Slurm counts them). Row by row, for folds that count more.
struct QueueCount {
  std::set<std::string_view> allocations;
  int n = 0;
  void add(const AttemptRow& a) {
    if (!is_active(a.state) && a.state != State::submitting) return;
    if (a.step_name.empty() || allocations.insert(a.job_name).second) ++n;
  }
};
int ours_in_queue(const std::vector<AttemptRow>& latest) {
  QueueCount q;
  for (auto& a : latest) q.add(a);
  return q.n;
}

// The queue room a batch of `slots` needs to go: all of them, but part of an array goes into a tenth
// of the limit while the campaign's own jobs will free more places, and into any room when none will.
long room_needed(long slots, bool array, int ours, long max_queued) {
  if (!array) return slots;
  if (ours == 0) return 1;
  return std::min(slots, std::max(1L, max_queued / 10));
}

std::uint64_t mixed(std::uint64_t x) {  // splitmix64's finaliser: a sum of these hashes a set
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ChoiceInputs choice_inputs(const std::vector<AttemptRow>& latest,
                           const std::unordered_set<std::int64_t>& dependencies) {
  ChoiceInputs in;
  QueueCount ours;
  for (auto& a : latest) {
    ours.add(a);
    if (a.in_spec && a.state == State::planned) {
      ++in.planned;
      in.planned_ids += mixed(static_cast<std::uint64_t>(a.id));
    }
    if (!dependencies.empty() && dependencies.count(a.case_id))
      in.dependencies +=
          mixed((static_cast<std::uint64_t>(a.id) << 8) ^ (static_cast<std::uint64_t>(a.state) << 2) ^
                (a.confirmed ? 2 : 0) ^ (a.job_id.empty() ? 0 : 1));
  }
  in.ours = ours.n;
  return in;
}

std::optional<IdleChoice> idle_choice(const SubmitChoice& choice, const ChoiceInputs& inputs) {
  if (!choice.batches.empty() || !choice.actions.empty()) return std::nullopt;
  return IdleChoice{choice.stopped, inputs};
}

bool chooses_nothing_again(const matrix::Plan& plan, const IdleChoice& before, const ChoiceInputs& now,
                           int others_in_queue) {
  if (plan.campaign.budget_node_hours || !before.inputs.same_rows(now)) return false;
  if (!before.stopped) return true;  // nothing was ready, and the rows are the same
  const long max_queued = plan.system.limits.max_queued_jobs;
  const long room = max_queued - others_in_queue - now.ours;
  return room < room_needed(before.stopped->slots, before.stopped->array, now.ours, max_queued);
}

SubmitChoice choose_submissions(const matrix::Plan& plan, const std::vector<size_t>& order,
                                const std::vector<std::int64_t>& case_ids,
                                const std::vector<AttemptRow>& latest, const SubmitLimits& limits) {
  SubmitChoice out;
  const auto& sys = plan.system.limits;
  const int ours = ours_in_queue(latest);
  // Where every batch takes a queue slot per case (no packed step), a choice under the queue limit
  // takes at most its room's worth of the ready cases: it looks at one more than that and than a
  // tenth of the limit, so that what stops it (an array's rule included) stops it as it would with
  // all of them. 100,000 array tasks waiting for room were grouped at every place freed.
  size_t cap = std::numeric_limits<size_t>::max();
  if (limits.queue &&
      std::none_of(plan.steps.begin(), plan.steps.end(), [](auto& st) { return st.pack.has_value(); })) {
    const long room = sys.max_queued_jobs - limits.others_in_queue - ours;
    cap = static_cast<size_t>(std::max({room, sys.max_queued_jobs / 10, 0L})) + 1;
  }
  find_ready(plan, order, case_ids, RowsByCase(latest), cap, out);

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

  const auto& budget = plan.campaign.budget_node_hours;
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
      const bool array = shape.kind == batch::Kind::array;
      if (room < room_needed(shape.queue_slots(), array, ours, sys.max_queued_jobs)) {
        out.queue_full = true;
        out.stopped = SubmitChoice::QueueStop{shape.queue_slots(), array};
        break;
      }
      if (shape.queue_slots() > room) {  // part of an array
        out.queue_full = true;
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
