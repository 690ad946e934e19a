// Test-only error injection for the catalog's writes, for the faults a small file system cannot
// produce on demand (an I/O error, a file system turning read-only, the disk filling at a chosen
// write). A layer over SQLite's default VFS makes writes fail with an SQLite result code once a
// number of them have succeeded; SQLite then reports the failure as it would a real one.
//
// The environment variable CAMPAIGN_TEST_CATALOG_FAULT=KIND:N (KIND: full, ioerr or readonly)
// arms it in any `campaign` command: the first N writes of the process succeed, every later one
// fails. Tests in-process call fail_writes().
#pragma once

#include <string>

namespace campaign::catalog_testing {

// Routes every SQLite file opened from now on through the layer (once), then arms it: after
// `after` more writes succeed, each write fails with `code` (SQLITE_FULL, SQLITE_IOERR_WRITE,
// SQLITE_READONLY, ...); `code` 0 disarms it.
void fail_writes(int code, long after = 0);

// The SQLite result code and the count of writes that succeed of a CAMPAIGN_TEST_CATALOG_FAULT
// value ("full:12"); throws Error for a value it does not understand.
struct WriteFault {
  int code = 0;
  long after = 0;
};
WriteFault parse_write_fault(const std::string& spec);

// Arms the layer from CAMPAIGN_TEST_CATALOG_FAULT when set (once per process); throws Error for a
// value it does not understand.
void arm_from_environment();

}  // namespace campaign::catalog_testing
