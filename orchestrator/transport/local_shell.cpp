// LocalShell: processes started with posix_spawnp and watched with poll(2).
//
// Both output pipes are drained while stdin is written, so a child that prints a lot before reading
// (or never reads) cannot deadlock us. The child leads its own process group so that a timeout
// kills whatever it started too, and so that a Ctrl-C meant for the orchestrator does not reach
// scheduler commands half-way through.
#include "transport/local_shell.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include "util/fd.hpp"

extern char** environ;

namespace campaign::transport {

namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  Fd read, write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw TransportError(std::string("pipe: ") + std::strerror(errno));
  return {Fd(fds[0]), Fd(fds[1])};
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw TransportError(std::string("fcntl: ") + std::strerror(errno));
}

// RAII for the posix_spawn attribute objects.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

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

// Reads what is available; closes `fd` at end of file.
void drain(Fd& fd, std::string& into) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    fd.reset();  // EOF or a read error: nothing more will come
    return;
  }
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

void kill_group(pid_t pid) {
  // The group may already be gone; killing the leader too covers a failed setpgid.
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

}  // namespace

CommandResult LocalShell::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                              const std::string& stdin_data) {
  if (argv.empty() || argv[0].empty()) throw TransportError("cannot run an empty command");

  Pipe out = make_pipe();
  Pipe err = make_pipe();
  Pipe in;
  if (!stdin_data.empty()) {
    in = make_pipe();
  } else {
    in.read = Fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!in.read.open()) throw TransportError(std::string("/dev/null: ") + std::strerror(errno));
  }

  SpawnSetup setup;
  posix_spawn_file_actions_adddup2(&setup.actions, in.read.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, out.write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, err.write.get(), STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  // Descriptors opened elsewhere without O_CLOEXEC (databases, sockets) stay ours.
  posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3);
#endif
  sigset_t no_signals, all_signals;
  sigemptyset(&no_signals);
  sigfillset(&all_signals);
  posix_spawnattr_setsigmask(&setup.attr, &no_signals);
  posix_spawnattr_setsigdefault(&setup.attr, &all_signals);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setflags(&setup.attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &setup.actions, &setup.attr, cargv.data(), environ);
  if (rc == ENOENT) return {127, "", argv[0] + ": command not found (not in PATH on this machine)\n"};
  if (rc == EACCES || rc == ENOEXEC || rc == EISDIR)
    return {126, "", argv[0] + ": cannot execute: " + std::strerror(rc) + "\n"};
  if (rc != 0) throw TransportError("cannot start " + argv[0] + ": " + std::strerror(rc));

  // Only the child keeps these ends; holding them would hide the child's end of file.
  in.read.reset();
  out.write.reset();
  err.write.reset();
  set_nonblocking(out.read.get());
  set_nonblocking(err.read.get());
  if (in.write.open()) set_nonblocking(in.write.get());

  CommandResult result;
  const auto deadline = Clock::now() + timeout;
  size_t written = 0;
  int status = 0;
  bool reaped = false;

  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      kill_group(pid);
      result.timed_out = true;
      break;
    }
    bool pipes_open = out.read.open() || err.read.open() || in.write.open();
    if (!pipes_open) {
      // The child closed its output but may still run: wait for it, but never past the deadline.
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid || (w < 0 && errno != EINTR)) {
        reaped = w == pid;
        break;
      }
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
    int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      kill_group(pid);
      ::waitpid(pid, &status, 0);
      throw TransportError(std::string("poll: ") + std::strerror(errno));
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == out.read.get()) {
        drain(out.read, result.out);
      } else if (fds[i].fd == err.read.get()) {
        drain(err.read, result.err);
      } else if (fds[i].fd == in.write.get()) {
        if (fds[i].revents & (POLLERR | POLLHUP)) {
          in.write.reset();  // the child closed its stdin; the rest of the input is not wanted
          continue;
        }
        ssize_t w =
            write_without_sigpipe(in.write.get(), stdin_data.data() + written, stdin_data.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == stdin_data.size())
          in.write.reset();  // closing signals end of input
      }
    }
  }

  if (!reaped) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  result.exit_code = decode_status(status);
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
