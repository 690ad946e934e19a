// Matrix expansion: from a campaign (as seen on one system) to the list of
// cases with their parameters, derived values, job geometry, names, stable
// keys and dependencies.
//
// Invariants of a Plan: case names are unique and safe as directory names;
// keys are stable across runs (a hash of the step and the matrix coordinates,
// not of derived values); steps are in dependency order and every case's
// `after` indices point to cases of earlier steps.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "matrix/text_template.hpp"
#include "resource/model.hpp"
#include "spec/campaign.hpp"
#include "spec/system.hpp"

namespace campaign::matrix {

struct StepPlan {
  std::string name;
  size_t step = 0;                       // index into Plan::campaign.steps
  std::shared_ptr<const Schema> schema;  // shared: templates keep a pointer to it
  std::vector<std::string> axes;         // matrix coordinates (incl. `repeat` when > 1)
  spec::Job job;                         // the campaign's job patched by the step's
  TextTemplate command;
  std::optional<spec::Pack> pack;    // its cases run packed into shared allocations (pack/)
  std::optional<spec::Array> array;  // its cases run as tasks of job arrays (array/)
  std::vector<size_t> after_steps;   // indices into Plan::steps
  size_t first_case = 0, case_count = 0;
};

struct Case {
  size_t step = 0;                                                   // index into Plan::steps
  std::vector<spec::Value> values;                                   // by the step's schema
  std::string name;                                                  // run-directory name
  std::string key;                                                   // stable identity, 16 hex digits
  size_t partition = 0;                                              // index into Plan::system.partitions
  long nodes = 1, ranks = 1, ranks_per_node = 1, cpus_per_rank = 1;  // per instance
  // 0, whole, or a share 1/k: k ranks on each GPU (resource::gpus_of_ranks, README "Resources").
  double gpus_per_rank = 0;
  long instances = 1;  // concurrent copies in one job (MLPerf HPC weak scaling)
  long walltime_s = 3600;
  long memory_mb = 0;          // per node; 0: none asked
  bool exclusive = false;      // whole nodes, nothing beside it
  bool oversubscribe = false;  // ranks may share cores
  // What the job asks of the scheduler: every instance's nodes and ranks.
  long job_nodes() const { return nodes * instances; }
  long job_ranks() const { return ranks * instances; }
  // What the case asks of each node it spans; `one_host` (spec::System::one_host): of the one
  // machine, all its ranks together. Oversubscribed, it asks at most the node's cores.
  resource::Demand demand(bool one_host, long node_cores = 0) const;
  std::vector<size_t> after;  // indices into Plan::cases
};
// `fit`: whether a case must fit the system's nodes (cores, GPUs, memory, node counts). Commands that
// only read results (import, report, status, history) skip it: the runs may come from a bigger machine
// than the one `local` describes now.
enum class Fit { check, skip };

struct Plan {
  Plan() = default;
  Plan(Plan&&) = default;
  Plan& operator=(Plan&&) = default;
  Plan(const Plan&) = delete;

  spec::Campaign campaign;  // with the system's override applied
  spec::System system;
  std::vector<StepPlan> steps;
  std::vector<Case> cases;
  std::string workdir;
  Fit fit = Fit::check;
  double node_hours = 0;  // requested: sum of nodes x walltime

  const StepPlan& step_of(const Case& c) const { return steps[c.step]; }
  const spec::Partition& partition_of(const Case& c) const { return system.partitions[c.partition]; }
  // What `c` asks of each node of its partition, and what it costs when run on its own: its nodes x
  // its share of each (resource::fit) x its walltime (or `walltime_s` when given).
  resource::Demand demand_of(const Case& c) const;
  double node_hours_of(const Case& c, long walltime_s = 0) const;
  // The nodes of one allocation of a packed step: its `pack.nodes`; on a one-host system 1, the
  // machine.
  long pack_nodes(const spec::Pack& pack) const { return system.one_host() ? 1 : pack.nodes; }
  // A parameter of a case by name ("" when the step has no such name).
  const std::string& param(const Case& c, const std::string& name) const;
};

// `campaign` must already be for_system(system.name). Errors are InputErrors
// pointing at the campaign key that causes them.
// `workdir` is visible to templates as {{workdir}} (the campaign's work directory).
Plan expand(const spec::Campaign& campaign, const spec::System& system, const std::string& workdir = "",
            Fit fit = Fit::check);

// "1h30m"-style walltime of a case, for tables.
std::string format_number(double v);

}  // namespace campaign::matrix
