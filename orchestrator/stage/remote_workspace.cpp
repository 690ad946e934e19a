#include "stage/remote_workspace.hpp"

#include <spdlog/spdlog.h>

#include <map>

#include "collect/source.hpp"
#include "engine/markers.hpp"
#include "sample/sampler.hpp"
#include "sched/scheduler.hpp"
#include "util/atomic_file.hpp"
#include "util/env.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::stage {

namespace {

// Arguments: RUN_DIR SCRIPT MARKER KEEP CLAIM; the script text on standard input. Creates the run
// directory, removes a stale exit marker and the attempt's claim (render::claim_file), keeps the script there
// as KEEP (the earlier attempt's, render::keep_previous_script; none when KEEP is empty or already kept),
// writes the script under a temporary name and renames it.
constexpr const char* kPrepareScript = R"SH(set -e
mkdir -p -- "$1"
rm -f -- "$1/$3" "$1/$5"
if [ -n "$4" ] && [ -f "$2" ] && [ ! -e "$4" ]; then
  mkdir -p -- "$(dirname -- "$4")"
  cp -- "$2" "$4.campaign-tmp.$$"
  mv -f -- "$4.campaign-tmp.$$" "$4"
fi
tmp="$2.campaign-tmp.$$"
cat > "$tmp"
chmod 755 "$tmp"
mv -f -- "$tmp" "$2")SH";

// Arguments: FILE MODE; the text on standard input. Creates its directory, writes it under a
// temporary name and renames it (a batch job's manifest, index or script).
constexpr const char* kPutScript = R"SH(set -e
mkdir -p -- "$(dirname -- "$1")"
tmp="$1.campaign-tmp.$$"
cat > "$tmp"
chmod "$2" "$tmp"
mv -f -- "$tmp" "$1")SH";

// Prints the environment of a login shell (profile scripts set $SCRATCH and the like), after a
// marker, so that whatever the profile scripts print first is skipped.
constexpr const char* kEnvScript =
    R"SH(exec "${SHELL:-/bin/sh}" -l -c 'printf "\ncampaign-env-begin\0"; exec env -0' </dev/null)SH";

std::string join_remote(const std::string& dir, const std::string& rel) {
  if (rel.empty()) return dir;
  if (dir.empty()) return rel;
  return dir.back() == '/' ? dir + rel : dir + "/" + rel;
}

std::map<std::string, std::string> parse_env(const std::string& text) {
  std::map<std::string, std::string> env;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nul = text.find('\0', pos);
    if (nul == std::string::npos) nul = text.size();
    std::string entry = text.substr(pos, nul - pos);
    pos = nul + 1;
    auto eq = entry.find('=');
    if (eq != std::string::npos && eq > 0) env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return env;
}

}  // namespace

RemoteWorkspace::RemoteWorkspace(transport::Shell& shell, fs::path local_root, std::string remote_root)
    : shell_(shell), local_root_(std::move(local_root)), remote_root_(std::move(remote_root)) {}

std::string RemoteWorkspace::relative(const std::string& local_run_dir) const {
  fs::path rel = fs::path(local_run_dir).lexically_relative(local_root_);
  if (rel.empty() || *rel.begin() == "..") rel = fs::path(local_run_dir).filename();  // catalog moved
  return rel.generic_string();
}

std::string RemoteWorkspace::remote_dir(const std::string& local_run_dir) const {
  return join_remote(remote_root_, relative(local_run_dir));
}

