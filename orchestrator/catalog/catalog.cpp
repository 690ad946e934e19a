// The catalog's public functions for opening, campaigns, cases, metrics,
// node-hours and events. Attempt state changes are in attempts.cpp, check()
// in check.cpp, shared internals in impl.hpp.
#include "catalog/catalog.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <system_error>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "catalog/impl.hpp"
#include "catalog/schema.hpp"
#include "catalog/transitions.hpp"
#include "catalog/write_fault.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace campaign {

namespace fs = std::filesystem;

// --- opening -------------------------------------------------------------

fs::path Catalog::db_path(const fs::path& workdir) { return workdir / "campaign.db"; }

Catalog::Catalog(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;
Catalog::~Catalog() = default;

// A writer's settings, then its migration (recorded as an event).
void Catalog::Impl::prepare_writer() {
  // Persistent, but set on every open in case the file was made elsewhere.
  db.exec("PRAGMA journal_mode = WAL");  // a memdb catalog stays in its own mode, MEMORY
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  const int current = current_schema_version();
  const int found = migrate(db, catalog_migrations(), where());
  if (found != 0 && found != current)
    insert_event({}, "catalog", std::nullopt, std::nullopt,
                 "schema migrated from version " + std::to_string(found) + " to " + std::to_string(current));
}

std::string Catalog::memory_uri(const std::string& name) { return "file:/" + name + "?vfs=memdb"; }

Catalog Catalog::open_in_memory(const std::string& name) {
  std::unique_ptr<Impl> impl;
  try {
    impl = std::make_unique<Impl>(std::nullopt, memory_uri(name), Access::read_write, true);
  } catch (const SQLite::Exception& e) {
    raise_sqlite(memory_uri(name), "open", e);
  }
  impl->guard("open", [&] { impl->prepare_writer(); });
  return Catalog(std::move(impl));
}

Catalog Catalog::open(const fs::path& workdir, Access access) {
  const fs::path path = db_path(workdir);
  std::optional<WriterLock> lock;
  if (access == Access::read_write) {
    std::error_code ec;
    fs::create_directories(workdir, ec);
    if (ec && is_storage_errno(ec.value()))
      throw CatalogStorageError(StorageError(workdir.string(), ec.value()).what(), 0);  // exit status 4
    if (ec) throw CatalogError("cannot create " + workdir.string() + ": " + ec.message());
    lock.emplace(WriterLock::acquire(workdir));
  } else if (!fs::exists(path)) {
    throw CatalogError("no catalog in " + workdir.string() + " (" + path.string() + " does not exist)");
  }

  catalog_testing::arm_from_environment();
  std::error_code size_ec;
  const bool existing = access != Access::snapshot && fs::file_size(path, size_ec) > 0 && !size_ec;
  std::unique_ptr<Impl> impl;
  try {
    impl = std::make_unique<Impl>(std::move(lock), path, access);
  } catch (const SQLite::Exception& e) {
    raise_sqlite(path.string(), "open", e);
  }
  Impl& c = *impl;
  c.guard("open", [&] {
    const int current = current_schema_version();
    // First the whole file's structure (quick_check: no index contents, about as fast as reading
    // it): a writer must not extend or rewrite the pages of a damaged file (SQLite may not notice
    // bytes overwritten or a file cut short), and a reader must not show part of one as the whole.
    if (existing) {
      SQLite::Statement q(c.db, "PRAGMA quick_check(3)");
      std::vector<std::string> problems;
      while (q.executeStep())
        if (std::string row = q.getColumn(0).getString(); row != "ok") {
          std::replace(row.begin(), row.end(), '\n', ' ');  // one line
          problems.push_back(row);
        }
      if (!problems.empty())
        throw CorruptCatalogError(path.string() + " is damaged (integrity check: " + join(problems, "; ") +
                                  "); " + kCorruptRemedy);
    }
    if (access == Access::read_write) {
      c.prepare_writer();
    } else if (access == Access::snapshot) {
      copy_database(c.db, path);
      const int found = campaign::schema_version(c.db);
      if (found == 0) throw SchemaError(path.string() + " is not a campaign catalog");
      migrate(c.db, catalog_migrations(), path.string());  // the copy only; refuses newer versions
    } else {
      const int found = campaign::schema_version(c.db);
      if (found > current)
        throw SchemaError(path.string() + " has schema version " + std::to_string(found) +
                          ", newer than this campaign understands (" + std::to_string(current) +
                          "): it was written by a newer campaign; use that version or a newer one");
      if (found == 0) throw SchemaError(path.string() + " is not a campaign catalog");
      if (found < current)
        throw SchemaError(path.string() + " has schema version " + std::to_string(found) +
                          ", this campaign needs " + std::to_string(current) +
                          ": open it once for writing to migrate it");
    }
  });
  return Catalog(std::move(impl));
}

Catalog Catalog::sibling() const {
  if (impl_->access != Access::read_write || !impl_->lock)
    throw CatalogError(impl_->where() + ": a sibling connection needs the writer's own catalog");
  std::unique_ptr<Impl> impl;
  try {
    impl = std::make_unique<Impl>(std::nullopt, impl_->path, Access::read_write);
  } catch (const SQLite::Exception& e) {
    raise_sqlite(impl_->path.string(), "open", e);
  }
  impl->guard("open", [&] { impl->db.exec("PRAGMA foreign_keys = ON"); });
  impl->clock = impl_->clock;
  return Catalog(std::move(impl));
}

Catalog Catalog::open_for_reading(const fs::path& workdir) {
  {
    // Only an older schema goes through a copy; every other problem is reported as read_only sees it.
    std::error_code ec;
    int found = 0;
    if (fs::exists(db_path(workdir), ec)) {
      try {
        SQLite::Database probe(db_path(workdir).string(), SQLite::OPEN_READONLY);
        found = campaign::schema_version(probe);
      } catch (const SQLite::Exception&) {
      }
    }
    if (found > 0 && found < current_schema_version()) return open(workdir, Access::snapshot);
  }
  return open(workdir, Access::read_only);
}

const fs::path& Catalog::path() const { return impl_->path; }
Access Catalog::access() const { return impl_->access; }
int Catalog::schema_version() {
  return impl_->guard("schema_version", [&] { return campaign::schema_version(impl_->db); });
}
void Catalog::set_clock(Clock clock) { impl_->clock = clock ? std::move(clock) : Clock(system_now); }

// --- campaigns -----------------------------------------------------------

std::int64_t Catalog::upsert_campaign(const CampaignRow& row) {
  Impl& c = *impl_;
  c.require_writer("upsert_campaign");
  if (row.name.empty()) throw CatalogError(c.where() + ": a campaign needs a name");
  return c.guard("upsert_campaign", [&] {
    Impl::Tx tx(c);
    std::optional<CampaignRecord> old;
    {
      auto q = c.query(std::string(kCampaignSelect) + "WHERE name = ?");
      q->bind(1, row.name);
      if (q->executeStep()) old = read_campaign(*q);
    }
    std::int64_t id;
    if (!old) {
      auto q = c.query(
          "INSERT INTO campaigns (name, spec_text, spec_hash, system, workdir, created, updated) "
          "VALUES (?, ?, ?, ?, ?, ?, ?)");
      q->bind(1, row.name);
      q->bind(2, row.spec_text);
      q->bind(3, row.spec_hash);
      q->bind(4, row.system);
      q->bind(5, row.workdir);
      q->bind(6, c.now());
      q->bind(7, c.now());
      q->exec();
      id = c.db.getLastInsertRowid();
      c.insert_event({id, {}, {}}, "campaign", std::nullopt, std::nullopt,
                     "created on system " + row.system + " (spec " + row.spec_hash + ")");
    } else {
      id = old->id;
      std::string changes;
      auto note = [&](const char* what, const std::string& from, const std::string& to) {
        if (from == to) return;
        if (!changes.empty()) changes += "; ";
        changes += std::string(what) + " " + from + " -> " + to;
      };
      note("spec", old->spec_hash, row.spec_hash);
      note("system", old->system, row.system);
      note("workdir", old->workdir, row.workdir);
      if (changes.empty() && old->spec_text == row.spec_text) return id;
      auto q = c.query(
          "UPDATE campaigns SET spec_text = ?, spec_hash = ?, system = ?, workdir = ?, updated = ? WHERE id "
          "= ?");
      q->bind(1, row.spec_text);
      q->bind(2, row.spec_hash);
      q->bind(3, row.system);
      q->bind(4, row.workdir);
      q->bind(5, c.now());
      q->bind(6, id);
      q->exec();
      c.insert_event({id, {}, {}}, "campaign", std::nullopt, std::nullopt,
                     changes.empty() ? "spec text changed" : changes);
    }
    tx.commit();
    return id;
  });
}

void Catalog::record_code_version(std::int64_t campaign_id, const CodeRecord& code) {
  Impl& c = *impl_;
  c.require_writer("record_code_version");
  c.guard("record_code_version", [&] {
    Impl::Tx tx(c);
    auto old = c.query(std::string(kCampaignSelect) + "WHERE id = ?");
    old->bind(1, campaign_id);
    if (!old->executeStep())
      throw CatalogError(c.where() + ": no campaign with id " + std::to_string(campaign_id));
    const CodeRecord was = read_campaign(*old).code;
    old->reset();
    std::string changes;
    auto note = [&](const char* what, const std::string& from, const std::string& to) {
      if (from == to) return;
      if (!changes.empty()) changes += "; ";
      changes += std::string(what) + " " + from + " -> " + to;
    };
    note("code version", was.version, code.version);
    note("commit", was.commit + (was.dirty ? " (modified)" : ""),
         code.commit + (code.dirty ? " (modified)" : ""));
    if (changes.empty() && was.date == code.date) return;
    auto q = c.query(
        "UPDATE campaigns SET code_version = ?, code_commit = ?, code_date = ?, code_dirty = ?, updated = ? "
        "WHERE id = ?");
    q->bind(1, code.version);
    q->bind(2, code.commit);
    bind_opt(*q, 3, code.date);
    q->bind(4, code.dirty ? 1 : 0);
    q->bind(5, c.now());
    q->bind(6, campaign_id);
    q->exec();
    if (!changes.empty())
      c.insert_event({campaign_id, {}, {}}, "campaign", std::nullopt, std::nullopt, changes);
    tx.commit();
  });
}

void Catalog::add_tags(std::int64_t campaign_id, const std::map<std::string, std::string>& tags) {
  Impl& c = *impl_;
  c.require_writer("add_tags");
  if (tags.empty()) return;
  c.guard("add_tags", [&] {
    Impl::Tx tx(c);
    auto old = c.query(std::string(kCampaignSelect) + "WHERE id = ?");
    old->bind(1, campaign_id);
    if (!old->executeStep())
      throw CatalogError(c.where() + ": no campaign with id " + std::to_string(campaign_id));
    std::map<std::string, std::string> merged = read_campaign(*old).tags;
    old->reset();
    std::string changes;
    for (auto& [k, v] : tags) {
      auto [it, inserted] = merged.emplace(k, v);
      if (!inserted && it->second == v) continue;
      if (!inserted) it->second = v;
      changes += (changes.empty() ? "" : ", ") + k + (v.empty() ? "" : "=" + v);
    }
    if (changes.empty()) return;
    auto q = c.query("UPDATE campaigns SET tags = ?, updated = ? WHERE id = ?");
    q->bind(1, nlohmann::json(merged).dump());
    q->bind(2, c.now());
    q->bind(3, campaign_id);
    q->exec();
    c.insert_event({campaign_id, {}, {}}, "campaign", std::nullopt, std::nullopt, "tagged " + changes);
    tx.commit();
  });
}

std::optional<CampaignRecord> Catalog::find_campaign(std::string_view name) {
  Impl& c = *impl_;
  return c.guard("find_campaign", [&]() -> std::optional<CampaignRecord> {
    auto q = c.query(std::string(kCampaignSelect) + "WHERE name = ?");
    q->bind(1, std::string(name));
    if (!q->executeStep()) return std::nullopt;
    return read_campaign(*q);
  });
}

std::vector<CampaignRecord> Catalog::campaigns() {
  Impl& c = *impl_;
  return c.guard("campaigns", [&] {
    auto q = c.query(std::string(kCampaignSelect) + "ORDER BY id");
    std::vector<CampaignRecord> out;
    while (q->executeStep()) out.push_back(read_campaign(*q));
    return out;
  });
}

// --- cases ---------------------------------------------------------------

SyncResult Catalog::sync_cases(std::int64_t campaign_id, const std::vector<CaseRow>& rows) {
  Impl& c = *impl_;
  c.require_writer("sync_cases");
  {
    std::unordered_set<std::string_view> keys;
    for (const CaseRow& r : rows) {
      if (r.key.empty()) throw CatalogError(c.where() + ": case " + r.name + " has an empty key");
      if (!keys.insert(r.key).second)
        throw CatalogError(c.where() + ": two cases share the key " + r.key + " (" + r.name + ")");
    }
  }
  return c.guard("sync_cases", [&] {
    Impl::Tx tx(c);
    {
      auto q = c.query("SELECT 1 FROM campaigns WHERE id = ?");
      q->bind(1, campaign_id);
      if (!q->executeStep())
        throw CatalogError(c.where() + ": no campaign with id " + std::to_string(campaign_id));
    }
    struct Known {
      std::int64_t id;
      bool in_spec;
      std::string definition, name;
      bool listed = false;
    };
    std::unordered_map<std::string, Known> known;
    {
      auto q = c.query("SELECT id, key, in_spec, definition, name FROM cases WHERE campaign_id = ?");
      q->bind(1, campaign_id);
      while (q->executeStep())
        known.emplace(q->getColumn(1).getString(),
                      Known{q->getColumn(0).getInt64(), q->getColumn(2).getInt() != 0,
                            q->getColumn(3).getString(), q->getColumn(4).getString()});
    }
    auto set_in_spec = [&](std::int64_t case_id, bool in_spec) {
      auto q = c.query("UPDATE cases SET in_spec = ? WHERE id = ?");
      q->bind(1, in_spec ? 1 : 0);
      q->bind(2, case_id);
      q->exec();
      c.insert_event({campaign_id, case_id, {}}, "case", std::nullopt, std::nullopt,
                     in_spec ? "listed again by the campaign file" : "no longer in the campaign file");
    };

    SyncResult result;
    result.ids.reserve(rows.size());
    for (const CaseRow& r : rows) {
      auto it = known.find(r.key);
      if (it != known.end()) {
        Known& k = it->second;
        k.listed = true;
        if (!k.in_spec) set_in_spec(k.id, true);
        result.ids.push_back(k.id);
        if (!r.definition.empty() && r.definition != k.definition) {
          auto q = c.query("UPDATE cases SET definition = ? WHERE id = ?");
          q->bind(1, r.definition);
          q->bind(2, k.id);
          q->exec();
          if (!k.definition.empty()) {  // (a catalog of schema 11 or older recorded none)
            c.insert_event({campaign_id, k.id, {}}, "case", std::nullopt, std::nullopt,
                           "definition changed: " + k.definition + " -> " + r.definition);
            result.changed.push_back({k.id, k.name, k.definition, r.definition});
          }
        }
        continue;
      }
      auto q = c.query(
          "INSERT INTO cases (campaign_id, key, step, name, params, run_dir, script, created, definition) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
      q->bind(1, campaign_id);
      q->bind(2, r.key);
      q->bind(3, r.step);
      q->bind(4, r.name);
      q->bind(5, r.params.dump());
      q->bind(6, r.run_dir);
      q->bind(7, r.script);
      q->bind(8, c.now());
      q->bind(9, r.definition);
      q->exec();
      std::int64_t case_id = c.db.getLastInsertRowid();
      c.insert_attempt(campaign_id, case_id, 1, "new case " + r.name);
      result.ids.push_back(case_id);
      ++result.inserted;
    }
    for (auto& [key, k] : known) {
      if (k.in_spec && !k.listed) {
        set_in_spec(k.id, false);
        ++result.retired;
        result.retired_names.push_back(k.name);
      }
    }
    tx.commit();
    return result;
  });
}

std::vector<CaseRecord> Catalog::cases_of(std::int64_t campaign_id) {
  Impl& c = *impl_;
  return c.guard("cases_of", [&] {
    auto q = c.query(
        "SELECT id, campaign_id, key, step, name, params, run_dir, script, in_spec, definition FROM cases "
        "WHERE campaign_id = ? ORDER BY id");
    q->bind(1, campaign_id);
    std::vector<CaseRecord> out;
    while (q->executeStep()) {
      CaseRecord r;
      r.id = q->getColumn(0).getInt64();
      r.campaign_id = q->getColumn(1).getInt64();
      r.key = q->getColumn(2).getString();
      r.step = q->getColumn(3).getString();
      r.name = q->getColumn(4).getString();
      r.params = nlohmann::json::parse(q->getColumn(5).getString());
      r.run_dir = q->getColumn(6).getString();
      r.script = q->getColumn(7).getString();
      r.in_spec = q->getColumn(8).getInt() != 0;
      r.definition = q->getColumn(9).getString();
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::vector<std::pair<std::int64_t, bool>> Catalog::case_ids_of(std::int64_t campaign_id) {
  Impl& c = *impl_;
  return c.guard("case_ids_of", [&] {
    auto q = c.query("SELECT id, in_spec FROM cases WHERE campaign_id = ? ORDER BY id");
    q->bind(1, campaign_id);
    std::vector<std::pair<std::int64_t, bool>> out;
    while (q->executeStep()) out.emplace_back(q->getColumn(0).getInt64(), q->getColumn(1).getInt() != 0);
    return out;
  });
}

namespace {

std::map<std::int64_t, std::string> case_column(SQLite::Statement& q, std::int64_t campaign_id) {
  q.bind(1, campaign_id);
  std::map<std::int64_t, std::string> out;
  while (q.executeStep()) out.emplace_hint(out.end(), q.getColumn(0).getInt64(), q.getColumn(1).getString());
  return out;
}

}  // namespace

std::map<std::int64_t, std::string> Catalog::case_definitions(std::int64_t campaign_id) {
  Impl& c = *impl_;
  return c.guard("case_definitions", [&] {
    return case_column(*c.query("SELECT id, definition FROM cases WHERE campaign_id = ? ORDER BY id"), campaign_id);
  });
}

std::map<std::int64_t, std::string> Catalog::case_params(std::int64_t campaign_id) {
  Impl& c = *impl_;
  return c.guard("case_params", [&] {
    return case_column(*c.query("SELECT id, params FROM cases WHERE campaign_id = ? ORDER BY id"), campaign_id);
  });
}

// --- metrics -------------------------------------------------------------

void Catalog::replace_metrics(std::int64_t attempt_id, const std::vector<Metric>& metrics) {
  Impl& c = *impl_;
  c.require_writer("replace_metrics");
  c.guard("replace_metrics", [&] {
    Impl::Tx tx(c);
    Current cur = c.current(attempt_id);
    c.write_metrics(attempt_id, metrics);
    c.insert_event({cur.campaign_id, cur.case_id, cur.id}, "metrics", std::nullopt, std::nullopt,
                   std::to_string(metrics.size()) + " metrics");
    tx.commit();
  });
}

void Catalog::record_collection(std::int64_t attempt_id, const std::vector<Metric>& metrics) {
  Impl& c = *impl_;
  c.require_writer("record_collection");
  c.guard("record_collection", [&] {
    Impl::Tx tx(c);
    Current cur = c.current(attempt_id);
    const std::string message = std::to_string(metrics.size()) + " metrics";
    if (cur.state != State::collected && !allowed(cur.state, State::collected))
      throw TransitionError(c.where() + ": " + cur.describe() + " is " + state_name(cur.state) +
                            ", only a completed attempt can be collected");
    c.write_metrics(attempt_id, metrics);
    if (cur.state == State::collected) {
      c.insert_event({cur.campaign_id, cur.case_id, cur.id}, "metrics", std::nullopt, std::nullopt,
                     "collected again: " + message);
    } else {
      c.store_info(attempt_id, {}, true);
      c.set_state(cur, State::collected, message);
    }
    tx.commit();
  });
}

std::vector<Metric> Catalog::metrics_of_attempt(std::int64_t attempt_id) {
  Impl& c = *impl_;
  return c.guard("metrics_of_attempt", [&] {
    auto instance_of = [](const SQLite::Column& col) {
      return col.isNull() ? std::nullopt : std::optional<std::int64_t>(col.getInt64());
    };
    auto q =
        c.query("SELECT name, step, value, unit, instance FROM metrics WHERE attempt_id = ? ORDER BY id");
    q->bind(1, attempt_id);
    std::vector<Metric> out;
    while (q->executeStep()) {
      out.push_back(read_metric(*q, 0));
      out.back().instance = instance_of(q->getColumn(4));
    }
    auto s = c.query(
        "SELECT name, unit, steps, vals, instance FROM metric_series WHERE attempt_id = ? ORDER BY id");
    s->bind(1, attempt_id);
    while (s->executeStep()) {
      size_t first = out.size();
      append_series(out, *s, 0);
      for (size_t i = first; i < out.size(); ++i) out[i].instance = instance_of(s->getColumn(4));
    }
    return out;
  });
}

std::vector<MetricRow> Catalog::metrics_of(std::int64_t campaign_id) {
  Impl& c = *impl_;
  return c.guard("metrics_of", [&] {
    auto q = c.query(
        "SELECT m.name, m.step, m.value, m.unit, a.id, a.number, a.state, c.id, c.key, c.name "
        "FROM metrics m JOIN attempts a ON a.id = m.attempt_id JOIN cases c ON c.id = a.case_id "
        "WHERE c.campaign_id = ? ORDER BY c.id, a.number, m.id");
    q->bind(1, campaign_id);
    std::vector<MetricRow> out;
    while (q->executeStep()) {
      MetricRow r;
      static_cast<Metric&>(r) = read_metric(*q, 0);
      r.attempt_id = q->getColumn(4).getInt64();
      r.attempt_number = q->getColumn(5).getInt();
      r.attempt_state = parse_state(q->getColumn(6).getString());
      r.case_id = q->getColumn(7).getInt64();
      r.case_key = q->getColumn(8).getString();
      r.case_name = q->getColumn(9).getString();
      out.push_back(std::move(r));
    }
    auto s = c.query(
        "SELECT m.name, m.unit, m.steps, m.vals, a.id, a.number, a.state, c.id, c.key, c.name "
        "FROM metric_series m JOIN attempts a ON a.id = m.attempt_id JOIN cases c ON c.id = a.case_id "
        "WHERE c.campaign_id = ? ORDER BY c.id, a.number, m.id");
    s->bind(1, campaign_id);
    std::vector<Metric> expanded;
    while (s->executeStep()) {
      expanded.clear();
      append_series(expanded, *s, 0);
      for (auto& m : expanded) {
        MetricRow r;
        static_cast<Metric&>(r) = std::move(m);
        r.attempt_id = s->getColumn(4).getInt64();
        r.attempt_number = s->getColumn(5).getInt();
        r.attempt_state = parse_state(s->getColumn(6).getString());
        r.case_id = s->getColumn(7).getInt64();
        r.case_key = s->getColumn(8).getString();
        r.case_name = s->getColumn(9).getString();
        out.push_back(std::move(r));
      }
    }
    std::stable_sort(out.begin(), out.end(), [](const MetricRow& a, const MetricRow& b) {
      return std::tie(a.case_id, a.attempt_number) < std::tie(b.case_id, b.attempt_number);
    });
    return out;
  });
}

namespace {

// The SQL GLOB a metric name or template stands for: "u:{node}:gpu{i}" -> "u:?*:gpu?*".
std::string name_glob(const std::string& name) {
  std::string g;
  for (size_t i = 0; i < name.size(); ++i) {
    size_t close = name[i] == '{' ? name.find('}', i) : std::string::npos;
    if (close != std::string::npos) {
      g += "?*";
      i = close;
    } else if (name[i] == '*' || name[i] == '?' || name[i] == '[') {
      g += '[', g += name[i], g += ']';
    } else {
      g += name[i];
    }
  }
  return g;
}

bool is_template(const std::string& name) {
  size_t open = name.find('{');
  return open != std::string::npos && name.find('}', open) != std::string::npos;
}

}  // namespace

std::vector<Catalog::Series> Catalog::metric_series_of(std::int64_t campaign_id,
                                                       const std::set<std::string>& names) {
  std::vector<Series> out;
  for_each_series(campaign_id, names, [&](Series&& s) { out.push_back(std::move(s)); });
  return out;
}

void Catalog::for_each_series(std::int64_t campaign_id, const std::set<std::string>& names,
                              const std::function<void(Series&&)>& visit) {
  Impl& c = *impl_;
  std::vector<std::string> exact, templates;
  for (const auto& n : names) (is_template(n) ? templates : exact).push_back(n);
  auto wanted = [&](const std::string& name) {
    if (names.empty() || std::binary_search(exact.begin(), exact.end(), name)) return true;
    for (const auto& t : templates)
      if (matches_template(t, name)) return true;
    return false;
  };
  c.guard("metric_series_of", [&] {
    // Rows of the older per-value table, by (attempt, name, instance).
    std::vector<Series> old;
    std::map<std::tuple<std::int64_t, std::string, std::optional<std::int64_t>>, size_t> index;
    auto q = c.query(
        "SELECT m.name, m.step, m.value, m.unit, m.attempt_id, m.instance FROM metrics m JOIN attempts a ON "
        "a.id = m.attempt_id "
        "JOIN cases c ON c.id = a.case_id WHERE c.campaign_id = ? ORDER BY m.id");
    q->bind(1, campaign_id);
    while (q->executeStep()) {
      Metric m = read_metric(*q, 0);
      if (!wanted(m.name)) continue;
      std::int64_t attempt = q->getColumn(4).getInt64();
      std::optional<std::int64_t> instance;
      if (!q->getColumn(5).isNull()) instance = q->getColumn(5).getInt64();
      auto [it, fresh] = index.emplace(std::make_tuple(attempt, m.name, instance), old.size());
      if (fresh) old.push_back(Series{attempt, m.name, m.unit, {}, {}, instance});
      old[it->second].steps.push_back(m.step);
      old[it->second].values.push_back(m.value);
    }
    for (auto& s : old) visit(std::move(s));
    // The names are filtered in SQL: a row's packed values (overflow pages) are read at each step,
    // whether or not the row is wanted. Templates by GLOB, then exactly by wanted().
    std::vector<std::string> filters;
    if (!exact.empty()) {
      std::string in = "m.name IN (?";
      for (size_t i = 1; i < exact.size(); ++i) in += ", ?";
      filters.push_back(in + ")");
    }
    for (size_t i = 0; i < templates.size(); ++i) filters.push_back("m.name GLOB ?");
    std::string filter = filters.empty() ? "" : " AND (" + join(filters, " OR ") + ")";
    auto s = c.query(
        "SELECT m.name, m.unit, m.steps, m.vals, m.attempt_id, m.instance FROM metric_series m JOIN attempts "
        "a ON "
        "a.id = m.attempt_id JOIN cases c ON c.id = a.case_id WHERE c.campaign_id = ?" +
        filter + " ORDER BY m.id");
    s->bind(1, campaign_id);
    int k = 2;
    for (auto& n : exact) s->bind(k++, n);
    for (auto& t : templates) s->bind(k++, name_glob(t));
    while (s->executeStep()) {
      std::string name = s->getColumn(0).getString();
      if (!wanted(name)) continue;
      Series series{s->getColumn(4).getInt64(), std::move(name), s->getColumn(1).getString(), {}, {}, {}};
      if (!s->getColumn(5).isNull()) series.instance = s->getColumn(5).getInt64();
      decode_series(s->getColumn(2), s->getColumn(3), series.steps, series.values);
      visit(std::move(series));
    }
  });
}

// --- budget --------------------------------------------------------------

namespace {

// One sum of node-hours over a campaign's attempts: `sql` binds ?1 to now and ?2 to the campaign.
template <class Impl>  // Catalog::Impl, private to Catalog
double node_hours(Impl& c, const char* op, const char* sql, std::int64_t campaign_id) {
  return c.guard(op, [&] {
    auto q = c.query(sql);
    q->bind(1, c.now());
    q->bind(2, campaign_id);
    q->executeStep();
    return q->getColumn(0).getDouble();
  });
}

}  // namespace

double Catalog::consumed_node_hours(std::int64_t campaign_id) {
  return node_hours(
      *impl_, "consumed_node_hours",
      "SELECT coalesce(sum(a.nodes * CASE "
      "  WHEN a.state = 'running' AND a.started IS NOT NULL THEN max(?1 - a.started, coalesce(a.elapsed_s, "
      "0)) "
      "  ELSE coalesce(a.elapsed_s, a.ended - a.started, 0) END), 0) / 3600.0 "
      "FROM attempts a JOIN cases c ON c.id = a.case_id WHERE c.campaign_id = ?2 AND a.nodes IS NOT NULL",
      campaign_id);
}

double Catalog::reported_node_hours(std::int64_t campaign_id) {
  // No term reads the clock: a running attempt counts what the scheduler last said it had run, which
  // its final elapsed time can only exceed (the time to now would count on past an end not yet seen).
  return node_hours(
      *impl_, "reported_node_hours",
      "SELECT coalesce(sum(a.nodes * CASE "
      "  WHEN a.state = 'running' THEN coalesce(a.elapsed_s, 0) "
      "  ELSE coalesce(a.elapsed_s, a.ended - a.started, 0) END), 0) / 3600.0 "
      "FROM attempts a JOIN cases c ON c.id = a.case_id WHERE c.campaign_id = ?2 AND a.nodes IS "
      "NOT NULL",
      campaign_id);
}

double Catalog::in_flight_node_hours(std::int64_t campaign_id) {
  return node_hours(
      *impl_, "in_flight_node_hours",
      "SELECT coalesce(sum(a.nodes * CASE "
      "  WHEN a.state = 'running' AND a.started IS NOT NULL THEN max(0, a.walltime_s - (?1 - "
      "a.started)) "
      "  ELSE a.walltime_s END), 0) / 3600.0 FROM attempts a "
      "JOIN cases c ON c.id = a.case_id "
      "WHERE c.campaign_id = ?2 AND (a.state IN ('submitting', 'queued', 'running') OR "
      "(a.state = 'completed' AND a.confirmed = 0 AND a.elapsed_s IS NULL AND a.started IS NULL))",
      campaign_id);
}

// --- events --------------------------------------------------------------

std::int64_t Catalog::add_event(std::string_view kind, std::string_view message, EventScope scope) {
  Impl& c = *impl_;
  c.require_writer("add_event");
  if (kind.empty()) throw CatalogError(c.where() + ": add_event: empty kind");
  if (kind == "state")
    throw CatalogError(c.where() + ": add_event: 'state' events are written by the state transitions only");
  return c.guard("add_event", [&] {
    Impl::Tx tx(c);
    if (scope.attempt_id && !scope.case_id) scope.case_id = c.current(*scope.attempt_id).case_id;
    if (scope.case_id && !scope.campaign_id) {
      auto q = c.query("SELECT campaign_id FROM cases WHERE id = ?");
      q->bind(1, *scope.case_id);
      if (!q->executeStep())
        throw CatalogError(c.where() + ": no case with id " + std::to_string(*scope.case_id));
      scope.campaign_id = q->getColumn(0).getInt64();
    }
    std::int64_t id = c.insert_event(scope, kind, std::nullopt, std::nullopt, message);
    tx.commit();
    return id;
  });
}

std::vector<EventRow> Catalog::events(std::int64_t campaign_id, std::size_t limit) {
  Impl& c = *impl_;
  return c.guard("events", [&] {
    auto q = c.query(std::string(kEventSelect) + "WHERE campaign_id = ? ORDER BY id DESC LIMIT ?");
    q->bind(1, campaign_id);
    q->bind(
        2, static_cast<std::int64_t>(std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max())));
    std::vector<EventRow> out;
    while (q->executeStep()) out.push_back(read_event(*q));
    std::reverse(out.begin(), out.end());
    return out;
  });
}

std::vector<EventRow> Catalog::events_of_kind(std::int64_t campaign_id, std::string_view kind) {
  Impl& c = *impl_;
  return c.guard("events_of_kind", [&] {
    auto q = c.query(std::string(kEventSelect) + "WHERE campaign_id = ? AND kind = ? ORDER BY id");
    q->bind(1, campaign_id);
    q->bind(2, std::string(kind));
    std::vector<EventRow> out;
    while (q->executeStep()) out.push_back(read_event(*q));
    return out;
  });
}

std::vector<EventRow> Catalog::events_of_attempt(std::int64_t attempt_id) {
  Impl& c = *impl_;
  return c.guard("events_of_attempt", [&] {
    auto q = c.query(std::string(kEventSelect) + "WHERE attempt_id = ? ORDER BY id");
    q->bind(1, attempt_id);
    std::vector<EventRow> out;
    while (q->executeStep()) out.push_back(read_event(*q));
    return out;
  });
}

}  // namespace campaign
