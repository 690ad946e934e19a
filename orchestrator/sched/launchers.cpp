#include "sched/launchers.hpp"

#include "util/strings.hpp"

namespace campaign::sched {

const std::vector<std::string>& profile_schedulers() {
  static const std::vector<std::string> kinds = {"slurm", "lsf", "local"};
  return kinds;
}

const std::vector<std::string>& profile_launchers() {
  static const std::vector<std::string> kinds = {"srun", "jsrun", "mpirun", "local", "none"};
  return kinds;
}

std::string default_launch(const std::string& kind) {
  if (kind == "srun") return "srun";
  if (kind == "jsrun")
    return "jsrun -n {{resource_sets}} -r {{resource_sets_per_node}} -a {{ranks_per_resource_set}} "
           "-c {{cpus_per_resource_set}} -g {{gpus_per_resource_set}} -b rs";
  if (kind == "mpirun") return "mpirun -np {{ranks}}";
  if (kind == "local") return "{{campaign_exe}} launch -n {{ranks}} --";
  return "";
}

std::optional<std::string> step_launch_template(const std::string& kind, const std::string& command) {
  if (kind != "srun") return command;
  std::string c = trim(command);
  if (c != "srun" && c.rfind("srun ", 0) != 0) return std::nullopt;
  return "srun --exact -N {{nodes}} -n {{ranks}} --ntasks-per-node={{ranks_per_node}} "
         "--cpus-per-task={{cpus_per_rank}} {{#gpus_whole}}--gpus-per-task={{gpus_per_rank}} {{/gpus_whole}}"
         "{{#gpus_shared}}--gpus-per-node={{node_gpus}} --gpu-bind=single:{{ranks_per_gpu}} {{/gpus_shared}}"
         "{{#memory}}--mem={{memory_mb}}M {{/memory}}{{#oversubscribe}}--overcommit {{/oversubscribe}}"
         "-t {{walltime}} -J {{job_name}} ${" +
         std::string(kNodesVariable) + ":+-w \"$" + kNodesVariable + "\"}" + c.substr(4);
}

std::string step_launch_requirement(const std::string& kind) {
  return kind == "srun" ? "each case is a step of its own: the launcher's command must start with 'srun'"
                        : "";
}

std::string step_sampler_launch(const std::string& kind) {
  if (kind != "slurm") return "";
  return "srun --overlap -N {{nodes}} -n {{nodes}} --ntasks-per-node=1 --cpus-per-task=1 ${" +
         std::string(kNodesVariable) + ":+-w \"$" + kNodesVariable + "\"}";
}

std::string claim_job_id(const std::string& scheduler, bool packed) {
  if (packed) return "${SLURM_JOB_ID:-$LSB_JOBID}";
  if (scheduler == "slurm") return "$SLURM_JOB_ID";
  if (scheduler == "lsf") return "$LSB_JOBID[$LSB_JOBINDEX]";
  return "";
}

}  // namespace campaign::sched
