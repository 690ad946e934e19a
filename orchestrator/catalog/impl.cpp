// The catalog's internals; see impl.hpp.
#include "catalog/impl.hpp"

#include <SQLiteCpp/Backup.h>
#include <sqlite3.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

#include "catalog/transitions.hpp"

namespace campaign {

namespace {

// How long a statement waits for a lock held by another connection (a
// reader's, or a checkpoint) before failing with SQLITE_BUSY.
constexpr int kBusyTimeoutMs = 5000;

}  // namespace

Time system_now() { return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()); }

void bind_opt(SQLite::Statement& s, int i, const std::optional<Time>& v) {
  if (v)
    s.bind(i, to_secs(*v));
  else
    s.bind(i);
}

std::optional<std::int64_t> opt_i64(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getInt64();
}

std::optional<int> opt_int(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getInt();
}

std::optional<Time> opt_time(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return from_secs(c.getInt64());
}

State parse_state(const std::string& text) {
  if (auto s = state_from_string(text)) return *s;
  throw CatalogError("unknown attempt state '" + text + "' in the catalog");
}

std::optional<State> opt_state(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return parse_state(c.getString());
}

std::string state_name(State s) { return std::string(to_string(s)); }

// attempts.cause: '' (none), 'dependency', 'user'; an unknown word (a newer version's) reads as none.
std::string cause_text(Cause c) {
  switch (c) {
    case Cause::dependency:
      return "dependency";
    case Cause::user:
      return "user";
    case Cause::none:
      break;
  }
  return "";
}

Cause cause_from_text(const std::string& text) {
  if (text == "dependency") return Cause::dependency;
  if (text == "user") return Cause::user;
  return Cause::none;
}

const std::string kAttemptSelect =
    "SELECT a.id, a.case_id, c.campaign_id, a.number, a.state, c.key, c.name, c.step, c.run_dir, "
    "c.script, c.in_spec, a.job_id, a.job_name, a.nodes, a.walltime_s, a.submitted, a.started, "
    "a.ended, a.elapsed_s, a.exit_code, a.reason, a.node_list, a.confirmed, "
    "a.step_name, a.array_task, a.cause, a.energy_j FROM attempts a JOIN cases c ON c.id = a.case_id ";

AttemptRow read_attempt(const SQLite::Statement& s) {
  AttemptRow r;
  r.id = s.getColumn(0).getInt64();
  r.case_id = s.getColumn(1).getInt64();
  r.campaign_id = s.getColumn(2).getInt64();
  r.number = s.getColumn(3).getInt();
  r.state = parse_state(s.getColumn(4).getString());
  r.case_key = s.getColumn(5).getString();
  r.case_name = s.getColumn(6).getString();
  r.step = s.getColumn(7).getString();
  r.run_dir = s.getColumn(8).getString();
  r.script = s.getColumn(9).getString();
  r.in_spec = s.getColumn(10).getInt() != 0;
  r.job_id = s.getColumn(11).getString();  // NULL reads as ""
  r.job_name = s.getColumn(12).getString();
  r.nodes = opt_int(s.getColumn(13));
  r.walltime_s = opt_i64(s.getColumn(14));
  r.submitted = opt_time(s.getColumn(15));
  r.started = opt_time(s.getColumn(16));
  r.ended = opt_time(s.getColumn(17));
  r.elapsed_s = opt_i64(s.getColumn(18));
  r.exit_code = opt_int(s.getColumn(19));
  r.reason = s.getColumn(20).getString();
  r.node_list = s.getColumn(21).getString();
  r.confirmed = s.getColumn(22).getInt() != 0;
  r.step_name = s.getColumn(23).getString();
  if (!s.getColumn(24).isNull()) r.array_task = s.getColumn(24).getInt64();
  r.cause = cause_from_text(s.getColumn(25).getString());
  if (!s.getColumn(26).isNull()) r.energy_j = s.getColumn(26).getDouble();
  return r;
}

const std::string kCampaignSelect =
    "SELECT id, name, spec_text, spec_hash, system, workdir, code_version, created, updated, code_commit, "
    "code_date, code_dirty, tags FROM campaigns ";

