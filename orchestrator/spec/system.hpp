// System profiles (systems/*.yaml): how to reach a machine, its scheduler and
// launcher, its partitions (node types with their scheduler options), limits,
// and the modules/environment each partition needs.
//
// Invariant: a System returned by load_system() is complete: every partition
// has cores per node, the scheduler and launcher are known kinds, and limits
// hold sane defaults where the profile is silent.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "resource/model.hpp"
#include "util/error.hpp"
#include "util/walltime.hpp"

namespace campaign::spec {

struct Partition {
  std::string name;
  std::vector<std::string> aliases;  // campaign-facing names, e.g. `cpu` for Daint's `mc`
  std::string description;
  std::vector<std::string> options;  // scheduler directives, e.g. "--constraint=gpu"
  long cores_per_node = 1;
  long gpus_per_node = 0;
  long memory_mb = 0;       // per node; 0: not known, not counted
  long max_nodes = 0;       // 0: no limit known
  long max_walltime_s = 0;  // 0: the system's limit
  std::string queue;        // LSF queue / Slurm partition when it is not an option
  std::vector<std::string> modules;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> setup;
  Location where;
};

struct SshAccess {
  std::string host, user, identity, jump, known_hosts;
  long port = 22;
  // The `campaign` binary on the remote side, for the local executor (scheduler: local) there.
  std::string campaign = "campaign";
};

struct Limits {
  long max_queued_jobs = 100;
  long max_submits_per_minute = 60;
  long max_walltime_s = 24 * 3600;
  double poll_min_s = 2;
  double poll_max_s = 60;
  // Rules of time for what the scheduler does not say (engine::Rules): how long a job may be unknown
  // to queue and accounting before it is lost, and how long a completion or an ended allocation waits
  // for the accounting's record (slurmdbd behind a busy controller) before its markers decide.
  double lost_after_s = 120;
  double accounting_wait_s = 120;
};

struct Launcher {
  std::string kind;     // srun | jsrun | mpirun | local | none
  std::string command;  // Mustache template over the case (ranks, nodes, ...)
};

struct ContainerRuntime {
  std::string name;                  // sarus, shifter, apptainer, podman-hpc, ...
  std::string command;               // Mustache: e.g. "sarus run {{image}}"
  std::vector<std::string> options;  // extra directives (Shifter's --image)
};

struct System {
  // Every job of a `local` system runs on this one machine: a case's ranks, whatever its nodes,
  // share the machine's cores and GPUs (partitions are views of it).
  bool one_host() const { return scheduler == "local"; }

  std::string name;
  std::string file;
  std::string description;
  std::vector<std::string> hostnames;  // regular expressions, full match on short or full host name
  std::vector<std::pair<std::string, std::string>> detect_env;  // VAR: regex
  std::string scheduler;                                        // slurm | lsf | local
  // `walltime_format: lsf`: "H:M" in the walltimes of campaigns run here (and in this profile) is LSF's
  // hours:minutes (bsub -W), not Slurm's minutes:seconds; the other forms read alike (util/walltime).
  WalltimeGrammar walltime_grammar = WalltimeGrammar::slurm;
  Launcher launcher;
  std::string account;  // after ${VAR} expansion; may be empty
  bool account_required = false;
  std::string template_name;     // default job template for this system
  std::string workdir;           // default work directory root; may be empty
  std::optional<SshAccess> ssh;  // unset: local access
  Limits limits;
  std::vector<Partition> partitions;
  std::string default_partition;
  std::vector<std::string> modules;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> setup;
  std::optional<ContainerRuntime> container;
};

System load_system_file(const std::filesystem::path& path);

// What one node of `p` offers to cases.
inline resource::Node node_of(const Partition& p) { return {p.cores_per_node, p.gpus_per_node, p.memory_mb}; }

// The partition called `name` or aliased so; nullptr when none.
const Partition* find_partition(const System& system, const std::string& name);
std::vector<std::string> partition_names(const System& system);  // names and aliases, for hints

// Does this profile's `hostnames`/`env` detection match the given host?
bool matches_host(const System& system, const std::string& short_host, const std::string& fqdn);

}  // namespace campaign::spec
