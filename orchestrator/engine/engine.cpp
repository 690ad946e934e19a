#include "engine/engine.hpp"

#include <fmt/format.h>
#include <fnmatch.h>
#include <spdlog/spdlog.h>

#include <boost/asio.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <set>
#include <thread>

#include "engine/marker_watch.hpp"
#include "engine/markers.hpp"
#include "engine/rules.hpp"
#include "pack/manifest.hpp"
#include "render/catalog_rows.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::engine {

std::string Counts::line() const {
  static const State order[] = {State::planned,   State::submitting,    State::queued, State::running,
                                State::completed, State::collected,     State::failed, State::timeout,
                                State::node_fail, State::preempted,     State::oom,    State::lost,
                                State::cancelled, State::collect_failed};
  std::string out;
  for (State s : order) {
    auto it = by_state.find(s);
    if (it == by_state.end() || it->second == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(it->second) + " " + std::string(to_string(s));
  }
  return out;
}

namespace {

// The first few names, and how many more.
std::string some_of(const std::vector<std::string>& names) {
  constexpr size_t kShown = 5;
  std::vector<std::string> shown(names.begin(),
                                 names.begin() + static_cast<long>(std::min(names.size(), kShown)));
  return join(shown, ", ") +
         (names.size() > kShown ? fmt::format(" and {} more", names.size() - kShown) : "");
}

// This thread's CPU time, what a tick costs (`run` drives each system of a campaign across several
// on a thread of its own: the others' ticks are not this one's).
Clock::duration process_cpu() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::duration_cast<Clock::duration>(std::chrono::seconds(ts.tv_sec) +
                                                     std::chrono::nanoseconds(ts.tv_nsec));
}

}  // namespace

Engine::Engine(const matrix::Plan& plan, const fs::path& workdir, Catalog& catalog,
               sched::Scheduler& scheduler, transport::Shell& shell, EngineOptions options)
    : plan_(plan),
      workdir_(workdir),
      catalog_(catalog),
      scheduler_(scheduler),
      shell_(shell),
      options_(std::move(options)),
      renderer_(options_.renderer ? options_.renderer : std::make_shared<const render::Renderer>(plan)),
      local_workspace_(shell, workdir),
      workspace_(options_.workspace ? *options_.workspace : local_workspace_),
      submit_order_(interleaved_order(plan)),
      rules_{options_.lost_after_s,   options_.confirm_every_polls, options_.confirm_timeout_s,
             options_.submit_grace_s, options_.accounting_wait_s,   options_.submit_record_wait_s},
      rate_(plan.system.limits.max_submits_per_minute),
      started_at_(now()) {}

Clock::time_point Engine::now() const { return options_.steady_now ? options_.steady_now() : Clock::now(); }

Time Engine::wall() const {
  if (options_.wall_now) return options_.wall_now();
  return std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
}

void Engine::start() {
  CampaignRow row = render::campaign_row(plan_, workdir_);
  campaign_id_ = catalog_.upsert_campaign(row);
  if (options_.code) catalog_.record_code_version(campaign_id_, *options_.code);
  catalog_.add_tags(campaign_id_, options_.tags);
  if (auto rec = catalog_.find_campaign(row.name))
    job_id_prefix_ =
        render::campaign_id(row.name, workdir_, std::to_string(rec->created.time_since_epoch().count()));

  auto rows = render::case_rows(plan_, workdir_);
  auto sync = catalog_.sync_cases(campaign_id_, rows);
  case_ids_ = sync.ids;
  for (size_t i = 0; i < plan_.cases.size(); ++i)
    if (const auto& launch = plan_.step_of(plan_.cases[i]).job.launch; launch && !*launch)
      stepless_cases_.insert(case_ids_[i]);
  for (auto& c : plan_.cases)
    for (size_t d : c.after) dependency_cases_.insert(case_ids_[d]);
  if (sync.inserted) spdlog::info("{} new cases in the catalog", sync.inserted);
  if (sync.retired)
    spdlog::warn(
        "{} cases of the catalog are no longer in the campaign file ({}): kept with their attempts "
        "and results, not run; `campaign status --all` lists them",
        sync.retired, some_of(sync.retired_names));

  // What the decisions of earlier runs remembered, as they committed it.
  memory_ = fold_memory(catalog_.observations(campaign_id_));
  auto latest = latest_attempts();
  say_changes(sync.changed, latest);
  reconcile(latest);  // throws SchedulerUnavailable: nothing may be submitted before this succeeds
  int ours = 0;
  for (auto& a : latest) ours += is_active(a.state) ? 1 : 0;
  others_in_queue_ = std::max(0, scheduler_.queued_jobs_of_user() - ours);

  if (options_.retry_failed) apply(resume_failed(latest), latest);
  if (!options_.again.empty()) apply(run_again(latest, options_.again), latest);
  latest_ = std::move(latest);  // kept as written, as the ticks keep them: the first needs no read
  latest_valid_ = true;
  watch_stale_ = true;
  report(false);
}

