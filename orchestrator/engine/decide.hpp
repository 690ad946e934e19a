// The engine's decisions as pure functions: from what the engine sees (the latest attempts, exit
// markers, the scheduler's records, the time) to what it does (mark an attempt, adopt or revert a
// submission, retry a case, cancel a job, submit a case). Nothing here touches the catalog, the
// scheduler, a file, a clock or the log: engine.cpp gathers the observations, calls these and
// performs the actions (apply.cpp), so every rule is tested on hand-made rows
// (tests/unit/engine/decide_test.cpp).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "batch/batch.hpp"
#include "catalog/catalog.hpp"
#include "engine/memory.hpp"
#include "matrix/plan.hpp"
#include "sched/scheduler.hpp"

namespace campaign::engine {

// The engine's tunables the decisions read (EngineOptions has their documentation).
struct Rules {
  double lost_after_s = 120;
  int confirm_every_polls = 3;
  double confirm_timeout_s = 600;
  double submit_grace_s = 60;
  double accounting_wait_s = 120;
  double submit_record_wait_s = 120;
};

// Record `state` with `update` for an attempt (after recording `adopt_job` as its job, when set).
struct Mark {
  std::int64_t attempt = 0;
  State state = State::planned;
  JobUpdate update;
  std::string adopt_job;
  std::string note;   // said to the user (info), e.g. why
  bool warn = false;  // the note is a warning
};

struct Revert {  // a `submitting` attempt back to planned: no job of its name exists
  std::int64_t attempt = 0;
  std::string reason;
  std::string rejected{};  // when not empty: then cancelled with this reason (the scheduler rejected it)
};

struct Return {  // a packed attempt back to planned: its allocation ended before it started
  std::int64_t attempt = 0;
  std::string reason;
};

struct Retry {  // a new attempt for a case
  std::int64_t case_id = 0;
  std::string reason;
  std::string note;  // said to the user (info), when not empty
  // resume --again: asked for by the user, so a case that succeeded is run again too.
  bool requested = false;
};

struct Duplicate {  // a second job of an attempt's name: cancelled (in Actions::cancel), recorded
  std::int64_t attempt = 0;
  std::string job_id;   // the duplicate
  std::string adopted;  // the attempt's own job
  bool ended = false;   // it had ended when found (it ran while the scheduler could not be asked)
};

struct Actions {
  std::vector<Mark> marks;
  std::vector<Duplicate> duplicates;
  std::vector<Revert> reverts;
  std::vector<Return> returns;
  std::vector<Retry> retries;
  std::vector<std::string> cancel;  // job ids to cancel, after the marks
  std::vector<std::string> notes;   // said to the user (info)
  bool empty() const {
    return marks.empty() && reverts.empty() && returns.empty() && retries.empty() && cancel.empty() &&
           duplicates.empty();
  }
};

// Attempts left `submitting` (a run killed during a submission, or a submission whose outcome was
// unclear), the scheduler's jobs of their names and, where the back end records its submissions,
// what each one's submit command recorded (`records`, by attempt; an array task's
// job id already its task's):
//  - a job of its name: adopted (of several: the first that started, else its recorded one, else
//    the oldest); any other job of that name is a duplicate: cancelled and reported
//    (Actions::duplicates). A duplicate that started after it found its claim and left
//    (render::kClaimedElsewhere);
//  - none, and the record has the job id: adopted (the name lookup lags behind);
//  - none, and the record says nothing was submitted: back to planned;
//  - none, and the record says the command started but has not ended: it may still be running (it
//    outlives a lost connection) and its job may still land. Wait until the submission is
//    `submit_record_wait_s` old (the wrapper bounds the command: past it the wrapper itself died),
//    then back to planned;
//  - none, and the command ended unclearly (a socket timeout: the scheduler may still be taking the
//    job), or no record at all (the command never started, or the back end keeps none): wait
//    `submit_grace_s`, then back to planned.
// Never at once: a submit command that failed here may have reached the scheduler all the same.
// A job the scheduler found by name is one of this `submitting` attempt's: its name, and its task of
// the array for an array's attempt.
bool job_of(const AttemptRow& a, const sched::JobInfo& j);
Actions on_reconcile(const std::vector<AttemptRow>& latest, const std::vector<sched::JobInfo>& found,
                     const std::map<std::int64_t, sched::SubmitRecord>& records, Time now, const Rules& rules,
                     Memory& memory);

// The exit markers of `latest`'s active attempts (read_markers' order: active attempts with a job,
// see marker_dirs()). A zero completes the attempt at once, unconfirmed; any other status waits for
// the scheduler to say why.
std::vector<std::string> marker_dirs(const std::vector<AttemptRow>& latest);
// Of `picked` (rows of one vector, in any order, repeats allowed), those whose markers marker_dirs()
// would list, in the vector's order: what on_markers takes with the markers of a partial read. It
// costs what was picked, not what the campaign holds (a tick reads the few markers the watch saw).
std::vector<AttemptRow> marker_rows(std::vector<const AttemptRow*> picked);
Actions on_markers(const std::vector<AttemptRow>& latest, const std::vector<std::optional<int>>& markers,
                   Time now, Memory& memory);
// The attempts whose exit markers a tick reads when no watch says which: those that started
// (`running`). A queued attempt's job may start and end between two polls; the poll that finds it
// ended, or finds it no more, reads its marker before judging it (unmarked_in_ended). So a tick
// costs the attempts running now, not every queued one (100,000 packed cases wait in allocations).
std::vector<AttemptRow> started_rows(const std::vector<AttemptRow>& latest);
// The active attempts whose exit markers are not known yet and that a poll's answer cannot judge
// without them: the packed cases of allocations it found ended (a driver writes its last cases'
// markers and then ends; where no step record vouches for a case, the local executor and LSF, its
// marker is all there is) and the attempts whose jobs it did not find (a job that ran between two
// polls and that the scheduler forgot). A job of its own that it found ended needs none: its record
// says how it ended (and a marker read now would only make it a completion awaiting a record the
// local executor gives once). They are read before the poll's answer is judged (Engine::poll).
std::vector<AttemptRow> unmarked_in_ended(const std::vector<AttemptRow>& latest,
                                          const std::vector<sched::JobInfo>& jobs, const Memory& memory);

// The job ids the next poll asks about: the active jobs, and the completions awaiting the
// accounting every `confirm_every_polls` while other jobs run (jobs that left the queue cost the
// scheduler an accounting query), at every poll once nothing else runs.
struct PollRequest {
  std::vector<std::string> ids;
  bool confirm = false;  // the unconfirmed completions are among `ids`
};
PollRequest what_to_poll(const std::vector<AttemptRow>& latest, const Rules& rules, Memory& memory);

// What the scheduler said about a poll's jobs. Packed attempts (AttemptRow::step_name) share their
// allocation's job; their own truth is their step's record and whether the driver started them.
struct PollAnswer {
  std::vector<sched::JobInfo> jobs;
  // The steps of the allocations in `jobs` that ended or hold completions awaiting confirmation
  // (none without step accounting), and which of those allocations' ends the accounting holds.
  sched::StepRecords steps;
  // Packed attempts whose start marker names their allocation and says the driver launched their
  // script (pack::StartMarker::launched).
  std::set<std::int64_t> started;
  // Packed attempts whose case runs its command in its script (`launch: false`): no step of theirs
  // ever shows in the accounting.
  std::set<std::int64_t> stepless;
  Time now{};  // when the answer came
  // The step accounting did not answer this poll (`steps` is empty): since when it has failed at
  // every poll. A case is judged without it only after accounting_wait_s of such failures, not on a
  // link's passing failure (its record would likely come at the next poll).
  std::optional<Time> accounting_failing_since{};
};

// What the loop must still gather for on_poll about packed attempts: the steps of allocations that
// ended or hold completions awaiting confirmation, and the start markers of active attempts whose
// allocation ended or of queued ones whose allocation runs.
struct PackedQuery {
  std::vector<std::string> allocations;    // job ids to ask query_steps about
  std::vector<const AttemptRow*> markers;  // attempts whose start marker to read
};
PackedQuery packed_query(const std::vector<AttemptRow>& latest, const PollRequest& request,
                         const std::vector<sched::JobInfo>& jobs, const Memory& memory);
// Which of `packed.markers` the driver launched, by their start markers' texts (in that order; none
// when absent): a marker counts only when it names the attempt's own allocation (a marker a driver
// of an earlier allocation left says nothing of this one) and says the case's script was launched
// (a driver killed between writing it and launching never started the case). Cases that run their
// command in their script (`stepless`, case ids) go to PollAnswer::stepless.
void read_start_markers(const PackedQuery& packed, const std::vector<std::optional<std::string>>& texts,
                        const std::set<std::int64_t>& stepless, PollAnswer& answer);

// The scheduler's answer to `request`: states, times and reasons; completions confirmed or
// corrected by the accounting (a packed one by its step's record only: its allocation ending later
// in a failure does not undo it); jobs the scheduler forgot (failed on their marker, else lost
// after `lost_after_s` without a record, by time); jobs whose dependency failed cancelled. A packed attempt
// is running only once its start marker says so.
//
// A packed attempt whose allocation ended is charged an attempt only when its step ran: it takes
// its step's end, else the allocation's failure (it was cut). It returns to planned, its attempt
// unspent, when it never ran:
//  - its start marker must say that the driver launched its script (a driver killed between
//    writing the marker and launching never started it);
//  - with step accounting (Slurm), the step record is the truth: once the accounting holds the
//    allocation's end (StepRecords::ended), a case without a step never ran, whatever its start
//    marker and its exit marker say (the driver may start a case as cut steps free their nodes,
//    and its srun then fails at once in the dying allocation). One exception: in an allocation that
//    ended COMPLETED, a case whose own script exited non-zero before its step (a module that does
//    not load, an srun that refuses its options) failed by itself, and is charged: it would fail
//    the same way every time. While the accounting lacks the allocation's end, the attempt waits for
//    it, `accounting_wait_s` at most (slurmdbd may lag minutes behind a busy slurmctld: a count of
//    polls would depend on how often they come), then is judged on its start marker alone; at a poll
//    whose step accounting failed, only once it has failed for `accounting_wait_s` (slurmdbd down);
//  - without step accounting (LSF, the local executor, Slurm without accounting) and for a case
//    that launches no step (`launch: false`, PollAnswer::stepless), its launched start marker is
//    the evidence: on LSF a jsrun refused at once by a dying allocation cannot be told from a case
//    cut while it ran, and both are charged.
Actions on_poll(const std::vector<AttemptRow>& latest, const PollRequest& request, const PollAnswer& answer,
                const Rules& rules, Memory& memory);

// The scheduler has failed every poll for `seconds`: past `confirm_timeout_s`, completions on their
// markers are confirmed without it.
Actions on_unreachable(const std::vector<AttemptRow>& latest, double seconds, const Rules& rules,
                       Memory& memory);

// New attempts: by the retry policy for failures, and for cases cancelled because a dependency
// failed once every dependency can succeed again. `case_ids` maps plan indices to case ids.
Actions retries(const matrix::Plan& plan, const std::vector<std::int64_t>& case_ids,
                const std::vector<AttemptRow>& latest);

// `campaign resume --failed`: a new attempt for every case of the campaign whose latest attempt
// ended in a failure, whatever the retry policy and the cause (a cancel included).
Actions resume_failed(const std::vector<AttemptRow>& latest);

// `campaign resume --again` (with --case/--only): a new attempt for every case of `keys` (Case::key)
// that this run may run (in_spec) whose latest attempt has settled, a completed one too; its earlier
// attempts and their results stay in the catalog.
Actions run_again(const std::vector<AttemptRow>& latest, const std::set<std::string>& keys);

// The plan's cases in the order they are offered to the scheduler: node classes round robin.
std::vector<size_t> interleaved_order(const matrix::Plan& plan);

// What goes to the scheduler now, as batch jobs (batch/batch.hpp): the planned cases in `order`
// whose dependencies are met (or active, or submitted earlier in this choice: afterok on their job
// ids), grouped as their steps say (one job each, packed allocations, job arrays when the scheduler
// has them), each with its walltime (grown by the retry policy after its case's timeouts), then cut
// at the first batch the user's queue limit or the campaign's node-hour budget does not let in. An
// array the queue limit cuts is submitted in part, except while our own jobs will free places and
// less than a tenth of the limit is free: then it waits for them, rather than an array per freed
// place. Cases whose dependency failed are cancelled (in `actions`). Pure: `plan` calls it too.
struct Submission {
  size_t plan_index = 0;
  std::int64_t attempt = 0;
  std::vector<std::string> after;   // job ids of dependencies still running
  std::vector<size_t> after_ready;  // dependencies submitted just before it: indices into `ready`
};
struct Batch {
  batch::Shape shape;
  std::vector<size_t> members;        // indices into SubmitChoice::ready, as shape.ids
  std::vector<std::string> after;     // job ids of the members' running dependencies, each once
  std::vector<size_t> after_batches;  // earlier batches of this choice the members depend on
  double node_hours = 0;              // batch::node_hours
};
struct SubmitLimits {
  bool queue = true;                           // false: no queue limit or budget (plan shows every job)
  int others_in_queue = 0;                     // the user's jobs outside this campaign
  std::optional<double> committed_node_hours;  // used and in flight, when there is a budget
  bool arrays = false;                         // the scheduler takes job arrays
  std::map<std::int64_t, int> timeouts;        // case id -> its earlier attempts that timed out (retries)
};
struct SubmitChoice {
  std::vector<Submission> ready;  // every member of `batches`, and ready cases they left out
  std::vector<Batch> batches;
  Actions actions;
  std::string budget_note;  // why the budget stopped submissions, when it did
  bool queue_full = false;  // the user's queue limit left ready cases out
  // The batch the queue limit stopped, when it stopped one whole: the queue slots it takes, and
  // whether it is an array (which goes in part once there is room for a tenth of the limit, or for
  // one task when none of the campaign's jobs is queued to free more).
  struct QueueStop {
    long slots = 0;
    bool array = false;
  };
  std::optional<QueueStop> stopped;
};
SubmitChoice choose_submissions(const matrix::Plan& plan, const std::vector<size_t>& order,
                                const std::vector<std::int64_t>& case_ids,
                                const std::vector<AttemptRow>& latest, const SubmitLimits& limits);

// What choose_submissions reads of the rows, in a few numbers: while they stay the same and the queue
// has no more room than the first batch lacked, a choice that chose nothing chooses nothing again.
// With thousands of array tasks waiting for room under the queue limit, choosing at every tick (maps
// of every row, every waiting case grouped into arrays) was most of a tick.
struct ChoiceInputs {
  size_t planned = 0;              // in-spec planned attempts
  std::uint64_t planned_ids = 0;   // their ids, hashed
  std::uint64_t dependencies = 0;  // the attempts of cases another case waits for: id, state, job, confirmed
  int ours = 0;                    // the campaign's jobs the queue limit counts
  bool same_rows(const ChoiceInputs& o) const {
    return planned == o.planned && planned_ids == o.planned_ids && dependencies == o.dependencies;
  }
};
// dependencies: the case ids some case's `after` names.
ChoiceInputs choice_inputs(const std::vector<AttemptRow>& latest,
                           const std::unordered_set<std::int64_t>& dependencies);
// A choice that chose nothing (no batch, no action), and what it read.
struct IdleChoice {
  std::optional<SubmitChoice::QueueStop> stopped;  // the queue limit stopped its first batch
  ChoiceInputs inputs;
};
// `choice` made from `inputs` as an IdleChoice; nullopt when it chose something.
std::optional<IdleChoice> idle_choice(const SubmitChoice& choice, const ChoiceInputs& inputs);
// True when `before` would choose nothing again from `now` with `others_in_queue` jobs of the user's
// outside the campaign. Never with a budget: what it counts (the node-hours used and in flight) is
// not among the inputs.
bool chooses_nothing_again(const matrix::Plan& plan, const IdleChoice& before, const ChoiceInputs& now,
                           int others_in_queue);

// What a failed submission means for its attempts, all `submitting` (committed before the scheduler
// was asked), by sched::SubmitFailure:
//  - refused_by_limit (a QOS or queue limit): back to planned, saying why, and submissions pause
//    (`pause`): the limit frees itself as jobs end;
//  - transient (a lost connection, a timeout): the job may exist, or still land (a submit command
//    outlives the connection that started it): they stay `submitting`, for reconciliation by name and
//    by the command's record (on_reconcile); nothing more is submitted until a poll succeeds
//    (`unclear`);
//  - invalid (the scheduler rejected the job itself): back to planned, then cancelled with the
//    scheduler's words: it would be rejected the same way every time.
struct SubmitFailed {
  Actions actions;
  bool pause = false;
  bool unclear = false;
};
SubmitFailed on_submit_failure(const std::vector<const AttemptRow*>& attempts, sched::SubmitFailure kind,
                               const std::string& what);

// `campaign cancel`: among the latest attempts, those of the cases the user named (`matched`, attempt
// ids) that can be cancelled now: planned ones, and active ones with a job. A packed case shares its
// allocation's job: an allocation all of whose active cases are chosen is cancelled whole; a case
// chosen without the others ends its own running step where the scheduler can end one (Slurm:
// scancel JOBID.STEP; `steps` holds the running steps of cancel_partial's allocations, nullopt when
// the scheduler cannot end a step alone), else its allocation goes, the others named in `notes`. A
// packed case that has no running step of its own yet while the cases beside it run is refused (the
// whole cancel is: `refused` names them). A completion on its exit marker that the accounting has not
// confirmed yet has nothing left to cancel; it gets Cause::user, so that a correction to a failure
// is not retried. Submissions of unknown outcome are not chosen: Engine::cancel waits for them.
struct CancelChoice {
  Actions actions;  // cancel: job and step ids; marks: cancelled, and user causes
  int cancelled = 0;
  std::vector<std::string> refused;  // "case (allocation N, beside ...)"
};
std::vector<std::string> cancel_partial(const std::vector<AttemptRow>& latest,
                                        const std::set<std::int64_t>& matched);
CancelChoice choose_cancel(const std::vector<AttemptRow>& latest, const std::set<std::int64_t>& matched,
                           const std::optional<std::vector<sched::StepInfo>>& steps);

// Nothing runs any more; only completions await the accounting (dependents and the end of the run
// wait for them): the scheduler should be asked at once.
bool in_tail(const std::vector<AttemptRow>& latest, const Memory& memory);

}  // namespace campaign::engine
