#!/usr/bin/env bash
# Record real outputs of job array tasks ending NODE_FAIL, TIMEOUT and CANCELLED, for the parsers'
# unit tests, with the Slurm back end's own commands (squeue -r, sacct -X, scontrol -o).
#
# Usage: tests/slurm/record-arrays.sh [OUTDIR]     (default: tests/data/slurm/<slurm version>/arrays)
#
# Needs the cluster of start-cluster.sh (it is started if needed); run it under the cluster's lock
# (`flock /tmp/campaign-testcluster.lock ...`). Takes about 2 minutes (a task must reach its time
# limit). Disruptive: it sets cn4 DOWN (jobs on cn4 get NODE_FAIL), then resumes it. Two arrays:
#   rec-array-limit (--array=0-2 --time=1 --constraint=mc): task 0 ends at once (COMPLETED), task 1
#     sleeps past its time limit (TIMEOUT), task 2 is cancelled by `scancel ARRAY_2` while it runs;
#   rec-array-nodefail (--array=0-1 --no-requeue -w cn4 -c 2): both tasks run on cn4, set DOWN.
# Writes NAME.txt per command and a README.md naming the command behind each file.
source "$(dirname "${BASH_SOURCE[0]}")/record-lib.sh"
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=$(sinfo --version 2>/dev/null | awk '{print $2}' | cut -d. -f1,2) || true
OUT=${1:-$HERE/../data/slurm/${VERSION:-unknown}/arrays}
SQUEUE_FMT='%i|%j|%T|%r|%D|%M|%l|%N|%V|%S'                                           # sched::Slurm::kSqueueFormat
SACCT_FIELDS=JobID,JobName%200,State,ExitCode,Reason,Submit,Start,End,Elapsed,NNodes,NodeList,ConsumedEnergyRaw # kSacctFields
WORK=$(mktemp -d)
trap 'scontrol update nodename=cn4 state=resume >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
cd "$WORK"

say() { printf '[record-arrays] %s\n' "$*"; }
task_state() { squeue -h -r -t all -j "$1" -o %T 2>/dev/null; }
task_is() { [[ $(task_state "$1") == "$2" ]]; }
sacct_is() { [[ $(sacct -n -X -P -j "$1" -o State 2>/dev/null) == "$2"* ]]; }
INDEX=$WORK/index.md
: >"$INDEX"
# rec NAME 'COMMAND': runs COMMAND with bash into NAME.txt; indexes it.
rec() {
    bash -c "$2" >"$OUT/$1.txt"
    # shellcheck disable=SC2016 # the backquotes are Markdown
    printf '| %s.txt | `%s` |\n' "$1" "${2//|/\\|}" >>"$INDEX"
}

"$HERE/start-cluster.sh" >/dev/null
mkdir -p "$OUT"
rm -f "$OUT"/*.txt

cat >limit.sh <<'EOF'
#!/bin/bash
case $SLURM_ARRAY_TASK_ID in 0) exit 0 ;; *) sleep 600 ;; esac
EOF
LIMIT=$(sbatch --parsable -J rec-array-limit --array=0-2 --time=1 --constraint=mc -o limit-%a.out limit.sh |
    cut -d';' -f1)
NODEFAIL=$(sbatch --parsable -J rec-array-nodefail --array=0-1 --no-requeue -w cn4 -c 2 -o nodefail-%a.out \
    --wrap 'sleep 600' | cut -d';' -f1)
say "arrays $LIMIT and $NODEFAIL"
wait_until 60 task_is "${NODEFAIL}_0" RUNNING
wait_until 60 task_is "${NODEFAIL}_1" RUNNING
wait_until 60 task_is "${LIMIT}_2" RUNNING
wait_until 60 sacct_is "${LIMIT}_0" COMPLETED
scancel "${LIMIT}_2"
say "setting cn4 DOWN under ${NODEFAIL}_0 and ${NODEFAIL}_1"
scontrol update nodename=cn4 state=down reason=record-arrays
wait_until 30 sacct_is "${NODEFAIL}_1" NODE_FAIL
scontrol update nodename=cn4 state=resume >/dev/null 2>&1 || true
wait_until 30 sacct_is "${LIMIT}_2" CANCELLED
rec squeue-r-array-running "env SLURM_TIME_FORMAT=standard squeue -r -u root -t all -n rec-array-limit,rec-array-nodefail -o '$SQUEUE_FMT'"
rec sacct-array-running "env SLURM_TIME_FORMAT=standard sacct -X -P -o $SACCT_FIELDS -j $LIMIT,$NODEFAIL"

say "waiting for the time limit of ${LIMIT}_1 (about 1-2 min)"
wait_until 200 sacct_is "${LIMIT}_1" TIMEOUT
sleep 2
rec squeue-r-array-ended "env SLURM_TIME_FORMAT=standard squeue -r -u root -t all -n rec-array-limit,rec-array-nodefail -o '$SQUEUE_FMT'"
rec sacct-array-ended "env SLURM_TIME_FORMAT=standard sacct -X -P -o $SACCT_FIELDS -j $LIMIT,$NODEFAIL"
rec scontrol-show-job-array-node-fail "env SLURM_TIME_FORMAT=standard scontrol -o show job ${NODEFAIL}_0"
rec scontrol-show-job-array-timeout "env SLURM_TIME_FORMAT=standard scontrol -o show job ${LIMIT}_1"
rec scontrol-show-job-array-cancelled "env SLURM_TIME_FORMAT=standard scontrol -o show job ${LIMIT}_2"

cat >"$OUT/README.md" <<EOF
# Slurm $(sinfo --version | awk '{print $2}') job array tasks ending NODE_FAIL, TIMEOUT, CANCELLED

Recorded by \`tests/slurm/record-arrays.sh\` on the test cluster of \`tests/slurm/start-cluster.sh\` on
$(date -u +%Y-%m-%d) (times are local time of the recording machine, UTC), with the commands of
\`sched::Slurm\`.

Array $LIMIT rec-array-limit (\`sbatch --array=0-2 --time=1 --constraint=mc\`): task 0 exits 0, tasks 1
and 2 sleep 600; task 2 was cancelled by \`scancel ${LIMIT}_2\` while it ran, task 1 reached its
time limit. Array $NODEFAIL rec-array-nodefail (\`sbatch --array=0-1 --no-requeue -w cn4 -c 2 --wrap
'sleep 600'\`): cn4 was set DOWN under both tasks.

| file | command |
|---|---|
$(cat "$INDEX")

\`*-running.txt\`: after the node failure and the cancel, task ${LIMIT}_1 still running;
\`*-ended.txt\`: after its time limit.
EOF
say "wrote $OUT"
