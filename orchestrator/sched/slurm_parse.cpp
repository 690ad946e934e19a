// Slurm output parsers (see slurm_parse.hpp).
#include "sched/slurm_parse.hpp"

#include <cstdlib>
#include <map>
#include <regex>
#include <set>

#include "sched/text.hpp"
#include "util/strings.hpp"

namespace campaign::sched {

namespace {

// Slurm's pending reasons the engine acts on.
Waiting waiting_of(const std::string& reason) {
  if (reason.find("DependencyNeverSatisfied") != std::string::npos) return Waiting::dependency_failed;
  if (reason.find("ReqNodeNotAvail") != std::string::npos) return Waiting::nodes_unavailable;
  return Waiting::other;
}

// Slurm's words for "no value".
std::string slurm_value(std::string_view v) {
  std::string t = trim(v);
  static const char* const kNone[] = {"Unknown", "None", "none", "(null)", "N/A", "None assigned", "n/a"};
  for (const char* n : kNone)
    if (t == n) return {};
  return t;
}

// An unknown state keeps the job active: polling it again is harmless, declaring it ended is not.
State state_or_active(const std::string& raw) { return map_slurm_state(raw).value_or(State::running); }

// Of a job or a step (JobInfo, StepInfo).
template <class Record>
void set_exit(Record& job, std::string_view exit_text) {
  if (!is_final(job.state)) return;  // "0:0" of a pending job is not an exit status
  auto ec = parse_slurm_exit_code(exit_text);
  if (!ec) return;
  if (ec->signal != 0) job.signal = ec->signal;
  if (ec->signal == 0 || ec->code != 0) job.exit_code = ec->code;
}

// Slurm prints the expected start of a pending job and the expected end of a running one; only
// times that happened are kept.
template <class Record>
void drop_predictions(Record& job) {
  if (job.state == State::queued) job.start.reset();
  if (!is_final(job.state)) job.end.reset();
}

int to_nodes(std::string_view text) {
  // scontrol prints a range ("1-2") for pending jobs: the lower bound is the request.
  std::string t = trim(text);
  auto dash = t.find('-');
  if (dash != std::string::npos) t.resize(dash);
  return static_cast<int>(text::to_long(t).value_or(0));
}

// A header-indexed '|' table. `name_column` may hold '|' (job names are free text): surplus fields
// are folded back into it.
class Table {
 public:
  Table(std::vector<std::string> columns, std::string name_column) : name_column_(std::move(name_column)) {
    for (size_t i = 0; i < columns.size(); ++i) index_[text::lower(trim(columns[i]))] = i;
    ncols_ = columns.size();
  }
  bool has(const std::string& col) const { return index_.count(col) > 0; }

  // Fields of one line, in column order.
  std::vector<std::string> split_row(const std::string& line) const {
    auto f = split(line, '|');
    if (f.size() == ncols_ + 1 && f.back().empty()) f.pop_back();  // --parsable's trailing '|'
    auto name = index_.find(name_column_);
    if (f.size() > ncols_ && name != index_.end()) {
      size_t extra = f.size() - ncols_;
      std::vector<std::string> parts(f.begin() + name->second, f.begin() + name->second + extra + 1);
      f[name->second] = join(parts, "|");
      f.erase(f.begin() + name->second + 1, f.begin() + name->second + extra + 1);
    }
    f.resize(ncols_);  // short rows: missing trailing fields read as empty
    return f;
  }
  std::string get(const std::vector<std::string>& row, const std::string& col) const {
    auto it = index_.find(col);
    return it == index_.end() ? std::string() : row[it->second];
  }

