#include "driver.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "engine/engine.hpp"
#include "engine/rules.hpp"
#include "spec/library.hpp"
#include "transport/local_shell.hpp"

namespace sim {

namespace fs = std::filesystem;
using namespace campaign;

namespace {

// A small campaign: one job per case, a packed allocation or a job array; sometimes retries, sometimes
// a step its cases depend on.
std::string draw_campaign(Rng& rng, std::string& summary) {
  const long n = 1 + rng.below(4);
  const long mode = rng.below(3);
  std::string values;
  for (long i = 1; i <= n; ++i) values += (i > 1 ? ", " : "") + std::to_string(i);
  std::string y =
      "name: sim\nmatrix:\n  n: [" + values +
      "]\ncase_name: c{{n}}\n"
      "job: {partition: mc, ranks: 1, cpus_per_rank: 1, walltime: \"00:10:00\", command: \"true\"}\n";
  summary = fmt::format("{} cases, {}", n, mode == 0 ? "one job each" : mode == 1 ? "packed" : "job array");
  if (mode == 1) y += "pack: {nodes: 1, walltime: \"01:00:00\"}\n";
  if (mode == 2) y += "array: {throttle: 4}\n";
  if (rng.chance(0.5)) {
    y += "retry: {max_attempts: 2, on: [failed, node_fail, timeout, preempted, lost]}\n";
    summary += ", retries";
  }
  if (mode == 0 && rng.chance(0.3)) {
    y += "steps:\n  prepare: {matrix: {}, case_name: prepare, job: {command: \"true\"}}\n  run: {after: "
         "[prepare]}\n";
    summary += ", after a prepare step";
  }
  return y;
}

Faults draw_faults(Rng& rng, std::string& summary) {
  Faults f;
  std::vector<std::string> s;
  auto some = [&](double p, double value, const char* name) {
    if (!rng.chance(p)) return 0.0;
    s.push_back(name);
    return value;
  };
  f.flaky = some(0.5, rng.uniform(0.02, 0.15), "flaky transport");
  f.land_late = some(0.5, 0.6, "late sbatch");
  f.land_twice = some(0.3, 0.5, "sbatch twice");
  if (rng.chance(0.3)) {
    double from = rng.uniform(0, 300);
    f.outages.push_back({from, from + rng.uniform(10, 900)});
    s.push_back(fmt::format("slurmctld down {:.0f}-{:.0f}", f.outages[0].first, f.outages[0].second));
  }
  f.fail = some(0.5, 0.3, "failures");
  f.node_fail = some(0.5, 0.3, "NODE_FAIL");
  f.srun_exits_0 = some(0.5, 0.7, "srun exits 0");
  f.timeout = some(0.3, 0.2, "TIMEOUT");
  f.preempt = some(0.3, 0.2, "preemption");
  f.refused_in_dying = some(0.5, 0.5, "srun refused in dying allocations");
  f.lag_max = rng.chance(0.5) ? rng.uniform(20, 200) : rng.uniform(0, 5);
  f.min_job_age = rng.chance(0.5) ? 300 : rng.uniform(5, 60);
  s.push_back(fmt::format("accounting lag <= {:.0f} s, MinJobAge {:.0f} s", f.lag_max, f.min_job_age));
  if (rng.chance(0.5)) {
    long k = 1 + rng.below(3);
    for (long i = 0; i < k; ++i) f.kills.push_back(1 + rng.below(150));
    std::sort(f.kills.begin(), f.kills.end());
    s.push_back(fmt::format("kill -9 at call {}", fmt::join(f.kills, ", ")));
  }
  summary = fmt::format("{}", fmt::join(s, "; "));
  return f;
}

// Plans are pure functions of their text and the queue limit: parsed once per process.
const matrix::Plan& plan_of(const std::string& yaml, long max_queued, const fs::path& workdir) {
  static std::map<std::pair<std::string, long>, matrix::Plan> plans;
  static const spec::System profile =
      spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "testcluster", ".yaml"));
  auto it = plans.find({yaml, max_queued});
  if (it == plans.end()) {
    auto c = spec::parse_campaign(yaml, (workdir / "sim.yaml").string());
    spec::System system = profile;
    if (max_queued) system.limits.max_queued_jobs = max_queued;
    it = plans
             .emplace(std::pair{yaml, max_queued},
                      matrix::expand(spec::for_system(c, system.name), system, workdir.string()))
             .first;
  }
  return it->second;
}

