#include "pack/slots.hpp"

#include <algorithm>
#include <numeric>

namespace campaign::pack {

std::vector<SlotStart> next_starts(const std::vector<long>& case_nodes, const std::vector<bool>& waiting,
                                   std::vector<bool> node_busy) {
  std::vector<size_t> order(case_nodes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return case_nodes[a] > case_nodes[b]; });
  long free = std::count(node_busy.begin(), node_busy.end(), false);
  std::vector<SlotStart> out;
  for (size_t i : order) {
    if (!waiting[i] || case_nodes[i] < 1 || case_nodes[i] > free) continue;
    SlotStart s{i, {}};
    for (size_t k = 0; k < node_busy.size() && static_cast<long>(s.nodes.size()) < case_nodes[i]; ++k)
      if (!node_busy[k]) {
        node_busy[k] = true;
        s.nodes.push_back(k);
      }
    free -= case_nodes[i];
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace campaign::pack
