#!/usr/bin/env bash
# Acceptance 4, scheduler load: squeue, sacct, scontrol, sbatch and scancel are PATH wrappers that log
# every call with its time, then run the real command. The 40-case campaign (campaigns/slurm40.yaml)
# runs through them. Checks: one squeue per poll cycle whatever the number of active jobs (never one
# per job, never with -j), at most one sacct and one scontrol per cycle, sacct asking for many jobs at
# once, no more polls than the poll interval allows, one sbatch per job.
#
# Usage: bash scheduler_load.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 40 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

wd=$WORK/load
log=$WORK/calls.log
scheduler_wrappers "$WORK/wrappers" "$log"
start=$(date +%s.%N)
PATH="$WORK/wrappers:$PATH" "$CAMPAIGN" run "$SRC/tests/integration/campaigns/slurm40.yaml" --workdir "$wd" -q
check_eq "campaign run exits 0" 0 $?
end=$(date +%s.%N)
check_eq "every case completed" 40 "$(count_state "$wd" completed)"

# Cycles: a poll starts with `squeue -u USER` (the reconcile at start with `squeue ... -t all`); the sacct
# and scontrol calls up to the next squeue belong to it.
python3 - "$log" "$start" "$end" >"$WORK/stats.txt" <<'EOF'
import sys, collections
log, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
calls = []
for line in open(log):
    t, cmd, *args = line.split()
    calls.append((float(t), cmd, args))
cycles, per_second = [], collections.Counter()
for t, cmd, args in calls:
    if cmd == "squeue":
        cycles.append(collections.Counter())
        per_second[int(t)] += 1
    if cycles:
        cycles[-1][cmd] += 1
queries = [c for c in calls if c[1] in ("squeue", "sacct", "scontrol")]
sacct_ids = [len(a[a.index("-j") + 1].split(",")) for _, c, a in calls if c == "sacct" and "-j" in a]
duration = end - start
print("duration", round(duration, 1))
print("squeue", sum(1 for c in calls if c[1] == "squeue"))
print("squeue_with_j", sum(1 for _, c, a in calls if c == "squeue" and ("-j" in a or "--jobs" in a)))
print("sacct", sum(1 for c in calls if c[1] == "sacct"))
print("scontrol", sum(1 for c in calls if c[1] == "scontrol"))
print("sbatch", sum(1 for c in calls if c[1] == "sbatch"))
print("max_squeue_per_cycle", max(c["squeue"] for c in cycles))
print("max_sacct_per_cycle", max(c["sacct"] for c in cycles))
print("max_scontrol_per_cycle", max(c["scontrol"] for c in cycles))
print("max_squeue_per_second", max(per_second.values()))
print("max_sacct_ids", max(sacct_ids or [0]))
print("queries_per_second", round(len(queries) / duration, 2))
EOF
cat "$WORK/stats.txt" | paste -sd' ' | sed 's/^/stats: /'
stat() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/stats.txt"; }
duration=$(stat duration)
polls=$(stat squeue)
check_eq "one sbatch per job" 40 "$(stat sbatch)"
check_eq "squeue never asks for single jobs (-j)" 0 "$(stat squeue_with_j)"
check_eq "at most one squeue per poll cycle" 1 "$(stat max_squeue_per_cycle)"
check "at most one sacct per poll cycle ($(stat max_sacct_per_cycle))" test "$(stat max_sacct_per_cycle)" -le 1
check "at most one scontrol per poll cycle ($(stat max_scontrol_per_cycle))" test "$(stat max_scontrol_per_cycle)" -le 1
check "at most 3 squeue in any second ($(stat max_squeue_per_second); poll_min is 0.5 s)" \
  test "$(stat max_squeue_per_second)" -le 3
check "sacct asks for several jobs at once (up to $(stat max_sacct_ids) ids)" test "$(stat max_sacct_ids)" -ge 5
check "squeue calls ($polls) within duration / poll_min + 3" \
  awk -v p="$polls" -v d="$duration" 'BEGIN { exit !(p <= d / 0.5 + 3) }'
check "squeue calls ($polls) well below jobs x polls (40 x $polls)" test $((polls * 10)) -le $((40 * polls))
say "$(stat queries_per_second) scheduler queries per second over $duration s"
