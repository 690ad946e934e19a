// LocalScheduler: ticks over the spool's records (see local_scheduler.hpp for the rules).
#include "local/local_scheduler.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <exception>

#include "local/admission.hpp"
#include "local/process.hpp"
#include "util/strings.hpp"
#include "util/walltime.hpp"

extern char** environ;

namespace campaign::local {

using sched::JobInfo;
using sched::SubmitError;
using sched::SubmitFailure;
using sched::SubmitRequest;

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The records keep milliseconds since the epoch; 0 is "not yet".
std::optional<sched::Time> time_of(int64_t ms) {
  if (ms <= 0) return std::nullopt;
  return sched::Time(std::chrono::seconds(ms / 1000));
}

std::optional<long> parse_id(const std::string& s) {
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), ::isdigit)) return std::nullopt;
  return std::stol(s);
}

struct Options {
  long walltime_s = 0;
  std::optional<long> cores, gpus, memory_mb;  // unset: not said
  bool exclusive = false;
  bool said() const { return cores || gpus || memory_mb || exclusive; }
};

// Options as --key=value or --key value words, into `o` (a later one wins).
void parse_options(const std::vector<std::string>& args, Options& o) {
  auto invalid = [](const std::string& what) {
    return SubmitError(
        SubmitFailure::invalid,
        "local scheduler: " + what +
            " (known options: --time=SECONDS|HH:MM:SS, --cores=N, --gpus=N, --mem=SIZE, --exclusive)");
  };
  auto count = [&](const std::string& key, const std::string& value, long least) {
    auto n = parse_id(value);
    if (!n || *n < least || *n > 1000000) throw invalid("'" + value + "' is not a count for " + key);
    return *n;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string key = args[i], value;
    auto eq = key.find('=');
    if (starts_with(key, "--") && eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (key == "--time" || key == "-t" || key == "--ntasks" || key == "-n" || key == "--cores" ||
               key == "--gpus" || key == "--mem") {
      if (i + 1 >= args.size()) throw invalid("option " + key + " needs a value");
      value = args[++i];
    }
    if (key == "--time" || key == "-t") {
      std::optional<long> s;
      if (!value.empty() && std::all_of(value.begin(), value.end(), ::isdigit))
        s = std::stol(value);  // seconds, see the header
      else
        s = parse_walltime(value);
      if (!s || *s < 0) throw invalid("'" + value + "' is not a walltime");
      o.walltime_s = *s;
    } else if (key == "--ntasks" || key == "-n" || key == "--cores") {
      o.cores = count(key, value, 1);
    } else if (key == "--gpus") {
      o.gpus = count(key, value, 0);
    } else if (key == "--mem") {
      o.memory_mb = resource::parse_memory_mb(value);
      if (!o.memory_mb) throw invalid("'" + value + "' is not a size for --mem");
    } else if (key == "--exclusive") {
      o.exclusive = true;
    } else {
      throw invalid("unsupported option '" + args[i] + "'");
    }
  }
}

// The script's `#LOCAL ...` lines, as words.
std::vector<std::string> directives_of(const std::string& text) {
  std::vector<std::string> words;
  for (const auto& line : split(text, '\n')) {
    if (!starts_with(line, "#LOCAL ")) continue;
    for (auto& w : split(line.substr(7), ' '))
      if (!w.empty()) words.push_back(w);
  }
  return words;
}

// Ranks of the built-in launcher's line (`... launch [-l] -n N ...`), else 1. A plain scan rather
// than std::regex, whose backtracking recurses once per character of a long line.
long ranks_from_script(const std::string& text) {
  for (const auto& line : split(text, '\n')) {
    auto words = split(line, ' ');
    auto launch = std::find(words.begin(), words.end(), "launch");
    for (auto w = launch; w != words.end() && w + 1 != words.end(); ++w) {
      if (*w == "--") break;  // the command's own options follow
      if (*w != "-n") continue;
      auto n = parse_id(w[1]);
      if (n && *n >= 1 && *n <= 1000000) return *n;
      break;
    }
  }
  return 1;
}

// What a job asks, checked against `machine`; throws SubmitError(invalid).
resource::Demand demand_of(const Options& o, const std::string& script, const resource::Node& machine) {
  resource::Demand d;
  d.exclusive = o.exclusive;
  // An exclusive job that does not say its GPUs asks for all of them (it holds them anyway).
  d.gpus = o.gpus.value_or(o.exclusive ? machine.gpus : 0);
  d.memory_mb = o.memory_mb.value_or(0);
  if (!o.said()) {
    // A script that says nothing: one core per rank of its launcher line, never more than there are.
    d.cores = std::min(ranks_from_script(script), machine.cores);
    return d;
  }
  d.cores = o.cores.value_or(1);
  if (auto fit = resource::fit(machine, d); !fit.fits())
    throw SubmitError(SubmitFailure::invalid,
                      "local scheduler: the job asks for " + fit.why() + " (this machine)");
  return d;
}

enum class Deps { satisfied, waiting, never };

// Binds a waiting job's process to the CPUs of its cores; without known CPUs (a counted machine) or
// when the kernel refuses, it runs unpinned.
void pin(pid_t pid, const std::vector<long>& cores, const std::vector<int>& cpus) {
  if (cpus.empty() || cores.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (long c : cores)
    if (c >= 0 && static_cast<size_t>(c) < cpus.size()) CPU_SET(cpus[static_cast<size_t>(c)], &set);
  ::sched_setaffinity(pid, sizeof set, &set);
}

// The record of job `id`: a live one of `live`, else an ended one; nullptr when there is none.
const JobRecord* find_record(long id, const std::map<long, JobRecord>& live,
                             const std::map<long, JobRecord>& ended) {
  if (auto it = live.find(id); it != live.end()) return &it->second;
  if (auto it = ended.find(id); it != ended.end()) return &it->second;
  return nullptr;
}

Deps dependency_state(const JobRecord& r, const std::map<long, JobRecord>& live,
                      const std::map<long, JobRecord>& ended) {
  Deps result = Deps::satisfied;
  for (long d : r.depends_on) {
    const JobRecord* found = find_record(d, live, ended);
    if (!found) return Deps::never;  // record lost: it cannot complete any more
    const JobRecord& dep = *found;
    if (dep.phase != Phase::ended) {
      result = Deps::waiting;
    } else if (dep.outcome != State::completed) {
      return Deps::never;
    }
  }
  return result;
}

std::string raw_state(const JobRecord& r) {
  switch (r.phase) {
    case Phase::pending:
    case Phase::starting:
      return "PENDING";
    case Phase::running:
      return "RUNNING";
    case Phase::ended:
      break;
  }
  switch (r.outcome) {
    case State::completed:
      return "COMPLETED";
    case State::cancelled:
      return "CANCELLED";
    case State::timeout:
      return "TIMEOUT";
    default:
      return "FAILED";
  }
}

}  // namespace

LocalScheduler::LocalScheduler(LocalOptions options) : options_(std::move(options)), spool_(options_.spool) {
  if (options_.cores > 0) {
    machine_.cores = options_.cores;
  } else {
    cpus_ = resource::usable_cpus();
    machine_.cores = static_cast<long>(cpus_.size());
  }
  gpus_ = options_.gpus ? *options_.gpus : resource::detect_gpus();
  machine_.gpus = static_cast<long>(gpus_.ids.size());
  machine_.memory_mb = options_.memory_mb ? *options_.memory_mb : resource::memory_mb();
  std::error_code ec;
  std::filesystem::create_directories(spool_.jobs(), ec);
  if (ec) throw Error("cannot create the local spool " + spool_.jobs().string() + ": " + ec.message());
  lock_fd_.reset(::open(spool_.lock().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!lock_fd_.open()) throw Error("cannot open " + spool_.lock().string() + ": " + std::strerror(errno));
  char host[256] = {};
  host_ = ::gethostname(host, sizeof host - 1) == 0 ? host : "localhost";
  // A broken installation stops the command here, not at each job's start, where it would read as
  // a passing trouble and be tried again in silence.
  if (options_.start_jobs) monitor_program();
}

namespace {

// Marks the copy of the live records invalid when its scope is left by an exception: the copy
// may then differ from the files (a record changed in memory whose save failed).
class CopyGuard {
 public:
  explicit CopyGuard(bool& valid) : valid_(valid), exceptions_(std::uncaught_exceptions()) {}
  ~CopyGuard() {
    if (std::uncaught_exceptions() > exceptions_) valid_ = false;
  }
  CopyGuard(const CopyGuard&) = delete;
  CopyGuard& operator=(const CopyGuard&) = delete;

 private:
  bool& valid_;
  int exceptions_;
};

// The spool's generation: 0 when the file is missing (a new spool, or one of an older campaign).
long spool_generation(const Spool& spool) {
  std::optional<std::string> text;
  try {
    text = read_small_file(spool.generation());
  } catch (const Error& e) {
    throw sched::SchedulerUnavailable(e.what());
  }
  return text ? parse_id(trim(*text)).value_or(-1) : 0;
}

}  // namespace

LocalScheduler::Records& LocalScheduler::load() {
  const long generation = spool_generation(spool_);
  if (copy_valid_ && generation == generation_) {
    // No record written since this object last read or wrote them: its copy is the spool's.
    for (long id : ended_since_load_) live_records_.erase(id);
    ended_since_load_.clear();
    return live_records_;
  }
  ended_since_load_.clear();
  copy_valid_ = false;
  // The ids to read: those live at the last load, and those given since (ids are handed out in
  // order under the lock, the counter written before the record); every record once, by listing
  // the spool, at the first load. Ended records never change: read once, kept in ended_.
  std::set<long> ids;
  for (const auto& [id, r] : live_records_) ids.insert(id);
  if (!listed_) {
    std::error_code ec;
    std::filesystem::directory_iterator it(spool_.jobs(), ec), end;
    if (ec) throw sched::SchedulerUnavailable("cannot list " + spool_.jobs().string() + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
      std::string file = it->path().filename().string();
      if (!ends_with(file, ".json")) continue;
      if (auto id = parse_id(file.substr(0, file.size() - 5))) ids.insert(*id);  // not temporaries
    }
    if (ec) throw sched::SchedulerUnavailable("cannot list " + spool_.jobs().string() + ": " + ec.message());
  } else {
    std::optional<std::string> counter;
    try {
      counter = read_small_file(spool_.counter());
    } catch (const Error& e) {
      throw sched::SchedulerUnavailable(e.what());
    }
    const long next = counter ? parse_id(trim(*counter)).value_or(0) : 0;
    for (long id = highest_ + 1; id < next; ++id) ids.insert(id);
  }
  Records all;
  for (long id : ids) {
    highest_ = std::max(highest_, id);
    if (ended_.count(id)) continue;
    std::optional<std::string> text;
    try {
      text = read_small_file(spool_.record(id));
    } catch (const Error& e) {
      throw sched::SchedulerUnavailable(e.what());
    }
    if (!text) continue;  // removed meanwhile, or never written (a crash after the counter)
    auto r = record_from_json(*text);
    if (!r || r->id != id) continue;  // not ours to interpret: the job is unknown, as under Slurm
    if (r->phase == Phase::ended)
      ended_.emplace(id, std::move(*r));
    else
      all.emplace(id, std::move(*r));
  }
  listed_ = true;
  live_records_ = std::move(all);
  started_.clear();
  for (const auto& [id, r] : live_records_)
    if (r.phase == Phase::starting || r.phase == Phase::running) started_.insert(id);
  waiting_changed_ = true;
  generation_ = generation;
  copy_valid_ = generation >= 0;  // an unreadable generation: read every time
  return live_records_;
}

void LocalScheduler::save(const JobRecord& r) {
  try {
    // The generation first: a writer that dies between the two leaves readers reading again,
    // never trusting a copy older than the record.
    if (generation_ >= 0 && !bumped_) {
      write_file_atomic(spool_.generation(), std::to_string(generation_ + 1) + "\n");
      ++generation_;
      bumped_ = true;
    }
    write_file_atomic(spool_.record(r.id), record_to_json(r));
  } catch (const StorageError&) {
    throw;  // a full disk is not a scheduler that answers later: the run stops (see locked())
  } catch (const Error& e) {
    throw sched::SchedulerUnavailable(e.what());
  }
  if (r.phase == Phase::starting || r.phase == Phase::running)
    started_.insert(r.id);
  else
    started_.erase(r.id);
  if (r.phase == Phase::ended) {
    ended_[r.id] = r;
    ended_since_load_.push_back(r.id);
    waiting_changed_ = true;
  }
}

long LocalScheduler::next_id(const Records& all) {
  long next = std::max(highest_, all.empty() ? 0 : all.rbegin()->first) + 1;
  if (auto text = read_small_file(spool_.counter())) {
    if (auto stored = parse_id(trim(*text))) next = std::max(next, *stored);
  }
  write_file_atomic(spool_.counter(), std::to_string(next + 1) + "\n");
  return next;
}

void LocalScheduler::end(JobRecord& r, State outcome, std::string reason, int64_t end_ms) {
  r.phase = Phase::ended;
  r.outcome = outcome;
  r.reason = std::move(reason);
  r.end_ms = end_ms;
  save(r);
}

void LocalScheduler::reap(JobRecord& r, int64_t now) {
  bool monitor_alive = is_alive(r.monitor);
  if (monitor_alive || is_alive(r.job)) {
    if (monitor_alive) return;  // it enforces walltime and cancel itself
    // The monitor was killed: enforce what it would have, at each tick.
    if (r.walltime_s > 0 && !r.walltime_exceeded && now > r.start_ms + r.walltime_s * 1000) {
      r.walltime_exceeded = true;
      save(r);
      ::kill(-r.job.pid, SIGTERM);
    }
    int64_t term_at = r.cancel_requested    ? r.cancel_ms
                      : r.walltime_exceeded ? r.start_ms + r.walltime_s * 1000
                                            : 0;
    if (term_at > 0 && now > term_at + options_.kill_grace.count()) ::kill(-r.job.pid, SIGKILL);
    return;
  }

  // Both are gone, so the monitor has written its status if it ever will.
  std::optional<MonitorStatus> status;
  if (auto text = read_small_file(spool_.status(r.id, r.launch))) status = parse_monitor_status(*text);
  if (status && !status->started) {
    // The launch was cut short before go (the orchestrator died): the script never ran.
    r.phase = Phase::pending;
    r.monitor = r.job = {};
    r.start_ms = 0;
    save(r);
    return;
  }

  auto outcome_for = [&](bool timed_out, bool exited_zero) {
    if (r.cancel_requested) return State::cancelled;
    if (timed_out || r.walltime_exceeded) return State::timeout;
    return exited_zero ? State::completed : State::failed;
  };
  auto reason_for = [&](State outcome) -> std::string {
    if (outcome == State::timeout) return "TimeLimit";
    if (outcome != State::failed) return "";
    if (r.signal) return "RaisedSignal:" + std::to_string(*r.signal);
    return "NonZeroExitCode";
  };

  if (status) {
    if (status->signal != 0) {
      r.signal = status->signal;
    } else {
      r.exit_code = status->exit_code;
    }
    State outcome = status->terminated && !status->timed_out
                        ? State::cancelled
                        : outcome_for(status->timed_out, status->signal == 0 && status->exit_code == 0);
    end(r, outcome, reason_for(outcome), status->end_ms > 0 ? status->end_ms : now);
    return;
  }

  // No status: the monitor died too. The script's own marker, if this run wrote it.
  auto marker = std::filesystem::path(r.workdir) / options_.exit_marker;
  struct stat st {};
  if (::stat(marker.c_str(), &st) == 0) {
    int64_t mtime_ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    if (mtime_ms + 1000 >= r.start_ms) {  // 1 s: coarse file system clocks
      auto text = read_small_file(marker);
      auto code = text ? parse_id(trim(*text)) : std::nullopt;
      if (code) {
        r.exit_code = static_cast<int>(*code);
        State outcome = outcome_for(false, *code == 0);
        end(r, outcome, reason_for(outcome), mtime_ms);
        return;
      }
    }
  }
  // The script's marker begun but not renamed into place: its end could not be written (a full disk).
  const std::string begun = marker.string() + ".tmp";
  const bool unwritten =
      ::stat(begun.c_str(), &st) == 0 && static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + 1000 >= r.start_ms;
  State outcome = outcome_for(false, false);
  end(r, outcome,
      outcome != State::failed ? reason_for(outcome)
      : unwritten ? "ended without an exit status: neither its status nor its exit marker could be written "
                    "(was the disk full?)"
                  : "vanished without exit status",
      now);
}

bool LocalScheduler::start(JobRecord& r, const resource::Placement& where, int64_t now) {
  r.launch += 1;
  r.phase = Phase::starting;
  r.held_cores.clear();
  r.held_gpus.clear();
  for (auto& slice : where) {
    r.held_cores.insert(r.held_cores.end(), slice.cores.begin(), slice.cores.end());
    r.held_gpus.insert(r.held_gpus.end(), slice.gpus.begin(), slice.gpus.end());
  }
  save(r);

  SpawnRequest req;
  req.argv = {options_.shell, r.script};
  const std::string gpu_var = gpus_.variable.empty() ? "" : gpus_.variable + "=";
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    if (starts_with(kv, "CAMPAIGN_JOB_ID=") || starts_with(kv, "CAMPAIGN_JOB_NAME=")) continue;
    if (!gpu_var.empty() && starts_with(kv, gpu_var)) continue;
    req.env.emplace_back(kv);
  }
  req.env.push_back("CAMPAIGN_JOB_ID=" + std::to_string(r.id));
  req.env.push_back("CAMPAIGN_JOB_NAME=" + r.name);
  // Its own GPUs only (none for a job that asked for none, on a machine that has some); an exclusive
  // job holds them all but is shown those it asked for, as the same job beside others would be.
  if (!gpu_var.empty()) {
    std::vector<std::string> own;
    for (long g : resource::shown_gpus(r.demand, resource::Slice{0, {}, r.held_gpus}))
      own.push_back(gpus_.ids.at(static_cast<size_t>(g)));
    req.env.push_back(gpu_var + join(own, ","));
  }
  req.cwd = r.workdir;
  req.output = r.output;
  req.status_path = spool_.status(r.id, r.launch);
  req.walltime = std::chrono::seconds(r.walltime_s);
  req.kill_grace = options_.kill_grace;

  try {
    PendingSpawn spawned = spawn_detached(req);
    r.monitor = spawned.monitor();
    r.job = spawned.job();
    r.phase = Phase::running;
    r.start_ms = now;
    save(r);  // if this throws, `spawned` dies unreleased and the job gives up before running
    pin(spawned.job().pid, r.held_cores, cpus_);  // it waits at the gate: what it starts inherits the mask
    spawned.go();
    return true;
  } catch (const StorageError&) {
    r.phase = Phase::pending;  // no room for its output: it runs once there is
    save(r);
    throw;
  } catch (const OutputUnavailable& e) {
    end(r, State::failed, e.what(), now);  // as sbatch with an unwritable --output
    return false;
  } catch (const SpawnError&) {
    r.phase = Phase::pending;  // fork or pipe trouble: try again at the next tick
    save(r);
    return false;
  }
}

void LocalScheduler::tick(Records& all) {
  int64_t now = now_ms();
  std::vector<RunningJob> running;
  long held_cores = 0;
  // The started jobs by their index (reap may end one, and save() then drops it from the index).
  const std::vector<long> started(started_.begin(), started_.end());
  for (long id : started) {
    auto it = all.find(id);
    if (it == all.end()) continue;
    JobRecord& r = it->second;
    if (r.phase == Phase::starting) {  // a launch that a crash cut short: its job never got go
      r.phase = Phase::pending;
      save(r);
    }
    if (r.phase == Phase::running) reap(r, now);
    if (r.phase != Phase::running) continue;
    RunningJob j{r.demand, {}, r.walltime_s > 0 ? r.start_ms + r.walltime_s * 1000 : 0};
    if (!r.held_cores.empty() || !r.held_gpus.empty()) j.held = {{0, r.held_cores, r.held_gpus}};
    held_cores += static_cast<long>(r.held_cores.size());
    running.push_back(std::move(j));
  }
  // Every core held and nothing ended since the last look at the waiting jobs: none of them can start
  // (each needs a core; a dependency is decided by an end) and their look, a pass over up to the
  // queue limit's records at every call, is skipped.
  if (!waiting_changed_ && resource::no_core_free(machine_, held_cores)) return;
  waiting_changed_ = false;
  std::vector<WaitingJob> waiting;
  for (auto& [id, r] : all) {
    if (r.phase != Phase::pending) continue;
    Deps deps = dependency_state(r, all, ended_);
    if (deps == Deps::never)
      end(r, State::cancelled, "DependencyNeverSatisfied", now);
    else if (deps == Deps::satisfied)
      waiting.push_back({id, r.demand, r.walltime_s});
  }
  if (!options_.start_jobs) return;
  for (auto& a : admit(machine_, running, waiting, now)) start(all.at(a.id), a.where, now);
}

std::string LocalScheduler::submit(const SubmitRequest& request) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path script = fs::absolute(request.script_path, ec);
  std::optional<std::string> text;
  try {
    text = ec ? std::nullopt : read_small_file(script);
  } catch (const Error& e) {
    throw SubmitError(SubmitFailure::invalid, e.what());
  }
  if (!text) throw SubmitError(SubmitFailure::invalid, "no job script " + request.script_path);
  Options o;
  std::vector<std::string> words;
  if (request.demand) {
    // The case's demand as the engine planned it; the script's `#LOCAL` line says the same to a reader.
    o.cores = request.demand->cores;
    o.gpus = request.demand->gpus;
    o.memory_mb = request.demand->memory_mb;
    o.exclusive = request.demand->exclusive;
  } else {
    words = directives_of(*text);  // a script of the user's
  }
  words.insert(words.end(), request.extra_args.begin(), request.extra_args.end());  // a later one wins
  parse_options(words, o);
  if (o.walltime_s == 0) o.walltime_s = request.walltime_s;  // an explicit --time wins
  fs::path workdir = request.workdir.empty() ? script.parent_path() : fs::absolute(request.workdir, ec);
  if (ec || !fs::is_directory(workdir, ec))
    throw SubmitError(SubmitFailure::invalid, "no working directory " + workdir.string());

  JobRecord r;
  r.name = request.job_name;
  r.script = script.string();
  r.workdir = workdir.string();
  r.demand = demand_of(o, *text, machine_);
  r.demand.cores = std::max(1L, r.demand.cores);  // every process runs on a core (tick counts on it)
  r.walltime_s = o.walltime_s;
  r.submit_ms = now_ms();

  try {
    FileLock lock(lock_fd_);
    bumped_ = false;
    CopyGuard guard(copy_valid_);
    Records& all = load();
    for (const auto& d : request.depends_on) {
      auto id = parse_id(d);
      if (!id || !find_record(*id, all, ended_))
        throw SubmitError(SubmitFailure::invalid, "Job dependency problem: no local job " + d);
      r.depends_on.push_back(*id);
    }
    r.id = next_id(all);
    r.output = (workdir / ("job-" + std::to_string(r.id) + ".out")).string();
    JobRecord& added = all.emplace(r.id, r).first->second;
    if (!added.depends_on.empty()) waiting_changed_ = true;  // a dependency may have failed already
    // Its first record is written by the tick when that starts it at once (a crash before leaves
    // none: the engine finds no job of its name and submits again, as after a crash before the
    // counter), else after it. The job exists from here on: a failed tick is for the next call to
    // redo, not a failed submit; a full disk stops the run (the job is found by its name when it
    // runs again).
    try {
      tick(all);
    } catch (const StorageError&) {
      throw;
    } catch (const Error&) {
      copy_valid_ = false;
    }
    std::error_code missing;
    if (!std::filesystem::exists(spool_.record(r.id), missing)) save(added);
  } catch (const SubmitError&) {
    throw;
  } catch (const StorageError&) {
    throw;
  } catch (const Error& e) {
    throw SubmitError(SubmitFailure::transient, e.what());
  }
  return std::to_string(r.id);
}

