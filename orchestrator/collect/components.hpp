// Profiler components: a per-code list of regular expressions over a profiler's per-item times
// (TAU routines, nsys kernels and copy kinds), each summed into one metric that `history` follows
// like any other:
//   component:NAME          the summed value (seconds for the shipped collectors)
//   component_percent:NAME  100 * that sum / the execution time: the metric `percent_of` names
//                           (tau: tau_application_time, `.TAU application`'s inclusive time; a
//                           campaign's component may name another, e.g. nsys over the run's
//                           run_time), else the sum over all items (nsys: the GPU time)
//   pop_load_balance:NAME, pop_communication_efficiency:NAME, pop_parallel_efficiency:NAME
//                           with per-rank items (`per_rank:`, tau_exclusive_rank) and each rank's
//                           runtime (`runtime_per_rank:`, tau_application_time_rank): the POP Centre
//                           of Excellence's efficiencies with the component as the time outside
//                           useful computation (for `mpi`, POP's own: useful = outside MPI):
//                             useful(r)   = runtime(r) - component(r)
//                             load balance = mean(useful) / max(useful)
//                             communication efficiency = max(useful) / runtime, the longest rank's
//                             parallel efficiency = load balance x communication efficiency
//                           (co-design.pop-coe.eu/metrics: parallel_efficiency.html "PE = Load
//                           Balance * Communication Efficiency"; communication_efficiency.html
//                           "CommE = Maximum Useful Computation Time / Total Runtime"; load balance
//                           "Average Useful Computation Time / Maximum Useful Computation Time").
//                           The time in MPI_Barrier itself is tau_exclusive:MPI_Barrier().
// A collector names the metric its components sum (`components: metric: 'tau_exclusive:{routine}'`)
// and may define default components; a campaign adds its own (`components:` in spec/campaign.hpp),
// attached to the collector by load_collectors (attempt.hpp).
//
// This is the one place components are summed: collect() calls add_components after every
// collector's sources (so a denominator may come from another collector), and `run`, `collect` and
// `import` all record them.
#pragma once

#include <string>
#include <vector>

#include "collect/collect.hpp"

namespace campaign::collect {

// The heads of POP's efficiency metrics (above), each followed by ":" and the component's name.
inline constexpr const char* kPopEfficiencies[] = {"pop_load_balance", "pop_communication_efficiency",
                                                   "pop_parallel_efficiency"};

// Compiles `match` (ECMAScript, searched anywhere in the item's name). Throws std::regex_error.
Component make_component(const std::string& name, const std::string& match,
                         const std::string& percent_of = "");

// Adds `comp` to `c`, replacing a component of the same name.
void set_component(Collector& c, Component comp);

// Appends c's components (per step) summing the c.component_metric values among
// metrics[first..last) (what c produced; a later value of the same name and step replaces an
// earlier one, as in collect()); a `percent_of` metric is looked up among all of `metrics` (the
// same step, else one without). Nothing when c produced none of the items (an optional profile
// that was not there); 0 with a warning when a component matches no item; no percentage, with a
// warning, when the `percent_of` metric was not collected.
void add_components(const Collector& c, std::vector<Metric>& metrics, size_t first, size_t last,
                    std::vector<std::string>& warnings);

}  // namespace campaign::collect
