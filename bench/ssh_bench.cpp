// Small remote commands over one SshShell session vs one fresh `ssh` process each, against a
// throwaway loopback sshd (tests/ssh/start-sshd.sh): the same number of commands each way, both
// timed whole. Prints both rates and their ratio. Target (issue 5): at least 10x faster over one
// session. The test sshd spares each command the remote rc files (SetEnv SHLVL=1), which a real
// login node runs for every command on both sides: the ratio is this setup's, not a login node's.
//
// Usage: ssh_bench [commands=50]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "ssh/ssh_shell.hpp"
#include "targets.hpp"
#include "transport/local_shell.hpp"

using namespace campaign;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string script(const char* name) { return std::string(CAMPAIGN_SOURCE_DIR) + "/tests/ssh/" + name; }

// Stops the servers and removes their directory however main() ends.
struct Servers {
  fs::path dir;
  std::map<std::string, std::string> env;
  ~Servers() {
    transport::LocalShell local;
    local.run({"bash", script("stop-sshd.sh"), dir.string()});
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Small remote commands over one SshShell session vs one fresh `ssh` process each, the same number "
      "each way, against a throwaway loopback sshd; prints both rates and their ratio"};
  int commands = 50;
  app.add_option("commands", commands, "Commands timed each way")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  Servers servers;
  servers.dir = fs::temp_directory_path() / ("campaign-ssh-bench-" + std::to_string(::getpid()));
  transport::LocalShell local;
  auto started = local.run({"bash", script("start-sshd.sh"), servers.dir.string()}, std::chrono::seconds(60));
  if (started.exit_code != 0) {
    std::fprintf(stderr, "ssh_bench: cannot start sshd: %s", started.err.c_str());
    return 1;
  }
  std::istringstream lines(started.out);
  for (std::string line; std::getline(lines, line);)
    if (auto eq = line.find('='); eq != std::string::npos)
      servers.env[line.substr(0, eq)] = line.substr(eq + 1);
  const std::string port = servers.env["SSHD_PORT"], user = servers.env["SSH_USER"];

  ssh::SshOptions options;
  options.host = "127.0.0.1";
  options.port = std::stoi(port);
  options.user = user;
  options.identity = servers.env["IDENTITY"];
  options.known_hosts = servers.env["KNOWN_HOSTS"];

  // One session, many channels.
  ssh::SshShell shell(options);
  auto t0 = Clock::now();
  shell.connect();
  const double connect_s = seconds_since(t0);
  t0 = Clock::now();
  for (int i = 0; i < commands; ++i) {
    if (!shell.run({"true"}).ok()) {
      std::fprintf(stderr, "ssh_bench: `true` failed over the session\n");
      return 1;
    }
  }
  const double session_s = seconds_since(t0);

  // One process, handshake and authentication per command.
  const std::vector<std::string> ssh_argv = {"ssh",
                                             "-F",
                                             "/dev/null",
                                             "-o",
                                             "BatchMode=yes",
                                             "-o",
                                             "StrictHostKeyChecking=yes",
                                             "-o",
                                             "UserKnownHostsFile=" + options.known_hosts,
                                             "-o",
                                             "IdentitiesOnly=yes",
                                             "-i",
                                             options.identity,
                                             "-p",
                                             port,
                                             user + "@127.0.0.1",
                                             "true"};
  t0 = Clock::now();
  for (int i = 0; i < commands; ++i) {
    auto r = local.run(ssh_argv, std::chrono::seconds(60));
    if (!r.ok()) {
      std::fprintf(stderr, "ssh_bench: fresh ssh failed (exit %d): %s", r.exit_code, r.err.c_str());
      return 1;
    }
  }
  const double fresh_s = seconds_since(t0);

  std::printf("ssh_bench: loopback sshd, remote command `true`, %d commands each way\n", commands);
  std::printf(
      "  one SshShell session:  %.2f s = %.1f commands/s (%.1f ms each; connect %.0f ms, not counted)\n",
      session_s, commands / session_s, session_s / commands * 1e3, connect_s * 1e3);
  std::printf("  fresh ssh per command: %.2f s = %.1f commands/s (%.1f ms each)\n", fresh_s,
              commands / fresh_s, fresh_s / commands * 1e3);
  bench::target("one session vs a fresh ssh per command, speed-up", fresh_s / session_s, bench::Op::at_least,
                10, "x");
  return 0;
}
