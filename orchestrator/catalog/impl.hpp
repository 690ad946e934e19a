// Internal to the catalog: the connection, its statement cache and the few
// primitives every public function is built from (row readers, the one
// function that changes an attempt's state, event insertion). Not for use
// outside orchestrator/catalog/.
//
// Invariant: Impl::set_states (set_state: one move) is the only code that writes
// attempts.state, and it checks allowed() and appends the matching `state`
// event for every move; callers hold the surrounding transaction, so both land
// or neither does.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "catalog/catalog.hpp"
#include "catalog/lock.hpp"

namespace campaign {

inline std::int64_t to_secs(Time t) { return t.time_since_epoch().count(); }
inline Time from_secs(std::int64_t s) { return Time(std::chrono::seconds(s)); }
Time system_now();

template <class T>
void bind_opt(SQLite::Statement& s, int i, const std::optional<T>& v) {
  if (v)
    s.bind(i, *v);
  else
    s.bind(i);
}
void bind_opt(SQLite::Statement& s, int i, const std::optional<Time>& v);

std::optional<std::int64_t> opt_i64(const SQLite::Column& c);
std::optional<int> opt_int(const SQLite::Column& c);
std::optional<Time> opt_time(const SQLite::Column& c);
// Throws CatalogError for a name this build does not know.
State parse_state(const std::string& text);
std::optional<State> opt_state(const SQLite::Column& c);
std::string state_name(State s);
std::string cause_text(Cause c);
Cause cause_from_text(const std::string& text);

// SELECT lists and the readers that expect them, column for column.
extern const std::string kAttemptSelect;
AttemptRow read_attempt(const SQLite::Statement& s);
extern const std::string kCampaignSelect;
CampaignRecord read_campaign(const SQLite::Statement& s);
extern const std::string kEventSelect;
EventRow read_event(const SQLite::Statement& s);
// name, step, value, unit starting at column `first`; NULL value reads as NaN.
Metric read_metric(const SQLite::Statement& s, int first);
// Expands a metric_series row (columns name, unit, steps, vals from `first`).
// Appends a packed series' steps (nullopt each when the blob is NULL) and values.
void decode_series(const SQLite::Column& steps, const SQLite::Column& vals,
                   std::vector<std::optional<std::int64_t>>& steps_out, std::vector<double>& vals_out);
void append_series(std::vector<Metric>& out, const SQLite::Statement& s, int first);

// Copies the database file `from` into `to` (SQLite's online backup: a
// consistent snapshot even while a writer is active).
void copy_database(SQLite::Database& to, const std::filesystem::path& from);

// What to do about a damaged catalog, for the end of CorruptCatalogError's message.
inline const std::string kCorruptRemedy =
    "campaign does not write to a damaged catalog: restore campaign.db from a copy (with its "
    "campaign.db-wal), "
    "or move campaign.db, campaign.db-wal and campaign.db-shm aside to start afresh (every case then runs "
    "again)";

// Throws the CatalogError `e` calls for: CatalogStorageError for a file system that is full,
// read-only or failing, CorruptCatalogError for a damaged file, else CatalogError; each names the
// file (`path`), the operation and SQLite's extended result code, and says what to do.
[[noreturn]] void raise_sqlite(const std::string& path, const std::string& op, const SQLite::Exception& e);

// What a transition needs to know about an attempt.
struct Current {
  std::int64_t id = 0;
  std::int64_t case_id = 0;
  std::int64_t campaign_id = 0;
  int number = 0;
  State state = State::planned;
  std::string job_id;
  std::string case_key;
  bool confirmed = true;  // see AttemptRow::confirmed

