// `campaign run FILE` and `campaign resume FILE [--failed]`: plan if needed,
// submit, poll until every case is final (or --no-wait: submit and return).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "engine/engine.hpp"
#include "history/code_version.hpp"
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
  auto count = std::make_shared<long>(0);
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

int run_campaign(const RunOptions& o, bool resume) {
  const std::string command = resume ? "campaign resume" : "campaign run";
  const matrix::Selection selection = selection_of(o.select, command);
  if (o.again && selection.empty())
    throw InputError({command}, "--again",
                     "runs chosen cases again: say which with --case GLOB or --only KEY=VALUE");
  const std::map<std::string, std::string> tags = parse_tags(o.tags, command);
  Verbosity v = o.quiet ? Verbosity::quiet : (o.verbose ? Verbosity::verbose : Verbosity::normal);
  // The selection is checked against the plan before anything is written.
  std::optional<matrix::Chosen> chosen;
  Opened opened = open_campaign(o.campaign, o.access, v, [&](const Loaded& l) {
    if (selection.empty()) return;
    check_selection(selection, command, l.plan);
    chosen = matrix::select_cases(l.plan, selection);
  });
  Loaded& l = opened.loaded;
  if (chosen) {
    const size_t added = chosen->needed.size() - chosen->chosen.size();
    if (!o.quiet)
      std::cout << fmt::format("{}: {} of the {} cases{}\n", selection.describe(), chosen->chosen.size(),
                               l.plan.cases.size(),
                               added ? fmt::format(", and {} they run after", added) : "");
  }
  Backend& backend = opened.backend;
  Catalog catalog = Catalog::open(l.workdir);
  stage_campaign_inputs(l, backend);
  engine::EngineOptions eo = engine_options(opened);
  eo.wait = !o.no_wait;
  eo.retry_failed = resume && o.failed;
  if (chosen) eo.selected = chosen->needed;
  if (resume && o.again) eo.again = chosen->chosen;
  auto code = history::detect_code_version(l.plan, o.label, *backend.shell);
  eo.code = code.record();
  eo.tags = tags;
  if (auto old = catalog.find_campaign(l.campaign.name);
      old && !old->code.commit.empty() && old->code.commit != code.commit)
    spdlog::warn(
        "the code changed since this campaign started ({} -> {}): its cases ran different versions; "
        "a fresh --workdir keeps one version per run",
        old->code.version, code.display().empty() ? "unknown" : code.display());
  eo.progress = progress_printer(v);
  eo.hook = crash_hook();
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
      return;
    }
    if (it != collectors.end() && !it->second.empty()) collect::collect_attempt(catalog, a, it->second);
  };
  engine::Engine engine(l.plan, l.workdir, catalog, *backend.scheduler, *backend.shell, eo);
  spdlog::info("campaign {} on {} ({}), work directory {}{}", l.campaign.name, l.plan.system.name,
               l.system_how, l.workdir.string(), backend.remote ? ", jobs in " + backend.script_root : "");
  int rc = engine.run();
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
  std::optional<std::filesystem::path> report;
  std::vector<AttemptRow> unsuccessful;
  if (rc != 130 && engine.finished()) {
    report = write_final_report(catalog, l.campaign, engine.campaign_id(), l.workdir);
    unsuccessful = unsuccessful_cases(catalog, engine.campaign_id(), eo.selected);
    if (!unsuccessful.empty()) rc = 1;
  }
  if (!o.quiet) {
    auto counts = engine.counts();
    // Done: every case succeeded; "12 collected, 1 completed" alone read as unfinished (issue 33).
    const bool ended = rc != 130 && engine.finished();
    const bool done = ended && rc == 0;
    std::string what = done ? fmt::format("{} {}case{} succeeded ({})", counts.cases, chosen ? "chosen " : "",
                                          counts.cases == 1 ? "" : "s", counts.line())
                            : counts.line();
    std::cout << (rc == 130 ? "interrupted: " : (!ended ? "submitted: " : (done ? "done: " : "finished: ")))
              << what << "; work directory " << l.workdir.string() << "\n";
    if (int d = engine.duplicates_cancelled())
      std::cout << "duplicates: " << d << " second job" << (d == 1 ? "" : "s")
                << " of a case's name found and cancelled, or found ended (submissions that landed twice; "
                   "`campaign status` lists them)\n";
    if (report) std::cout << "report: " << report->string() << "\n";
  }
  if (!unsuccessful.empty()) print_unsuccessful(unsuccessful, std::cerr);
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