JobInfo LocalScheduler::info(const JobRecord& r, const Records& all, int64_t now) const {
  JobInfo j;
  j.id = std::to_string(r.id);
  j.name = r.name;
  j.raw_state = raw_state(r);
  j.nodes = 1;
  j.nodelist = host_;
  j.submit = time_of(r.submit_ms);
  j.start = time_of(r.start_ms);
  switch (r.phase) {
    case Phase::pending:
    case Phase::starting:
      j.state = State::queued;
      j.reason = dependency_state(r, all, ended_) == Deps::waiting ? "Dependency" : "Resources";
      j.nodes = 0;
      j.nodelist.clear();
      break;
    case Phase::running:
      j.state = State::running;
      j.elapsed_s = static_cast<double>(now - r.start_ms) / 1000.0;
      break;
    case Phase::ended:
      j.state = r.outcome;
      j.reason = r.reason;
      j.exit_code = r.exit_code;
      j.signal = r.signal;
      j.end = time_of(r.end_ms);
      if (r.start_ms > 0) j.elapsed_s = static_cast<double>(r.end_ms - r.start_ms) / 1000.0;
      break;
  }
  return j;
}

template <class F>
auto LocalScheduler::locked(F&& f) {
  try {
    FileLock lock(lock_fd_);
    bumped_ = false;
    CopyGuard guard(copy_valid_);
    Records& all = load();
    tick(all);
    return f(all);
  } catch (const sched::SchedulerError&) {
    throw;
  } catch (const StorageError&) {
    throw;  // not for the next poll to retry: the spool's file system is full, read-only or failing
  } catch (const Error& e) {
    throw sched::SchedulerUnavailable(e.what());
  }
}

