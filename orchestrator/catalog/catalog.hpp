// The catalog: all run state of one work directory, in `<workdir>/campaign.db`
// (SQLite, WAL). The only place that knows about persistence; the rest of the
// program calls these typed functions and never sees SQL.
//
// Invariants kept here:
//  - one writer per work directory (WriterLock); read-only opens take no lock;
//  - every change of an attempt's state is one transaction that also appends a
//    `state` event (from, to), and follows transitions.hpp; so each stored
//    state was committed on purpose and can be replayed from the events;
//  - attempts are never overwritten or deleted: a retry is attempt number+1,
//    created only once the previous one has ended; hence at most the latest
//    attempt of a case is planned, submitting, queued or running;
//  - an attempt is committed as `submitting`, with its job name, durably
//    (synchronous=FULL for that commit) before the scheduler is called.
// Not thread-safe: one Catalog per thread (the engine's loop is one thread).
// Never carry an open Catalog across fork(); open a new one in the child.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "catalog/errors.hpp"
#include "util/state.hpp"

namespace campaign {

using Time = std::chrono::sys_seconds;
// Where the catalog reads "now" (submitted times, event times). The engine
// owns time; tests and the engine's fakes replace the system clock.
using Clock = std::function<Time()>;

// read_write: the writer (lock, creates, migrates). read_only: reads the file
// as it is; refuses one that needs migrating. snapshot: reads a private
// in-memory copy, migrated when the file is older (for commands that read
// catalogs written by earlier versions, e.g. `campaign history`); the file is
// never written.
enum class Access { read_write, read_only, snapshot };

// The input structs give every member an initializer so that designated
// initializers ({.reason = "..."}) compile without -Wmissing-field-initializers.

// What the campaign file says about a campaign.
struct CampaignRow {
  std::string name{};
  std::string spec_text{};
  std::string spec_hash{};
  std::string system{};
  std::string workdir{};
};

// The code under test a campaign measured (history/code_version.hpp). Only
// `run`, `resume` and `import` know it and record it; commands that merely
// look at or cancel jobs must not touch it.
struct CodeRecord {
  std::string version{};  // what people read: the label, else the short commit
  // The git commit and its commit date, when known; `campaign history` orders
  // runs by the date.
  std::string commit{};
  std::optional<Time> date{};
  bool dirty = false;  // the checkout had uncommitted changes
};

struct CampaignRecord : CampaignRow {
  CodeRecord code;
  // Free-form tags of the run (`run --tag`): KEY -> VALUE, a word's value "".
  std::map<std::string, std::string> tags;
  std::int64_t id = 0;
  Time created{};
  Time updated{};
};

// One case as the matrix expands it.
struct CaseRow {
  std::string key{};   // stable hash of the parameters; unique within a campaign
  std::string step{};  // campaign step the case belongs to, may be empty
  std::string name{};  // run directory name
  nlohmann::json params = nlohmann::json::object();
  std::string run_dir{};
  std::string script{};
  // What the case runs, as JSON (render::case_rows: its command and resources): compared at each
  // sync, so that a campaign file edited between runs is noticed per case. "" when not known.
  std::string definition{};
};

struct CaseRecord : CaseRow {
  std::int64_t id = 0;
  std::int64_t campaign_id = 0;
  bool in_spec = true;  // false once the campaign file stopped listing it
};

struct SyncResult {
  std::vector<std::int64_t> ids;  // case ids, in the order of the input
  std::size_t inserted = 0;       // new cases (each got a planned attempt #1)
  std::size_t retired = 0;        // cases of the catalog the input no longer lists
  std::vector<std::string> retired_names;
  struct Changed {  // a case whose definition differs from the one stored (now replaced)
    std::int64_t case_id = 0;
    std::string name, before, after;  // definitions (CaseRow::definition)
  };
  std::vector<Changed> changed;
};

// What a poll learned about a job. Unset fields keep their stored value,
// except `reason`, which is cleared when the state changes (a pending reason
// means nothing once the job runs).
// Why an attempt ended where the reason's text alone would have to be parsed: a decision reads this.
// dependency: cancelled because a dependency failed; user: `campaign cancel` met its completion before
// the accounting confirmed it (nothing to cancel then): should the accounting correct it to a failure,
// the case is not retried.
enum class Cause { none, dependency, user };

struct JobUpdate {
  std::optional<std::string> reason{};
  std::optional<Cause> cause{};  // with a state change: none unless given
  std::optional<int> exit_code{};
  std::optional<Time> started{};
  std::optional<Time> ended{};
  std::optional<std::int64_t> elapsed_s{};
  std::optional<std::string> node_list{};
  std::optional<double> energy_j{};  // sched::JobInfo::energy_j, of an ended job
  // completed only: false while the job's exit marker alone says so, true
  // once the scheduler's accounting agrees (or cannot be had).
  std::optional<bool> confirmed{};
};

// One attempt with the case it belongs to: a line of `campaign status`.
// The fields the engine's folds read of every row at every tick come first, in the row's first
// cache lines: a fold over 100,000 rows then reads 6 MB, not the 50 MB of whole rows.
struct AttemptRow {
  std::int64_t id = 0;
  std::int64_t case_id = 0;
  std::int64_t campaign_id = 0;
  int number = 0;
  State state = State::planned;
  bool in_spec = true;
  // false: completed on the job's exit marker, the scheduler's accounting not
  // read yet; not collected and not done until it is (JobUpdate::confirmed).
  bool confirmed = true;
  Cause cause = Cause::none;
  std::string job_id;     // empty until the scheduler gave one
  std::string step_name;  // packed: the name of its job step inside the allocation; else empty
  std::string case_key;
  std::string case_name;
  std::string step;
  std::string run_dir;
  std::string script;
  std::string job_name;            // empty until begin_submit; a packed attempt's is its allocation's
  std::optional<long> array_task;  // a task of a job array: the scheduler's index of its task
  std::optional<int> nodes;
  std::optional<std::int64_t> walltime_s;
  std::optional<Time> submitted;
  std::optional<Time> started;
  std::optional<Time> ended;
  std::optional<std::int64_t> elapsed_s;
  std::optional<int> exit_code;
  std::string reason;
  std::string node_list;
  // The energy the scheduler's accounting recorded for its job (a packed attempt: its allocation,
  // every case of it), joules; unset where it records none.
  std::optional<double> energy_j;

