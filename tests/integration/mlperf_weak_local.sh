#!/usr/bin/env bash
# MLPerf HPC weak scaling end to end on this machine: campaigns/cosmoflow_mlperf_weak.yaml on
# `local` (4 instances x 1 node of the bundled minicosmo trainer, a target every instance reaches).
# One job for the 4 instances: 4 instance directories each with its own MLLOG log carrying its
# instance_id, metrics keyed by instance in the catalog, and the weak-scaling tables in the report.
#
# Usage: bash mlperf_weak_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; ~15 s on 2 cores)
source "$(dirname "$0")/lib.sh"

py=/usr/bin/python3
wd=$WORK/w
say "campaign run cosmoflow_mlperf_weak --system local"
"$CAMPAIGN" run "$SRC/campaigns/cosmoflow_mlperf_weak.yaml" --system local --workdir "$wd" >"$WORK/run.out" 2>"$WORK/run.err"
check_eq "campaign run exits 0" 0 $?
check "final summary" grep -q "^done: 2 cases succeeded (1 completed, 1 collected); work directory $wd" "$WORK/run.out"
case=$wd/cosmoflow-weak-4x1
check_eq "one job output for the 4 instances" 1 "$(ls "$case"/job-*.out | wc -l)"
check_eq "4 instance directories" "instance-0 instance-1 instance-2 instance-3" "$(cd "$case" && echo instance-*)"
for i in 0 1 2 3; do
  check "instance $i logged as instance $i" grep -q "\"instance_id\": $i, \"status\": \"success\"" "$case/instance-$i/output.log"
done
check_eq "exit marker 0" 0 "$(cat "$case/.exit")"
check_eq "catalog: run_time of instances 0..3" "0 1 2 3" "$($py -c '
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(*[r[0] for r in db.execute("select instance from metric_series where name = ? order by instance", ("run_time",))])' "$wd/campaign.db")"
check_eq "summary: 4 instances, 4 reached the target" "cosmoflow-weak-4x1,4,4" \
  "$(sed -n 2p "$wd/report/mlperf_weak.csv" | cut -d, -f1-3)"
check "models per minute in the summary" awk -F, 'NR == 2 { exit !($5 > 0 && $4 > 0) }' "$wd/report/mlperf_weak.csv"
check_eq "one row per instance" 4 "$(tail -n +2 "$wd/report/mlperf_weak-cosmoflow_weak_4x1.csv" | grep -c ',yes,')"
check "report.md has the headline" grep -q "^- 4 of 4 instances reached the target" "$wd/report/report.md"
check "report.html has the instances" grep -q "models per minute" "$wd/report/report.html"
