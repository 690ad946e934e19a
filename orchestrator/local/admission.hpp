// Which waiting jobs the local executor starts now, and on which of the machine's cores and GPUs:
// its one decision, pure so that it can be tested on its own (local_scheduler.hpp has the rules).
#pragma once

#include <cstdint>
#include <vector>

#include "resource/model.hpp"

namespace campaign::local {

struct RunningJob {
  resource::Demand demand;
  resource::Placement held;  // empty: a record of an earlier version, placed where it fits
  int64_t end_ms = 0;        // start + walltime; 0: no walltime, its end is unknown
};

struct WaitingJob {
  long id = 0;
  resource::Demand demand;
  long walltime_s = 0;  // 0: none
};

struct Admission {
  long id = 0;
  resource::Placement where;
};

// `waiting`: in submission order, dependencies satisfied. FIFO with EASY backfill: the first job
// that does not fit reserves the earliest moment the running jobs' walltimes guarantee room for it;
// a later job starts now only when it fits now and either ends by its walltime before then or
// leaves room for the reserved job then.
std::vector<Admission> admit(const resource::Node& machine, const std::vector<RunningJob>& running,
                             const std::vector<WaitingJob>& waiting, int64_t now_ms);

}  // namespace campaign::local
