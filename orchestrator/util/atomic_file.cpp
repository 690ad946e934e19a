// Implements util/atomic_file.hpp with write(2) (or an ofstream) and rename. No fsync: these
// files guard against a torn write by a crash of this process, not against a crash of the machine.
#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace campaign {

namespace fs = std::filesystem;

bool is_storage_errno(int err) { return err == ENOSPC || err == EDQUOT || err == EROFS || err == EIO; }

std::string storage_remedy(int err) {
  switch (err) {
    case ENOSPC:
    case EDQUOT:
      return "free space on that file system (or raise the quota)";
    case EROFS:
      return "make that file system writable (or use another --workdir)";
    default:
      return "check the disk (dmesg) or move the work directory to a healthy one";
  }
}

StorageError::StorageError(const std::string& path, int err)
    : Error("cannot write " + path + ": " + std::strerror(err) + ": " + storage_remedy(err) +
            ", then `campaign run` again continues where it stopped"),
      path_(path),
      err_(err) {}

void throw_write_error(const fs::path& path, int err) {
  if (is_storage_errno(err)) throw StorageError(path.string(), err);
  throw Error("cannot write " + path.string() + ": " + std::strerror(err));
}

void write_file_atomic(const fs::path& path, const std::function<void(std::ostream&)>& write,
                       std::optional<fs::perms> perms) {
  static std::atomic<unsigned> counter{0};
  fs::path tmp = path;
  tmp += ".campaign-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  std::error_code ec;
  auto fail = [&](int err) {
    fs::remove(tmp, ec);
    throw_write_error(path, err);
  };
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(errno);
    // The errno of the failed write(2), as an ofstream keeps none of its own: ENOSPC shows in a
    // write (while streaming, or at the flush) or at close.
    errno = 0;
    write(out);
    if (!out.flush()) fail(errno ? errno : EIO);
    out.close();
    if (out.fail()) fail(errno ? errno : EIO);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  if (perms) {
    fs::permissions(tmp, *perms, ec);
    if (ec) fail(ec.value());
  }
  fs::rename(tmp, path, ec);
  if (ec) fail(ec.value());
}

void write_file_atomic(const fs::path& path, std::string_view text, std::optional<fs::perms> perms) {
  // The same steps as above with write(2) itself: the engine and the local executor write a few
  // such files a job, and an ofstream's set-up was most of each.
  static std::atomic<unsigned> counter{0};
  fs::path tmp = path;
  tmp += ".campaign-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  std::error_code ec;
  auto fail = [&](int err) {
    fs::remove(tmp, ec);
    throw_write_error(path, err);
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw_write_error(path, errno);
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      fail(err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && errno != EINTR) fail(errno);
  if (perms) {
    fs::permissions(tmp, *perms, ec);
    if (ec) fail(ec.value());
  }
  fs::rename(tmp, path, ec);
  if (ec) fail(ec.value());
}

}  // namespace campaign
