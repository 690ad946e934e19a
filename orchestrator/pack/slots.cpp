#include "pack/slots.hpp"

#include <algorithm>
#include <numeric>

namespace campaign::pack {

std::vector<size_t> SlotStart::nodes() const {
  std::vector<size_t> out;
  for (auto& s : placement) out.push_back(s.node);
  return out;
}

std::vector<SlotStart> next_starts(const std::vector<resource::Demand>& demands,
                                   const std::vector<bool>& waiting, resource::Pool& pool) {
  std::vector<size_t> order(demands.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return resource::bigger(demands[a], demands[b]); });
  std::vector<SlotStart> out;
  for (size_t i : order) {
    if (!waiting[i]) continue;
    auto p = pool.place(demands[i]);
    if (!p) continue;
    pool.take(demands[i], *p);
    out.push_back({i, std::move(*p)});
  }
  return out;
}

}  // namespace campaign::pack
