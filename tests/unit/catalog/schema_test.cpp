// Schema versions and migrations: an old catalog is brought forward with its
// data, a newer or foreign one is refused, and a failing migration leaves the
// database exactly as it was.
#include "catalog/schema.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "catalog/catalog.hpp"
#include "helpers.hpp"

using namespace campaign;
using campaign::test::numbered;
using campaign::test::TempDir;

namespace {

std::string db_file(const TempDir& dir) { return Catalog::db_path(dir.path()).string(); }

bool has_index(SQLite::Database& db, const std::string& name) {
  SQLite::Statement q(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?");
  q.bind(1, name);
  return q.executeStep();
}

// The message of the exception `f` throws, "" if it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("migrations are numbered 1..n in order", "[catalog][schema]") {
  auto list = catalog_migrations();
  REQUIRE(!list.empty());
  for (size_t i = 0; i < list.size(); ++i) CHECK(list[i].version == static_cast<int>(i) + 1);
  CHECK(current_schema_version() == static_cast<int>(list.size()));
}

TEST_CASE("a version 1 catalog is migrated to the current version with its data", "[catalog][schema]") {
  TempDir dir;
  {
    // What a campaign of schema version 1 wrote.
    SQLite::Database db(db_file(dir), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA journal_mode = WAL");
    CHECK(migrate(db, catalog_migrations().first(1), "v1") == 0);
    REQUIRE(schema_version(db) == 1);
    REQUIRE_FALSE(has_index(db, "metrics_attempt"));
    db.exec(R"sql(
      INSERT INTO campaigns VALUES (1, 'cf', 'spec', 'h', 'sys', '/w', 'c1', 10, 10);
      INSERT INTO cases (id, campaign_id, key, name, params, run_dir, created)
        VALUES (1, 1, 'k1', 'n1', '{"ranks":4}', 'runs/n1', 10);
      INSERT INTO attempts (id, case_id, number, state, job_id, nodes, elapsed_s, updated)
        VALUES (1, 1, 1, 'completed', '77', 2, 3600, 11);
      INSERT INTO events (time, campaign_id, case_id, attempt_id, kind, from_state, to_state)
        VALUES (10, 1, 1, 1, 'state', NULL, 'planned'), (10, 1, 1, 1, 'state', 'planned', 'submitting'),
               (10, 1, 1, 1, 'state', 'submitting', 'queued'), (11, 1, 1, 1, 'state', 'queued', 'completed');
      INSERT INTO metrics (attempt_id, name, step, value, unit) VALUES (1, 'epoch_time', 0, 12.5, 's');
    )sql");
  }
  Catalog cat = Catalog::open(dir.path());
  CHECK(cat.schema_version() == current_schema_version());
  CHECK(cat.check().empty());
  AttemptRow a = cat.attempt(1);
  CHECK(a.state == State::completed);
  CHECK(a.job_id == "77");
  CHECK(cat.cases_of(1).at(0).params == nlohmann::json{{"ranks", 4}});
  CHECK(cat.metrics_of_attempt(1).at(0).value == 12.5);
  CHECK_FALSE(cat.metrics_of_attempt(1).at(0).instance);  // older rows belong to no instance
  CHECK(cat.consumed_node_hours(1) == Approx(2.0));
  cat.record_collection(1, {{"epoch_time", 0, 12.0, "s"}});  // and it keeps working
  CHECK(cat.attempt(1).state == State::collected);
  {
    SQLite::Database raw(db_file(dir), SQLite::OPEN_READONLY);
    CHECK(has_index(raw, "metrics_attempt"));
    CHECK(has_index(raw, "attempts_state"));
    SQLite::Statement q(raw, "SELECT message FROM events WHERE kind = 'catalog'");
    REQUIRE(q.executeStep());
    CHECK(q.getColumn(0).getString() ==
          "schema migrated from version 1 to " + std::to_string(current_schema_version()));
  }
}

TEST_CASE("a version 10 catalog: its completions awaiting the accounting become the engine's memory",
          "[catalog][schema]") {
  TempDir dir;
  {
    SQLite::Database db(db_file(dir), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA journal_mode = WAL");
    migrate(db, catalog_migrations().first(10), "v10");
    db.exec(R"sql(
      INSERT INTO campaigns VALUES (1, 'cf', 'spec', 'h', 'sys', '/w', 'c1', 10, 10, '', NULL, 0);
      INSERT INTO cases (id, campaign_id, key, name, params, run_dir, created)
        VALUES (1, 1, 'k1', 'n1', '{}', 'runs/n1', 10), (2, 1, 'k2', 'n2', '{}', 'runs/n2', 10),
               (3, 1, 'k3', 'n3', '{}', 'runs/n3', 10);
      INSERT INTO attempts (id, case_id, number, state, job_id, updated, confirmed)
        VALUES (1, 1, 1, 'completed', '88', 20, 0), (2, 2, 1, 'completed', '89', 21, 1),
               (3, 3, 1, 'running', '90', 22, 1);
    )sql");
  }
  Catalog cat = Catalog::open(dir.path());
  CHECK(cat.schema_version() == current_schema_version());
  // Only the completion on its marker alone: the others' facts come from the scheduler.
  CHECK(cat.observations(1) == std::vector<Observation>{{1, "unconfirmed", true, std::nullopt, "88"}});
  cat.record_observations({{3, "missing", true, Time(std::chrono::seconds(30)), ""}});
  CHECK(cat.observations(1).size() == 2);
}

TEST_CASE("a write group is one transaction: all of its writes, or none", "[catalog]") {
  TempDir dir;
  Catalog cat = Catalog::open(dir.path());
  auto campaign = cat.upsert_campaign({"c", "spec", "h", "sys", "/w"});
  auto ids = cat.sync_cases(campaign, {{"k1", "", "n1", nlohmann::json::object(), "runs/n1", ""}}).ids;
  const std::int64_t attempt = cat.latest_attempts(campaign).at(0).id;
  {
    Catalog::WriteGroup group(cat);
    cat.begin_submit(attempt, "job-1", 60, 1);
    cat.record_observations({{attempt, "missing", true, Time(std::chrono::seconds(5)), ""}});
    // destroyed without commit: an exception, a kill
  }
  CHECK(cat.attempt(attempt).state == State::planned);
  CHECK(cat.observations(campaign).empty());
  {
    Catalog::WriteGroup group(cat);
    cat.begin_submit(attempt, "job-1", 60, 1);
    // A write that fails inside the group fails the group, its exception caught or not: no half
    // of a write, and none of the group, is ever committed.
    CHECK_THROWS_AS(cat.update_state(attempt, State::planned), TransitionError);
    cat.record_job_id(attempt, "11");
    CHECK_THROWS_WITH(group.commit(), Catch::Contains("a write of this group failed earlier"));
  }
  CHECK(cat.attempt(attempt).state == State::planned);
  CHECK(cat.attempt(attempt).job_id.empty());
  CHECK(cat.observations(campaign).empty());
  {
    Catalog::WriteGroup group(cat);  // the failed group left nothing behind: the next one commits
    cat.begin_submit(attempt, "job-1", 60, 1);
    cat.record_job_id(attempt, "11");
    group.commit();
  }
  CHECK(cat.attempt(attempt).state == State::queued);
  CHECK(cat.check().empty());
  CHECK(ids.size() == 1);
}

TEST_CASE("an old catalog opened read-only asks to be migrated first", "[catalog][schema]") {
  TempDir dir;
  {
    SQLite::Database db(db_file(dir), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    migrate(db, catalog_migrations().first(1), "v1");
  }
  std::string msg = error_of([&] { Catalog::open(dir.path(), Access::read_only); });
  CHECK(msg.find("has schema version 1, this campaign needs " + std::to_string(current_schema_version()) +
                 ": open it once for writing") != std::string::npos);
  SQLite::Database raw(db_file(dir), SQLite::OPEN_READONLY);
  CHECK(schema_version(raw) == 1);  // untouched
}

TEST_CASE("an old catalog read as a snapshot is migrated in memory, the file untouched",
          "[catalog][schema]") {
  TempDir dir;
  {
    SQLite::Database db(db_file(dir), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    migrate(db, catalog_migrations().first(3), "v3");
    db.exec(R"sql(
      INSERT INTO campaigns (id, name, spec_text, spec_hash, system, workdir, code_version, created, updated)
        VALUES (1, 'cosmoflow', 'name: cosmoflow', 'h', 'daint', '/w', 'v1.0', 5, 6);
    )sql");
  }
  Catalog snap = Catalog::open(dir.path(), Access::snapshot);
  CHECK(snap.schema_version() == current_schema_version());
  auto rec = snap.find_campaign("cosmoflow");
  REQUIRE(rec);
  CHECK(rec->code.version == "v1.0");
  CHECK(rec->code.commit.empty());
  CHECK_FALSE(rec->code.date);
  CHECK_THROWS_AS(snap.add_event("note", "x"), CatalogError);  // not a writer
  SQLite::Database raw(db_file(dir), SQLite::OPEN_READONLY);
  CHECK(schema_version(raw) == 3);
  CHECK(raw.execAndGet("SELECT count(*) FROM events").getInt() == 0);
}

TEST_CASE("open_for_reading: read-only when current, a snapshot when older", "[catalog][schema]") {
  TempDir old_dir, new_dir;
  {
    SQLite::Database db(db_file(old_dir), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    migrate(db, catalog_migrations().first(2), "v2");
  }
  { Catalog::open(new_dir.path()); }
  Catalog old_cat = Catalog::open_for_reading(old_dir.path());
  CHECK(old_cat.access() == Access::snapshot);
  CHECK(old_cat.campaigns().empty());
  Catalog new_cat = Catalog::open_for_reading(new_dir.path());
  CHECK(new_cat.access() == Access::read_only);
  SQLite::Database raw(db_file(old_dir), SQLite::OPEN_READONLY);
  CHECK(schema_version(raw) == 2);
  TempDir none;
  CHECK_THROWS_AS(Catalog::open_for_reading(none.path()), CatalogError);
}

TEST_CASE("a snapshot needs an existing catalog", "[catalog][schema]") {
  TempDir dir;
  CHECK_THROWS_AS(Catalog::open(dir.path(), Access::snapshot), CatalogError);
  CHECK_FALSE(std::filesystem::exists(Catalog::db_path(dir.path())));
}

TEST_CASE("a catalog from a newer campaign is refused, read-write, read-only and as a snapshot",
          "[catalog][schema]") {
  TempDir dir;
  { Catalog::open(dir.path()); }
  {
    SQLite::Database db(db_file(dir), SQLite::OPEN_READWRITE);
    db.exec("PRAGMA user_version = 99");
  }
  for (Access access : {Access::read_write, Access::read_only, Access::snapshot}) {
    std::string msg;
    try {
      Catalog::open(dir.path(), access);
    } catch (const SchemaError& e) {
      msg = e.what();
    }
    INFO(msg);
    CHECK(msg.find("campaign.db has schema version 99, newer than this campaign understands (" +
                   std::to_string(current_schema_version()) + ")") != std::string::npos);
  }
  SQLite::Database raw(db_file(dir), SQLite::OPEN_READONLY);
  CHECK(schema_version(raw) == 99);
}

TEST_CASE("a database that is not a catalog is refused", "[catalog][schema]") {
  TempDir dir;
  {
    SQLite::Database db(db_file(dir), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE things (x)");
  }
  CHECK_THROWS_WITH(Catalog::open(dir.path()), Catch::Contains("is not a campaign catalog"));

  TempDir other;
  {
    SQLite::Database db(db_file(other), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA application_id = 1234");
  }
  CHECK_THROWS_AS(Catalog::open(other.path()), SchemaError);
}

TEST_CASE("a failing migration rolls back every migration of the run", "[catalog][schema]") {
  TempDir dir;
  SQLite::Database db(db_file(dir), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  const Migration good[] = {{1, "one", "CREATE TABLE a (x INTEGER)"}};
  migrate(db, good, "test");
  REQUIRE(schema_version(db) == 1);

  const Migration list[] = {
      {1, "one", "CREATE TABLE a (x INTEGER)"},
      {2, "two", "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (1)"},
      {3, "three", "CREATE TABLE c (z INTEGER); THIS IS NOT SQL"},
  };
  std::string msg;
  try {
    migrate(db, list, "test.db");
  } catch (const SchemaError& e) {
    msg = e.what();
  }
  CHECK(msg.find("test.db: migration to schema version 3 (three) failed") != std::string::npos);
  CHECK(schema_version(db) == 1);
  CHECK_FALSE(db.tableExists("b"));
  CHECK_FALSE(db.tableExists("c"));
  CHECK(db.execAndGet("SELECT count(*) FROM a").getInt() == 0);

  CHECK(migrate(db, std::span(list).first(2), "test.db") == 1);
  CHECK(schema_version(db) == 2);
  CHECK(db.tableExists("b"));
}

TEST_CASE("a migration that leaves a dangling reference is rolled back", "[catalog][schema]") {
  TempDir dir;
  SQLite::Database db(db_file(dir), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  const Migration list[] = {
      {1, "parent", "CREATE TABLE p (id INTEGER PRIMARY KEY)"},
      {2, "child", "CREATE TABLE c (p INTEGER REFERENCES p(id)); INSERT INTO c VALUES (5)"},
  };
  CHECK_THROWS_WITH(migrate(db, list, "fk.db"), Catch::Contains("dangling reference in table c"));
  CHECK(schema_version(db) == 0);
  CHECK_FALSE(db.tableExists("p"));
}
