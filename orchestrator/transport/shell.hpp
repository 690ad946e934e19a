// The one way scheduler back ends touch a machine: run a command, move a file, read a small file.
// LocalShell does it here; an SSH shell does it on a login node. Schedulers only see this interface,
// so they are tested with a scripted fake.
//
// Invariants: a command is an argv array (argv[0] looked up in PATH), never a string for a shell to
// re-parse, so no value needs quoting on the way. A command that ran and failed is a CommandResult
// with its exit status, not an exception; exceptions (TransportError) mean the command or the
// transfer could not be attempted at all.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace campaign::transport {

struct CommandResult {
  // Exit status. Shell conventions for the rest: 128+N when killed by signal N (so 137 after a
  // timeout), 127 when argv[0] is not found, 126 when it cannot be executed.
  int exit_code = 0;
  std::string out, err;
  bool timed_out = false;  // killed because it outlived its timeout

  bool ok() const { return exit_code == 0 && !timed_out; }
};

// The transport itself failed: could not start a process, copy a file, reach the host.
class TransportError : public Error {
 public:
  using Error::Error;
};

// The other side refuses us for a reason that trying again cannot fix (a host key that is unknown
// or changed, a key the server rejects): the user must act. Callers that retry transport failures
// must not retry these.
class AccessError : public TransportError {
 public:
  using TransportError::TransportError;
};

class Shell {
 public:
  virtual ~Shell() = default;

  // Runs argv and waits for it, feeding `stdin_data` to its standard input (closed when empty).
  // Past `timeout` the command (and what it started) is killed and the result has timed_out set.
  virtual CommandResult run(const std::vector<std::string>& argv,
                            std::chrono::milliseconds timeout = std::chrono::seconds(60),
                            const std::string& stdin_data = {}) = 0;
  // Copies a local file to `remote`, overwriting it; throws TransportError.
  virtual void put(const std::filesystem::path& local, const std::string& remote) = 0;
  // Copies `remote` to a local file, overwriting it; throws TransportError.
  virtual void get(const std::string& remote, const std::filesystem::path& local) = 0;
  virtual bool exists(const std::string& path) = 0;
  // At most `max_bytes` of the file; nullopt when it does not exist, TransportError when it exists
  // but cannot be read.
  virtual std::optional<std::string> read_file(const std::string& path, size_t max_bytes = 1 << 20) = 0;
  // read_file() of each path, in order, each entry nullopt when that file does not exist or cannot be
  // read. The default reads them one by one; a remote shell reads them in one round trip. Throws
  // TransportError only when none could be attempted.
  virtual std::vector<std::optional<std::string>> read_files(const std::vector<std::string>& paths,
                                                             size_t max_bytes = 1 << 20);
  // Where commands run, for messages: "local" or "ssh user@host"; never carries secrets.
  virtual std::string describe() const = 0;
};

// argv as one line a reader could paste into a shell; for logs and error messages, never executed.
std::string display_command(const std::vector<std::string>& argv);

}  // namespace campaign::transport
