// Staging between a local tree and a remote one over any transport::Shell: sync_up sends inputs
// (scripts, configs, sources) to a login node, sync_down brings collector files back into a local
// mirror. Each costs a few round trips whatever the number of files, plus one transfer per changed
// file, which is what matters on a link with 100 ms of latency.
//
// Invariants: a file is sent only when the remote copy is missing or differs in size or SHA-256; a
// file is fetched only when the local mirror lacks it or differs in size or modification time (the
// mirror copies the remote time). Nothing is deleted on either side. Every path reaches the remote
// shell as a positional parameter, never spliced into script text. Each file appears whole or not at
// all: sent through Shell::put, fetched through Shell::get or, when small (collector files, job
// outputs, markers), many in one Shell::read_files and written locally under a temporary name.
//
// The remote side needs a POSIX shell and GNU findutils and coreutils (find -printf, sha256sum):
// what Linux login nodes have.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "transport/shell.hpp"

namespace campaign::ssh {

struct SyncResult {
  size_t files = 0;                      // files considered (after the patterns)
  std::vector<std::string> transferred;  // relative paths sent or fetched, sorted
  uint64_t bytes = 0;                    // bytes in the transferred files
};

// Does `pattern` (fnmatch glob) select relative path `path` ("a/b/c.csv")? A pattern without '/'
// is tried on every path component ("*.pyc", ".git", "out"); one with '/' on the whole path and on
// each leading directory of it ("runs/*/out", "data/"). A leading or trailing '/' is ignored.
bool path_matches(const std::string& pattern, const std::string& path);

// Sends the regular files under `local_dir` that no `exclude` pattern selects (an excluded directory
// is not descended into) to the same relative paths under `remote_dir`, creating it as needed.
// Throws TransportError.
SyncResult sync_up(transport::Shell& shell, const std::filesystem::path& local_dir,
                   const std::string& remote_dir, const std::vector<std::string>& exclude = {});

// The same for one file, sent to `remote_file` (its directory created as needed) unless the remote
// copy has the same size and SHA-256.
SyncResult sync_up_file(transport::Shell& shell, const std::filesystem::path& local_file,
                        const std::string& remote_file);

// Fetches the regular files under `remote_dir` selected by some `include` pattern (all when none
// is given) and by no `exclude` pattern into the same relative paths under `local_dir`. With
// `under`, only those subdirectories of `remote_dir` are listed (missing ones are skipped), so the
// listing costs what they hold, not what the whole tree holds. Throws TransportError, also when
// `remote_dir` does not exist.
SyncResult sync_down(transport::Shell& shell, const std::string& remote_dir,
                     const std::filesystem::path& local_dir, const std::vector<std::string>& include = {},
                     const std::vector<std::string>& exclude = {},
                     const std::vector<std::string>& under = {});

// `text` with the fnmatch(3) special characters (* ? [ ] \) escaped, so that it matches itself only:
// for building include patterns from names (e.g. "<run dir>/history.csv").
std::string fnmatch_escape(const std::string& text);

}  // namespace campaign::ssh