void Engine::say_changes(const std::vector<SyncResult::Changed>& changed,
                         const std::vector<AttemptRow>& latest) {
  if (changed.empty()) return;
  std::map<std::int64_t, const AttemptRow*> of_case;
  for (auto& a : latest) of_case[a.case_id] = &a;
  std::vector<std::string> names;
  std::set<std::string> fields;
  for (auto& c : changed) {
    names.push_back(c.name);
    const auto what = render::definition_changes(c.before, c.after);
    for (auto& w : what) fields.insert(w.substr(0, w.find(':')));
    const AttemptRow* a = of_case.count(c.case_id) ? of_case[c.case_id] : nullptr;
    std::string fate = "its next attempt runs the new definition";
    if (a && (a->state == State::completed || a->state == State::collected))
      fate =
          fmt::format("attempt {} completed with the earlier one and stands (nothing runs again)", a->number);
    else if (a && (a->state == State::submitting || a->state == State::queued || a->state == State::running))
      fate = fmt::format("attempt {}'s job runs the earlier one; a retry would run the new one", a->number);
    else if (a && is_final(a->state))
      fate = fmt::format(
          "attempt {} ({}) ran the earlier one, its script kept as attempt-{}/job.sh; a new attempt "
          "(the retry policy, resume --failed) runs the new one",
          a->number, to_string(a->state), a->number);
    spdlog::info("{} changed: {}; {}", c.name, join(what, "; "), fate);
  }
  spdlog::warn(
      "the campaign file changed since the catalog recorded {} of its cases ({}: {}): what ran stays as it "
      "ran; what runs next runs the new definition (campaign.log says per case)",
      changed.size(), join(std::vector<std::string>(fields.begin(), fields.end()), ", "), some_of(names));
}

void Engine::refresh(AttemptRow& row) { row = attempt(row.id); }

void Engine::mask(AttemptRow& row) const {
  if (options_.selected && !options_.selected->count(row.case_key)) row.in_spec = false;
}

std::vector<AttemptRow> Engine::latest_attempts() {
  auto rows = catalog_.latest_attempts(campaign_id_);
  if (options_.selected)
    for (auto& r : rows) mask(r);
  return rows;
}

AttemptRow Engine::attempt(std::int64_t id) {
  auto row = catalog_.attempt(id);
  mask(row);
  return row;
}

std::vector<AttemptRow>& Engine::cached_latest() {
  if (!latest_valid_) {
    latest_ = latest_attempts();
    latest_valid_ = true;
    watch_stale_ = true;
  }
  return latest_;
}