 private:
  std::map<std::string, size_t> index_;
  size_t ncols_ = 0;
  std::string name_column_;
};

std::vector<JobInfo> parse_sacct_rows(const Table& table, const std::vector<std::string>& rows) {
  if (!table.has("jobid") || !table.has("state"))
    throw UnexpectedOutput("sacct output has no JobID and State columns");
  std::vector<JobInfo> jobs;
  std::map<std::string, size_t> seen;
  for (const auto& line : rows) {
    if (trim(line).empty()) continue;
    auto row = table.split_row(line);
    JobInfo job;
    job.id = trim(table.get(row, "jobid"));
    if (job.id.empty() || job.id.find('.') != std::string::npos) continue;  // steps are not jobs
    job.name = table.get(row, "jobname");
    job.raw_state = trim(table.get(row, "state"));
    job.state = state_or_active(job.raw_state);
    job.reason = slurm_value(table.get(row, "reason"));
    job.waiting = waiting_of(job.reason);
    set_exit(job, table.get(row, "exitcode"));
    job.submit = parse_slurm_time(table.get(row, "submit"));
    job.start = parse_slurm_time(table.get(row, "start"));
    job.end = parse_slurm_time(table.get(row, "end"));
    job.elapsed_s = parse_slurm_duration(table.get(row, "elapsed"));
    job.nodes = to_nodes(table.get(row, "nnodes"));
    job.nodelist = slurm_value(table.get(row, "nodelist"));
    job.energy_j = parse_consumed_energy(table.get(row, "consumedenergyraw"));
    drop_predictions(job);
    auto it = seen.find(job.id);
    if (it != seen.end()) {
      jobs[it->second] = std::move(job);  // a requeued job: its latest record wins
    } else {
      seen[job.id] = jobs.size();
      jobs.push_back(std::move(job));
    }
  }
  return expand_array_tasks(std::move(jobs));
}

}  // namespace

std::optional<State> map_slurm_state(std::string_view raw) {
  auto w = text::words(raw);
  if (w.empty()) return std::nullopt;
  std::string s = text::upper(w[0]);
  while (!s.empty() && s.back() == '+') s.pop_back();  // sacct marks truncated fields with '+'
  static const std::map<std::string, State> kStates = {
      {"PENDING", State::queued},       {"PD", State::queued},
      {"REQUEUED", State::queued},      {"RQ", State::queued},
      {"REQUEUE_HOLD", State::queued},  {"RH", State::queued},
      {"REQUEUE_FED", State::queued},   {"RF", State::queued},
      {"RESV_DEL_HOLD", State::queued}, {"RD", State::queued},
      {"RUNNING", State::running},      {"R", State::running},
      {"COMPLETING", State::running},   {"CG", State::running},
      {"SUSPENDED", State::running},    {"S", State::running},
      {"STOPPED", State::running},      {"ST", State::running},
      {"CONFIGURING", State::running},  {"CF", State::running},
      {"RESIZING", State::running},     {"RS", State::running},
      {"SIGNALING", State::running},    {"SI", State::running},
      {"STAGE_OUT", State::running},    {"SO", State::running},
      {"COMPLETED", State::completed},  {"CD", State::completed},
      {"FAILED", State::failed},        {"F", State::failed},
      {"SPECIAL_EXIT", State::failed},  {"SE", State::failed},
      {"TIMEOUT", State::timeout},      {"TO", State::timeout},
      {"DEADLINE", State::timeout},     {"DL", State::timeout},
      {"NODE_FAIL", State::node_fail},  {"NF", State::node_fail},
      {"BOOT_FAIL", State::node_fail},  {"BF", State::node_fail},
      {"PREEMPTED", State::preempted},  {"PR", State::preempted},
      {"OUT_OF_MEMORY", State::oom},    {"OOM", State::oom},
      {"CANCELLED", State::cancelled},  {"CA", State::cancelled},
      {"REVOKED", State::cancelled},    {"RV", State::cancelled},
  };
  auto it = kStates.find(s);
  if (it == kStates.end()) return std::nullopt;
  return it->second;
}

std::optional<SlurmExitCode> parse_slurm_exit_code(std::string_view text) {
  std::string t = trim(text);
  auto colon = t.find(':');
  if (colon == std::string::npos) return std::nullopt;
  auto code = text::to_long(t.substr(0, colon));
  auto sig = text::to_long(t.substr(colon + 1));
  if (!code || !sig) return std::nullopt;
  return SlurmExitCode{static_cast<int>(*code), static_cast<int>(*sig)};
}

std::optional<double> parse_consumed_energy(std::string_view text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  double j = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !(j > 0) || j >= 1e18) return std::nullopt;
  return j;
}

