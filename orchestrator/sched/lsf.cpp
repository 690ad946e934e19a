// LSF back end (see lsf.hpp): argv arrays through the Shell, output to the parsers in lsf_parse.cpp.
#include "sched/lsf.hpp"

#include <map>
#include <set>

#include "sched/command.hpp"
#include "sched/lsf_parse.hpp"
#include "sched/text.hpp"
#include "util/strings.hpp"

namespace campaign::sched {

namespace {

// Lines bjobs/bkill print that are answers about jobs, not failures of the command.
bool benign(const std::string& line) {
  static const char* const kBenign[] = {
      "is not found",        "No unfinished job found", "No job found",
      "No matching job",     "already finished",        "has already finished",
      "is being terminated", "is being signaled",       "LSF is processing your request",
  };
  for (const char* b : kBenign)
    if (text::contains_ci(line, b)) return true;
  return false;
}

std::vector<std::string> problems(const std::string& err) {
  std::vector<std::string> out;
  for (const auto& line : text::lines(err))
    if (!trim(line).empty() && !benign(line)) out.push_back(trim(line));
  return out;
}

std::vector<std::string> split_fields(const std::string& fields) { return text::words(fields); }

}  // namespace

Lsf::Lsf(transport::Shell& shell, SchedulerOptions options) : shell_(shell), options_(std::move(options)) {}

const std::string& Lsf::user() {
  if (!options_.user.empty()) return options_.user;
  if (user_.empty()) user_ = command::current_user(shell_, options_);
  return user_;
}

std::string Lsf::submit(const SubmitRequest& request) {
  std::vector<std::string> argv = {"bsub"};
  std::string name = request.job_name;
  if (request.array_tasks > 0) {  // an array: "name[1-n]%T", elements "ID[i]" with $LSB_JOBINDEX = i
    name.append("[1-").append(std::to_string(request.array_tasks)).append("]");
    if (request.array_throttle > 0) name.append("%").append(std::to_string(request.array_throttle));
  }
  if (!name.empty()) argv.insert(argv.end(), {"-J", name});
  if (!request.workdir.empty()) argv.insert(argv.end(), {"-cwd", request.workdir});
  if (!request.depends_on.empty()) {
    std::vector<std::string> conds;
    for (const auto& id : request.depends_on) conds.push_back("done(" + id + ")");
    argv.insert(argv.end(), {"-w", join(conds, " && ")});
  }
  argv.insert(argv.end(), request.extra_args.begin(), request.extra_args.end());

  std::string script;
  if (options_.lsf_script_on_stdin) {
    auto text = shell_.read_file(request.script_path);
    if (!text) throw SubmitError(SubmitFailure::invalid, "job script not found: " + request.script_path);
    script = std::move(*text);
  } else {
    argv.push_back(request.script_path);
  }

  auto r = command::run_submit(shell_, argv, request.record, options_.command_timeout, script);
  command::check_submit_ran(argv, r, shell_);
  return read_bsub(argv, r);
}

std::vector<SubmitRecord> Lsf::submission_records(const std::vector<std::string>& records) {
  return command::read_records(shell_, records, {"bsub"},
                               [&](const auto& argv, const auto& r) { return read_bsub(argv, r); });
}

std::string Lsf::read_bsub(const std::vector<std::string>& argv, const transport::CommandResult& r) {
  auto id = parse_bsub(r.out + "\n" + r.err);
  if (r.exit_code != 0)
    throw SubmitError(classify_bsub_error(r.out + "\n" + r.err), command::failure(argv, r, shell_));
  if (!id)
    throw SubmitError(
        SubmitFailure::transient,
        "`" + transport::display_command(argv) +
            "` printed no job id (the job may have been submitted): " + trim(r.out + " " + r.err));
  return *id;
}

std::vector<JobInfo> Lsf::bjobs(const std::vector<std::string>& filters, const std::vector<std::string>& ids,
                                const std::string& fields) {
  std::vector<std::string> base = {"bjobs"};
  base.insert(base.end(), filters.begin(), filters.end());
  if (options_.lsf_json) {
    base.insert(base.end(), {"-o", fields, "-json"});
  } else {
    base.insert(base.end(), {"-noheader", "-o", fields + " delimiter='" + kDelimiter + "'"});
  }
  // Without ids, one command with the filters alone.
  auto chunks = ids.empty() ? std::vector<std::vector<std::string>>{{}}
                            : chunk_by_length(ids, command::length(base), options_.max_command_chars);
  std::vector<JobInfo> jobs;
  for (const auto& chunk : chunks) {
    auto argv = base;
    argv.insert(argv.end(), chunk.begin(), chunk.end());
    auto r = command::run(shell_, argv, options_);
    if (r.exit_code != 0) {
      auto bad = problems(r.err);
      if (!bad.empty() || (trim(r.err).empty() && trim(r.out).empty()))
        throw SchedulerUnavailable(command::failure(argv, r, shell_));
    }
    auto part = options_.lsf_json ? parse_bjobs_json(r.out)
                                  : parse_bjobs_noheader(r.out, split_fields(fields), kDelimiter);
    jobs.insert(jobs.end(), part.begin(), part.end());
  }
  return jobs;
}

std::vector<JobInfo> Lsf::query(const std::vector<std::string>& ids_in) {
  auto ids = command::unique(ids_in);
  if (ids.empty()) return {};
  std::map<std::string, JobInfo> found;
  for (auto& job : bjobs({}, ids, kFields)) found[job.id] = std::move(job);
  std::vector<JobInfo> out;
  for (const auto& id : ids) {
    auto it = found.find(id);
    if (it != found.end()) out.push_back(std::move(it->second));
  }
  return out;
}

std::vector<JobInfo> Lsf::find_by_name(const std::vector<std::string>& names_in) {
  auto names = command::unique(names_in);
  if (names.empty()) return {};
  std::set<std::string> wanted(names.begin(), names.end());
  std::vector<JobInfo> out;
  for (auto& job : bjobs({"-a", "-u", user()}, {}, kFields))
    if (wanted.count(job.name)) out.push_back(std::move(job));
  return out;
}

int Lsf::queued_jobs_of_user() {
  int n = 0;
  for (const auto& job : bjobs({"-u", user()}, {}, "jobid stat"))
    if (!is_final(job.state)) ++n;
  return n;
}

void Lsf::cancel(const std::vector<std::string>& ids_in) {
  auto ids = command::unique(ids_in);
  if (ids.empty()) return;
  for (const auto& chunk : chunk_by_length(ids, command::length({"bkill"}), options_.max_command_chars)) {
    std::vector<std::string> argv = {"bkill"};
    argv.insert(argv.end(), chunk.begin(), chunk.end());
    auto r = command::run(shell_, argv, options_);
    auto bad = problems(r.err);
    if (!bad.empty())
      throw SchedulerUnavailable("`" + transport::display_command(argv) + "` (" + shell_.describe() +
                                 "): " + join(bad, "; "));
    if (r.exit_code != 0 && trim(r.err).empty() && trim(r.out).empty())
      throw SchedulerUnavailable(command::failure(argv, r, shell_));
  }
}

}  // namespace campaign::sched