// The same for each plan's renderer (its templates found and parsed): shared by every engine of every
// schedule of that campaign text, as a `campaign run` started again after a kill -9 would find the
// same templates.
std::shared_ptr<const render::Renderer> renderer_of(const matrix::Plan& plan) {
  static std::map<const matrix::Plan*, std::shared_ptr<const render::Renderer>> renderers;
  auto& r = renderers[&plan];
  if (!r) r = std::make_shared<const render::Renderer>(plan);
  return r;
}

// The catalog, in memory and emptied for each schedule. One connection for the whole process: a kill -9
// drops the engine, its memory and (by unwinding: SQLite::Transaction rolls back) every uncommitted
// change, which is what a new process would find; opening it again would only prepare the same
// statements again. Catalog::open and the file's durability are tested in tests/unit/catalog.
Catalog& fresh_catalog(const fs::path& workdir) {
  struct Open {
    Catalog catalog;
    std::unique_ptr<SQLite::Database> raw;  // empties the tables
    std::vector<std::unique_ptr<SQLite::Statement>> clear;
  };
  static std::map<fs::path, Open> open;
  auto it = open.find(workdir);
  if (it == open.end()) {
    const std::string name = fmt::format("campaign-sim-{}", open.size());
    Open o{Catalog::open_in_memory(name),
           std::make_unique<SQLite::Database>(Catalog::memory_uri(name),
                                              SQLite::OPEN_READWRITE | SQLite::OPEN_URI),
           {}};
    std::vector<std::string> sql = {"BEGIN"};
    SQLite::Statement q(*o.raw,
                        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    while (q.executeStep()) sql.push_back(fmt::format("DELETE FROM \"{}\"", q.getColumn(0).getString()));
    if (o.raw->tableExists("sqlite_sequence")) sql.push_back("DELETE FROM sqlite_sequence");
    sql.push_back("COMMIT");
    for (auto& text : sql) o.clear.push_back(std::make_unique<SQLite::Statement>(*o.raw, text));
    return open.emplace(workdir, std::move(o)).first->second.catalog;
  }
  // Every row goes, and the id counters with them, so a seed replays alone as in a run of many.
  for (auto& q : it->second.clear) {
    q->exec();
    q->reset();
  }
  return it->second.catalog;
}

// The first field in which the engine's cached row differs from the catalog's, or "".
std::string row_difference(const AttemptRow& cached, const AttemptRow& stored) {
  auto t = [](const std::optional<Time>& x) {
    return x ? std::to_string(x->time_since_epoch().count()) : "-";
  };
  auto o = [](const auto& x) { return x ? std::to_string(*x) : std::string("-"); };
  const std::vector<std::tuple<const char*, std::string, std::string>> fields = {
      {"id", std::to_string(cached.id), std::to_string(stored.id)},
      {"number", std::to_string(cached.number), std::to_string(stored.number)},
      {"state", std::string(to_string(cached.state)), std::string(to_string(stored.state))},
      {"in_spec", std::to_string(cached.in_spec), std::to_string(stored.in_spec)},
      {"job_id", cached.job_id, stored.job_id},
      {"job_name", cached.job_name, stored.job_name},
      {"step_name", cached.step_name, stored.step_name},
      {"array_task", o(cached.array_task), o(stored.array_task)},
      {"nodes", o(cached.nodes), o(stored.nodes)},
      {"walltime_s", o(cached.walltime_s), o(stored.walltime_s)},
      {"submitted", t(cached.submitted), t(stored.submitted)},
      {"started", t(cached.started), t(stored.started)},
      {"ended", t(cached.ended), t(stored.ended)},
      {"elapsed_s", o(cached.elapsed_s), o(stored.elapsed_s)},
      {"exit_code", o(cached.exit_code), o(stored.exit_code)},
      {"reason", cached.reason, stored.reason},
      {"cause", std::to_string(static_cast<int>(cached.cause)),
       std::to_string(static_cast<int>(stored.cause))},
      {"node_list", cached.node_list, stored.node_list},
      {"confirmed", std::to_string(cached.confirmed), std::to_string(stored.confirmed)},
      {"energy_j", o(cached.energy_j), o(stored.energy_j)},
  };
  for (auto& [name, a, b] : fields)
    if (a != b) return fmt::format("{} of attempt {}: cached '{}', catalog '{}'", name, stored.id, a, b);
  // Every field: the case's too.
  return cached == stored ? "" : fmt::format("attempt {}: a field of its case differs", stored.id);
}

}  // namespace