bool Engine::tick(bool poll_scheduler) {
  // This process is the catalog's only writer and refreshes each row it writes: the rows are read
  // whole only when an error may have come between a write and its refresh.
  struct Unknown {  // an exception escaping the tick
    bool& valid;
    bool done = false;
    ~Unknown() {
      if (!done) valid = false;
    }
  } unknown{latest_valid_};
  auto& latest = cached_latest();
  bool changed = false;
  bool unresolved = false;
  // Attempts left `submitting` are looked up by name at the poll cadence, not every tick: one may
  // stay unresolved for up to submit_grace_s.
  if (poll_scheduler &&
      std::any_of(latest.begin(), latest.end(), [](auto& a) { return a.state == State::submitting; })) {
    try {
      changed |= reconcile(latest);
    } catch (const sched::SchedulerUnavailable& e) {
      if (scheduler_problem_.empty())
        spdlog::warn("scheduler unavailable, cannot reconcile submissions yet: {}", e.what());
      scheduler_problem_ = e.what();
      unresolved = true;  // submit nothing until the outcome of earlier submissions is known
    }
  }
  changed |= apply_markers(latest);
  if (poll_scheduler) {
    try {
      changed |= poll(latest);
      if (!scheduler_problem_.empty()) spdlog::info("the scheduler answers again");
      scheduler_problem_.clear();
      unreachable_since_.reset();
    } catch (const sched::SchedulerUnavailable& e) {
      // A streak of step accounting failures is of polls that reached it, one after the other: after
      // a poll that did not, its next failure may be the link's, not slurmdbd's.
      accounting_failing_since_.reset();
      if (scheduler_problem_.empty()) spdlog::warn("scheduler unavailable, will retry: {}", e.what());
      scheduler_problem_ = e.what();
      if (!unreachable_since_) unreachable_since_ = now();
      // A poll that got no answer found no job: every active job's marker is all there is (a job
      // that ran meanwhile completes on it, unconfirmed, and stands once the scheduler stays away).
      changed |= apply_markers_of(unmarked_in_ended(latest, {}, memory_), latest, wall());
      confirm_unreachable(latest);
    }
  }
  // status --refresh (options_.submit false) only looks: no retry, no submission.
  if (options_.submit) changed |= apply(retries(plan_, case_ids_, latest), latest);
  if (options_.submit && scheduler_problem_.empty() && !unresolved) {
    try {
      changed |= submit_ready(latest);
    } catch (const sched::SchedulerUnavailable& e) {
      scheduler_problem_ = e.what();
    }
  }
  if (changed) report(false);
  unknown.done = true;
  return changed;
}

bool Engine::finished() {
  // The cached rows mirror this engine's own writes (the simulator holds them equal to the catalog's
  // after every tick); without them, the catalog's. A collection by the caller after run() changes
  // no answer: collected and collect_failed are as settled as the confirmed completion before.
  auto unsettled = [](const AttemptRow& a) { return a.in_spec && !settled(a); };
  if (latest_valid_) return std::none_of(latest_.begin(), latest_.end(), unsettled);
  auto latest = latest_attempts();
  return std::none_of(latest.begin(), latest.end(), unsettled);
}

int Engine::cancel(const std::string& pattern) {
  // It writes through copies of the rows, not the cached ones: read them again after, however it ends.
  struct Invalidate {
    bool& valid;
    ~Invalidate() { valid = false; }
  } invalidate{latest_valid_};
  auto matches = [&](const AttemptRow& a) {
    return pattern.empty() || fnmatch(pattern.c_str(), a.case_name.c_str(), 0) == 0;
  };
  // What has a job or none yet is cancelled at once; a submission whose outcome is not known yet may
  // still make a job (cancelling its attempt now would leave that job running unowned): it is waited
  // for (on_reconcile's bound), then cancelled the same way.
  int n = cancel_known(matches);
  for (bool said = false;;) {
    auto latest = latest_attempts();
    std::vector<std::string> waiting;
    for (auto& a : latest)
      if (a.state == State::submitting && matches(a)) waiting.push_back(a.case_name);
    if (waiting.empty()) break;
    if (!said)
      spdlog::warn("waiting for the outcome of the submission of {} before cancelling", join(waiting, ", "));
    said = true;
    if (!reconcile(latest)) {
      const double pause = plan_.system.limits.poll_min_s;
      if (options_.sleep)
        options_.sleep(pause);
      else
        std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    }
    n += cancel_known(matches);
  }
  return n;
}

int Engine::cancel_known(const std::function<bool(const AttemptRow&)>& matches) {
  auto latest = latest_attempts();
  std::set<std::int64_t> matched;
  for (auto& a : latest)
    if (matches(a)) matched.insert(a.id);
  std::optional<std::vector<sched::StepInfo>> steps;
  if (auto partial = cancel_partial(latest, matched); !partial.empty())
    steps = scheduler_.running_steps(partial);
  CancelChoice choice = choose_cancel(latest, matched, steps);
  if (!choice.refused.empty())
    throw Error(
        "cannot cancel a packed case alone before its step runs, and cancelling its allocation "
        "would end the cases beside it: " +
        join(choice.refused, "; ") + ". Cancel it once it runs, or together with the cases beside it");
  apply(choice.actions, latest);  // the scheduler's cancel first: when it fails, no state changes
  return choice.cancelled;
}

