// The catalog's migrations; see schema.hpp for the rules.
#include "catalog/schema.hpp"

#include <array>

#include "catalog/errors.hpp"

namespace campaign {

namespace {

// Times are integer Unix seconds (UTC); NULL means not known yet.
constexpr const char* kV1 = R"sql(
CREATE TABLE campaigns (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  spec_text    TEXT NOT NULL,
  spec_hash    TEXT NOT NULL,
  system       TEXT NOT NULL,
  workdir      TEXT NOT NULL,
  code_version TEXT NOT NULL DEFAULT '',  -- commit or label of the code under test
  created      INTEGER NOT NULL,
  updated      INTEGER NOT NULL
);

CREATE TABLE cases (
  id          INTEGER PRIMARY KEY,
  campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  key         TEXT NOT NULL,               -- stable hash of the parameters
  step        TEXT NOT NULL DEFAULT '',
  name        TEXT NOT NULL,               -- run directory name
  params      TEXT NOT NULL,               -- JSON object
  run_dir     TEXT NOT NULL,
  script      TEXT NOT NULL DEFAULT '',
  in_spec     INTEGER NOT NULL DEFAULT 1,  -- 0 once the campaign file no longer lists it
  created     INTEGER NOT NULL,
  UNIQUE (campaign_id, key)
);

CREATE TABLE attempts (
  id         INTEGER PRIMARY KEY,
  case_id    INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  number     INTEGER NOT NULL CHECK (number >= 1),
  state      TEXT NOT NULL,
  job_id     TEXT,
  job_name   TEXT,
  nodes      INTEGER,
  walltime_s INTEGER,
  submitted  INTEGER,
  started    INTEGER,
  ended      INTEGER,
  elapsed_s  INTEGER,
  exit_code  INTEGER,
  reason     TEXT NOT NULL DEFAULT '',
  node_list  TEXT NOT NULL DEFAULT '',
  updated    INTEGER NOT NULL,
  UNIQUE (case_id, number)
);

CREATE TABLE metrics (
  id         INTEGER PRIMARY KEY,
  attempt_id INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  step       INTEGER,                 -- e.g. epoch; NULL for a whole-run value
  value      REAL,                    -- NULL stores NaN (SQLite has no NaN)
  unit       TEXT NOT NULL DEFAULT ''
);

-- Append-only. kind 'state' rows record every change of an attempt's state
-- (from_state NULL when the attempt is created), so states can be replayed.
CREATE TABLE events (
  id          INTEGER PRIMARY KEY,
  time        INTEGER NOT NULL,
  campaign_id INTEGER REFERENCES campaigns(id) ON DELETE CASCADE,
  case_id     INTEGER REFERENCES cases(id) ON DELETE CASCADE,
  attempt_id  INTEGER REFERENCES attempts(id) ON DELETE CASCADE,
  kind        TEXT NOT NULL,
  from_state  TEXT,
  to_state    TEXT,
  message     TEXT NOT NULL DEFAULT ''
);
)sql";

// Indexes for the hot paths: polling by state, re-collecting an attempt's
// metrics (also what foreign-key checks on attempt deletion use), and the
// tail of the event log.
constexpr const char* kV2 = R"sql(
CREATE INDEX attempts_state ON attempts(state);
CREATE INDEX metrics_attempt ON metrics(attempt_id);
CREATE INDEX events_campaign ON events(campaign_id, id);
CREATE INDEX events_attempt ON events(attempt_id, id);
CREATE INDEX events_case ON events(case_id);
)sql";

// Per-step metrics packed per (attempt, name): a 100-epoch history is one
// row per column instead of one per epoch and column, so importing 10,000
// runs writes 60,000 rows, not 6,000,000. Rows of `metrics` stay readable.
constexpr const char* kV3 = R"sql(
CREATE TABLE metric_series (
  id         INTEGER PRIMARY KEY,
  attempt_id INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  unit       TEXT NOT NULL DEFAULT '',
  steps      BLOB,                    -- int64 (native order) per value; NULL for whole-run values (v5: see kV5)
  vals       BLOB NOT NULL            -- float64 per value; NaN kept as is
);
CREATE INDEX metric_series_attempt ON metric_series(attempt_id);
)sql";

