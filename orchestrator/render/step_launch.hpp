// The launch line of a case that runs as one step of a packed allocation (pack/): the system's
// launcher.command, a Mustache template over the case, made to run on the case's own nodes.
#pragma once

#include <optional>
#include <string>

#include "spec/system.hpp"

namespace campaign::render {

// The variable through which the pack driver names the nodes it gives a case (comma-separated);
// unset or empty when it does not know them (LSF, local).
inline constexpr const char* kNodesVariable = "CAMPAIGN_NODES";

// srun: `srun --exact` with the case's geometry, GPUs per task and memory, walltime and job name
// (the step's name), on the nodes the driver gave it (-w), then the profile's own flags: steps take
// only the cores and GPUs they ask for (Slurm binds each its own GPUs), so several share a node, and
// show in accounting as JOBID.K under the attempt's name. jsrun: its resource sets already
// place each case on free nodes. local, mpirun, none: the launcher's line as it is.
// nullopt for an srun launcher whose command does not start with srun (it cannot run packed).
std::optional<std::string> step_launch_template(const spec::Launcher& launcher);

}  // namespace campaign::render
