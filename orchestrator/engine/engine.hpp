// The run loop: takes a planned campaign to completion on a scheduler,
// surviving any interruption without losing a result or submitting a case twice.
//
// One thread, one Boost.Asio loop (ninja's model): each tick reads exit
// markers, polls the scheduler when its backoff says so, decides retries and
// submits what is ready within the system's limits. Signals are handled
// between ticks, so the catalog is never half-updated; Ctrl-C stops the
// orchestrator, not the jobs.
//
// Invariants (the resume protocol; ARCHITECTURE.md, "Invariants"):
//  - an attempt is committed `submitting` with its deterministic job name
//    before the scheduler is asked; the job id is committed as soon as the
//    submit returns; `submitting` attempts are reconciled by job name (adopt
//    or revert) before anything else is submitted; one is reverted only once
//    its submission began `submit_grace_s` ago (the submit command of a run
//    that was killed may still be on its way to the scheduler);
//  - completed and collected cases are never resubmitted;
//  - an exit marker 0 makes an attempt completed at once but unconfirmed: it
//    is collected, counts as done and satisfies dependencies only once the
//    scheduler's accounting agrees; if the accounting says NODE_FAIL, TIMEOUT,
//    ... (srun exits 0 after a node failure), that state replaces it;
//  - a failing scheduler command never changes a job's state.
#pragma once

#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/catalog.hpp"
#include "engine/decide.hpp"
#include "engine/policy.hpp"
#include "engine/workspace.hpp"
#include "matrix/plan.hpp"
#include "render/script.hpp"
#include "sched/scheduler.hpp"
#include "transport/shell.hpp"

namespace campaign::engine {

struct EngineOptions {
  bool wait = true;           // false (--no-wait): submit what is ready, then return
  bool retry_failed = false;  // resume --failed: failed cases get a new attempt first
  // false: ticks only look and record (status --refresh): no retry, no submission.
  bool submit = true;
  std::string campaign_exe;  // for the local launcher line
  // The code under test, recorded with the campaign; only run and resume
  // know it (status --refresh and cancel leave the recorded one alone).
  std::optional<CodeRecord> code;
  // run/resume --tag: added to the run's tags (Catalog::add_tags) when it starts.
  std::map<std::string, std::string> tags;
  double marker_interval_s = 0.5;  // how often exit markers are read (at most poll_min)
  double submit_slice_s = 0.5;     // longest run of submissions before markers and polls get a turn
  // How long a job may be unknown to the scheduler (neither queue nor accounting), with no exit
  // marker, before it is lost: by time, since the accounting may lag behind the queue's forgetting.
  double lost_after_s = 120;
  // A completion on the exit marker is confirmed without the accounting, saying so in its reason,
  // when the scheduler has had no record of the job for accounting_wait_s (no accounting: the local
  // executor's records expired, slurmdbd without the job) or cannot be reached for confirm_timeout_s.
  // While other jobs run, completions on their markers are asked about at every this many polls.
  int confirm_every_polls = 3;
  double confirm_timeout_s = 600;
  // A packed case whose allocation ended with no step of it in the accounting waits this long for
  // the accounting to record the allocation's end before it is judged on its start marker alone.
  double accounting_wait_s = 120;
  double limit_pause_s = 30;  // pause of submissions after a scheduler refused one for a limit
  // A `submitting` attempt left by an earlier run without a job of its name is
  // reverted to planned only this long after its submission began: the submit
  // command of a run that was killed keeps going and may reach the scheduler
  // after the next run looked.
  double submit_grace_s = 60;
  // The same where the back end records its submissions (SubmitRequest::record): no record after
  // this long means that the submit command's wrapper died (its command is bounded by the scheduler
  // command timeout), and the name lookup alone decides.
  double submit_record_wait_s = 120;
  // Progress: called after every tick that changed something (and at start and end).
  std::function<void(const std::string& line, bool final)> progress;
  // Called for each attempt whose completion the scheduler confirmed (collection); true when it
  // wrote the attempt (collected, collect_failed), whose row the engine then reads again.
  std::function<bool(const AttemptRow&)> on_completed;
  // Test hook: called with "after_submit" between the scheduler's answer and
  // the catalog commit of the job id (crash tests kill the process there).
  std::function<void(const std::string& point)> hook;
  // Where the scripts run (engine/workspace.hpp); null: the work directory
  // itself, markers read through the engine's shell.
  Workspace* workspace = nullptr;
  // The engine's clock, the only one its decisions read: steady time for intervals and deadlines,
  // wall time for what it stamps. Null: the system's clocks. Tests pass a fake one (run()'s timers
  // still wait in real time).
  std::function<Clock::time_point()> steady_now;
  std::function<Time()> wall_now;
  // The plan's scripts' renderer (its templates found and parsed); null: built from the plan. The
  // simulator shares one between the engines it starts after each kill -9 of one run, as it shares
  // the plan: building it is a tenth of a simulated run, and a kill changes no template.
  std::shared_ptr<const render::Renderer> renderer;
  // How cancel() waits between looks at a submission whose outcome is unknown; null: sleeps.
  std::function<void(double seconds)> sleep;
  // run/resume --case/--only: the keys (matrix::Case::key) of the cases this run may submit and
  // retry, with the cases they depend on (matrix::select_cases). The others are left as they are:
  // their jobs are still followed, but they neither run nor hold up the run's end or exit status.
  // Unset: every case of the campaign file.
  std::optional<std::set<std::string>> selected;
  // resume --again: the keys of the cases the user chose (not those they run after) that get a new
  // attempt first once they settled, completed ones too.
  std::set<std::string> again;
};

struct Counts {
  std::map<State, int> by_state;
  int cases = 0;
  double node_hours = 0;
  std::string line() const;  // "3 queued, 2 running, 8 completed"
};

class Engine {
 public:
  Engine(const matrix::Plan& plan, const std::filesystem::path& workdir, Catalog& catalog,
         sched::Scheduler& scheduler, transport::Shell& shell, EngineOptions options);

