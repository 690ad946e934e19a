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

namespace {

// A name beside `path` for its new content, unique in this process.
fs::path temporary_for(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  fs::path tmp = path;
  tmp += ".campaign-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  return tmp;
}

[[noreturn]] void abandon(const fs::path& tmp, const fs::path& path, int err) {
  std::error_code ignored;
  fs::remove(tmp, ignored);
  throw_write_error(path, err);
}

// The whole temporary, given its permissions, takes the place of `path`.
void put_in_place(const fs::path& tmp, const fs::path& path, std::optional<fs::perms> perms) {
  std::error_code ec;
  if (perms) fs::permissions(tmp, *perms, ec);
  if (!ec) fs::rename(tmp, path, ec);
  if (ec) abandon(tmp, path, ec.value());
}

}  // namespace

void write_file_atomic(const fs::path& path, const std::function<void(std::ostream&)>& write,
                       std::optional<fs::perms> perms) {
  const fs::path tmp = temporary_for(path);
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) abandon(tmp, path, errno);
    // The errno of the failed write(2), as an ofstream keeps none of its own: ENOSPC shows in a
    // write (while streaming, or at the flush) or at close.
    errno = 0;
    write(out);
    if (!out.flush()) abandon(tmp, path, errno ? errno : EIO);
    out.close();
    if (out.fail()) abandon(tmp, path, errno ? errno : EIO);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
  put_in_place(tmp, path, perms);
}

void write_file_atomic(const fs::path& path, std::string_view text, std::optional<fs::perms> perms) {
  // The same with write(2) itself: the engine and the local executor write a few such files a job,
  // and an ofstream's set-up was most of each.
  const fs::path tmp = temporary_for(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw_write_error(path, errno);
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      abandon(tmp, path, err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && errno != EINTR) abandon(tmp, path, errno);
  put_in_place(tmp, path, perms);
}

}  // namespace campaign
