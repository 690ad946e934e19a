// sync_up compares in one remote command per batch of files: the local sizes go along as arguments,
// so the remote side hashes only the files whose size matches (a changed size needs no hash).
// sync_down lists the remote tree with sizes and times in one `find`, and filters locally.
#include "ssh/sync.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <memory>
#include <set>

#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace campaign::ssh {

namespace fs = std::filesystem;
using transport::TransportError;

namespace {

constexpr size_t kMaxSyncArgBytes = 64 * 1024;  // per remote command: far below any server's limit
constexpr auto kListTimeout = std::chrono::minutes(10);
// sync_down fetches files up to this size through Shell::read_files, many per command (a round trip
// per batch instead of a few per file); larger ones through get().
constexpr uintmax_t kSmallFile = 1 << 20;
constexpr uintmax_t kSmallBatch = 8 << 20;

// Arguments: DIR, then SIZE PATH pairs. One line per pair: "missing", "size" or the SHA-256.
constexpr const char* kCompareScript = R"SH(dir=$1; shift
if ! cd -- "$dir" 2>/dev/null; then
  while [ $# -gt 0 ]; do echo missing; shift 2; done
  exit 0
fi
while [ $# -gt 0 ]; do
  size=$1; f=$2; shift 2
  if [ ! -f "$f" ]; then echo missing
  elif [ "$(wc -c < "$f")" -ne "$size" ]; then echo size
  else sha256sum < "$f" | cut -c1-64
  fi
done)SH";

// Arguments: DIR, then subdirectories of it to list (none: all of it). NUL-terminated records
// "SIZE SECONDS.FRACTION ./PATH"; exit 3 when DIR is missing. Each start point is given as ./NAME,
// so that a name beginning with '-' is not read as an option of find.
constexpr const char* kListScript = R"SH(cd -- "$1" 2>/dev/null || exit 3
shift
if [ $# -eq 0 ]; then exec find . -type f -printf '%s %T@ %p\0'; fi
for d do
  shift
  if [ -d "./$d" ]; then set -- "$@" "./$d"; fi
done
if [ $# -eq 0 ]; then exit 0; fi
exec find "$@" -type f -printf '%s %T@ %p\0')SH";

std::string join_remote(const std::string& dir, const std::string& rel) {
  if (dir.empty() || rel.empty()) return dir + rel;
  return dir.back() == '/' ? dir + rel : dir + "/" + rel;
}

std::string strip_slashes(const std::string& pattern) {
  size_t b = 0, e = pattern.size();
  while (b < e && pattern[b] == '/') ++b;
  while (e > b && pattern[e - 1] == '/') --e;
  return pattern.substr(b, e - b);
}

bool any_matches(const std::vector<std::string>& patterns, const std::string& path) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return path_matches(p, path); });
}

struct EvpDeleter {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};

std::string file_sha256(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TransportError("cannot read " + path.string());
  std::unique_ptr<EVP_MD_CTX, EvpDeleter> ctx(EVP_MD_CTX_new());
  if (!ctx || !EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr)) throw TransportError("sha256 failed");
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw TransportError("cannot read " + path.string());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

void check(const transport::CommandResult& r, transport::Shell& shell, const std::string& what) {
  if (r.ok()) return;
  throw TransportError(shell.describe() + ": " + what +
                       (r.timed_out ? " timed out" : " failed (exit " + std::to_string(r.exit_code) + ")") +
                       (r.err.empty() ? "" : ": " + trim(r.err)));
}

// Runs `base` + the words of `items` in as few commands as the argument budget allows.
template <class Each>
void batched(size_t count, const Each& words_of, const std::function<void(size_t, size_t)>& run_batch) {
  size_t begin = 0;
  while (begin < count) {
    size_t end = begin, bytes = 0;
    while (end < count && (end == begin || bytes + words_of(end) <= kMaxSyncArgBytes)) bytes += words_of(end++);
    run_batch(begin, end);
    begin = end;
  }
}

}  // namespace

bool path_matches(const std::string& raw_pattern, const std::string& path) {
  const std::string pattern = strip_slashes(raw_pattern);
  if (pattern.empty()) return false;
  if (pattern.find('/') == std::string::npos) {
    for (const auto& part : split(path, '/'))
      if (::fnmatch(pattern.c_str(), part.c_str(), 0) == 0) return true;
    return false;
  }
  for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
    if (::fnmatch(pattern.c_str(), path.substr(0, slash).c_str(), 0) == 0) return true;
  return ::fnmatch(pattern.c_str(), path.c_str(), 0) == 0;
}

