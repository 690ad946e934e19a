// Real OpenSSH servers for the SSH transport tests, started with tests/ssh/start-sshd.sh: one shared
// pair (target + jump host) for the whole binary, stopped at exit, plus private ones for tests that
// change a server (new host key, aggressive ClientAlive settings). A missing sshd fails the test
// with the script's message ("install openssh-server"); it never skips.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ssh/ssh_shell.hpp"
#include "transport/local_shell.hpp"

namespace ssh_test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A scratch directory for this test process, removed at exit (after the servers in it stopped).
struct TestRoot {
  fs::path path = fs::temp_directory_path() / ("campaign-ssh-test-" + std::to_string(::getpid()));
  TestRoot() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TestRoot() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

inline const fs::path& test_root() {
  static TestRoot root;
  return root.path;
}

inline std::string script(const char* name) {
  return std::string(CAMPAIGN_SOURCE_DIR) + "/tests/ssh/" + name;
}

inline void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Parent pid of `pid` from /proc, or -1.
inline pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  auto close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 2));
  char state;
  pid_t ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

// Every live process below `root`.
inline std::vector<pid_t> descendants(pid_t root) {
  std::map<pid_t, pid_t> parent;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = std::stoi(name);
    parent[pid] = parent_of(pid);
  }
  std::vector<pid_t> out;
  for (auto [pid, ppid] : parent) {
    for (pid_t p = ppid; p > 1; p = parent.count(p) ? parent[p] : -1) {
      if (p == root) {
        out.push_back(pid);
        break;
      }
    }
  }
  return out;
}

struct Sshd {
  fs::path dir;
  int port = 0, jump_port = 0;
  pid_t pid = 0, jump_pid = 0;
  std::string user, identity, known_hosts;

  // Starts a target and a jump host in `dir`; `extra` holds sshd_config lines for the target.
  Sshd(fs::path d, const std::string& extra = "") : dir(std::move(d)) {
    campaign::transport::LocalShell local;
    auto r =
        local.run({"env", "SSHD_EXTRA_CONFIG=" + extra, "bash", script("start-sshd.sh"), dir.string()}, 60s);
    if (r.exit_code != 0)
      throw std::runtime_error(
          "tests/ssh/start-sshd.sh failed (exit " + std::to_string(r.exit_code) + "): " + r.err +
          (r.exit_code == 3 ? " -- these tests need a real sshd: install openssh-server" : ""));
    std::map<std::string, std::string> env;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      auto eq = line.find('=');
      if (eq != std::string::npos) env[line.substr(0, eq)] = line.substr(eq + 1);
    }
    port = std::stoi(env.at("SSHD_PORT"));
    jump_port = std::stoi(env.at("JUMP_PORT"));
    pid = std::stoi(env.at("SSHD_PID"));
    jump_pid = std::stoi(env.at("JUMP_PID"));
    user = env.at("SSH_USER");
    identity = env.at("IDENTITY");
    known_hosts = env.at("KNOWN_HOSTS");
  }
  ~Sshd() { stop(); }
  Sshd(const Sshd&) = delete;
  Sshd& operator=(const Sshd&) = delete;

  campaign::ssh::SshOptions options() const {
    campaign::ssh::SshOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    o.user = user;
    o.identity = identity;
    o.known_hosts = known_hosts;
    o.connect_timeout = 10s;
    o.reconnect_backoff = 100ms;
    return o;
  }

  // The target gets a new host key (same port).
  void rekey() {
    campaign::transport::LocalShell local;
    auto r = local.run({"bash", script("start-sshd.sh"), dir.string(), "--rekey"}, 30s);
    if (r.exit_code != 0) throw std::runtime_error("rekey failed: " + r.err);
  }

  // Stops both servers (listeners and connections), as a reboot of the login node would.
  void stop() {
    campaign::transport::LocalShell local;
    local.run({"bash", script("stop-sshd.sh"), dir.string()}, 30s);
  }
  // Starts the target again after stop(), on the same port with the same keys.
  void restart() {
    campaign::transport::LocalShell local;
    auto r = local.run({"bash", script("start-sshd.sh"), dir.string(), "--restart"}, 30s);
    if (r.exit_code != 0) throw std::runtime_error("restart failed: " + r.err);
  }

  // Whether a process below `listener` runs `argv`.
  static bool runs(pid_t listener, const std::vector<std::string>& argv) {
    std::string want;
    for (const auto& a : argv) want += a + '\0';
    for (pid_t p : descendants(listener))
      if (slurp("/proc/" + std::to_string(p) + "/cmdline") == want) return true;
    return false;
  }

  // SIGKILLs the per-connection processes of `listener` (and what they run): the link drops as if
  // the network or the login node went away, while the listener keeps accepting.
  static void kill_connections(pid_t listener) {
    auto victims = descendants(listener);
    for (pid_t p : victims) ::kill(p, SIGKILL);
    for (int i = 0; i < 200 && !descendants(listener).empty(); ++i) std::this_thread::sleep_for(10ms);
  }
};

// The shared servers, started on first use and stopped when the test binary exits.
inline Sshd& sshd() {
  const fs::path& root = test_root();  // first, so that it is removed after the servers stop
  static std::unique_ptr<Sshd> server = std::make_unique<Sshd>(root / "shared");
  return *server;
}

inline size_t open_fds() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace ssh_test
