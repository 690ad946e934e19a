// The catalog's schema as an ordered list of migrations, and the function
// that applies them.
//
// Invariant: PRAGMA user_version is the number of migrations applied, and it
// only ever moves forward inside the same transaction as the migrations
// themselves, so a crash mid-migration leaves the previous version intact.
// A database whose version is above the last known migration was written by a
// newer campaign and is refused rather than guessed at.
//
// Rules for adding a migration: append, never edit a released one; keep it
// valid on old SQLite versions (no STRICT tables, no JSON functions: clusters
// ship old libsqlite3); a migration that rebuilds a table cannot switch
// foreign keys off (the pragma is a no-op inside a transaction), which is why
// migrate() runs PRAGMA foreign_key_check before committing.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <span>
#include <string>

namespace campaign {

struct Migration {
  int version;              // 1-based; equals its position in the list
  const char* description;  // for the events table and error messages
  const char* sql;
};

// The migrations of this build, oldest first.
std::span<const Migration> catalog_migrations();
int current_schema_version();

// Identifies a campaign catalog in the SQLite header (PRAGMA application_id).
inline constexpr int kApplicationId = 0x43414d50;  // "CAMP"

// The database's PRAGMA user_version.
int schema_version(SQLite::Database& db);

// Applies the migrations of `list` that `db` lacks, in one immediate
// transaction. `name` (the file) is used in messages. Returns the version
// found before migrating. Throws SchemaError for a database that is newer than
// `list` or that is not a campaign catalog.
int migrate(SQLite::Database& db, std::span<const Migration> list, const std::string& name);

}  // namespace campaign
