// The pack driver: posix_spawn per case, one poll loop over a signalfd (SIGINT, SIGTERM, SIGCHLD),
// like the built-in launcher (local/launch.cpp), but with node slots instead of ranks.
#include "pack/driver.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pack/case_lock.hpp"
#include "pack/slots.hpp"
#include "render/script.hpp"
#include "resource/detect.hpp"
#include "sched/launchers.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/process.hpp"
#include "util/signal_block.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

namespace campaign::pack {

std::string to_json(const StartMarker& m) {
  json placement = json::array();
  for (auto& slice : m.placement)
    placement.push_back({{"node", slice.node}, {"cores", slice.cores}, {"gpus", slice.gpus}});
  json j = {{"allocation", m.allocation}, {"job_name", m.job_name}, {"time", m.time},
            {"nodes", m.nodes},           {"slots", m.slots},       {"placement", placement},
            {"launched", m.launched}};
  return j.dump() + "\n";
}

std::optional<StartMarker> parse_start_marker(const std::string& text) {
  try {
    json j = json::parse(text);
    StartMarker m;
    m.allocation = j.at("allocation").get<std::string>();
    m.job_name = j.at("job_name").get<std::string>();
    m.time = j.at("time").get<double>();
    m.nodes = j.at("nodes").get<std::vector<std::string>>();
    m.slots = j.at("slots").get<std::vector<size_t>>();
    m.launched = j.value("launched", true);
    if (j.contains("placement")) {
      for (auto& slice : j["placement"])
        m.placement.push_back({slice.at("node").get<size_t>(), slice.at("cores").get<std::vector<long>>(),
                               slice.at("gpus").get<std::vector<long>>()});
    } else {
      for (size_t k : m.slots) m.placement.push_back({k, {}, {}});
    }
    return m;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<StartMarker> read_start_marker(const fs::path& run_dir) {
  std::ifstream in(run_dir / kStartMarker);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return parse_start_marker(text.str());
}

namespace {

using Clock = std::chrono::steady_clock;

enum class Phase { waiting, running, held, done };  // held: started by an earlier driver, maybe running

struct Running {
  pid_t pid = -1;  // also its process group
  Clock::time_point since;
  resource::Placement placement;
  double until = 0;         // held: Unix time its walltime ends
  bool lock_known = false;  // held: its lock tells when its processes have ended (pack/case_lock.hpp)
};

// Held cases end with their exit marker, the end of their processes where the lock tells it, else
// their walltime.
bool held_over(const PackedCase& c, const Running& r, double now) {
  std::error_code ec;
  if (fs::exists(c.run_dir / render::kExitMarker, ec)) return true;
  return r.lock_known ? case_life(c.run_dir) != CaseLife::running : now >= r.until;
}

// Crash tests: the driver dies (as kill -9 would) between a case's start marker and its launch, once,
// when the file CAMPAIGN_TEST_PACK_CRASH names exists (it is removed first).
void crash_before_launch() {
  const char* token = std::getenv("CAMPAIGN_TEST_PACK_CRASH");
  if (token && *token && ::unlink(token) == 0) std::_Exit(137);
}

// Our environment without CAMPAIGN_NODES, the GPU variable the driver sets, to which each case
// adds its own, and the allocation's GPU requests (sched::kAllocationGpuVariables).
std::vector<std::string> base_environment(const std::string& gpu_variable) {
  std::vector<std::string> drop{std::string(sched::kNodesVariable) + "="};
  for (const char* v : sched::kAllocationGpuVariables) drop.push_back(std::string(v) + "=");
  if (!gpu_variable.empty()) drop.push_back(gpu_variable + "=");
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::none_of(drop.begin(), drop.end(), [&](const std::string& p) { return starts_with(*e, p); }))
      env.emplace_back(*e);
  return env;
}

// `bash SCRIPT` in its own process group, output appended to `output`, stdin from /dev/null.
pid_t spawn_case(const PackedCase& c, std::vector<std::string> env) {
  std::vector<std::string> argv{"bash", c.script.string()};
  std::vector<char*> cargv = c_array(argv), cenv = c_array(env);
  SpawnAttributes sa;
  std::string out = case_output(c).string();
  posix_spawn_file_actions_addopen(&sa.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&sa.actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&sa.actions, STDOUT_FILENO, STDERR_FILENO);
  sa.default_signals(POSIX_SPAWN_SETPGROUP);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, "bash", &sa.actions, &sa.attr, cargv.data(), cenv.data());
  if (rc != 0) throw Error("cannot start bash " + c.script.string() + ": " + std::strerror(rc));
  return pid;
}

double unix_time() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
}

// The GPU ids the driver hands out (when it binds GPUs itself), by index on a node: the ones this
// allocation sees (the local executor names them in CUDA_VISIBLE_DEVICES).
resource::Gpus gpus_to_bind(const Allocation& a) {
  bool any = false;
  for (auto& c : a.cases) any |= c.demand.gpus > 0 || c.demand.exclusive;
  if (!a.driver_binds_gpus || !any) return {};
  return resource::detect_gpus();
}

}  // namespace

