// Exit-marker files: every job script writes its exit status to `.exit` in
// its run directory when it ends (templates/*.sh.mustache). Reading them costs
// the scheduler nothing and notices a finished job at once; the engine
// reconciles them with what the scheduler says, never trusting either blindly.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "transport/shell.hpp"

namespace campaign::engine {

// The exit status recorded in each run directory, or nullopt where there is
// no (complete) marker yet. One entry per directory, in order; all of them
// in one Shell::read_files call (one round trip over SSH).
std::vector<std::optional<int>> read_markers(transport::Shell& shell,
                                             const std::vector<std::string>& run_dirs);

// Parses a marker's content ("0\n"); nullopt for anything else (a torn write).
std::optional<int> parse_marker(const std::string& text);

}  // namespace campaign::engine