  std::string describe() const;
};
// What a transition needs, from a row the caller holds as the catalog holds it.
Current current_of(const AttemptRow& row);
// `row` as read_attempt reads it back after store_info(info, state_changed) and a move to `to`.
void apply_written(AttemptRow& row, State to, const JobUpdate& info, bool state_changed);

struct Catalog::Impl {
  // Declared first so that it is released last, after the database closes.
  std::optional<WriterLock> lock;
  std::filesystem::path path;
  Access access;
  SQLite::Database db;
  // Declared after db: statements must be finalized before the connection.
  std::unordered_map<std::string, std::unique_ptr<SQLite::Statement>> cache;
  std::unordered_map<const char*, SQLite::Statement*> by_literal;  // into `cache`
  Clock clock = system_now;

  // `uri`: `p` is an SQLite URI (Catalog::memory_uri), not a file name.
  Impl(std::optional<WriterLock> l, std::filesystem::path p, Access a, bool uri = false);

  // A cached statement, reset on scope exit so that no finished SELECT keeps
  // a read snapshot open (which would hold back WAL checkpoints).
  class Query {
   public:
    explicit Query(SQLite::Statement& s) : s_(s) {}
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;
    ~Query() { s_.tryReset(); }
    SQLite::Statement* operator->() { return &s_; }
    SQLite::Statement& operator*() { return s_; }

   private:
    SQLite::Statement& s_;
  };

  // Prepared on first use, then reused: reset and with bindings cleared.
  Query query(const std::string& sql);
  // The same for a string literal, found by its address: no copy and no hash of its text at every
  // call (the engine runs a few statements per case; the lookup was a tenth of their cost).
  template <size_t N>
  Query query(const char (&sql)[N]) {
    auto it = by_literal.find(sql);
    if (it == by_literal.end()) {
      query(std::string(sql));  // prepared (and reset) through the cache by text
      it = by_literal.emplace(sql, cache.at(sql).get()).first;
    }
    it->second->reset();
    it->second->clearBindings();
    return Query(*it->second);
  }

  std::int64_t now() { return to_secs(clock()); }
  std::string where() const { return path.string(); }

  // Runs `f`, turning SQLite's exceptions into CatalogError with the file,
  // the operation and SQLite's extended result code.
  template <class F>
  auto guard(const char* op, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const SQLite::Exception& e) {
      raise_sqlite(where(), op, e);
    } catch (const nlohmann::json::exception& e) {
      throw CatalogError(where() + ": " + op + ": " + e.what());
    }
  }

  void require_writer(const char* op) const;
  // A writer's pragmas and migration (Catalog::open, open_in_memory).
  void prepare_writer();

  // The attempt, or CatalogError when there is none.
  Current current(std::int64_t attempt_id);

  std::int64_t insert_event(const EventScope& scope, std::string_view kind, std::optional<State> from,
                            std::optional<State> to, std::string_view message);

  // The one place an attempt's state changes; with `info`, stored with it in the same statement
  // (store_info's rule for a state change). Callers hold a transaction.
  void set_state(Current& cur, State to, std::string_view message, const JobUpdate* info = nullptr);
  // The moves of `path` in turn, each checked and with its own `state` event, the row written once
  // (with `info` as set_state): an imported run's planned -> submitting -> completed -> collected.
  struct Move {
    State to;
    std::string_view message;
  };
  // A job started outside campaign (an imported run): written with the state by set_states, in the
  // same UPDATE, rather than by one more UPDATE of the row before it.
  struct Submitted {
    std::string job_name;
    std::string job_id;
    std::int64_t submitted = 0;
  };
  void set_states(Current& cur, std::span<const Move> path, const JobUpdate* info = nullptr,
                  const Submitted* job = nullptr);
  // Throws TransitionError where set_state(cur, to) would refuse.
  void check_transition(const Current& cur, State to) const;

  // A new planned attempt and its creation event. Callers hold a transaction.
  std::int64_t insert_attempt(std::int64_t campaign_id, std::int64_t case_id, int number,
                              std::string_view why);