Counts Engine::counts() { return counts_of(latest_attempts()); }

Counts Engine::counts_of(const std::vector<AttemptRow>& latest) {
  Counts c;
  for (auto& a : latest) {
    if (!a.in_spec) continue;
    c.by_state[a.state]++;
    c.cases++;
  }
  c.node_hours = catalog_.reported_node_hours(campaign_id_);
  return c;
}

void Engine::report(bool final) {
  if (!options_.progress) return;
  Counts c = counts_of(cached_latest());
  long secs = static_cast<long>(std::chrono::duration<double>(now() - started_at_).count());
  char head[64];
  std::snprintf(head, sizeof head, "[%s] %d cases: ", format_hms(secs).c_str(), c.cases);
  char tail[64];
  std::snprintf(tail, sizeof tail, " | %.2f node-h", c.node_hours);
  std::string line = head + c.line() + tail;
  if (!scheduler_problem_.empty()) line += " | scheduler unavailable";
  if (line == last_progress_ && !final) return;
  last_progress_ = line;
  options_.progress(line, final);
}

int Engine::run() {
  start();
  boost::asio::io_context io;
  boost::asio::steady_timer timer(io);
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  int signal_received = 0;
  // Markers written through this machine's kernel wake the loop at once (a cancelled wait runs the
  // tick now); others are read on the timer. Only where the jobs run here: a remote workspace's run
  // directories are on another machine, and a batch scheduler's nodes write theirs through their own
  // kernels (a shared file system's writes from elsewhere raise no event here). Were they watched
  // all the same where they happen to be seen (a cluster on one machine), every marker would wake a
  // loop that reads the running jobs' markers anyway, and the loop would run at its quiet gap's
  // share of a core however few cases each tick found ended (0.46 ms a case at 43 a second).
  std::optional<MarkerWatch> watch;
  // An executor that starts jobs only when called is called at once: the ended job's cores go to a
  // waiting job now, not after the loop's quiet gap and poll interval (the engine learns of the
  // start at its next poll, as of any start).
  if (workspace_.watchable() && scheduler_.runs_jobs_here())
    watch.emplace(io, std::vector<std::string>{render::kExitMarker, pack::kStartMarker}, [&](bool job_ended) {
      try {
        // A packed case's end frees nothing of the scheduler's: its allocation holds the cores.
        if (job_ended) scheduler_.start_waiting();  // nothing, for a scheduler with a daemon of its own
      } catch (const sched::SchedulerUnavailable&) {
        // the next poll asks again
      }
      timer.cancel();
    });
  auto stop = [&] {
    signals.cancel();
    watch.reset();  // its pending read would keep io.run() going
  };
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    signal_received = sig;
    timer.cancel();
    watch.reset();
  });
  Backoff backoff(plan_.system.limits.poll_min_s, plan_.system.limits.poll_max_s);
  Clock::time_point next_poll = now();
  auto marker_step = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::min(options_.marker_interval_s, plan_.system.limits.poll_min_s)));
  // After each tick the loop stays quiet for quiet_gap() of its CPU cost (policy.hpp): a marker
  // that comes meanwhile wakes it only to wait for the rest. Real time, whatever clock the engine
  // is given: it measures this process, not the run.
  Clock::time_point quiet_until = Clock::now();
  Clock::time_point last_full_read = now();
  std::function<void(const boost::system::error_code&)> on_tick = [&](const boost::system::error_code& ec) {
    if (signal_received || (ec && ec != boost::asio::error::operation_aborted)) return;
    if (Clock::now() < quiet_until) {
      timer.expires_at(quiet_until);
      timer.async_wait(on_tick);
      return;
    }
    const auto cpu_before = process_cpu();
    bool poll_now = now() >= next_poll;
    // Where the watch sees every marker, the tick reads those it saw (and the unwatched ones); the
    // running jobs' every kFullMarkerRead all the same (decide.hpp, started_rows), the truth the
    // watch only speeds up. The same for the start markers of packed cases waiting in their
    // allocation, read at the polls.
    std::optional<MarkerWatch::Changes> exits, starts;
    if (watch) {
      exits = watch->take_changes(0);
      if (poll_now) starts = watch->take_changes(1);
      if (now() - last_full_read >= kFullMarkerRead) {
        watch_stale_ = true;  // and the directories of the jobs that ended since are dropped
        last_full_read = now();
        exits.reset(), starts.reset();
      } else if (exits->all || (starts && starts->all)) {
        exits.reset(), starts.reset();
      }
    }
    auto picks = [&](const MarkerWatch::Changes& c) {
      return [&](std::int64_t attempt) { return c.keys.count(attempt) || watch->unwatched().count(attempt); };
    };
    if (exits) {
      read_marker_in_.emplace(exits->keys.begin(), exits->keys.end());
      read_marker_in_->insert(read_marker_in_->end(), watch->unwatched().begin(), watch->unwatched().end());
    }
    if (starts) read_start_in_ = picks(*starts);
    bool changed = false;
    try {
      changed = tick(poll_now);
    } catch (...) {
      read_marker_in_.reset(), read_start_in_ = nullptr;
      throw;
    }
    read_marker_in_.reset(), read_start_in_ = nullptr;
    // The watch follows the active jobs' directories: anew once a job was added (a submission, an
    // adoption, the rows read again) and at each full read; a job that ended meanwhile keeps its
    // watch until then (its events name an attempt no tick reads). Syncing after every tick that
    // changed something went through every active directory, 100,000 of them, each time.
    if (watch && watch_stale_) {
      std::vector<MarkerWatch::Dir> dirs;
      for (auto& a : latest_)
        if (is_active(a.state) && !a.job_id.empty()) dirs.push_back({a.id, &a.run_dir, a.step_name.empty()});
      watch->watch(dirs);
      watch_stale_ = false;
    }
    // The poll interval backs off unless the scheduler must be asked soon: a job whose marker says
    // it failed waits for the scheduler's verdict, a submission's outcome is unknown. Jobs that
    // start or complete (markers) do not need the scheduler. The local executor is the exception:
    // its calls are what starts pending jobs, and they cost no daemon anything.
    bool soon =
        poll_soon_ || !memory_.marker_exit.empty() || (changed && scheduler_.starts_jobs_when_polled());
    poll_soon_ = false;
    // The tail: nothing runs any more, only completions await the accounting (and the dependents or
    // the end of the run wait for them). The scheduler is asked at once, then at the shortest interval.
    bool tail = in_tail(latest_, memory_);
    soon |= tail;
    if (tail && changed && !poll_now) {
      backoff.reset();
      next_poll = now();
    } else if (poll_now) {
      double wait = backoff.next(soon);
      next_poll = now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait));
    } else if (soon) {
      backoff.reset();
      next_poll = std::min(next_poll, now() + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(backoff.current())));
    }
    if (finished()) {
      stop();
      return;
    }
    if (!options_.wait) {
      auto latest = latest_attempts();
      bool waiting = std::any_of(latest.begin(), latest.end(), [](auto& a) {
        return a.in_spec && (a.state == State::planned || a.state == State::submitting);
      });
      if (!waiting || !changed) {
        stop();
        return;
      }
    }
    auto wait = std::min(marker_step, std::max(Clock::duration::zero(), next_poll - now()));
    // A burst of submissions goes on at once: its slices are the work, not the loop's overhead.
    quiet_until = Clock::now() +
                  (more_to_submit_ ? Clock::duration::zero()
                                   : quiet_gap(process_cpu() - cpu_before, plan_.system.limits.poll_max_s));
    timer.expires_after(more_to_submit_ ? Clock::duration::zero() : wait);
    timer.async_wait(on_tick);
  };
  boost::asio::post(io, [&] { on_tick({}); });
  io.run();
  if (!signal_received) {
    try {
      sweep_duplicates();
    } catch (const sched::SchedulerUnavailable& e) {
      spdlog::warn("could not look for duplicate jobs at the end of the run: {}", e.what());
    }
    try {
      record_energy();
    } catch (const sched::SchedulerUnavailable& e) {
      spdlog::warn("could not ask for the jobs' energy at the end of the run: {}", e.what());
    }
  }
  report(true);
  if (signal_received) {
    spdlog::warn("interrupted by signal {}: jobs keep running; `campaign run` again picks them up",
                 signal_received);
    return 130;
  }
  if (!options_.wait && !finished()) return 0;
  for (auto& a : cached_latest())
    if (a.in_spec && !succeeded(a)) return 1;
  return 0;
}

}  // namespace campaign::engine