void RemoteWorkspace::prepare(const render::Script& script) {
  // The local mirror: the script as submitted, and no exit marker of an earlier attempt.
  const fs::path rel = script.run_dir.lexically_relative(remote_root_);
  const fs::path mirror =
      local_root_ / (rel.empty() || *rel.begin() == ".." ? fs::path(script.case_name) : rel);
  fs::create_directories(mirror);
  render::Script local = script;
  local.run_dir = mirror;
  local.path = mirror / render::kScriptName;
  render::keep_previous_script(local);
  render::write_script(local);
  std::error_code ec;
  fs::remove(mirror / render::kExitMarker, ec);

  const std::string keep =
      script.attempt > 1
          ? (script.run_dir / render::attempt_dir(script.attempt - 1) / render::kScriptName).string()
          : "";
  const std::vector<std::string> argv = {"sh",
                                         "-c",
                                         kPrepareScript,
                                         "sh",
                                         script.run_dir.string(),
                                         script.path.string(),
                                         render::kExitMarker,
                                         keep,
                                         render::claim_file(script.attempt)};
  transport::CommandResult r;
  try {
    r = shell_.run(argv, std::chrono::seconds(60), script.text);
  } catch (const transport::AccessError&) {
    throw;
  } catch (const transport::TransportError& e) {
    throw sched::SchedulerUnavailable(std::string("staging the job script of ") + script.case_name + ": " +
                                      e.what());
  }
  if (!r.ok())
    throw sched::SchedulerUnavailable(shell_.describe() + ": cannot write " + script.path.string() +
                                      (r.timed_out ? " (timed out)" : "") + ": " + trim(r.err));
}

std::vector<std::optional<int>> RemoteWorkspace::read_markers(const std::vector<std::string>& run_dirs) {
  std::vector<std::string> remote;
  remote.reserve(run_dirs.size());
  for (auto& d : run_dirs) remote.push_back(remote_dir(d));
  return engine::read_markers(shell_, remote);
}

std::vector<std::optional<std::string>> RemoteWorkspace::read_in(const std::vector<std::string>& run_dirs,
                                                                 const std::string& name) {
  std::vector<std::string> remote;
  remote.reserve(run_dirs.size());
  for (auto& d : run_dirs) remote.push_back(join_remote(remote_dir(d), name));
  try {
    return shell_.read_files(remote, 1 << 16);
  } catch (const transport::AccessError&) {
    throw;
  } catch (const transport::TransportError& e) {
    throw sched::SchedulerUnavailable("reading " + name + " in the run directories: " + e.what());
  }
}

void RemoteWorkspace::put(const std::vector<batch::File>& files) {
  for (auto& f : files) {
    // The local mirror keeps what was submitted, as it does for case scripts.
    const fs::path rel = f.path.lexically_relative(remote_root_);
    if (!rel.empty() && *rel.begin() != "..") {
      fs::create_directories((local_root_ / rel).parent_path());
      write_file_atomic(local_root_ / rel, f.text);
    }
    transport::CommandResult r;
    try {
      r = shell_.run({"sh", "-c", kPutScript, "sh", f.path.string(), f.executable ? "755" : "644"},
                     std::chrono::seconds(60), f.text);
    } catch (const transport::AccessError&) {
      throw;
    } catch (const transport::TransportError& e) {
      throw sched::SchedulerUnavailable("writing " + f.path.string() + ": " + e.what());
    }
    if (!r.ok())
      throw sched::SchedulerUnavailable(shell_.describe() + ": cannot write " + f.path.string() +
                                        (r.timed_out ? " (timed out)" : "") + ": " + trim(r.err));
  }
}

ssh::SyncResult RemoteWorkspace::fetch(const std::vector<Fetch>& runs,
                                       const std::vector<std::string>& exclude) {
  std::vector<std::string> include, under;
  for (auto& run : runs) {
    const std::string rel = relative(run.run_dir);
    under.push_back(rel);
    for (auto& p : run.patterns) {
      std::string pattern = p;
      while (starts_with(pattern, "./")) pattern = pattern.substr(2);
      include.push_back(ssh::fnmatch_escape(rel) + "/" + pattern);
    }
  }
  if (under.empty()) return {};
  return ssh::sync_down(shell_, remote_root_, local_root_, include, exclude, under);
}

