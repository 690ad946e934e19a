#!/usr/bin/env bash
# MLPerf HPC weak scaling on the virtual Slurm cluster: campaigns/cosmoflow_mlperf_weak.yaml with
# its testcluster override (4 instances x 1 node of minicosmo). One job in accounting for the
# training case, with 4 steps (one per instance) on 4 different nodes; 4 instance directories; the
# weak-scaling table with all 4 instances having reached the target.
#
# Usage: bash mlperf_weak_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; ~40 s on 2 cores)
source "$(dirname "$0")/lib.sh"

ensure_cluster
wd=$WORK/w
say "campaign run cosmoflow_mlperf_weak --system testcluster"
"$CAMPAIGN" run "$SRC/campaigns/cosmoflow_mlperf_weak.yaml" --system testcluster --workdir "$wd" >"$WORK/run.out" 2>"$WORK/run.err"
check_eq "campaign run exits 0" 0 $?
check "final summary" grep -q "^done: 2 cases succeeded (1 completed, 1 collected); work directory $wd" "$WORK/run.out"
[[ -s $WORK/run.err ]] && { say "stderr:"; head -5 "$WORK/run.err"; }
case=$wd/cosmoflow-weak-4x1
check_eq "4 instance directories" "instance-0 instance-1 instance-2 instance-3" "$(cd "$case" && echo instance-*)"
prefix=$(prefix_of "$wd")
wait_sacct_jobs "$prefix" 2
jobs=$(sacct_jobs "$prefix")
check_eq "two jobs in accounting: the data and the 4 instances" 2 "$(echo "$jobs" | wc -l)"
job=$(echo "$jobs" | awk '$2 ~ /cosmoflow-weak-4x1/ { print $1 }')
steps() { sacct -j "$job" -n -P -o JobID,NodeList,State 2>/dev/null | grep -E "^$job\.[0-9]+\|"; }
ended_steps() { steps | ended_records; }
wait_accounting 4 ended_steps
steps >"$WORK/steps.txt"
check_eq "4 steps, one per instance" 4 "$(grep -Ec "^$job\.[0-9]+\|" "$WORK/steps.txt")"
check_eq "on 4 different nodes" 4 "$(grep -E "^$job\.[0-9]+\|" "$WORK/steps.txt" | cut -d'|' -f2 | sort -u | wc -l)"
check_eq "every step completed" 4 "$(grep -E "^$job\.[0-9]+\|.*\|COMPLETED$" "$WORK/steps.txt" | wc -l)"
check_eq "summary: 4 instances, 4 reached the target" "cosmoflow-weak-4x1,4,4" \
  "$(sed -n 2p "$wd/report/mlperf_weak.csv" | cut -d, -f1-3)"
check_eq "one row per instance" 4 "$(tail -n +2 "$wd/report/mlperf_weak-cosmoflow_weak_4x1.csv" | grep -c ',yes,')"