  // Records the campaign and its cases in the catalog and reconciles attempts
  // left `submitting` by an earlier run. Throws SchedulerUnavailable when the
  // scheduler cannot be asked (nothing is submitted then).
  void start();
  // One tick: markers, the scheduler when `poll_scheduler`, retries,
  // submissions. Returns true when an attempt changed state.
  bool tick(bool poll_scheduler);
  // Every case of the plan has a final latest attempt.
  bool finished();
  // The latest attempts as the loop holds them between its reads of the catalog (null until it reads
  // them again): the simulator checks them against the catalog after every tick.
  const std::vector<AttemptRow>* cached_rows() const { return latest_valid_ ? &latest_ : nullptr; }
  // What the decisions remember (engine/memory.hpp): the simulator checks that its recorded part is
  // what the catalog's observations fold to, which is what an engine started after a kill -9 has.
  const Memory& memory() const { return memory_; }
  // start(), then ticks until finished (or, without `wait`, until everything
  // ready is submitted) or SIGINT/SIGTERM. Returns the exit status: 0 when
  // every case completed, 1 when some did not, 130 when interrupted.
  int run();

  // Cancels the cases whose name matches the glob `pattern` ("" = all):
  // their jobs through the scheduler, planned attempts directly. Returns how
  // many attempts were cancelled. start() must have run.
  int cancel(const std::string& pattern);

  Counts counts();
  // Second jobs of an attempt's name found and cancelled in this run (submissions that landed twice).
  int duplicates_cancelled() const { return duplicates_cancelled_; }
  std::int64_t campaign_id() const { return campaign_id_; }
  // The last time the scheduler could not be reached, for messages.
  const std::string& scheduler_problem() const { return scheduler_problem_; }

 private:
  // The effects (apply.cpp): observations gathered, decided on (decide.hpp), the actions performed:
  // the scheduler's first (a failing cancel changes no state), then every catalog write and, when
  // `decided`, the memory the decision changed since its mark (Memory::mark) in one transaction,
  // then what is said and collected. Until the commit, a failure puts memory_ back to the mark.
  bool apply(const Actions& actions, std::vector<AttemptRow>& latest, bool decided = false);
  // apply(decide()), where `decide` may change memory_: a change that counts only once its actions
  // are carried out, and is recorded with them. When they fail (a cancel the scheduler did not
  // take), memory_ is as it was, and the next poll decides again from the same knowledge.
  bool apply_decision(const std::function<Actions()>& decide, std::vector<AttemptRow>& latest);
  bool reconcile(std::vector<AttemptRow>& latest);
  // cancel()'s one pass over what it can cancel now (planned, or with a job); returns how many.
  int cancel_known(const std::function<bool(const AttemptRow&)>& matches);
  // Where the submit command of `a`'s submission records its outcome (SubmitRequest::record).
  std::string record_of(const AttemptRow& a) const;
  // At the end of a run with unclear submissions: cancels jobs of the campaign's names that no
  // attempt owns.
  void sweep_duplicates();
  // At the end of a run: the energy the accounting recorded for the settled attempts' jobs that
  // have none yet (a packed allocation's ends after its cases; Scheduler::consumed_energy).
  void record_energy();
  bool apply_markers(std::vector<AttemptRow>& latest);
  // The exit markers of `rows` (some of `latest`, or all) read and decided on.
  bool apply_markers_of(const std::vector<AttemptRow>& rows, std::vector<AttemptRow>& latest, Time now);
  bool poll(std::vector<AttemptRow>& latest);
  void confirm_unreachable(std::vector<AttemptRow>& latest);
  bool submit_ready(std::vector<AttemptRow>& latest);
  bool submit_batch(const Batch& b, const std::vector<AttemptRow*>& rows,
                    const std::vector<std::string>& after);
  bool submit_job(const std::vector<AttemptRow*>& rows, const sched::SubmitRequest& req);
  // The latest attempts: read once, then kept in step with this engine's own writes (refresh), the
  // catalog's only writer; read again only after an error left the step unknown (an exception
  // between a write and its refresh) or where another copy of the rows was written (cancel).
  std::vector<AttemptRow>& cached_latest();
  void refresh(AttemptRow& row);  // the row as the catalog now holds it, after a write
  // After writes that rolled back: each row read again as the catalog holds its attempt (the id it
  // held before them); every row at the next use when the catalog cannot be read either. Cheaper
  // than a copy of each row beforehand for a failure that hardly ever comes.
  void read_again(const std::vector<std::pair<AttemptRow*, std::int64_t>>& rows) noexcept;
  // The row of attempt `id` in `latest`, or null: found through an index of positions, checked at
  // each use and made anew when it misses (another vector, a retry's new attempt). A decision names
  // a few of a campaign's rows; looking each one up by going through all of them cost every tick
  // time in proportion to the campaign.
  AttemptRow* row_of(std::vector<AttemptRow>& latest, std::int64_t id);
  // The catalog's rows as this run sees them: a case outside options_.selected is not in_spec.
  std::vector<AttemptRow> latest_attempts();
  AttemptRow attempt(std::int64_t id);
  void mask(AttemptRow& row) const;
  // Cases whose definition the campaign file changed since the catalog recorded it: what changed
  // and what that means for each one's attempts, said once at start.
  void say_changes(const std::vector<SyncResult::Changed>& changed, const std::vector<AttemptRow>& latest);
  Counts counts_of(const std::vector<AttemptRow>& latest);
  void report(bool final);
  Clock::time_point now() const;
  Time wall() const;