Outcome run_schedule(std::uint64_t seed, const ScheduleOptions& options) {
  Outcome outcome;
  Rng rng{seed};
  std::string campaign_summary, fault_summary;
  const std::string yaml = draw_campaign(rng, campaign_summary);
  Faults faults = draw_faults(rng, fault_summary);
  if (options.faults != "all") {
    Faults only;
    only.min_job_age = faults.min_job_age;
    if (options.faults == "kills") {
      only.kills = faults.kills;
      only.land_late = faults.land_late;  // the killed run's sbatch may land (within submit_grace_s)
    }
    faults = only;
    fault_summary = options.faults == "kills"
                        ? fmt::format("only kill -9 at call {}", fmt::join(faults.kills, ", "))
                        : std::string("no faults");
  }
  // Sometimes a queue limit of one to three jobs (tasks wait for room; the engine's choice that chose
  // nothing is not made again until room frees), drawn apart so that every seed's campaign and
  // faults stay what they were before it.
  Rng limit_rng{seed ^ 0x71e9c0a5d3b2f481ULL};
  const long max_queued = limit_rng.chance(0.4) ? 1 + limit_rng.below(3) : 0;
  if (max_queued) campaign_summary += fmt::format(", queue limit {}", max_queued);
  outcome.summary = campaign_summary + "; " + fault_summary;
  const fs::path& workdir = options.workdir;
  const matrix::Plan& plan = plan_of(yaml, max_queued, workdir);

  VirtualClock clock;
  Trace trace{options.trace, &clock};
  Calls calls;
  calls.kills = faults.kills;
  calls.trace = &trace;
  FakeWorkspace ws(workdir, rng, faults, calls);
  SlurmModel model(clock, rng, faults, calls, ws, trace);
  trace("schedule " + std::to_string(seed) + ": " + outcome.summary);

  Catalog& catalog = fresh_catalog(workdir);
  catalog.set_clock([&clock] { return clock.wall(); });
  transport::LocalShell shell;
  std::unique_ptr<engine::Engine> eng;
  engine::EngineOptions eo;
  eo.workspace = &ws;
  eo.steady_now = [&clock] { return clock.steady(); };
  eo.wall_now = [&clock] { return clock.wall(); };
  eo.renderer = renderer_of(plan);
  // `cancel` waits for submissions whose outcome is unknown: the virtual world moves on meanwhile.
  eo.sleep = [&clock, &model](double s) {
    clock.t += s;
    model.advance(clock.t);
  };
  bool started = false;
  using Steady = std::chrono::steady_clock;
  auto since = [](Steady::time_point t0) {
    return std::chrono::duration<double>(Steady::now() - t0).count();
  };
  auto boot = [&] {  // `campaign run`, again after a kill: only what the catalog committed survives
    const auto t0 = Steady::now();
    eng.reset();
    eng = std::make_unique<engine::Engine>(plan, workdir, catalog, model, shell, eo);
    started = false;
    outcome.spent.open += since(t0);
  };
  // What a job runs: the rows committed `submitting` under its name (the script, manifest or index).
  model.members_of = [&](const std::string& job_name) {
    std::vector<Member> out;
    for (auto& a : catalog.attempts_in(eng->campaign_id(), {State::submitting}))
      if (a.job_name == job_name)
        out.push_back({a.id, a.case_id, a.number, a.case_name, a.run_dir, a.step_name, a.array_task});
    std::sort(out.begin(), out.end(), [](auto& x, auto& y) { return x.case_id < y.case_id; });  // case order
    return out;
  };
  boot();

  std::optional<double> cancel_at;
  std::string cancel_pattern;
  if (rng.chance(0.2)) {
    cancel_at = rng.uniform(0, 120);
    cancel_pattern = rng.chance(0.5) ? std::string() : fmt::format("c{}", 1 + rng.below(2));
    outcome.summary += fmt::format("; cancel '{}' at t={:.0f}", cancel_pattern, *cancel_at);
  }
  std::vector<CancelRecord> cancels;
  const double limit = 4 * 3600;
  double next_poll = 0;
  bool finished = false;
  int quiet = 0;  // polls in a row that changed nothing
  while (clock.t < limit) {
    const auto t0 = Steady::now();
    try {
      const bool fresh = !started;
      bool cancelled = false;
      if (!started) {
        eng->start();
        started = true;
      }
      const bool poll = clock.t >= next_poll;
      if (poll) next_poll = clock.t + rng.uniform(0.5, 5);
      const bool changed = eng->tick(poll);
      if (options.check_rows && outcome.violations.empty())
        if (const auto* cached = eng->cached_rows()) {
          const auto stored = catalog.latest_attempts(eng->campaign_id());
          std::string diff =
              cached->size() == stored.size()
                  ? std::string()
                  : fmt::format("{} cached rows, {} in the catalog", cached->size(), stored.size());
          for (size_t i = 0; diff.empty() && i < stored.size(); ++i)
            diff = row_difference((*cached)[i], stored[i]);
          if (!diff.empty())
            outcome.violations.push_back({"cached_rows", fmt::format("t={:.1f}: {}", clock.t, diff)});
          // What an engine started now would remember: the fold of the recorded observations.
          diff = engine::memory_difference(eng->memory(),
                                           engine::fold_memory(catalog.observations(eng->campaign_id())));
          if (!diff.empty())
            outcome.violations.push_back({"memory", fmt::format("t={:.1f}: {}", clock.t, diff)});
        }
      // Quiet: polls that change nothing while the world is still. Skipping to just before the world's
      // next event (at most 20 s on) is the engine polling slower, as a longer poll_max would.
      quiet = changed ? 0 : quiet + (poll ? 1 : 0);
      if (cancel_at && clock.t >= *cancel_at) {
        cancel_at.reset();
        CancelRecord rec{clock.t, {}};
        for (auto& a : catalog.latest_attempts(eng->campaign_id()))
          if (a.in_spec && !engine::settled(a) &&
              (cancel_pattern.empty() || fnmatch(cancel_pattern.c_str(), a.case_name.c_str(), 0) == 0))
            rec.case_ids.push_back(a.case_id);
        try {
          int n = eng->cancel(cancel_pattern);
          trace(fmt::format("campaign cancel '{}': {} attempts", cancel_pattern, n));
          cancels.push_back(rec);
          cancelled = true;
        } catch (const Error& e) {
          trace(std::string("campaign cancel refused: ") + e.what());
        }
      }
      // Only a change can finish the run (Engine::run asks its cached rows first, too).
      if ((changed || fresh || cancelled) && eng->finished()) {
        finished = true;
        outcome.spent.engine += since(t0);
        break;
      }
      outcome.spent.engine += since(t0);
    } catch (const KillNine&) {
      ++outcome.kills;
      boot();
    } catch (const sched::SchedulerUnavailable& e) {
      if (!started) trace(std::string("start: ") + e.what());  // nothing submitted; `run` tries again
    } catch (const std::exception& e) {
      outcome.violations.push_back({"engine_error", e.what()});
      break;
    }
    double step = rng.uniform(0.5, 6);
    if (quiet >= 4 && !cancel_at)
      step = std::max(step, std::min(model.next_event(clock.t) - clock.t, 20.0) - 0.1);
    clock.t += step;
    model.advance(clock.t);
  }
  trace(finished ? "run ended: every case settled" : "virtual time ran out");
  std::vector<std::string> active;
  for (auto& j : model.jobs())
    if (j.active()) active.push_back(j.id);
  // What happens after `run` ended: jobs it left behind run on.
  clock.t += 900;
  model.advance(clock.t);

  const auto t_check = Steady::now();
  std::vector<std::vector<AttemptRow>> attempts;
  std::set<std::string> reported;  // "job N is a second job of ...": the engine's duplicate events
  if (auto c = catalog.find_campaign(plan.campaign.name)) {
    for (auto& a : catalog.latest_attempts(c->id)) attempts.push_back(catalog.attempts_of_case(a.case_id));
    for (auto& e : catalog.events_of_kind(c->id, "duplicate"))
      if (e.message.rfind("job ", 0) == 0) reported.insert(e.message.substr(4, e.message.find(' ', 4) - 4));
  }
  auto found = check({model.jobs(), attempts, cancels, active, finished, faults.min_job_age,
                      eo.accounting_wait_s, faults.outages, reported});
  outcome.violations.insert(outcome.violations.end(), found.begin(), found.end());
  outcome.spent.check = since(t_check);
  outcome.calls = calls.n;
  outcome.virtual_s = clock.t;
  eng.reset();
  return outcome;
}

}  // namespace sim
