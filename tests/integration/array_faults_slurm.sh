#!/usr/bin/env bash
# Job arrays, cancel and instances under faults on the virtual Slurm cluster (issue 25). Concurrently:
#  - campaigns/arrayfaults.yaml on the mc nodes (one array of 3 whole-node tasks, 1-minute walltime):
#    the node of af-nodefail's running task is set DOWN (then resumed), af-timeout sleeps past the
#    walltime. Each of them is charged exactly that (node_fail, timeout), retried as a new array of
#    one task (the timeout one with 2 minutes) and completes at attempt 2; af-ok completes at attempt
#    1. Accounting: the first array's tasks NODE_FAIL, TIMEOUT, COMPLETED, the retries COMPLETED.
#  - on the gpu nodes, one after the other:
#    campaigns/plaincancel.yaml (2 plain jobs of `srun sleep 300`): `campaign cancel` of the running
#      campaign: both jobs CANCELLED in accounting, both cases cancelled, no process left;
#    campaigns/arraycancel.yaml (an array of 3): `campaign cancel --case acx-r2` of one running task
#    (the other two run until the test lets them end):
#      only that task CANCELLED in accounting and cancelled in the catalog, the other two complete;
#    campaigns/instfaults.yaml (cases of 2 instances): if-exit, whose instance 1 exits 3, is failed
#      with exit code 3 (not a success, no metrics); if-down, whose instance 1's node is set DOWN, is
#      node_fail (both instances' steps cut), retried, and its attempt 2 has a metric per instance.
#
# Usage: bash array_faults_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 100 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

C=$SRC/tests/integration/campaigns
aw=$WORK/arrayfaults pw=$WORK/plaincancel cw=$WORK/arraycancel iw=$WORK/instfaults
# attempts WORKDIR: "case number state exit_code job_id|reason" of every attempt, from the catalog.
attempts() {
  /usr/bin/python3 - "$1/campaign.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for row in db.execute("SELECT c.name, a.number, a.state, a.exit_code, a.job_id, a.reason FROM attempts a "
                      "JOIN cases c ON c.id = a.case_id ORDER BY c.name, a.number"):
    print(*("" if v is None else v for v in row[:5]), "|" + row[5])
