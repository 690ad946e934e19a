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
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <map>

#include "ssh/connection.hpp"
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

namespace {

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
  // The log says when a link was lost and found again (the run's own messages say what it meant).
  if (ever_connected_) spdlog::info("ssh {}: the link dropped; reconnecting", endpoint());
  for (int attempt = 1;; ++attempt) {
    try {
      conn_ = connect_once();
      if (ever_connected_) spdlog::info("ssh {}: reconnected (attempt {})", endpoint(), attempt);
      break;
    } catch (const HostKeyError&) {
      throw;  // permanent: retrying cannot help
    } catch (const AuthenticationError&) {
      throw;
    } catch (const TransportError& e) {
      if (ever_connected_)
        spdlog::info("ssh {}: reconnection attempt {} of {} failed: {}", endpoint(), attempt, attempts,
                     e.what());
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

}  // namespace campaign::ssh
