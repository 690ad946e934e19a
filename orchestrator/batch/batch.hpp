// Batch jobs: what goes to the scheduler as one job. A case alone (one job per case, its instances
// included), a packed allocation of several cases (`pack:`, pack/), or a job array of several
// (`array:`). How a step's ready cases form batches and what each costs: pure, so that the engine's
// choice (engine/choose.cpp) and `plan` are one computation.
//
// Invariant: every case given to group() is in exactly one batch; a batch asks for what its cases
// need (an allocation: the nodes its driver's schedule uses; an array: the longest walltime).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "matrix/plan.hpp"

namespace campaign::batch {

enum class Kind { single, allocation, array };
std::string_view to_string(Kind k);

// Most tasks in one array: Slurm's default MaxArraySize is 1001 (indices 0-1000).
inline constexpr long kMaxTasks = 1000;

struct Shape {
  Kind kind = Kind::single;
  size_t partition = 0;  // index into the plan's system partitions
  std::vector<size_t>
      ids;  // plan indices: an allocation's in its driver's start order, an array's in task order
  std::vector<long> walltimes;  // of each case, as ids (a retry after a timeout asks for more)
  long nodes = 0;               // the job's: a case's (all its instances), an allocation's, an array task's
  long walltime_s = 0;          // the job's
  long throttle = 0;            // an array's most tasks running at once; 0: no limit of its own
  // What the user's queue limit counts: one job, or one per array task (as Slurm counts them).
  long queue_slots() const { return kind == Kind::array ? static_cast<long>(ids.size()) : 1; }
};

// Node-hours if every case takes its walltime: a case's share of its nodes (Plan::node_hours_of), an
// allocation's whole nodes, an array's tasks' shares.
double node_hours(const matrix::Plan& plan, const Shape& s);

// The batches of `cases`, plan indices of one step's ready cases in the order they are offered,
// `walltime_of` giving each one's walltime (empty: the plan's): a packed step's allocations
// (pack/planner.hpp), an array step's arrays when the scheduler has arrays (`arrays`; else one job
// per case), one job per case otherwise.
std::vector<Shape> group(const matrix::Plan& plan, const std::vector<size_t>& cases,
                         const std::function<long(size_t)>& walltime_of, bool arrays);

// An array cut to its first `tasks` tasks (the queue limit lets no more in now).
Shape first_tasks(const Shape& array, size_t tasks);

}  // namespace campaign::batch
