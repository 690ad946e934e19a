#include "batch/batch.hpp"

#include <algorithm>
#include <map>

#include "pack/planner.hpp"

namespace campaign::batch {

std::string_view to_string(Kind k) {
  switch (k) {
    case Kind::single:
      return "job";
    case Kind::allocation:
      return "allocation";
    case Kind::array:
      return "array";
  }
  return "job";
}

double node_hours(const matrix::Plan& plan, const Shape& s) {
  if (s.kind == Kind::allocation)
    return static_cast<double>(s.nodes) * static_cast<double>(s.walltime_s) / 3600.0;
  double h = 0;
  for (size_t k = 0; k < s.ids.size(); ++k) h += plan.node_hours_of(plan.cases[s.ids[k]], s.walltimes[k]);
  return h;
}

namespace {

Shape single(const matrix::Plan& plan, size_t i, long walltime) {
  const matrix::Case& c = plan.cases[i];
  return Shape{Kind::single, c.partition, {i}, {walltime}, c.job_nodes(), walltime, 0};
}

// A packed step's allocations, per partition (pack/planner.hpp).
std::vector<Shape> allocations(const matrix::Plan& plan, const std::vector<size_t>& cases,
                               const std::function<long(size_t)>& walltime) {
  std::map<size_t, std::vector<pack::Item>> by_partition;
  for (size_t i : cases)
    by_partition[plan.cases[i].partition].push_back({i, plan.demand_of(plan.cases[i]), walltime(i)});
  std::vector<Shape> out;
  for (auto& [partition, items] : by_partition) {
    const spec::Pack& pack = *plan.step_of(plan.cases[items.front().id]).pack;
    const spec::Partition& part = plan.system.partitions[partition];
    pack::Limits limits;
    limits.nodes = plan.pack_nodes(pack);
    limits.node = spec::node_of(part);
    limits.walltime_s = pack.walltime_s.value_or(part.max_walltime_s ? part.max_walltime_s
                                                                     : plan.system.limits.max_walltime_s);
    limits.cases = pack.cases.value_or(0);
    for (auto& a : pack::allocate(items, limits)) {
      Shape s{Kind::allocation, partition, a.ids, {}, a.nodes, a.walltime_s, 0};
      for (size_t i : a.ids) s.walltimes.push_back(walltime(i));
      out.push_back(std::move(s));
    }
  }
  return out;
}

// An array step's ready cases, all of one geometry (matrix check_array), in arrays of at most
// kMaxTasks per partition run, in the order given; each asks for its longest case's walltime.
std::vector<Shape> arrays_of(const matrix::Plan& plan, const std::vector<size_t>& cases,
                             const std::function<long(size_t)>& walltime) {
  std::vector<Shape> out;
  for (size_t i : cases) {
    const matrix::Case& c = plan.cases[i];
    if (out.empty() || static_cast<long>(out.back().ids.size()) >= kMaxTasks ||
        out.back().partition != c.partition)
      out.push_back(Shape{
          Kind::array, c.partition, {}, {}, c.job_nodes(), 0, plan.step_of(c).array->throttle.value_or(0)});
    out.back().ids.push_back(i);
    out.back().walltimes.push_back(walltime(i));
    out.back().walltime_s = std::max(out.back().walltime_s, walltime(i));
  }
  return out;
}

}  // namespace

std::vector<Shape> group(const matrix::Plan& plan, const std::vector<size_t>& cases,
                         const std::function<long(size_t)>& walltime_of, bool arrays) {
  if (cases.empty()) return {};
  auto walltime = [&](size_t i) { return walltime_of ? walltime_of(i) : plan.cases[i].walltime_s; };
  const matrix::StepPlan& step = plan.step_of(plan.cases[cases.front()]);
  if (step.pack) return allocations(plan, cases, walltime);
  if (step.array && arrays) return arrays_of(plan, cases, walltime);
  std::vector<Shape> out;
  for (size_t i : cases) out.push_back(single(plan, i, walltime(i)));
  return out;
}

Shape first_tasks(const Shape& array, size_t tasks) {
  Shape s = array;
  s.ids.resize(std::min(tasks, s.ids.size()));
  s.walltimes.resize(s.ids.size());
  s.walltime_s = s.walltimes.empty() ? 0 : *std::max_element(s.walltimes.begin(), s.walltimes.end());
  return s;
}

}  // namespace campaign::batch
