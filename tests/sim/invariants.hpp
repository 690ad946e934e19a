// What must hold after every schedule, judged against the model's truth (model.hpp). Each violation
// names its class, so that a seed can be told apart by the bug it finds:
//  completed_unsupported  a confirmed completion whose run the model says did not complete (/packed: a
//                         case of an allocation; /marker_only: confirmed on its exit marker alone;
//                         /outage: because slurmctld could not be asked for confirm_timeout_s)
//  failure_unsupported    a failure charged to a run the model says completed
//  charged_never_ran      a failure charged to an attempt whose command never ran
//  adopted_stale_job      an attempt owns a job submitted before its own submission began
//  lost_known_job         `lost` although the accounting knew the job within accounting_wait_s of
//                         slurmctld forgetting it
//  duplicate_run          an attempt's command ran more than once (/late: a submission that landed after
//                         its sbatch failed; /twice: a submission answered twice)
//  orphan_job             a job that ran or still runs and that no attempt in the catalog owns (/late,
//  /twice) cancel_ignored         a case's command started after a successful `campaign cancel` of it
//  unsettled              a case not settled when the virtual time ran out
//  engine_error           the engine stopped with an error
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "model.hpp"

namespace sim {

struct Violation {
  std::string kind;  // the class, e.g. "duplicate_run/late"
  std::string what;  // readable
};

struct CancelRecord {
  double at = 0;
  std::vector<std::int64_t> case_ids;  // cases the cancel matched that were not settled then
};

struct Verdict {
  const std::vector<Job>& jobs;
  const std::vector<std::vector<campaign::AttemptRow>>& attempts;  // of each case, in order
  const std::vector<CancelRecord>& cancels;
  const std::vector<std::string>& active_at_end;  // model jobs still queued or running when `run` ended
  bool finished = false;
  double min_job_age = 300;                             // the model's (Faults)
  double accounting_wait_s = 120;                       // the engine's (EngineOptions)
  std::vector<std::pair<double, double>> outages = {};  // slurmctld unreachable in [from, to) (Faults)
  std::set<std::string> reported_duplicates = {};       // job ids of the catalog's `duplicate` events
};

std::vector<Violation> check(const Verdict& v);

}  // namespace sim
