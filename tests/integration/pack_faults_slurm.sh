#!/usr/bin/env bash
# Issue 25, the failure paths of packed allocations on the real cluster (campaigns/packfaults-*.yaml),
# six runs at once where they do not wait for each other's nodes:
#  1. exit: a packed case exits 3: `failed` at attempt 1 with exit code 3 (failed is not in retry.on),
#     its step FAILED; the other cases of its allocation complete at attempt 1.
#  2. timeout: the allocation's time limit is cut to one minute (scontrol) while pft-cut's step runs:
#     the allocation ends TIMEOUT; pft-done keeps its result, pft-cut is charged `timeout` and retried,
#     the two cases that never had a step complete at attempt 1 in a later allocation.
#  3. kill: kill -9 of `campaign pack-exec` while pfk-first runs: the allocation's script starts the
#     driver again, which holds pfk-first's node (its "hold" line) and starts pfk-second once
#     pfk-first's exit marker appears: one step each, one after the other, both completed at attempt 1
#     in the same allocation, which ends COMPLETED (before, the allocation ended with its driver).
#  4. cancel: `cancel --case pfc-victim` ends that case's step alone (CANCELLED) while the others
#     complete; `cancel` of a whole run cancels its allocation and all its cases, no process left.
#  5. sample: the sampler of a packed case over 2 nodes writes utilisation-<node>.csv for each of its
#     nodes (srun --overlap), whose rows the collector keeps as series naming the nodes.
# States from sacct (bounded waits for the accounting) and the run directories (.start, .exit).
#
# Usage: bash pack_faults_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 90 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster
ACCOUNTING_WAIT_S=60

C=$SRC/tests/integration/campaigns
wt=$WORK/timeout we=$WORK/exit wk=$WORK/kill ws=$WORK/sample wc1=$WORK/cancel-step wc2=$WORK/cancel-all
# start NAME WORKDIR [ARGS...]: `campaign run` of packfaults-NAME.yaml in the background; its pid in RUN_PID.
start() {
  "$CAMPAIGN" run "$C/packfaults-$1.yaml" --workdir "$2" -q "${@:3}" >"$2.out" 2>&1 &
  RUN_PID=$!
  BG_PIDS+=("$RUN_PID")
}
# finish PID: its exit status.
finish() { wait "$1"; }
# job WORKDIR CASE: the allocation's job id of the case's latest attempt.
job() { field "$1" "$2" 4; }
has_job() { [[ -n $(job "$1" "$2") ]]; }
# step_runs JOB CASE: the step of CASE's first attempt runs in allocation JOB (squeue -s).
step_runs() { squeue -h -s -j "$1" -o '%i|%j' 2>/dev/null | grep -q -- "-$2-a1\$"; }
# attempts WORKDIR: "case number state exit_code job_id" for every attempt, oldest first.
attempts() {
  /usr/bin/python3 - "$1/campaign.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for row in db.execute("SELECT c.name, a.number, a.state, coalesce(a.exit_code, '-'), coalesce(a.job_id, '-') "
                      "FROM attempts a JOIN cases c ON c.id = a.case_id ORDER BY c.name, a.number"):
    print(*row)
