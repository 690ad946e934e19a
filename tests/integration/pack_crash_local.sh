#!/usr/bin/env bash
# Issue 12, packed runs survive the orchestrator: `campaign run` of campaigns/packcrash.yaml (12
# cases of 1 and 2 nodes packed into allocations of 3 nodes on the local executor) is killed with
# SIGKILL at random moments, 6 times, and run again each time. At the end every case is completed
# at attempt 1, ran exactly once (runs.txt, written by the cases themselves), as a job step of an
# allocation (its start marker names it), and collected from its own output.
#
# Usage: bash pack_crash_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 40 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
file=$SRC/tests/integration/campaigns/packcrash.yaml
wd=$WORK/packcrash
kill_runs 6 0.2 2.0 env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
say "$KILLS kills; $(count_state "$wd" completed) completed, $(count_state "$wd" running) running after the last one"
check_eq "killed all 6 times (one case holds the campaign open)" 6 "$KILLS"
touch "$wd/release"
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "the last campaign run exits 0" 0 $?
check_eq "every case collected at attempt 1" "12 12" \
  "$(count_state "$wd" collected) $(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"
check_eq "every case ran exactly once (runs.txt)" "12 0" \
  "$(sort -u "$wd/runs.txt" | wc -l) $(sort "$wd/runs.txt" | uniq -d | wc -l)"
# Only the orchestrator was killed, never an allocation: no case was ever planned again, so the
# allocations the catalog's attempts ran in list the 12 cases between them, each once.
allocs=$(cases "$wd" | cut -f5 | sort -u)
say "allocations of the catalog: $(echo $allocs); on disk: $(ls "$wd/.alloc" | paste -sd' ')"
check_eq "the catalog's allocations list every case once, none twice" "12 12" \
  "$(for a in $allocs; do grep -o '"case": *"pc-[^"]*"' "$wd/.alloc/$a/manifest.json"; done | wc -l) \
$(for a in $allocs; do grep -o '"case": *"pc-[^"]*"' "$wd/.alloc/$a/manifest.json"; done | sort -u | wc -l)"
started=0
for d in "$wd"/pc-*; do
  a=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["allocation"])' "$d/.start")
  grep -q "$(basename "$d")" "$wd/.alloc/$a/manifest.json" && started=$((started + 1))
done
check_eq "each case's start marker names an allocation whose manifest lists it" 12 "$started"
steps=$(/usr/bin/python3 - "$wd/campaign.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("SELECT count(*) FROM attempts WHERE step_name IS NOT NULL "
                 "AND state IN ('completed', 'collected')").fetchone()[0],
      db.execute("SELECT count(DISTINCT attempt_id) FROM metrics WHERE name = 'mean_epoch_time' AND value = 1.5")
      .fetchone()[0] + db.execute("SELECT count(DISTINCT attempt_id) FROM metric_series "
                                  "WHERE name = 'mean_epoch_time'").fetchone()[0])
PY
)
check_eq "the catalog records each case as a job step of its allocation, with its metric from its own output" \
  "12 12" "$steps"
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
