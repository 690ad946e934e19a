// SshShell: commands on channels of one session, files over one SFTP session, keepalives from a
// background thread, reconnection after a dropped link.
//
// The command loop never blocks inside libssh waiting for one stream: it writes stdin no faster than
// the remote window allows, drains stdout and stderr without blocking, and otherwise waits in the
// session's event loop (which also reads what arrives) until the deadline, so a command that
// prints a lot before reading its input, or never reads it, cannot deadlock us. Each command
// first reports its remote pid on stderr (a line removed again), so that a timeout can kill its
// whole process group.
#include "ssh/ssh_shell.hpp"

#include <fcntl.h>
#include <libssh/callbacks.h>
#include <libssh/server.h>  // ssh_send_keepalive: declared with the server API, works for clients
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <map>

#include "ssh/jump.hpp"
#include "ssh/remote_command.hpp"
#include "util/atomic_file.hpp"
#include "util/fd.hpp"
#include "util/strings.hpp"

namespace campaign::ssh {

using transport::CommandResult;
using transport::TransportError;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

struct SshShell::Connection {
  std::unique_ptr<JumpTunnel> tunnel;  // first: outlives the session that talks through it
  SessionPtr session;
  EventPtr event;  // after the session: freed before it
  SftpPtr sftp;    // last: freed before its session
};

namespace {

constexpr size_t kChunk = 64 * 1024;  // OpenSSH's sftp-server takes up to 256 KiB per request
constexpr int kReadAhead = 16;        // SFTP read requests in flight

int signal_number(const std::string& name) {
  static const std::map<std::string, int> numbers = {
      {"HUP", 1},   {"INT", 2},   {"QUIT", 3},  {"ILL", 4},   {"TRAP", 5},  {"ABRT", 6},
      {"BUS", 7},   {"FPE", 8},   {"KILL", 9},  {"USR1", 10}, {"SEGV", 11}, {"USR2", 12},
      {"PIPE", 13}, {"ALRM", 14}, {"TERM", 15}, {"XCPU", 24}, {"XFSZ", 25}};
  auto it = numbers.find(name);
  return it == numbers.end() ? 0 : it->second;
}

// A running command's channel and what its callbacks record. Members are destroyed bottom-up, so
// the channel is freed before the callbacks it points to.
struct RemoteCommand {
  ssh_channel_callbacks_struct callbacks{};
  std::string exit_signal;
  ChannelPtr channel;