// The code under test, for performance history (`campaign history`): the git
// commit and its commit date beside code_version, which now holds what people
// read (the --label, else the short commit). Old rows keep '' and NULL: no
// commit was recorded for them.
constexpr const char* kV4 = R"sql(
ALTER TABLE campaigns ADD COLUMN code_commit TEXT NOT NULL DEFAULT '';  -- full git commit, '' when unknown
ALTER TABLE campaigns ADD COLUMN code_date INTEGER;                     -- its commit date; NULL when unknown
ALTER TABLE campaigns ADD COLUMN code_dirty INTEGER NOT NULL DEFAULT 0; -- 1: the checkout had local changes
)sql";

// No new table: from version 5 on, metric_series.steps may also be an INTEGER
// k, meaning steps k, k+1, ..., k+n-1 (epochs, almost always). It halves what
// an import writes; older versions of campaign would misread it, hence the
// version.
constexpr const char* kV5 =
    "-- metric_series.steps: BLOB of int64, NULL, or INTEGER (first of consecutive steps)";

// An attempt its exit marker completed before the scheduler's accounting
// said how the job ended: confirmed = 0 until then. Only a confirmed
// attempt is collected and counts as done; an unconfirmed one may still turn
// out to have ended node_fail, timeout, ... (srun exits 0 after a node
// failure, and so does the job script's marker).
constexpr const char* kV6 = R"sql(
ALTER TABLE attempts ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 1;  -- 0: completed on its marker alone, so far
)sql";

// MLPerf HPC weak scaling: a case with `instances` runs K copies side by side, and
// each metric belongs to one of them. NULL for every other metric (and every
// older row): the case is one instance.
constexpr const char* kV7 = R"sql(
ALTER TABLE metrics ADD COLUMN instance INTEGER;        -- 0..K-1 for a case with instances, else NULL
ALTER TABLE metric_series ADD COLUMN instance INTEGER;  -- the same
)sql";

// Packed runs: an attempt may be one job step of a shared allocation. Its job
// name (and id) are then the allocation's, and step_name names its step.
constexpr const char* kV8 = R"sql(
ALTER TABLE attempts ADD COLUMN step_name TEXT;  -- its step's name inside a shared allocation (pack:), else NULL
)sql";

// Job arrays: an attempt may be one task of an array job; its job name is the array's, its job id
// the task's (Slurm 123_4, LSF 123[5]) and array_task the scheduler's index of its task, which is
// how a killed run's array is adopted task by task.
constexpr const char* kV9 = R"sql(
ALTER TABLE attempts ADD COLUMN array_task INTEGER;  -- its task's index in a job array (array:), else NULL
)sql";

// Why an attempt ended, as a word a decision reads (Cause), rather than a prefix of its reason's text.
constexpr const char* kV10 = R"sql(
ALTER TABLE attempts ADD COLUMN cause TEXT NOT NULL DEFAULT '';  -- '', 'dependency' (cancelled for a failed dependency) or 'user' (catalog.hpp Cause)
UPDATE attempts SET cause = 'dependency' WHERE state = 'cancelled' AND reason LIKE 'dependency %';
)sql";

// The engine's memory between its decisions (engine/memory.hpp), recorded as it changes so that a
// new engine folds it back after kill -9 rather than rebuilding it from rows that keep less. The one
// fact older versions kept (in attempts.confirmed) is recorded for their attempts: a completion on
// its marker still awaiting the accounting.
constexpr const char* kV11 = R"sql(
CREATE TABLE observations (
  id         INTEGER PRIMARY KEY,
  attempt_id INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
  fact       TEXT NOT NULL,             -- engine/memory.hpp: missing, marker_exit, unconfirmed, awaiting_steps
  held       INTEGER NOT NULL,          -- 0: the fact no longer holds
  since      INTEGER,                   -- since when it holds, for a fact with a time
  value      TEXT NOT NULL DEFAULT '',  -- marker_exit: the status; unconfirmed: the job id
  time       INTEGER NOT NULL           -- when it was recorded
);
CREATE INDEX observations_attempt ON observations(attempt_id, id);
INSERT INTO observations (attempt_id, fact, held, since, value, time)
  SELECT id, 'unconfirmed', 1, NULL, COALESCE(job_id, ''), updated FROM attempts
  WHERE state = 'completed' AND confirmed = 0;
)sql";

