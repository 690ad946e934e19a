// Which cases of an allocation start now, and where: the driver's only decision. Pure, so that the
// orchestrator can also use it to simulate an allocation (its walltime and nodes).
#pragma once

#include <cstddef>
#include <vector>

#include "resource/model.hpp"

namespace campaign::pack {

struct SlotStart {
  size_t case_index;
  resource::Placement placement;  // its nodes (indices into the allocation's), cores and GPUs on each
  std::vector<size_t> nodes() const;
};

// `demands[i]`: what case i asks (manifest order); `waiting[i]`: case i has not started; `pool`: what
// the allocation's nodes have free, updated with what the starts take. Biggest first
// (resource::bigger, then manifest order); a case that does not fit now is passed over for smaller
// ones that do, since the room would idle otherwise. Several cases share a node while its cores,
// GPUs and memory last (resource::Pool::place: lowest-numbered nodes first).
std::vector<SlotStart> next_starts(const std::vector<resource::Demand>& demands,
                                   const std::vector<bool>& waiting, resource::Pool& pool);

}  // namespace campaign::pack
