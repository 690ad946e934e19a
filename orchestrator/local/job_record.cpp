// JSON form of a local job record and atomic small-file I/O for the spool.
#include "local/job_record.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

namespace campaign::local {

using nlohmann::json;

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::pending:
      return "pending";
    case Phase::starting:
      return "starting";
    case Phase::running:
      return "running";
    case Phase::ended:
      return "ended";
  }
  return "pending";
}

namespace {

std::optional<Phase> phase_from_string(std::string_view s) {
  for (Phase p : {Phase::pending, Phase::starting, Phase::running, Phase::ended}) {
    if (to_string(p) == s) return p;
  }
  return std::nullopt;
}

std::optional<int> get_optional_int(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<int>();
}

}  // namespace

std::string record_to_json(const JobRecord& r) {
  // Written a few times a job: formatted straight, not built as a json object first (that was a
  // tenth of the executor's CPU); strings are escaped by nlohmann::json all the same.
  auto str = [](std::string_view v) { return json(v).dump(); };
  auto opt = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("null"); };
  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\n \"id\": {},\n \"name\": {},\n \"script\": {},\n \"workdir\": {},\n", r.id,
                 str(r.name), str(r.script), str(r.workdir));
  fmt::format_to(it, " \"output\": {},\n \"depends_on\": [{}],\n", str(r.output),
                 fmt::join(r.depends_on, ","));
  fmt::format_to(it, " \"cores\": {},\n \"gpus\": {},\n \"memory_mb\": {},\n \"exclusive\": {},\n",
                 r.demand.cores, r.demand.gpus, r.demand.memory_mb, r.demand.exclusive);
  fmt::format_to(it, " \"held_cores\": [{}],\n \"held_gpus\": [{}],\n \"walltime_s\": {},\n",
                 fmt::join(r.held_cores, ","), fmt::join(r.held_gpus, ","), r.walltime_s);
  fmt::format_to(it, " \"state\": {},\n \"launch\": {},\n", str(to_string(r.phase)), r.launch);
  fmt::format_to(it, " \"monitor_pid\": {},\n \"monitor_start\": {},\n \"pid\": {},\n \"pid_start\": {},\n",
                 r.monitor.pid, r.monitor.start, r.job.pid, r.job.start);
  fmt::format_to(it, " \"submit_ms\": {},\n \"start_ms\": {},\n \"end_ms\": {},\n", r.submit_ms, r.start_ms,
                 r.end_ms);
  fmt::format_to(it, " \"cancel_requested\": {},\n \"cancel_ms\": {},\n \"walltime_exceeded\": {},\n",
                 r.cancel_requested, r.cancel_ms, r.walltime_exceeded);
  fmt::format_to(it, " \"outcome\": {},\n \"exit_code\": {},\n \"signal\": {},\n \"reason\": {}\n}}\n",
                 str(r.phase == Phase::ended ? campaign::to_string(r.outcome) : ""), opt(r.exit_code),
                 opt(r.signal), str(r.reason));
  return fmt::to_string(out);
}

std::optional<JobRecord> record_from_json(const std::string& text) {
  try {
    json j = json::parse(text);
    JobRecord r;
    r.id = j.at("id").get<long>();
    r.name = j.at("name").get<std::string>();
    r.script = j.at("script").get<std::string>();
    r.workdir = j.at("workdir").get<std::string>();
    r.output = j.value("output", "");
    r.depends_on = j.value("depends_on", std::vector<long>{});
    // Records of earlier versions say `slots`: the cores it holds.
    r.demand.cores = j.value("cores", j.value("slots", 1L));
    r.demand.gpus = j.value("gpus", 0L);
    r.demand.memory_mb = j.value("memory_mb", 0L);
    r.demand.exclusive = j.value("exclusive", false);
    r.held_cores = j.value("held_cores", std::vector<long>{});
    r.held_gpus = j.value("held_gpus", std::vector<long>{});
    r.walltime_s = j.value("walltime_s", 0L);
    auto phase = phase_from_string(j.at("state").get<std::string>());
    if (!phase) return std::nullopt;
    r.phase = *phase;
    r.launch = j.value("launch", 0);
    r.monitor = {j.value("monitor_pid", 0), j.value("monitor_start", uint64_t{0})};
    r.job = {j.value("pid", 0), j.value("pid_start", uint64_t{0})};
    r.submit_ms = j.value("submit_ms", int64_t{0});
    r.start_ms = j.value("start_ms", int64_t{0});
    r.end_ms = j.value("end_ms", int64_t{0});
    r.cancel_requested = j.value("cancel_requested", false);
    r.cancel_ms = j.value("cancel_ms", int64_t{0});
    r.walltime_exceeded = j.value("walltime_exceeded", false);
    if (r.phase == Phase::ended) {
      auto outcome = state_from_string(j.at("outcome").get<std::string>());
      if (!outcome) return std::nullopt;
      r.outcome = *outcome;
    }
    r.exit_code = get_optional_int(j, "exit_code");
    r.signal = get_optional_int(j, "signal");
    r.reason = j.value("reason", "");
    return r;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> read_small_file(const std::filesystem::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.open()) {
    if (errno == ENOENT) return std::nullopt;
    throw Error("cannot read " + path.string() + ": " + std::strerror(errno));
  }
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read " + path.string() + ": " + std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace campaign::local