std::optional<double> parse_slurm_duration(std::string_view text) {
  static const std::regex re(R"(^\s*(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)\s*$)");
  std::string t(text);
  std::smatch m;
  if (!std::regex_match(t, m, re)) return std::nullopt;
  double days = m[1].matched ? std::stod(m[1]) : 0;
  // With a day part, Slurm always prints hours: "1-00:05" is D-HH:MM.
  double hours = 0, minutes = 0, seconds = 0;
  if (m[2].matched) {
    hours = std::stod(m[2]);
    minutes = std::stod(m[3]);
    seconds = std::stod(m[4]);
  } else if (m[1].matched) {
    hours = std::stod(m[3]);
    minutes = std::stod(m[4]);
  } else {
    minutes = std::stod(m[3]);
    seconds = std::stod(m[4]);
  }
  return ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
}

std::optional<Time> parse_slurm_time(std::string_view text) {
  static const std::regex re(R"(^\s*(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\s*$)");
  std::string t(text);
  std::smatch m;
  if (!std::regex_match(t, m, re)) return std::nullopt;
  return text::local_time(std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5]),
                          std::stoi(m[6]));
}

std::optional<std::string> parse_sbatch(std::string_view out) {
  static const std::regex parsable(R"(^\s*(\d+(?:_\d+)?)(?:;\S*)?\s*$)");
  static const std::regex plain(R"(Submitted batch job (\d+))");
  auto ls = text::lines(out);
  for (auto it = ls.rbegin(); it != ls.rend(); ++it) {
    std::smatch m;
    if (std::regex_match(*it, m, parsable) || std::regex_search(*it, m, plain)) return m[1].str();
  }
  return std::nullopt;
}

SubmitFailure classify_sbatch_error(std::string_view err) {
  std::string e = text::lower(err);
  auto has = [&](std::string_view s) { return e.find(s) != std::string::npos; };
  // Limits on how many jobs may be submitted lift when jobs leave the queue.
  if (has("submitjob")) return SubmitFailure::refused_by_limit;  // QOSMaxSubmitJobPerUserLimit, ...
  // Limits on one job's size or time never lift for the same request.
  if (has("perjoblimit") || has("maxwallduration")) return SubmitFailure::invalid;
  static const char* const kTransient[] = {
      "socket timed out",
      "unable to contact slurm controller",
      "temporarily unable to accept job",
      "resource temporarily unavailable",
      "zero bytes were transmitted",
      "connection refused",
      "communication connection failure",
      "timed out",
      "slurmctld is not responding",
  };
  for (const char* t : kTransient)
    if (has(t)) return SubmitFailure::transient;
  if (has("job violates accounting/qos policy")) return SubmitFailure::refused_by_limit;
  // "Invalid feature specification", "invalid partition", bad account, unreadable script...
  return SubmitFailure::invalid;
}

bool sbatch_never_connected(std::string_view err) {
  std::string e = text::lower(err);
  return e.find("connect failure") != std::string::npos || e.find("connection refused") != std::string::npos;
}

std::vector<JobInfo> parse_squeue(std::string_view text_in) {
  auto ls = text::lines(text_in);
  size_t h = 0;
  while (h < ls.size() && trim(ls[h]).empty()) ++h;
  if (h == ls.size()) return {};  // nothing printed at all: no jobs
  Table table(split(ls[h], '|'), "name");
  std::string state_col = table.has("state") ? "state" : "st";
  if (!table.has("jobid") || !table.has(state_col))
    throw UnexpectedOutput("squeue output has no JOBID|...|STATE header: '" + ls[h] + "'");
  std::vector<JobInfo> jobs;
  for (size_t i = h + 1; i < ls.size(); ++i) {
    if (trim(ls[i]).empty()) continue;
    auto row = table.split_row(ls[i]);
    JobInfo job;
    job.id = trim(table.get(row, "jobid"));
    if (job.id.empty()) continue;
    job.name = table.get(row, "name");
    job.raw_state = trim(table.get(row, state_col));
    job.state = state_or_active(job.raw_state);
    job.reason = slurm_value(table.get(row, "reason"));
    job.waiting = waiting_of(job.reason);
    job.elapsed_s = parse_slurm_duration(table.get(row, "time"));
    job.nodes = to_nodes(table.get(row, "nodes"));
    job.nodelist = slurm_value(table.get(row, "nodelist"));
    job.submit = parse_slurm_time(table.get(row, "submit_time"));
    job.start = parse_slurm_time(table.get(row, "start_time"));
    drop_predictions(job);
    jobs.push_back(std::move(job));
  }
  return expand_array_tasks(std::move(jobs));
}

