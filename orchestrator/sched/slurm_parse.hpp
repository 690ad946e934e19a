// Pure functions reading Slurm's command output: sbatch, squeue, sacct, scontrol; state mapping and
// sbatch error classification. No I/O; tested on recorded outputs of real Slurm releases.
//
// Invariants: tables are read by their header names, never by column positions, so a reordered or
// extended field list still parses; job steps (`123.batch`, `123.0`) never become jobs; a state this
// code does not know maps to an active state (the job is polled again, never retried while it may
// still run); placeholders such as "Unknown", "None", "(null)" become empty strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sched/scheduler.hpp"

namespace campaign::sched {

// Slurm job state (long "CANCELLED by 1000" / "CANCELLED+" forms or squeue's compact codes like
// "PD") to campaign's; nullopt for a state unknown here.
std::optional<State> map_slurm_state(std::string_view raw);

struct SlurmExitCode {
  int code = 0;
  int signal = 0;
};
// sacct/scontrol "ExitCode" ("3:0" exit 3, "0:9" signal 9); nullopt when not of that shape.
std::optional<SlurmExitCode> parse_slurm_exit_code(std::string_view text);

// Slurm durations in seconds: "[D-]HH:MM:SS", "MM:SS" (squeue's %M for short jobs), fractional
// seconds "05:05.002"; nullopt for "INVALID", "UNLIMITED", "N/A" and the like.
std::optional<double> parse_slurm_duration(std::string_view text);

// sacct's ConsumedEnergyRaw in joules; nullopt for "", "0" (what it prints when no energy plugin
// gathered any: no job ever uses none) and NO_VAL (a value near 2^64).
std::optional<double> parse_consumed_energy(std::string_view text);

// A time as Slurm prints it ("2026-11-22T05:51:03", the cluster's local time, read as local time
// here); nullopt for "Unknown", "None" and anything else.
std::optional<Time> parse_slurm_time(std::string_view text);

// The job id printed by `sbatch --parsable` ("123" or "123;cluster"), also accepting the plain
// "Submitted batch job 123"; warnings around it are skipped. nullopt when no id is printed.
std::optional<std::string> parse_sbatch(std::string_view out);

// What a failed sbatch's stderr means for the engine (see SubmitFailure).
SubmitFailure classify_sbatch_error(std::string_view err);
// sbatch's transient error says that it never reached slurmctld (no connection: "Unable to contact
// slurm controller (connect failure)", "Connection refused"): nothing was submitted. A socket timeout
// is not such an error: slurmctld may have taken the job and lost only its answer.
bool sbatch_never_connected(std::string_view err);

// `squeue -o '%i|%j|%T|...'` output with its header line (JOBID|NAME|STATE|...). Header names
// understood: JOBID, NAME, STATE or ST, REASON, NODES, TIME, NODELIST, SUBMIT_TIME, START_TIME; others
// are ignored. Throws UnexpectedOutput when there is no header with JOBID and STATE/ST.
std::vector<JobInfo> parse_squeue(std::string_view text);

// `sacct -P` (or `--parsable`, trailing '|') output with its header line (JobID|JobName|State|...).
// Columns understood (any case): JobID, JobName, State, ExitCode, Reason, Submit, Start, End, Elapsed,
// NNodes, NodeList, ConsumedEnergyRaw. A job listed twice (requeued) keeps its last line. Throws
// UnexpectedOutput when the header lacks JobID or State.
std::vector<JobInfo> parse_sacct(std::string_view text);
// The same for output printed with --noheader, `columns` being the --format field list.
std::vector<JobInfo> parse_sacct(std::string_view text, const std::vector<std::string>& columns);

// `sacct -P -n -o <columns>` output without -X, `columns` being the --format field list: the numeric
// steps of the jobs ("123.4"; "123_7.4" for array tasks) in the order printed (the batch, extern and
// interactive steps are left out), and the jobs whose own line has a final state and an End time
// (`ended`; `kept` is left false: that is the caller's to say). Columns understood (any case): JobID,
// JobName, State, ExitCode, Start, End, Elapsed, NodeList, ConsumedEnergyRaw. A step listed twice keeps its
// last line. Throws UnexpectedOutput when `columns` lacks JobID or State.
StepRecords parse_sacct_steps(std::string_view text, const std::vector<std::string>& columns);
// `squeue -h -s -o "%i|%j"`: the running steps (id "2086.3", name), batch and extern steps left out.
std::vector<StepInfo> parse_squeue_steps(std::string_view text);

// `scontrol show job [-o]` output: one job per line with -o, or blocks of indented lines without.
// Array tasks get squeue's ids: "123_4", or "123_[5-8%2]" for tasks still pending together. Lines before the
// first JobId= ("No jobs in the system") are ignored.
std::vector<JobInfo> parse_scontrol_show_job(std::string_view text);
// Of `scontrol -o show job` without a job id (every job slurmctld holds, those that ended within its
// MinJobAge too: thousands on a busy cluster), the lines of the jobs in `ids` (squeue's ids, "123" or
// "123_4"), and those of pending tasks listed together ("ArrayTaskId=5-8%2") of an array asked about:
// only those are worth parsing.
std::string scontrol_lines_of(std::string_view text, const std::vector<std::string>& ids);

// Array tasks as one JobInfo each: "123_4" gets array_task 4; "123_[5-7,9%2]" (tasks still pending
// together, as sacct and scontrol print them) becomes 123_5, 123_6, 123_7 and 123_9. Other jobs pass.
std::vector<JobInfo> expand_array_tasks(std::vector<JobInfo> jobs);

}  // namespace campaign::sched
