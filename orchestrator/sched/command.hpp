// Running scheduler commands through a Shell: the plumbing Slurm and Lsf share; internal to sched/.
// Invariant: a command that could not run, timed out or exited non-zero is reported with its argv,
// where it ran and what it printed, so that every SchedulerError is actionable as it stands.
#pragma once

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

// The account name on the machine `shell` runs on (`id -un`); throws SchedulerUnavailable.
std::string current_user(transport::Shell& shell, const SchedulerOptions& options);

// `items` without repeats, first occurrence kept.
std::vector<std::string> unique(const std::vector<std::string>& items);

}  // namespace campaign::sched::command