namespace {

struct LocalFile {
  fs::path path;    // where it is here
  std::string rel;  // where it goes, relative to the remote directory
  uintmax_t size = 0;
};

// Sends the files of `files` (sorted by rel) that are missing under `remote_dir` or differ there.
SyncResult send_changed(transport::Shell& shell, const std::vector<LocalFile>& files,
                        const std::string& remote_dir) {
  SyncResult result;
  result.files = files.size();
  std::vector<size_t> changed;
  batched(
      files.size(), [&](size_t i) { return files[i].rel.size() + 24; },
      [&](size_t begin, size_t end) {
        std::vector<std::string> argv = {"sh", "-c", kCompareScript, "sh", remote_dir};
        for (size_t i = begin; i < end; ++i) {
          argv.push_back(std::to_string(files[i].size));
          argv.push_back(files[i].rel);
        }
        auto r = shell.run(argv, kListTimeout);
        check(r, shell, "comparing files under " + remote_dir);
        auto lines = split(r.out, '\n');
        if (!lines.empty() && lines.back().empty()) lines.pop_back();
        if (lines.size() != end - begin)
          throw TransportError(shell.describe() + ": unexpected answer comparing files under " + remote_dir);
        for (size_t i = begin; i < end; ++i) {
          const std::string& answer = lines[i - begin];
          if (answer == "missing" || answer == "size" || answer != file_sha256(files[i].path))
            changed.push_back(i);
        }
      });
  if (changed.empty()) return result;

  // Every directory the changed files need, in one mkdir -p per batch.
  std::set<std::string> dirs = {remote_dir};
  for (size_t i : changed) {
    auto slash = files[i].rel.find_last_of('/');
    if (slash != std::string::npos) dirs.insert(join_remote(remote_dir, files[i].rel.substr(0, slash)));
  }
  std::vector<std::string> dir_list(dirs.begin(), dirs.end());
  batched(
      dir_list.size(), [&](size_t i) { return dir_list[i].size() + 3; },
      [&](size_t begin, size_t end) {
        std::vector<std::string> argv = {"mkdir", "-p", "--"};
        argv.insert(argv.end(), dir_list.begin() + static_cast<long>(begin),
                    dir_list.begin() + static_cast<long>(end));
        check(shell.run(argv, kListTimeout), shell, "creating directories under " + remote_dir);
      });

  for (size_t i : changed) {
    shell.put(files[i].path, join_remote(remote_dir, files[i].rel));
    result.transferred.push_back(files[i].rel);
    result.bytes += files[i].size;
  }
  return result;
}

}  // namespace

SyncResult sync_up(transport::Shell& shell, const fs::path& local_dir, const std::string& remote_dir,
                   const std::vector<std::string>& exclude) {
  if (remote_dir.empty()) throw TransportError("sync: empty remote directory");
  std::error_code ec;
  if (!fs::is_directory(local_dir, ec))
    throw TransportError("sync: " + local_dir.string() + " is not a directory");

  std::vector<LocalFile> files;
  for (fs::recursive_directory_iterator it(local_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(local_dir).generic_string();
    if (any_matches(exclude, rel)) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec)) files.push_back({it->path(), rel, it->file_size(ec)});
  }
  if (ec) throw TransportError("sync: cannot list " + local_dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end(), [](const LocalFile& a, const LocalFile& b) { return a.rel < b.rel; });
  return send_changed(shell, files, remote_dir);
}

SyncResult sync_up_file(transport::Shell& shell, const fs::path& local_file, const std::string& remote_file) {
  std::error_code ec;
  if (!fs::is_regular_file(local_file, ec))
    throw TransportError("sync: " + local_file.string() + " is not a regular file");
  auto slash = remote_file.find_last_of('/');
  if (remote_file.empty() || slash == remote_file.size() - 1)
    throw TransportError("sync: bad remote file name '" + remote_file + "'");
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : remote_file.substr(0, slash));
  std::string name = slash == std::string::npos ? remote_file : remote_file.substr(slash + 1);
  uintmax_t size = fs::file_size(local_file, ec);
  if (ec) throw TransportError("sync: cannot read " + local_file.string() + ": " + ec.message());
  return send_changed(shell, {LocalFile{local_file, name, size}}, dir);
}

std::string fnmatch_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

