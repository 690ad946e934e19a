// The built-in launcher: posix_spawnp per rank, one poll loop over a signalfd (SIGINT, SIGTERM,
// SIGCHLD) and, with labels, the ranks' output pipes.
//
// Not util/process.hpp's run_program: that runs one child to completion, while the launcher runs N
// ranks at once, relays their output live, forwards signals to all and stops the rest when one
// fails. It shares the spawn attributes, argv/envp arrays and exit status decoding.
#include "local/launch.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "local/process.hpp"
#include "resource/detect.hpp"
#include "resource/model.hpp"
#include "util/process.hpp"
#include "util/signal_block.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace campaign::local {

namespace {

using Clock = std::chrono::steady_clock;

// Variables the launcher sets for each rank; inherited values are dropped.
const char* const kRankVars[] = {"RANK",          "WORLD_SIZE",   "LOCAL_RANK",   "LOCAL_WORLD_SIZE",
                                 "MASTER_ADDR",   "MASTER_PORT",  "SLURM_PROCID", "SLURM_NTASKS",
                                 "SLURM_LOCALID", "SLURM_NNODES", "SLURM_NODEID"};

bool is_rank_var(std::string_view kv) {
  for (const char* name : kRankVars) {
    std::string_view n(name);
    if (kv.size() > n.size() && kv.substr(0, n.size()) == n && kv[n.size()] == '=') return true;
  }
  return false;
}

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;  // our own output is gone: nothing better to do than drop it
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// One output stream of one rank, relayed line by line with its label.
struct Stream {
  Fd fd;
  int target = STDOUT_FILENO;
  std::string partial;

  void relay(const std::string& label, bool at_end) {
    char buf[65536];
    for (;;) {
      ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        partial.append(buf, static_cast<size_t>(n));
        emit_lines(label);
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        fd.reset();
        at_end = true;
      }
      break;
    }
    if (at_end && !partial.empty()) {
      partial += '\n';  // an unterminated last line still gets its own line
      emit_lines(label);
    }
  }

  void emit_lines(const std::string& label) {
    size_t start = 0;
    std::string out;
    for (size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1) {
      out += label;
      out.append(partial, start, nl + 1 - start);
    }
    partial.erase(0, start);
    write_all(target, out.data(), out.size());  // one write per batch: whole lines
  }
};

struct Rank {
  pid_t pid = -1;
  bool running = false;
  bool told = false;  // sent SIGTERM or SIGINT already: a second one could run its trap twice
  Stream out, err;
};

std::pair<Fd, Fd> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw LaunchError(std::string("pipe: ") + std::strerror(errno));
  return {Fd(fds[0]), Fd(fds[1])};
}

}  // namespace

int free_tcp_port() {
  Fd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock.open()) throw LaunchError(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw LaunchError(std::string("cannot find a free port on 127.0.0.1: ") + std::strerror(errno));
  return ntohs(addr.sin_port);
}