std::vector<JobInfo> LocalScheduler::query(const std::vector<std::string>& ids) {
  return locked([&](Records& all) {
    int64_t now = now_ms();
    std::vector<JobInfo> result;
    for (const auto& s : ids) {
      auto id = parse_id(s);
      if (const JobRecord* r = id ? find_record(*id, all, ended_) : nullptr)
        result.push_back(info(*r, all, now));
    }
    return result;
  });
}

std::vector<JobInfo> LocalScheduler::find_by_name(const std::vector<std::string>& names) {
  return locked([&](Records& all) {
    int64_t now = now_ms();
    std::vector<JobInfo> result;
    // A job that ended in this call's tick is in both: once, by id, as the scheduler lists jobs.
    std::map<long, const JobRecord*> named;
    for (const auto* records : {&ended_, &all})
      for (const auto& [id, r] : *records)
        if (std::find(names.begin(), names.end(), r.name) != names.end()) named[id] = &r;
    for (const auto& [id, r] : named) result.push_back(info(*r, all, now));
    return result;
  });
}

int LocalScheduler::queued_jobs_of_user() {
  return locked([&](Records& all) {
    return static_cast<int>(std::count_if(all.begin(), all.end(),
                                          [](const auto& kv) { return kv.second.phase != Phase::ended; }));
  });
}

