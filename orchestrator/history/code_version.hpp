// The version of the code a campaign measures, recorded with every run so
// that `campaign history` can put runs in commit order: the git commit and
// commit date of the workload's repository (the campaign's `code_dir` when it
// is in a git work tree, else the repository holding the campaign file), and
// the user's `--label`.
//
// Invariant: detection never fails a run. No git, no repository, a path that
// does not exist: the version is just the label (possibly empty), and why is
// logged.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "matrix/plan.hpp"
#include "transport/shell.hpp"

namespace campaign::history {

struct CodeVersion {
  std::string label;         // --label; "" when none
  std::string commit;        // full commit id; "" when unknown
  std::optional<Time> date;  // committer date of `commit`
  bool dirty = false;        // tracked files differed from the commit
  std::string repo;          // the work tree the commit was read in

  // What people read: the label, else the commit's first 10 digits (with
  // "-dirty" when modified); "" when neither is known.
  std::string display() const;
  // What the catalog records (version = display()).
  CodeRecord record() const;
};

// Where the code under test is said to be, most specific first: the
// campaign's `code_dir:` key, then its `code_dir` parameter (as rendered for
// the first case that has it), with ${VAR} and $VAR expanded from this
// process' environment and relative paths taken from the campaign file's
// directory; then the campaign file's directory.
std::vector<std::filesystem::path> code_locations(const matrix::Plan& plan);

// The commit `rev` (HEAD: with the dirty flag) of the git work tree holding
// `dir`, asked through `shell` (so it runs where the code is); nullopt when
// git, the work tree or the revision is missing.
std::optional<CodeVersion> git_version(transport::Shell& shell, const std::filesystem::path& dir,
                                       const std::string& rev = "HEAD");

// The first location that is in a git work tree (and knows `rev`) gives the
// commit; `label` is kept as is. `code_shell` reaches the code_dir locations
// (the system's shell); the campaign file's directory is always asked
// locally. A `rev` other than HEAD that no location knows is an Error.
CodeVersion detect_code_version(const matrix::Plan& plan, const std::string& label,
                                transport::Shell& code_shell, const std::string& rev = "HEAD");

}  // namespace campaign::history
