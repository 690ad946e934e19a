// LSF output parsers (see lsf_parse.hpp).
#include "sched/lsf_parse.hpp"

#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "sched/text.hpp"
#include "util/strings.hpp"

namespace campaign::sched {

namespace {

using Record = std::map<std::string, std::string>;  // upper-case field name -> value

std::string lsf_value(std::string_view v) {
  std::string t = trim(v);
  return t == "-" ? std::string() : t;
}

std::string get(const Record& r, const std::string& key) {
  auto it = r.find(key);
  return it == r.end() ? std::string() : lsf_value(it->second);
}

bool contains_any(std::string_view haystack, std::initializer_list<const char*> needles) {
  std::string h = text::upper(haystack);
  for (const char* n : needles)
    if (h.find(text::upper(n)) != std::string::npos) return true;
  return false;
}

JobInfo to_job(const Record& r, Time now) {
  JobInfo job;
  job.id = get(r, "JOBID");
  job.name = get(r, "JOB_NAME");
  // An array element: JOBINDEX > 0, named "name[i]" (bjobs and bkill take "ID[i]").
  if (auto index = text::to_long(get(r, "JOBINDEX")); index && *index > 0) {
    job.array_task = *index;
    job.id.append("[").append(std::to_string(*index)).append("]");
    if (auto bracket = job.name.rfind('['); bracket != std::string::npos && job.name.back() == ']')
      job.name.erase(bracket);
  }
  job.raw_state = get(r, "STAT");
  std::string exit_reason = get(r, "EXIT_REASON");
  // Unknown states keep the job active: polled again rather than declared over.
  job.state = map_lsf_state(job.raw_state, exit_reason).value_or(State::running);
  if (job.state == State::queued) {
    job.reason = get(r, "PEND_REASON");
    while (!job.reason.empty() && (job.reason.back() == ';' || job.reason.back() == ' '))
      job.reason.pop_back();
    // "Dependency condition invalid or never satisfied"; hosts closed, unavailable or unreachable.
    if (contains_any(job.reason, {"never satisfied"}))
      job.waiting = Waiting::dependency_failed;
    else if (contains_any(job.reason, {"host is closed", "hosts are closed", "unavailable", "unreachable"}))
      job.waiting = Waiting::nodes_unavailable;
  } else if (is_final(job.state)) {
    job.reason = exit_reason;
  }
  if (is_final(job.state)) {
    auto code = text::to_long(get(r, "EXIT_CODE"));
    if (code)
      job.exit_code = static_cast<int>(*code);
    else if (job.state == State::completed)
      job.exit_code = 0;  // DONE means exit value 0; LSF leaves the field empty
  }
  job.submit = parse_lsf_time(get(r, "SUBMIT_TIME"), now);
  if (job.state != State::queued) job.start = parse_lsf_time(get(r, "START_TIME"), now, job.submit);
  if (is_final(job.state)) job.end = parse_lsf_time(get(r, "FINISH_TIME"), now, job.submit);
  job.elapsed_s = parse_lsf_run_time(get(r, "RUN_TIME"));
  job.nodes = static_cast<int>(text::to_long(get(r, "NEXEC_HOST")).value_or(0));
  return job;
}

}  // namespace

std::optional<State> map_lsf_state(std::string_view stat_in, std::string_view exit_reason) {
  std::string stat = text::upper(trim(stat_in));
  static const std::map<std::string, State> kStates = {
      {"PEND", State::queued},         {"PSUSP", State::queued},    {"WAIT", State::queued},
      {"PROV", State::queued},         {"RUN", State::running},     {"USUSP", State::running},
      {"SSUSP", State::running},       {"UNKWN", State::running},   {"DONE", State::completed},
      {"POST_DONE", State::completed}, {"POST_ERR", State::failed}, {"ZOMBI", State::node_fail},
  };
  if (stat != "EXIT") {
    auto it = kStates.find(stat);
    if (it == kStates.end()) return std::nullopt;
    return it->second;
  }
  // bjobs may print the TERM_ keyword or its description; both are matched.
  if (contains_any(exit_reason, {"TERM_RUNLIMIT", "TERM_DEADLINE", "run time limit", "deadline"}))
    return State::timeout;
  if (contains_any(exit_reason,
                   {"TERM_OWNER", "TERM_FORCE_OWNER", "TERM_ADMIN", "TERM_FORCE_ADMIN", "TERM_BUCKET_KILL",
                    "killed by owner", "killed by root", "LSF administrator"}))
    return State::cancelled;
  if (contains_any(exit_reason, {"TERM_MEMLIMIT", "TERM_SWAP", "memory usage limit", "swap usage limit"}))
    return State::oom;
  if (contains_any(exit_reason, {"TERM_PREEMPT", "preempt"})) return State::preempted;
  if (contains_any(exit_reason, {"TERM_ZOMBIE", "TERM_REMOVE_HUNG_JOB", "TERM_RC_RECLAIM", "TERM_CSM_ALLOC",
                                 "host failure", "while LSF is not available"}))
    return State::node_fail;
  return State::failed;
}

std::optional<std::string> parse_bsub(std::string_view out) {
  static const std::regex ack(R"(Job <(\d+)> is submitted to)");
  std::string s(out);
  std::smatch m;
  if (!std::regex_search(s, m, ack)) return std::nullopt;
  return m[1].str();
}

SubmitFailure classify_bsub_error(std::string_view output) {
  if (contains_any(output, {"threshold reached", "job limit", "too many jobs", "limit reached"}))
    return SubmitFailure::refused_by_limit;
  if (contains_any(output,
                   {"LSF is down", "not responding", "Failed in an LSF library call", "cannot connect",
                    "connection refused", "timed out", "LIM is down", "batch system daemon"}))
    return SubmitFailure::transient;
  // Bad queue, resource requirement, project; "Request aborted by esub"...
  return SubmitFailure::invalid;
}

std::optional<double> parse_lsf_run_time(std::string_view text_in) {
  std::string t = trim(text_in);
  static const std::regex seconds(R"(^(\d+(?:\.\d+)?)\s*second\(s\)$)");
  static const std::regex hms(R"(^(\d+):(\d+):(\d+)$)");
  std::smatch m;
  if (std::regex_match(t, m, seconds)) return std::stod(m[1]);
  if (std::regex_match(t, m, hms)) return std::stod(m[1]) * 3600 + std::stod(m[2]) * 60 + std::stod(m[3]);
  return std::nullopt;
}

std::optional<Time> parse_lsf_time(std::string_view text_in, Time now, std::optional<Time> submit) {
  static const std::regex named(
      R"(^(?:[A-Z][a-z]{2}\s+)?([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s+(\d{4}))?(?:\s+[LEX])?$)");
  static const std::regex numeric(
      R"(^(?:(\d{4})/)?(\d{1,2})/(\d{1,2})-(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s+[LEX])?$)");
  static const std::string kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  std::string t = trim(text_in);
  std::smatch m;
  int month = 0, field = 0;  // `field`: the sub-match of the day
  if (std::regex_match(t, m, named)) {
    auto at = kMonths.find(m[1].str());
    if (at == std::string::npos || at % 3 != 0) return std::nullopt;
    month = static_cast<int>(at / 3) + 1;
    field = 2;
  } else if (std::regex_match(t, m, numeric)) {
    month = std::stoi(m[2]);
    field = 3;
  } else {
    return std::nullopt;
  }
  int day = std::stoi(m[field]), hour = std::stoi(m[field + 1]), minute = std::stoi(m[field + 2]);
  int second = m[field + 3].matched ? std::stoi(m[field + 3]) : 0;
  auto in_year = [&](int year) { return text::local_time(year, month, day, hour, minute, second); };
  const auto& year = field == 2 ? m[6] : m[1];
  if (year.matched) return in_year(std::stoi(year));

  std::time_t ref = (submit ? *submit : now).time_since_epoch().count();
  std::tm local{};
  localtime_r(&ref, &local);
  int ref_year = local.tm_year + 1900;
  if (submit) {
    for (int y : {ref_year, ref_year + 1})
      if (auto when = in_year(y); when && *when >= *submit) return when;
  } else {
    for (int y : {ref_year + 1, ref_year, ref_year - 1})
      if (auto when = in_year(y); when && *when <= now + std::chrono::hours(24)) return when;
  }
  return std::nullopt;
}

std::vector<JobInfo> parse_bjobs_json(std::string_view text_in, Time now) {
  auto brace = text_in.find('{');
  if (brace == std::string_view::npos) {
    // No document: fine if all bjobs said is that there is no such job.
    for (const auto& line : text::lines(text_in))
      if (!trim(line).empty() && !contains_any(line, {"No unfinished job found", "No job found",
                                                      "is not found", "LSF is processing your request"}))
        throw UnexpectedOutput("bjobs printed no JSON: " + trim(text_in.substr(0, 500)));
    return {};
  }
  auto doc = nlohmann::json::parse(text_in.substr(brace), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    throw UnexpectedOutput("bjobs printed malformed JSON: " + trim(text_in.substr(brace, 500)));
  std::vector<JobInfo> jobs;
  auto records = doc.find("RECORDS");
  if (records == doc.end() || !records->is_array()) return jobs;
  for (const auto& rec : *records) {
    if (!rec.is_object() || rec.contains("ERROR")) continue;
    Record r;
    for (const auto& [k, v] : rec.items())
      r[text::upper(k)] = v.is_string() ? v.get<std::string>() : v.dump();
    jobs.push_back(to_job(r, now));
  }
  return jobs;
}

std::vector<JobInfo> parse_bjobs_noheader(std::string_view text_in, const std::vector<std::string>& fields,
                                          char delimiter, Time now) {
  std::vector<std::string> keys;
  for (const auto& f : fields) keys.push_back(text::upper(trim(f)));
  size_t name_col = keys.size();
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == "JOB_NAME") name_col = i;

  std::vector<JobInfo> jobs;
  for (const auto& line : text::lines(text_in)) {
    auto f = split(line, delimiter);
    if (f.size() < keys.size()) continue;
    if (f.size() > keys.size() && name_col < keys.size()) {
      // A job name containing the delimiter: fold the surplus back into it.
      size_t extra = f.size() - keys.size();
      std::vector<std::string> parts(f.begin() + name_col, f.begin() + name_col + extra + 1);
      f[name_col] = join(parts, std::string(1, delimiter));
      f.erase(f.begin() + name_col + 1, f.begin() + name_col + extra + 1);
    }
    Record r;
    for (size_t i = 0; i < keys.size(); ++i) r[keys[i]] = f[i];
    jobs.push_back(to_job(r, now));
  }
  return jobs;
}

std::vector<std::string> parse_bjobs_not_found(std::string_view err) {
  static const std::regex re(R"(Job <([^>]+)> is not found)");
  std::vector<std::string> ids;
  std::string s(err);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it)
    ids.push_back((*it)[1].str());
  return ids;
}

}  // namespace campaign::sched
