#!/usr/bin/env bash
# Issue 30, slurmdbd stopped on the real cluster (systems testcluster-acct: accounting_wait 10 s):
#  1. pack: a packed allocation fails (its node set DOWN) while slurmdbd is down for longer than
#     accounting_wait: squeue says NODE_FAIL, sacct cannot say which cases had a step. After 10 s the
#     markers decide: adp-first (its srun exited 0 on the failed node: marker 0) is charged node_fail
#     and retried, adp-second goes back to planned uncharged when it was never launched there (or is
#     charged on its launched start marker when the driver started it as the cut step freed the node:
#     the allocation's log says which). Once slurmdbd is back, sacct agrees: a step of adp-first in
#     the failed allocation, none of adp-second.
#  2. purged: MinJobAge lowered to 2 s (slurm.conf, scontrol reconfigure; restored at exit), `campaign
#     run` killed, slurmdbd stopped, the job's batch script killed (SIGKILL: no exit marker) and
#     forgotten by slurmctld: no command knows it. The next `run` does not call it `lost`: it says the
#     scheduler cannot answer and waits; once slurmdbd is back, sacct's state is attempt 1's, and the
#     retry completes.
# Each case's command appends to its ran.txt: what ran, how often, beside the catalog and sacct.
#
# Usage: bash accounting_down_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 2 min)
source "$(dirname "$0")/lib.sh"
ensure_cluster

C=$SRC/tests/integration/campaigns
dbdpid=$TESTCLUSTER_SHARED_DIR/run/slurmdbd.pid   # shared by both test clusters (tests/slurm/env.sh)
sacct_ok() { sacct -n -X -S now-1minutes >/dev/null 2>&1; }
stop_dbd() {
  local pid
  pid=$(tr -dc 0-9 <"$dbdpid")
  say "stopping slurmdbd (pid $pid)"
  kill "$pid"
  wait_until 20 bash -c "! kill -0 $pid 2>/dev/null"
}
# slurmdbd itself (start-cluster.sh would restart every daemon for the changed slurm.conf of phase 2).
start_dbd() {
  sacct_ok && return 0
  say "starting slurmdbd"
  SLURM_CONF=/etc/slurm/slurm.conf slurmdbd   # reads slurmdbd.conf beside it
  wait_until 60 sacct_ok
}
on_exit start_dbd
# attempts WORKDIR: "case number state job_id" of every attempt, oldest first.
attempts() {
  /usr/bin/python3 - "$1/campaign.db" <<'PY'
import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(
        "SELECT c.name, a.number, a.state, coalesce(a.job_id, '-') FROM attempts a JOIN cases c ON c.id = a.case_id"
        " ORDER BY c.name, a.number"):
    print(*row)
PY
}
# reasons WORKDIR CASE TO_STATE: the messages of the case's state events into TO_STATE.
reasons() {
  /usr/bin/python3 - "$1/campaign.db" "$2" "$3" <<'PY'
import sqlite3, sys
for (m,) in sqlite3.connect(sys.argv[1]).execute(
        "SELECT coalesce(e.message, '') FROM events e JOIN cases c ON c.id = e.case_id WHERE c.name = ?"
        " AND e.kind = 'state' AND e.to_state = ? AND e.from_state IS NOT NULL", (sys.argv[2], sys.argv[3])):
    print(m)
PY
}

# --- 1. pack
wa=$WORK/pack
"$CAMPAIGN" run "$C/acctdown-pack.yaml" --workdir "$wa" -q >"$wa.out" 2>&1 &
pid_a=$!
BG_PIDS+=("$pid_a")
first_runs() { squeue -h -s -o %j | grep -q -- '-adp-first-a1$'; }
if wait_until 90 first_runs; then
  alloc=$(field "$wa" adp-first 4)
  node=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][0])' "$wa/adp-first/.start")
  stop_dbd
  check "pack: sacct fails while slurmdbd is down" bash -c '! sacct -n -X -S now-1minutes >/dev/null 2>&1'
  node_down "$node"
  judged() {
    attempts "$wa" | grep -q '^adp-first 1 node_fail ' &&
      { attempts "$wa" | grep -q '^adp-second 1 node_fail ' || [[ -n $(reasons "$wa" adp-second planned) ]]; }
  }
  check "pack: both cases judged on their start markers (10 s)" wait_until 60 judged
  check "pack: ... while slurmdbd is still down" bash -c '! sacct -n -X -S now-1minutes >/dev/null 2>&1'
else
  bad "pack: adp-first's step never ran"
fi
touch "$wa/release"
start_dbd
check "pack: slurmdbd answers again" sacct_ok
wait "$pid_a"
check_eq "pack: campaign run exits 0" 0 $?
ta=$(attempts "$wa")
say "pack: attempts: $(tr '\n' ';' <<<"$ta")"
check_eq "pack: adp-first: node_fail in $alloc, then completed" "adp-first 1 node_fail $alloc|adp-first 2 completed" \
  "$(grep '^adp-first ' <<<"$ta" | cut -d' ' -f1-4 | sed '2s/ [^ ]*$//' | paste -sd'|')"
# Its marker said 0 (srun exits 0 when its node fails) or nothing: either way judged without sacct.
check "pack: adp-first's charge says it was judged without the accounting, after 10 s" \
  grep -Eq "no accounting of its steps after 10 s|no accounting record of its job step .* after 10 s" \
  <<<"$(reasons "$wa" adp-first node_fail)"
