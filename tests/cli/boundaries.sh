#!/bin/bash
# The boundaries ARCHITECTURE.md promises, kept by grep over orchestrator/:
#  - scheduler dialect (commands, state and reason words) lives in sched/ and local/ (the back ends);
#    the engine and everything else see typed JobInfo values only;
#  - the wall clock is read by the engine's clock, the catalog's default clock, and the places that
#    stamp something (lock file, report date, job records of the local executor, the pack driver's
#    start markers, the sampler's rows, LSF's year-less times, status's running time, the site's date); monotonic deadlines of commands
#    are not decisions and not checked.
#
# Usage: bash tests/cli/boundaries.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
cd "$src/orchestrator" || exit 1

dialect='ReqNodeNotAvail|DependencyNeverSatisfied|\b(sacct|squeue|sbatch|scontrol|scancel|sinfo|bjobs|bsub|bkill)\b|TERM_[A-Z]'
found=$(grep -rnE "$dialect" --include='*.cpp' --include='*.hpp' . | grep -vE '^\./(sched|local)/')
check_eq "no scheduler dialect outside sched/ and local/" "" "$found"

wall='system_clock::now|std::time\(|[^_]time\(nullptr\)|CLOCK_REALTIME|gettimeofday'
allowed='^\./(engine/|local/|pack/driver\.cpp|sample/sampler\.cpp|catalog/impl\.cpp|catalog/lock\.cpp|sched/scheduler\.hpp|report/report\.cpp|site/site\.cpp|cli/status\.cpp)'
found=$(grep -rnE "$wall" --include='*.cpp' --include='*.hpp' . | grep -vE "$allowed")
check_eq "the wall clock is read only where ARCHITECTURE.md says" "" "$found"

# The checks can fail: each pattern finds what it must in the files that are allowed to hold it.
check "the dialect pattern matches sched/" grep -rqE "$dialect" sched
check "the clock pattern matches the engine" grep -rqE "$wall" engine
finish 4
