// Running scheduler commands through a Shell: the plumbing Slurm and Lsf share; internal to sched/.
// Invariant: a command that could not run, timed out or exited non-zero is reported with its argv,
// where it ran and what it printed, so that every SchedulerError is actionable as it stands.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "sched/scheduler.hpp"

namespace campaign::sched::command {

// Characters of argv on one command line (each word and a separator).
size_t length(const std::vector<std::string>& argv);

// "`squeue -u bob` failed with exit status 1 (local): <stderr>" (bounded in length).
std::string failure(const std::vector<std::string>& argv, const transport::CommandResult& r,
                    const transport::Shell& shell);

// Runs a query-type command; throws SchedulerUnavailable when it timed out or could not be started
// (126/127). Other exit codes are left to the caller, which knows which ones are benign.
transport::CommandResult run(transport::Shell& shell, const std::vector<std::string>& argv,
                             const SchedulerOptions& options);

// The command was killed by a signal (exit status 128+N; what a shell, LocalShell and SshShell
// report): a submit command killed half-way may or may not have reached the scheduler.
inline bool killed_by_signal(const transport::CommandResult& r) {
  return r.exit_code > 128 && r.exit_code <= 192;
}

// How a back end reads its submit command's result: the job id, or the SubmitError it means.
// `argv` is the command as the user would type it (for messages).
using ReadSubmit =
    std::function<std::string(const std::vector<std::string>& argv, const transport::CommandResult& r)>;

// The checks every submit command's result gets first: timed out or killed (transient: it may have
// submitted), not found or not executable (invalid). Throws SubmitError.
void check_submit_ran(const std::vector<std::string>& argv, const transport::CommandResult& r,
                      const transport::Shell& shell);

// `argv` under a POSIX sh wrapper that records its outcome at `record` (SubmitRequest::record): it
// ignores the hang-up and broken pipe of a lost connection, writes the command's output to
// RECORD.out/.err, bounds it by `timeout` (coreutils' timeout, where the machine has it), then
// writes its exit status to RECORD.rc (renamed into place: whole or absent) and prints the output
// as the command would have.
std::vector<std::string> recorded(const std::vector<std::string>& argv, const std::string& record,
                                  std::chrono::milliseconds timeout);
// Runs `argv` through `shell`, under recorded() when `record` is not empty. A transport failure's
// message names `argv` as the user would type it, not the wrapper.
transport::CommandResult run_submit(transport::Shell& shell, const std::vector<std::string>& argv,
                                    const std::string& record, std::chrono::milliseconds timeout,
                                    const std::string& stdin_data = {});
// The records at these prefixes, read in one round trip and judged by `read` (with `argv`, the
// command's words, for its messages).
std::vector<SubmitRecord> read_records(transport::Shell& shell, const std::vector<std::string>& records,
                                       const std::vector<std::string>& argv, const ReadSubmit& read);

// The account name on the machine `shell` runs on (`id -un`); throws SchedulerUnavailable.
std::string current_user(transport::Shell& shell, const SchedulerOptions& options);

// `items` without repeats, first occurrence kept.
std::vector<std::string> unique(const std::vector<std::string>& items);

}  // namespace campaign::sched::command
