#!/usr/bin/env bash
# Acceptance 3, faults on the virtual Slurm cluster. Two campaigns run at the same time:
#  - campaigns/faults.yaml, one case per fault:
#      nodefail  cn2 is set DOWN under the running job (then resumed): the attempt ends node_fail and
#                is retried automatically (attempt 2, which completes); Slurm does not requeue it
#                (--no-requeue), so each attempt is one job;
#      srunfail  cn3 is set DOWN under `srun sleep 60`, whose script ends 0 all the same (as after
#                srun's "Node failure on cn3" and exit 0), so its exit marker says 0; sacct says
#                NODE_FAIL, and that is what the attempt ends as (then retried, and completes). The
#                engine reads the 0 first and commits it unconfirmed; it is killed (-9) before the
#                accounting's answer, and the next `campaign run` corrects the completion from it;
#                nodefail is the other order: the accounting's NODE_FAIL and no 0 marker at all;
#      timeout   sleeps past its 1-minute walltime: timeout, retried with 1.5x the walltime (the
#                attempt-2 script asks for 2 minutes) and completes;
#      fail      exits 3: failed with exit code 3, not retried; `campaign resume --failed` gives it
#                attempt 2, which completes;
#  - campaigns/limited.yaml: 3 jobs under the account testlimited (MaxSubmitJobs=1): the submissions
#    refused by the limit are retried after a pause, and all three complete, none lost.
#
# Usage: bash faults.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 2 minutes: the walltime)
source "$(dirname "$0")/lib.sh"
ensure_cluster

faults=$SRC/tests/integration/campaigns/faults.yaml
limited=$SRC/tests/integration/campaigns/limited.yaml
fw=$WORK/faults
lw=$WORK/limited
resume_cn2() { scontrol update nodename=cn2 state=resume >/dev/null 2>&1; }
resume_cn3() { scontrol update nodename=cn3 state=resume >/dev/null 2>&1; }
on_exit resume_cn2
on_exit resume_cn3

calls=$WORK/faults-calls.log
scheduler_wrappers "$WORK/wrappers" "$calls"
env PATH="$WORK/wrappers:$PATH" "$CAMPAIGN" run "$faults" --workdir "$fw" -q >"$WORK/faults.out" 2>&1 &
faults_pid=$!
"$CAMPAIGN" run "$limited" --workdir "$lw" -q >"$WORK/limited.out" 2>&1 &
limited_pid=$!
BG_PIDS+=("$faults_pid" "$limited_pid")

# --- node failure -----------------------------------------------------------------------------------
say "waiting for the nodefail job to run on cn2"
nodefail_running() { [[ -n $(squeue -h -t R -w cn2 -n "$(field "$fw" nodefail 5)" -o %A 2>/dev/null) ]]; }
if wait_until 60 nodefail_running; then
  sleep 2
  say "scontrol update nodename=cn2 state=down"
  scontrol update nodename=cn2 state=down reason=campaign-integration-test
  sleep 3
  resume_cn2
  say "cn2 resumed: $(sinfo -h -n cn2 -o %T)"
else
  bad "the nodefail job never ran on cn2"
fi

# --- node failure under srun: the marker says 0, the run is killed before the accounting answers ---
# The engine is stopped between two polls; cn3 goes DOWN; once the marker says 0 and the job has
# ended NODE_FAIL, the engine goes on with its scheduler commands held at a gate: it reads the 0
# marker, commits the completion unconfirmed, and blocks in its next poll. There it is killed (-9)
# and `campaign run` started again: the new run must read the accounting's NODE_FAIL for the
# completion it finds unconfirmed in the catalog, and retry the case.
say "waiting for the srunfail job's srun step to run on cn3"
srunfail_running() { [[ -n $(squeue -h -s -w cn3 -o %i 2>/dev/null | grep -v '\.batch$\|\.extern$') ]]; }
marker_says_0() { [[ $(cat "$fw/srunfail/.exit" 2>/dev/null) == 0 ]]; }
srunfail_ended() {
  [[ $(squeue -h -t all -n "${srunfail_job}" -o %T 2>/dev/null) == NODE_FAIL ]] ||
    [[ $(sacct -X -n -P -a -S "$TEST_START" --name="${srunfail_job}" -o State 2>/dev/null | head -1) == NODE_FAIL ]]
}
gate_wrappers "$WORK/wrappers" "$WORK/gate" squeue sacct
unconfirmed() {
  /usr/bin/python3 - "$fw/campaign.db" <<'PY'
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "SELECT a.state, a.confirmed FROM attempts a JOIN cases c ON c.id = a.case_id"
    " WHERE c.name = 'srunfail' AND a.number = 1").fetchone()
