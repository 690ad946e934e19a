#!/usr/bin/env bash
# Record real outputs of Slurm's commands on the test cluster, for the parsers' unit tests.
#
# Usage: tests/slurm/record-outputs.sh [OUTDIR]     (default: tests/data/slurm/<slurm version>)
#
# Needs the cluster of start-cluster.sh (it is started if needed). Takes about 3 minutes (one job must
# reach its time limit). Disruptive for anyone else using the cluster: it sets a node DOWN (jobs on cn4
# get NODE_FAIL), and stops slurmdbd and slurmctld for a few seconds each (start-cluster.sh restarts them).
# Writes, per recorded command, NAME.txt (stdout), NAME.stderr (if any) and NAME.exit (exit status, if
# not 0), and a README.md listing the exact command behind each file.
source "$(dirname "${BASH_SOURCE[0]}")/record-lib.sh"
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
BASE=${TESTCLUSTER_DIR:-/var/lib/campaign-testcluster}
VERSION=$(sinfo --version 2>/dev/null | awk '{print $2}' | cut -d. -f1,2) || true
OUT=${1:-$HERE/../data/slurm/${VERSION:-unknown}}
FMT_SQUEUE='%i|%j|%T|%r|%D|%M|%l|%N'
FMT_SACCT='JobID,JobName%200,State,ExitCode,Reason,Submit,Start,End,Elapsed,NNodes,NodeList,ConsumedEnergyRaw'
WORK=$(mktemp -d)   # job output files land here
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

say() { printf '[record] %s\n' "$*"; }

