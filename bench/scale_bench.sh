#!/usr/bin/env bash
# Benchmark of a campaign of many short cases (issue 35): N cases of `true` (default 100,000), run to
# the end by `campaign run` once per mode, each in a fresh work directory, then the commands that
# read what ran, at that size. Modes (default local-pack,local):
#   local-pack   the local executor, `pack: {nodes: 1}`: the cases packed into allocations, started
#                by the pack driver on this machine's cores
#   local        the local executor, one job per case
#   slurm-array  the test cluster (tests/slurm/start-cluster.sh; started when sinfo does not answer),
#                one-core cases on the mc nodes as job arrays
#   slurm-pack   the test cluster, one-core cases packed 16 to a node on the 4 mc nodes
# Printed for each mode:
#   cpu/case     CPU time of the `campaign run` process itself (its children excluded) per case
#   cases/s      cases run per second of wall time (on local, the cases' own processes, a bash and
#                its markers' mv each, share the machine's cores with everything else)
#   queries/s    squeue + sacct + scontrol calls per second of the run (Slurm modes)
#   catalog      campaign.db's bytes per case
#   status, report, trace, site
#                wall seconds and peak resident memory of each command on the finished campaign
# Targets, one TARGET line each at the end, per mode: cpu/case <= 0.5 ms; queries/s <= 0.5 (Slurm);
# each reading command <= 5 s and <= 500 MB. A mode whose run fails (exit status, a case not
# completed) gets no figures: FAILED, exit status 1.
#
# Usage: bash bench/scale_bench.sh CAMPAIGN_BINARY [SOURCE_DIR] [--cases N] [--modes M1,M2...]
SCRIPT_OPTIONS="--cases --modes" source "$(dirname "$0")/../tools/usage.sh" "$@"
set -uo pipefail