  const matrix::Plan& plan_;
  std::filesystem::path workdir_;
  Catalog& catalog_;
  sched::Scheduler& scheduler_;
  transport::Shell& shell_;
  EngineOptions options_;
  std::shared_ptr<const render::Renderer> renderer_;
  LocalWorkspace local_workspace_;  // when options_.workspace is null
  Workspace& workspace_;

  std::int64_t campaign_id_ = 0;
  std::string job_id_prefix_;           // render::campaign_id salted with the catalog's creation time
  std::vector<std::int64_t> case_ids_;  // by plan index
  // Cases that run their command in their script (`launch: false`): a packed one has no step of
  // its own in the accounting (PollAnswer::stepless).
  std::set<std::int64_t> stepless_cases_;
  std::unordered_set<std::int64_t> dependency_cases_;   // the cases some case waits for (`after`)
  std::vector<size_t> submit_order_;                    // plan indices, interleaved across node classes
  Rules rules_;                                         // from options_
  Memory memory_;                                       // what the decisions remember between ticks
  std::optional<Clock::time_point> unreachable_since_;  // the scheduler has failed every poll since
  std::vector<AttemptRow> latest_;                      // cached_latest()
  bool latest_valid_ = false;
  std::unordered_map<std::int64_t, size_t> row_index_;  // row_of()
  // While set (run(), between full reads): the attempts whose exit markers the tick reads.
  std::optional<std::vector<std::int64_t>> read_marker_in_;
  // And the attempts whose start markers a poll reads for the packed cases waiting to start.
  std::function<bool(std::int64_t attempt)> read_start_in_;
  bool poll_soon_ = false;       // something needs the scheduler's answer soon
  bool more_to_submit_ = false;  // the last submission slice ended with ready cases left
  bool watch_stale_ = true;      // a job was added since the marker watch last followed the jobs
  // The rest of the choice a slice ended in, for the next slice: choosing again (every planned case
  // packed into allocations anew) for each allocation of a 100,000-case campaign was most of its
  // submission's CPU. Taken only while it still holds (resume_choice).
  struct PendingChoice {
    SubmitChoice choice;
    size_t next = 0;                  // the first batch not submitted yet
    std::vector<std::string> job_of;  // the job id each batch got
    int others_in_queue = 0;          // as the choice counted them
  };
  std::optional<PendingChoice> pending_choice_;
  // The pending choice's rest, when every member of it is still planned, in the campaign, and no
  // batch of it depends on a job: else nullopt (choose again).
  std::optional<PendingChoice> resume_choice(std::vector<AttemptRow>& latest);
  SubmitChoice choose(const std::vector<AttemptRow>& latest);  // choose_submissions, with this run's limits
  // The last choice, when it chose nothing, and what it read: not made again while it would choose
  // nothing again (chooses_nothing_again).
  std::optional<IdleChoice> idle_choice_;
  int others_in_queue_ = 0;           // the user's jobs outside this campaign
  std::string last_job_id_;           // the scheduler's answer to the last submission
  bool unclear_submissions_ = false;  // some submission's outcome had to be reconciled in this run
  int duplicates_cancelled_ = 0;
  RateLimit rate_;
  Clock::time_point submit_pause_until_{};
  std::string scheduler_problem_;
  std::string accounting_problem_;                // the step accounting's failure while the queue answers
  std::optional<Time> accounting_failing_since_;  // it has failed at every poll since (Engine::tick)
  std::string last_progress_;
  std::string budget_note_;  // the last "budget: not submitting" warning
  Clock::time_point started_at_;
};

}  // namespace campaign::engine