"$HERE/start-cluster.sh" >/dev/null
mkdir -p "$OUT"
rm -f "$OUT"/*.txt "$OUT"/*.stderr "$OUT"/*.exit
INDEX=$WORK/index.md
: >"$INDEX"

# rec NAME 'COMMAND': run COMMAND with bash, keep stdout, stderr and exit status; index it.
rec() {
    local name=$1 cmd=$2 rc=0 files
    bash -c "$cmd" >"$OUT/$name.txt" 2>"$OUT/$name.stderr" || rc=$?
    files="$name.txt"
    if [[ -s $OUT/$name.stderr ]]; then files+=", $name.stderr"; else rm -f "$OUT/$name.stderr"; fi
    if ((rc != 0)); then echo "$rc" >"$OUT/$name.exit"; files+=", $name.exit"; fi
    if [[ ! -s $OUT/$name.txt ]]; then files=${files/"$name.txt"/"$name.txt (empty)"}; fi
    # shellcheck disable=SC2016 # the backquotes are Markdown
    printf '| %s | `%s` | %s |\n' "$files" "${cmd//|/\\|}" "$rc" >>"$INDEX"
}

# submit NAME ARGS...: sbatch --parsable; prints the job id (without ";cluster").
submit() {
    local name=$1
    shift
    sbatch --parsable --job-name="$name" "$@" | cut -d';' -f1
}

state_is() { [[ $(squeue -h -j "$1" -o %T 2>/dev/null) == "$2" ]]; }
sacct_state_is() { [[ $(sacct -n -X -P -j "$1" -o State 2>/dev/null) == "$2"* ]]; }
sacct_ended() { [[ $(sacct -n -X -P -j "$1" -o End 2>/dev/null) != *Unknown* ]]; }

say "submitting jobs"
# The two victims of the node failure fill cn4 (2 x 2 of its 4 CPUs), so no other job of ours lands there.
NODEFAIL=$(submit rec-nodefail --no-requeue -w cn4 -c 2 --wrap 'sleep 600')
REQUEUED=$(submit rec-nodefail-requeued -w cn4 -c 2 --wrap 'sleep 600')
wait_until 30 state_is "$NODEFAIL" RUNNING
wait_until 30 state_is "$REQUEUED" RUNNING
rec sbatch-parsable "sbatch --parsable --job-name=rec-completed --constraint=mc -N 2 --wrap 'srun hostname'"
COMPLETED=$(cat "$OUT/sbatch-parsable.txt")
rec sbatch-parsable-cluster "sbatch --parsable -M testcluster --job-name=rec-completed-gpu --constraint=gpu --gpus-per-node=1 --wrap 'hostname'"
GPU=$(cut -d';' -f1 "$OUT/sbatch-parsable-cluster.txt")
FAILED=$(submit rec-failed --wrap 'echo failing; exit 3')
TIMEOUT=$(submit rec-timeout --time=1 --wrap 'sleep 600')
CANCELLED=$(submit rec-cancelled --wrap 'sleep 600')
RUNNING=$(submit rec-running --constraint=mc --wrap 'sleep 600')
PEND_DEP=$(submit rec-pending-dependency --dependency=afterok:"$RUNNING" --wrap 'true')
PEND_BEGIN=$(submit rec-pending-begin --begin=now+1hour --wrap 'true')
rec sbatch-parsable-array "sbatch --parsable --job-name=rec-array --array=1-4%2 --wrap 'sleep 30; exit \$((SLURM_ARRAY_TASK_ID == 2))'"
ARRAY=$(cat "$OUT/sbatch-parsable-array.txt")

wait_until 30 state_is "$CANCELLED" RUNNING
wait_until 30 state_is "$RUNNING" RUNNING
scancel "$CANCELLED"
say "setting cn4 DOWN under two running jobs"
scontrol update nodename=cn4 state=down reason=record-outputs
wait_until 30 sacct_state_is "$NODEFAIL" NODE_FAIL
wait_until 30 sacct_state_is "$COMPLETED" COMPLETED
wait_until 30 sacct_state_is "$FAILED" FAILED
sleep 2

say "queue snapshots"
rec squeue-pending-running "squeue -u root -o '$FMT_SQUEUE'"
rec squeue-left-queue-recent "squeue -j $COMPLETED -o '$FMT_SQUEUE'"
rec squeue-left-queue-purged "squeue -j 999999 -o '$FMT_SQUEUE'"
rec squeue-left-queue-mixed "squeue -j $RUNNING,$COMPLETED,999999 -o '$FMT_SQUEUE'"
rec scontrol-show-job-running "scontrol show job -o $RUNNING"
rec scontrol-show-job-pending-dependency "scontrol show job -o $PEND_DEP"
rec scontrol-show-job-pending-begin "scontrol show job -o $PEND_BEGIN"
rec scontrol-show-job-requeued "scontrol show job -o $REQUEUED"
rec scontrol-show-job-array "scontrol show job -o $ARRAY"
rec scontrol-show-job-purged "scontrol show job -o 999999"

say "waiting for the time limit of job $TIMEOUT (about 1-2 min)"
wait_until 200 sacct_state_is "$TIMEOUT" TIMEOUT
wait_until 120 sacct_ended "${ARRAY}_4"
sleep 2

say "finished jobs"
rec scontrol-show-job-completed "scontrol show job -o $COMPLETED"
rec scontrol-show-job-failed "scontrol show job -o $FAILED"
rec scontrol-show-job-timeout "scontrol show job -o $TIMEOUT"
rec scontrol-show-job-cancelled "scontrol show job -o $CANCELLED"
rec scontrol-show-job-node-fail "scontrol show job -o $NODEFAIL"
ALL=$COMPLETED,$GPU,$FAILED,$TIMEOUT,$CANCELLED,$NODEFAIL,$REQUEUED,$RUNNING,$PEND_DEP,$PEND_BEGIN,$ARRAY
rec sacct-mixed-states "sacct -X -P -j $ALL -o $FMT_SACCT"
rec sacct-mixed-states-duplicates "sacct -X -P -D -j $NODEFAIL,$REQUEUED -o $FMT_SACCT"
rec sacct-steps "sacct -P -j $COMPLETED,$FAILED,$TIMEOUT -o JobID,JobName,State,ExitCode,Start,End"
rec sacct-by-name "sacct -X -P --name=rec-completed,rec-failed,rec-timeout,rec-no-such-name -S now-1days -o JobID,JobName,State"
rec sacct-unknown-job "sacct -X -P -j 999999 -o JobID,JobName,State"

say "refused submissions"
LIMIT=$(submit rec-limit-first -A testlimited --wrap 'sleep 60')
rec sbatch-refused-limit "sbatch --parsable -A testlimited --job-name=rec-limit-second --wrap 'true'"
rec sbatch-invalid-constraint "sbatch --parsable --job-name=rec-bad-constraint --constraint=nosuch --wrap 'true'"
rec sbatch-too-many-nodes "sbatch --parsable --job-name=rec-too-many-nodes --constraint=gpu -N 3 --wrap 'true'"
rec sbatch-invalid-account "sbatch --parsable --job-name=rec-bad-account -A nosuchaccount --wrap 'true'"
rec scancel-unknown-job "scancel 999999"

say "slurmdbd down"
kill "$(cat "$BASE"/run/slurmdbd.pid)"
wait_until 20 bash -c '! sacctmgr -n show cluster'
rec sacct-slurmdbd-down "sacct -X -P -j $COMPLETED -o JobID,JobName,State"
"$HERE/start-cluster.sh" >/dev/null

say "slurmctld down"
kill "$(cat "$BASE"/run/slurmctld.pid)"
wait_until 20 bash -c '! scontrol ping | grep -q UP'
rec squeue-slurmctld-down "squeue -u root -o '$FMT_SQUEUE'"
rec sbatch-slurmctld-down "sbatch --parsable --job-name=rec-ctld-down --wrap 'true'"
rec scontrol-show-job-slurmctld-down "scontrol show job -o $COMPLETED"
"$HERE/start-cluster.sh" >/dev/null

say "cleaning up"
scancel "$RUNNING" "$PEND_DEP" "$PEND_BEGIN" "$REQUEUED" "$LIMIT" "$ARRAY" 2>/dev/null || true

{
    echo "# Slurm $(sinfo --version | awk '{print $2}') outputs"
    echo
    echo "Recorded by \`tests/slurm/record-outputs.sh\` on the test cluster of \`tests/slurm/start-cluster.sh\`"
    echo "on $(date -u +%Y-%m-%d) (times are local time of the recording machine, UTC)."
    echo "Per command: \`NAME.txt\` is stdout, \`NAME.stderr\` stderr (only when not empty), \`NAME.exit\` the exit"
    echo "status (only when not 0)."
    echo
    echo "Jobs: $COMPLETED rec-completed (2 nodes), $GPU rec-completed-gpu, $FAILED rec-failed (exit 3),"
    echo "$TIMEOUT rec-timeout (--time=1), $CANCELLED rec-cancelled (scancel while running),"
    echo "$NODEFAIL rec-nodefail (-w cn4 -c 2 --no-requeue, node set DOWN), $REQUEUED rec-nodefail-requeued"
    echo "(-w cn4 -c 2, requeued by Slurm), $RUNNING rec-running, $PEND_DEP rec-pending-dependency (afterok:$RUNNING),"
    echo "$PEND_BEGIN rec-pending-begin (--begin=now+1hour), $ARRAY rec-array (--array=1-4%2, task 2 exits 1),"
    echo "$LIMIT rec-limit-first (-A testlimited, fills its MaxSubmitJobs=1)."
    echo "Job 999999 never existed (a job purged from slurmctld gives the same answers)."
    echo "Other jobs of user root may appear in the squeue snapshot: the cluster was shared."
    echo "Job steps of packed allocations are in \`steps/\` (recorded by \`tests/slurm/record-steps.sh\`, its own README)."
    echo
    echo "| files | command | exit |"
    echo "|---|---|---|"
    cat "$INDEX"
} >"$OUT/README.md"
say "wrote $(find "$OUT" -type f | wc -l) files to $OUT"
