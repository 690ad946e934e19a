#!/usr/bin/env bash
# Benchmark of the ways to run many small cases (issue 12) on the virtual Slurm cluster
# (tests/slurm/start-cluster.sh; started here when sinfo does not answer; as root).
#
# Usage: bash bench/modes_bench.sh CAMPAIGN_BINARY [SOURCE_DIR] [--cases N]
#
# N one-node `sleep 1` cases (default 1000) on the 4 mc nodes, run by `campaign run` once per mode,
# each in a fresh work directory: one job per case (jobs), `pack: {nodes: 4}` (pack) and
# `array: true` (array). For each, printed:
#   submissions   sbatch calls
#   wall          seconds of `campaign run`, and its ratio to one job per case
#   cpu/case      CPU time of the `campaign` process itself (children excluded) per case
#   queries/s     squeue + sacct + scontrol calls per second of the run
# The figures are read from PATH wrappers that log each scheduler call (bench/lib.sh). A mode whose
# run fails (exit status, a case not completed) gets no figures: FAILED, exit status 1.
# Targets, one TARGET line each at the end: pack submissions <= 1 % of the cases, array
# submissions <= 1, pack wall <= 1/3 of one job per case's, queries/s <= 0.5 in every mode.
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

# One function per mode: the campaign's job and the keys that make the mode. A new mode is a new
# function mode_NAME and its name in MODES (and its targets below, if it has any).
mode_jobs() {
  printf '%s\n' "job: {partition: mc, nodes: 1, ranks_per_node: 1, walltime: 2m, command: \"sleep 1\"}"
}
mode_pack() {
  mode_jobs
  echo "pack: {nodes: 4}"
}
mode_array() {
  mode_jobs
  echo "array: true"
}
MODES=(jobs pack array)

# run_mode MODE: writes its campaign, runs it; prints its figures and writes them to WORK/MODE.fig
# when every case completed.
run_mode() {
  local mode=$1 wd=$WORK/$1 done
  {
    echo "name: modes-$mode"
    echo "system: testcluster"
    echo "matrix: {repeat: $CASES}"
    echo "case_name: $mode-r{{repeat}}"
    "mode_$mode"
  } >"$WORK/$mode.yaml"
  measured_run "$WORK/calls-$mode" run "$WORK/$mode.yaml" --workdir "$wd" -q >"$WORK/$mode.cpu"
  read -r utime stime _ _ rc wall <"$WORK/$mode.cpu"
  [[ $rc == 0 ]] || { fail "campaign run of $mode exited $rc"; return 1; }
  done=$(completed "$wd")
  [[ $done == "$CASES" ]] || { fail "$mode: $done of $CASES cases completed"; return 1; }
  /usr/bin/python3 - "$mode" "$WORK/calls-$mode" "$CASES" "$utime" "$stime" "$wall" \
    "$(figure "$WORK/jobs.fig" wall_s)" "$WORK/$mode.fig" <<'PY'
import sys
mode, log, cases = sys.argv[1], sys.argv[2], int(sys.argv[3])
utime, stime, wall = map(float, sys.argv[4:7])
jobs_wall = float(sys.argv[7]) if sys.argv[7] else 0
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
with open(sys.argv[8], "w") as f:
    f.write(f"submissions {count['sbatch']}\nsubmissions_percent {100 * count['sbatch'] / cases}\n"
            f"wall_s {wall}\nqueries_per_s {queries / wall}\n")
    if jobs_wall:
        f.write(f"wall_vs_jobs {wall / jobs_wall}\n")
PY
}

echo "$CASES one-node sleep-1 cases on the 4 mc nodes of the test cluster"
for mode in "${MODES[@]}"; do run_mode "$mode"; done

echo "== targets"
target "pack: submissions, % of the cases" "$(figure "$WORK/pack.fig" submissions_percent)" "<=" 1 "%"
target "array: submissions" "$(figure "$WORK/array.fig" submissions)" "<=" 1 "sbatch calls"
target "pack: wall / one job per case's" "$(figure "$WORK/pack.fig" wall_vs_jobs)" "<=" 0.3333 x
for mode in "${MODES[@]}"; do
  target "$mode: scheduler queries per second" "$(figure "$WORK/$mode.fig" queries_per_s)" "<=" 0.5 "/s"
done
exit "$FAILED"
