#include "pack/case_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "render/script.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::pack {

namespace {

bool no_flock(int err) { return err == ENOSYS || err == EOPNOTSUPP || err == ENOLCK; }

}  // namespace

Fd take_case_lock(const fs::path& run_dir) {
  const fs::path path = run_dir / kCaseLock;
  // Without O_CLOEXEC: the case's script inherits it.
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT, 0644));
  if (!fd.open()) throw Error("cannot open " + path.string() + ": " + std::strerror(errno));
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) throw Error("a process of it still runs (it holds " + path.string() + ")");
    if (!no_flock(err)) throw Error("cannot lock " + path.string() + ": " + std::strerror(err));
  }
  return fd;
}

CaseLife case_life(const fs::path& run_dir) {
  const fs::path path = run_dir / kCaseLock;
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.open()) return CaseLife::unknown;
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0) return CaseLife::ended;  // closing fd unlocks it
  return errno == EWOULDBLOCK ? CaseLife::running : CaseLife::unknown;
}

bool script_started_since(const fs::path& run_dir, double since) {
  std::error_code ec;
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!starts_with(it->path().filename().string(), render::kStartStampPrefix)) continue;
    struct stat st {};
    if (::stat(it->path().c_str(), &st) != 0) continue;
    const double t = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
    if (t >= since) return true;
  }
  return false;
}

}  // namespace campaign::pack
