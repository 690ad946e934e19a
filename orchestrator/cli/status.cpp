// `campaign status [FILE|WORKDIR] [--refresh] [--json]`: one line per case:
// state, attempt, job id, elapsed, reason. Reads the catalog without taking
// the writer lock, so it works while `campaign run` is going; --refresh asks
// the scheduler first (and so needs the campaign file and the lock; while a
// `run` holds the lock it shows what that run recorded, saying so).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "catalog/catalog.hpp"
#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "engine/engine.hpp"
#include "report/input.hpp"
#include "report/usage.hpp"
#include "stage/remote_record.hpp"
#include "util/columns.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

namespace {

// A running job's time counts on from its start (the elapsed time a poll stored is already old when
// read: issue 33 showed 00:00:01 while squeue said 0:10); an ended one's is the scheduler's.
std::optional<std::int64_t> elapsed_seconds(const AttemptRow& a) {
  const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  if (a.state == State::running && a.started && !a.ended)
    return std::max<std::int64_t>(0, (now - *a.started).count());
  if (a.elapsed_s) return *a.elapsed_s;
  if (a.started) return ((a.ended ? *a.ended : now) - *a.started).count();
  return std::nullopt;
}

std::string elapsed_of(const AttemptRow& a) {
  auto secs = elapsed_seconds(a);
  return !secs || *secs < 0 ? "" : format_hms(static_cast<long>(*secs));
}

// The reason, with the exit status where the scheduler's own word does not carry it (Slurm says
// "NonZeroExitCode" and nothing more: issue 33).
std::string reason_of(const AttemptRow& a) {
  if (!a.exit_code || *a.exit_code == 0 || a.reason.find("exit") != std::string::npos) return a.reason;
  return a.reason + (a.reason.empty() ? "" : " ") + "(exit " + std::to_string(*a.exit_code) + ")";
}

// `all`: also the cases the campaign file no longer lists (kept in the catalog), marked so. `usage`:
// per case, how its use contradicts its request (report/usage.hpp); a column `usage` when any does.
void print_table(const std::vector<AttemptRow>& rows, bool all,
                 const std::map<std::string, std::string>& usage, std::ostream& os) {
  std::vector<std::vector<std::string>> t;
  const bool marks = !usage.empty();
  t.push_back({"case", "state", "attempt", "job", "elapsed", "reason"});
  if (marks) t.front().push_back("usage");
  for (auto& a : rows) {
    if (!a.in_spec && !all) continue;
    t.push_back({a.case_name + (a.in_spec ? "" : " (not in the file)"), std::string(to_string(a.state)),
                 std::to_string(a.number), a.job_id, elapsed_of(a), reason_of(a)});
    if (marks) {
      auto it = usage.find(a.case_name);
      t.back().push_back(it == usage.end() ? "" : it->second);
    }
  }
  os << format_columns(t);
}

// The cases whose use contradicts their request, by name (the latest attempt's usage metrics).
std::map<std::string, std::string> usage_marks(Catalog& catalog, std::int64_t campaign_id,
                                               const std::vector<AttemptRow>& latest) {
  std::map<std::string, std::string> out;
  for (auto& c : report::case_usage(catalog, campaign_id, latest))
    if (!c.check.empty()) out[c.case_name] = c.check;
  return out;
}

nlohmann::json to_json(const CampaignRecord& c, const std::vector<AttemptRow>& rows,
                       const std::vector<EventRow>& duplicates,
                       const std::optional<stage::RemoteRecord>& remote, bool all,
                       const std::map<std::string, std::string>& usage) {
  nlohmann::json cases = nlohmann::json::array();
  for (auto& a : rows) {
    if (!a.in_spec && !all) continue;
    nlohmann::json j{{"case", a.case_name},         {"key", a.case_key},   {"step", a.step},
                     {"state", to_string(a.state)}, {"attempt", a.number}, {"job_id", a.job_id},
                     {"job_name", a.job_name},      {"reason", a.reason},  {"run_dir", a.run_dir}};
    if (!a.in_spec) j["in_file"] = false;  // no longer in the campaign file, kept in the catalog
    if (a.exit_code) j["exit_code"] = *a.exit_code;
    if (auto secs = elapsed_seconds(a)) j["elapsed_s"] = *secs;
    if (a.nodes) j["nodes"] = *a.nodes;
    if (!a.node_list.empty()) j["node_list"] = a.node_list;
    if (auto it = usage.find(a.case_name); it != usage.end()) j["usage"] = it->second;
    cases.push_back(j);
  }
  nlohmann::json code{{"version", c.code.version}, {"commit", c.code.commit}, {"dirty", c.code.dirty}};
  code["date"] =
      c.code.date ? nlohmann::json(c.code.date->time_since_epoch().count()) : nlohmann::json(nullptr);
  nlohmann::json out{{"campaign", c.name}, {"system", c.system}, {"workdir", c.workdir},
                     {"code", code},       {"tags", c.tags},     {"cases", cases}};
  if (remote && remote->system == c.system)
    out["remote"] = {{"host", remote->host}, {"workdir", remote->workdir}};
  nlohmann::json dups = nlohmann::json::array();
  for (auto& e : duplicates) {
    nlohmann::json d{{"message", e.message}, {"time", e.time.time_since_epoch().count()}};
    if (e.scope.attempt_id) d["attempt_id"] = *e.scope.attempt_id;
    dups.push_back(d);
  }
  out["duplicates"] = dups;
  return out;
}

}  // namespace

