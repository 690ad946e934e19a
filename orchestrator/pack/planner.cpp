#include "pack/planner.hpp"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <string>

#include "pack/slots.hpp"

namespace campaign::pack {

void biggest_first(std::vector<Item>& items) {
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.demand != b.demand) return resource::bigger(a.demand, b.demand);
    if (a.walltime_s != b.walltime_s) return a.walltime_s > b.walltime_s;
    return a.id < b.id;
  });
}

Schedule simulate(const std::vector<Item>& items, long nodes, const resource::Node& node) {
  Schedule s;
  s.start_s.assign(items.size(), -1);
  std::vector<resource::Demand> demands;
  for (auto& it : items) demands.push_back(it.demand);
  StartQueue queue(demands, std::vector<bool>(items.size(), true));
  resource::Pool pool(static_cast<size_t>(nodes), node);
  // Running cases by end time, with what they hold; the driver's own decision (next_starts) at each
  // moment a case ends.
  struct Running {
    long end;
    size_t index;
    resource::Placement placement;
  };
  auto later = [](const Running& a, const Running& b) { return a.end > b.end; };
  std::priority_queue<Running, std::vector<Running>, decltype(later)> running(later);
  long now = 0, left = static_cast<long>(items.size());
  while (left > 0) {
    for (auto& start : queue.next(pool)) {
      const Item& it = items[start.case_index];
      s.start_s[start.case_index] = now;
      --left;
      running.push({now + it.walltime_s, start.case_index, std::move(start.placement)});
      s.makespan_s = std::max(s.makespan_s, now + it.walltime_s);
    }
    s.peak_nodes = std::max(s.peak_nodes, static_cast<long>(pool.busy_nodes()));
    if (left == 0) break;
    if (running.empty()) throw std::logic_error("a case needs more than the allocation has");
    now = running.top().end;
    while (!running.empty() && running.top().end == now) {
      pool.give_back(demands[running.top().index], running.top().placement);
      running.pop();
    }
  }
  return s;
}

namespace {

long round_up_minute(long s) { return (s + 59) / 60 * 60; }

}  // namespace

std::vector<PlannedAllocation> allocate(std::vector<Item> items, const Limits& limits) {
  biggest_first(items);
  for (auto& it : items)
    if (!resource::fit(limits.node, it.demand, limits.nodes).fits() || it.walltime_s > limits.walltime_s)
      throw std::logic_error("case " + std::to_string(it.id) + " does not fit in an allocation");
  std::vector<PlannedAllocation> out;
  std::vector<bool> placed(items.size(), false);
  size_t left = items.size();
  const size_t most = limits.cases > 0 ? static_cast<size_t>(limits.cases) : items.size();
  auto fits = [&](const std::vector<Item>& bin) {
    return bin.size() <= 1 ||
           simulate(bin, limits.nodes, limits.node).makespan_s + limits.margin_s <= limits.walltime_s;
  };
  while (left > 0) {
    std::vector<size_t> rest;
    for (size_t i = 0; i < items.size(); ++i)
      if (!placed[i]) rest.push_back(i);
    auto first = [&](size_t k) {
      std::vector<Item> bin;
      for (size_t j = 0; j < k; ++j) bin.push_back(items[rest[j]]);
      return bin;
    };
    // The longest run of the waiting cases that fits together, by halving: a few simulations, not
    // one per case (a case alone always fits; its walltime is within the limit, the margin shrinks
    // to what is left). Then first fit for the later ones, where smaller cases may fill a gap; a
    // case like one already refused (same demand and walltime) is not tried again.
    size_t lo = 1, hi = std::min(rest.size(), most);
    if (!fits(first(hi))) {
      while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        (fits(first(mid)) ? lo : hi) = mid;
      }
      hi = lo;
    }
    std::vector<Item> bin = first(hi);
    for (size_t j = 0; j < hi; ++j) placed[rest[j]] = true;
    left -= hi;
    std::vector<std::pair<resource::Demand, long>> refused;
    for (size_t j = hi; j < rest.size() && bin.size() < most; ++j) {
      const Item& it = items[rest[j]];
      auto like = [&](auto& r) { return r.first == it.demand && r.second == it.walltime_s; };
      if (std::any_of(refused.begin(), refused.end(), like)) continue;
      bin.push_back(it);
      if (!fits(bin)) {
        bin.pop_back();
        refused.emplace_back(it.demand, it.walltime_s);
        continue;
      }
      placed[rest[j]] = true;
      --left;
    }
    Schedule s = simulate(bin, limits.nodes, limits.node);
    PlannedAllocation a;
    for (auto& it : bin) a.ids.push_back(it.id);
    a.nodes = s.peak_nodes;
    a.walltime_s = std::min(limits.walltime_s, round_up_minute(s.makespan_s + limits.margin_s));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace campaign::pack