CampaignRecord read_campaign(const SQLite::Statement& s) {
  CampaignRecord r;
  r.id = s.getColumn(0).getInt64();
  r.name = s.getColumn(1).getString();
  r.spec_text = s.getColumn(2).getString();
  r.spec_hash = s.getColumn(3).getString();
  r.system = s.getColumn(4).getString();
  r.workdir = s.getColumn(5).getString();
  r.code.version = s.getColumn(6).getString();
  r.created = from_secs(s.getColumn(7).getInt64());
  r.updated = from_secs(s.getColumn(8).getInt64());
  r.code.commit = s.getColumn(9).getString();
  r.code.date = opt_time(s.getColumn(10));
  r.code.dirty = s.getColumn(11).getInt() != 0;
  auto tags = nlohmann::json::parse(s.getColumn(12).getString(), nullptr, false);
  if (tags.is_object())
    for (auto& [k, v] : tags.items())
      if (v.is_string()) r.tags[k] = v.get<std::string>();
  return r;
}

const std::string kEventSelect =
    "SELECT id, time, campaign_id, case_id, attempt_id, kind, from_state, to_state, message FROM events ";

EventRow read_event(const SQLite::Statement& s) {
  EventRow e;
  e.id = s.getColumn(0).getInt64();
  e.time = from_secs(s.getColumn(1).getInt64());
  e.scope.campaign_id = opt_i64(s.getColumn(2));
  e.scope.case_id = opt_i64(s.getColumn(3));
  e.scope.attempt_id = opt_i64(s.getColumn(4));
  e.kind = s.getColumn(5).getString();
  e.from = opt_state(s.getColumn(6));
  e.to = opt_state(s.getColumn(7));
  e.message = s.getColumn(8).getString();
  return e;
}

Metric read_metric(const SQLite::Statement& s, int first) {
  Metric m;
  m.name = s.getColumn(first).getString();
  m.step = opt_i64(s.getColumn(first + 1));
  const SQLite::Column v = s.getColumn(first + 2);
  m.value = v.isNull() ? std::numeric_limits<double>::quiet_NaN() : v.getDouble();
  m.unit = s.getColumn(first + 3).getString();
  return m;
}

void raise_sqlite(const std::string& path, const std::string& op, const SQLite::Exception& e) {
  const int code = e.getExtendedErrorCode();
  const std::string sqlite = std::string(e.what()) + ", SQLite code " + std::to_string(code);
  switch (code & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN: {
      const std::string remedy = (code & 0xff) == SQLITE_FULL
                                     ? "free space on its file system (or raise the quota)"
                                 : (code & 0xff) == SQLITE_IOERR
                                     ? "check the disk (dmesg) or move the work directory to a healthy one"
                                     : "make its directory and file system writable";
      throw CatalogStorageError(
          "cannot write the catalog " + path + " (" + op + ": " + sqlite +
              "): nothing was half-written (SQLite rolls back what it could not finish); " + remedy +
              ", then `campaign run` again continues where it stopped",
          code);
    }
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      throw CorruptCatalogError(path + " is damaged (" + op + ": " + sqlite + "); " + kCorruptRemedy, code);
    default:
      throw CatalogError(path + ": " + op + ": " + sqlite, code);
  }
}

std::string Current::describe() const {
  return "attempt #" + std::to_string(number) + " (id " + std::to_string(id) + ") of case " + case_key;
}

void copy_database(SQLite::Database& to, const std::filesystem::path& from) {
  SQLite::Database src(from.string(), SQLite::OPEN_READONLY, kBusyTimeoutMs);
  SQLite::Backup backup(to, src);
  backup.executeStep();  // all pages, one consistent read of the source
}

namespace {

// A catalog's connection is used by one thread at a time (each system of a run has its own
// connection on its own thread; BulkWrites' checkpointer has its own), so it needs no mutex of its
// own; and nothing asks SQLite for its allocation statistics, which cost a process-wide mutex at
// every malloc and free. Mutexes were 4 % of the engine's CPU at 30,000 cases.
int unshared_connection() {
  // Only before SQLite's first use (else SQLITE_MISUSE, and the statistics stay: a test that
  // routed SQLite through its fault layer first).
  static const int configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)configured;
  return SQLite::OPEN_NOMUTEX;
}

}  // namespace

