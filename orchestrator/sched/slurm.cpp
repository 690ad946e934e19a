// Slurm back end (see slurm.hpp): builds argv arrays, runs them through the Shell, hands the output
// to the pure parsers in slurm_parse.cpp.
#include "sched/slurm.hpp"

#include <map>
#include <set>

#include "sched/command.hpp"
#include "sched/slurm_parse.hpp"
#include "sched/text.hpp"
#include "util/strings.hpp"

namespace campaign::sched {

namespace {

std::vector<std::string> with_standard_time(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"env", "SLURM_TIME_FORMAT=standard"});
  return argv;
}

// The jobs in the outputs of Slurm::sacct(), each with its own header.
std::optional<std::vector<JobInfo>> jobs_of(const std::optional<std::vector<std::string>>& outputs) {
  if (!outputs) return std::nullopt;
  std::vector<JobInfo> jobs;
  for (const auto& out : *outputs) {
    auto part = parse_sacct(out);
    jobs.insert(jobs.end(), part.begin(), part.end());
  }
  return jobs;
}

}  // namespace

Slurm::Slurm(transport::Shell& shell, SchedulerOptions options)
    : shell_(shell), options_(std::move(options)) {}

const std::string& Slurm::user() {
  if (!options_.user.empty()) return options_.user;
  if (user_.empty()) user_ = command::current_user(shell_, options_);
  return user_;
}

std::vector<std::string> Slurm::sbatch_argv(const SubmitRequest& request) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  if (!request.job_name.empty()) argv.push_back("--job-name=" + request.job_name);
  // singleton: a second job of the name waits while the first runs. A submission answered twice (its
  // answer lost with the connection, sent again) would otherwise run twice before the engine can see
  // both and cancel one; the names are unique to a submission, and an array's tasks share theirs
  // without holding each other (tests/slurm/README.md). Never without a name: Slurm would take the
  // script's, shared by every case.
  std::vector<std::string> deps;
  if (!request.depends_on.empty()) deps.push_back("afterok:" + join(request.depends_on, ":"));
  if (!request.job_name.empty()) deps.push_back("singleton");
  if (!deps.empty()) argv.push_back("--dependency=" + join(deps, ","));
  if (!request.workdir.empty()) argv.push_back("--chdir=" + request.workdir);
  if (request.array_tasks > 0)
    argv.push_back("--array=0-" + std::to_string(request.array_tasks - 1) +
                   (request.array_throttle > 0 ? "%" + std::to_string(request.array_throttle) : ""));
  argv.insert(argv.end(), request.extra_args.begin(), request.extra_args.end());
  argv.push_back(request.script_path);
  return argv;
}

std::string Slurm::read_sbatch(const std::vector<std::string>& argv, const transport::CommandResult& r) {
  if (r.exit_code != 0)
    throw SubmitError(classify_sbatch_error(r.err + "\n" + r.out), command::failure(argv, r, shell_));
  auto id = parse_sbatch(r.out);
  if (!id)
    throw SubmitError(SubmitFailure::transient, transport::display_command(argv) +
                                                    " printed no job id (the job may have been submitted): " +
                                                    trim(r.out + " " + r.err));
  return *id;
}

std::string Slurm::submit(const SubmitRequest& request) {
  auto argv = sbatch_argv(request);
  auto r = command::run_submit(shell_, argv, request.record, options_.command_timeout);
  command::check_submit_ran(argv, r, shell_);
  return read_sbatch(argv, r);
}

std::vector<SubmitRecord> Slurm::submission_records(const std::vector<std::string>& records) {
  return command::read_records(shell_, records, {"sbatch"}, [&](const auto& argv, const auto& r) {
    try {
      return read_sbatch(argv, r);
    } catch (const SubmitError& e) {
      // An sbatch that ended without a connection submitted nothing: no need to wait for a job.
      if (e.kind() == SubmitFailure::transient && r.exit_code != 0 && sbatch_never_connected(r.err + r.out))
        throw SubmitError(SubmitFailure::refused_by_limit, e.what());
      throw;
    }
  });
}

std::vector<JobInfo> Slurm::squeue(bool recently_ended) {
  // -r: one line per array task, pending ones too (else "123_[5-9%2]").
  std::vector<std::string> argv = {"squeue", "-r", "-u", user()};
  if (recently_ended) argv.insert(argv.end(), {"-t", "all"});
  argv.insert(argv.end(), {"-o", kSqueueFormat});
  argv = with_standard_time(std::move(argv));
  auto r = command::run(shell_, argv, options_);
  if (r.exit_code != 0) throw SchedulerUnavailable(command::failure(argv, r, shell_));
  return parse_squeue(r.out);
}

