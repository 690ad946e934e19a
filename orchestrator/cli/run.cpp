// `campaign run FILE` and `campaign resume FILE [--failed]`: plan if needed,
// submit, poll until every case is final (or --no-wait: submit and return).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "catalog/catalog.hpp"
#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "engine/engine.hpp"
#include "history/code_version.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace campaign::cli {

namespace {

struct RunOptions {
  CampaignOptions campaign;
  AccessOptions access;
  bool no_wait = false;
  bool failed = false;
  bool again = false;
  SelectOptions select;
  bool quiet = false;
  bool verbose = false;
  std::string label;
  std::vector<std::string> tags;
};

// Crash tests: CAMPAIGN_TEST_CRASH=after_submit:N kills the process (as kill -9
// would) at the N-th time the engine passes that point.
std::function<void(const std::string&)> crash_hook() {
  const char* spec = std::getenv("CAMPAIGN_TEST_CRASH");
  if (!spec) return {};
  auto parts = split(spec, ':');
  std::string point = parts[0];
  long n = parts.size() > 1 ? std::stol(parts[1]) : 1;
  auto count = std::make_shared<std::atomic<long>>(0);
  return [point, n, count](const std::string& at) {
    if (at == point && ++*count >= n) std::_Exit(137);
  };
}

// The campaign's `inputs` into the work directory the jobs run in (only what changed).
void stage_campaign_inputs(const Loaded& l, Backend& backend) {
  if (l.campaign.inputs.empty()) return;
  auto r = stage::stage_inputs(*backend.shell, l.campaign, backend.script_root);
  spdlog::info("inputs: {} files, {} sent ({} bytes) to {}", r.files, r.transferred.size(), r.bytes,
               backend.script_root);
}

// Cases whose latest attempt did not succeed: the job failed, or its outputs could not be collected.
// (A collect_failed case lets the steps after it run; the sweep still did not succeed.)
// Only the chosen ones (--case/--only) when `selected` is set.
std::vector<AttemptRow> unsuccessful_cases(Catalog& catalog, std::int64_t campaign_id,
                                           const std::optional<std::set<std::string>>& selected) {
  std::vector<AttemptRow> out;
  for (auto& a : catalog.latest_attempts(campaign_id))
    if (a.in_spec && is_final(a.state) && a.state != State::completed && a.state != State::collected &&
        (!selected || selected->count(a.case_key)))
      out.push_back(a);
  return out;
}

void print_unsuccessful(const std::vector<AttemptRow>& cases, std::ostream& os) {
  os << cases.size() << (cases.size() == 1 ? " case" : " cases") << " did not succeed:\n";
  for (auto& a : cases)
    os << "  " << a.case_name << ": " << to_string(a.state) << (a.reason.empty() ? "" : " (" + a.reason + ")")
       << "\n";
}

// A `reference: FILE` is copied beside the catalog as it is now: `report WORKDIR`, history and the
// site read a run's campaign from the catalog, the file's name relative to the work directory.
void snapshot_reference_file(const Loaded& l) {
  if (!l.campaign.reference_file) return;
  const std::filesystem::path rel = *l.campaign.reference_file;
  std::ifstream in(l.campaign.dir / rel, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::create_directories((l.catalog_dir / rel).parent_path());
  write_file_atomic(l.catalog_dir / rel, text.str());
}

// What one system's engine left (a campaign on one system has one).
struct PartOutcome {
  int rc = 0;
  bool ended = false;  // not interrupted, every case settled
  std::int64_t campaign_id = 0;
  engine::Counts counts;
  int duplicates = 0;
  std::optional<std::set<std::string>> selected;
  std::exception_ptr error;  // what stopped it (a campaign across several systems: after the others)
};

// One system's run: its engine to the end, then what completed meanwhile collected and the ended
// cases' files fetched.
PartOutcome drive(Opened& opened, Catalog& catalog, const RunOptions& o, bool resume,
                  const std::optional<matrix::Chosen>& chosen, const std::map<std::string, std::string>& tags,
                  std::function<void(const std::string&, bool)> progress,
                  std::function<void(const std::string&)> hook) {
  Loaded& l = opened.loaded;
  Backend& backend = opened.backend;
  stage_campaign_inputs(l, backend);
  engine::EngineOptions eo = engine_options(opened);
  eo.wait = !o.no_wait;
  eo.retry_failed = resume && o.failed;
  if (chosen) eo.selected = chosen->needed;
  if (resume && o.again && chosen) eo.again = chosen->chosen;
  auto code = history::detect_code_version(l.plan, o.label, *backend.shell);
  eo.code = code.record();
  eo.tags = tags;
  if (auto old = catalog.find_campaign(l.campaign.catalog_name());
      old && !old->code.commit.empty() && old->code.commit != code.commit)
    spdlog::warn(
        "the code changed since this campaign started ({} -> {}): its cases ran different versions; "
        "a fresh --workdir keeps one version per run",
        old->code.version, code.display().empty() ? "unknown" : code.display());
  eo.progress = std::move(progress);
  eo.hook = std::move(hook);
  // Over ssh every marker read is a command on the login node: at the poll cadence, not faster.
  if (backend.remote) eo.marker_interval_s = std::max(eo.marker_interval_s, l.plan.system.limits.poll_min_s);
  const auto& collectors = l.collectors;
  eo.on_completed = [&](const AttemptRow& a) {
    auto it = collectors.find(a.step);
    try {
      fetch_for_collection(backend, l.campaign, collectors, {a});
    } catch (const transport::TransportError& e) {
      // It stays completed: collected at the end of this run or by `campaign collect`.
      spdlog::warn("{}: cannot fetch its files yet: {}", a.case_name, e.what());
      return false;
    }
    if (it == collectors.end() || it->second.empty()) return false;  // nothing to collect: completed
    collect::collect_attempt(catalog, a, it->second);
    return true;
  };
  PartOutcome out;
  out.selected = eo.selected;
  engine::Engine engine(l.plan, l.workdir, catalog, *backend.scheduler, *backend.shell, eo);
  spdlog::info("campaign {} on {} ({}), work directory {}{}", l.campaign.name, l.plan.system.name,
               l.system_how, l.workdir.string(), backend.remote ? ", jobs in " + backend.script_root : "");
  out.rc = engine.run();
  out.campaign_id = engine.campaign_id();
  // Cases that completed while no collector ran (a crash in between) are collected now.
  try {
    collect_finished(catalog, engine.campaign_id(), collectors, false,
                     [&](const std::vector<AttemptRow>& as) {
                       fetch_for_collection(backend, l.campaign, collectors, as);
                     });
    // Outputs of the jobs that failed too, and of those whose fetch failed: the mirror is complete.
    fetch_ended(backend, catalog, engine.campaign_id(), l.campaign, collectors);
  } catch (const transport::TransportError& e) {
    spdlog::warn("cannot fetch the files of ended cases: {}; `campaign collect` later", e.what());
  }
  out.ended = out.rc != 130 && engine.finished();
  out.counts = engine.counts();
  out.duplicates = engine.duplicates_cancelled();
  return out;
}

// The progress of several systems on one line: each system's latest, side by side.
std::function<void(const std::string&, bool)> joined_progress(
    std::function<void(const std::string&, bool)> print, const std::vector<std::string>& systems,
    const std::string& system) {
  if (!print) return {};
  struct Shared {
    std::mutex mutex;
    std::map<std::string, std::string> lines;
    std::set<std::string> final;
  };
  static std::shared_ptr<Shared> shared = std::make_shared<Shared>();
  return [print, systems, system](const std::string& line, bool final) {
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->lines[system] = line;
    if (final) shared->final.insert(system);
    std::vector<std::string> parts;
    for (auto& s : systems)
      if (auto it = shared->lines.find(s); it != shared->lines.end()) parts.push_back(s + " " + it->second);
    print(join(parts, " || "), shared->final.size() == systems.size());
  };
}

int run_campaign(const RunOptions& o, bool resume) {
  const std::string command = resume ? "campaign resume" : "campaign run";
  const matrix::Selection selection = selection_of(o.select, command);
  if (o.again && selection.empty())
    throw InputError({command}, "--again",
                     "runs chosen cases again: say which with --case GLOB or --only KEY=VALUE");
  const std::map<std::string, std::string> tags = parse_tags(o.tags, command);
  Verbosity v = o.quiet ? Verbosity::quiet : (o.verbose ? Verbosity::verbose : Verbosity::normal);
  // The selection is checked against the plan before anything is written; on a campaign across
  // several systems it must choose somewhere, and a system where it chooses nothing is left alone.
  std::map<std::string, std::optional<matrix::Chosen>> chosen;  // by system
  std::optional<InputError> unchosen;
  std::map<std::string, size_t> planned;  // cases by system
  std::vector<Opened> parts = open_campaigns(o.campaign, o.access, v, [&](const Loaded& l) {
    planned[l.plan.system.name] = l.plan.cases.size();
    if (selection.empty()) return;
    try {
      check_selection(selection, command, l.plan);
      chosen[l.plan.system.name] = matrix::select_cases(l.plan, selection);
    } catch (const InputError& e) {
      if (!l.part) throw;
      if (!unchosen) unchosen = e;
    }
  });
  if (unchosen && chosen.empty()) throw *unchosen;
  if (!selection.empty())
    std::erase_if(parts, [&](const Opened& p) { return !chosen.count(p.loaded.plan.system.name); });
  const bool several = parts.front().loaded.part;  // one of several systems (a lone system is no part)
  for (auto& [system, c] : chosen) {
    const size_t added = c->needed.size() - c->chosen.size();
    if (!o.quiet)
      std::cout << fmt::format("{}{}: {} of the {} cases{}\n", several ? system + ": " : "",
                               selection.describe(), c->chosen.size(), planned[system],
                               added ? fmt::format(", and {} they run after", added) : "");
  }
  Catalog catalog = Catalog::open(parts.front().loaded.catalog_dir);
  snapshot_reference_file(parts.front().loaded);
  auto hook = crash_hook();
  auto print = progress_printer(v);
  std::vector<std::string> systems;
  for (auto& p : parts) systems.push_back(p.loaded.plan.system.name);
  std::vector<PartOutcome> outcomes(parts.size());
  auto chosen_of = [&](const Opened& p) {
    auto it = chosen.find(p.loaded.plan.system.name);
    return it == chosen.end() ? std::optional<matrix::Chosen>() : it->second;
  };
  // A system whose login node did not answer at the start: said, the others run without it.
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parts[i].unreachable.empty()) {
      spdlog::error("{}; its cases wait: `campaign run` again once it answers", parts[i].unreachable);
      outcomes[i].rc = 1;
      outcomes[i].error = std::make_exception_ptr(transport::TransportError(parts[i].unreachable));
    }
  std::vector<size_t> reachable;
  std::vector<std::string> shown;  // on the progress line
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].unreachable.empty()) reachable.push_back(i), shown.push_back(systems[i]);
  if (reachable.size() == 1) {
    const size_t i = reachable.front();
    outcomes[i] = drive(parts[i], catalog, o, resume, chosen_of(parts[i]), tags,
                        several ? joined_progress(print, shown, systems[i]) : print, hook);
  } else {
    // Each system on a thread of its own, over its own connection to the catalog: a system whose link
    // or scheduler hangs holds up none of the others.
    std::vector<std::thread> threads;
    std::vector<Catalog> connections;
    for (size_t k = 0; k < reachable.size(); ++k) connections.push_back(catalog.sibling());
    for (size_t k = 0; k < reachable.size(); ++k)
      threads.emplace_back([&, k] {
        const size_t i = reachable[k];
        try {
          outcomes[i] = drive(parts[i], connections[k], o, resume, chosen_of(parts[i]), tags,
                              joined_progress(print, shown, systems[i]), hook);
        } catch (...) {
          outcomes[i].error = std::current_exception();
          outcomes[i].rc = 1;
          try {
            throw;
          } catch (const std::exception& e) {
            spdlog::error("system {}: {}", systems[i], e.what());
          }
        }
      });
    for (auto& t : threads) t.join();
  }
  int rc = 0;
  bool all_ended = true;
  for (auto& out : outcomes) {
    if (out.rc == 130)
      rc = 130;
    else if (rc != 130)
      rc = std::max(rc, out.rc);
    all_ended &= out.ended && !out.error;
  }
  std::optional<std::filesystem::path> report;
  std::vector<std::pair<std::string, std::vector<AttemptRow>>> unsuccessful;
  history::ReferenceSummary references;
  if (all_ended) {
    std::vector<FinalPart> finals;
    for (size_t i = 0; i < parts.size(); ++i)
      finals.push_back(
          {&parts[i].loaded.campaign, systems[i], outcomes[i].campaign_id, parts[i].loaded.part});
    // The report is the whole campaign's: the systems not run now (--system) with what they had.
    if (parts.front().loaded.part)
      for (auto& c : catalog.campaigns())
        if (is_part_of(c, parts.front().loaded.campaign.name) &&
            std::none_of(finals.begin(), finals.end(),
                         [&](const FinalPart& f) { return f.campaign_id == c.id; }))
          finals.push_back({&parts.front().loaded.campaign, c.system, c.id, true});
    auto written = write_final_report(catalog, finals, parts.front().loaded.catalog_dir);
    report = written.path;
    references = written.references;
    for (size_t i = 0; i < parts.size(); ++i) {
      auto bad = unsuccessful_cases(catalog, outcomes[i].campaign_id, outcomes[i].selected);
      if (!bad.empty()) rc = std::max(rc, 1), unsuccessful.emplace_back(systems[i], std::move(bad));
    }
  }
  if (!o.quiet) {
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto& out = outcomes[i];
      const auto& counts = out.counts;
      const std::string on = several ? systems[i] + ": " : "";
      if (out.error) {
        std::cout << on << "stopped: see the error above; `campaign run` again resumes it\n";
        continue;
      }
      // Done: every case succeeded; "12 collected, 1 completed" alone read as unfinished (issue 33).
      const bool done = out.ended && out.rc == 0 &&
                        std::none_of(unsuccessful.begin(), unsuccessful.end(),
                                     [&](auto& u) { return u.first == systems[i]; });
      std::string what =
          done ? fmt::format("{} {}case{} succeeded ({})", counts.cases, chosen.empty() ? "" : "chosen ",
                             counts.cases == 1 ? "" : "s", counts.line())
               : counts.line();
      std::cout << on
                << (out.rc == 130 ? "interrupted: "
                                  : (!out.ended ? "submitted: " : (done ? "done: " : "finished: ")))
                << what << "; work directory " << parts[i].loaded.workdir.string() << "\n";
      if (int d = out.duplicates)
        std::cout << on << "duplicates: " << d << " second job" << (d == 1 ? "" : "s")
                  << " of a case's name found and cancelled, or found ended (submissions that landed twice; "
                     "`campaign status` lists them)\n";
    }
    if (report) std::cout << "report: " << report->string() << "\n";
  }
  for (auto& [system, bad] : unsuccessful) {
    if (several) std::cerr << system << ": ";
    print_unsuccessful(bad, std::cerr);
  }
  if (references.checked) {
    history::print_reference_summary(references, std::cerr);
    if (references.out && rc == 0) rc = 3;
  }
  for (auto& out : outcomes)
    if (out.error) std::rethrow_exception(out.error);
  return rc;
}