  bool operator==(const AttemptRow&) const = default;
};

struct Metric {
  std::string name{};
  std::optional<std::int64_t> step{};  // e.g. epoch; unset for whole-run values
  double value = 0;                    // NaN survives the round trip
  std::string unit{};
  std::optional<std::int64_t> instance{};  // of a case with `instances`; unset otherwise
};

// The values of one (name, unit, per-step or whole-run, instance), in the order given: what the
// catalog stores as one row of metric_series. A writer that groups its metrics itself (import,
// on its collecting threads) hands these over instead of one Metric per value.
struct MetricSeries {
  std::string name{};
  std::string unit{};
  std::optional<std::int64_t> instance{};
  bool stepped = false;               // one step per value in `steps`; else whole-run values
  std::vector<std::int64_t> steps{};  // empty unless stepped
  std::vector<double> vals{};
};

// Groups metrics into series as the catalog stores them: one per (name, unit, stepped, instance),
// in order of first appearance, each value in the order added. A run of values of the same series
// (a column of a history file) is appended without a lookup.
class SeriesBuilder {
 public:
  explicit SeriesBuilder(std::vector<MetricSeries>& out) : out_(out) {}
  void add(std::string_view name, std::string_view unit, std::optional<std::int64_t> step, double value,
           std::optional<std::int64_t> instance = std::nullopt);
  // The series add() would append a value of this key to, made if new: a caller with a run of
  // values of one series appends them itself (each step too, when stepped), as add() would.
  MetricSeries& series(std::string_view name, std::string_view unit, bool stepped,
                       std::optional<std::int64_t> instance);

