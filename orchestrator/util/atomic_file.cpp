// Implements util/atomic_file.hpp with an ofstream and std::filesystem::rename. No fsync: these
// files guard against a torn write by a crash of this process, not against a crash of the machine.
#include "util/atomic_file.hpp"

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
  write_file_atomic(
      path, [&](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); },
      perms);
}

}  // namespace campaign
