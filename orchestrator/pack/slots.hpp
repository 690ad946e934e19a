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

// The waiting cases of an allocation, grouped by what they ask, biggest first
// (resource::bigger, then manifest order): what next_starts walks, kept between calls so that
// each call costs the starts it makes and the distinct demands, not a sort of every case. A
// demand that does not fit now is not tried again in the same call for its later cases (the pool
// only shrinks during a call, so they would not fit either).
class StartQueue {
 public:
  StartQueue(const std::vector<resource::Demand>& demands, const std::vector<bool>& waiting);
  // Starts what fits in `pool` now, in the order above, taking it from `pool`; the started cases
  // leave the queue.
  std::vector<SlotStart> next(resource::Pool& pool);
  bool empty() const { return waiting_ == 0; }

 private:
  struct Group {
    resource::Demand demand;
    std::vector<size_t> cases;  // manifest order; [next, end) still wait
    size_t next = 0;
  };
  std::vector<Group> groups_;
  size_t waiting_ = 0;
};

// `demands[i]`: what case i asks (manifest order); `waiting[i]`: case i has not started; `pool`: what
// the allocation's nodes have free, updated with what the starts take. Biggest first
// (resource::bigger, then manifest order); a case that does not fit now is passed over for smaller
// ones that do, since the room would idle otherwise. Several cases share a node while its cores,
// GPUs and memory last (resource::Pool::place: lowest-numbered nodes first). One StartQueue's
// first call: the driver and the planner keep the queue instead.
std::vector<SlotStart> next_starts(const std::vector<resource::Demand>& demands,
                                   const std::vector<bool>& waiting, resource::Pool& pool);

}  // namespace campaign::pack
