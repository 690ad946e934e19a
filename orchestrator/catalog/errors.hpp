// Errors raised by the catalog. All derive from campaign::Error so the CLI
// reports them with exit status 1 (unless said otherwise); the subclasses let callers branch:
//   LockedError     - another `campaign` process holds the catalog for writing;
//   CatalogStorageError - the catalog's file system is full, read-only or failing (SQLITE_FULL,
//                     SQLITE_READONLY, SQLITE_IOERR, SQLITE_CANTOPEN): the operation's
//                     transaction rolled back, nothing of it was written (exit status 4);
//   CorruptCatalogError - the file is not a catalog SQLite can read (SQLITE_CORRUPT,
//                     SQLITE_NOTADB, a failed integrity check): never written to (exit status 2);
//   SchemaError     - the database was written by a newer (or needs a newer) campaign;
//   TransitionError - an attempt was asked to move along an edge of the state
//                     machine that does not exist (a bug in the caller, or stale data);
//   CatalogError    - anything else, with SQLite's extended result code when
//                     SQLite raised it (e.g. SQLITE_BUSY, SQLITE_FULL, SQLITE_CORRUPT).
#pragma once

#include <string>

#include "util/error.hpp"

namespace campaign {

class CatalogError : public Error {
 public:
  explicit CatalogError(const std::string& message, int sqlite_code = 0)
      : Error(message), sqlite_code_(sqlite_code) {}
  // SQLite's extended result code, 0 when the error did not come from SQLite.
  int sqlite_code() const { return sqlite_code_; }

 private:
  int sqlite_code_;
};

class LockedError : public CatalogError {
 public:
  using CatalogError::CatalogError;
};

class SchemaError : public CatalogError {
 public:
  using CatalogError::CatalogError;
};

class CatalogStorageError : public CatalogError {
 public:
  using CatalogError::CatalogError;
};

class CorruptCatalogError : public CatalogError {
 public:
  using CatalogError::CatalogError;
};

class TransitionError : public CatalogError {
 public:
  using CatalogError::CatalogError;
};

}  // namespace campaign
