// Implements report/process.hpp on util/process.hpp's run_program, with stdout
// and stderr in one stream.
#include "report/process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "util/error.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace campaign::report {

namespace {

constexpr size_t kMaxOutput = 64 * 1024;

}  // namespace

std::string environment_path() {
  const char* p = std::getenv("PATH");
  return p ? p : "";
}

std::optional<std::filesystem::path> find_executable(const std::string& name,
                                                     const std::string& search_path) {
  auto runnable = [](const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    if (runnable(name)) return std::filesystem::path(name);
    return std::nullopt;
  }
  for (const std::string& dir : split(search_path, ':')) {
    if (dir.empty()) continue;  // an empty entry would mean the working directory: not wanted here
    std::filesystem::path p = std::filesystem::path(dir) / name;
    if (runnable(p)) return p;
  }
  return std::nullopt;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          std::chrono::milliseconds timeout) {
  if (argv.empty()) throw Error("run_process: empty argv");
  RunOptions options;
  options.timeout = timeout;
  options.cwd = cwd;
  options.output = Output::merged;
  options.until = Until::exited;  // a grandchild may keep the pipe open after the child exits
  options.max_output = kMaxOutput;
  RunResult r = run_program(argv, options);
  ProcessResult result;
  if (r.start_error != 0) {
    result.exit_code = 127;
    result.output = "cannot run " + argv[0] + ": " + std::strerror(r.start_error) + "\n";
    return result;
  }
  result.timed_out = r.timed_out;
  result.output = std::move(r.out);
  if (r.status && WIFEXITED(*r.status) && !r.timed_out) result.exit_code = WEXITSTATUS(*r.status);
  return result;
}

}  // namespace campaign::report
