// The files a batch of several cases needs beside its cases' own scripts (render/script.hpp;
// packed ones rendered with RenderOptions::packed): an allocation's script (templates/pack/
// <scheduler>.sh.mustache, which runs `campaign pack-exec MANIFEST`) and its manifest (pack/
// manifest.hpp); an array's script (templates/array/<scheduler>.sh.mustache) and its index (task i
// runs the case script on line i). As texts: the engine writes them through its Workspace (here or
// on a login node), `plan --out` to disk (write_files).
//
// Invariant: files_of() lists the manifest or index before the script, so that a script is never
// written beside a missing or older manifest or index.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/batch.hpp"
#include "render/script.hpp"

namespace campaign::batch {

inline constexpr const char* kScriptName = "job.sh";
inline constexpr const char* kIndexName = "index";

// Where a batch of several cases keeps its script, manifest or index and output.
inline std::filesystem::path dir_of(const std::filesystem::path& workdir, const std::string& job_name) {
  return workdir / ".alloc" / job_name;
}

struct File {
  std::filesystem::path path;
  std::string text;
  bool executable = false;
};

struct Files {
  std::filesystem::path script;  // what is submitted; the job runs in its directory
  std::vector<File> files;       // in the order they must be written
};

// The files of `s` (an allocation or an array) named `job_name` under `workdir`, whose cases' scripts
// are `scripts` (as s.ids); `campaign_exe`: the binary where the job runs; `first_task`: the
// scheduler's first array index (sched::Scheduler::first_array_task). Throws InputError (no template,
// an unknown partition).
Files files_of(const matrix::Plan& plan, const Shape& s, const std::string& job_name,
               const std::filesystem::path& workdir, const std::vector<render::Script>& scripts,
               const std::string& campaign_exe, long first_task);

// Writes `files` to this machine's file system, each atomically and in order, creating directories
// (the local workspace; plan --out). Throws Error.
void write_files(const std::vector<File>& files);

}  // namespace campaign::batch
