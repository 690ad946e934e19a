// Replacing a file all at once: the content goes to a temporary file beside it, which rename(2)
// then puts in its place.
//
// Invariant: a reader of `path` sees the old content or the new one, never a part; the temporary
// name is unique per process and call (pid and a counter), so two writers never share one, and it
// is removed when the write fails.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace campaign {

// A write refused by the storage itself: the file system is full or over quota (ENOSPC, EDQUOT),
// read-only (EROFS), or failing (EIO). Not worth retrying at the next tick as a busy scheduler is:
// the command stops with this error (exit status 4), and `campaign run` again after the cause is
// removed continues where it stopped.
class StorageError : public Error {
 public:
  StorageError(const std::string& path, int err);
  const std::string& path() const { return path_; }
  int error_number() const { return err_; }

 private:
  std::string path_;
  int err_;
};

// Whether errno `err` is one of StorageError's causes.
bool is_storage_errno(int err);

// What the user can do about `err` (one of StorageError's causes), for the end of an error line.
std::string storage_remedy(int err);

// Throws StorageError when `err` is one of its causes, else Error "cannot write <path>: <reason>".
[[noreturn]] void throw_write_error(const std::filesystem::path& path, int err);

// Writes `text` to `path` atomically, with `perms` when given (else the umask's default). Throws
// StorageError (see above), else Error "cannot write <path>: <reason>".
void write_file_atomic(const std::filesystem::path& path, std::string_view text,
                       std::optional<std::filesystem::perms> perms = std::nullopt);

// The same with the content written by `write` (for content streamed from elsewhere). An exception
// from `write` removes the temporary file and propagates unchanged.
void write_file_atomic(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write,
                       std::optional<std::filesystem::perms> perms = std::nullopt);

}  // namespace campaign
