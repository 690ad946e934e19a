#include "pack/planner.hpp"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <string>

namespace campaign::pack {

void biggest_first(std::vector<Item>& items) {
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.nodes != b.nodes) return a.nodes > b.nodes;
    if (a.walltime_s != b.walltime_s) return a.walltime_s > b.walltime_s;
    return a.id < b.id;
  });
}

Schedule simulate(const std::vector<Item>& items, long nodes) {
  Schedule s;
  s.start_s.assign(items.size(), -1);
  // Running cases by end time; the driver starts, at each moment, every waiting case that fits in
  // the free nodes, in order (a small case may pass a big one that does not fit yet).
  using End = std::pair<long, long>;  // end time, nodes
  std::priority_queue<End, std::vector<End>, std::greater<>> running;
  long now = 0, free = nodes, waiting = static_cast<long>(items.size());
  while (waiting > 0) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (s.start_s[i] >= 0 || items[i].nodes > free) continue;
      s.start_s[i] = now;
      free -= items[i].nodes;
      --waiting;
      running.push({now + items[i].walltime_s, items[i].nodes});
      s.makespan_s = std::max(s.makespan_s, now + items[i].walltime_s);
    }
    s.peak_nodes = std::max(s.peak_nodes, nodes - free);
    if (waiting == 0) break;
    if (running.empty()) throw std::logic_error("a case needs more nodes than the allocation has");
    now = running.top().first;
    while (!running.empty() && running.top().first == now) {
      free += running.top().second;
      running.pop();
    }
  }
  return s;
}

namespace {

long round_up_minute(long s) { return (s + 59) / 60 * 60; }

}  // namespace

std::vector<Allocation> allocate(std::vector<Item> items, const Limits& limits) {
  biggest_first(items);
  for (auto& it : items)
    if (it.nodes > limits.nodes || it.walltime_s + limits.margin_s > limits.walltime_s)
      throw std::logic_error("case " + std::to_string(it.id) + " does not fit in an allocation");
  std::vector<Allocation> out;
  std::vector<bool> placed(items.size(), false);
  size_t left = items.size();
  while (left > 0) {
    std::vector<Item> bin;
    for (size_t i = 0; i < items.size(); ++i) {
      if (placed[i] || (limits.cases && static_cast<long>(bin.size()) >= limits.cases)) continue;
      bin.push_back(items[i]);
      if (simulate(bin, limits.nodes).makespan_s + limits.margin_s > limits.walltime_s) {
        bin.pop_back();
        continue;
      }
      placed[i] = true;
      --left;
    }
    Schedule s = simulate(bin, limits.nodes);
    Allocation a;
    for (auto& it : bin) a.ids.push_back(it.id);
    a.nodes = s.peak_nodes;
    a.walltime_s = std::min(limits.walltime_s, round_up_minute(s.makespan_s + limits.margin_s));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace campaign::pack
