// Implements util/process.hpp: posix_spawnp with pipes, watched with poll(2).
//
// Both output pipes are drained while stdin is written, so a child that prints a lot before reading
// (or never reads) cannot deadlock us. The child leads its own process group so that a timeout
// kills whatever it started too, and so that a Ctrl-C meant for the orchestrator does not reach
// commands half-way through.
#include "util/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "util/error.hpp"
#include "util/fd.hpp"

extern char** environ;

namespace campaign {

namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  Fd read, write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  return {Fd(fds[0]), Fd(fds[1])};
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw Error(std::string("fcntl: ") + std::strerror(errno));
}

// write(2) with SIGPIPE blocked on this thread: a child that exits without reading its input must
// give us EPIPE, not kill the orchestrator. A SIGPIPE raised here is consumed before unblocking.
ssize_t write_without_sigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_set, old_mask, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigpending(&pending);
  bool already_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
  ssize_t n = ::write(fd, data, size);
  int saved = errno;
  if (n < 0 && saved == EPIPE && !already_pending) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  errno = saved;
  return n;
}

// Reads what is available into `into` (up to `max` bytes kept); closes `fd` at end of file.
void drain(Fd& fd, std::string& into, size_t max) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      if (into.size() < max) into.append(buf, std::min(static_cast<size_t>(n), max - into.size()));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    fd.reset();  // EOF or a read error: nothing more will come
    return;
  }
}

void kill_group(pid_t pid) {
  // The group may already be gone; killing the leader too covers a failed setpgid.
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

}  // namespace

std::filesystem::path own_executable() {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p;
}

std::vector<char*> c_array(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

SpawnAttributes::SpawnAttributes() {
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
}

SpawnAttributes::~SpawnAttributes() {
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
}

void SpawnAttributes::default_signals(short flags) {
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, static_cast<short>(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | flags));
}

int shell_exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

RunResult run_program(const std::vector<std::string>& argv, const RunOptions& options) {
  if (argv.empty() || argv[0].empty()) throw Error("cannot run an empty command");
  const bool merged = options.output == Output::merged;

  Pipe out = make_pipe();
  Pipe err;
  if (!merged) err = make_pipe();
  Pipe in;
  if (!options.stdin_data.empty()) {
    in = make_pipe();
  } else {
    in.read = Fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!in.read.open()) throw Error(std::string("/dev/null: ") + std::strerror(errno));
  }

  SpawnAttributes setup;
  posix_spawn_file_actions_adddup2(&setup.actions, in.read.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, out.write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, merged ? out.write.get() : err.write.get(), STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  // Descriptors opened elsewhere without O_CLOEXEC (databases, sockets) stay ours.
  posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3);
#endif
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&setup.actions, options.cwd.c_str());
  posix_spawnattr_setpgroup(&setup.attr, 0);
  setup.default_signals(POSIX_SPAWN_SETPGROUP);

  std::vector<char*> cargv = c_array(argv);
  RunResult result;
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &setup.actions, &setup.attr, cargv.data(), environ);
  if (rc == ENOENT || rc == EACCES || rc == ENOEXEC || rc == EISDIR) {
    result.start_error = rc;
    return result;
  }
  if (rc != 0) throw Error("cannot start " + argv[0] + ": " + std::strerror(rc));

  // Only the child keeps these ends; holding them would hide the child's end of file.
  in.read.reset();
  out.write.reset();
  err.write.reset();
  set_nonblocking(out.read.get());
  if (err.read.open()) set_nonblocking(err.read.get());
  if (in.write.open()) set_nonblocking(in.write.get());

  const std::string& input = options.stdin_data;
  const auto deadline = Clock::now() + options.timeout;
  const bool until_exit = options.until == Until::exited;
  size_t written = 0;
  int status = 0;
  bool reaped = false, lost = false;

  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      kill_group(pid);
      result.timed_out = true;
      break;
    }
    bool pipes_open = out.read.open() || err.read.open() || in.write.open();
    if (!pipes_open || until_exit) {
      // Output closed (or not waited for), but the child may still run: wait for it, but never
      // past the deadline.
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid || (w < 0 && errno != EINTR)) {
        reaped = w == pid;
        lost = !reaped;  // reaped by someone else (a SIGCHLD handler): status unknown
        break;
      }
    }
    if (!pipes_open) {
      std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(10)));
      continue;
    }

    pollfd fds[3];
    nfds_t n = 0;
    auto watch = [&](const Fd& fd, short events) {
      if (fd.open()) fds[n++] = pollfd{fd.get(), events, 0};
    };
    watch(out.read, POLLIN);
    watch(err.read, POLLIN);
    watch(in.write, POLLOUT);
    // Short slices when waiting for the exit: a background process may keep the pipes open.
    int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left.count(), until_exit ? 100 : 1000)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      kill_group(pid);
      ::waitpid(pid, &status, 0);
      throw Error(std::string("poll: ") + std::strerror(e));
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == out.read.get()) {
        drain(out.read, result.out, options.max_output);
      } else if (fds[i].fd == err.read.get()) {
        drain(err.read, result.err, options.max_output);
      } else if (fds[i].fd == in.write.get()) {
        if (fds[i].revents & (POLLERR | POLLHUP)) {
          in.write.reset();  // the child closed its stdin; the rest of the input is not wanted
          continue;
        }
        ssize_t w = write_without_sigpipe(in.write.get(), input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input.size())
          in.write.reset();  // closing signals end of input
      }
    }
  }

  if (!reaped && !lost) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (until_exit && !result.timed_out) {
    // What the child wrote before it exited, without waiting for what it left running.
    if (out.read.open()) drain(out.read, result.out, options.max_output);
    if (err.read.open()) drain(err.read, result.err, options.max_output);
  }
  if (!lost) result.status = status;
  return result;
}

}  // namespace campaign