 private:
  std::vector<MetricSeries>& out_;
  size_t last_ = static_cast<size_t>(-1);  // the series the last value went to
  // The series this builder made, by key (their index in out_).
  std::map<std::tuple<std::string, std::string, bool, std::optional<std::int64_t>>, size_t, std::less<>>
      index_;
};

// The number of values of `series`.
size_t value_count(const std::vector<MetricSeries>& series);

struct MetricRow : Metric {
  std::int64_t attempt_id = 0;
  int attempt_number = 0;
  State attempt_state = State::planned;
  std::int64_t case_id = 0;
  std::string case_key;
  std::string case_name;
};

// What an event is about; with only an attempt (or a case) set, the catalog
// fills in the case and campaign it belongs to.
// A fact the engine holds about an attempt between its decisions (engine/memory.hpp: a job missing
// from the scheduler since a time, a non-zero exit marker, a completion awaiting the accounting, ...),
// as recorded when it changed; `held` false records that it no longer holds. The engine's memory is
// the fold of these, oldest first (engine::fold_memory).
struct Observation {
  std::int64_t attempt_id = 0;
  std::string fact{};
  bool held = true;
  std::optional<Time> since{};  // since when it holds, for a fact with a time
  std::string value{};          // the fact's value, for one that has one
  bool operator==(const Observation&) const = default;
};

struct EventScope {
  std::optional<std::int64_t> campaign_id{};
  std::optional<std::int64_t> case_id{};
  std::optional<std::int64_t> attempt_id{};
};

struct EventRow {
  std::int64_t id = 0;
  Time time{};
  EventScope scope;
  std::string kind;  // "state" for attempt state changes; others are free-form
  std::optional<State> from;
  std::optional<State> to;
  std::string message;
};

class Catalog {
 public:
  // Opens (read_write: creates the directory and the database, takes the
  // writer lock, migrates) `<workdir>/campaign.db`. read_only takes no lock,
  // creates nothing, and refuses a database that needs migrating; snapshot
  // copies it into memory and migrates the copy.
  // Throws LockedError, SchemaError or CatalogError.
  static Catalog open(const std::filesystem::path& workdir, Access access = Access::read_write);
  // For commands that only read (status, report, history): read_only when the
  // file has this build's schema, else a snapshot (an older catalog is read
  // without being migrated on disk). Throws as open() does.
  static Catalog open_for_reading(const std::filesystem::path& workdir);
  static std::filesystem::path db_path(const std::filesystem::path& workdir);
  // A catalog in this process's memory (SQLite's memdb), shared by the connections of the process
  // that open memory_uri(name), gone with the last of them: for the simulator (tests/sim), which runs
  // the engine through thousands of campaigns a second. No lock file; otherwise as open().
  static Catalog open_in_memory(const std::string& name);
  static std::string memory_uri(const std::string& name);
  // A second writing connection for another thread of this process, which holds the writer lock
  // through this catalog (open() with read_write): `run` drives each system of a campaign across
  // several systems on a thread of its own (issue 34). The lock stays with this one, which must
  // outlive the sibling; their transactions take turns (BEGIN IMMEDIATE, the busy timeout).
  Catalog sibling() const;

  Catalog(Catalog&&) noexcept;
  Catalog& operator=(Catalog&&) noexcept;
  ~Catalog();

  const std::filesystem::path& path() const;
  Access access() const;
  int schema_version();
  void set_clock(Clock clock);

  // --- campaigns -----------------------------------------------------------
  // Inserts the campaign, or updates the stored one of the same name (spec,
  // system, work directory), logging what changed. Returns its id. Leaves
  // the code version as it is.
  std::int64_t upsert_campaign(const CampaignRow& row);
  // Records the code under test of the campaign, logging a change.
  void record_code_version(std::int64_t campaign_id, const CodeRecord& code);
  // Adds tags to the campaign's run (a KEY already there takes the new VALUE), logging a change.
  void add_tags(std::int64_t campaign_id, const std::map<std::string, std::string>& tags);
  std::optional<CampaignRecord> find_campaign(std::string_view name);
  std::vector<CampaignRecord> campaigns();

  // --- cases ---------------------------------------------------------------
  // Makes the catalog's cases of `campaign_id` match the expanded matrix:
  // new keys are inserted with a planned attempt #1; existing cases are kept
  // as stored (name, params, run dir: the record of what ran) with their
  // attempts; cases missing from `rows` are marked not in_spec, never deleted.
  // One transaction. Throws CatalogError on empty or duplicate keys.
  SyncResult sync_cases(std::int64_t campaign_id, const std::vector<CaseRow>& rows);
  std::vector<CaseRecord> cases_of(std::int64_t campaign_id);
  // Its cases' ids, and whether each is in the campaign file: what cases_of says without reading
  // (and parsing) each case's parameters.
  std::vector<std::pair<std::int64_t, bool>> case_ids_of(std::int64_t campaign_id);
  // Its cases' definitions (CaseRecord::definition) and parameters (the JSON text of
  // CaseRecord::params) by case id.
  std::map<std::int64_t, std::string> case_definitions(std::int64_t campaign_id);
  std::map<std::int64_t, std::string> case_params(std::int64_t campaign_id);

