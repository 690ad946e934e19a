// Which cases of an allocation start now, and on which of its nodes: the driver's only decision.
// Pure, so that the orchestrator can also use it to simulate an allocation (its walltime).
#pragma once

#include <cstddef>
#include <vector>

namespace campaign::pack {

struct SlotStart {
  size_t case_index;
  std::vector<size_t> nodes;  // indices into the allocation's nodes, ascending
};

// `case_nodes[i]`: the nodes case i needs (manifest order); `waiting[i]`: case i has not started;
// `node_busy[k]`: node k runs a case. Biggest first (nodes descending, then manifest order); a case
// that does not fit now is passed over for smaller ones that do, since its nodes would idle
// otherwise. Each start takes the lowest-numbered free nodes; no node is given twice.
std::vector<SlotStart> next_starts(const std::vector<long>& case_nodes, const std::vector<bool>& waiting,
                                   std::vector<bool> node_busy);

}  // namespace campaign::pack