std::vector<JobInfo> parse_sacct(std::string_view text_in) {
  auto ls = text::lines(text_in);
  size_t h = 0;
  while (h < ls.size() && trim(ls[h]).empty()) ++h;
  if (h == ls.size()) return {};
  Table table(split(ls[h], '|'), "jobname");
  if (!table.has("jobid") || !table.has("state"))
    throw UnexpectedOutput("sacct output has no JobID|...|State header: '" + ls[h] + "'");
  return parse_sacct_rows(table, std::vector<std::string>(ls.begin() + static_cast<long>(h) + 1, ls.end()));
}

std::vector<JobInfo> parse_sacct(std::string_view text_in, const std::vector<std::string>& columns) {
  return parse_sacct_rows(Table(columns, "jobname"), text::lines(text_in));
}

namespace {
// A numbered step's id ("123.4", "123_5.0"; the job's own id in group 1): "123.batch", "123.extern",
// "123.interactive" are not cases.
const std::regex& numbered_step() {
  static const std::regex numbered(R"(^(\d+(?:_\d+)?)\.\d+$)");
  return numbered;
}
}  // namespace

std::vector<StepInfo> parse_squeue_steps(std::string_view text_in) {
  std::vector<StepInfo> steps;
  for (const auto& line : text::lines(text_in)) {
    auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    StepInfo step;
    step.step_id = trim(line.substr(0, bar));
    std::smatch m;
    if (!std::regex_match(step.step_id, m, numbered_step())) continue;
    step.job_id = m[1].str();
    step.name = line.substr(bar + 1);
    steps.push_back(std::move(step));
  }
  return steps;
}

StepRecords parse_sacct_steps(std::string_view text_in, const std::vector<std::string>& columns) {
  Table table(columns, "jobname");
  if (!table.has("jobid") || !table.has("state"))
    throw UnexpectedOutput("sacct step fields lack JobID or State");
  // Numbered steps only: "123.batch", "123.extern", "123.interactive" are not cases; "123" and
  // "123_4" are the jobs themselves.
  static const std::regex whole(R"(^\d+(?:_\d+)?$)");
  StepRecords records;
  auto& steps = records.steps;
  std::map<std::string, size_t> seen;
  for (const auto& line : text::lines(text_in)) {
    if (trim(line).empty()) continue;
    auto row = table.split_row(line);
    StepInfo step;
    step.step_id = trim(table.get(row, "jobid"));
    std::smatch m;
    if (std::regex_match(step.step_id, whole)) {
      // Ended, with its end time: after an outage of slurmdbd, sacct shows ended jobs with End
      // "Unknown" until slurmctld has sent its backlog.
      if (is_final(state_or_active(trim(table.get(row, "state")))) && parse_slurm_time(table.get(row, "end")))
        records.ended.insert(step.step_id);
      continue;
    }
    if (!std::regex_match(step.step_id, m, numbered_step())) continue;
    step.job_id = m[1].str();
    step.name = table.get(row, "jobname");
    step.raw_state = trim(table.get(row, "state"));
    step.state = state_or_active(step.raw_state);
    set_exit(step, table.get(row, "exitcode"));
    step.start = parse_slurm_time(table.get(row, "start"));
    step.end = parse_slurm_time(table.get(row, "end"));
    step.elapsed_s = parse_slurm_duration(table.get(row, "elapsed"));
    step.nodelist = slurm_value(table.get(row, "nodelist"));
    step.energy_j = parse_consumed_energy(table.get(row, "consumedenergyraw"));
    drop_predictions(step);
    auto it = seen.find(step.step_id);
    if (it != seen.end()) {
      steps[it->second] = std::move(step);
    } else {
      seen[step.step_id] = steps.size();
      steps.push_back(std::move(step));
    }
  }
  return records;
}

