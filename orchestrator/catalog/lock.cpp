// flock-based single-writer lock; see lock.hpp.
#include "catalog/lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <sstream>
#include <thread>

#include "catalog/errors.hpp"
#include "util/atomic_file.hpp"

namespace campaign {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string read_all(int fd) {
  std::string text;
  char buf[512];
  off_t offset = 0;
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof buf, offset);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    offset += n;
  }
  return text;
}

// The file holds one line: "pid=1234 host=login1 since=1714561384".
std::optional<LockHolder> parse_holder(const std::string& text) {
  std::istringstream in(text);
  LockHolder h;
  bool have_pid = false;
  std::string word;
  while (in >> word) {
    auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    try {
      if (key == "pid") {
        h.pid = std::stol(value);
        have_pid = true;
      } else if (key == "host") {
        h.host = value;
      } else if (key == "since") {
        h.since = std::chrono::sys_seconds(std::chrono::seconds(std::stoll(value)));
      }
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (!have_pid) return std::nullopt;
  return h;
}

}  // namespace

std::string LockHolder::describe() const {
  std::time_t t = std::chrono::system_clock::to_time_t(since);
  std::tm tm{};
  localtime_r(&t, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  return "pid " + std::to_string(pid) + " on host " + (host.empty() ? "?" : host) + " since " + when;
}

std::filesystem::path WriterLock::path_in(const std::filesystem::path& workdir) {
  return workdir / "campaign.lock";
}

WriterLock WriterLock::acquire(const std::filesystem::path& workdir, const DeadHolderWait& dead) {
  const auto path = path_in(workdir);
  // O_CLOEXEC: scheduler commands and local jobs we start must not inherit the
  // lock and keep it alive after we exit.
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.open() && is_storage_errno(errno))
    throw CatalogStorageError(StorageError(path.string(), errno).what(), 0);  // exit status 4
  if (!fd.open()) throw CatalogError("cannot open " + path.string() + ": " + errno_text(errno));
  const auto deadline = std::chrono::steady_clock::now() + dead.limit;
  while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string text = read_all(fd.get());
    if (err == EWOULDBLOCK) {
      auto holder = parse_holder(text);
      const bool gone = holder && holder->host == hostname() &&
                        ::kill(static_cast<pid_t>(holder->pid), 0) != 0 && errno == ESRCH;
      if (gone && std::chrono::steady_clock::now() < deadline) {
        if (dead.each_try) dead.each_try();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      std::string db = (workdir / "campaign.db").string();
      // The holder may not have written its line yet.
      throw LockedError(db + " is in use by " +
                        (holder ? holder->describe() : std::string("another process")) +
                        (gone ? " (no longer running: a process it started still holds the lock)" : "") +
                        " (lock file " + path.string() + ")");
    }
    throw CatalogError("cannot lock " + path.string() + ": " + errno_text(err) +
                       " (does this file system support flock?)");
  }
  // Ours now: whatever text is there belongs to a dead holder.
  std::string line = "pid=" + std::to_string(::getpid()) + " host=" + hostname() + " since=" +
                     std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count()) +
                     "\n";
  if (::ftruncate(fd.get(), 0) != 0 ||
      ::pwrite(fd.get(), line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    if (is_storage_errno(errno)) throw CatalogStorageError(StorageError(path.string(), errno).what(), 0);
    throw CatalogError("cannot write " + path.string() + ": " + errno_text(errno));
  }
  return WriterLock(std::move(fd));
}

std::optional<LockHolder> WriterLock::read_holder(const std::filesystem::path& workdir) {
  Fd fd(::open(path_in(workdir).c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.open()) return std::nullopt;
  return parse_holder(read_all(fd.get()));
}

WriterLock::WriterLock(WriterLock&& other) noexcept = default;

WriterLock& WriterLock::operator=(WriterLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::move(other.fd_);
  }
  return *this;
}

WriterLock::~WriterLock() { release(); }

void WriterLock::release() noexcept {
  if (!fd_.open()) return;
  // Emptied so a reader does not mistake us for a live holder; the file stays
  // (unlinking a lock file races with a process that just opened it).
  if (::ftruncate(fd_.get(), 0) != 0) {
    // Best effort: stale text is harmless, the OS lock is what counts.
  }
  fd_.reset();
}

}  // namespace campaign