std::optional<std::vector<std::string>> Slurm::sacct(const std::vector<std::string>& base,
                                                     const std::vector<std::string>& list,
                                                     const std::string& flag) {
  std::vector<std::string> outputs;
  // `flag` is either a separate argument ("-j" IDS) or joined to the list ("--name=" NAMES).
  bool joined = !flag.empty() && flag.back() == '=';
  size_t fixed = command::length(base) + flag.size() + 1;
  for (const auto& chunk : chunk_by_length(list, fixed, options_.max_command_chars)) {
    auto argv = base;
    if (joined) {
      argv.push_back(flag + join(chunk, ","));
    } else {
      argv.push_back(flag);
      argv.push_back(join(chunk, ","));
    }
    auto r = command::run(shell_, argv, options_);
    if (text::contains_ci(r.err + r.out, "accounting storage is disabled")) {
      accounting_disabled_ = true;
      return std::nullopt;
    }
    if (r.exit_code != 0) throw SchedulerUnavailable(command::failure(argv, r, shell_));
    outputs.push_back(std::move(r.out));
  }
  return outputs;
}

std::vector<JobInfo> Slurm::scontrol(const std::vector<std::string>& ids) {
  auto argv = with_standard_time({"scontrol", "-o", "show", "job"});
  if (ids.size() == 1) argv.push_back(ids[0]);
  auto r = command::run(shell_, argv, options_);
  if (r.exit_code != 0) {
    // The one job asked for is gone from slurmctld's memory too.
    if (text::contains_ci(r.err, "Invalid job id specified")) return {};
    throw SchedulerUnavailable(command::failure(argv, r, shell_));
  }
  // Several: every job slurmctld holds was listed (one id per call only); the others' lines are
  // skipped unparsed (parsing them all was 43 % of a 30,000-case array run's CPU). None: all wanted.
  return parse_scontrol_show_job(ids.size() > 1 ? scontrol_lines_of(r.out, ids) : r.out);
}

std::vector<JobInfo> Slurm::query(const std::vector<std::string>& ids_in) {
  auto ids = command::unique(ids_in);
  if (ids.empty()) return {};
  std::set<std::string> wanted(ids.begin(), ids.end());
  std::map<std::string, JobInfo> found, ended_in_queue;

  for (auto& job : squeue(/*recently_ended=*/false)) {
    if (!wanted.count(job.id)) continue;
    // squeue may still show a job that just ended, without its exit code: accounting has it.
    if (is_final(job.state))
      ended_in_queue[job.id] = std::move(job);
    else
      found[job.id] = std::move(job);
  }

  std::vector<std::string> departed;
  for (const auto& id : ids)
    if (!found.count(id)) departed.push_back(id);

  if (!departed.empty()) {
    std::optional<std::string> sacct_error;
    if (!accounting_disabled_) {
      try {
        auto base = with_standard_time({"sacct", "-X", "-P", "-o", kSacctFields});
        if (auto rows = jobs_of(sacct(base, departed, "-j")))
          for (auto& job : *rows) {
            energy_seen_ |= job.energy_j.has_value();
            if (wanted.count(job.id)) found[job.id] = std::move(job);
          }
      } catch (const SchedulerUnavailable& e) {
        sacct_error = e.what();  // slurmdbd down: slurmctld may still know recent jobs
      }
    }
    std::vector<std::string> missing;
    for (const auto& id : departed)
      if (!found.count(id)) missing.push_back(id);
    if (!missing.empty()) {
      for (auto& job : scontrol(missing))
        if (wanted.count(job.id) && !found.count(job.id)) found[job.id] = std::move(job);
      for (auto& [id, job] : ended_in_queue)
        if (!found.count(id)) found[id] = std::move(job);
      if (sacct_error)
        for (const auto& id : missing)
          if (!found.count(id)) throw SchedulerUnavailable(*sacct_error);
    }
  }

  std::vector<JobInfo> out;
  for (const auto& id : ids) {
    auto it = found.find(id);
    if (it != found.end()) out.push_back(std::move(it->second));
  }
  return out;
}