  // Stores what a poll learned; see JobUpdate for the rule on `reason`.
  void store_info(std::int64_t attempt_id, const JobUpdate& info, bool state_changed);
  // store_info's statement, also writing the state `to` and `job` when given (for set_states only).
  void write_info(std::int64_t attempt_id, const JobUpdate& info, const State* to, bool state_changed = false,
                  const Submitted* job = nullptr);
  // record_job_id's checks and writes for `cur`; true when it recorded the job. Callers hold a
  // transaction.
  bool record_job(Current& cur, std::string_view job_id, State seen);
  // update_state's checks and writes for `cur` (store_info, set_state); true when the state moved.
  // Callers hold a transaction.
  bool change_state(Current& cur, State to, const JobUpdate& info);

  // Deletes the attempt's metrics and inserts `metrics`. Callers hold a transaction.
  void write_metrics(std::int64_t attempt_id, const std::vector<Metric>& metrics);
  // The same with the metrics already grouped (SeriesBuilder). `legacy_rows` false: the caller found
  // the per-value table `metrics` empty in this transaction, so there is nothing of it to delete.
  void write_series(std::int64_t attempt_id, const std::vector<MetricSeries>& series,
                    bool legacy_rows = true);

  // kAttemptSelect + `where_clause`, whose only parameter is `id`.
  std::vector<AttemptRow> attempts(const std::string& where_clause, std::int64_t id);

  // A write transaction (BEGIN IMMEDIATE), rolled back unless committed. Inside an open one (a
  // Catalog::WriteGroup) it is part of that one, no savepoint: a call that fails inside the group
  // fails the whole group (its commit throws, everything is rolled back), so no half of a call is
  // ever committed. (A savepoint per call, as before, copied every page it touched into a
  // sub-journal: about 3 us a write.) As SQLite::Transaction, but through the statement cache:
  // the engine commits at every change, and parsing BEGIN and COMMIT each time was a tenth of its
  // catalog time.
  int tx_depth = 0;
  bool tx_failed = false;  // a call inside the open group failed: the group cannot commit
  void begin_tx() {
    if (!tx_depth) {
      query("BEGIN IMMEDIATE")->exec();
      tx_failed = false;
    }
    ++tx_depth;
  }
  void commit_tx() {
    if (tx_depth > 1) {
      --tx_depth;
      return;
    }
    if (tx_failed)  // its owner's rollback follows, as after a failed COMMIT
      throw CatalogError(where() + ": a write of this group failed earlier: none of the group's writes kept");
    query("COMMIT")->exec();
    --tx_depth;
  }
  void rollback_tx() noexcept {
    if (--tx_depth > 0) {
      tx_failed = true;
      return;
    }
    try {
      query("ROLLBACK")->exec();
    } catch (const SQLite::Exception&) {  // SQLite may have rolled back already (e.g. disk full)
    }
  }
  class Tx {
   public:
    explicit Tx(Impl& c) : c_(c) { c_.begin_tx(); }
    Tx(const Tx&) = delete;
    Tx& operator=(const Tx&) = delete;
    ~Tx() {
      if (!done_) c_.rollback_tx();
    }
    void commit() {
      c_.commit_tx();
      done_ = true;
    }

   private:
    Impl& c_;
    bool done_ = false;
  };

  // Makes the commits made while it lives durable against power loss (see
  // attempts.cpp, begin_submit). PRAGMA synchronous cannot change inside a
  // transaction, so construct it before the transaction starts.
  class FullSync {
   public:
    // Inside a WriteGroup it changes nothing: the group's commit is the one that counts.
    explicit FullSync(Impl& c) : c_(c), on_(c.tx_depth == 0) {
      if (on_) c_.query("PRAGMA synchronous = FULL")->exec();
    }
    FullSync(const FullSync&) = delete;
    FullSync& operator=(const FullSync&) = delete;
    ~FullSync() {
      if (on_) try {
          c_.query("PRAGMA synchronous = NORMAL")->exec();
        } catch (const SQLite::Exception&) {
        }
    }

   private:
    Impl& c_;
    bool on_;
  };
};

}  // namespace campaign
