#include "pack/slots.hpp"

#include <algorithm>

namespace campaign::pack {

std::vector<size_t> SlotStart::nodes() const {
  std::vector<size_t> out;
  for (auto& s : placement) out.push_back(s.node);
  return out;
}

StartQueue::StartQueue(const std::vector<resource::Demand>& demands, const std::vector<bool>& waiting) {
  std::vector<size_t> order;
  for (size_t i = 0; i < demands.size(); ++i)
    if (waiting[i]) order.push_back(i);
  // Demands equal under bigger() are equal demands (it compares every field): one group each.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return resource::bigger(demands[a], demands[b]); });
  for (size_t i : order) {
    if (groups_.empty() || !(groups_.back().demand == demands[i])) groups_.push_back({demands[i], {}, 0});
    groups_.back().cases.push_back(i);
  }
  waiting_ = order.size();
}

std::vector<SlotStart> StartQueue::next(resource::Pool& pool) {
  std::vector<SlotStart> out;
  for (auto& g : groups_) {
    while (g.next < g.cases.size()) {
      auto p = pool.place(g.demand);
      if (!p) break;
      pool.take(g.demand, *p);
      out.push_back({g.cases[g.next++], std::move(*p)});
      --waiting_;
    }
  }
  return out;
}

std::vector<SlotStart> next_starts(const std::vector<resource::Demand>& demands,
                                   const std::vector<bool>& waiting, resource::Pool& pool) {
  return StartQueue(demands, waiting).next(pool);
}

}  // namespace campaign::pack