  // --- attempt state (each call: one transaction + one `state` event) ------
  // planned -> submitting, recording the deterministic job name, the
  // requested walltime and nodes and the submit time. Committed durably: call
  // it before asking the scheduler to submit.
  // A packed attempt (one job step of a shared allocation) gets the
  // allocation's job name and its own `step_name`.
  // A task of a job array gets the array's job name and its task's index.
  void begin_submit(std::int64_t attempt_id, std::string_view job_name, std::int64_t walltime_s, int nodes,
                    std::string_view step_name = {});
  struct SubmitStart {
    std::int64_t attempt = 0;
    std::string job_name;
    std::int64_t walltime_s = 0;
    int nodes = 0;
    std::string step_name;
    std::optional<long> array_task;
  };
  // The same for the attempts of one allocation or array, in one durable transaction (one fsync,
  // not one per case); all or none.
  // `rows`, when given, are the starts' rows (in order) as the catalog holds them: left as it then
  // holds them, not read back.
  void begin_submit(const std::vector<SubmitStart>& starts, const std::vector<AttemptRow*>& rows = {});
  // submitting -> `seen` (queued by default; running or an end state when
  // reconciliation adopts a job that has already moved on), storing the job
  // id. Returns false, changing nothing, when the attempt already has this
  // job id (a repeated call); throws TransitionError otherwise.
  bool record_job_id(std::int64_t attempt_id, std::string_view job_id, State seen = State::queued);
  // The same for a row the caller holds as the catalog holds it: see update_state(AttemptRow&).
  bool record_job_id(AttemptRow& row, std::string_view job_id, State seen = State::queued);
  // Moves the attempt to `to` if transitions.hpp allows it and stores `info`;
  // returns true. When `to` is the current state only `info` is stored (no
  // event) and it returns false. planned and submitting are reached through
  // revert_submitting and begin_submit, and a submitting attempt leaves
  // through record_job_id or revert_submitting; anything else throws
  // TransitionError.
  bool update_state(std::int64_t attempt_id, State to, const JobUpdate& info = {});
  // The same for an attempt whose row the caller holds as the catalog holds it (the engine's rows,
  // kept in step with its writes): the transition is checked against the row, not read again, and
  // the row is left as the catalog then holds it, not read back. Unchanged when this throws.
  bool update_state(AttemptRow& row, State to, const JobUpdate& info = {});
  // submitting -> planned: reconciliation found no job of that name.
  void revert_submitting(std::int64_t attempt_id, std::string_view why);
  // queued|running -> planned for a packed attempt whose allocation ended before its step started:
  // it never ran, so it is planned again without spending an attempt.
  void return_to_plan(std::int64_t attempt_id, std::string_view why);
  // A new planned attempt (number + 1) for a case whose latest attempt is
  // retryable() (transitions.hpp). Returns its id.
  // `requested` (resume --again): the user asked, so an attempt that succeeded may be followed too.
  std::int64_t new_attempt_for_retry(std::int64_t case_id, std::string_view why, bool requested = false);

  // Adopts runs done outside campaign (`campaign import`): each planned
  // attempt goes planned -> submitting -> completed, then collected with
  // `series`, or collect_failed with `collect_error`; the whole batch in one
  // transaction (10,000 imports are one commit, not 40,000).
  struct ImportedRun {
    std::int64_t attempt_id = 0;
    std::string origin{};                // where the run was found; stored as the job id
    std::vector<MetricSeries> series{};  // its metrics, grouped as stored (SeriesBuilder)
    std::string collect_error{};         // non-empty: collect_failed with this reason
  };
  void import_runs(const std::vector<ImportedRun>& runs);

  // --- attempts ------------------------------------------------------------
  AttemptRow attempt(std::int64_t attempt_id);
  // Attempts of the campaign in any of `states`, oldest first.
  std::vector<AttemptRow> attempts_in(std::int64_t campaign_id, const std::vector<State>& states);
  // The latest attempt of every case of the campaign, in case order: the view
  // `campaign status` prints.
  std::vector<AttemptRow> latest_attempts(std::int64_t campaign_id);
  std::vector<AttemptRow> attempts_of_case(std::int64_t case_id);

  // --- metrics -------------------------------------------------------------
  // Replaces the attempt's metrics (delete + insert, one transaction), so
  // collecting twice gives the same rows.
  void replace_metrics(std::int64_t attempt_id, const std::vector<Metric>& metrics);
  // replace_metrics and the move to `collected` (from completed or
  // collect_failed; a collected attempt just gets the new metrics), in one
  // transaction.
  void record_collection(std::int64_t attempt_id, const std::vector<Metric>& metrics);
  std::vector<Metric> metrics_of_attempt(std::int64_t attempt_id);
  // Every metric of every attempt of the campaign, by case then attempt.
  std::vector<MetricRow> metrics_of(std::int64_t campaign_id);
  // The same grouped per (attempt, metric): the cheap way to read many
  // per-step values. `names` keeps only those metrics when not empty.
  struct Series {
    std::int64_t attempt_id = 0;
    std::string name{}, unit{};
    std::vector<std::optional<std::int64_t>> steps{};
    std::vector<double> values{};
    std::optional<std::int64_t> instance{};
  };
  // A name with {...} parts is a template (util/strings.hpp matches_template):
  // "utilization:{node}:{device}" keeps every series it stands for.
  std::vector<Series> metric_series_of(std::int64_t campaign_id, const std::set<std::string>& names = {});
  // The same one series at a time, so a caller can pack millions of samples
  // without holding them twice.
  void for_each_series(std::int64_t campaign_id, const std::set<std::string>& names,
                       const std::function<void(Series&&)>& visit);

