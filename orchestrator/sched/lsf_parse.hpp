// Pure functions reading IBM Spectrum LSF output: bsub's acknowledgement, `bjobs -o ... -json`,
// `bjobs -noheader -o ...`, "Job <N> is not found" messages; state mapping and bsub error
// classification. No I/O; tested on outputs recorded on real LSF systems (Summit among them).
//
// Invariants: records are read by field name, never by position; text LSF prints around the data
// (esub messages, "LSF is processing your request. Please wait ...", an echoed command line) is
// skipped; a state this code does not know maps to an active state, never a final one; "-" and ""
// mean no value.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sched/scheduler.hpp"

namespace campaign::sched {

// LSF STAT (PEND, RUN, DONE, EXIT, PSUSP, USUSP, SSUSP, UNKWN, ZOMBI, WAIT, PROV, POST_DONE,
// POST_ERR) to campaign's. An EXIT is refined by the termination reason when known: TERM_RUNLIMIT and
// TERM_DEADLINE give timeout, TERM_OWNER/TERM_ADMIN (and FORCE variants) cancelled, TERM_MEMLIMIT
// oom, TERM_PREEMPT preempted, host losses node_fail, anything else failed. nullopt: unknown STAT.
std::optional<State> map_lsf_state(std::string_view stat, std::string_view exit_reason = {});

// The job id in "Job <123> is submitted to [default] queue <q>.", wherever it is in the output.
std::optional<std::string> parse_bsub(std::string_view out);

// What a failed bsub's output means for the engine (see SubmitFailure).
SubmitFailure classify_bsub_error(std::string_view output);

// Run time as `bjobs -o run_time` prints it ("16038 second(s)", or "00:00:01" with -hms).
std::optional<double> parse_lsf_run_time(std::string_view text);

// A time as bjobs prints it, read as local time: "Dec 28 19:56" (-o, -json and the default table),
// with seconds, a year ("Dec 28 19:56:03 2024") or a trailing flag (L actual, E estimated, X
// overrun); "Tue Jul 24 10:03:15" (-l, -UF); "10/19-17:10:27" (-W). Without a year: with `submit`,
// the first such time at or after it (a job submitted on Dec 31 that started on Jan 1 started the
// next year); without, the last one no later than `now` (plus a day for zones and clock skew).
std::optional<Time> parse_lsf_time(std::string_view text, Time now,
                                   std::optional<Time> submit = std::nullopt);

// `bjobs -o '<fields>' -json`. Understood keys: JOBID, JOB_NAME, STAT, EXIT_CODE, EXIT_REASON,
// PEND_REASON, SUBMIT_TIME, START_TIME, FINISH_TIME, RUN_TIME, NEXEC_HOST; records carrying an ERROR
// key (a job id LSF does not know) are skipped. Throws UnexpectedOutput for malformed JSON. Times
// without a year are placed by `now`, when bjobs ran (see parse_lsf_time).
std::vector<JobInfo> parse_bjobs_json(std::string_view text, Time now = current_time());

// `bjobs -noheader -o "<fields> delimiter='<d>'"`, `fields` being the -o field names in order
// (any case). Lines with fewer fields (messages) are skipped.
std::vector<JobInfo> parse_bjobs_noheader(std::string_view text, const std::vector<std::string>& fields,
                                          char delimiter, Time now = current_time());

// Job ids named by "Job <N> is not found" lines.
std::vector<std::string> parse_bjobs_not_found(std::string_view err);

}  // namespace campaign::sched
