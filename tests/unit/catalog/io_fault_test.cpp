// I/O faults under the catalog: a write refused by the file system at any point of a transaction
// (SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY through catalog/write_fault.hpp) leaves nothing of it
// and is told as CatalogStorageError naming the file; a damaged file (not SQLite, cut short, bytes
// overwritten) is CorruptCatalogError and is never written to.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "catalog/catalog.hpp"
#include "catalog/write_fault.hpp"
#include "helpers.hpp"

using namespace campaign;
using campaign::test::numbered;
using campaign::test::TempDir;

namespace {

namespace fs = std::filesystem;

struct Disarm {
  ~Disarm() { catalog_testing::fail_writes(0); }
};

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A catalog of `n` cases, closed (its WAL checkpointed into the file).
std::vector<std::int64_t> make_catalog(const fs::path& dir, int n) {
  Catalog cat = Catalog::open(dir);
  auto id = cat.upsert_campaign(CampaignRow{"io", "name: io\n", "h", "local", dir.string()});
  std::vector<CaseRow> rows;
  for (int i = 0; i < n; ++i) {
    CaseRow r;
    r.key = numbered("k", i);
    r.step = "train";
    r.name = numbered("case-with-a-longer-name-", i);
    r.run_dir = numbered("runs/case-", i);
    r.script = numbered("runs/job-", i);
    rows.push_back(r);
  }
  return cat.sync_cases(id, rows).ids;
}

}  // namespace

TEST_CASE("a write failing anywhere in a transaction leaves nothing of it and names the catalog",
          "[catalog]") {
  Disarm disarm;
  for (int code : {SQLITE_FULL, SQLITE_IOERR_WRITE, SQLITE_READONLY}) {
    DYNAMIC_SECTION("SQLite code " << code) {
      catalog_testing::fail_writes(0);  // the layer under every catalog opened from here on
      TempDir dir;
      make_catalog(dir.path(), 3);
      Catalog cat = Catalog::open(dir.path());
      auto campaign = cat.find_campaign("io")->id;
      std::vector<Catalog::SubmitStart> starts;
      for (auto& a : cat.latest_attempts(campaign))
        starts.push_back({a.id, "alloc-1", 600, 1, a.case_name, {}});
      // Every write of the transaction in turn is the first to fail, until it needs no more.
      long failed = 0;
      for (long after = 0;; ++after) {
        catalog_testing::fail_writes(code, after);
        try {
          cat.begin_submit(starts);
        } catch (const CatalogStorageError& e) {
          catalog_testing::fail_writes(0);
          ++failed;
          CHECK((e.sqlite_code() & 0xff) == (code & 0xff));
          CHECK_THAT(e.what(), Catch::Contains(cat.path().string()));
          CHECK_THAT(e.what(), Catch::StartsWith("cannot write the catalog"));
          CHECK_THAT(e.what(), Catch::Contains("continues where it stopped"));
          for (auto& a : cat.latest_attempts(campaign)) CHECK(a.state == State::planned);
          // What is on disk, through another connection, agrees.
          Catalog reader = Catalog::open(dir.path(), Access::read_only);
          for (auto& a : reader.latest_attempts(campaign)) CHECK(a.state == State::planned);
          CHECK(reader.check().empty());
          continue;
        }
        catalog_testing::fail_writes(0);
        break;
      }
      CHECK(failed > 0);
      for (auto& a : cat.latest_attempts(campaign)) CHECK(a.state == State::submitting);
      CHECK(cat.check().empty());
    }
  }
}

TEST_CASE("CAMPAIGN_TEST_CATALOG_FAULT: a kind and a count of writes that succeed", "[catalog]") {
  auto f = catalog_testing::parse_write_fault("full:12");
  CHECK(f.code == SQLITE_FULL);
  CHECK(f.after == 12);
  CHECK(catalog_testing::parse_write_fault("ioerr:0").code == SQLITE_IOERR_WRITE);
  CHECK(catalog_testing::parse_write_fault("readonly:3").code == SQLITE_READONLY);
  for (const char* bad : {"disk-on-fire:3", "full", "full:", "full:x", "full:-1", "full:3x"})
    CHECK_THROWS_WITH(catalog_testing::parse_write_fault(bad), Catch::Contains("expected full:N"));
}

TEST_CASE("a damaged catalog is refused by name and never written to", "[catalog]") {
  TempDir dir;
  const fs::path db = Catalog::db_path(dir.path());
  make_catalog(dir.path(), 400);
  const std::string good = bytes_of(db);
  REQUIRE(good.size() > 8 * 4096);
  REQUIRE_FALSE(fs::exists(fs::path(db).replace_extension(".db-wal")));
  std::string damaged;
  SECTION("not an SQLite file") {
    damaged = std::string(5000, 'x');
    damaged.replace(0, 5, "name:");
  }
  SECTION("cut in half") { damaged = good.substr(0, good.size() / 2); }
  SECTION("a page overwritten") {
    damaged = good;
    for (size_t i = good.size() / 2; i < good.size() / 2 + 4096; ++i) damaged[i] = static_cast<char>(i * 7);
  }
  SECTION("the header overwritten") {
    damaged = good;
    for (size_t i = 0; i < 100; ++i) damaged[i] = 'z';
  }
  std::ofstream(db, std::ios::binary | std::ios::trunc) << damaged;
  REQUIRE(bytes_of(db) == damaged);
  try {
    Catalog::open(dir.path());
    FAIL("a damaged catalog was opened for writing");
  } catch (const CorruptCatalogError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith(db.string()));
    CHECK_THAT(e.what(), Catch::Contains("move campaign.db, campaign.db-wal and campaign.db-shm aside"));
  }
  CHECK(bytes_of(db) == damaged);
  // A reader does not show part of it as the whole either.
  try {
    Catalog::open_for_reading(dir.path());
    FAIL("a damaged catalog was opened for reading");
  } catch (const CorruptCatalogError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith(db.string()));
  }
  CHECK(bytes_of(db) == damaged);
}
