// What this machine offers: the local executor's capacity and `cores_per_node: auto`,
// `gpus_per_node: auto`, `memory_per_node: auto` of a profile (systems/local.yaml).
//
// GPUs come from `nvidia-smi -L` (NVIDIA) or `rocm-smi` (AMD), narrowed by the environment's
// CUDA_VISIBLE_DEVICES (ROCR_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES for AMD) when it is set, as a
// job inside a Slurm allocation or a shared workstation's wrapper sees them. Each GPU is named by
// the id a child process must find in that variable to see it: its index as the tool prints it, or
// the entry of the narrowing variable (an index or a UUID).
#pragma once

#include <string>
#include <vector>

namespace campaign::resource {

struct Gpus {
  std::string variable;          // CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES; "" when none found
  std::vector<std::string> ids;  // one per usable GPU, in the order they are handed out
};

// The CPUs this process may run on (sched_getaffinity), ascending; at least one.
std::vector<int> usable_cpus();

// This machine's usable GPUs (runs nvidia-smi or rocm-smi, each at most once per call, 10 s at most).
Gpus detect_gpus();

// `nvidia-smi -L` or `rocm-smi` output as GPU ids, narrowed by `visible` (the variable's value;
// `visible_set` false: the variable is unset). Pure, for tests.
std::vector<std::string> nvidia_ids(const std::string& smi_list, bool visible_set,
                                    const std::string& visible);
std::vector<std::string> rocm_ids(const std::string& smi_output, bool visible_set,
                                  const std::string& visible);

// MemTotal of /proc/meminfo in MB; 0 when unknown.
long memory_mb();

}  // namespace campaign::resource
