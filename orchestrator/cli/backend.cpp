#include "cli/backend.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <mutex>

#include "local/executor.hpp"
#include "local/local_scheduler.hpp"
#include "sched/transport_guard.hpp"
#include "ssh/ssh_shell.hpp"
#include "stage/remote_record.hpp"
#include "transport/local_shell.hpp"
#include "util/atomic_file.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

void add_access_options(CLI::App& cmd, AccessOptions& o) {
  cmd.add_flag("--accept-new-host-key", o.accept_new_host_key,
               "Systems reached over ssh: trust and record a host key seen for the first time (never a "
               "changed one); check its fingerprint with the site first");
  cmd.add_option("--remote-workdir", o.remote_workdir,
                 "Systems reached over ssh: the work directory on the remote side (default: the one this "
                 "work directory used before, else the profile's `workdir`/NAME, else ~/campaign-runs/NAME)");
}

namespace {

Backend make_ssh_backend(const spec::System& system, const fs::path& workdir,
                         const std::string& campaign_name, const AccessOptions& access) {
  const spec::SshAccess& a = *system.ssh;
  ssh::SshOptions so;
  so.host = a.host;
  so.user = a.user;
  so.port = static_cast<int>(a.port);
  so.identity = a.identity;
  so.jump = a.jump;
  so.known_hosts = a.known_hosts;
  so.accept_new_host_key = access.accept_new_host_key;
  auto shell = std::make_unique<ssh::SshShell>(so);
  const std::string host = shell->endpoint();
  shell->connect();  // a wrong host key or key is reported now, before anything else
  spdlog::info("system {}: connected to {}", system.name, host);

  auto recorded = stage::read_remote_record(workdir);
  if (recorded && recorded->system != system.name) recorded.reset();  // another system's
  std::string root;
  if (recorded && access.remote_workdir.empty()) {
    root = recorded->workdir;
  } else {
    root = stage::resolve_remote_root(*shell, system, campaign_name, access.remote_workdir);
    if (recorded && recorded->workdir != root)
      throw Error("the jobs of " + workdir.string() + " run in " + recorded->workdir + " on " +
                  recorded->host + ", not " + root + ": drop --remote-workdir, or use another --workdir");
  }
  if (!recorded || recorded->host != host || recorded->workdir != root) {
    stage::write_remote_record(workdir, {system.name, host, root});
    spdlog::info("system {}: remote work directory {} on {}", system.name, root, host);
  }

  Backend b;
  b.script_root = root;
  b.campaign_exe = a.campaign;
  std::unique_ptr<sched::Scheduler> inner;
  if (system.scheduler == "local")
    inner = std::make_unique<local::ShellExecutor>(*shell, a.campaign, root + "/.local", access.start_jobs);
  else
    inner = sched::make_scheduler(system.scheduler, *shell, sched::SchedulerOptions{});
  b.scheduler = std::make_unique<sched::TransportGuard>(std::move(inner));
  auto remote = std::make_unique<stage::RemoteWorkspace>(*shell, workdir, root);
  b.remote = remote.get();
  b.workspace = std::move(remote);
  b.shell = std::move(shell);
  return b;
}

}  // namespace

Backend make_backend(const spec::System& system, const fs::path& workdir, const std::string& campaign_name,
                     const AccessOptions& access) {
  if (system.ssh) return make_ssh_backend(system, workdir, campaign_name, access);
  if (!access.remote_workdir.empty())
    throw Error("--remote-workdir: system " + system.name + " is not reached over ssh (no access.ssh)");
  Backend b;
  b.shell = std::make_unique<transport::LocalShell>();
  b.script_root = workdir.string();
  b.campaign_exe = self_exe();
  if (system.scheduler == "local") {
    local::LocalOptions o;
    o.spool = workdir / ".local";
    o.start_jobs = access.start_jobs;
    b.scheduler = std::make_unique<local::LocalScheduler>(o);
  } else {
    sched::SchedulerOptions o;
    b.scheduler = sched::make_scheduler(system.scheduler, *b.shell, o);
  }
  b.workspace = std::make_unique<engine::LocalWorkspace>(*b.shell, workdir);
  return b;
}

std::vector<Opened> open_campaigns(const CampaignOptions& o, const AccessOptions& access, Verbosity v,
                                   const std::function<void(const Loaded&)>& check) {
  std::map<std::string, Backend> backends;         // by system
  std::map<std::string, std::string> unreachable;  // by system: why
  // Nothing is written before the campaign is known good (README: a bad input leaves no trace), but
  // where the jobs run over ssh: their folder there is found by asking the login node, logged.
  std::vector<Loaded> all =
      load_all(o, "", [&](const spec::Campaign& c, const spec::System& s, const fs::path& workdir) {
        if (!s.ssh) return workdir.string();
        setup_logging(workdir, v);
        try {
          Backend& b = backends[s.name] = make_backend(s, workdir, c.catalog_name(), access);
          return b.script_root;
        } catch (const transport::AccessError&) {
          throw;  // a key or host key to mend: said at once, for every system
        } catch (const transport::TransportError& e) {
          // One system of several out of reach: the others go on; this one is said and left as it is.
          if (c.part.empty()) throw;
          unreachable[s.name] = e.what();
          return workdir.string();  // nothing of it is rendered or submitted now
        }
      });
  if (check)
    for (auto& l : all) check(l);
  std::vector<Opened> out;
  for (auto& l : all) {
    // One log for the campaign, beside its catalog, whichever systems it runs on.
    setup_logging(l.catalog_dir, v);
    if (auto it = unreachable.find(l.plan.system.name); it != unreachable.end()) {
      const std::string why = "system " + l.plan.system.name + " cannot be reached: " + it->second;
      out.push_back(Opened{std::move(l), Backend{}, why});
      continue;
    }
    Backend backend = std::move(backends[l.plan.system.name]);
    if (!backend.scheduler)
      backend = make_backend(l.plan.system, l.workdir, l.campaign.catalog_name(), access);
    out.push_back(Opened{std::move(l), std::move(backend), ""});
  }
  return out;
}