PY
}
marker() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1/.start" "$2" 2>/dev/null; }
job_name() { sacct -n -X -P -j "$1" -o JobName 2>/dev/null | head -1; }
# procs_in DIR: processes whose working directory is under DIR.
procs_in() {
  local p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    [[ $cwd == "$1"/* ]] && echo "${p#/proc/}"
  done
}
no_procs_in() { [[ -z $(procs_in "$1") ]]; }

say "starting six runs: timeout, cancel (twice, --no-wait), exit, sample, kill"
start timeout "$wt"
pid_t=$RUN_PID
"$CAMPAIGN" run "$C/packfaults-cancel.yaml" --workdir "$wc1" -q --no-wait >"$wc1.out" 2>&1
check_eq "cancel-step: run --no-wait exits 0" 0 $?
"$CAMPAIGN" run "$C/packfaults-cancel.yaml" --workdir "$wc2" -q --no-wait >"$wc2.out" 2>&1
check_eq "cancel-all: run --no-wait exits 0" 0 $?
start exit "$we"
pid_e=$RUN_PID
start sample "$ws"
pid_s=$RUN_PID
start kill "$wk"
pid_k=$RUN_PID

# --- 2. timeout: cut the allocation's time limit once pft-done ended and pft-cut's step runs.
wait_until 60 has_job "$wt" pft-cut
talloc=$(job "$wt" pft-cut)
cut_running() { [[ -e $wt/pft-done/.exit ]] && step_runs "$talloc" pft-cut; }
if wait_until 60 cut_running; then
  say "timeout: scontrol update JobId=$talloc TimeLimit=1 (pft-cut's step runs)"
  scontrol update JobId="$talloc" TimeLimit=1
  check "timeout: pft-wait-1 and -2 have no step yet" \
    bash -c '! squeue -h -s -j "$1" -o %j | grep -q -- -pft-wait' _ "$talloc"
else
  bad "timeout: pft-cut's step never ran after pft-done"
fi

# --- 4a. cancel one running packed case.
calloc=$(job "$wc1" pfc-victim)
all_run() { step_runs "$1" pfc-victim && step_runs "$1" pfc-keep-1 && step_runs "$1" pfc-keep-2; }
check "cancel-step: the three steps run in allocation $calloc" wait_until 60 all_run "$calloc"
"$CAMPAIGN" cancel "$C/packfaults-cancel.yaml" --workdir "$wc1" --case pfc-victim >"$WORK/cancel1.out" 2>&1
check_eq "cancel --case pfc-victim exits 0" 0 $?
check "it cancelled 1 case" grep -q 'cancelled 1 case;' "$WORK/cancel1.out"
check_eq "pfc-victim cancelled, the others not" "cancelled queued queued" \
  "$(for c in pfc-victim pfc-keep-1 pfc-keep-2; do field "$wc1" $c 2; done | sed 's/running/queued/' | paste -sd' ')"
victim_gone() { no_procs_in "$wc1/pfc-victim"; }
check "no process of pfc-victim is left" wait_until 20 victim_gone
check "the allocation still runs its other steps" step_runs "$calloc" pfc-keep-1
touch "$wc1/release"
start cancel "$wc1"
pid_c=$RUN_PID

# --- 4b. cancel a whole packed run.
aalloc=$(job "$wc2" pfc-victim)
check "cancel-all: the three steps run in allocation $aalloc" wait_until 60 all_run "$aalloc"
"$CAMPAIGN" cancel "$C/packfaults-cancel.yaml" --workdir "$wc2" >"$WORK/cancel2.out" 2>&1
check_eq "cancel (all) exits 0" 0 $?
check "it cancelled 3 cases" grep -q 'cancelled 3 cases;' "$WORK/cancel2.out"
check_eq "cancel-all: every case cancelled in the catalog" 3 "$(count_state "$wc2" cancelled)"
gone2() { no_procs_in "$wc2" && [[ -z $(squeue -h -j "$aalloc" -o %i 2>/dev/null) ]]; }
check "cancel-all: no process and no job left" wait_until 30 gone2

# --- 3. kill -9 of the driver while pfk-first runs.
wait_until 60 has_job "$wk" pfk-first
kalloc=$(job "$wk" pfk-first)
first_runs() { step_runs "$kalloc" pfk-first; }
if wait_until 90 first_runs; then
  drivers=$(pgrep -f "pack-exec .*$wk/" | paste -sd' ')
  say "kill: kill -9 $drivers (campaign pack-exec of allocation $kalloc)"
  [[ -n $drivers ]] && kill -9 $drivers
  klog=$(find "$wk" -name "slurm-$kalloc.out" | head -1)
  held() { grep -q 'hold pfk-first' "$klog" 2>/dev/null; }
  check "kill: a new driver holds pfk-first ('hold' in $(basename "$klog"))" wait_until 20 held
  sleep 2
  check "kill: pfk-second has not started beside the held case" \
    bash -c '[[ ! -e $1/pfk-second/.start ]] && ! squeue -h -s -j "$2" -o %j | grep -q -- -pfk-second' _ "$wk" "$kalloc"
else
  bad "kill: pfk-first's step never ran"
fi
touch "$wk/release"

# --- 1. exit: the run ends 1 (a case failed).
finish "$pid_e"
check_eq "exit: campaign run exits 1 (pfe-bad failed)" 1 $?
ealloc=$(job "$we" pfe-bad)
check_eq "exit: pfe-bad failed, exit code 3, attempt 1" "failed 3 1" \
  "$(field "$we" pfe-bad 2) $(field "$we" pfe-bad 6) $(field "$we" pfe-bad 3)"
check_eq "exit: pfe-bad has one attempt (no retry for failed)" 1 "$(attempts "$we" | grep -c '^pfe-bad ')"
check_eq "exit: its .exit marker says 3" 3 "$(cat "$we/pfe-bad/.exit" 2>/dev/null)"
for c in pfe-ok-1 pfe-ok-2; do
  check_eq "exit: $c completed at attempt 1 in the same allocation" "completed 1 $ealloc" \
    "$(field "$we" $c 2) $(field "$we" $c 3) $(job "$we" $c)"
done
check_eq "exit: the allocation ended COMPLETED in sacct" COMPLETED "$(wait_alloc "$ealloc")"
check_eq "exit: sacct: pfe-bad's step FAILED with exit code 3" "FAILED|3:0" \
  "$(records "$ealloc" | awk -F'|' '$2 ~ /-pfe-bad-a1$/ { print $3 "|" $4 }')"
check_eq "exit: sacct: the other steps COMPLETED" "COMPLETED COMPLETED" \
  "$(step_state "$ealloc" pfe-ok-1) $(step_state "$ealloc" pfe-ok-2)"

# --- 5. sample.
finish "$pid_s"
check_eq "sample: campaign run exits 0" 0 $?
db_series() {
  /usr/bin/python3 - "$ws/campaign.db" "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (name,) in db.execute("SELECT DISTINCT m.name FROM metric_series m JOIN attempts a ON a.id = m.attempt_id "
                          "JOIN cases c ON c.id = a.case_id WHERE c.name = ? AND m.name LIKE "
                          "'utilization:%:cpu' AND length(m.vals) >= 8 ORDER BY m.name", (sys.argv[2],)):
    print(name)
PY
}
for c in pfs-wide pfs-narrow; do
  nodes=$(/usr/bin/python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["nodes"]))' "$ws/$c/.start")
  [[ $c == pfs-wide ]] && check_eq "sample: pfs-wide ran on 2 nodes" 2 "$(wc -w <<<"$nodes")"
  files=$(cd "$ws/$c" && ls utilisation-*.csv 2>/dev/null | sed 's/^utilisation-//; s/\.csv$//' | sort | paste -sd' ')
  check_eq "sample: $c: one utilisation file per node of its own" "$(tr ' ' '\n' <<<"$nodes" | sort | paste -sd' ')" "$files"
  for n in $nodes; do
    f=$ws/$c/utilisation-$n.csv
    # How many rows 3 s at 0.2 s give depends on the load; the sampler's stop writes one at least.
    check "sample: $c: $n: header and cpu rows" \
      bash -c '[[ $(head -1 "$1") == time,device,utilization && $(grep -c ",cpu," "$1") -ge 1 ]]' _ "$f"
  done
  check_eq "sample: $c: the catalog's series (with values) name its nodes" \
    "$(for n in $nodes; do echo "utilization:$n:cpu"; done | sort | paste -sd' ')" "$(db_series $c | paste -sd' ')"
done

# --- 3. kill: the results.
finish "$pid_k"
check_eq "kill: campaign run exits 0" 0 $?
for c in pfk-first pfk-second; do
  check_eq "kill: $c completed at attempt 1 in allocation $kalloc" "completed 1 $kalloc" \
    "$(field "$wk" $c 2) $(field "$wk" $c 3) $(job "$wk" $c)"
done
check_eq "kill: the allocation ended COMPLETED in sacct (it outlived its driver)" COMPLETED "$(wait_alloc "$kalloc")"
check_eq "kill: one step per case, both COMPLETED" "COMPLETED COMPLETED 2" \
  "$(step_state "$kalloc" pfk-first) $(step_state "$kalloc" pfk-second) $(records "$kalloc" | grep -c '\.[0-9]*|')"
ends=$(records "$kalloc" | awk -F'|' '$2 ~ /-pfk-first-a1$/ { e = $6 } $2 ~ /-pfk-second-a1$/ { s = $5 } END { print e, s }')
check "kill: pfk-second's step started after pfk-first's ended ($ends)" \
  bash -c '[[ -n $1 && -n $2 && ! $2 < $1 ]]' _ $ends
# To the sub-second: pfk-second's start marker after pfk-first's exit marker (the held node).
check "kill: pfk-second started after pfk-first's exit marker" /usr/bin/python3 -c '
import json, os, sys
sys.exit(not json.load(open(sys.argv[2] + "/.start"))["time"] >= os.stat(sys.argv[1] + "/.exit").st_mtime)' \
  "$wk/pfk-first" "$wk/pfk-second"
check "kill: the allocation's script started the driver again" grep -q 'starting it again' "$klog"
check_eq "kill: each case started once by the drivers" "1 1" \
  "$(grep -c '^pack-exec .*start pfk-first' "$klog") $(grep -c '^pack-exec .*start pfk-second' "$klog")"

# --- 4a. cancel one case: the rest completes.
finish "$pid_c"
check_eq "cancel-step: resume exits 1 (pfc-victim cancelled)" 1 $?
for c in pfc-keep-1 pfc-keep-2; do
  check_eq "cancel-step: $c completed at attempt 1" "completed 1" "$(field "$wc1" $c 2) $(field "$wc1" $c 3)"
done
check_eq "cancel-step: pfc-victim stays cancelled, 1 attempt" "cancelled 1" "$(field "$wc1" pfc-victim 2) $(field "$wc1" pfc-victim 3)"
check_eq "cancel-step: the allocation ended COMPLETED in sacct" COMPLETED "$(wait_alloc "$calloc")"
check_eq "cancel-step: sacct: pfc-victim's step CANCELLED, the others COMPLETED" "CANCELLED COMPLETED COMPLETED" \
  "$(step_state "$calloc" pfc-victim | cut -d' ' -f1) $(step_state "$calloc" pfc-keep-1) $(step_state "$calloc" pfc-keep-2)"

# --- 4b. cancel all: the accounting.
check_eq "cancel-all: the allocation ended CANCELLED in sacct" CANCELLED "$(wait_alloc "$aalloc" | cut -d' ' -f1)"

# --- 2. timeout: the results.
finish "$pid_t"
check_eq "timeout: campaign run exits 0" 0 $?
check_eq "timeout: the allocation ended TIMEOUT in sacct" TIMEOUT "$(wait_alloc "$talloc")"
tsteps=$(records "$talloc" | awk -F'|' '$1 ~ /\.[0-9]+$/ { n = $2; sub(/^.*-pft-/, "pft-", n); print n, $3 }' | paste -sd' ')
say "timeout: steps of $talloc: $tsteps"
check_eq "timeout: sacct: pft-done's step COMPLETED" COMPLETED "$(step_state "$talloc" pft-done)"
check "timeout: sacct: pft-cut's step cut (CANCELLED or TIMEOUT)" \
  grep -Eq '^(CANCELLED|TIMEOUT)' <<<"$(step_state "$talloc" pft-cut)"
check_eq "timeout: sacct: no step of pft-wait-1 or -2" "" "$(step_state "$talloc" pft-wait-1)$(step_state "$talloc" pft-wait-2)"
ta=$(attempts "$wt")
say "timeout: attempts: $(tr '\n' ';' <<<"$ta")"
check_eq "timeout: pft-done: one attempt, completed in $talloc" "pft-done 1 completed $talloc" \
  "$(awk '$1 == "pft-done" { print $1, $2, $3, $5 }' <<<"$ta")"
check_eq "timeout: pft-cut: attempt 1 timeout in $talloc, attempt 2 completed" "timeout $talloc|completed" \
  "$(awk '$1 == "pft-cut" && $2 == 1 { a = $3 " " $5 } $1 == "pft-cut" && $2 == 2 { b = $3 } END { print a "|" b }' <<<"$ta")"
for c in pft-wait-1 pft-wait-2; do
  check "timeout: $c: charged nothing, completed at attempt 1 in a later allocation" \
    awk -v c=$c -v j="$talloc" '$1 == c { n++; ok = $2 == 1 && $3 == "completed" && $5 != j } END { exit !(n == 1 && ok) }' <<<"$ta"
done
tname=$(job_name "$talloc")
check_eq "timeout: pft-done's markers: started in $tname, .exit 0" "$tname 0" \
  "$(marker "$wt/pft-done" allocation) $(cat "$wt/pft-done/.exit" 2>/dev/null)"
for c in pft-cut pft-wait-1 pft-wait-2; do
  check "timeout: $c's markers: started in a later allocation, .exit 0" \
    bash -c '[[ -n $2 && $2 != "$1" && $3 == 0 ]]' _ "$tname" "$(marker "$wt/$c" allocation)" "$(cat "$wt/$c/.exit" 2>/dev/null)"
done
# The driver may start a waiting case as the cut step frees the node, before its own SIGTERM: that
# case's srun then fails at once in the dying allocation, no step (above), and it is not charged.
tlog=$(find "$wt" -name "slurm-$talloc.out" | head -1)
check "timeout: the allocation's log says TIME LIMIT and the driver stopped on SIGTERM" \
  bash -c 'grep -q "DUE TO TIME LIMIT" "$1" && grep -q "stopping on SIGTERM" "$1"' _ "$tlog"
# Either way the case went back to planned once, and why says which way the race went: started in
# the dying allocation (its driver's "start" line) and no step, or never started there.
returns() {
  /usr/bin/python3 - "$wt/campaign.db" "$1" <<'PY'
import sqlite3, sys
for (m,) in sqlite3.connect(sys.argv[1]).execute(
        "SELECT e.message FROM events e JOIN cases c ON c.id = e.case_id WHERE c.name = ? AND e.kind = 'state'"
        " AND e.to_state = 'planned' AND e.from_state IS NOT NULL", (sys.argv[2],)):
    print(m)
PY
}
# kind: what each return (a line of stdin) says happened in the allocation.
kind() { sed -e 's/.*before its step started (the accounting has no step of it)$/started, no step/' \
  -e 's/.*its allocation [0-9]* ended before it started$/never started/'; }
for c in pft-wait-1 pft-wait-2; do
  grep -q "start $c " "$tlog" && want="started, no step" || want="never started"
  check_eq "timeout: $c went back to planned once from $talloc, as its driver's log says" "$want" "$(returns $c | kind)"
done
