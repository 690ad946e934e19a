// Whether any process of a packed case still lives, for a driver that starts again in the same
// allocation (pack/driver.hpp): the case's lock, RUN_DIR/.pack-lock.
//
// The driver takes the lock (flock) before it writes the case's start marker and hands it to the
// case's script at the spawn; the script and its children (srun, the sampler) inherit it, the driver
// closes its own copy. The lock is free again only once the last of them has ended, however the
// driver ended (kill -9 included): a restarted driver tells a case still running (hold what it was
// given) from one that ended without an exit marker or was never launched (start it).
// Where the file system refuses flock (a Lustre mounted `noflock`), the answer is `unknown` and the
// driver falls back on the case's walltime.
#pragma once

#include <filesystem>

#include "util/fd.hpp"

namespace campaign::pack {

inline constexpr const char* kCaseLock = ".pack-lock";

enum class CaseLife { running, ended, unknown };

// The lock, taken, for a launch: inheritable (no close-on-exec). Throws Error when a process of the
// case still holds it; an unlocked descriptor where the file system has no flock.
Fd take_case_lock(const std::filesystem::path& run_dir);

// running: a process of the case holds its lock; ended: none does; unknown: no lock file (a case an
// older driver started) or no flock.
CaseLife case_life(const std::filesystem::path& run_dir);

// Whether the case's script wrote a start stamp (render::start_stamp, its first act) at or after
// `since` (Unix time, seconds): it ran, whatever its start marker says.
bool script_started_since(const std::filesystem::path& run_dir, double since);

}  // namespace campaign::pack
