// What the scripts of batch jobs that run several cases share (packed allocations, pack/script.hpp;
// job arrays, array/script.hpp): a template per scheduler under templates/<kind>/, and the values
// for its directives.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "matrix/plan.hpp"
#include "util/mustache.hpp"

namespace campaign::render {

// Where a batch job of several cases keeps its script, manifest or index and output.
inline std::filesystem::path batch_dir(const std::filesystem::path& workdir, const std::string& job_name) {
  return workdir / ".alloc" / job_name;
}

// templates/<kind>/<scheduler>.sh.mustache, the campaign's own first (spec::find_data_file).
// Throws InputError naming the template when there is none (`what`: "packed runs", "job arrays").
Mustache batch_template(const matrix::Plan& plan, const std::string& kind, const std::string& what);

// The values every batch template may use: the first case's parameters (for directives that use
// them; the cases share their steps' options), campaign, system, job_name, walltime (and
// walltime_minutes, walltime_hhmm), partition_name, queue, account and `directives`: the
// partition's options and the scheduler options of the cases' steps, each once.
// Throws InputError for a partition the system does not define.
MustacheData batch_data(const matrix::Plan& plan, const std::string& partition,
                        const std::vector<const matrix::Case*>& cases, const std::string& job_name,
                        long walltime_s);

// A case's geometry and what it asks beyond it (resource/model.hpp), for scripts and directives:
// ranks_per_node, cpus_per_rank, gpus_per_rank, node_cores, node_gpus, node_memory_mb (per node; on
// a one-host system the whole job's), memory_mb, and the sections `gpus`, `memory`, `exclusive`,
// `oversubscribe`. `nodes` and `ranks` are the caller's (per instance or the whole job's).
void set_case_resources(MustacheData& d, const matrix::Plan& plan, const matrix::Case& c);

}  // namespace campaign::render
