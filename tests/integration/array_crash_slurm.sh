#!/usr/bin/env bash
# Job arrays on a real Slurm under kill -9: campaigns/arraycrash.yaml (40 cases of 1 s, arrays of
# at most 8 running tasks) is first stopped between the array's submission and the commit of its
# task ids (CAMPAIGN_TEST_CRASH=after_submit:1, as kill -9 there would), so the next run must adopt
# the tasks by the array's name and each case's task; then run while killed with SIGKILL at 8
# random moments, then run to the end. Every case must complete at attempt 1, and accounting must hold exactly one
# task per case over all of the campaign's arrays (none ran twice, none lost), each case's job id
# being one of them. The campaign's last case holds it open until the kills are over (it waits for
# WORKDIR/release), so every one of the 8 runs is killed while it has work. `campaign trace` of the
# run shows each case as its array task: its job id ARRAY_TASK, its running phase within the task's
# times in sacct.
#
# Usage: bash array_crash_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 40 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/arraycrash.yaml
wd=$WORK/arraycrash
env CAMPAIGN_TEST_CRASH=after_submit:1 "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "stopped after the submission: every case left submitting" 40 "$(count_state "$wd" submitting)"
kill_runs 8 0.2 1.5 "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
say "$KILLS kills; $(count_state "$wd" completed) completed after the last one"
check_eq "killed all 8 times (its last case holds the campaign open)" 8 "$KILLS"
touch "$wd/release"
"$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "the last campaign run exits 0" 0 $?
check_eq "every case completed at attempt 1" "40 40" \
  "$(count_state "$wd" completed) $(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"
prefix=$(prefix_of "$wd")
# JobID (not JobIDRaw, each task's own id): ARRAY_TASK
array_tasks() {
  local arrays
  arrays=$(sacct -X -n -P -a -S "$TEST_START" -E now -o JobID,JobName 2>/dev/null |
    awk -F'|' -v p="${prefix}arr" 'index($2, p) == 1 { sub(/_.*/, "", $1); print $1 }' | sort -u | paste -sd, -)
  [[ -n $arrays ]] && sacct -X -n -P -j "$arrays" -o JobID,State 2>/dev/null
}
ended_tasks() { array_tasks | ended_records; }
wait_accounting 40 ended_tasks
tasks=$(array_tasks)
say "arrays: $(cut -d_ -f1 <<<"$tasks" | sort -u | paste -sd, -)"
check_eq "one task per case in accounting over all arrays" 40 "$(wc -l <<<"$tasks")"
check_eq "... all COMPLETED" 40 "$(grep -c '|COMPLETED$' <<<"$tasks")"
check_eq "each case's job id is one of those tasks, none twice" "" \
  "$(diff <(cut -d'|' -f1 <<<"$tasks" | sort) <(cases "$wd" | cut -f4 | sort))"

"$CAMPAIGN" trace "$wd" -o "$WORK/trace.json" >/dev/null
check_eq "campaign trace exits 0" 0 $?
sacct -X -n -P -j "$(cut -d_ -f1 <<<"$tasks" | sort -u | paste -sd, -)" -o JobID,Start,End >"$WORK/times.txt" 2>/dev/null
check "the trace: a row per case, its array task's id, running within the task's times in sacct" \
  /usr/bin/python3 - "$WORK/trace.json" "$WORK/times.txt" <<'PY'
import datetime, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rows = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
us = lambda t: datetime.datetime.fromisoformat(t).timestamp() * 1e6  # sacct's local times
times = {}
for line in open(sys.argv[2]):
    jid, start, end = line.rstrip("\n").split("|")
    times[jid] = (us(start), us(end))
runs = [e for e in ev if e["ph"] == "X" and e["name"] == "running"]
fails = [] if len(runs) == 40 else [f"{len(runs)} running phases, not 40"]
for r in runs:
    jid = r["args"].get("job_id", "")
    if "_" not in jid or jid not in times: fails.append(f"{rows[(r['pid'], r['tid'])]}: job id {jid!r}"); continue
    start, end = times[jid]  # whole seconds: one second either side
    if not (start - 1e6 <= r["ts"] and r["ts"] + r["dur"] <= end + 1e6):
        fails.append(f"{jid}: running {r['ts']}+{r['dur']} outside {start}..{end}")
print("\n".join(fails[:10]))
sys.exit(bool(fails))
PY
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
