// A campaign whose system is reached over ssh: the jobs run in a work directory on the login node
// (the REMOTE root, e.g. $SCRATCH/campaigns/NAME), while the catalog, the log, the collected
// metrics and the reports stay in the LOCAL work directory, which holds a mirror of the run
// directories: each job script as submitted, and, once a case completes, the files its collectors
// read, its output and its exit marker.
//
// Invariants:
//  - a run directory's remote path is remote_root/<its path relative to the local work directory>
//    (the catalog records local paths; scripts refer to remote ones);
//  - prepare() costs one remote command whatever the campaign: run directory, stale exit marker and
//    script in one round trip, the script written under a temporary name and renamed;
//  - reading the markers of every active job costs one remote command (Shell::read_files);
//  - fetching never deletes anything locally and only transfers what differs (ssh/sync.hpp);
//  - every remote path reaches the remote shell as a positional parameter, never as script text.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "collect/collect.hpp"
#include "engine/workspace.hpp"
#include "spec/campaign.hpp"
#include "spec/system.hpp"
#include "ssh/sync.hpp"
#include "transport/shell.hpp"

namespace campaign::stage {

class RemoteWorkspace final : public engine::Workspace {
 public:
  RemoteWorkspace(transport::Shell& shell, std::filesystem::path local_root, std::string remote_root);

  std::filesystem::path script_root() const override { return remote_root_; }
  // Writes the script into the local mirror too. Transport trouble is SchedulerUnavailable (an
  // AccessError passes unchanged: retrying cannot fix it).
  void prepare(const render::Script& script) override;
  std::vector<std::optional<int>> read_markers(const std::vector<std::string>& run_dirs) override;
  // Read on the login node in one command; nothing readable now reads as none.
  std::vector<std::optional<std::string>> read_in(const std::vector<std::string>& run_dirs,
                                                  const std::string& name) override;
  // One remote command per file, each also kept in the local mirror.
  void put(const std::vector<batch::File>& files) override;

  // Where a local run directory (as the catalog records it) is on the remote side.
  std::string remote_dir(const std::string& local_run_dir) const;

  // What to bring back from one run directory: globs relative to it.
  struct Fetch {
    std::string run_dir;  // local, as the catalog records it
    std::vector<std::string> patterns;
  };
  // Brings the files of each run directory that some pattern selects and no `exclude` pattern does
  // into the local mirror, in a few commands for all of them (one listing per few thousand run
  // directories, one transfer per changed file). Throws TransportError.
  ssh::SyncResult fetch(const std::vector<Fetch>& runs, const std::vector<std::string>& exclude);

  const std::filesystem::path& local_root() const { return local_root_; }
  const std::string& remote_root() const { return remote_root_; }

 private:
  std::string relative(const std::string& local_run_dir) const;

  transport::Shell& shell_;
  std::filesystem::path local_root_;
  std::string remote_root_;
};

// The remote work directory of `campaign_name` on the system `shell` reaches: `option` if given,
// else the profile's `workdir`/NAME, else `campaign-runs/NAME`. ${VAR} and ${VAR:-default} are
// expanded with the REMOTE environment (a login shell's, so that $SCRATCH and the like are set), a
// leading `~/` and a relative path are taken from the remote home directory. Throws
// TransportError when the remote side cannot be asked, Error when a variable is not set there.
std::string resolve_remote_root(transport::Shell& shell, const spec::System& system,
                                const std::string& campaign_name, const std::string& option);
// The same with the remote environment `env` already read (remote_environment); `where` names the
// remote side in errors.
std::string resolve_remote_root(const std::map<std::string, std::string>& env, const std::string& where,
                                const spec::System& system, const std::string& campaign_name,
                                const std::string& option);

// The environment of a login shell on the remote side (its profile scripts set $SCRATCH and the
// like), else a command's environment. Throws TransportError when neither can be read.
std::map<std::string, std::string> remote_environment(transport::Shell& shell);

// The globs (relative to a run directory) to fetch for one attempt once it completed: its exit
// marker, the job's output file (slurm-ID.out, job-ID.out, lsf-ID.out), the sampler's files (`sample:`,
// read by the utilisation analyses; its power and usage files, by collectors/usage.yaml), the files `collectors` read, and the campaign's `fetch.include`.
std::vector<std::string> fetch_patterns(const std::vector<collect::Collector>& collectors,
                                        const spec::Fetch& fetch, const std::string& job_id);

// Copies the campaign's `inputs` into `root` (where the jobs run) through `shell`: only files that
// are missing there or differ in size or SHA-256. Returns what was considered and sent. Throws
// Error for an input that does not exist, TransportError for a failed transfer.
ssh::SyncResult stage_inputs(transport::Shell& shell, const spec::Campaign& campaign,
                             const std::string& root);

}  // namespace campaign::stage