CAMPAIGN=$(readlink -f "$1")
shift
SRC=$(readlink -f "$(dirname "$0")/..")
if [[ $# -gt 0 && $1 != --* ]]; then
  SRC=$(readlink -f "$1")
  shift
fi
CASES=100000
MODES=(local-pack local)
while [[ $# -ge 2 ]]; do
  case $1 in
    --cases) CASES=$2 ;;
    --modes) IFS=, read -r -a MODES <<<"$2" ;;
    *) echo "scale_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
source "$SRC/bench/lib.sh"
if [[ " ${MODES[*]} " == *" slurm-"* ]]; then
  bench_setup
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/campaign-bench.XXXXXX")
  trap '[[ ${KEEP_WORK:-0} == 1 ]] && echo "work directory kept: $WORK" || rm -rf "$WORK"' EXIT
  mkdir -p "$WORK/wrappers"
fi

# One function per mode: the campaign's lines that make it.
mode_local-pack() { printf '%s\n' "system: local" "job: {ranks: 1, cpus_per_rank: 1, walltime: 5m, command: \"true\"}" "pack: {nodes: 1}"; }
mode_local() { printf '%s\n' "system: local" "job: {ranks: 1, cpus_per_rank: 1, walltime: 5m, command: \"true\"}"; }
mode_slurm-array() { printf '%s\n' "system: testcluster" "job: {partition: mc, ranks: 1, cpus_per_rank: 1, walltime: 2m, command: \"true\"}" "array: true"; }
mode_slurm-pack() { printf '%s\n' "system: testcluster" "job: {partition: mc, ranks: 1, cpus_per_rank: 1, walltime: 2m, command: \"true\"}" "pack: {nodes: 4}"; }

# reading MODE NAME ARGS...: times `campaign ARGS...`, its figures NAME_s and NAME_mb to MODE.fig.
reading() {
  local mode=$1 name=$2
  shift 2
  /usr/bin/time -f '%e %M' -o "$WORK/$name.time" "$CAMPAIGN" "$@" >/dev/null 2>"$WORK/$name.err"
  local rc=$? secs kb
  read -r secs kb <"$WORK/$name.time"
  # site's exit status 3 (regressions found) is an answer, not a failure.
  if [[ $rc != 0 && $rc != 3 ]]; then
    fail "$mode: campaign $* exited $rc: $(head -3 "$WORK/$name.err")"
    return 1
  fi
  printf '  %-7s %6.2f s  %6.0f MB\n' "$name" "$secs" "$((kb / 1024))"
  printf '%s_s %s\n%s_mb %s\n' "$name" "$secs" "$name" "$((kb / 1024))" >>"$WORK/$mode.fig"
}

run_mode() {
  local mode=$1 wd=$WORK/$1
  {
    echo "name: scale-$mode"
    echo "matrix: {repeat: $CASES}"
    echo "case_name: c{{repeat}}"
    "mode_$mode"
  } >"$WORK/$mode.yaml"
  measured_run "$WORK/calls-$mode" run "$WORK/$mode.yaml" --workdir "$wd" -q >"$WORK/$mode.cpu"
  read -r utime stime _ _ rc wall <"$WORK/$mode.cpu"
  [[ $rc == 0 ]] || { fail "campaign run of $mode exited $rc"; return 1; }
  local done
  done=$(completed "$wd")
  [[ $done == "$CASES" ]] || { fail "$mode: $done of $CASES cases completed"; return 1; }
  : >"$WORK/$mode.fig"
  /usr/bin/python3 - "$mode" "$WORK/calls-$mode" "$CASES" "$utime" "$stime" "$wall" \
    "$(stat -c %s "$wd/campaign.db")" "$WORK/$mode.fig" <<'PY'
import os, sys
mode, log, cases = sys.argv[1], sys.argv[2], int(sys.argv[3])
utime, stime, wall = map(float, sys.argv[4:7])
db, fig = int(sys.argv[7]), sys.argv[8]
calls = [l.split()[1] for l in open(log) if l.strip() and " show hostnames" not in l] if os.path.exists(log) else []
queries = sum(c in ("squeue", "sacct", "scontrol") for c in calls)
cpu = (utime + stime) / cases * 1000
line = f"{mode}: {cases} cases, wall {wall:.1f} s, {cases / wall:.1f} cases/s, cpu/case {cpu:.3f} ms"
with open(fig, "a") as f:
    f.write(f"cpu_per_case_ms {cpu}\nwall_s {wall}\ncatalog_bytes_per_case {db / cases}\n")
    if not mode.startswith("local"):
        line += f", queries/s {queries / wall:.2f}"
        f.write(f"queries_per_s {queries / wall}\n")
print(line)
print(f"  catalog {db / cases:.0f} bytes a case ({db / 1e6:.1f} MB)")
PY
  reading "$mode" status status "$wd"
  reading "$mode" report report "$wd"
  reading "$mode" trace trace "$wd" -o "$WORK/$mode-trace.json"
  reading "$mode" site site "$wd" -o "$WORK/$mode-site"
}

echo "$CASES cases of \`true\`: ${MODES[*]}"
for mode in "${MODES[@]}"; do
  declare -F "mode_$mode" >/dev/null || { echo "scale_bench.sh: unknown mode $mode" >&2; exit 2; }
  run_mode "$mode"
done

echo "== targets"
for mode in "${MODES[@]}"; do
  target "$mode: orchestrator CPU per case" "$(figure "$WORK/$mode.fig" cpu_per_case_ms)" "<=" 0.5 ms
  [[ $mode == slurm-* ]] &&
    target "$mode: scheduler queries per second" "$(figure "$WORK/$mode.fig" queries_per_s)" "<=" 0.5 "/s"
  for cmd in status report trace site; do
    target "$mode: $cmd wall" "$(figure "$WORK/$mode.fig" "${cmd}_s")" "<=" 5 s
    target "$mode: $cmd memory" "$(figure "$WORK/$mode.fig" "${cmd}_mb")" "<=" 500 MB
  done
done
exit "$FAILED"
