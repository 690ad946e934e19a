#!/usr/bin/env bash
# Issue 25, a false state seen on the test cluster: a node set DOWN inside a packed allocation
# (campaigns/packnostep.yaml) charges an attempt (node_fail) only to the cases whose step ran. A case
# whose script was launched but had no step yet (`pn-setup`, in its setup line; a case started as the
# cut step freed its node, its srun failing at once) returns to planned and completes at attempt 1.
# States from sacct (steps of the failed allocation) and the catalog (attempts, events).
#
# Usage: bash pack_nostep_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 40 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/packnostep.yaml
wd=$WORK/packnostep

"$CAMPAIGN" run "$file" --workdir "$wd" -q >"$WORK/run.out" 2>&1 &
pid=$!
BG_PIDS+=("$pid")
launched() { /usr/bin/python3 -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1])).get("launched", True))' "$1/.start" 2>/dev/null; }
# pn-step's step runs (squeue lists it) while pn-setup's script is launched and sleeps in its setup line.
both_started() { launched "$wd/pn-step" && launched "$wd/pn-setup" && squeue -h -s -o %j | grep -q -- '-pn-step-a1$'; }
say "waiting for pn-step's step and pn-setup's script"
if wait_until 90 both_started; then
  down=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][0])' "$wd/pn-step/.start")
  node_down "$down"
else
  bad "pn-step's step and pn-setup's script never ran together"
fi
wait "$pid"
rc=$?
BG_PIDS=()
check_eq "campaign run exits 0" 0 "$rc"
for c in pn-step pn-setup pn-tail-1 pn-tail-2; do
  check_eq "$c: completed" completed "$(field "$wd" $c 2)"
done

# Every attempt of every case, and the allocation of pn-step's first attempt (the one cut).
attempts=$(/usr/bin/python3 - "$wd/campaign.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for row in db.execute("SELECT c.name, a.number, a.state, coalesce(a.job_id, '') FROM attempts a "
                      "JOIN cases c ON c.id = a.case_id ORDER BY c.name, a.number"):
    print(*row)
PY
)
say "attempts: $(tr '\n' ';' <<<"$attempts")"
alloc=$(awk '$1 == "pn-step" && $2 == 1 { print $4 }' <<<"$attempts")
check_eq "pn-step's first attempt ended node_fail" node_fail "$(awk '$1 == "pn-step" && $2 == 1 { print $3 }' <<<"$attempts")"
[[ -n $alloc ]] || { bad "pn-step's first attempt has no job"; exit 1; }

# The failed allocation's own end and steps, once the accounting holds its end (its steps come first).
alloc_records() { sacct -n -P -j "$alloc" -o JobID,JobName,State 2>/dev/null; }
alloc_ended() { alloc_records | awk -F'|' -v j="$alloc" '$1 == j' | ended_records; }
wait_accounting 1 alloc_ended
# (Slurm may requeue it, and the requeued job is cancelled: a second line, CANCELLED.)
check "the allocation ended NODE_FAIL in accounting" grep -q '^NODE_FAIL' <<<"$(alloc_ended | cut -d'|' -f3)"
steps=$(alloc_records | awk -F'|' '$1 ~ /\.[0-9]+$/ { print $2 }')
say "steps of $alloc: $(tr '\n' ' ' <<<"$steps")"
check "pn-step had a step in the allocation" grep -q -- '-pn-step-a1$' <<<"$steps"
check "pn-setup had no step in the allocation (the case this test is about)" \
  bash -c '! grep -q -- "-pn-setup-a1$" <<<"$1"' _ "$steps"
# pn-setup ran in the allocation (its start marker said launched) and was returned from it: its
# attempt 1 went to planned (from queued or running: the engine may not have polled it running yet),
# because the accounting had no step of it, and then completed.
returned=$(/usr/bin/python3 - "$wd/campaign.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for row in db.execute("SELECT e.from_state, e.message FROM events e JOIN cases c ON c.id = e.case_id "
                      "WHERE c.name = 'pn-setup' AND e.kind = 'state' AND e.to_state = 'planned' "
                      "AND e.from_state IS NOT NULL"):
    print(*row)
PY
)
say "pn-setup returned: $returned"
check_eq "pn-setup's attempt 1 returned to planned: the accounting had no step of it" 1 \
  "$(grep -c 'before its step started (the accounting has no step of it)' <<<"$returned")"
# The rule, both ways: a case without a step in the failed allocation is charged no attempt; a case
# with one is charged node_fail (attempt 1) and completes at attempt 2. Only pn-step can have had a
# step: pn-setup sleeps in its setup line until the allocation dies, and a tail started as the cut
# step freed its node gets no step either (its srun fails at once in the dying allocation).
stepless=0
for c in pn-step pn-setup pn-tail-1 pn-tail-2; do
  if grep -q -- "-$c-a1\$" <<<"$steps"; then
    check_eq "$c (a step in $alloc): attempt 1 node_fail, completed at attempt 2" "node_fail 2" \
      "$(awk -v c=$c '$1 == c && $2 == 1 { print $3 }' <<<"$attempts") $(field "$wd" $c 3)"
    continue
  fi
  stepless=$((stepless + 1))
  check_eq "$c (no step in $alloc): no node_fail attempt, completed at attempt 1" "0 1" \
    "$(awk -v c=$c '$1 == c && $3 == "node_fail"' <<<"$attempts" | wc -l) $(field "$wd" $c 3)"
done
check_eq "cases without a step in $alloc: pn-setup and both tails" 3 "$stepless"