  // --- budget --------------------------------------------------------------
  // Node-hours used: nodes x elapsed over all attempts (a running attempt
  // counts up to now; ended-started when no elapsed time was recorded).
  double consumed_node_hours(std::int64_t campaign_id);
  // Node-hours used as the scheduler reported them, for the progress line: a running attempt counts
  // the elapsed time of its last report (not up to now), an ended one its final elapsed time, so the
  // sum never goes down as jobs end (issue 33: 0.04 -> 0.03 when a job's end was seen). Below
  // consumed_node_hours while jobs run; the budget keeps that one.
  double reported_node_hours(std::int64_t campaign_id);
  // Node-hours that submitting, queued and running attempts may still add:
  // nodes x walltime, less what a running one has already used (counted by
  // consumed_node_hours); and a completion on its marker alone of a job never
  // seen running, its walltime until the accounting says what it used (it
  // counts nothing in consumed_node_hours until then). consumed + in flight is
  // what a budget must cover.
  double in_flight_node_hours(std::int64_t campaign_id);

  // --- events --------------------------------------------------------------
  std::int64_t add_event(std::string_view kind, std::string_view message, EventScope scope = {});
  // The last `limit` events of the campaign, oldest first.
  std::vector<EventRow> events(std::int64_t campaign_id, std::size_t limit);
  std::vector<EventRow> events_of_attempt(std::int64_t attempt_id);
  // Every event of this kind of the campaign, oldest first (e.g. "duplicate": jobs cancelled as
  // second jobs of one attempt's name).
  std::vector<EventRow> events_of_kind(std::int64_t campaign_id, std::string_view kind);

  // --- the engine's memory --------------------------------------------------
  // Appends the changes, in one transaction (or in the open WriteGroup).
  void record_observations(const std::vector<Observation>& changes);
  // Every observation of the campaign's attempts, oldest first.
  std::vector<Observation> observations(std::int64_t campaign_id);

  // --- write groups ----------------------------------------------------------
  // The writes made while a WriteGroup lives are one transaction, committed by commit() and rolled
  // back when it is destroyed without (an exception): each write's own transaction becomes part of
  // it, so a write that fails inside fails the group (commit() throws, nothing of it is kept), even
  // when its exception was caught. The engine carries out a decision's actions (several attempts'
  // states, their events and the memory it changed) in one, so that a kill -9 leaves all of them or
  // none.
  class WriteGroup {
   public:
    explicit WriteGroup(Catalog& catalog);
    WriteGroup(const WriteGroup&) = delete;
    WriteGroup& operator=(const WriteGroup&) = delete;
    ~WriteGroup();
    void commit();

   private:
    Catalog& catalog_;
    bool done_ = false;
  };

  // --- bulk writes -----------------------------------------------------------
  // While one lives, commits do not checkpoint the write-ahead log every 1000 pages (4 MB), each
  // checkpoint with its two fsyncs, waited for by the writer: a thread of its own, with its own
  // connection, checkpoints what has been committed (PASSIVE: it never blocks the writer), and the
  // end checkpoints the rest. `import` writes tens of MB of metrics this way. Each commit is as
  // durable as any other (synchronous=NORMAL, attempts.cpp): an OS crash may roll back the last
  // ones, which are imported again.
  class BulkWrites {
   public:
    explicit BulkWrites(Catalog& catalog);
    BulkWrites(const BulkWrites&) = delete;
    BulkWrites& operator=(const BulkWrites&) = delete;
    ~BulkWrites();

   private:
    struct Checkpointer;
    Catalog& catalog_;
    int pages_ = 0;                               // the limit before, restored
    int cache_ = 0;                               // the page cache's size before, restored
    std::unique_ptr<Checkpointer> checkpointer_;  // none where the log is not a WAL file (memdb)
  };

  // --- health --------------------------------------------------------------
  // Problems found, empty when sound: SQLite's integrity and foreign-key
  // checks, then for each attempt that its state events replay, through
  // allowed transitions from its creation, to its stored state; that attempt
  // numbers run 1..n; and that only the latest attempt of a case is unended.
  std::vector<std::string> check();

 private:
  struct Impl;
  explicit Catalog(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace campaign