  explicit RemoteCommand(ChannelPtr c) : channel(std::move(c)) {
    callbacks.userdata = this;
    callbacks.channel_exit_signal_function = [](ssh_session, ssh_channel, const char* signal, int,
                                                const char*, const char*, void* self) {
      static_cast<RemoteCommand*>(self)->exit_signal = signal ? signal : "";
    };
    ssh_callbacks_init(&callbacks);
    ssh_set_channel_callbacks(channel.get(), &callbacks);
  }
  RemoteCommand(const RemoteCommand&) = delete;
  RemoteCommand& operator=(const RemoteCommand&) = delete;
};

// The first stderr line of every command run(): "campaign-ssh-pid=<pid of the remote shell>".
constexpr const char* kPidMarker = "campaign-ssh-pid=";

// Removes the marker line from `err` and returns the pid it names, if it is there (complete).
std::optional<long> take_pid_marker(std::string& err) {
  const std::string marker = kPidMarker;
  for (size_t pos = err.find(marker); pos != std::string::npos; pos = err.find(marker, pos + 1)) {
    if (pos != 0 && err[pos - 1] != '\n') continue;  // only a whole line (login scripts may print first)
    size_t end = err.find('\n', pos);
    if (end == std::string::npos) return std::nullopt;
    std::string digits = err.substr(pos + marker.size(), end - pos - marker.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    err.erase(pos, end + 1 - pos);
    return std::stol(digits);
  }
  return std::nullopt;
}

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

SshShell::SshShell(SshOptions options) : options_(std::move(options)) {
  if (options_.host.empty()) throw ConnectError("ssh: no host name");
  if (options_.port < 1 || options_.port > 65535)
    throw ConnectError("ssh: bad port " + std::to_string(options_.port) + " for " + options_.host);
  target_ = Endpoint{options_.user, options_.host, options_.port};
  if (!options_.jump.empty()) jump_ = Endpoint::parse(options_.jump, options_.user);
  last_traffic_ = Clock::now();
  if (options_.keepalive_interval.count() > 0) keepalive_thread_ = std::thread([this] { keepalive_loop(); });
}

SshShell::~SshShell() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (keepalive_thread_.joinable()) keepalive_thread_.join();
}

std::string SshShell::describe() const {
  return "ssh " + (options_.user.empty() ? "" : options_.user + "@") + options_.host;
}

std::string SshShell::endpoint() const { return target_.str() + (jump_ ? " via " + jump_->str() : ""); }

SshShell::Stats SshShell::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void SshShell::connect() {
  std::lock_guard lock(mutex_);
  connection();
}

void SshShell::mark_traffic() { last_traffic_ = Clock::now(); }

std::unique_ptr<SshShell::Connection> SshShell::connect_once() {
  auto c = std::make_unique<Connection>();
  int fd = -1;
  if (jump_) {
    c->tunnel = std::make_unique<JumpTunnel>(options_, *jump_, target_);
    fd = c->tunnel->session_end();
  }
  c->session = open_session(options_, target_, fd);
  c->event = watch_session(c->session.get());
  return c;
}

SshShell::Connection& SshShell::connection() {
  if (conn_ && session_alive(conn_->session.get())) return *conn_;
  drop_connection();
  // A first connection fails fast (a wrong host should say so at once); a dropped one is retried
  // with backoff, since login nodes restart and links flap.
  const int attempts = ever_connected_ ? std::max(1, options_.reconnect_attempts) : 1;
  auto delay = options_.reconnect_backoff;
  for (int attempt = 1;; ++attempt) {
    try {
      conn_ = connect_once();
      break;
    } catch (const HostKeyError&) {
      throw;  // permanent: retrying cannot help
    } catch (const AuthenticationError&) {
      throw;
    } catch (const TransportError& e) {
      if (attempt >= attempts) {
        if (attempts == 1) throw;
        throw ConnectError(std::string(e.what()) + " (reconnection failed " + std::to_string(attempts) +
                           " times)");
      }
    }
    std::this_thread::sleep_for(delay);
    delay *= 2;
  }
  ever_connected_ = true;
  ++stats_.connects;
  mark_traffic();
  return *conn_;
}

void SshShell::drop_connection() { conn_.reset(); }

void SshShell::keepalive_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto due = last_traffic_ + options_.keepalive_interval;
    if (Clock::now() < due) {
      wake_.wait_until(lock, due);
      continue;  // woken early, or traffic moved the due time: look again
    }
    if (conn_) {
      // Asks for a reply, which also answers the server's own keepalives (ClientAliveInterval)
      // that arrived meanwhile; a dead link shows up as a closed session.
      ssh_send_keepalive(conn_->session.get());
      ++stats_.keepalives;
      if (!session_alive(conn_->session.get())) drop_connection();  // reconnect at the next use
    }
    mark_traffic();
  }
}

CommandResult SshShell::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                            const std::string& stdin_data) {
  std::lock_guard lock(mutex_);
  return run_locked(argv, timeout, stdin_data);
}

CommandResult SshShell::run_locked(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                   const std::string& stdin_data) {
  // The login shell reports its pid, which sshd made a process group leader (setsid), then becomes
  // the command (exec): a timeout can kill the whole group, whatever the server allows.
  const std::string command = "echo " + std::string(kPidMarker) + "$$ >&2; exec " + remote_command(argv);
  if (options_.command_timeout.count() > 0) timeout = std::min(timeout, options_.command_timeout);
  return execute(command, transport::display_command(argv), timeout, stdin_data, true);
}

