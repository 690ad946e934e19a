#!/usr/bin/env bash
# Issue 12 acceptance, packed runs on a real Slurm: campaigns/pack60.yaml (60 cases of 1 and 2
# nodes, each one `srun` step of 2 s, packed into allocations of the 4 mc nodes) is run while
# `campaign run` dies between its first allocation's sbatch and the catalog commit of that job id
# (CAMPAIGN_TEST_CRASH=after_submit:1), then is killed with SIGKILL at 10 random moments, then run
# to the end. The next run adopts the allocation submitted before the crash (no second one for the
# same cases). Every case must
# be completed at attempt 1; accounting must hold exactly the allocations the catalog names, each
# name once (no orphan or duplicate allocation of the campaign), and over all of the campaign's
# allocations exactly one step per case, named after the case's attempt (no case ran twice, none
# lost), and each run directory a start marker naming the allocation that ran it. `campaign trace`
# of the run shows each case's step inside its allocation: a row per case with the allocation's job id, its running phase within
# the step's times in sacct.
#
# Usage: bash pack60_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 60 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/pack60.yaml
wd=$WORK/pack60
env CAMPAIGN_TEST_CRASH=after_submit:1 "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "the first run died between sbatch and the catalog commit" 137 $?
first_alloc=$(squeue -h -o '%A %j' | awk '$2 ~ /-pack[0-9]+$/ { print $1 }' | head -1)
check "its allocation was submitted (job $first_alloc)" test -n "$first_alloc"
check_eq "... and no job id reached the catalog" "" "$(cases "$wd" | cut -f4 | grep -v '^$')"
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
check "the allocation submitted before the crash ran cases" grep -qx "$first_alloc" <(tr , '\n' <<<"$allocs")
# Every allocation of the campaign in accounting (by name, whether the catalog knows it or not).
sacct_allocs=$(sacct_jobs "${prefix}pack" | awk '{ print $1 }' | sort -n | paste -sd, -)
check_eq "accounting holds exactly the allocations the catalog names" "$(tr , '\n' <<<"$allocs" | sort -n | paste -sd, -)" \
  "$sacct_allocs"
check_eq "... each allocation name once" "" "$(sacct_jobs "${prefix}pack" | awk '{ print $2 }' | sort | uniq -d)"
all_steps() { sacct -n -P -j "$sacct_allocs" -o JobID,JobName,State 2>/dev/null | awk -F'|' '$1 ~ /\.[0-9]+$/'; }
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

"$CAMPAIGN" trace "$wd" -o "$WORK/trace.json" >/dev/null
check_eq "campaign trace exits 0" 0 $?
sacct -n -P -j "$allocs" -o JobID,JobName,Start,End 2>/dev/null | awk -F'|' '$1 ~ /\.[0-9]+$/' >"$WORK/steps.txt"
check "the trace: a row per case, its step's allocation, running within the step's times in sacct" \
  /usr/bin/python3 - "$WORK/trace.json" "$WORK/steps.txt" "$wd/campaign.db" <<'PY'
import datetime, json, sqlite3, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rows = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
us = lambda t: datetime.datetime.fromisoformat(t).timestamp() * 1e6  # sacct's local times
steps = {}
for line in open(sys.argv[2]):
    jid, name, start, end = line.rstrip("\n").split("|")
    steps[name] = (jid.split(".")[0], us(start), us(end))
db = sqlite3.connect(sys.argv[3])
step_of = dict(db.execute("SELECT c.name, a.step_name FROM attempts a JOIN cases c ON c.id = a.case_id"))
fails = []
cases = sorted(v for v in rows.values() if v.startswith("p60-"))
if len(cases) != 60: fails.append(f"{len(cases)} case rows, not 60")
for case in cases:
    run = [e for e in ev if e["ph"] == "X" and e["name"] == "running" and rows.get((e["pid"], e["tid"])) == case]
    alloc, start, end = steps[step_of[case]]
    if len(run) != 1: fails.append(f"{case}: {len(run)} running phases"); continue
    r = run[0]
    if r["args"].get("job_id") != alloc: fails.append(f"{case}: job {r['args'].get('job_id')}, step in {alloc}")
    # sacct's times are whole seconds: one second either side.
    if not (start - 1e6 <= r["ts"] and r["ts"] + r["dur"] <= end + 1e6):
        fails.append(f"{case}: running {r['ts']}+{r['dur']} outside its step {start}..{end}")
print("\n".join(fails[:10]))
sys.exit(bool(fails))
PY
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