sys.exit(row != ("completed", 0))
PY
}
held() { compgen -G "$WORK/gate.held.*" >/dev/null; }
if wait_until 60 srunfail_running; then
  srunfail_job=$(field "$fw" srunfail 5)
  sleep 2
  if stop_between_polls "$faults_pid" "$calls"; then
    say "campaign run stopped between two polls; scontrol update nodename=cn3 state=down"
    scontrol update nodename=cn3 state=down reason=campaign-integration-test
    check "srunfail: its script ended 0 after the node failure (.exit says 0)" wait_until 30 marker_says_0
    check "srunfail: the scheduler ended its job NODE_FAIL" wait_until 30 srunfail_ended
    touch "$WORK/gate"
    kill -CONT "$faults_pid"
    check "srunfail: the run read the 0 marker: completed, unconfirmed, in the catalog" wait_until 30 unconfirmed
    check "srunfail: ... and waits for the scheduler's answer" wait_until 30 held
    kill -9 "$faults_pid"
    wait "$faults_pid" 2>/dev/null
    check "srunfail: the run killed (-9) before its completion was confirmed" unconfirmed
  else
    kill -CONT "$faults_pid"
    bad "campaign run could not be stopped between two polls"
  fi
  rm -f "$WORK/gate"
  say "campaign run again"
  env PATH="$WORK/wrappers:$PATH" "$CAMPAIGN" run "$faults" --workdir "$fw" -q >>"$WORK/faults.out" 2>&1 &
  faults_pid=$!
  BG_PIDS=("$faults_pid" "$limited_pid")
  sleep 3
  resume_cn3 # with ReturnToService=2 the node may already be back
  say "cn3: $(sinfo -h -n cn3 -o %T)"
else
  bad "the srunfail job's step never ran on cn3"
fi

# --- wait for both campaigns -------------------------------------------------------------------------
wait "$limited_pid"
limited_rc=$?
wait "$faults_pid"
faults_rc=$?
BG_PIDS=()
resume_cn2

check_eq "faults: campaign run exits 1 (a case failed)" 1 "$faults_rc"
# states CASE NUMBER: the states attempt NUMBER of CASE went through (the catalog's state events).
states() {
  /usr/bin/python3 - "$fw/campaign.db" "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(" ".join(s for (s,) in db.execute(
    "SELECT e.to_state FROM events e JOIN attempts a ON a.id = e.attempt_id JOIN cases c ON c.id = a.case_id"
    " WHERE e.kind = 'state' AND c.name = ? AND a.number = ? ORDER BY e.id", (sys.argv[2], int(sys.argv[3])))))
PY
}
# jobs_per_name PREFIX: "name count" per job name starting with PREFIX in accounting (every job,
# requeued runs apart: -X without -D lists each job id once).
jobs_per_name() { sacct_jobs "$1" | awk '{ n[$2]++ } END { for (k in n) print k, n[k] }' | sort; }
a1() { sacct -X -n -P -a -S "$TEST_START" --name="${1}" -o State | head -1; }
prefix=$(prefix_of "$fw")
# Attempts 1 and 2 of nodefail, srunfail and timeout, attempt 1 of fail.
wait_sacct_jobs "$prefix" 7

# node failure
check_eq "nodefail: attempt 1 is NODE_FAIL in sacct" NODE_FAIL "$(a1 "${prefix}nodefail-a1")"
check "nodefail: the engine saw node_fail and retried" \
  grep -q 'nodefail: attempt 1 ended node_fail; retrying (attempt 2' "$fw/campaign.log"
check_eq "nodefail: no 0 marker, so no completion to correct: attempt 1 never completed, ended node_fail" \
  node_fail "$(states nodefail 1 | awk '{ print (/completed/ ? "completed, then " : "") $NF }')"
check_eq "nodefail: attempt 2 completed" "completed 2" "$(field "$fw" nodefail 2) $(field "$fw" nodefail 3)"
check_eq "nodefail: one job per attempt in sacct (no requeue)" 2 \
  "$(sacct -X -n -P -a -D -S "$TEST_START" -o JobName | grep -c "^${prefix}nodefail-a")"
check "nodefail: the job was not requeued by Slurm" \
  test "$(sacct -X -n -P -a -D -S "$TEST_START" --name="${prefix}nodefail-a1" -o JobID | wc -l)" -eq 1