void add_run_options(CLI::App* cmd, RunOptions& o) {
  add_campaign_options(*cmd, o.campaign);
  add_access_options(*cmd, o.access);
  cmd->add_flag(
      "--no-wait", o.no_wait,
      "Submit what is ready and return; `campaign status --refresh` or `campaign run` picks up later");
  cmd->add_flag("-q,--quiet", o.quiet, "No progress line; errors only");
  cmd->add_flag("-v,--verbose", o.verbose, "Log every submission and state change on stderr too");
  add_select_options(*cmd, o.select,
                     "run: the others are left as they are (those a chosen case runs after are chosen too)");
  cmd->add_option("--label", o.label,
                  "Name of the code version under test, recorded with the run (default: the git commit of "
                  "code_dir, else of the campaign file's repository; both are recorded when known)");
  cmd->add_option("--tag", o.tags,
                  "Tag the run: KEY=VALUE or a WORD (repeatable; kept with the run, a KEY given again takes "
                  "the new VALUE), shown by status, show, results, list and the report; list --tag "
                  "chooses by them")
      ->type_name("KEY=VALUE|WORD");
}

}  // namespace

void add_run(CLI::App& app, int& status) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run",
      "Plan the campaign if needed, submit its jobs, poll until every case is final. Safe to interrupt and "
      "run again: completed cases are never resubmitted, and nothing is submitted twice");
  add_run_options(cmd, *o);
  cmd->callback([o, &status] { status = run_campaign(*o, false); });

  auto r = std::make_shared<RunOptions>();
  auto* res =
      app.add_subcommand("resume", "Continue a campaign (as run); --failed also retries cases that failed");
  add_run_options(res, *r);
  res->add_flag("--failed", r->failed, "Give failed, timed-out, cancelled and lost cases a new attempt");
  res->add_flag("--again", r->again,
                "Give the chosen cases (--case/--only) a new attempt even where they completed; earlier "
                "attempts and their results stay in the catalog");
  res->callback([r, &status] { status = run_campaign(*r, true); });
}

}  // namespace campaign::cli
