#!/usr/bin/env bash
# Benchmark of the three ways to run many small cases (issue 12) on the virtual Slurm cluster
# (tests/slurm/start-cluster.sh; started here when sinfo does not answer; as root).
#
# Usage: bash bench/modes_bench.sh CAMPAIGN_BINARY [SOURCE_DIR] [--cases N]
#
# N one-node `srun sleep 1` cases (default 1000) on the 4 mc nodes, run by `campaign run` three
# times, each in a fresh work directory: one job per case, `pack: {nodes: 4}`, and `array: true`.
# For each, printed:
#   submissions   sbatch calls (targets: pack <= 1 % of the cases, array 1)
#   wall          seconds of `campaign run`, and its ratio to one job per case (target pack <= 1/3)
#   cpu/case      CPU time of the `campaign` process itself (children excluded) per case
#   queries/s     squeue + sacct + scontrol calls per second of the run (target <= 0.5)
# The figures are read from PATH wrappers that log each scheduler call (bench/lib.sh).
SCRIPT_OPTIONS="--cases" source "$(dirname "$0")/../tools/usage.sh" "$@"
set -uo pipefail

CAMPAIGN=$(readlink -f "$1")
shift
SRC=$(readlink -f "$(dirname "$0")/..")
if [[ $# -gt 0 && $1 != --* ]]; then
  SRC=$(readlink -f "$1")
  shift
fi
CASES=1000
[[ ${1:-} == --cases ]] && CASES=$2
source "$SRC/bench/lib.sh"
bench_setup

write_campaign() {  # MODE EXTRA_YAML
  cat >"$WORK/$1.yaml" <<EOF
name: modes-$1
system: testcluster
matrix:
  repeat: $CASES
case_name: $1-r{{repeat}}
job:
  partition: mc
  nodes: 1
  ranks_per_node: 1
  walltime: 2m
  command: "sleep 1"
$2
EOF
}

declare -A WALL
run_mode() {  # MODE
  local mode=$1 wd=$WORK/$1
  measured_run "$WORK/calls-$mode" run "$WORK/$mode.yaml" --workdir "$wd" -q >"$WORK/$mode.cpu"
  read -r utime stime _ _ rc wall <"$WORK/$mode.cpu"
  [[ $rc == 0 ]] || echo "campaign run of $mode exited $rc"
  WALL[$mode]=$wall
  /usr/bin/python3 - "$mode" "$WORK/calls-$mode" "$CASES" "$utime" "$stime" "$wall" "${WALL[jobs]:-0}" <<'PY'
import sys
mode, log, cases = sys.argv[1], sys.argv[2], int(sys.argv[3])
utime, stime, wall, jobs_wall = map(float, sys.argv[4:8])
# Scheduler calls of the campaign process; the jobs' own (an allocation's `scontrol show hostnames`)
# reach the log too, through the PATH the jobs inherit, and are left out.
calls = [l.split()[1] for l in open(log) if l.strip() and " show hostnames" not in l]
count = {c: calls.count(c) for c in ("sbatch", "squeue", "sacct", "scontrol")}
queries = count["squeue"] + count["sacct"] + count["scontrol"]
ratio = f", {wall / jobs_wall:.2f} x one job per case" if jobs_wall and mode != "jobs" else ""
print(f"{mode:6s} submissions {count['sbatch']:5d} ({100 * count['sbatch'] / cases:.1f} % of the cases)"
      f"  wall {wall:7.1f} s{ratio}  cpu/case {(utime + stime) / cases * 1000:.2f} ms"
      f"  queries/s {queries / wall:.2f} ({count['squeue']} squeue, {count['sacct']} sacct,"
      f" {count['scontrol']} scontrol)")
PY
}

echo "$CASES one-node sleep-1 cases on the 4 mc nodes of the test cluster"
write_campaign jobs ""
write_campaign pack "pack: {nodes: 4}"
write_campaign array "array: true"
for mode in jobs pack array; do run_mode "$mode"; done
