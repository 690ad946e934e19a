#!/usr/bin/env bash
# Issue 12 acceptance, a node set DOWN inside a packed allocation (campaigns/packfail.yaml): the
# cases it cut end node_fail and complete in a later allocation; the cases that had finished keep
# their results and are not run again.
#
# Usage: bash pack_nodefail_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 60 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/packfail.yaml
wd=$WORK/packfail

"$CAMPAIGN" run "$file" --workdir "$wd" -q >"$WORK/run.out" 2>&1 &
pid=$!
BG_PIDS+=("$pid")
say "waiting for a long case's step to start"
long_started() { [[ -s $wd/pf-long-r1/.start ]]; }
if wait_until 90 long_started; then
  sleep 2
  down=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][0])' "$wd/pf-long-r1/.start")
  node_down "$down"
else
  bad "the long case never started"
fi
wait "$pid"
rc=$?
BG_PIDS=()
check_eq "campaign run exits 0 (the cut cases were retried)" 0 "$rc"
for r in 1 2; do
  check_eq "pf-short-r$r: completed at attempt 1" "completed 1" "$(field "$wd" pf-short-r$r 2) $(field "$wd" pf-short-r$r 3)"
  check_eq "pf-long-r$r: completed at attempt 2" "completed 2" "$(field "$wd" pf-long-r$r 2) $(field "$wd" pf-long-r$r 3)"
done
first=$(/usr/bin/python3 - "$wd/campaign.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for name, state, job in db.execute(
        "SELECT c.name, a.state, a.job_id FROM attempts a JOIN cases c ON c.id = a.case_id "
        "WHERE a.number = 1 ORDER BY c.name"):
    print(name, state, job)
PY
)
say "first attempts: $(tr '\n' ';' <<<"$first")"
check_eq "the long cases' first attempts ended node_fail" 2 "$(grep -c '^pf-long-r[12] node_fail ' <<<"$first")"
check_eq "all first attempts shared one allocation" 1 "$(awk '{ print $3 }' <<<"$first" | sort -u | wc -l)"
alloc=$(awk 'NR == 1 { print $3 }' <<<"$first")
prefix=$(prefix_of "$wd")
# Steps: the short cases' (1 each) and the long cases' (attempts 1 and 2).
all_steps() { sacct -n -P -S "$TEST_START" -a -o JobID,JobName,State 2>/dev/null | awk -F'|' -v p="$prefix" '$1 ~ /\.[0-9]+$/ && index($2, p) == 1'; }
ended_steps() { all_steps | ended_records; }
wait_accounting 6 ended_steps
check_eq "the allocation ended NODE_FAIL in accounting" NODE_FAIL \
  "$(sacct -X -n -P -j "$alloc" -o State 2>/dev/null | head -1)"
steps=$(all_steps | cut -d'|' -f2)
check_eq "the short cases ran once each (one step)" "1 1" \
  "$(grep -c 'pf-short-r1-a1$' <<<"$steps") $(grep -c 'pf-short-r2-a1$' <<<"$steps")"
check_eq "the long cases ran twice each (attempts 1 and 2)" "2 2" \
  "$(grep -c 'pf-long-r1-a' <<<"$steps") $(grep -c 'pf-long-r2-a' <<<"$steps")"