// What each case runs (its command and resources, as JSON: render::case_rows), so that a campaign
// file edited between runs is noticed and said per case. '' for older rows: recorded at their next sync.
constexpr const char* kV12 = R"sql(
ALTER TABLE cases ADD COLUMN definition TEXT NOT NULL DEFAULT '';  -- JSON; '' when not known
)sql";

// Free-form tags on a run (`campaign run --tag KEY=VALUE` or `--tag WORD`), as a JSON object of
// strings ({"nightly": "", "node": "a100"}); '{}' for older rows.
constexpr const char* kV13 = R"sql(
ALTER TABLE campaigns ADD COLUMN tags TEXT NOT NULL DEFAULT '{}';  -- JSON object: tag -> value ('' for a word)
)sql";

// The energy the scheduler's accounting recorded for an attempt's job (Slurm's ConsumedEnergy; a
// packed attempt's is its allocation's, split among its cases by the report): NULL when none.
constexpr const char* kV14 = R"sql(
ALTER TABLE attempts ADD COLUMN energy_j REAL;  -- joules of the job's nodes over the job, as the accounting recorded them
)sql";

// A campaign's cases in id order (Catalog::latest_attempts reads them so, without sorting every row
// it returns in a temporary B-tree: twice as fast at 20,000 cases).
constexpr const char* kV15 = R"sql(
CREATE INDEX cases_campaign ON cases(campaign_id);
)sql";

constexpr std::array<Migration, 15> kMigrations = {{
    {1, "tables", kV1},
    {2, "indexes for polling, metrics and events", kV2},
    {3, "metric series", kV3},
    {4, "code commit and date of a campaign", kV4},
    {5, "consecutive metric steps stored as their first", kV5},
    {6, "completions confirmed by the scheduler's accounting", kV6},
    {7, "metrics keyed by instance", kV7},
    {8, "attempts as job steps of shared allocations", kV8},
    {9, "attempts as tasks of job arrays", kV9},
    {10, "the cause of an attempt's end", kV10},
    {11, "the engine's memory as observations", kV11},
    {12, "what each case runs", kV12},
    {13, "tags of a run", kV13},
    {14, "energy the accounting recorded for a job", kV14},
    {15, "a campaign's cases in id order", kV15},
}};

int pragma_int(SQLite::Database& db, const char* pragma) {
  return db.execAndGet(std::string("PRAGMA ") + pragma).getInt();
}

}  // namespace

std::span<const Migration> catalog_migrations() { return kMigrations; }

int current_schema_version() { return static_cast<int>(kMigrations.size()); }

int schema_version(SQLite::Database& db) { return pragma_int(db, "user_version"); }

int migrate(SQLite::Database& db, std::span<const Migration> list, const std::string& name) {
  const int target = static_cast<int>(list.size());
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  // Read inside the transaction: nobody can migrate under us now.
  const int found = schema_version(db);
  const int app = pragma_int(db, "application_id");
  if (app != 0 && app != kApplicationId)
    throw SchemaError(name + " is not a campaign catalog (application_id " + std::to_string(app) + ")");
  if (found > target)
    throw SchemaError(name + " has schema version " + std::to_string(found) +
                      ", newer than this campaign understands (" + std::to_string(target) +
                      "): it was written by a newer campaign; use that version or a newer one");
  if (found == 0 && db.execAndGet("SELECT count(*) FROM sqlite_master").getInt() > 0)
    throw SchemaError(name + " is not a campaign catalog (it has tables but no schema version)");
  if (found == target) return found;

  for (const Migration& m : list.subspan(static_cast<size_t>(found))) {
    try {
      db.exec(m.sql);
    } catch (const SQLite::Exception& e) {
      throw SchemaError(name + ": migration to schema version " + std::to_string(m.version) + " (" +
                            m.description + ") failed: " + e.what(),
                        e.getExtendedErrorCode());
    }
  }
  {
    SQLite::Statement fk(db, "PRAGMA foreign_key_check");
    if (fk.executeStep())
      throw SchemaError(name + ": migration to schema version " + std::to_string(target) +
                        " left a dangling reference in table " + fk.getColumn(0).getString());
  }
  db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  db.exec("PRAGMA user_version = " + std::to_string(target));
  tx.commit();
  return found;
}

}  // namespace campaign
