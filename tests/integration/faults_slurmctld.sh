#!/usr/bin/env bash
# Acceptance 3, controller outage: slurmctld is stopped for 30 s while `campaign run` polls
# (campaigns/ctld.yaml: 8 jobs of 15 s, at most 4 queued, so that jobs end and others are due for
# submission during the outage). The engine must log "scheduler unavailable", mark nothing failed,
# wait, and once slurmctld is back (restarted by tests/slurm/start-cluster.sh, as it starts it)
# finish every case, each at attempt 1 and submitted once. Then sbatch failing transiently (a PATH
# wrapper): a submission that timed out but created the job is adopted, one that never reached the
# controller is made again; no duplicates.
#
# Usage: bash faults_slurmctld.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 80 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/ctld.yaml
system=$SRC/tests/integration/systems/testcluster-q4.yaml
wd=$WORK/ctld
pidfile=$TESTCLUSTER_DIR/run/slurmctld.pid
restart_ctld() {
  ctld_ok() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
  ctld_ok || bash "$SRC/tests/slurm/start-cluster.sh" >>"$WORK/start-cluster.log" 2>&1
}
on_exit restart_ctld

"$CAMPAIGN" run "$file" --system "$system" --workdir "$wd" >"$WORK/run.out" 2>&1 &
run_pid=$!
BG_PIDS+=("$run_pid")

four_running() { (($(count_state "$wd" running) >= 4)); }
check "4 jobs running" wait_until 60 four_running
ctld=$(tr -dc 0-9 <"$pidfile")
check "slurmctld's pid file names a slurmctld" grep -qx slurmctld "/proc/$ctld/comm"
say "stopping slurmctld (pid $ctld) for 30 s"
down_at=$SECONDS
kill "$ctld"
wait_until 20 bash -c "! kill -0 $ctld 2>/dev/null"
check "squeue fails while slurmctld is down" bash -c '! squeue -h >/dev/null 2>&1'
sleep $((30 - (SECONDS - down_at)))
check "campaign run is still running during the outage" kill -0 "$run_pid"
check_eq "no case failed, lost or cancelled during the outage" 0 \
  "$(cases "$wd" | awk -F'\t' '$2 ~ /failed|lost|cancelled|node_fail|timeout/' | wc -l)"
say "restarting slurmctld"
bash "$SRC/tests/slurm/start-cluster.sh" >>"$WORK/start-cluster.log" 2>&1
check "slurmctld is back" bash -c "scontrol ping >/dev/null"

wait "$run_pid"
check_eq "campaign run exits 0" 0 $?
BG_PIDS=()
check "the engine logged that the scheduler was unavailable" grep -q 'scheduler unavailable' "$wd/campaign.log"
check "and that it answers again" grep -q 'the scheduler answers again' "$wd/campaign.log"
cases "$wd" >"$WORK/cases.tsv"
check_eq "every case completed at attempt 1" "8 8" \
  "$(awk -F'\t' '$2 == "completed"' "$WORK/cases.tsv" | wc -l) $(awk -F'\t' '$3 == 1' "$WORK/cases.tsv" | wc -l)"
prefix=$(prefix_of "$wd")
wait_sacct_jobs "$prefix" 8
sacct_jobs "$prefix" >"$WORK/sacct.txt"
check_eq "sacct: 8 jobs, all COMPLETED, one per case" "8 8 8" \
  "$(wc -l <"$WORK/sacct.txt") $(awk '$3 == "COMPLETED"' "$WORK/sacct.txt" | wc -l) \
$(awk '{ print $2 }' "$WORK/sacct.txt" | sort -u | wc -l)"
if ((FAILED > 0)); then
  grep -v 'submitted job\|completed$' "$wd/campaign.log" | tail -30
fi

# --- sbatch failing transiently -------------------------------------------------------------------------
# A PATH wrapper: the first sbatch submits but reports a timeout (the job exists: it must be adopted,
# not submitted again), the second cannot reach the controller (nothing submitted: the case must be
# submitted again at once, no grace period: that sbatch has ended), the others work.
say "campaign run with an sbatch that fails transiently"
mkdir -p "$WORK/flaky"
cat >"$WORK/flaky/sbatch" <<EOF
#!/bin/bash
n=\$((\$(cat "$WORK/flaky/count" 2>/dev/null || echo 0) + 1))
echo \$n >"$WORK/flaky/count"
case \$n in
  1) $(command -v sbatch) "\$@" >>"$WORK/flaky/hidden"
     echo "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation" >&2; exit 1 ;;
  2) echo "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)" >&2
     exit 1 ;;
  *) exec $(command -v sbatch) "\$@" ;;
esac
EOF
chmod +x "$WORK/flaky/sbatch"
fw=$WORK/flaky-run
t=$SECONDS
PATH="$WORK/flaky:$PATH" "$CAMPAIGN" run "$SRC/tests/integration/campaigns/flaky.yaml" --workdir "$fw" -q 2>"$WORK/flaky.err"
check_eq "flaky: campaign run exits 0" 0 $?
check "flaky: done in less than 30 s (no grace period for its own failed sbatch)" test $((SECONDS - t)) -lt 30
check_eq "flaky: 4 sbatch calls for 3 jobs" 4 "$(cat "$WORK/flaky/count")"
check_eq "flaky: every case completed at attempt 1" "3 3" \
  "$(count_state "$fw" completed) $(cases "$fw" | awk -F'\t' '$3 == 1' | wc -l)"
check "flaky: the job of the 'timed out' sbatch was adopted" \
  grep -q "adopting job $(tr -dc 0-9 <"$WORK/flaky/hidden")" "$fw/campaign.log"
check "flaky: the failed submission went back to planned" \
  grep -Eq 'the submission never reached the scheduler|its submit command ended without submitting' "$fw/campaign.log"
fprefix=$(prefix_of "$fw")
wait_sacct_jobs "$fprefix" 3
check_eq "flaky: sacct: 3 jobs, one per case" "3 3" \
  "$(sacct_jobs "$fprefix" | wc -l) $(sacct_jobs "$fprefix" | awk '{ print $2 }' | sort -u | wc -l)"