std::vector<JobInfo> Slurm::find_by_name(const std::vector<std::string>& names_in) {
  auto names = command::unique(names_in);
  if (names.empty()) return {};
  std::set<std::string> wanted(names.begin(), names.end());
  std::map<std::string, JobInfo> by_id;

  // With -t all, squeue also lists jobs that ended within slurmctld's MinJobAge: slurmdbd may still
  // carry such a job under the placeholder name "allocation", where sacct --name cannot find it.
  for (auto& job : squeue(/*recently_ended=*/true))
    if (wanted.count(job.name)) by_id[job.id] = std::move(job);

  std::optional<std::vector<JobInfo>> history;
  if (!accounting_disabled_) {
    auto base = with_standard_time({"sacct", "-X", "-P", "-u", user(), "-S",
                                    "now-" + std::to_string(options_.history.count()) + "hours", "-E", "now",
                                    "-o", kSacctFields});
    history = jobs_of(sacct(base, names, "--name="));
  }
  if (!history) history = scontrol({});  // without accounting only slurmctld's memory is left
  for (auto& job : *history) {
    if (!wanted.count(job.name)) continue;
    auto it = by_id.find(job.id);
    // squeue is fresher for jobs still queued; accounting knows how ended jobs ended.
    if (it == by_id.end() || is_final(it->second.state)) by_id[job.id] = std::move(job);
  }

  std::vector<JobInfo> out;
  for (const auto& name : names)
    for (auto& [id, job] : by_id)
      if (job.name == name) out.push_back(job);
  return out;
}

int Slurm::queued_jobs_of_user() {
  int n = 0;
  for (const auto& job : squeue(/*recently_ended=*/false))
    if (!is_final(job.state)) ++n;
  return n;
}

void Slurm::cancel(const std::vector<std::string>& ids_in) {
  auto ids = command::unique(ids_in);
  if (ids.empty()) return;
  for (const auto& chunk : chunk_by_length(ids, command::length({"scancel"}), options_.max_command_chars)) {
    std::vector<std::string> argv = {"scancel"};
    argv.insert(argv.end(), chunk.begin(), chunk.end());
    auto r = command::run(shell_, argv, options_);
    // Jobs that ended meanwhile are what we wanted; any other complaint is a failure, even with
    // status 0 (scancel exits 0 on "Access/permission denied").
    std::vector<std::string> problems;
    for (const auto& line : text::lines(r.err)) {
      if (trim(line).empty()) continue;
      if (text::contains_ci(line, "Invalid job id specified") ||
          text::contains_ci(line, "already completing") || text::contains_ci(line, "already completed"))
        continue;
      if (text::contains_ci(line, "error")) problems.push_back(trim(line));
    }
    if (!problems.empty())
      throw SchedulerUnavailable("`" + transport::display_command(argv) + "` (" + shell_.describe() +
                                 "): " + join(problems, "; "));
    if (r.exit_code != 0 && trim(r.err).empty())
      throw SchedulerUnavailable(command::failure(argv, r, shell_));
  }
}

StepRecords Slurm::query_steps(const std::vector<std::string>& ids_in) {
  auto ids = command::unique(ids_in);
  if (ids.empty() || accounting_disabled_) return {};
  auto base = with_standard_time({"sacct", "-P", "-n", "-o", kSacctStepFields});
  auto outputs = sacct(base, ids, "-j");
  if (!outputs) return {};
  auto columns = split(kSacctStepFields, ',');
  StepRecords records;
  records.kept = true;
  for (const auto& out : *outputs) {
    auto part = parse_sacct_steps(out, columns);
    for (auto& step : part.steps) energy_seen_ |= step.energy_j.has_value();
    records.steps.insert(records.steps.end(), part.steps.begin(), part.steps.end());
    records.ended.insert(part.ended.begin(), part.ended.end());
  }
  return records;
}

std::map<std::string, double> Slurm::consumed_energy(const std::vector<std::string>& ids_in) {
  auto ids = command::unique(ids_in);
  std::map<std::string, double> energy;
  if (ids.empty() || accounting_disabled_ || !energy_seen_) return energy;
  auto base = with_standard_time({"sacct", "-X", "-P", "-o", kSacctFields});
  if (auto rows = jobs_of(sacct(base, ids, "-j")))
    for (auto& job : *rows)
      if (job.energy_j && is_final(job.state) && job.end)
        energy[job.id] = *job.energy_j;  // not a running total
  return energy;
}

std::optional<std::vector<StepInfo>> Slurm::running_steps(const std::vector<std::string>& ids_in) {
  auto ids = command::unique(ids_in);
  std::vector<StepInfo> steps;
  if (ids.empty()) return steps;
  std::vector<std::string> argv = {"squeue", "-h", "-s", "-j", join(ids, ","), "-o", "%i|%j"};
  auto r = command::run(shell_, argv, options_);
  // squeue -j names an ended job "Invalid job id": no step of it runs.
  if (r.exit_code != 0 && !text::contains_ci(r.err, "Invalid job id"))
    throw SchedulerUnavailable(command::failure(argv, r, shell_));
  return parse_squeue_steps(r.out);
}

}  // namespace campaign::sched
