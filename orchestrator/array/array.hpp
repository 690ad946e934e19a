// Job arrays (DESIGN.md, "Many cases in one allocation"): the ready cases of an `array:` step, all of
// one geometry, become one batch job of n tasks; task i runs the case script named on line i of the
// array's index file, written before the submission, with the case's own run directory, markers
// and output. Each task is its own job for the scheduler (its own id, state, accounting, cancel),
// so the engine treats an array's cases like ordinary jobs once each knows its task's id.
//
// Invariants: an index file read back lists the scripts in task order, one per line, and is
// replaced atomically before the array script is written; an array's tasks share its directives.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "matrix/plan.hpp"

namespace campaign::array {

inline constexpr const char* kArrayScript = "job.sh";
inline constexpr const char* kIndexName = "index";
// Most tasks in one array: Slurm's default MaxArraySize is 1001 (indices 0-1000).
inline constexpr long kMaxTasks = 1000;

// A step's ready cases grouped into arrays, in the order given, at most `max_tasks` each. The
// cases share one geometry (matrix check_array); `walltime_s` is the longest of the array's cases
// as `walltime_of` gives them (a retry after a timeout asks for more).
struct PlannedArray {
  size_t partition = 0;
  std::vector<size_t> ids;  // plan indices, in task order
  long walltime_s = 0;
};
std::vector<PlannedArray> group_arrays(const matrix::Plan& plan, const std::vector<size_t>& cases,
                                       const std::function<long(size_t)>& walltime_of = {},
                                       long max_tasks = kMaxTasks);

struct ArrayJob {
  std::string job_name;  // the array's deterministic name (render::array_name)
  std::string partition;
  long walltime_s = 0;
  long throttle = 0;                           // 0: none
  long first_task = 0;                         // the scheduler's first index (0 on Slurm, 1 on LSF)
  std::filesystem::path dir;                   // render::batch_dir: script, index, output
  std::vector<std::filesystem::path> scripts;  // the cases' scripts, in task order
};

// The array script (templates/array/<scheduler>.sh.mustache) for `job`, whose first case is
// `first` (its geometry and parameters fill the directives). Throws InputError (no template, an
// unknown partition).
std::string render_array(const matrix::Plan& plan, const matrix::Case& first, const ArrayJob& job);

// Writes the index file, then the script (each atomically), creating job.dir.
void write_array(const ArrayJob& job, const std::string& script_text);

// The scripts listed in an index file, in task order.
std::vector<std::filesystem::path> read_index(const std::filesystem::path& path);

}  // namespace campaign::array