std::map<std::string, std::string> remote_environment(transport::Shell& shell) {
  auto r = shell.run({"sh", "-c", kEnvScript}, std::chrono::seconds(30));
  const std::string marker = std::string("\ncampaign-env-begin") + '\0';
  auto at = r.out.find(marker);
  if (r.ok() && at != std::string::npos) return parse_env(r.out.substr(at + marker.size()));
  // No usable login shell: the plain environment of a command.
  spdlog::warn("{}: the login shell's environment is not readable ({}); using a command's environment",
               shell.describe(), r.timed_out ? "timed out" : "exit " + std::to_string(r.exit_code));
  auto plain = shell.run({"env", "-0"}, std::chrono::seconds(30));
  if (!plain.ok())
    throw transport::TransportError(shell.describe() +
                                    ": cannot read the remote environment: " + trim(plain.err));
  return parse_env(plain.out);
}

std::string resolve_remote_root(transport::Shell& shell, const spec::System& system,
                                const std::string& campaign_name, const std::string& option) {
  return resolve_remote_root(remote_environment(shell), shell.describe(), system, campaign_name, option);
}

std::string resolve_remote_root(const std::map<std::string, std::string>& env, const std::string& where,
                                const spec::System& system, const std::string& campaign_name,
                                const std::string& option) {
  EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  std::string spec, what;
  if (!option.empty()) {
    spec = option;
    what = "--remote-workdir";
  } else if (!system.workdir.empty()) {
    spec = join_remote(system.workdir, campaign_name);
    what = "the workdir of system " + system.name;
  } else {
    spec = "campaign-runs/" + campaign_name;
    what = "the default remote work directory";
  }
  std::string missing;
  std::string path = expand_env(spec, lookup, &missing);
  if (!missing.empty())
    throw Error(what + " '" + spec + "' uses " + missing + ", which is not set on " + where);
  auto it = env.find("HOME");
  const std::string home = it == env.end() ? "" : it->second;
  if (path == "~" || starts_with(path, "~/")) path = home + path.substr(1);
  if (path.empty() || path[0] != '/') {
    if (home.empty() || home[0] != '/')
      throw Error("cannot tell the home directory on " + where + " to place '" + path +
                  "' in; give an absolute --remote-workdir");
    path = join_remote(home, path);
  }
  return fs::path(path).lexically_normal().string();
}

std::vector<std::string> fetch_patterns(const std::vector<collect::Collector>& collectors,
                                        const spec::Fetch& fetch, const std::string& job_id) {
  // The start stamps (render::start_stamp) with their times: collection compares outputs with them.
  std::vector<std::string> out = {render::kExitMarker, sample::kOutputGlob, sample::kPowerGlob,
                                  sample::kUsageGlob, std::string(render::kStartStampPrefix) + "*"};
  if (!job_id.empty())
    for (const char* prefix : {"slurm-", "job-", "lsf-"})
      out.push_back(ssh::fnmatch_escape(prefix + job_id + ".out"));
  for (auto& c : collectors)
    for (auto& source : c.sources)
      if (!source->from_stdout && !source->file.empty()) out.push_back(source->file);
  out.insert(out.end(), fetch.include.begin(), fetch.include.end());
  return out;
}

ssh::SyncResult stage_inputs(transport::Shell& shell, const spec::Campaign& campaign,
                             const std::string& root) {
  ssh::SyncResult total;
  for (auto& in : campaign.inputs) {
    const fs::path from = spec::input_source(campaign, in);
    const std::string to = join_remote(root, in.to);
    std::error_code ec;
    const bool dir = fs::is_directory(from, ec);
    ssh::SyncResult r = dir ? ssh::sync_up(shell, from, to, in.exclude) : ssh::sync_up_file(shell, from, to);
    total.files += r.files;
    total.bytes += r.bytes;
    for (auto& t : r.transferred) total.transferred.push_back(dir ? in.to + "/" + t : in.to);
  }
  return total;
}

}  // namespace campaign::stage
