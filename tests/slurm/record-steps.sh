#!/usr/bin/env bash
# Record real `sacct` outputs of job steps (packed runs: cases as named steps of one allocation), for
# the step parser's unit tests.
#
# Usage: tests/slurm/record-steps.sh [OUTDIR]     (default: tests/data/slurm/<slurm version>/steps)
#
# Needs the cluster of start-cluster.sh (it is started if needed); run it under the cluster's lock
# (`flock -o /tmp/testcluster.lock ...`). Takes about 2.5 minutes (steps must reach time limits).
# Two allocations on mc nodes:
#   rec-steps (-N 3): steps rec-step-ok (completes), rec-step-fail (exit 3) and a long-named one killed
#     by scancel of the allocation;
#   rec-steps-timelimit (-N 1 -n 2 --time=2): a step with its own `srun -t 1` and one cut by the
#     allocation's time limit.
# Writes sacct-steps-running.txt (while the killed step still runs) and sacct-steps-ended.txt, both
# with the Slurm back end's command, and a README.md.
source "$(dirname "${BASH_SOURCE[0]}")/record-lib.sh"
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=$(sinfo --version 2>/dev/null | awk '{print $2}' | cut -d. -f1,2) || true
OUT=${1:-$HERE/../data/slurm/${VERSION:-unknown}/steps}
FIELDS=JobID,JobName,State,ExitCode,Start,End,Elapsed,NodeList,ConsumedEnergyRaw  # sched::Slurm::kSacctStepFields
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

say() { printf '[record-steps] %s\n' "$*"; }
steps() { env SLURM_TIME_FORMAT=standard sacct -P -n -o "$FIELDS" -j "$1"; }
# step_state JOB NAME: the State of the step NAME of JOB.
step_state() { steps "$1" | awk -F'|' -v n="$2" '$2 == n { print $3 }'; }
step_is() { [[ $(step_state "$1" "$2") == "$3"* ]]; }
ended() { ! steps "$1" | grep -q '|Unknown|'; }

"$HERE/start-cluster.sh" >/dev/null
mkdir -p "$OUT"
KILLED=rec-step-killed-by-scancel-of-the-allocation  # longer than sacct's default column width

cat >packed.sh <<EOF
#!/bin/bash
srun --exact -N1 -n1 -J rec-step-ok sleep 3 &
srun --exact -N1 -n1 -J rec-step-fail bash -c 'sleep 1; exit 3' &
srun --exact -N1 -n1 -J $KILLED sleep 600 &
wait
EOF
cat >timelimit.sh <<'EOF'
#!/bin/bash
srun --exact -N1 -n1 -t 1 -J rec-step-own-time-limit sleep 600 &
srun --exact -N1 -n1 -J rec-step-cut-by-allocation-limit sleep 600 &
wait
EOF
PACKED=$(sbatch --parsable -J rec-steps -N 3 --constraint=mc --time=10 -o packed.out packed.sh | cut -d';' -f1)
LIMITED=$(sbatch --parsable -J rec-steps-timelimit -N 1 -n 2 --constraint=mc --time=2 -o timelimit.out timelimit.sh |
    cut -d';' -f1)
say "allocations $PACKED and $LIMITED"

wait_until 60 step_is "$PACKED" rec-step-ok COMPLETED
wait_until 30 step_is "$PACKED" rec-step-fail FAILED
wait_until 30 step_is "$PACKED" "$KILLED" RUNNING
steps "$PACKED,$LIMITED" >"$OUT/sacct-steps-running.txt"

scancel "$PACKED"
wait_until 60 ended "$PACKED"
say "waiting for the time limits of $LIMITED (about 2-3 min)"
wait_until 240 step_is "$LIMITED" rec-step-own-time-limit TIMEOUT
wait_until 240 bash -c "[[ \$(sacct -n -X -P -j $LIMITED -o State) == TIMEOUT* ]]"
wait_until 60 ended "$LIMITED"
sleep 2
steps "$PACKED,$LIMITED" >"$OUT/sacct-steps-ended.txt"

CMD="env SLURM_TIME_FORMAT=standard sacct -P -n -o $FIELDS -j $PACKED,$LIMITED"
cat >"$OUT/README.md" <<EOF
# Slurm $(sinfo --version | awk '{print $2}') job steps

Recorded by \`tests/slurm/record-steps.sh\` on the test cluster of \`tests/slurm/start-cluster.sh\` on
$(date -u +%Y-%m-%d) (times are local time of the recording machine, UTC), with the command of
\`sched::Slurm::query_steps\`:

    $CMD

| file | when |
|---|---|
| sacct-steps-running.txt | rec-step-ok and rec-step-fail ended, $KILLED still running |
| sacct-steps-ended.txt | after \`scancel $PACKED\` and the time limit of $LIMITED |

Allocation $PACKED rec-steps (\`sbatch -N 3 --constraint=mc\`), concurrent steps:

$(sed 's/^/    /' packed.sh)

Allocation $LIMITED rec-steps-timelimit (\`sbatch -N 1 -n 2 --constraint=mc --time=2\`):

$(sed 's/^/    /' timelimit.sh)
EOF
say "wrote $OUT"
