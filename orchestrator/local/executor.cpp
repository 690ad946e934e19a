// Both ends of `campaign executor`: the request handler (run by the subcommand on the remote host)
// and the Scheduler that sends requests through a Shell.
#include "local/executor.hpp"

#include <nlohmann/json.hpp>

#include "util/strings.hpp"

namespace campaign::local {

using nlohmann::json;
using sched::JobInfo;
using sched::SchedulerUnavailable;
using sched::SubmitError;
using sched::SubmitFailure;

namespace {

// 2: times are seconds since the epoch (were local-time strings).
constexpr int kVersion = 2;

void put_time(json& o, const char* key, const std::optional<sched::Time>& t) {
  if (t) o[key] = t->time_since_epoch().count();
}

std::optional<sched::Time> get_time(const json& o, const char* key) {
  if (!o.contains(key)) return std::nullopt;
  return sched::Time(std::chrono::seconds(o.at(key).get<std::int64_t>()));
}

json to_json(const JobInfo& j) {
  json o{{"id", j.id},
         {"name", j.name},
         {"state", std::string(to_string(j.state))},
         {"raw_state", j.raw_state},
         {"reason", j.reason},
         {"nodes", j.nodes},
         {"nodelist", j.nodelist}};
  put_time(o, "submit", j.submit);
  put_time(o, "start", j.start);
  put_time(o, "end", j.end);
  if (j.exit_code) o["exit_code"] = *j.exit_code;
  if (j.signal) o["signal"] = *j.signal;
  if (j.elapsed_s) o["elapsed_s"] = *j.elapsed_s;
  return o;
}

JobInfo job_from_json(const json& o) {
  JobInfo j;
  j.id = o.at("id").get<std::string>();
  j.name = o.at("name").get<std::string>();
  auto state = state_from_string(o.at("state").get<std::string>());
  if (!state)
    throw SchedulerUnavailable("executor: unknown state '" + o.at("state").get<std::string>() + "'");
  j.state = *state;
  j.raw_state = o.value("raw_state", "");
  j.reason = o.value("reason", "");
  j.submit = get_time(o, "submit");
  j.start = get_time(o, "start");
  j.end = get_time(o, "end");
  j.nodes = o.value("nodes", 0);
  j.nodelist = o.value("nodelist", "");
  if (o.contains("exit_code")) j.exit_code = o.at("exit_code").get<int>();
  if (o.contains("signal")) j.signal = o.at("signal").get<int>();
  if (o.contains("elapsed_s")) j.elapsed_s = o.at("elapsed_s").get<double>();
  return j;
}

// A submission's demand (SubmitRequest::demand); absent from a request of a campaign that sends none.
json demand_to_json(const resource::Demand& d) {
  return {{"nodes", d.nodes},
          {"cores", d.cores},
          {"gpus", d.gpus},
          {"memory_mb", d.memory_mb},
          {"exclusive", d.exclusive}};
}

resource::Demand demand_from_json(const json& o) {
  resource::Demand d;
  d.nodes = o.value("nodes", 1L);
  d.cores = o.value("cores", 1L);
  d.gpus = o.value("gpus", 0L);
  d.memory_mb = o.value("memory_mb", 0L);
  d.exclusive = o.value("exclusive", false);
  return d;
}

json failure(const std::string& kind, const std::string& message) {
  return {{"ok", false}, {"error", kind}, {"message", message}};
}

std::vector<std::string> strings(const json& request, const char* key) {
  return request.value(key, json::array()).get<std::vector<std::string>>();
}

}  // namespace

std::string serve_executor_request(const LocalOptions& options, const std::string& text) {
  json answer;
  try {
    json request = json::parse(text);
    if (request.value("version", 0) != kVersion)
      return failure("invalid", "executor protocol version " + std::to_string(request.value("version", 0)) +
                                    " (this campaign speaks " + std::to_string(kVersion) + ")")
          .dump();
    const std::string op = request.value("op", "");
    LocalScheduler scheduler(options);
    if (op == "submit") {
      const json& r = request.at("request");
      sched::SubmitRequest req;
      req.script_path = r.at("script").get<std::string>();
      req.job_name = r.value("job_name", "");
      req.workdir = r.value("workdir", "");
      req.depends_on = strings(r, "depends_on");
      req.extra_args = strings(r, "extra_args");
      req.walltime_s = r.value("walltime_s", 0L);
      if (r.contains("demand")) req.demand = demand_from_json(r.at("demand"));
      answer = {{"ok", true}, {"id", scheduler.submit(req)}};
    } else if (op == "query" || op == "find") {
      auto jobs = op == "query" ? scheduler.query(strings(request, "ids"))
                                : scheduler.find_by_name(strings(request, "names"));
      json list = json::array();
      for (auto& j : jobs) list.push_back(to_json(j));
      answer = {{"ok", true}, {"jobs", list}};
    } else if (op == "count") {
      answer = {{"ok", true}, {"count", scheduler.queued_jobs_of_user()}};
    } else if (op == "cancel") {
      scheduler.cancel(strings(request, "ids"));
      answer = {{"ok", true}};
    } else {
      answer = failure("invalid", "unknown executor operation '" + op + "'");
    }
  } catch (const SubmitError& e) {
    answer = failure(std::string(sched::to_string(e.kind())), e.what());
  } catch (const json::exception& e) {
    answer = failure("invalid", std::string("malformed executor request: ") + e.what());
  } catch (const std::exception& e) {
    answer = failure("unavailable", e.what());
  }
  return answer.dump();
}

ShellExecutor::ShellExecutor(transport::Shell& shell, std::string campaign, std::string spool,
                             bool start_jobs, std::chrono::milliseconds timeout)
    : shell_(shell),
      campaign_(std::move(campaign)),
      spool_(std::move(spool)),
      start_jobs_(start_jobs),
      timeout_(timeout) {}

json ShellExecutor::call(const std::string& request, bool submit) {
  std::vector<std::string> argv = {campaign_, "executor", "--spool", spool_};
  if (!start_jobs_) argv.push_back("--look");
  auto r = shell_.run(argv, timeout_, request);
  auto problem = [&](const std::string& what) {
    std::string message = "`" + transport::display_command(argv) + "` (" + shell_.describe() + ") " + what;
    std::string err = trim(r.err);
    if (err.size() > 2000) err.resize(2000);
    if (!err.empty()) message += ": " + err;
    if (r.exit_code == 127)
      message += " (is campaign installed there? set access.ssh.campaign in the system profile)";
    if (submit) throw SubmitError(SubmitFailure::transient, message + " (the job may have been submitted)");
    throw SchedulerUnavailable(message);
  };
  if (r.timed_out) problem("timed out");
  if (r.exit_code != 0) problem("failed with exit status " + std::to_string(r.exit_code));
  json answer;
  try {
    answer = json::parse(r.out);
  } catch (const json::exception&) {
    problem("printed no answer");
  }
  if (!answer.value("ok", false)) {
    std::string kind = answer.value("error", "unavailable");
    std::string message = "executor on " + shell_.describe() + ": " + answer.value("message", "failed");
    if (submit && kind == "invalid") throw SubmitError(SubmitFailure::invalid, message);
    if (submit && kind == "refused_by_limit") throw SubmitError(SubmitFailure::refused_by_limit, message);
    if (submit) throw SubmitError(SubmitFailure::transient, message);
    throw SchedulerUnavailable(message);
  }
  return answer;
}

std::string ShellExecutor::submit(const sched::SubmitRequest& request) {
  json req{{"script", request.script_path},    {"job_name", request.job_name},
           {"workdir", request.workdir},       {"depends_on", request.depends_on},
           {"extra_args", request.extra_args}, {"walltime_s", request.walltime_s}};
  if (request.demand) req["demand"] = demand_to_json(*request.demand);
  json answer = call(json{{"version", kVersion}, {"op", "submit"}, {"request", req}}.dump(), true);
  if (!answer.contains("id") || !answer["id"].is_string())
    throw SubmitError(
        SubmitFailure::transient,
        "executor on " + shell_.describe() + " answered without a job id (the job may have been submitted)");
  return answer["id"].get<std::string>();
}

std::vector<JobInfo> ShellExecutor::jobs(const std::string& op, const char* key,
                                         const std::vector<std::string>& values) {
  if (values.empty()) return {};
  json answer = call(json{{"version", kVersion}, {"op", op}, {key, values}}.dump(), false);
  std::vector<JobInfo> out;
  try {
    for (auto& j : answer.at("jobs")) out.push_back(job_from_json(j));
  } catch (const json::exception& e) {
    throw sched::UnexpectedOutput(std::string("executor answer: ") + e.what());
  }
  return out;
}

std::vector<JobInfo> ShellExecutor::query(const std::vector<std::string>& ids) {
  return jobs("query", "ids", ids);
}

std::vector<JobInfo> ShellExecutor::find_by_name(const std::vector<std::string>& names) {
  return jobs("find", "names", names);
}

int ShellExecutor::queued_jobs_of_user() {
  json answer = call(json{{"version", kVersion}, {"op", "count"}}.dump(), false);
  if (!answer.contains("count") || !answer["count"].is_number_integer())
    throw sched::UnexpectedOutput("executor on " + shell_.describe() + " answered without a count");
  return answer["count"].get<int>();
}

void ShellExecutor::cancel(const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  call(json{{"version", kVersion}, {"op", "cancel"}, {"ids", ids}}.dump(), false);
}

}  // namespace campaign::local