# node failure under a 0 marker
check_eq "srunfail: attempt 1 is NODE_FAIL in sacct" NODE_FAIL "$(a1 "${prefix}srunfail-a1")"
check "srunfail: its marker said 0, the accounting NODE_FAIL, and the accounting won" \
  grep -q "srunfail: the scheduler's accounting says NODE_FAIL.*; the job's exit marker said 0" "$fw/campaign.log"
check_eq "srunfail: attempt 1 completed (the 0 marker), then was corrected to node_fail" \
  "completed node_fail" "$(states srunfail 1 | awk '{ print $(NF - 1), $NF }')"
check "srunfail: retried as node_fail" \
  grep -q 'srunfail: attempt 1 ended node_fail; retrying (attempt 2' "$fw/campaign.log"
check_eq "srunfail: attempt 2 completed" "completed 2" "$(field "$fw" srunfail 2) $(field "$fw" srunfail 3)"
check_eq "srunfail: exactly two jobs in sacct" 2 \
  "$(sacct -X -n -P -a -D -S "$TEST_START" -o JobName | grep -c "^${prefix}srunfail-a")"

# timeout
check_eq "timeout: attempt 1 is TIMEOUT in sacct" TIMEOUT "$(a1 "${prefix}timeout-a1")"
check "timeout: the engine saw timeout and retried" \
  grep -q 'timeout: attempt 1 ended timeout; retrying (attempt 2' "$fw/campaign.log"
check_eq "timeout: attempt 2 completed" "completed 2" "$(field "$fw" timeout 2) $(field "$fw" timeout 3)"
check "timeout: the attempt-2 script asks for 1.5 x 1 min, in whole minutes" \
  grep -q -- '^#SBATCH --time=00:02:00$' "$fw/timeout/job.sh"
check "timeout: ... and is attempt 2's" grep -q -- "^#SBATCH --job-name=${prefix}timeout-a2\$" "$fw/timeout/job.sh"
limits() {
  sacct -X -n -P -a -S "$TEST_START" --name="${prefix}timeout-a1,${prefix}timeout-a2" -o JobName,Timelimit |
    sort | cut -d'|' -f2 | paste -sd' '
}
check_eq "timeout: Slurm time limits of attempts 1 and 2" "00:01:00 00:02:00" "$(limits)"

# failure
check_eq "fail: failed, exit code 3, attempt 1" "failed 3 1" \
  "$(field "$fw" fail 2) $(field "$fw" fail 6) $(field "$fw" fail 3)"
check_eq "fail: not retried by default: one attempt in the catalog" 1 "$(cases "$fw" | awk -F'\t' '$1 == "fail" { print $3 }')"
wait_sacct_jobs "${prefix}fail-a" 1
check_eq "fail: ... and one job in accounting" "${prefix}fail-a1 1" "$(jobs_per_name "${prefix}fail-a")"
"$CAMPAIGN" resume "$faults" --workdir "$fw" --failed -q >>"$WORK/faults.out" 2>&1
check_eq "campaign resume --failed exits 0" 0 $?
check_eq "fail: attempt 2 completed after resume --failed" "completed 2" \
  "$(field "$fw" fail 2) $(field "$fw" fail 3)"
check_eq "faults: every case completed" 4 "$(count_state "$fw" completed)"
wait_sacct_jobs "$prefix" 8
check_eq "faults: one job per attempt in accounting (no name twice)" \
  "$(for c in fail nodefail srunfail timeout; do echo "${prefix}$c-a1 1"; echo "${prefix}$c-a2 1"; done | sort)" \
  "$(jobs_per_name "$prefix")"

# submissions refused by a limit
check_eq "limited: campaign run exits 0" 0 "$limited_rc"
check_eq "limited: all 3 cases completed at attempt 1" "3 3" \
  "$(count_state "$lw" completed) $(cases "$lw" | awk -F'\t' '$3 == 1' | wc -l)"
refusals=$(grep -c 'the scheduler refused the submission' "$lw/campaign.log")
check "limited: submissions were refused by the limit, then retried ($refusals refusals)" test "$refusals" -ge 1
lprefix=$(prefix_of "$lw")
wait_sacct_jobs "$lprefix" 3
check_eq "limited: 3 jobs in sacct, one per case" "$(for c in 1 2 3; do echo "${lprefix}limited-r$c-a1 1"; done)" \
  "$(jobs_per_name "$lprefix")"
check_eq "limited: ran under the account testlimited" testlimited \
  "$(sacct -X -n -P -a -S "$TEST_START" -o JobName,Account | grep "^$lprefix" | cut -d'|' -f2 | sort -u)"
if ((FAILED > 0)); then
  say "campaign output:"
  cat "$WORK/faults.out" "$WORK/limited.out"
fi