void add_status(CLI::App& app) {
  struct Options {
    std::string target;
    std::string system;
    std::string workdir;
    AccessOptions access;
    bool refresh = false;
    bool json = false;
    bool all = false;
    SelectOptions select;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("status", "Show each case's state, attempt, job id, elapsed time and reason");
  cmd->add_option("TARGET", o->target, "Campaign file or work directory (default: the current directory)");
  cmd->add_option("-s,--system", o->system, "System profile, as for run (with a campaign file)");
  cmd->add_option("-w,--workdir", o->workdir, "Work directory, as for run (with a campaign file)");
  cmd->add_flag("--refresh", o->refresh,
                "Ask the scheduler first and record what changed (needs the campaign file); starts, "
                "submits and retries nothing");
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  cmd->add_flag("--all", o->all, "Also the cases the campaign file no longer lists (kept in the catalog)");
  add_select_options(*cmd, o->select, "shown");
  add_access_options(*cmd, o->access);
  cmd->callback([o] {
    const matrix::Selection selection = selection_of(o->select, "campaign status");
    fs::path workdir;
    std::string target = o->target.empty() ? "." : o->target;
    bool is_dir = fs::is_directory(target);
    if (o->refresh) {
      if (is_dir)
        throw Error("--refresh needs the campaign file (to know its system and cases), not a directory");
      // A look: no job is started, nothing is submitted or retried (that is `run`'s).
      AccessOptions access = o->access;
      access.start_jobs = false;
      // A campaign across several systems: each of them (--system: that one).
      auto parts = open_campaigns(CampaignOptions{target, o->system, o->workdir}, access, Verbosity::normal);
      require_reachable(parts);
      workdir = parts.front().loaded.catalog_dir;
      try {
        Catalog catalog = Catalog::open(workdir);
        for (auto& opened : parts) {
          Loaded& l = opened.loaded;
          Backend& backend = opened.backend;
          engine::EngineOptions eo = engine_options(opened);
          eo.submit = false;
          engine::Engine engine(l.plan, l.workdir, catalog, *backend.scheduler, *backend.shell, eo);
          engine.start();
          engine.tick(true);
        }
      } catch (const LockedError& e) {
        // A `run` holds the catalog and asks the scheduler itself: show what it recorded (the
        // elapsed time of a running case counts on from its start), rather than nothing.
        std::cerr << "campaign: " << e.what() << "; not refreshed: that run asks the scheduler itself\n";
      }
    } else {
      workdir = reading_workdir(target, o->system, o->workdir);
    }
    require_catalog(workdir);
    Catalog catalog = Catalog::open_for_reading(workdir);
    nlohmann::json all = nlohmann::json::array();
    const std::set<std::int64_t> chosen = chosen_cases(catalog, selection, o->all, "campaign status");
    for (auto& c : catalog.campaigns()) {
      // Where its jobs ran over ssh: each system of a campaign across several has its own folder.
      auto remote = stage::read_remote_record(fs::exists(c.workdir) ? fs::path(c.workdir) : workdir);
      auto rows = catalog.latest_attempts(c.id);
      const auto usage = usage_marks(catalog, c.id, rows);
      if (!selection.empty()) {
        std::erase_if(rows, [&](const AttemptRow& a) { return !chosen.count(a.case_id); });
        if (rows.empty()) continue;  // another campaign of this catalog has the chosen cases
      }
      if (o->json) {
        all.push_back(to_json(c, rows, catalog.events_of_kind(c.id, "duplicate"), remote, o->all, usage));
        continue;
      }
      std::map<State, int> counts;
      for (auto& a : rows)
        if (a.in_spec) counts[a.state]++;
      std::cout << "campaign " << c.name << " on " << c.system << ", " << c.workdir << "\n";
      if (!c.tags.empty()) std::cout << "tags " << report::describe_tags(c.tags) << "\n";
      if (remote && remote->system == c.system)
        std::cout << "jobs run on ssh " << remote->host << " in " << remote->workdir << "\n";
      std::cout << "\n";
      print_table(rows, o->all, usage, std::cout);
      if (auto retired = std::count_if(rows.begin(), rows.end(), [](auto& a) { return !a.in_spec; });
          retired && !o->all)
        std::cout << "(" << retired
                  << " more cases of the catalog are no longer in the campaign file: --all lists them)\n";
      std::string summary;
      for (auto& [s, n] : counts)
        summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(to_string(s));
      char nh[32];
      std::snprintf(nh, sizeof nh, "%.2f", catalog.consumed_node_hours(c.id));
      std::cout << "\n" << summary << "; " << nh << " node-hours used\n";
      // Second jobs of one attempt's name (a submission that landed twice): cancelled, and said here
      // so that a user who finds them in sacct knows why.
      if (auto dups = catalog.events_of_kind(c.id, "duplicate"); !dups.empty()) {
        std::cout << "\nduplicate jobs found and cancelled: " << dups.size() << "\n";
        std::map<std::int64_t, std::string> names;
        for (auto& a : rows) names[a.id] = a.case_name;
        for (auto& e : dups) {
          auto who = e.scope.attempt_id ? names.find(*e.scope.attempt_id) : names.end();
          std::cout << "  " << (who != names.end() ? who->second + ": " : std::string()) << e.message << "\n";
        }
      }
    }
    if (o->json) std::cout << all.dump(2) << "\n";
  });
}

}  // namespace campaign::cli