std::vector<JobInfo> parse_scontrol_show_job(std::string_view text_in) {
  // Group the key=value words of each job: a job starts at a line whose first word is JobId=.
  std::vector<std::vector<std::string>> records;
  for (const auto& line : text::lines(text_in)) {
    auto w = text::words(line);
    if (w.empty()) continue;
    if (starts_with(w[0], "JobId=")) records.emplace_back();
    if (records.empty()) continue;
    auto& rec = records.back();
    rec.insert(rec.end(), w.begin(), w.end());
  }

  std::vector<JobInfo> jobs;
  for (const auto& rec : records) {
    std::map<std::string, std::string> kv;
    std::string last;
    for (const auto& word : rec) {
      auto eq = word.find('=');
      if (eq == std::string::npos || eq == 0) {
        if (!last.empty()) kv[last] += " " + word;  // a value with spaces ("JobName=my job")
        continue;
      }
      last = word.substr(0, eq);
      kv[last] = word.substr(eq + 1);
    }
    JobInfo job;
    job.id = kv["JobId"];
    // Array tasks under squeue's names: "155_2" for one task, "155_[3-4%2]" for those still pending.
    const std::string& array_job = kv["ArrayJobId"];
    const std::string& task = kv["ArrayTaskId"];
    if (!array_job.empty() && !task.empty())
      job.id = array_job + (text::to_long(task) ? "_" + task : "_[" + task + "]");
    job.name = kv["JobName"];
    job.raw_state = kv["JobState"];
    job.state = state_or_active(job.raw_state);
    job.reason = slurm_value(kv["Reason"]);
    job.waiting = waiting_of(job.reason);
    set_exit(job, kv["ExitCode"]);
    job.submit = parse_slurm_time(kv["SubmitTime"]);
    job.start = parse_slurm_time(kv["StartTime"]);
    job.end = parse_slurm_time(kv["EndTime"]);
    job.elapsed_s = parse_slurm_duration(kv["RunTime"]);
    job.nodes = to_nodes(kv["NumNodes"]);
    job.nodelist = slurm_value(kv["NodeList"]);
    drop_predictions(job);
    jobs.push_back(std::move(job));
  }
  return expand_array_tasks(std::move(jobs));
}

namespace {

// The value of `key` ("JobId=") in a line of key=value words; empty when the line has none.
std::string_view value_in(std::string_view line, std::string_view key) {
  for (size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
    if (at != 0 && line[at - 1] != ' ') continue;  // "ArrayJobId=" is not "JobId="
    const size_t from = at + key.size();
    return line.substr(from, line.find(' ', from) - from);
  }
  return {};
}

}  // namespace

std::string scontrol_lines_of(std::string_view text, const std::vector<std::string>& ids) {
  const std::set<std::string, std::less<>> wanted(ids.begin(), ids.end());
  std::set<std::string_view, std::less<>> arrays;  // the array ids of the tasks asked about
  for (const auto& id : wanted)
    if (auto u = id.find('_'); u != std::string::npos) arrays.insert(std::string_view(id).substr(0, u));
  std::string out, task_id;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    bool keep = wanted.count(value_in(line, "JobId=")) > 0;
    const std::string_view array = value_in(line, "ArrayJobId="), task = value_in(line, "ArrayTaskId=");
    if (!keep && !array.empty() && !task.empty()) {
      if (task.find_first_not_of("0123456789") == std::string_view::npos) {
        task_id.assign(array).append("_").append(task);
        keep = wanted.count(task_id) > 0;
      } else {
        keep = arrays.count(array) > 0;  // tasks still pending together: expanded by the parse
      }
    }
    if (keep) out.append(line).append("\n");
  }
  return out;
}

std::vector<JobInfo> expand_array_tasks(std::vector<JobInfo> jobs) {
  static const std::regex kTask(R"(^(\d+)_(\d+)$)"), kPending(R"(^(\d+)_\[([0-9,\-]+)(?:%\d+)?\]$)");
  std::vector<JobInfo> out;
  out.reserve(jobs.size());
  for (auto& job : jobs) {
    std::smatch m;
    if (job.id.find('_') == std::string::npos) {
      out.push_back(std::move(job));
    } else if (std::regex_match(job.id, m, kTask)) {
      job.array_task = std::stol(m[2].str());
      out.push_back(std::move(job));
    } else if (std::regex_match(job.id, m, kPending)) {
      const std::string base = m[1].str();
      for (const auto& range : split(m[2].str(), ',')) {
        auto dash = range.find('-');
        auto first = text::to_long(range.substr(0, dash));
        auto last = dash == std::string::npos ? first : text::to_long(range.substr(dash + 1));
        if (!first || !last || *last < *first) continue;
        for (long t = *first; t <= *last; ++t) {
          JobInfo task = job;
          task.id = base + "_" + std::to_string(t);
          task.array_task = t;
          out.push_back(std::move(task));
        }
      }
    } else {
      out.push_back(std::move(job));
    }
  }
  return out;
}

}  // namespace campaign::sched
