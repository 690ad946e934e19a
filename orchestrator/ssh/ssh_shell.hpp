// Shell on a remote login node over SSH (libssh): what lets the scheduler back ends drive Daint or
// Perlmutter from a laptop unchanged, since they only see transport::Shell.
//
// One authenticated session is reused for everything: a channel per command, one SFTP session for
// the file operations. A background thread sends keepalives while the shell is idle. When the link
// drops, the next operation reconnects (with backoff) and goes on.
//
// Invariants:
//  - A command runs at most once. It is retried on a fresh session only when the server never got
//    it: the only retried failure is opening its channel, which happens before the command is sent.
//    A link that dies after the command was sent (or while it runs) is an OutcomeUnknownError, and
//    the caller (a scheduler) must find out whether it ran, e.g. by job name.
//  - File operations are idempotent (put writes a temporary name, then renames), so a file operation
//    interrupted by a dead link is redone once on a fresh session.
//  - Every argv word reaches the remote program literally (see remote_command.hpp).
//  - describe(), error messages and logs name user@host, never key material.
//  - Thread-safe: operations are serialized on one mutex (libssh sessions are not thread-safe).
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "ssh/options.hpp"
#include "ssh/session.hpp"

namespace campaign::ssh {

class SshShell final : public transport::Shell {
 public:
  // Validates the options (throws ConnectError for a bad jump spec); connects lazily.
  explicit SshShell(SshOptions options);
  ~SshShell() override;
  SshShell(const SshShell&) = delete;
  SshShell& operator=(const SshShell&) = delete;

  // Connects now rather than at the first operation, to report a bad host key or key early.
  void connect();

  // The remote login shell execs argv[0] (so, as for LocalShell, shell builtins cannot be run).
  // `timeout` is capped by SshOptions::command_timeout. Past it, the remote process group gets
  // SIGKILL, the channel is closed, and the result has timed_out set and exit code 137. A remote
  // process killed by signal N exits 128+N. Throws OutcomeUnknownError when the link dies after
  // the command was sent.
  transport::CommandResult run(const std::vector<std::string>& argv,
                               std::chrono::milliseconds timeout = std::chrono::seconds(60),
                               const std::string& stdin_data = {}) override;
  // Creates missing parent directories, writes a temporary file beside `remote` and renames it over
  // `remote`, so readers see the old or the new file, never half of one. Keeps the permission bits
  // (less the remote umask). Replacing an existing file costs one extra command (see the .cpp).
  void put(const std::filesystem::path& local, const std::string& remote) override;
  // Writes a temporary file beside `local` and renames it; the parent directory must exist.
  void get(const std::string& remote, const std::filesystem::path& local) override;
  bool exists(const std::string& path) override;
  std::optional<std::string> read_file(const std::string& path, size_t max_bytes = 1 << 20) override;
  // One remote command per few thousand paths (one round trip, not one per file, which is what
  // reading the exit markers of many jobs at every tick needs). Needs `base64` (coreutils) remotely.
  std::vector<std::optional<std::string>> read_files(const std::vector<std::string>& paths,
                                                     size_t max_bytes = 1 << 20) override;
  std::string describe() const override;  // "ssh user@host"
  // "user@host:port" (and " via JUMP" with a jump host), for messages and `campaign status`.
  std::string endpoint() const;

  struct Stats {
    long connects = 0;    // sessions opened, counting reconnections
    long commands = 0;    // commands started
    long keepalives = 0;  // keepalive requests sent
  };
  Stats stats() const;

  // Remote paths are taken as given: relative ones are relative to the login directory, and `~` is
  // not expanded (neither in commands, where every word is quoted, nor over SFTP).

 private:
  struct Connection;

  // run() with the mutex already held.
  transport::CommandResult run_locked(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                      const std::string& stdin_data);
  // Runs a command string (mutex held); kill_on_timeout: it carries the pid marker, see run().
  transport::CommandResult execute(const std::string& command, const std::string& shown,
                                   std::chrono::milliseconds timeout, const std::string& stdin_data,
                                   bool kill_on_timeout);
  Connection& connection();  // the live connection; connects or reconnects (with backoff) as needed
  std::unique_ptr<Connection> connect_once();
  void drop_connection();
  sftp_session sftp(Connection& c);
  template <class F>
  auto with_sftp(F&& operation);
  void keepalive_loop();
  void mark_traffic();

  SshOptions options_;
  Endpoint target_;
  std::optional<Endpoint> jump_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;  // stops the keepalive thread
  bool stopping_ = false;
  std::unique_ptr<Connection> conn_;
  bool ever_connected_ = false;
  std::chrono::steady_clock::time_point last_traffic_;
  Stats stats_;
  std::thread keepalive_thread_;  // last: started once everything above exists
};

}  // namespace campaign::ssh
