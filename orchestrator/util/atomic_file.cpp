// Implements util/atomic_file.hpp with an ofstream and std::filesystem::rename. No fsync: these
// files guard against a torn write by a crash of this process, not against a crash of the machine.
#include "util/atomic_file.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "util/error.hpp"

namespace campaign {

namespace fs = std::filesystem;

void write_file_atomic(const fs::path& path, const std::function<void(std::ostream&)>& write,
                       std::optional<fs::perms> perms) {
  static std::atomic<unsigned> counter{0};
  fs::path tmp = path;
  tmp += ".campaign-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  std::error_code ec;
  auto fail = [&](const std::string& reason) {
    fs::remove(tmp, ec);
    throw Error("cannot write " + path.string() + ": " + reason);
  };
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::strerror(errno));
    write(out);
    if (!out.flush()) fail(std::strerror(errno));
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  if (perms) {
    fs::permissions(tmp, *perms, ec);
    if (ec) fail(ec.message());
  }
  fs::rename(tmp, path, ec);
  if (ec) fail(ec.message());
}

void write_file_atomic(const fs::path& path, std::string_view text, std::optional<fs::perms> perms) {
  write_file_atomic(
      path, [&](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); },
      perms);
}

}  // namespace campaign
