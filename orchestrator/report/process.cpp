// Implements report/process.hpp with fork/exec and one pipe for stdout and
// stderr; the child only makes async-signal-safe calls.
#include "report/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/error.hpp"
#include "util/fd.hpp"
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
  // Everything the child needs is prepared before fork(): after it, only
  // async-signal-safe calls.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::string dir = cwd.string();
  std::string exec_fail = "cannot run " + argv[0] + "\n";

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  Fd out(fds[0]), in(fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(in.get(), 1);
    ::dup2(in.get(), 2);
    if (!dir.empty() && ::chdir(dir.c_str()) != 0) _exit(126);
    ::execv(args[0], args.data());
    ssize_t ignored = ::write(2, exec_fail.data(), exec_fail.size());
    (void)ignored;
    _exit(127);
  }
  in.reset();

  ProcessResult r;
  auto append = [&](const char* data, ssize_t n) {
    if (r.output.size() < kMaxOutput)
      r.output.append(data, std::min(static_cast<size_t>(n), kMaxOutput - r.output.size()));
  };
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  int status = 0;
  bool reaped = false, eof = false, lost = false;
  while (!reaped) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    if (!eof) {
      // Short slices: a grandchild may keep the pipe open after the child exits.
      pollfd p{out.get(), POLLIN, 0};
      int n = ::poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100)));
      if (n > 0) {
        ssize_t got = ::read(out.get(), buf, sizeof buf);
        if (got > 0)
          append(buf, got);
        else if (got == 0 || errno != EINTR)
          eof = true;
      }
    } else {
      ::usleep(20 * 1000);
    }
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w < 0 && errno == ECHILD) {  // reaped by someone else (a SIGCHLD handler): status unknown
      lost = true;
      break;
    }
    reaped = w == pid;
  }
  if (!reaped && !lost) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (!eof) {  // what the child wrote before exiting, without waiting for grandchildren
    ::fcntl(out.get(), F_SETFL, ::fcntl(out.get(), F_GETFL) | O_NONBLOCK);
    ssize_t got;
    while ((got = ::read(out.get(), buf, sizeof buf)) > 0) append(buf, got);
  }
  if (!lost && WIFEXITED(status) && !r.timed_out) r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace campaign::report