int launch(int ranks, const std::vector<std::string>& argv, const LaunchOptions& options) {
  if (ranks < 1) throw LaunchError("launch: the number of ranks must be at least 1");
  if (argv.empty() || argv[0].empty()) throw LaunchError("launch: no command to run");

  const char* preset_port = std::getenv("MASTER_PORT");
  std::string port = preset_port && *preset_port ? preset_port : std::to_string(free_tcp_port());
  // The job's GPUs (the local executor names them), each rank shown its own (resource::rank_gpus).
  std::string gpu_var;
  std::vector<std::string> gpu_ids;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    gpu_var = name;
    for (const std::string& id : split(v, ',')) gpu_ids.push_back(trim(id));
    break;
  }
  std::vector<std::string> base_env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (is_rank_var(*e)) continue;
    if (!gpu_var.empty() && starts_with(std::string_view(*e), gpu_var + "=")) continue;
    base_env.emplace_back(*e);
  }

  SignalFd sigfd({SIGINT, SIGTERM, SIGCHLD});

  std::vector<Rank> rs(static_cast<size_t>(ranks));
  int first_failure = 0;
  // Once ranks were told to stop, SIGKILL is due at kill_at.
  bool kill_due = false, killed = false;
  Clock::time_point kill_at{};
  // Each rank is told to stop once (SIGTERM or SIGINT, as the launcher got it, or SIGTERM when a rank
  // failed), then killed after the grace.
  auto stop_all = [&](int sig) {
    for (auto& r : rs) {
      if (!r.running || (sig != SIGKILL && r.told)) continue;
      ::kill(r.pid, sig);
      r.told = true;
    }
    if (sig != SIGKILL && !kill_due && !killed) {
      kill_due = true;
      kill_at = Clock::now() + options.kill_grace;
    }
  };
  auto fail = [&](int code) {
    if (code == 0 || first_failure != 0) return;
    first_failure = code;
    stop_all(SIGTERM);
  };

  // Each rank on its share of our CPUs (the local executor pinned the job to its cores), as srun
  // --cpu-bind=cores would: a rank inherits the mask we hold while spawning it.
  const std::vector<int> cpus = resource::usable_cpus();
  const size_t share =
      cpus.size() >= static_cast<size_t>(ranks) ? cpus.size() / static_cast<size_t>(ranks) : 0;
  auto bind_to = [&](size_t first, size_t count) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (size_t k = first; k < first + count && k < cpus.size(); ++k) CPU_SET(cpus[k], &set);
    ::sched_setaffinity(0, sizeof set, &set);
  };

  for (int i = 0; i < ranks && first_failure == 0; ++i) {
    Rank& r = rs[static_cast<size_t>(i)];
    if (share > 0 && ranks > 1) bind_to(static_cast<size_t>(i) * share, share);
    std::vector<std::string> env = base_env;
    auto set = [&](const char* name, const std::string& value) {
      env.push_back(std::string(name) + "=" + value);
    };
    set("RANK", std::to_string(i));
    set("WORLD_SIZE", std::to_string(ranks));
    set("LOCAL_RANK", std::to_string(i));
    set("LOCAL_WORLD_SIZE", std::to_string(ranks));
    set("MASTER_ADDR", "127.0.0.1");
    set("MASTER_PORT", port);
    set("SLURM_PROCID", std::to_string(i));
    set("SLURM_NTASKS", std::to_string(ranks));
    set("SLURM_LOCALID", std::to_string(i));
    set("SLURM_NNODES", "1");
    set("SLURM_NODEID", "0");
    if (!gpu_var.empty()) {
      std::vector<std::string> mine;
      for (long g : resource::rank_gpus(i, ranks, static_cast<long>(gpu_ids.size())))
        mine.push_back(gpu_ids[static_cast<size_t>(g)]);
      set(gpu_var.c_str(), join(mine, ","));
    }
    std::vector<char*> cenv = c_array(env), cargv = c_array(argv);

    SpawnAttributes sa;
    Fd out_write, err_write;
    if (options.label) {
      std::tie(r.out.fd, out_write) = make_pipe();
      std::tie(r.err.fd, err_write) = make_pipe();
      r.err.target = STDERR_FILENO;
      posix_spawn_file_actions_adddup2(&sa.actions, out_write.get(), STDOUT_FILENO);
      posix_spawn_file_actions_adddup2(&sa.actions, err_write.get(), STDERR_FILENO);
    }
    sa.default_signals();

    int rc = ::posix_spawnp(&r.pid, argv[0].c_str(), &sa.actions, &sa.attr, cargv.data(), cenv.data());
    if (rc != 0) {
      std::string msg = "campaign launch: cannot run " + argv[0] + ": " + std::strerror(rc) + "\n";
      write_all(STDERR_FILENO, msg.data(), msg.size());
      r.out.fd.reset();
      r.err.fd.reset();
      fail(rc == ENOENT ? 127 : 126);
      break;
    }
    r.running = true;
    for (Stream* s : {&r.out, &r.err}) {
      if (s->fd.open()) ::fcntl(s->fd.get(), F_SETFL, ::fcntl(s->fd.get(), F_GETFL) | O_NONBLOCK);
    }
  }

  if (share > 0 && ranks > 1) bind_to(0, cpus.size());  // the launcher itself: all of them again

  auto any_running = [&] {
    for (const auto& r : rs) {
      if (r.running) return true;
    }
    return false;
  };
  while (any_running()) {
    std::vector<pollfd> fds{{sigfd.get(), POLLIN, 0}};
    std::vector<std::pair<Stream*, size_t>> streams;
    for (size_t i = 0; i < rs.size(); ++i) {
      for (Stream* s : {&rs[i].out, &rs[i].err}) {
        if (!s->fd.open()) continue;
        streams.emplace_back(s, i);
        fds.push_back({s->fd.get(), POLLIN, 0});
      }
    }
    // Also a periodic look at the ranks, for a SIGCHLD that another thread took.
    int timeout_ms = 200;
    if (kill_due) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, timeout_ms));
    }
    int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) throw LaunchError(std::string("poll: ") + std::strerror(errno));

    if (ready > 0 && fds[0].revents != 0) {
      signalfd_siginfo si;
      while (::read(sigfd.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) stop_all(static_cast<int>(si.ssi_signo));
      }
    }
    for (size_t k = 0; ready > 0 && k < streams.size(); ++k) {
      if (fds[k + 1].revents != 0) streams[k].first->relay(std::to_string(streams[k].second) + ": ", false);
    }
    for (auto& r : rs) {
      if (!r.running) continue;
      int status = 0;
      pid_t w = ::waitpid(r.pid, &status, WNOHANG);
      if (w == r.pid || (w < 0 && errno == ECHILD)) {
        r.running = false;
        fail(w == r.pid ? shell_exit_code(status) : 255);
      }
    }
    if (kill_due && Clock::now() >= kill_at) {
      stop_all(SIGKILL);
      kill_due = false;
      killed = true;
    }
  }

  // What the ranks wrote last; a background process that keeps a pipe open is not waited for.
  for (size_t i = 0; i < rs.size(); ++i) {
    for (Stream* s : {&rs[i].out, &rs[i].err}) {
      if (s->fd.open()) s->relay(std::to_string(i) + ": ", true);
    }
  }
  return first_failure;
}

}  // namespace campaign::local
