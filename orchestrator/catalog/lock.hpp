// The single-writer lock of a work directory: `<workdir>/campaign.lock`.
//
// Invariant: while a WriterLock object lives, no other process holds a
// WriterLock on the same directory. The exclusion is an OS lock (flock) on the
// file, so it disappears with the process however it dies, kill -9 included;
// the file's text (pid, host, start time) only describes the holder for the
// error message, and stale text left by a dead holder is simply overwritten.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "util/fd.hpp"

namespace campaign {

// Who holds (or last held) a lock, as written in the lock file.
struct LockHolder {
  long pid = 0;
  std::string host;
  std::chrono::sys_seconds since{};

  // "pid 1234 on host login1 since 2024-05-01 12:03:04" (local time).
  std::string describe() const;
};

// How long acquire() waits when the lock file names a holder that is no longer running on this
// host while the lock is still held: a process the holder was starting when it died (kill -9 while
// posix_spawn waited for its child) keeps a copy of the descriptor until its exec closes it
// (O_CLOEXEC acts at exec), moments on a loaded machine. `each_try` runs before each new try (tests).
struct DeadHolderWait {
  std::chrono::milliseconds limit{5000};
  std::function<void()> each_try;
};

class WriterLock {
 public:
  // Takes the lock without waiting, but for a holder that is gone (DeadHolderWait). Throws
  // LockedError naming the holder when another process has it, CatalogError when the file cannot
  // be locked at all (e.g. a file system mounted without lock support).
  static WriterLock acquire(const std::filesystem::path& workdir, const DeadHolderWait& dead = {});

  // The holder described by the lock file, if the file exists and parses.
  // Says nothing about whether that holder is still alive.
  static std::optional<LockHolder> read_holder(const std::filesystem::path& workdir);

  static std::filesystem::path path_in(const std::filesystem::path& workdir);

  WriterLock(WriterLock&& other) noexcept;
  WriterLock& operator=(WriterLock&& other) noexcept;
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;
  ~WriterLock();

  // Releases early; idempotent.
  void release() noexcept;

 private:
  explicit WriterLock(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;
};

}  // namespace campaign