SyncResult sync_down(transport::Shell& shell, const std::string& remote_dir, const fs::path& local_dir,
                     const std::vector<std::string>& include, const std::vector<std::string>& exclude,
                     const std::vector<std::string>& under) {
  if (remote_dir.empty()) throw TransportError("sync: empty remote directory");
  std::string records;
  auto list = [&](size_t begin, size_t end) {
    std::vector<std::string> argv = {"sh", "-c", kListScript, "sh", remote_dir};
    argv.insert(argv.end(), under.begin() + static_cast<long>(begin), under.begin() + static_cast<long>(end));
    auto listing = shell.run(argv, kListTimeout);
    if (listing.exit_code == 3 && !listing.timed_out)
      throw TransportError(shell.describe() + ": remote directory " + remote_dir + " does not exist");
    check(listing, shell, "listing " + remote_dir);
    records += listing.out;
  };
  if (under.empty())
    list(0, 0);
  else
    batched(
        under.size(), [&](size_t i) { return under[i].size() + 3; }, list);

  SyncResult result;
  std::error_code ec;
  struct Fetch {
    std::string rel;
    uintmax_t size;
    timespec mtime;
  };
  std::vector<Fetch> todo;
  size_t pos = 0;
  while (pos < records.size()) {
    size_t nul = records.find('\0', pos);
    if (nul == std::string::npos)
      throw TransportError(shell.describe() + ": truncated listing of " + remote_dir);
    std::string record = records.substr(pos, nul - pos);
    pos = nul + 1;
    size_t s1 = record.find(' '), s2 = s1 == std::string::npos ? s1 : record.find(' ', s1 + 1);
    if (s2 == std::string::npos) throw TransportError(shell.describe() + ": bad listing of " + remote_dir);
    std::string rel = record.substr(s2 + 1);
    while (starts_with(rel, "./")) rel = rel.substr(2);
    if (rel.empty() || any_matches(exclude, rel) || (!include.empty() && !any_matches(include, rel)))
      continue;
    ++result.files;

    const uintmax_t size = std::stoull(record.substr(0, s1));
    const std::string when = record.substr(s1 + 1, s2 - s1 - 1);
    const size_t dot = when.find('.');
    timespec mtime{};
    mtime.tv_sec = static_cast<time_t>(std::stoll(when.substr(0, dot)));
    if (dot != std::string::npos) {
      std::string frac = when.substr(dot + 1, 9);
      frac.resize(9, '0');
      mtime.tv_nsec = std::stol(frac);
    }

    const fs::path local = local_dir / rel;
    struct stat st {};
    if (::stat(local.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<uintmax_t>(st.st_size) == size && st.st_mtim.tv_sec == mtime.tv_sec &&
        st.st_mtim.tv_nsec == mtime.tv_nsec)
      continue;
    fs::create_directories(local.parent_path(), ec);
    if (ec) throw TransportError("sync: cannot create " + local.parent_path().string() + ": " + ec.message());
    todo.push_back({rel, size, mtime});
  }

  // Small files in a few commands (Shell::read_files), the others one transfer each.
  auto fetched = [&](const Fetch& f) {
    const fs::path local = local_dir / f.rel;
    const timespec times[2] = {{0, UTIME_NOW}, f.mtime};
    ::utimensat(AT_FDCWD, local.c_str(), times, 0);  // the mirror's time says which version it holds
    result.transferred.push_back(f.rel);
    result.bytes += f.size;
  };
  std::vector<const Fetch*> small;
  for (const auto& f : todo) {
    if (f.size <= kSmallFile) {
      small.push_back(&f);
      continue;
    }
    shell.get(join_remote(remote_dir, f.rel), local_dir / f.rel);
    fetched(f);
  }
  for (size_t begin = 0; begin < small.size();) {
    size_t end = begin;
    uintmax_t bytes = 0, largest = 0;
    while (end < small.size() && (end == begin || bytes + small[end]->size <= kSmallBatch)) {
      bytes += small[end]->size;
      largest = std::max(largest, small[end]->size);
      ++end;
    }
    std::vector<std::string> paths;
    for (size_t i = begin; i < end; ++i) paths.push_back(join_remote(remote_dir, small[i]->rel));
    auto texts = shell.read_files(paths, static_cast<size_t>(largest));
    for (size_t i = begin; i < end; ++i) {
      const Fetch& f = *small[i];
      const fs::path local = local_dir / f.rel;
      const auto& text = texts[i - begin];
      if (!text) {
        shell.get(paths[i - begin], local);  // gone or unreadable since the listing: get() says which
      } else {
        try {
          write_file_atomic(local, *text);
        } catch (const Error& e) {
          throw TransportError(std::string("sync: ") + e.what());
        }
      }
      fetched(f);
    }
    begin = end;
  }
  std::sort(result.transferred.begin(), result.transferred.end());
  return result;
}

}  // namespace campaign::ssh