void require_reachable(const std::vector<Opened>& parts) {
  for (auto& p : parts)
    if (!p.unreachable.empty()) throw transport::TransportError(p.unreachable);
}

Opened open_campaign(const CampaignOptions& o, const AccessOptions& access, Verbosity v,
                     const std::function<void(const Loaded&)>& check) {
  auto all = open_campaigns(o, access, v, check);
  require_reachable(all);
  std::vector<std::string> names;
  for (auto& p : all) names.push_back(p.loaded.plan.system.name);
  require_one_system(names, o.file, ": this command takes one of them, --system NAME");
  return std::move(all.front());
}

engine::EngineOptions engine_options(Opened& opened) {
  engine::EngineOptions eo;
  eo.campaign_exe = opened.backend.campaign_exe;
  eo.workspace = opened.backend.workspace.get();
  const auto& limits = opened.loaded.plan.system.limits;
  eo.lost_after_s = limits.lost_after_s;
  eo.accounting_wait_s = limits.accounting_wait_s;
  return eo;
}

void fetch_for_collection(Backend& backend, const spec::Campaign& campaign,
                          const collect::StepCollectors& collectors,
                          const std::vector<AttemptRow>& attempts) {
  if (!backend.remote || attempts.empty()) return;
  std::vector<stage::RemoteWorkspace::Fetch> runs;
  static const std::vector<collect::Collector> none;
  for (auto& a : attempts) {
    auto it = collectors.find(a.step);
    runs.push_back({a.run_dir, stage::fetch_patterns(it == collectors.end() ? none : it->second,
                                                     campaign.fetch, a.job_id)});
  }
  auto r = backend.remote->fetch(runs, campaign.fetch.exclude);
  spdlog::info("fetched {} files ({} bytes) of {} run directories", r.transferred.size(), r.bytes,
               runs.size());
}

void fetch_ended(Backend& backend, Catalog& catalog, std::int64_t campaign_id, const spec::Campaign& campaign,
                 const collect::StepCollectors& collectors) {
  if (!backend.remote) return;
  std::vector<AttemptRow> missing;
  for (auto& a : catalog.latest_attempts(campaign_id))
    if (is_final(a.state) && !a.job_id.empty() &&
        collect::job_output(a.run_dir, a.job_id, a.step_name).empty())
      missing.push_back(a);
  fetch_for_collection(backend, campaign, collectors, missing);
}

namespace {

// The progress line on a terminal: what it shows, so a log message on stderr
// can clear it first and draw it again after (else the message would be
// glued to the end of the line, and the line lost until the next change).
struct ProgressLine {
  std::mutex mutex;
  std::string text;
  bool shown = false;
};
ProgressLine& progress_line() {
  static ProgressLine line;
  return line;
}

class ProgressAwareSink final : public spdlog::sinks::sink {
 public:
  explicit ProgressAwareSink(std::shared_ptr<spdlog::sinks::sink> inner) : inner_(std::move(inner)) {}
  void log(const spdlog::details::log_msg& msg) override {
    ProgressLine& p = progress_line();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.shown) std::fputs("\r\033[K", stdout), std::fflush(stdout);
    inner_->log(msg);
    inner_->flush();
    if (p.shown) std::fputs(p.text.c_str(), stdout), std::fflush(stdout);
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> f) override { inner_->set_formatter(std::move(f)); }

 private:
  std::shared_ptr<spdlog::sinks::sink> inner_;
};

}  // namespace

void setup_logging(const fs::path& workdir, Verbosity v) {
  fs::create_directories(workdir);
  const fs::path log = workdir / "campaign.log";
  std::shared_ptr<spdlog::sinks::basic_file_sink_mt> file;
  try {
    file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(log.string());
  } catch (const spdlog::spdlog_ex&) {
    if (is_storage_errno(errno)) throw StorageError(log.string(), errno);  // exit status 4, as any write
    throw;
  }
  file->set_level(spdlog::level::debug);
  auto err = std::make_shared<ProgressAwareSink>(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  err->set_level(v == Verbosity::verbose
                     ? spdlog::level::info
                     : (v == Verbosity::quiet ? spdlog::level::err : spdlog::level::warn));
  err->set_pattern("campaign: %^%l%$: %v");
  auto logger = std::make_shared<spdlog::logger>("campaign", spdlog::sinks_init_list{file, err});
  logger->set_level(spdlog::level::debug);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

std::function<void(const std::string&, bool)> progress_printer(Verbosity v) {
  if (v == Verbosity::quiet) return {};
  bool tty = isatty(STDOUT_FILENO);
  return [tty](const std::string& line, bool final) {
    if (tty) {
      ProgressLine& p = progress_line();
      std::lock_guard<std::mutex> lock(p.mutex);
      std::printf("\r\033[K%s%s", line.c_str(), final ? "\n" : "");
      p.text = line;
      p.shown = !final;
    } else {
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
  };
}

}  // namespace campaign::cli