int run_allocation(const Allocation& a, const DriverOptions& options) {
  std::ostream& log = options.log ? *options.log : std::cout;
  const Clock::time_point t0 = Clock::now();
  auto say = [&](const std::string& line) {
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    log << "pack-exec [" << std::fixed << std::setprecision(1) << std::setw(7) << s << "s] " << line
        << std::endl;
  };

  size_t n_nodes = options.nodes.empty() ? static_cast<size_t>(a.nodes) : options.nodes.size();
  if (!options.nodes.empty() && options.nodes.size() != static_cast<size_t>(a.nodes))
    say("warning: " + std::to_string(options.nodes.size()) + " nodes given, the manifest says " +
        std::to_string(a.nodes));

  SignalFd sigfd({SIGINT, SIGTERM, SIGCHLD});

  const size_t n = a.cases.size();
  std::vector<Phase> phase(n, Phase::waiting);
  std::vector<Running> running(n);
  std::vector<resource::Demand> demands(n);
  resource::Pool pool(n_nodes, a.node);
  for (size_t i = 0; i < n; ++i) {
    demands[i] = a.cases[i].demand;
    // A restarted driver (same allocation) never starts a case twice: one whose processes may still
    // run keeps what it was given; one its start marker names but that never ran (the driver before
    // ended between the marker and the launch) starts now.
    auto m = read_start_marker(a.cases[i].run_dir);
    if (!m || m->allocation != a.job_name) continue;
    std::error_code ec;
    const bool exited = fs::exists(a.cases[i].run_dir / render::kExitMarker, ec);
    const CaseLife life = exited ? CaseLife::ended : case_life(a.cases[i].run_dir);
    if (!exited && life == CaseLife::ended && !m->launched &&
        !script_started_since(a.cases[i].run_dir, m->time)) {
      say("start again " + a.cases[i].case_name + ": its start marker was written, its script never ran");
      continue;
    }
    const double until = m->time + static_cast<double>(a.cases[i].walltime_s);
    if (!exited && (life == CaseLife::running || (life == CaseLife::unknown && until > unix_time()))) {
      try {
        pool.take(demands[i], m->placement);
        phase[i] = Phase::held;
        running[i].placement = m->placement;
        running[i].until = until;
        running[i].lock_known = life == CaseLife::running;
        say("hold " + a.cases[i].case_name + ": started in this allocation, " +
            (life == CaseLife::running ? "its processes still run" : "no exit marker yet"));
        continue;
      } catch (const std::logic_error&) {
        // Its marker names what is not there to hold (another manifest's nodes): nothing to keep.
      }
    }
    phase[i] = Phase::done;
    say("skip " + a.cases[i].case_name + ": already started in this allocation");
  }
  say("allocation " + a.job_name + ": " + std::to_string(n) + " cases on " + std::to_string(n_nodes) +
      " nodes of " + std::to_string(a.node.cores) + " cores, " + std::to_string(a.node.gpus) + " GPUs");
  const resource::Gpus gpus = gpus_to_bind(a);
  const std::vector<std::string> env = base_environment(gpus.variable);

  // The cases still waiting now: a case leaves only by starting (held and skipped ones never wait).
  std::vector<bool> waiting(n);
  for (size_t i = 0; i < n; ++i) waiting[i] = phase[i] == Phase::waiting;
  StartQueue queue(demands, waiting);

  bool stopping = false, kill_due = false;
  Clock::time_point kill_at{};
  auto signal_all = [&](int sig) {
    for (size_t i = 0; i < n; ++i)
      if (phase[i] == Phase::running) ::kill(-running[i].pid, sig);
  };
  auto release = [&](size_t i) {
    pool.give_back(demands[i], running[i].placement);
    phase[i] = Phase::done;
  };

  for (;;) {
    if (!stopping) {
      for (auto& s : queue.next(pool)) {
        const PackedCase& c = a.cases[s.case_index];
        StartMarker m{a.job_name, c.job_name, 0, {}, s.nodes(), s.placement, false};
        if (!options.nodes.empty())
          for (size_t k : m.slots) m.nodes.push_back(options.nodes[k]);
        std::string names = join(m.nodes, ",");
        std::vector<std::string> case_env = env;
        if (!names.empty()) case_env.push_back(std::string(sched::kNodesVariable) + "=" + names);
        if (!gpus.variable.empty()) {
          std::vector<std::string> own;
          // An exclusive case holds every GPU of its node but is shown those it asked for (shown_gpus).
          for (auto& slice : s.placement)
            for (long g : resource::shown_gpus(c.demand, slice))
              if (static_cast<size_t>(g) < gpus.ids.size()) own.push_back(gpus.ids[static_cast<size_t>(g)]);
          case_env.push_back(gpus.variable + "=" + join(own, ","));
        }
        Running& r = running[s.case_index];
        r.placement = s.placement;
        try {
          Fd lock = take_case_lock(c.run_dir);  // the script inherits it; ours closes after the spawn
          // A stale exit marker of an earlier attempt must not stand beside the new start marker.
          std::error_code ec;
          fs::remove(c.run_dir / render::kExitMarker, ec);
          m.time = unix_time();
          write_file_atomic(c.run_dir / kStartMarker, to_json(m));
          crash_before_launch();
          r.pid = spawn_case(c, case_env);
        } catch (const Error& e) {
          // Not started, so no start marker: the orchestrator plans it again.
          std::error_code ec;
          fs::remove(c.run_dir / kStartMarker, ec);
          release(s.case_index);
          say("not started: " + c.case_name + ": " + e.what());
          continue;
        }
        r.since = Clock::now();
        phase[s.case_index] = Phase::running;
        try {
          m.launched = true;
          write_file_atomic(c.run_dir / kStartMarker, to_json(m));
        } catch (const Error& e) {
          say("warning: " + c.case_name + ": its start marker does not say it was launched: " + e.what());
        }
        say("start " + c.case_name + " (" + c.job_name + ") on " + std::to_string(c.demand.nodes) +
            " node(s)" + (names.empty() ? "" : " " + names) + ", " + std::to_string(c.demand.cores) +
            " cores and " + std::to_string(c.demand.gpus) + " GPUs per node" +
            (c.demand.exclusive ? ", exclusive" : ""));
      }
    }
    const bool any_running = std::count(phase.begin(), phase.end(), Phase::running) > 0;
    const bool any_held = std::count(phase.begin(), phase.end(), Phase::held) > 0;
    // Nothing more can start when nothing runs or is held: next_starts had room for it. A held case
    // may still run: the allocation must not end under it (its end would cut the case's step).
    if (!any_running && (!any_held || stopping)) break;

    int timeout_ms = 1000;  // also a periodic look, for a SIGCHLD another thread took, and held cases
    if (kill_due) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, timeout_ms));
    }
    pollfd pfd{sigfd.get(), POLLIN, 0};
    int ready = ::poll(&pfd, 1, timeout_ms);
    if (ready < 0 && errno != EINTR) throw Error(std::string("poll: ") + std::strerror(errno));
    signalfd_siginfo si;
    while (::read(sigfd.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
      if ((si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) && !stopping) {
        stopping = true;
        say(std::string("stopping on ") + (si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT") +
            ": nothing more starts, running cases get SIGTERM");
        signal_all(SIGTERM);
        kill_due = true;
        kill_at = Clock::now() + std::chrono::milliseconds(static_cast<long>(a.grace_s * 1000));
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (phase[i] == Phase::held) {
        if (held_over(a.cases[i], running[i], unix_time())) {
          release(i);
          say("end " + a.cases[i].case_name + ": held until " +
              (running[i].lock_known ? "its processes ended" : "its exit marker or walltime"));
        }
        continue;
      }
      if (phase[i] != Phase::running) continue;
      int status = 0;
      pid_t w = ::waitpid(running[i].pid, &status, WNOHANG);
      if (w == 0 || (w < 0 && errno != ECHILD)) continue;
      ::kill(-running[i].pid, SIGKILL);  // what the script left behind must not hold its resources
      release(i);
      double took = std::chrono::duration<double>(Clock::now() - running[i].since).count();
      std::ostringstream line;
      line << "end " << a.cases[i].case_name << ": exit " << (w > 0 ? shell_exit_code(status) : 255)
           << " after " << std::fixed << std::setprecision(1) << took << " s";
      say(line.str());
    }
    if (kill_due && Clock::now() >= kill_at) {
      say("grace over: SIGKILL to the cases still running");
      signal_all(SIGKILL);
      kill_due = false;
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (phase[i] == Phase::waiting)
      say("not started: " + a.cases[i].case_name + (stopping ? "" : " (does not fit the nodes)"));
  return stopping ? 143 : 0;
}

}  // namespace campaign::pack
