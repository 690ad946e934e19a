// The dialect of schedulers and launchers that system profiles name (spec/system.cpp reads them,
// render/ writes them into scripts): which kinds exist, the launch line each kind uses unless a
// profile gives one, and the line that runs one case as a job step on nodes an allocation's driver
// chose (packed runs, instances), the sampler's step in an allocation and the job id a script claims
// its attempt with. The job templates hold the rest (directives, the sampler of a job of its own).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace campaign::sched {

// The kinds a profile may name (the registry of make_scheduler holds those linked in).
const std::vector<std::string>& profile_schedulers();  // slurm, lsf, local
const std::vector<std::string>& profile_launchers();   // srun, jsrun, mpirun, local, none

// The launch line of launcher `kind` unless the profile gives one: a Mustache template over the
// case (ranks, ranks_per_node, cpus_per_rank, gpus_per_rank, jsrun's resource sets, campaign_exe).
std::string default_launch(const std::string& kind);

// The variable through which the pack driver names the nodes it gives a case (comma-separated);
// unset or empty when it does not know them (LSF, local).
inline constexpr const char* kNodesVariable = "CAMPAIGN_NODES";
// The variables in which a scheduler tells a task the name of its node as the scheduler's node lists
// write it (which may differ from the host's name; on the virtual test cluster every node is this
// machine): the sampler names its file after it.
inline constexpr const char* kNodeNameVariables[] = {"SLURMD_NODENAME"};
// What an allocation exports about its GPUs and srun reads back as options of every step started in
// it: a packed step asking one GPU per task would also ask the allocation's GPUs per node and hold
// them all. The pack driver starts its steps without them.
inline constexpr const char* kAllocationGpuVariables[] = {
    "SLURM_GPUS",         "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_SOCKET", "SLURM_GPUS_PER_TASK",
    "SLURM_CPUS_PER_GPU", "SLURM_MEM_PER_GPU",   "SLURM_GPU_BIND",        "SLURM_TRES_PER_TASK"};

// The launch line of a case run as one step of an allocation, from the profile's launcher `kind` and
// `command`: srun: `srun --exact` with the case's geometry, GPUs per task (ranks sharing GPUs: the
// node's GPUs and --gpu-bind=single:k, k ranks on each) and memory, walltime and
// job name (the step's name), on the nodes the driver gave it (-w), then the profile's own flags:
// steps take only the cores and GPUs they ask for (Slurm binds each its own GPUs), so several share a
// node, and show in accounting as JOBID.K under the attempt's name. jsrun: its resource sets already
// place each case on free nodes. local, mpirun, none: the launcher's line as it is. nullopt when the
// command cannot run a step (step_launch_requirement says why).
std::optional<std::string> step_launch_template(const std::string& kind, const std::string& command);
std::string step_launch_requirement(const std::string& kind);

// What starts the utilisation sampler of a case run as a step of an allocation of scheduler `kind`
// (a prefix of its `campaign sample` line): on Slurm one sampler per node of the case, a step sharing
// its resources (`srun --overlap`, on the nodes the driver gave it); elsewhere "": the sampler runs
// on the node of the case's script.
std::string step_sampler_launch(const std::string& kind);

// The job id with which a case's script claims its attempt's run directory (render::claim_file;
// templates/partials/case.sh.mustache), as a shell expression: the scheduler's variable ("$SLURM_JOB_ID";
// "$LSB_JOBID[$LSB_JOBINDEX]", an array element's own); "" where no submission is answered twice
// (the local executor): no claim. A packed case's script serves every scheduler's allocations.
std::string claim_job_id(const std::string& scheduler, bool packed);

}  // namespace campaign::sched
