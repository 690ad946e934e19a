// Profiler components: a per-code list of regular expressions over a profiler's per-item times
// (TAU routines, nsys kernels and copy kinds), each summed into one metric that `history` follows
// like any other:
//   component:NAME          the summed value (seconds for the shipped collectors)
//   component_percent:NAME  100 * that sum / the sum over all items (e.g. % time in MPI)
// A collector names the metric its components sum (`components: metric: 'tau_exclusive:{routine}'`)
// and may define default components; a campaign adds its own (`components:` in spec/campaign.hpp),
// attached to the collector by load_collectors (attempt.hpp).
//
// This is the one place components are summed: collect() calls add_components after each
// collector's sources, so `run`, `collect` and `import` all record them.
#pragma once

#include <string>
#include <vector>

#include "collect/collect.hpp"

namespace campaign::collect {

// Compiles `match` (ECMAScript, searched anywhere in the item's name). Throws std::regex_error.
Component make_component(const std::string& name, const std::string& match);

// Adds `comp` to `c`, replacing a component of the same name.
void set_component(Collector& c, Component comp);

// Appends component:NAME and component_percent:NAME (per step) for each of c's components, summing
// the c.component_metric values among metrics[first..] (what c produced; a later value of the same
// name and step replaces an earlier one, as in collect()). Nothing when c produced none of them (an
// optional profile that was not there); 0 with a warning when a component matches no item.
void add_components(const Collector& c, std::vector<Metric>& metrics, size_t first,
                    std::vector<std::string>& warnings);

}  // namespace campaign::collect