# The driver may launch adp-second as the cut step frees the node, a moment before the node failure
# ends the allocation (its script killed before its srun). Without sacct its launched start marker is
# all the engine has: charged node_fail. Never launched there: back to planned, uncharged. Which way
# it went is in the allocation's log (the driver's "start" line), and the catalog must say the same.
alog=$(find "$wa" -name "slurm-$alloc.out" | head -1)
if grep -q '^pack-exec .*start adp-second (' "$alog"; then
  say "pack: the driver launched adp-second in the failing allocation (its log)"
  check_eq "pack: adp-second: judged on its launched start marker: node_fail in $alloc, then completed" \
    "adp-second 1 node_fail $alloc|adp-second 2 completed" \
    "$(grep '^adp-second ' <<<"$ta" | cut -d' ' -f1-4 | sed '2s/ [^ ]*$//' | paste -sd'|')"
else
  check_eq "pack: adp-second: one attempt, completed (charged nothing)" "adp-second 1 completed" \
    "$(grep '^adp-second ' <<<"$ta" | cut -d' ' -f1-3)"
  check_eq "pack: adp-second went back to planned: its allocation ended before it started" \
    "its allocation $alloc ended before it started" "$(reasons "$wa" adp-second planned)"
fi
check_eq "pack: sacct: the allocation ended NODE_FAIL" NODE_FAIL "$(wait_alloc "$alloc")"
check "pack: sacct: a step of adp-first in it" test -n "$(step_state "$alloc" adp-first)"
check_eq "pack: sacct: no step of adp-second in it" "" "$(step_state "$alloc" adp-second)"
check_eq "pack: what ran: adp-first twice (cut, then again), adp-second's command once" "2 1" \
  "$(wc -l <"$wa/adp-first/ran.txt") $(wc -l <"$wa/adp-second/ran.txt")"

# --- 2. purged
conf=$SLURM_CONF
restore_min_job_age() {
  grep -q '^MinJobAge=2$' "$conf" && sed -i 's/^MinJobAge=2$/MinJobAge=300/' "$conf" && scontrol reconfigure
}
on_exit restore_min_job_age
check "purged: slurm.conf had MinJobAge=300" grep -q '^MinJobAge=300$' "$conf"
sed -i 's/^MinJobAge=300$/MinJobAge=2/' "$conf"
scontrol reconfigure
check_eq "purged: slurmctld runs with MinJobAge 2" 2 "$(scontrol show config | awk '$1 == "MinJobAge" { print $3 }' | tr -dc 0-9)"
wb=$WORK/purged
"$CAMPAIGN" run "$C/acctdown-purged.yaml" --workdir "$wb" >"$wb.out" 2>&1 &
pid_b=$!
BG_PIDS+=("$pid_b")
victim_runs() { [[ $(field "$wb" adq-victim 2) == running && -s $wb/adq-victim/ran.txt ]]; }
if wait_until 90 victim_runs; then
  job=$(field "$wb" adq-victim 4)
  # The orchestrator is gone while it happens (killed), so that it learns nothing before the purge.
  kill -9 "$pid_b"
  wait "$pid_b" 2>/dev/null
  stop_dbd
  say "purged: scancel -s KILL -b $job (the batch script dies without its exit trap, as in an OOM kill)"
  scancel -s KILL -b "$job"
  forgotten() { ! scontrol show job "$job" >/dev/null 2>&1; }
  check "purged: slurmctld forgets job $job (MinJobAge 2)" wait_until 60 forgotten
  check "purged: no exit marker" test ! -e "$wb/adq-victim/.exit"
  check "purged: no command knows it (squeue, scontrol; sacct fails)" \
    bash -c '[[ -z $(squeue -h -j "$1" 2>/dev/null) ]] && ! sacct -n -X -j "$1" >/dev/null 2>&1' _ "$job"
  "$CAMPAIGN" run "$C/acctdown-purged.yaml" --workdir "$wb" >"$wb.out2" 2>&1 &
  pid_b=$!
  BG_PIDS+=("$pid_b")
  unavailable() { grep -q 'scheduler unavailable' "$wb/campaign.log"; }
  check "purged: the engine says it cannot learn the job's end" wait_until 30 unavailable
  check_eq "purged: adq-victim is not lost meanwhile (running in the catalog)" running "$(field "$wb" adq-victim 2)"
else
  bad "purged: adq-victim never ran"
fi
touch "$wb/release"
start_dbd
wait "$pid_b"
check_eq "purged: campaign run exits 0" 0 $?
tb=$(attempts "$wb")
say "purged: attempts: $(tr '\n' ';' <<<"$tb")"
job_ended() { sacct -n -P -X -j "$job" -o JobID,State 2>/dev/null | ended_records; }
wait_accounting 1 job_ended
sstate=$(job_ended | head -1 | cut -d'|' -f2 | cut -d' ' -f1)
say "purged: sacct: job $job ended $sstate"
check_eq "purged: adq-victim: attempt 1 ended as sacct says (job $job), attempt 2 completed; never lost" \
  "adq-victim 1 ${sstate,,} $job|adq-victim 2 completed" \
  "$(grep '^adq-victim ' <<<"$tb" | cut -d' ' -f1-4 | sed '2s/ [^ ]*$//' | paste -sd'|')"
check_eq "purged: what ran: twice" 2 "$(wc -l <"$wb/adq-victim/ran.txt")"
