// Node lists as lists: a Slurm host list ("nid[001-003,007],login1"), or names separated by commas,
// as host names. The catalog keeps a job's nodes comma-separated (engine/rules.hpp update_from);
// older catalogs kept Slurm's compressed form, which this reads too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace campaign::sched {

// A name it cannot read stays as written.
std::vector<std::string> node_names(std::string_view list);

}  // namespace campaign::sched
