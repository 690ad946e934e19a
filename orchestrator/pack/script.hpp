// The scripts of a packed allocation: the allocation script (templates/pack/<scheduler>.sh.mustache)
// with the allocation's directives, which runs `campaign pack-exec MANIFEST`, and the cases' own
// scripts, rendered by render::Renderer with RenderOptions::packed (templates/pack/case.sh.mustache,
// launch line of render/step_launch.hpp).
#pragma once

#include <filesystem>
#include <string>

#include "matrix/plan.hpp"
#include "pack/manifest.hpp"
#include "pack/planner.hpp"
#include "render/script.hpp"

namespace campaign::pack {

inline constexpr const char* kAllocationScript = "job.sh";

struct AllocationScript {
  std::filesystem::path path;  // a.dir/job.sh
  std::string text;
};

// The allocation `planned` as a manifest without its cases: its job name, partition, nodes and
// what each offers, walltime, directory under `workdir`, and who binds GPUs (the driver on a
// one-host system).
Allocation allocation_of(const matrix::Plan& plan, const StepAllocation& planned, const std::string& job_name,
                         const std::filesystem::path& workdir);

// The manifest entry of a case whose script `s` was rendered packed (attempt's job name, run
// directory, what it asks of its nodes); `walltime_s` 0: the case's own.
PackedCase packed_case(const matrix::Plan& plan, const matrix::Case& c, const render::Script& s,
                       long walltime_s = 0);

// Directives: the allocation's nodes, walltime and output in a.dir, --no-requeue and whole nodes
// (Slurm), the account, the partition's options and the scheduler options of the cases' steps.
// `campaign_exe`: the binary on the machine the allocation runs on. Throws InputError (an unknown
// partition, a template name nothing defines).
AllocationScript render_allocation(const matrix::Plan& plan, const Allocation& a,
                                   const std::string& campaign_exe);

// Writes the manifest, then the allocation script (each atomically), creating a.dir.
void write_allocation(const Allocation& a, const AllocationScript& script);

}  // namespace campaign::pack
