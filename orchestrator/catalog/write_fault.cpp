// The write-fault VFS of write_fault.hpp: every method forwards to the default VFS's file, xWrite
// first asks whether it is to fail.
#include "catalog/write_fault.hpp"

#include <sqlite3.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "util/error.hpp"

namespace campaign::catalog_testing {

namespace {

std::atomic<int> g_code{0};
std::atomic<long> g_left{0};  // writes that still succeed once armed

sqlite3_vfs* g_real = nullptr;
sqlite3_vfs g_vfs;
sqlite3_io_methods g_methods;

struct File {
  sqlite3_file base;
  sqlite3_file* real;  // follows this struct in the same allocation
};

sqlite3_file* real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }

int x_write(sqlite3_file* f, const void* data, int n, sqlite3_int64 off) {
  if (int code = g_code.load(); code != 0 && g_left.fetch_sub(1) <= 0) return code;
  return real(f)->pMethods->xWrite(real(f), data, n, off);
}
int x_close(sqlite3_file* f) { return real(f)->pMethods->xClose(real(f)); }
int x_read(sqlite3_file* f, void* d, int n, sqlite3_int64 o) {
  return real(f)->pMethods->xRead(real(f), d, n, o);
}
int x_truncate(sqlite3_file* f, sqlite3_int64 s) { return real(f)->pMethods->xTruncate(real(f), s); }
int x_sync(sqlite3_file* f, int fl) { return real(f)->pMethods->xSync(real(f), fl); }
int x_size(sqlite3_file* f, sqlite3_int64* s) { return real(f)->pMethods->xFileSize(real(f), s); }
int x_lock(sqlite3_file* f, int l) { return real(f)->pMethods->xLock(real(f), l); }
int x_unlock(sqlite3_file* f, int l) { return real(f)->pMethods->xUnlock(real(f), l); }
int x_reserved(sqlite3_file* f, int* r) { return real(f)->pMethods->xCheckReservedLock(real(f), r); }
int x_control(sqlite3_file* f, int op, void* a) { return real(f)->pMethods->xFileControl(real(f), op, a); }
int x_sector(sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); }
int x_chars(sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); }
int x_shm_map(sqlite3_file* f, int i, int sz, int ext, void volatile** p) {
  return real(f)->pMethods->xShmMap(real(f), i, sz, ext, p);
}
int x_shm_lock(sqlite3_file* f, int off, int n, int fl) {
  return real(f)->pMethods->xShmLock(real(f), off, n, fl);
}
void x_shm_barrier(sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); }
int x_shm_unmap(sqlite3_file* f, int del) { return real(f)->pMethods->xShmUnmap(real(f), del); }
int x_fetch(sqlite3_file* f, sqlite3_int64 o, int n, void** p) {
  return real(f)->pMethods->xFetch(real(f), o, n, p);
}
int x_unfetch(sqlite3_file* f, sqlite3_int64 o, void* p) {
  return real(f)->pMethods->xUnfetch(real(f), o, p);
}

int x_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  File* file = reinterpret_cast<File*>(f);
  file->real = reinterpret_cast<sqlite3_file*>(file + 1);
  int rc = g_real->xOpen(g_real, name, file->real, flags, out_flags);
  // SQLite calls xClose only on a file whose pMethods is set.
  file->base.pMethods = file->real->pMethods ? &g_methods : nullptr;
  return rc;
}

void install() {
  g_real = sqlite3_vfs_find(nullptr);
  g_vfs = *g_real;
  g_vfs.zName = "campaign-write-fault";
  g_vfs.szOsFile = static_cast<int>(sizeof(File)) + g_real->szOsFile;
  g_vfs.xOpen = x_open;
  g_vfs.pAppData = nullptr;
  g_methods =
      sqlite3_io_methods{3,          x_close,       x_read,      x_write,   x_truncate, x_sync,  x_size,
                         x_lock,     x_unlock,      x_reserved,  x_control, x_sector,   x_chars, x_shm_map,
                         x_shm_lock, x_shm_barrier, x_shm_unmap, x_fetch,   x_unfetch};
  sqlite3_vfs_register(&g_vfs, 1);  // the default from now on
}

}  // namespace

void fail_writes(int code, long after) {
  static std::once_flag once;
  std::call_once(once, install);
  g_code = 0;
  g_left = after;
  g_code = code;
}

WriteFault parse_write_fault(const std::string& spec) {
  auto colon = spec.find(':');
  std::string kind = spec.substr(0, colon);
  WriteFault f;
  f.code = kind == "full"       ? SQLITE_FULL
           : kind == "ioerr"    ? SQLITE_IOERR_WRITE
           : kind == "readonly" ? SQLITE_READONLY
                                : 0;
  try {
    size_t used = 0;
    const std::string n = colon == std::string::npos ? "" : spec.substr(colon + 1);
    f.after = std::stol(n, &used);
    if (used != n.size()) f.code = 0;
  } catch (const std::exception&) {
    f.code = 0;
  }
  if (f.code == 0 || f.after < 0)
    throw Error("CAMPAIGN_TEST_CATALOG_FAULT=" + spec + ": expected full:N, ioerr:N or readonly:N");
  return f;
}

void arm_from_environment() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* spec = std::getenv("CAMPAIGN_TEST_CATALOG_FAULT");
    if (!spec || !*spec) return;
    WriteFault f = parse_write_fault(spec);
    fail_writes(f.code, f.after);
  });
}

}  // namespace campaign::catalog_testing
