#include "render/step_launch.hpp"

#include "util/strings.hpp"

namespace campaign::render {

std::optional<std::string> step_launch_template(const spec::Launcher& l) {
  if (l.kind != "srun") return l.command;
  std::string command = trim(l.command);
  if (command != "srun" && command.rfind("srun ", 0) != 0) return std::nullopt;
  return "srun --exact -N {{nodes}} -n {{ranks}} --ntasks-per-node={{ranks_per_node}} "
         "--cpus-per-task={{cpus_per_rank}} {{#gpus}}--gpus-per-task={{gpus_per_rank}} {{/gpus}}"
         "{{#memory}}--mem={{memory_mb}}M {{/memory}}{{#oversubscribe}}--overcommit {{/oversubscribe}}"
         "-t {{walltime}} -J {{job_name}} "
         "${" +
         std::string(kNodesVariable) + ":+-w \"$" + kNodesVariable + "\"}" + command.substr(4);
}

}  // namespace campaign::render
