// How a packed step's cases share allocations: which cases go into which allocation, how many
// nodes and how long each allocation asks for. The driver inside an allocation (pack-exec) starts
// cases the same way this plans them, biggest first into free nodes, so a plan's walltime holds
// when every case takes its whole walltime; cases that end early only make room sooner.
//
// Invariant: pure (no catalog, no clock); the same items and limits give the same allocations.
#pragma once

#include <cstddef>
#include <vector>

#include "resource/model.hpp"

namespace campaign::pack {

struct Item {
  size_t id = 0;  // the caller's (a plan index)
  resource::Demand demand;
  long walltime_s = 0;
};

struct Limits {
  long nodes = 1;       // of one allocation
  resource::Node node;  // what each of its nodes offers
  long walltime_s = 0;  // of one allocation
  long cases = 0;       // most cases in one allocation; 0: no limit
  long margin_s = 60;   // added to the planned makespan: the driver's start, srun's setup
};

// The order in which the driver starts cases: biggest first (resource::bigger), then longest,
// then `id`.
void biggest_first(std::vector<Item>& items);

// The driver's schedule of `items` (in biggest_first order, as the manifest lists them) on `nodes`
// nodes like `node`, each case taking its whole walltime, with the driver's own decision
// (slots.hpp): start offsets by position, the makespan and the most nodes in use at once.
struct Schedule {
  std::vector<long> start_s;
  long makespan_s = 0;
  long peak_nodes = 0;
};
Schedule simulate(const std::vector<Item>& items, long nodes, const resource::Node& node);

struct PlannedAllocation {
  std::vector<size_t> ids;  // the items' ids, in the driver's start order
  long nodes = 0;           // the peak the schedule uses, at most Limits::nodes
  long walltime_s = 0;      // makespan + margin, rounded up to a minute, at most Limits::walltime_s
  double node_hours() const { return static_cast<double>(nodes) * static_cast<double>(walltime_s) / 3600.0; }
};

// Allocations for `items` (first fit, biggest first): each holds cases while its schedule still
// ends within the walltime limit (less the margin) and the case limit: the longest run of the
// waiting cases that fits (found by halving, a few simulations however many cases), then each later
// case that still fits, one like a refused case (same demand and walltime) not tried again. Every item must
// fit alone (nodes, resources per node and walltime within the limits; matrix::expand checks that for plans);
// one alone gets what is left of the margin.
std::vector<PlannedAllocation> allocate(std::vector<Item> items, const Limits& limits);

}  // namespace campaign::pack