CommandResult SshShell::execute(const std::string& command, const std::string& shown,
                                std::chrono::milliseconds timeout, const std::string& stdin_data,
                                bool kill_on_timeout) {
  // Open the channel; only this step is retried, because the command has not been sent yet.
  ChannelPtr opened;
  for (int attempt = 0; !opened; ++attempt) {
    Connection& c = connection();
    ChannelPtr channel(ssh_channel_new(c.session.get()));
    if (channel && ssh_channel_open_session(channel.get()) == SSH_OK) {
      opened = std::move(channel);
      break;
    }
    std::string why = session_error(c.session.get());
    channel.reset();
    drop_connection();
    if (attempt > 0)
      throw TransportError(describe() + ": cannot open a channel to run `" + shown + "`: " + why);
  }

  const auto start = Clock::now();
  const auto deadline = start + timeout;
  ssh_session session = conn_->session.get();
  ssh_event event = conn_->event.get();
  RemoteCommand cmd(std::move(opened));
  ssh_channel ch = cmd.channel.get();
  ++stats_.commands;

  auto lost = [&](const std::string& when) -> CommandResult {
    std::string why = session_error(session);
    cmd.channel.reset();
    drop_connection();
    throw OutcomeUnknownError(describe() + ": connection lost " + when + " `" + shown +
                              "`; whether it ran is unknown (" + why + ")");
  };

  int rc = ssh_channel_request_exec(ch, command.c_str());
  if (rc != SSH_OK) {
    if (rc != SSH_ERROR || !session_alive(session)) return lost("while starting");
    throw TransportError(describe() + ": the server refused to run `" + shown +
                         "`: " + session_error(session));
  }

  CommandResult result;
  size_t written = 0;
  if (stdin_data.empty()) ssh_channel_send_eof(ch);
  std::vector<char> buf(kChunk);
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) {
      // OpenSSH (7.9 and later) passes a "signal" request on as killpg(), but not for root logins
      // (no privilege separation there), so the group is also killed from a second channel.
      ssh_channel_request_send_signal(ch, "KILL");
      ssh_channel_close(ch);
      cmd.channel.reset();
      std::optional<long> group = take_pid_marker(result.err);
      if (kill_on_timeout && group) {
        try {
          execute("kill -KILL -- -" + std::to_string(*group) + " 2>/dev/null", "kill",
                  options_.connect_timeout, {}, false);
        } catch (const TransportError&) {
          // The link is gone: so is the process group, once sshd notices.
        }
      }
      result.timed_out = true;
      result.exit_code = 137;
      mark_traffic();
      return result;
    }
    bool progress = false;
    if (written < stdin_data.size()) {
      uint32_t window = ssh_channel_window_size(ch);
      if (window > 0) {
        size_t n = std::min<size_t>({window, kChunk, stdin_data.size() - written});
        int w = ssh_channel_write(ch, stdin_data.data() + written, static_cast<uint32_t>(n));
        if (w == SSH_ERROR) {
          if (!session_alive(session)) return lost("while feeding the input of");
          written = stdin_data.size();  // the remote side closed its input: the rest is not wanted
        } else {
          written += static_cast<size_t>(w);
          progress = w > 0;
        }
        if (written == stdin_data.size()) ssh_channel_send_eof(ch);
      }
    }
    for (int is_stderr : {0, 1}) {
      int n = ssh_channel_read_nonblocking(ch, buf.data(), static_cast<uint32_t>(buf.size()), is_stderr);
      if (n == SSH_ERROR) return lost("while running");
      if (n > 0) {  // (SSH_EOF, negative too, only says this stream has ended)
        (is_stderr ? result.err : result.out).append(buf.data(), static_cast<size_t>(n));
        progress = true;
      }
    }
    if (progress) continue;
    if (!session_alive(session)) return lost("while running");
    if (ssh_channel_is_closed(ch)) break;  // closed by the server after the exit status

    // Nothing to do until the server sends something or our queued output can go.
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (options_.keepalive_interval.count() > 0) {
      if (now - last_traffic_ >= options_.keepalive_interval) {
        ssh_send_keepalive(session);  // a long quiet command must not look like a dead link to NATs
        ++stats_.keepalives;
        mark_traffic();
        continue;
      }
      wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(
                                last_traffic_ + options_.keepalive_interval - now));
    }
    if (ssh_event_dopoll(event, static_cast<int>(std::clamp<long long>(wait.count(), 1, 1000))) == SSH_OK)
      mark_traffic();
  }

  take_pid_marker(result.err);
  int status = ssh_channel_get_exit_status(ch);
  if (status >= 0) {
    result.exit_code = status;
  } else if (int sig = signal_number(cmd.exit_signal); sig > 0) {
    result.exit_code = 128 + sig;
  } else {
    result.exit_code = 255;  // the server sent neither a status nor a known signal
  }
  cmd.channel.reset();
  mark_traffic();
  return result;
}

// ---------------------------------------------------------------------------------------------------
// Many small files in one command

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
