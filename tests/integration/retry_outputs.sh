#!/usr/bin/env bash
# Issue 30 item 2, issue 33 item 4: a retry's outputs are its own, and every attempt's script is kept.
# campaigns/retrystale.yaml: attempt 1 of each case writes history.csv, then runs past its walltime
# (TIMEOUT, retried). Attempt 2 of stale-skip exits 0 writing nothing: it must be collect_failed,
# naming the file an earlier attempt wrote, never credited with attempt 1's epoch time (1.5);
# attempt 2 of stale-rewrite writes its own file and is collected with its own (2.5). Each run
# directory keeps attempt 1's script as attempt-1/job.sh beside attempt 2's job.sh, and each
# attempt's start stamp (.started-N). On Slurm, sacct confirms the TIMEOUT and the two jobs per case.
#
# Usage: bash retry_outputs.sh CAMPAIGN_BINARY SOURCE_DIR local|slurm   (local about 10 s, slurm 2 min)
source "$(dirname "$0")/lib.sh"
system=${3:?local or slurm}
campaign=$SRC/tests/integration/campaigns/retrystale.yaml
wd=$WORK/retrystale
if [[ $system == slurm ]]; then
  ensure_cluster
  args=(--system testcluster)
  path=$PATH
else
  args=()
  path=$(path_without_slurm)
fi
env PATH="$path" "$CAMPAIGN" run "$campaign" "${args[@]}" --workdir "$wd" >"$WORK/out.txt" 2>"$WORK/err.txt"
check_eq "campaign run exits 1 (a case not collected)" 1 $?
say "stdout: $(tail -1 "$WORK/out.txt")"
cat "$WORK/err.txt"

# Every attempt from the catalog: case, number, state, reason; and each attempt's epoch_time values.
rows=$(/usr/bin/python3 - "$wd/campaign.db" <<'PY'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
for case, number, state, reason, aid in db.execute(
        "SELECT c.name, a.number, a.state, coalesce(a.reason, ''), a.id FROM attempts a "
        "JOIN cases c ON c.id = a.case_id ORDER BY c.name, a.number"):
    times = [v for (v,) in db.execute("SELECT value FROM metrics WHERE attempt_id = ? AND name = 'epoch_time'",
                                      (aid,))]
    for (blob,) in db.execute("SELECT vals FROM metric_series WHERE attempt_id = ? AND name = 'epoch_time'",
                              (aid,)):
        times += list(struct.unpack("%dd" % (len(blob) // 8), blob))
    print("%s a%d %s [%s] %s" % (case, number, state, " ".join("%g" % t for t in times), reason))
PY
)
echo "$rows"
row() { echo "$rows" | awk -v c="$1" -v a="$2" '$1 == c && $2 == a'; }
for c in stale-skip stale-rewrite; do
  check "$c: attempt 1 timed out" test "$(row $c a1 | cut -d' ' -f3)" = timeout
done
check_eq "stale-skip: attempt 2 is collect_failed with no epoch time" "collect_failed []" \
  "$(row stale-skip a2 | cut -d' ' -f3,4)"
check "stale-skip: the reason names the file attempt 1 wrote and the attempt's start" \
  grep -q 'history.csv: written [0-9.]* s before attempt 2 started (.started-2): an earlier attempt' \
  <<<"$(row stale-skip a2)"
check "stale-skip is listed as not succeeded" grep -q '^  stale-skip: collect_failed (history.csv: written' \
  "$WORK/err.txt"
check_eq "stale-rewrite: attempt 2 is collected with its own epoch time" "collected [2.5]" \
  "$(row stale-rewrite a2 | cut -d' ' -f3,4)"

# Nothing overwritten: attempt 1's script kept, attempt 2's where the executor read it; both stamps;
# attempt 1's file stays where a checkpoint-restart workload would read it.
for c in stale-skip stale-rewrite; do
  d=$wd/$c
  check "$c: attempt 1's script is kept as attempt-1/job.sh" grep -q '(step .*, attempt 1)' "$d/attempt-1/job.sh"
  check "$c: job.sh is attempt 2's" grep -q '(step .*, attempt 2)' "$d/job.sh"
  check "$c: each attempt stamped its start" test -e "$d/.started-1" -a -e "$d/.started-2"
  check "$c: attempt 2 started after attempt 1" test "$d/.started-2" -nt "$d/.started-1"
done
check_eq "stale-skip: attempt 1's history.csv is still there" "0,1.5,0.3,0.4" "$(tail -1 "$wd/stale-skip/history.csv")"

# `campaign collect` again gives the same verdict (the check is collection's, not the run's).
env PATH="$path" "$CAMPAIGN" collect "$campaign" "${args[@]}" --workdir "$wd" >"$WORK/collect.txt" 2>&1
check_eq "campaign collect exits 1 (a case not collected)" 1 $?
check "collect names the stale file again" grep -q 'stale-skip: collection failed: history.csv: written' \
  "$WORK/collect.txt"
check_eq "stale-skip stays collect_failed after collect" collect_failed "$(field "$wd" stale-skip 2)"
check_eq "stale-rewrite stays collected after collect" collected "$(field "$wd" stale-rewrite 2)"

if [[ $system == slurm ]]; then
  # The scheduler's view: per case, attempt 1's job TIMEOUT and attempt 2's COMPLETED.
  prefix=$(prefix_of "$wd")
  wait_sacct_jobs "$prefix" 4
  for c in stale-skip stale-rewrite; do
    check_eq "$c: sacct has attempt 1 TIMEOUT, attempt 2 COMPLETED" "TIMEOUT COMPLETED" \
      "$(for a in 1 2; do sacct_jobs "$prefix$c-a$a" | awk '{ print $3 }'; done | paste -sd' ')"
  done
  check "stale-skip: attempt 1's job output is its own file, kept" \
    test "$(ls "$wd/stale-skip"/slurm-*.out | wc -l)" -eq 2
fi
