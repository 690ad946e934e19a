#!/usr/bin/env bash
# Issue 12 acceptance, packed runs on a real Slurm: campaigns/pack60.yaml (60 cases of 1 and 2
# nodes, each one `srun` step of 2 s, packed into allocations of the 4 mc nodes) is run while
# `campaign run` is killed with SIGKILL at 10 random moments, then run to the end. Every case must
# be completed at attempt 1, in at most 3 allocations; accounting must show exactly one step per
# case, named after the case's attempt (no case ran twice, none lost), and each run directory a
# start marker naming the allocation that ran it.
#
# Usage: bash pack60_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 60 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/pack60.yaml
wd=$WORK/pack60
kill_runs 10 0.2 2.0 "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
say "$KILLS kills; $(count_state "$wd" completed) completed, $(count_state "$wd" running) running after the last one"
check_eq "killed all 10 times (one case holds the campaign open)" 10 "$KILLS"
touch "$wd/release"
"$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "the last campaign run exits 0" 0 $?
check_eq "every case completed at attempt 1" "60 60" \
  "$(count_state "$wd" completed) $(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"

prefix=$(prefix_of "$wd")
allocs=$(cases "$wd" | cut -f4 | sort -u | paste -sd, -)
wait_sacct_jobs "${prefix}pack" "$(tr , '\n' <<<"$allocs" | wc -l)"
say "allocations: $(sacct_jobs "${prefix}pack" | tr '\n' ';')"
check "at most 3 allocations in accounting" test "$(sacct_jobs "${prefix}pack" | wc -l)" -le 3
all_steps() { sacct -n -P -j "$allocs" -o JobID,JobName,State 2>/dev/null | awk -F'|' '$1 ~ /\.[0-9]+$/'; }
ended_steps() { all_steps | ended_records; }
wait_accounting 60 ended_steps
steps=$(all_steps)
check_eq "one step per case in accounting (step starts)" 60 "$(wc -l <<<"$steps")"
check_eq "... each named after its case's attempt, none twice" 60 "$(cut -d'|' -f2 <<<"$steps" | sort -u | wc -l)"
check_eq "... all COMPLETED" 60 "$(grep -c '|COMPLETED$' <<<"$steps")"
check_eq "step names = the catalog's step names" "" \
  "$(diff <(cut -d'|' -f2 <<<"$steps" | sort) <(/usr/bin/python3 - "$wd/campaign.db" <<'PY'
import sqlite3, sys
for (n,) in sqlite3.connect(sys.argv[1]).execute("SELECT step_name FROM attempts ORDER BY step_name"):
    print(n)
PY
))"
started=0
for d in "$wd"/p60-*; do
  a=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["allocation"])' "$d/.start" 2>/dev/null)
  [[ -n $a && -e $wd/.alloc/$a/manifest.json ]] && grep -q "\"$(basename "$d")\"" "$wd/.alloc/$a/manifest.json" &&
    started=$((started + 1))
done
check_eq "each run directory's start marker names the allocation that lists it" 60 "$started"
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