Catalog::Impl::Impl(std::optional<WriterLock> l, std::filesystem::path p, Access a, bool uri)
    : lock(std::move(l)),
      path(std::move(p)),
      access(a),
      db(a == Access::snapshot ? std::string(":memory:") : path.string(),
         (a == Access::read_only ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE) |
             (uri ? SQLite::OPEN_URI : 0) | unshared_connection(),
         kBusyTimeoutMs) {}

Catalog::Impl::Query Catalog::Impl::query(const std::string& sql) {
  auto it = cache.find(sql);
  if (it == cache.end()) it = cache.emplace(sql, std::make_unique<SQLite::Statement>(db, sql)).first;
  it->second->reset();
  it->second->clearBindings();
  return Query(*it->second);
}

void Catalog::Impl::require_writer(const char* op) const {
  if (access != Access::read_write)
    throw CatalogError(where() + ": " + op + ": the catalog was opened read-only");
}

Current Catalog::Impl::current(std::int64_t attempt_id) {
  auto q = query(
      "SELECT a.id, a.case_id, c.campaign_id, a.number, a.state, a.job_id, c.key, a.confirmed "
      "FROM attempts a JOIN cases c ON c.id = a.case_id WHERE a.id = ?");
  q->bind(1, attempt_id);
  if (!q->executeStep()) throw CatalogError(where() + ": no attempt with id " + std::to_string(attempt_id));
  Current c;
  c.id = q->getColumn(0).getInt64();
  c.case_id = q->getColumn(1).getInt64();
  c.campaign_id = q->getColumn(2).getInt64();
  c.number = q->getColumn(3).getInt();
  c.state = parse_state(q->getColumn(4).getString());
  c.job_id = q->getColumn(5).getString();
  c.case_key = q->getColumn(6).getString();
  c.confirmed = q->getColumn(7).getInt() != 0;
  return c;
}