PY
}
# attempt WORKDIR CASE NUMBER: "state exit_code" of one attempt.
attempt() { attempts "$1" | awk -v c="$2" -v n="$3" '$1 == c && $2 == n { print $3, $4 }'; }
# job_of WORKDIR CASE NUMBER: the job id of one attempt.
job_of() { attempts "$1" | awk -v c="$2" -v n="$3" '$1 == c && $2 == n { print $5 }'; }
# task_state ID: the task's or job's state in the queue.
queue_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
# acct ID...: "id|state|timelimit" of each job or task from accounting.
acct() { sacct -X -n -P -j "$(IFS=,; echo "$*")" -o JobID,State,Timelimit 2>/dev/null; }
acct_state() { acct "$1" | awk -F'|' -v j="$1" '$1 == j { print $2 }'; }
acct_ended() { [[ $(acct_state "$1") =~ $FINAL_STATE_RE ]]; }
# procs_in DIR: pids of processes whose working directory is DIR or under it (the nodes are this machine).
procs_in() {
  local p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    [[ $cwd == "$1" || $cwd == "$1"/* ]] && echo "${p#/proc/}"
  done
}

"$CAMPAIGN" run "$C/arrayfaults.yaml" --workdir "$aw" -q >"$WORK/arrayfaults.out" 2>&1 &
af_pid=$!
BG_PIDS+=("$af_pid")
"$CAMPAIGN" run "$C/plaincancel.yaml" --workdir "$pw" --no-wait -q >"$WORK/plaincancel.out" 2>&1
check_eq "plaincancel: campaign run --no-wait exits 0" 0 $?
"$CAMPAIGN" run "$C/arraycancel.yaml" --workdir "$cw" --no-wait -q >"$WORK/arraycancel.out" 2>&1
check_eq "arraycancel: campaign run --no-wait exits 0" 0 $?

# --- array: a task's node fails ----------------------------------------------------------------------
nodefail_running() {
  nf_job=$(field "$aw" af-nodefail 4)
  [[ -n $nf_job && -e $aw/nodefail.first && $(queue_state "$nf_job") == RUNNING ]]
}
if wait_until 60 nodefail_running; then
  node_down "$(squeue -h -j "$nf_job" -o %N)"
else
  bad "af-nodefail's task never ran"
fi

# --- cancel of a plain campaign --------------------------------------------------------------------
# sleeps_in DIR: how many `sleep` processes run in DIR's run directories.
sleeps_in() { for p in $(procs_in "$1"); do cat "/proc/$p/comm" 2>/dev/null; done | grep -c '^sleep$'; }
pc_running() {
  local j
  for j in $(cases "$pw" | cut -f4); do [[ $(queue_state "$j") == RUNNING ]] || return 1; done
  [[ $(sleeps_in "$pw") == 2 ]]
}
check "plaincancel: both jobs run their step (sleep 300 in their run directories)" wait_until 60 pc_running
pc_jobs=$(cases "$pw" | cut -f4 | sort | paste -sd' ')
"$CAMPAIGN" cancel "$C/plaincancel.yaml" --workdir "$pw" >"$WORK/plaincancel-cancel.out" 2>&1
check_eq "plaincancel: campaign cancel exits 0" 0 $?
check "plaincancel: it says 2 cases were cancelled" grep -q 'cancelled 2 cases' "$WORK/plaincancel-cancel.out"
no_pc_procs() { [[ -z $(procs_in "$pw") ]]; }
check "plaincancel: no process left in its run directories" wait_until 30 no_pc_procs

# --- cancel of one array task -----------------------------------------------------------------------
acx_running() {
  local c
  for c in acx-r1 acx-r2 acx-r3; do [[ $(queue_state "$(field "$cw" $c 4)") == RUNNING ]] || return 1; done
}
check "arraycancel: its 3 tasks run" wait_until 60 acx_running
acx_jobs=$(cases "$cw" | cut -f4 | sort | paste -sd' ')
say "arraycancel tasks: $acx_jobs"
"$CAMPAIGN" cancel "$C/arraycancel.yaml" --workdir "$cw" --case acx-r2 >"$WORK/arraycancel-cancel.out" 2>&1
check_eq "arraycancel: campaign cancel --case acx-r2 exits 0" 0 $?
check "arraycancel: it says 1 case was cancelled" grep -q 'cancelled 1 case;' "$WORK/arraycancel-cancel.out"
check_eq "arraycancel: acx-r2 cancelled by the user, acx-r1 and acx-r3 untouched (queued: no run polled since)" \
  "cancelled|cancelled by the user queued queued" \
  "$(field "$cw" acx-r2 2)|$(field "$cw" acx-r2 7) $(field "$cw" acx-r1 2) $(field "$cw" acx-r3 2)"
check_eq "arraycancel: squeue: acx-r1's and acx-r3's tasks still RUNNING" "RUNNING RUNNING" \
  "$(queue_state "$(field "$cw" acx-r1 4)") $(queue_state "$(field "$cw" acx-r3 4)")"
no_r2_sleep() { [[ $(sleeps_in "$cw/acx-r2") == 0 ]]; }
check "arraycancel: acx-r2's sleep is gone" wait_until 30 no_r2_sleep
check_eq "arraycancel: ... while acx-r1's and acx-r3's still run" "1 1" "$(sleeps_in "$cw/acx-r1") $(sleeps_in "$cw/acx-r3")"
for c in acx-r1 acx-r3; do  # now they may end
  wait_until 30 test -s "$cw/$c/held.pid"
  kill "$(cat "$cw/$c/held.pid")"
done
"$CAMPAIGN" run "$C/arraycancel.yaml" --workdir "$cw" -q >>"$WORK/arraycancel.out" 2>&1
check_eq "arraycancel: the next campaign run exits 1 (a case was cancelled)" 1 $?
check_eq "arraycancel: acx-r1 and acx-r3 completed at attempt 1, acx-r2 still cancelled at attempt 1" \
  "completed 1 cancelled 1 completed 1" \
  "$(for c in acx-r1 acx-r2 acx-r3; do echo "$(field "$cw" $c 2) $(field "$cw" $c 3)"; done | paste -sd' ')"

# --- instances ---------------------------------------------------------------------------------------
"$CAMPAIGN" run "$C/instfaults.yaml" --workdir "$iw" -q >"$WORK/instfaults.out" 2>&1 &
if_pid=$!
BG_PIDS+=("$if_pid")
down_ready() {
  [[ $(field "$iw" if-exit 2) == failed && -e $iw/down-i0.first && -e $iw/down-i1.first ]] &&
    grep -q '^node=' "$iw/if-down/instance-1/output.log" 2>/dev/null
}
if wait_until 60 down_ready; then
  down_node=$(sed -n 's/^node=//p' "$iw/if-down/instance-1/output.log")
  say "if-down: instance 0 on $(sed -n 's/^node=//p' "$iw/if-down/instance-0/output.log"), instance 1 on $down_node"
  node_down "$down_node"
else
  bad "if-exit never failed, or if-down's instances never ran"
fi
wait "$if_pid"
check_eq "instfaults: campaign run exits 1 (if-exit failed)" 1 $?

wait "$af_pid"
check_eq "arrayfaults: campaign run exits 0 (the faults were retried)" 0 $?
BG_PIDS=()

# --- arrays under faults: the catalog ----------------------------------------------------------------
attempts "$aw" >"$WORK/arrayfaults.attempts"
say "arrayfaults attempts: $(cut -d' ' -f1-5 "$WORK/arrayfaults.attempts" | paste -sd';')"
check_eq "af-nodefail: attempt 1 node_fail, attempt 2 completed" "node_fail completed 0" \
  "$(attempt "$aw" af-nodefail 1 | cut -d' ' -f1) $(attempt "$aw" af-nodefail 2)"
check_eq "af-timeout: attempt 1 timeout, attempt 2 completed" "timeout completed 0" \
  "$(attempt "$aw" af-timeout 1 | cut -d' ' -f1) $(attempt "$aw" af-timeout 2)"
check_eq "af-ok: one attempt, completed" "completed 0|" \
  "$(attempt "$aw" af-ok 1)|$(attempt "$aw" af-ok 2)"
check "the engine retried af-nodefail as node_fail" \
  grep -q 'af-nodefail: attempt 1 ended node_fail; retrying (attempt 2' "$aw/campaign.log"
check "the engine retried af-timeout as timeout" \
  grep -q 'af-timeout: attempt 1 ended timeout; retrying (attempt 2' "$aw/campaign.log"
first=("$(job_of "$aw" af-nodefail 1)" "$(job_of "$aw" af-timeout 1)" "$(job_of "$aw" af-ok 1)")
retries=("$(job_of "$aw" af-nodefail 2)" "$(job_of "$aw" af-timeout 2)")
check_eq "attempt 1 of the 3 cases: tasks of one array" 1 "$(printf '%s\n' "${first[@]}" | cut -d_ -f1 | sort -u | wc -l)"
check_eq "each retry: a new array of one task (task 0)" "${retries[0]%_*}_0 ${retries[1]%_*}_0" "${retries[*]}"
all_ended() { for j in "${first[@]}" "${retries[@]}"; do acct_ended "$j" || return 1; done; }
wait_until 60 all_ended || say "accounting has not ended every task after 60 s"
check_eq "sacct: attempt 1 tasks NODE_FAIL, TIMEOUT, COMPLETED" "NODE_FAIL TIMEOUT COMPLETED" \
  "$(for j in "${first[@]}"; do acct_state "$j"; done | paste -sd' ')"
check_eq "sacct: both retries COMPLETED" "COMPLETED COMPLETED" \
  "$(for j in "${retries[@]}"; do acct_state "$j"; done | paste -sd' ')"
limit_of() { acct "$1" | awk -F'|' -v j="$1" '$1 == j { print $3 }'; }
check_eq "sacct: time limits of af-timeout's attempts 1 and 2" "00:01:00 00:02:00" \
  "$(limit_of "${first[1]}") $(limit_of "${retries[1]}")"
arrays=$(printf '%s\n' "${first[@]}" "${retries[@]}" | cut -d_ -f1 | sort -u | paste -sd,)
check_eq "sacct: 5 tasks over the campaign's 3 arrays (no task requeued or run twice)" 5 \
  "$(sacct -X -n -P -D -j "$arrays" -o JobID 2>/dev/null | wc -l)"

# --- cancel: accounting -------------------------------------------------------------------------------
pc_ended() { for j in $pc_jobs; do acct_ended "$j" || return 1; done; }
wait_until 60 pc_ended || say "accounting has not ended plaincancel's jobs after 60 s"
check_eq "plaincancel: both jobs CANCELLED in sacct" "CANCELLED by 0 CANCELLED by 0" \
  "$(for j in $pc_jobs; do acct_state "$j"; done | paste -sd' ')"
check_eq "plaincancel: both cases cancelled by the user" "cancelled|cancelled by the user cancelled|cancelled by the user" \
  "$(for c in pc-r1 pc-r2; do echo "$(field "$pw" $c 2)|$(field "$pw" $c 7)"; done | paste -sd' ')"
acx_ended() { for j in $acx_jobs; do acct_ended "$j" || return 1; done; }
wait_until 60 acx_ended || say "accounting has not ended arraycancel's tasks after 60 s"
check_eq "arraycancel: sacct has acx-r1 COMPLETED, acx-r2 CANCELLED, acx-r3 COMPLETED" \
  "COMPLETED CANCELLED by 0 COMPLETED" \
  "$(for c in acx-r1 acx-r2 acx-r3; do acct_state "$(field "$cw" $c 4)"; done | paste -sd' ')"

# --- instances: the catalog, accounting and the instance directories ----------------------------------
attempts "$iw" >"$WORK/instfaults.attempts"
say "instfaults attempts: $(paste -sd";" "$WORK/instfaults.attempts")"
check_eq "if-exit: attempt 1 failed with instance 1's exit code 3, not retried" "failed 3|" \
  "$(attempt "$iw" if-exit 1)|$(attempt "$iw" if-exit 2)"
check "if-exit: instance 0 ended normally (its timer printed)" \
  grep -q '^Mean epoch time: 0.5$' "$iw/if-exit/instance-0/output.log"
check "if-exit: instance 1 ran and exited before its timer" \
  bash -c "grep -q '^node=' '$iw/if-exit/instance-1/output.log' && ! grep -q 'Mean epoch' '$iw/if-exit/instance-1/output.log'"
check_eq "if-down: attempt 1 node_fail, attempt 2 completed and collected" "node_fail collected 0" \
  "$(attempt "$iw" if-down 1 | cut -d' ' -f1) $(attempt "$iw" if-down 2)"
# metrics per instance: "case attempt instance name value" (no row for an attempt not collected)
metrics() {
  /usr/bin/python3 - "$iw/campaign.db" <<'PY'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
for name, number, inst, metric, vals in db.execute(
        "SELECT c.name, a.number, s.instance, s.name, s.vals FROM metric_series s JOIN attempts a ON "
        "a.id = s.attempt_id JOIN cases c ON c.id = a.case_id ORDER BY c.name, a.number, s.instance"):
    print(name, number, inst, metric, *struct.unpack("<%dd" % (len(vals) // 8), vals))
PY
}
check_eq "metrics: one per instance of if-down's attempt 2, none for the failed or cut attempts" \
  "if-down 2 0 mean_epoch_time 0.5;if-down 2 1 mean_epoch_time 1.5" "$(metrics | paste -sd';')"
ie_job=$(job_of "$iw" if-exit 1) id_job=$(job_of "$iw" if-down 1) id2_job=$(job_of "$iw" if-down 2)
if_ended() { for j in $ie_job $id_job $id2_job; do acct_ended "$j" || return 1; done; }
wait_until 60 if_ended || say "accounting has not ended instfaults' jobs after 60 s"
check_eq "sacct: if-exit FAILED, if-down attempt 1 NODE_FAIL, attempt 2 COMPLETED" "FAILED NODE_FAIL COMPLETED" \
  "$(for j in $ie_job $id_job $id2_job; do acct_state "$j"; done | paste -sd' ')"
steps_of() { sacct -n -P -j "$1" -o JobID,State,ExitCode 2>/dev/null | grep -E "^$1\.[0-9]+\|"; }
check_eq "sacct: if-exit's instance steps: one COMPLETED 0, one FAILED 3" "COMPLETED|0:0 FAILED|3:0" \
  "$(steps_of "$ie_job" | cut -d'|' -f2- | sort | paste -sd' ')"
check_eq "sacct: if-down attempt 1's two instance steps were cut (none completed)" "2 0" \
  "$(steps_of "$id_job" | wc -l) $(steps_of "$id_job" | grep -c '|COMPLETED|')"

if ((FAILED > 0)); then
  say "campaign outputs:"
  cat "$WORK"/*.out
fi
