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
#include <string_view>

namespace campaign {

// Writes `text` to `path` atomically, with `perms` when given (else the umask's default). Throws
// Error "cannot write <path>: <reason>".
void write_file_atomic(const std::filesystem::path& path, std::string_view text,
                       std::optional<std::filesystem::perms> perms = std::nullopt);

// The same with the content written by `write` (for content streamed from elsewhere). An exception
// from `write` removes the temporary file and propagates unchanged.
void write_file_atomic(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write,
                       std::optional<std::filesystem::perms> perms = std::nullopt);

}  // namespace campaign