void LocalScheduler::start_waiting() {
  if (!options_.start_jobs) return;
  // Nothing waits, by this object's copy of a spool nobody else wrote since: no call (a packed
  // run's markers come from one allocation's cases, and there is nothing to start for them).
  if (copy_valid_ && spool_generation(spool_) == generation_ &&
      std::none_of(live_records_.begin(), live_records_.end(),
                   [](const auto& kv) { return kv.second.phase == Phase::pending; }))
    return;
  locked([](Records&) { return 0; });  // its tick starts what fits
}

void LocalScheduler::cancel(const std::vector<std::string>& ids) {
  locked([&](Records& all) {
    int64_t now = now_ms();
    for (const auto& s : ids) {
      auto id = parse_id(s);
      auto it = id ? all.find(*id) : all.end();
      if (it == all.end()) continue;
      JobRecord& r = it->second;
      if (r.phase == Phase::pending || r.phase == Phase::starting) {
        end(r, State::cancelled, "", now);
      } else if (r.phase == Phase::running && !r.cancel_requested) {
        r.cancel_requested = true;
        r.cancel_ms = now;
        save(r);
        // The monitor signals the group and escalates; without it, the next ticks do.
        if (is_alive(r.monitor)) {
          ::kill(r.monitor.pid, SIGTERM);
        } else if (is_alive(r.job)) {
          ::kill(-r.job.pid, SIGTERM);
        }
      }
    }
    tick(all);  // dependants of what was cancelled
    return 0;
  });
}

void register_local_scheduler(LocalOptions options) {
  sched::register_scheduler("local", [options](transport::Shell&, const sched::SchedulerOptions&) {
    return std::make_unique<LocalScheduler>(options);
  });
}

}  // namespace campaign::local
