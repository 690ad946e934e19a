// What the commands that touch a scheduler share: the shell, scheduler and
// workspace for a system (over ssh for a system with `access: {ssh: ...}`),
// the log file in the work directory, and the progress line.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "collect/attempt.hpp"
#include "engine/engine.hpp"
#include "engine/workspace.hpp"
#include "sched/scheduler.hpp"
#include "spec/system.hpp"
#include "stage/remote_workspace.hpp"
#include "transport/shell.hpp"

namespace campaign::cli {

enum class Verbosity { quiet, normal, verbose };

// Options of the commands that may connect to a system over ssh.
struct AccessOptions {
  bool accept_new_host_key = false;
  std::string remote_workdir;
  // false: the command only looks (status --refresh): the local executor, here or over ssh, starts
  // none of its pending jobs when asked about them.
  bool start_jobs = true;
};
void add_access_options(CLI::App& cmd, AccessOptions& o);

struct Backend {
  std::unique_ptr<transport::Shell> shell;  // first: the others refer to it
  std::unique_ptr<sched::Scheduler> scheduler;
  std::unique_ptr<engine::Workspace> workspace;
  stage::RemoteWorkspace* remote = nullptr;  // the workspace, for a system reached over ssh
  std::string script_root;                   // the work directory the job scripts refer to
  std::string campaign_exe;                  // the campaign binary where the jobs run
};

// The scheduler of `system`; the local executor keeps its jobs under workdir/.local. For a system
// reached over ssh: connects now (host key and key errors surface here), finds the remote work
// directory (--remote-workdir, else the one recorded in workdir/remote.json, else the profile's;
// stage/remote_workspace.hpp) and records it; the scheduler's commands, and for `scheduler: local`
// the remote host's own executor, then run through that one session.
Backend make_backend(const spec::System& system, const std::filesystem::path& workdir,
                     const std::string& campaign_name, const AccessOptions& access = {});

// load() with the backend: the log set up in the local work directory, the system reached, and the
// plan expanded with the work directory the scripts will see.
struct Opened {
  Loaded loaded;
  Backend backend;
  // One system of a campaign across several whose login node did not answer: why (no backend then).
  std::string unreachable;
};
// Throws the TransportError of the first part that could not be reached (the commands that need
// every system they were given).
void require_reachable(const std::vector<Opened>& parts);
// `check`, when given, looks at what was loaded before anything is written (a command's own checks of
// its options against the plan); it throws to stop.
Opened open_campaign(const CampaignOptions& o, const AccessOptions& access, Verbosity v,
                     const std::function<void(const Loaded&)>& check = {});
// Every system of a campaign across several (cli::load_all): one Opened each, the ssh ones connected;
// one whose login node does not answer has `unreachable` set (the others may go on without it).
std::vector<Opened> open_campaigns(const CampaignOptions& o, const AccessOptions& access, Verbosity v,
                                   const std::function<void(const Loaded&)>& check = {});

// The engine's options every command shares: where the scripts run, the campaign binary, and the
// rules of time the system's profile sets (limits.lost_after, limits.accounting_wait).
engine::EngineOptions engine_options(Opened& opened);

// Brings back into the local mirror what collecting these attempts needs (no-op for a local
// system). Throws TransportError.
void fetch_for_collection(Backend& backend, const spec::Campaign& campaign,
                          const collect::StepCollectors& collectors, const std::vector<AttemptRow>& attempts);

// Mirrors what ended attempts left on a remote system (their exit marker, job output and collector
// files) when the local mirror lacks their job output: jobs that failed, or whose fetch failed when
// they completed. No-op for a local system. Throws TransportError.
void fetch_ended(Backend& backend, Catalog& catalog, std::int64_t campaign_id, const spec::Campaign& campaign,
                 const collect::StepCollectors& collectors);

// Logs to <workdir>/campaign.log (everything) and stderr (warnings and up;
// info too with verbose).
void setup_logging(const std::filesystem::path& workdir, Verbosity v);

// A progress printer: one line rewritten in place on a terminal, plain lines
// (only when something changed) otherwise; nothing when quiet.
std::function<void(const std::string&, bool)> progress_printer(Verbosity v);

}  // namespace campaign::cli
