// Packed runs (README, "Many cases per job"): one batch job, an *allocation*, runs
// several cases as scheduler steps; `campaign pack-exec MANIFEST` (pack/driver.hpp) starts them
// inside it. The manifest is the allocation's contract between the orchestrator, which writes it
// before submission, and the driver, which only reads it.
//
// Invariants: a manifest read back equals the one written; a manifest that could not run (no cases,
// a case larger than the allocation or its nodes, two cases with one run directory) is refused when
// read, with
// the file and the offending key; the file is replaced atomically, so the driver never reads half.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "resource/model.hpp"

namespace campaign::pack {

inline constexpr const char* kManifestName = "manifest.json";
inline constexpr const char* kStartMarker = ".start";

// One case attempt inside an allocation.
struct PackedCase {
  std::string key;        // the case's stable key (matrix::Case::key)
  std::string case_name;  // its run directory's name
  std::string job_name;   // the attempt's deterministic job name; the step's name
  std::filesystem::path run_dir;
  resource::Demand demand;  // what it asks of each of its nodes, and how many nodes
  long ranks = 1;
  long walltime_s = 0;
  std::filesystem::path script;  // run_dir/job.sh: the case script (render/script.hpp)

  bool operator==(const PackedCase&) const = default;
};

struct Allocation {
  std::string job_name;  // the batch job's deterministic name
  std::string partition;
  long nodes = 1;
  resource::Node node;  // what each of its nodes offers (the partition's)
  // The driver names each case's GPUs in CUDA_VISIBLE_DEVICES itself (the local executor, where no
  // launcher binds them); else the launcher does (srun --gpus-per-task, jsrun -g).
  bool driver_binds_gpus = false;
  long walltime_s = 0;
  std::filesystem::path dir;  // WORKDIR/.alloc/<job_name>: manifest, script, output
  double grace_s = 10;        // SIGTERM to a case's processes, then SIGKILL after this long
  std::vector<PackedCase> cases;

  bool operator==(const Allocation&) const = default;
};

// The manifest in the allocation's directory (batch::dir_of).
inline std::filesystem::path manifest_path(const Allocation& a) { return a.dir / kManifestName; }
// Where a packed case's standard output and error go (no scheduler names it: the driver does).
std::filesystem::path case_output(const PackedCase& c);

std::string to_json(const Allocation& a);
// Throws InputError (file `origin`, the offending key) for malformed or impossible manifests.
Allocation from_json(const std::string& text, const std::string& origin);

void write_manifest(const Allocation& a);  // to manifest_path(a), creating a.dir
Allocation read_manifest(const std::filesystem::path& path);

}  // namespace campaign::pack
