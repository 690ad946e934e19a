// Running a helper program (gnuplot) from an argv array - never through a
// shell - in a given directory, with its output captured and a time limit.
//
// Invariant: run_process() returns only after the child has been reaped; a
// child that outlives the timeout is killed with its process group, so no
// helper is left behind.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace campaign::report {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal or not started
  bool timed_out = false;
  std::string output;  // stdout and stderr interleaved, truncated to 64 KiB
};

// `argv[0]` must be a path (see find_executable). Throws campaign::Error if the
// process cannot be created; an exec failure is exit code 127 with a message.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          std::chrono::milliseconds timeout);

// `name` itself if it contains a '/', else the first executable `dir/name`
// for the ':'-separated `search_path` (like execvp, but testable with any PATH).
std::optional<std::filesystem::path> find_executable(const std::string& name, const std::string& search_path);

// The PATH of this process, "" when unset.
std::string environment_path();

}  // namespace campaign::report
