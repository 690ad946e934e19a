// LocalShell: commands run by util/process.hpp's run_program, files copied in place.
#include "transport/local_shell.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "util/process.hpp"

namespace campaign::transport {

CommandResult LocalShell::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                              const std::string& stdin_data) {
  if (argv.empty() || argv[0].empty()) throw TransportError("cannot run an empty command");
  RunOptions options;
  options.timeout = timeout;
  options.stdin_data = stdin_data;
  RunResult r;
  try {
    r = run_program(argv, options);
  } catch (const Error& e) {
    throw TransportError(e.what());
  }
  if (r.start_error == ENOENT)
    return {127, "", argv[0] + ": command not found (not in PATH on this machine)\n"};
  if (r.start_error != 0)
    return {126, "", argv[0] + ": cannot execute: " + std::strerror(r.start_error) + "\n"};
  CommandResult result;
  result.exit_code = shell_exit_code(r.status.value_or(0));
  result.out = std::move(r.out);
  result.err = std::move(r.err);
  result.timed_out = r.timed_out;
  return result;
}

void LocalShell::put(const std::filesystem::path& local, const std::string& remote) {
  std::error_code ec;
  std::filesystem::copy_file(local, remote, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) throw TransportError("cannot copy " + local.string() + " to " + remote + ": " + ec.message());
}

void LocalShell::get(const std::string& remote, const std::filesystem::path& local) {
  std::error_code ec;
  std::filesystem::copy_file(remote, local, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) throw TransportError("cannot copy " + remote + " to " + local.string() + ": " + ec.message());
}

bool LocalShell::exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

std::optional<std::string> LocalShell::read_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) return std::nullopt;
  if (ec) throw TransportError("cannot read " + path + ": " + ec.message());
  if (st.type() == std::filesystem::file_type::directory)
    throw TransportError("cannot read " + path + ": is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw TransportError("cannot read " + path + ": " + std::strerror(errno));
  std::string data(max_bytes, '\0');
  f.read(data.data(), static_cast<std::streamsize>(max_bytes));
  data.resize(static_cast<size_t>(f.gcount()));
  if (f.bad()) throw TransportError("cannot read " + path);
  return data;
}

}  // namespace campaign::transport
