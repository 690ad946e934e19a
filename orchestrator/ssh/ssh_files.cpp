// SshShell's files: many small files read in one command (base64 over a channel), and single files
// put and got over the connection's SFTP session, written atomically on both sides.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>

#include "ssh/connection.hpp"
#include "ssh/ssh_shell.hpp"
#include "util/atomic_file.hpp"
#include "util/fd.hpp"
#include "util/strings.hpp"

namespace campaign::ssh {

using transport::CommandResult;
using transport::TransportError;
namespace fs = std::filesystem;

namespace {

std::string parent_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  return ".campaign-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

namespace {

// Arguments: MAX_BYTES, then paths. One line per path: "-" missing, "!" unreadable or a directory,
// "+" followed by the first MAX_BYTES bytes in base64. A failed redirection of a compound command
// does not end a POSIX shell (a failed `exec 3<file` would).
constexpr const char* kReadFilesScript = R"SH(max=$1; shift
for f do
  if [ ! -e "$f" ]; then echo -
  elif [ -d "$f" ]; then echo '!'
  elif { printf +; head -c "$max" <&3 | base64 -w0; echo; } 3<"$f"; then :
  else echo '!'
  fi
done 2>/dev/null)SH";

constexpr size_t kMaxArgBytes = 64 * 1024;  // per command: far below any server's limit

std::optional<std::string> decode_base64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  unsigned bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    int v = value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

}  // namespace

std::vector<std::optional<std::string>> SshShell::read_files(const std::vector<std::string>& paths,
                                                             size_t max_bytes) {
  std::vector<std::optional<std::string>> out;
  out.reserve(paths.size());
  size_t begin = 0;
  while (begin < paths.size()) {
    size_t end = begin, bytes = 0;
    while (end < paths.size() && (end == begin || bytes + paths[end].size() + 3 <= kMaxArgBytes))
      bytes += paths[end++].size() + 3;
    std::vector<std::string> argv = {"sh", "-c", kReadFilesScript, "sh", std::to_string(max_bytes)};
    argv.insert(argv.end(), paths.begin() + static_cast<long>(begin), paths.begin() + static_cast<long>(end));
    auto r = run(argv, std::chrono::seconds(60));
    auto lines = split(r.out, '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    if (!r.ok() || lines.size() != end - begin)
      throw TransportError(describe() + ": cannot read " + std::to_string(end - begin) + " files" +
                           (r.timed_out ? " (timed out)" : " (exit " + std::to_string(r.exit_code) + ")") +
                           (r.err.empty() ? "" : ": " + trim(r.err)));
    for (const auto& line : lines) {
      if (line.empty() || line[0] != '+') {
        out.emplace_back();
        continue;
      }
      auto data = decode_base64(std::string_view(line).substr(1));
      if (!data) throw TransportError(describe() + ": unreadable answer while reading files");
      out.push_back(std::move(data));
    }
    begin = end;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// SFTP

namespace {

std::string sftp_reason(sftp_session sftp, ssh_session session) {
  switch (sftp ? sftp_get_error(sftp) : -1) {
    case SSH_FX_NO_SUCH_FILE:
      return "no such file or directory";
    case SSH_FX_PERMISSION_DENIED:
      return "permission denied";
    case SSH_FX_FILE_ALREADY_EXISTS:
      return "file exists";
    case SSH_FX_FAILURE:
      return "failed (not a directory, disk full or quota exceeded?)";
    default:
      return session_error(session);
  }
}

// Reads `file` from its current offset to its end or `limit` bytes, with kReadAhead requests in
// flight so a long link costs one round trip per megabyte, not per chunk. False on error.
bool read_pipelined(sftp_file file, uint64_t limit, const std::function<void(const char*, size_t)>& sink) {
  struct Request {
    int id;
    uint32_t length;
  };
  std::deque<Request> pending;
  std::vector<char> buf(kChunk);
  uint64_t requested = 0, received = 0;
  bool eof = false;
  auto drain = [&] {  // collect (and drop) the answers to requests already sent
    for (const auto& r : pending) sftp_async_read(file, buf.data(), r.length, static_cast<uint32_t>(r.id));
    pending.clear();
  };
  for (;;) {
    while (!eof && pending.size() < kReadAhead && requested < limit) {
      auto length = static_cast<uint32_t>(std::min<uint64_t>(kChunk, limit - requested));
      int id = sftp_async_read_begin(file, length);
      if (id < 0) {
        drain();
        return false;
      }
      pending.push_back({id, length});
      requested += length;
    }
    if (pending.empty()) return true;
    Request r = pending.front();
    pending.pop_front();
    int n = sftp_async_read(file, buf.data(), r.length, static_cast<uint32_t>(r.id));
    if (n < 0) {
      drain();
      return false;
    }
    if (n == 0) {
      eof = true;
      drain();
      return true;
    }
    sink(buf.data(), static_cast<size_t>(n));
    received += static_cast<uint64_t>(n);
    if (static_cast<uint32_t>(n) < r.length) {
      // A short read: the requests after it asked for the wrong offsets. Start again from here.
      drain();
      if (sftp_seek64(file, received) < 0) return false;
      requested = received;
    }
  }
}

}  // namespace

sftp_session SshShell::sftp(Connection& c) {
  if (!c.sftp) {
    SftpPtr s(sftp_new(c.session.get()));
    if (!s || sftp_init(s.get()) != SSH_OK)
      throw TransportError(describe() + ": cannot start SFTP (is the sftp subsystem enabled?): " +
                           session_error(c.session.get()));
    c.sftp = std::move(s);
  }
  return c.sftp.get();
}

template <class F>
auto SshShell::with_sftp(F&& operation) {
  std::lock_guard lock(mutex_);
  for (int attempt = 0;; ++attempt) {
    Connection& c = connection();
    try {
      auto result = operation(c, sftp(c));
      mark_traffic();
      return result;
    } catch (const TransportError&) {
      // Redo the (idempotent) operation once if the link or the SFTP channel died under it.
      if (attempt > 0) throw;
      if (!conn_ || !session_alive(conn_->session.get())) {
        drop_connection();
      } else if (conn_->sftp && ssh_channel_is_closed(conn_->sftp->channel)) {
        conn_->sftp.reset();
      } else {
        throw;
      }
    }
  }
}

void SshShell::put(const fs::path& local, const std::string& remote) {
  with_sftp([&](Connection& c, sftp_session s) {
    auto fail = [&](const std::string& what) -> bool {
      throw TransportError(describe() + ": cannot " + what + ": " + sftp_reason(s, c.session.get()));
    };
    Fd in(::open(local.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (in.get() < 0 || ::fstat(in.get(), &st) != 0)
      throw TransportError("cannot read " + local.string() + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw TransportError("cannot copy " + local.string() + ": is a directory");

    // mkdir -p of the parent, from the deepest existing ancestor down.
    std::vector<std::string> missing;
    for (std::string dir = parent_of(remote); !dir.empty() && dir != "/" && dir != ".";
         dir = parent_of(dir)) {
      SftpAttributesPtr attr(sftp_stat(s, dir.c_str()));
      if (attr) {
        if (attr->type != SSH_FILEXFER_TYPE_DIRECTORY)
          fail("create " + remote + ": " + dir + " is not a directory");
        break;
      }
      if (sftp_get_error(s) != SSH_FX_NO_SUCH_FILE) fail("check directory " + dir);
      missing.push_back(dir);
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (sftp_mkdir(s, it->c_str(), 0755) != 0) {
        SftpAttributesPtr raced(sftp_stat(s, it->c_str()));  // someone else may have made it meanwhile
        if (!raced || raced->type != SSH_FILEXFER_TYPE_DIRECTORY) fail("create directory " + *it);
      }
    }

    // The remote twin of write_file_atomic: the same temporary-then-rename, but through SFTP calls
    // (and `mv -f` where SFTP v3 cannot replace a file), so it cannot share the local code.
    const std::string dir = parent_of(remote);
    const std::string tmp =
        (dir.empty() ? "" : (dir == "/" ? "/" : dir + "/")) + "." + base_of(remote) + unique_suffix();
    SftpFilePtr out(sftp_open(s, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777));
    if (!out) fail("write " + tmp);
    auto discard = [&](const std::string& what) {
      std::string reason = sftp_reason(s, c.session.get());
      out.reset();
      if (session_alive(c.session.get())) sftp_unlink(s, tmp.c_str());
      throw TransportError(describe() + ": cannot " + what + ": " + reason);
    };
    std::vector<char> buf(kChunk);
    for (;;) {
      ssize_t n = ::read(in.get(), buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int e = errno;
        out.reset();
        sftp_unlink(s, tmp.c_str());
        throw TransportError("cannot read " + local.string() + ": " + std::strerror(e));
      }
      if (n == 0) break;
      if (sftp_write(out.get(), buf.data(), static_cast<size_t>(n)) != n) discard("write " + remote);
    }
    if (sftp_close(out.release()) != SSH_NO_ERROR) {
      if (session_alive(c.session.get())) sftp_unlink(s, tmp.c_str());
      fail("write " + remote);
    }
    if (sftp_rename(s, tmp.c_str(), remote.c_str()) == 0) return true;
    // SFTP v3 (all OpenSSH speaks) renames only onto a free name, and libssh 0.10 cannot send
    // OpenSSH's posix-rename extension: an existing file is replaced by rename(2) through `mv -f`.
    std::string reason = sftp_reason(s, c.session.get());
    SftpAttributesPtr existing(sftp_lstat(s, remote.c_str()));
    if (!existing || existing->type == SSH_FILEXFER_TYPE_DIRECTORY) {
      if (session_alive(c.session.get())) sftp_unlink(s, tmp.c_str());
      throw TransportError(describe() + ": cannot create " + remote + ": " + reason);
    }
    // From here on `c` and `s` may be gone: a command may reconnect.
    auto moved =
        run_locked({"sh", "-c", "mv -f -- \"$1\" \"$2\" || { rm -f -- \"$1\"; exit 1; }", "sh", tmp, remote},
                   std::chrono::seconds(60), {});
    if (!moved.ok())
      throw TransportError(describe() + ": cannot replace " + remote + ": " +
                           (moved.err.empty() ? "mv failed" : trim(moved.err)));
    return true;
  });
}

void SshShell::get(const std::string& remote, const fs::path& local) {
  with_sftp([&](Connection& c, sftp_session s) {
    SftpFilePtr in(sftp_open(s, remote.c_str(), O_RDONLY, 0));
    if (!in)
      throw TransportError(describe() + ": cannot read " + remote + ": " + sftp_reason(s, c.session.get()));
    try {
      write_file_atomic(local, [&](std::ostream& out) {
        bool ok = read_pipelined(in.get(), UINT64_MAX, [&](const char* data, size_t n) {
          out.write(data, static_cast<std::streamsize>(n));
        });
        if (!ok)
          throw TransportError(describe() + ": cannot read " + remote + ": " +
                               sftp_reason(s, c.session.get()));
      });
    } catch (const TransportError&) {
      throw;
    } catch (const Error& e) {
      throw TransportError(e.what());
    }
    return true;
  });
}

bool SshShell::exists(const std::string& path) {
  return with_sftp([&](Connection& c, sftp_session s) {
    SftpAttributesPtr attr(sftp_stat(s, path.c_str()));
    if (attr) return true;
    if (!session_alive(c.session.get())) throw TransportError(describe() + ": connection lost");
    return false;
  });
}

std::optional<std::string> SshShell::read_file(const std::string& path, size_t max_bytes) {
  return with_sftp([&](Connection& c, sftp_session s) -> std::optional<std::string> {
    auto fail = [&]() -> std::optional<std::string> {
      throw TransportError(describe() + ": cannot read " + path + ": " + sftp_reason(s, c.session.get()));
    };
    SftpAttributesPtr attr(sftp_stat(s, path.c_str()));
    if (!attr) {
      if (sftp_get_error(s) == SSH_FX_NO_SUCH_FILE && session_alive(c.session.get())) return std::nullopt;
      return fail();
    }
    if (attr->type == SSH_FILEXFER_TYPE_DIRECTORY)
      throw TransportError(describe() + ": cannot read " + path + ": is a directory");
    SftpFilePtr in(sftp_open(s, path.c_str(), O_RDONLY, 0));
    if (!in) return fail();
    std::string data;
    if (!read_pipelined(in.get(), max_bytes, [&](const char* p, size_t n) { data.append(p, n); }))
      return fail();
    return data;
  });
}

}  // namespace campaign::ssh