std::int64_t Catalog::Impl::insert_event(const EventScope& scope, std::string_view kind,
                                         std::optional<State> from, std::optional<State> to,
                                         std::string_view message) {
  auto q = query(
      "INSERT INTO events (time, campaign_id, case_id, attempt_id, kind, from_state, to_state, message) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  q->bind(1, now());
  bind_opt(*q, 2, scope.campaign_id);
  bind_opt(*q, 3, scope.case_id);
  bind_opt(*q, 4, scope.attempt_id);
  q->bind(5, std::string(kind));
  bind_opt(*q, 6, from ? std::optional<std::string>(state_name(*from)) : std::nullopt);
  bind_opt(*q, 7, to ? std::optional<std::string>(state_name(*to)) : std::nullopt);
  q->bind(8, std::string(message));
  q->exec();
  return db.getLastInsertRowid();
}

void Catalog::Impl::check_transition(const Current& cur, State to) const {
  if (!allowed(cur.state, to))
    throw TransitionError(where() + ": " + cur.describe() + " cannot go from " + state_name(cur.state) +
                          " to " + state_name(to));
  // A completion its marker alone reported is collected only once the scheduler confirmed it, and
  // corrected to another end only until then.
  if (cur.state == State::completed && (to == State::collected || to == State::collect_failed) &&
      !cur.confirmed)
    throw TransitionError(where() + ": " + cur.describe() + " is completed on its exit marker alone: the " +
                          "scheduler's accounting must confirm it before it is collected");
  if (cur.state == State::completed && to != State::collected && to != State::collect_failed && cur.confirmed)
    throw TransitionError(where() + ": " + cur.describe() + " is a confirmed completion: it cannot become " +
                          state_name(to));
}

void Catalog::Impl::set_state(Current& cur, State to, std::string_view message, const JobUpdate* info) {
  const Move move{to, message};
  set_states(cur, {&move, 1}, info);
}

void Catalog::Impl::set_states(Current& cur, std::span<const Move> path, const JobUpdate* info,
                               const Submitted* job) {
  Current at = cur;
  for (const Move& m : path) {  // every move checked before anything is written
    check_transition(at, m.to);
    at.state = m.to;
  }
  const State to = at.state;
  if (info) {
    write_info(cur.id, *info, &to, false, job);  // one statement for the state and what came with it
  } else if (job) {
    auto q = query(
        "UPDATE attempts SET state = ?, updated = ?, job_name = ?, job_id = ?, submitted = ? WHERE id = ?");
    q->bind(1, state_name(to));
    q->bind(2, now());
    q->bindNoCopy(3, job->job_name);
    q->bindNoCopy(4, job->job_id);
    q->bind(5, job->submitted);
    q->bind(6, cur.id);
    q->exec();
  } else {
    auto q = query("UPDATE attempts SET state = ?, updated = ? WHERE id = ?");
    q->bind(1, state_name(to));
    q->bind(2, now());
    q->bind(3, cur.id);
    q->exec();
  }
  if (path.size() == 1) {
    insert_event({cur.campaign_id, cur.case_id, cur.id}, "state", cur.state, path[0].to, path[0].message);
    cur.state = to;
    return;
  }
  // Several moves: their events in one statement, rows in the order of the moves (ids as one by one).
  static constexpr int kColumns = 8;
  auto sql = [](size_t n) {
    std::string text =
        "INSERT INTO events (time, campaign_id, case_id, attempt_id, kind, from_state, to_state, message) "
        "VALUES ";
    for (size_t i = 0; i < n; ++i) text += i ? ", (?, ?, ?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?, ?, ?)";
    return text;
  };
  static const std::string kThree = sql(3);  // an import's path, built once
  auto q = query(path.size() == 3 ? kThree : sql(path.size()));
  const std::int64_t time = now();
  State from = cur.state;
  for (size_t i = 0; i < path.size(); ++i) {
    const int k = static_cast<int>(i) * kColumns;
    q->bind(k + 1, time);
    q->bind(k + 2, cur.campaign_id);
    q->bind(k + 3, cur.case_id);
    q->bind(k + 4, cur.id);
    q->bindNoCopy(k + 5, "state");  // (bindNoCopy of a pointer and a size would bind a BLOB)
    q->bind(k + 6, state_name(from));
    q->bind(k + 7, state_name(path[i].to));
    q->bind(k + 8, std::string(path[i].message));
    from = path[i].to;
  }
  q->exec();
  cur.state = to;
}

std::int64_t Catalog::Impl::insert_attempt(std::int64_t campaign_id, std::int64_t case_id, int number,
                                           std::string_view why) {
  auto q = query("INSERT INTO attempts (case_id, number, state, updated) VALUES (?, ?, 'planned', ?)");
  q->bind(1, case_id);
  q->bind(2, number);
  q->bind(3, now());
  q->exec();
  std::int64_t id = db.getLastInsertRowid();
  insert_event({campaign_id, case_id, id}, "state", std::nullopt, State::planned, why);
  return id;
}

void Catalog::Impl::store_info(std::int64_t attempt_id, const JobUpdate& info, bool state_changed) {
  write_info(attempt_id, info, nullptr, state_changed);
}

void Catalog::Impl::write_info(std::int64_t attempt_id, const JobUpdate& info, const State* to,
                               bool state_changed, const Submitted* job) {
  state_changed |= to != nullptr;
  auto q = query(
      "UPDATE attempts SET reason = CASE WHEN ?1 THEN coalesce(?2, '') ELSE coalesce(?2, reason) END, "
      "exit_code = coalesce(?3, exit_code), started = coalesce(?4, started), "
      "ended = coalesce(?5, ended), elapsed_s = coalesce(?6, elapsed_s), "
      "node_list = coalesce(?7, node_list), confirmed = coalesce(?10, confirmed), updated = ?8, "
      "cause = CASE WHEN ?1 THEN coalesce(?11, '') ELSE coalesce(?11, cause) END, "
      "energy_j = coalesce(?12, energy_j), state = coalesce(?13, state), job_name = coalesce(?14, job_name), "
      "job_id = coalesce(?15, job_id), submitted = coalesce(?16, submitted) WHERE id = ?9");
  q->bind(1, state_changed ? 1 : 0);
  bind_opt(*q, 2, info.reason);
  bind_opt(*q, 3, info.exit_code);
  bind_opt(*q, 4, info.started);
  bind_opt(*q, 5, info.ended);
  bind_opt(*q, 6, info.elapsed_s);
  bind_opt(*q, 7, info.node_list);
  q->bind(8, now());
  q->bind(9, attempt_id);
  bind_opt(*q, 10, info.confirmed ? std::optional<int>(*info.confirmed ? 1 : 0) : std::nullopt);
  bind_opt(*q, 11, info.cause ? std::optional<std::string>(cause_text(*info.cause)) : std::nullopt);
  bind_opt(*q, 12, info.energy_j);
  bind_opt(*q, 13, to ? std::optional<std::string>(state_name(*to)) : std::nullopt);
  if (job) {
    q->bindNoCopy(14, job->job_name);
    q->bindNoCopy(15, job->job_id);
    q->bind(16, job->submitted);
  }
  q->exec();
}

Current current_of(const AttemptRow& row) {
  Current c;
  c.id = row.id;
  c.case_id = row.case_id;
  c.campaign_id = row.campaign_id;
  c.number = row.number;
  c.state = row.state;
  c.job_id = row.job_id;
  c.case_key = row.case_key;
  c.confirmed = row.confirmed;
  return c;
}

// Column for column what store_info's UPDATE writes and read_attempt reads (a test holds the two
// equal: catalog_test "update_state on a row").
void apply_written(AttemptRow& row, State to, const JobUpdate& info, bool state_changed) {
  if (info.reason || state_changed) row.reason = info.reason.value_or("");
  if (info.cause || state_changed) row.cause = info.cause.value_or(Cause::none);
  if (info.exit_code) row.exit_code = info.exit_code;
  if (info.started) row.started = info.started;
  if (info.ended) row.ended = info.ended;
  if (info.elapsed_s) row.elapsed_s = info.elapsed_s;
  if (info.node_list) row.node_list = *info.node_list;
  if (info.confirmed) row.confirmed = *info.confirmed;
  if (info.energy_j && !std::isnan(*info.energy_j)) row.energy_j = info.energy_j;  // SQLite: NaN is NULL
  row.state = to;
}

MetricSeries& SeriesBuilder::series(std::string_view name, std::string_view unit, bool stepped,
                                    std::optional<std::int64_t> instance) {
  if (last_ < out_.size()) {
    const MetricSeries& s = out_[last_];
    if (s.stepped == stepped && s.instance == instance && s.name == name && s.unit == unit)
      return out_[last_];
  }
  auto it = index_.find(std::make_tuple(name, unit, stepped, instance));
  if (it == index_.end()) {
    it = index_.emplace(std::make_tuple(std::string(name), std::string(unit), stepped, instance), out_.size())
             .first;
    out_.push_back(MetricSeries{std::string(name), std::string(unit), instance, stepped, {}, {}});
  }
  last_ = it->second;
  return out_[last_];
}

void SeriesBuilder::add(std::string_view name, std::string_view unit, std::optional<std::int64_t> step,
                        double value, std::optional<std::int64_t> instance) {
  MetricSeries& s = series(name, unit, step.has_value(), instance);
  if (step) s.steps.push_back(*step);
  s.vals.push_back(value);
}

size_t value_count(const std::vector<MetricSeries>& series) {
  size_t n = 0;
  for (const auto& s : series) n += s.vals.size();
  return n;
}

void Catalog::Impl::write_metrics(std::int64_t attempt_id, const std::vector<Metric>& metrics) {
  std::vector<MetricSeries> series;
  SeriesBuilder group(series);
  for (const Metric& m : metrics) group.add(m.name, m.unit, m.step, m.value, m.instance);
  write_series(attempt_id, series);
}

void Catalog::Impl::write_series(std::int64_t attempt_id, const std::vector<MetricSeries>& series,
                                 bool legacy_rows) {
  if (legacy_rows) {
    auto del = query("DELETE FROM metrics WHERE attempt_id = ?");
    del->bind(1, attempt_id);
    del->exec();
  }
  {
    auto del = query("DELETE FROM metric_series WHERE attempt_id = ?");
    del->bind(1, attempt_id);
    del->exec();
  }
  for (const MetricSeries& g : series) {
    if (g.name.empty()) throw CatalogError(where() + ": a metric without a name");
    if (g.stepped && g.steps.size() != g.vals.size())
      throw CatalogError(where() + ": metric '" + g.name + "': " + std::to_string(g.steps.size()) +
                         " steps for " + std::to_string(g.vals.size()) + " values");
  }
  // Up to kRows series a statement (rows in the order of `series`, ids as one by one): a history
  // file's columns are one INSERT, not one each.
  constexpr size_t kRows = 8;
  constexpr int kColumns = 6;
  std::vector<const MetricSeries*> rows;
  rows.reserve(series.size());
  for (const MetricSeries& g : series)
    if (!g.vals.empty()) rows.push_back(&g);  // a series is made by its first value: none is no row
  for (size_t first = 0; first < rows.size(); first += kRows) {
    const size_t n = std::min(kRows, rows.size() - first);
    static const auto kSql = [] {  // the statement for 1..kRows rows
      std::array<std::string, kRows + 1> sql;
      for (size_t k = 1; k <= kRows; ++k) {
        sql[k] = "INSERT INTO metric_series (attempt_id, name, unit, steps, vals, instance) VALUES ";
        for (size_t i = 0; i < k; ++i) sql[k] += i ? ", (?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?)";
      }
      return sql;
    }();
    auto ins = query(kSql[n]);
    for (size_t i = 0; i < n; ++i) {
      const MetricSeries& g = *rows[first + i];
      const int k = static_cast<int>(i) * kColumns;
      ins->bind(k + 1, attempt_id);
      ins->bindNoCopy(k + 2, g.name);
      ins->bindNoCopy(k + 3, g.unit);
      bool consecutive = true;  // epochs 0..n-1 or 1..n: the first step says it all (schema v4)
      for (size_t j = 1; consecutive && j < g.steps.size(); ++j)
        consecutive = g.steps[j] == g.steps[0] + static_cast<std::int64_t>(j);
      if (!g.stepped)
        ins->bind(k + 4);
      else if (consecutive)
        ins->bind(k + 4, g.steps.front());
      else
        ins->bindNoCopy(k + 4, g.steps.data(), static_cast<int>(g.steps.size() * sizeof(std::int64_t)));
      ins->bindNoCopy(k + 5, g.vals.data(), static_cast<int>(g.vals.size() * sizeof(double)));
      if (g.instance)
        ins->bind(k + 6, *g.instance);
      else
        ins->bind(k + 6);
    }
    ins->exec();
  }
}

void decode_series(const SQLite::Column& steps, const SQLite::Column& vals,
                   std::vector<std::optional<std::int64_t>>& steps_out, std::vector<double>& vals_out) {
  size_t n = static_cast<size_t>(vals.getBytes()) / sizeof(double);
  const char* vp = static_cast<const char*>(vals.getBlob());
  size_t first = vals_out.size();
  vals_out.resize(first + n);
  if (n) std::memcpy(vals_out.data() + first, vp, n * sizeof(double));
  steps_out.reserve(steps_out.size() + n);
  if (steps.isInteger()) {  // consecutive steps from this one
    for (std::int64_t i = 0, k = steps.getInt64(); i < static_cast<std::int64_t>(n); ++i)
      steps_out.emplace_back(k + i);
    return;
  }
  const char* sp = steps.isNull() ? nullptr : static_cast<const char*>(steps.getBlob());
  for (size_t i = 0; i < n; ++i) {
    if (!sp) {
      steps_out.emplace_back();
      continue;
    }
    std::int64_t st;
    std::memcpy(&st, sp + i * sizeof(std::int64_t), sizeof st);
    steps_out.emplace_back(st);
  }
}

void append_series(std::vector<Metric>& out, const SQLite::Statement& s, int first) {
  std::string name = s.getColumn(first).getString();
  std::string unit = s.getColumn(first + 1).getString();
  std::vector<std::optional<std::int64_t>> steps;
  std::vector<double> vals;
  decode_series(s.getColumn(first + 2), s.getColumn(first + 3), steps, vals);
  for (size_t i = 0; i < vals.size(); ++i) {
    Metric m;
    m.name = name;
    m.unit = unit;
    m.value = vals[i];
    m.step = steps[i];
    out.push_back(std::move(m));
  }
}

std::vector<AttemptRow> Catalog::Impl::attempts(const std::string& where_clause, std::int64_t id) {
  auto q = query(kAttemptSelect + where_clause);
  q->bind(1, id);
  std::vector<AttemptRow> out;
  while (q->executeStep()) out.push_back(read_attempt(*q));
  return out;
}

}  // namespace campaign
