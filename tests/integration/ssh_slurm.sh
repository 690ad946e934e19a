#!/usr/bin/env bash
# Issue 5 (ssh), against the real Slurm test cluster: the 40-case campaign (campaigns/slurm40.yaml)
# driven from "the laptop" through a real sshd and a jump host on 127.0.0.1. The Slurm back end runs
# unchanged over the SSH shell: every case completes once, accounting shows exactly 40 jobs with the
# names the catalog recorded, one authenticated session serves the whole run, the job outputs are
# mirrored locally. Then the 4-case campaign with file names holding spaces, quotes and $(...),
# staged and run literally on Slurm, and status, cancel and a second run over ssh. Last, `cancel` of
# running jobs over ssh: three jobs of 5 minutes submitted with `run --no-wait`; `cancel --case`
# ends one (CANCELLED in sacct, the other two still running), `cancel` the other two; the catalog
# says cancelled for the three, and nothing of them is left in the queue.
#
# Usage: bash ssh_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label ssh, needs the cluster; about 50 s)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ssh_lib.sh"
ensure_cluster

start_sshd "$WORK/sshd"
profile=$WORK/ssh-testcluster.yaml
ssh_profile testcluster "$profile"

wd=$WORK/local/slurm40
rd=$WORK/remote/slurm40
logins=$(accepted_logins)
say "campaign run slurm40 (40 cases) on the test cluster over ssh + jump host"
"$CAMPAIGN" run "$SRC/tests/integration/campaigns/slurm40.yaml" --system "$profile" --workdir "$wd" -q
check_eq "campaign run exits 0" 0 $?
check_eq "one authenticated session for the whole run" 1 $(($(accepted_logins) - logins))
check "it went through the jump host" grep -q 'Accepted publickey' "$SSHD_DIR/jump.log"

cases "$wd" >"$WORK/cases.tsv"
check_eq "40 cases, every one completed at attempt 1" "40 40 40" \
  "$(wc -l <"$WORK/cases.tsv") $(awk -F'\t' '$2 == "completed"' "$WORK/cases.tsv" | wc -l) \
$(awk -F'\t' '$3 == 1' "$WORK/cases.tsv" | wc -l)"
check "the staging step ran first, remotely" test -s "$rd/staged.txt"
check "Slurm ran the scripts in the remote run directories" grep -q 'on cn' "$rd/s40-mc-N1-r1"/slurm-*.out
check "scripts refer to the remote run directory" grep -qF -- "--output=$rd/s40-mc-N1-r1/slurm-%j.out" \
  "$wd/s40-mc-N1-r1/job.sh"
check_eq "each job's output is mirrored locally" 40 "$(ls "$wd"/*/slurm-*.out | wc -l)"

prefix=$(prefix_of "$wd")
wait_sacct_jobs "$prefix" 40
sacct_jobs "$prefix" >"$WORK/sacct.txt"
check_eq "sacct: 40 jobs named $prefix*, no duplicate name" "40 0" \
  "$(wc -l <"$WORK/sacct.txt") $(awk '{ print $2 }' "$WORK/sacct.txt" | sort | uniq -d | wc -l)"
check_eq "sacct names = status --json names" "" \
  "$(diff <(awk '{ print $2 }' "$WORK/sacct.txt" | sort) <(cut -f5 "$WORK/cases.tsv" | sort))"
check_eq "sacct job ids = status --json job ids" "" \
  "$(diff <(awk '{ print $1 }' "$WORK/sacct.txt" | sort) <(cut -f4 "$WORK/cases.tsv" | sort))"

"$CAMPAIGN" status "$SRC/tests/integration/campaigns/slurm40.yaml" --system "$profile" --workdir "$wd" \
  --refresh >"$WORK/status.txt" 2>&1
check_eq "status --refresh over ssh exits 0" 0 $?
check "status names the host" grep -qF "ssh $SSH_USER@127.0.0.1:$SSHD_PORT" "$WORK/status.txt"
"$CAMPAIGN" cancel "$SRC/tests/integration/campaigns/slurm40.yaml" --system "$profile" --workdir "$wd" \
  >"$WORK/cancel.txt" 2>&1
check "cancel over ssh: nothing left to cancel" grep -q 'cancelled 0 cases' "$WORK/cancel.txt"
"$CAMPAIGN" run "$SRC/tests/integration/campaigns/slurm40.yaml" --system "$profile" --workdir "$wd" -q
check_eq "a second campaign run exits 0" 0 $?
check_eq "and submits nothing" 40 "$(grep -c 'submitted job' "$wd/campaign.log")"
no_secrets "$wd" "$WORK/status.txt" "$WORK/cancel.txt"

weird_campaign "$WORK/camp"
say "campaign run weird (4 cases) on the test cluster over ssh + jump host"
"$CAMPAIGN" run "$WORK/camp/weird.yaml" --system "$profile" --workdir "$WORK/local/weird" -q
check_eq "campaign run exits 0" 0 $?
check_weird "$WORK/local/weird" "$WORK/remote/weird"

cat >"$WORK/camp/long.yaml" <<'YAML'
name: longjobs
system: testcluster
matrix:
  n: [1, 2, 3]
case_name: long-{{n}}
job: {partition: mc, nodes: 1, ranks_per_node: 1, walltime: 10m, launch: false, command: "sleep 300"}
YAML
lw=$WORK/local/long
"$CAMPAIGN" run "$WORK/camp/long.yaml" --system "$profile" --workdir "$lw" --no-wait -q
check_eq "long jobs: run --no-wait over ssh exits 0" 0 $?
lprefix=$(prefix_of "$lw")
running() { [[ $(squeue -h -t R -o %j | grep -c "^${lprefix}long-") == "$1" ]]; }
# queued N: N of them in the queue in any state not ended (squeue's default: pending, running,
# completing, ...).
queued() { [[ $(squeue -h -o %j | grep -c "^${lprefix}long-") == "$1" ]]; }
check "the three jobs run" wait_until 60 running 3
"$CAMPAIGN" cancel "$WORK/camp/long.yaml" --system "$profile" --workdir "$lw" --case long-2 >"$WORK/cancel1.txt" 2>&1
check "cancel --case long-2 over ssh: one case" grep -q 'cancelled 1 case;' "$WORK/cancel1.txt"
two_left() { queued 2 && running 2; }
check "... its job leaves the queue, the other two run on" wait_until 30 two_left
check_eq "... in the catalog: long-2 cancelled, long-1 and long-3 not" "active cancelled active" \
  "$(for n in 1 2 3; do field "$lw" long-$n 2; done | sed -E 's/^(queued|running)$/active/' | paste -sd' ')"
"$CAMPAIGN" cancel "$WORK/camp/long.yaml" --system "$profile" --workdir "$lw" >"$WORK/cancel2.txt" 2>&1
check "cancel over ssh: the other two" grep -q 'cancelled 2 cases;' "$WORK/cancel2.txt"
check_eq "the catalog: all three cancelled" 3 "$(count_state "$lw" cancelled)"
check "none of them left in the queue, running or pending" wait_until 30 queued 0
long_states() { sacct -X -n -P -a -S "$TEST_START" -o JobName,State 2>/dev/null | grep "^${lprefix}long-" | sort; }
long_ended() { [[ $(long_states | grep -c '|CANCELLED') == 3 ]]; }
wait_until 60 long_ended
check_eq "sacct: the three jobs CANCELLED, once each" \
  "${lprefix}long-1-a1|CANCELLED ${lprefix}long-2-a1|CANCELLED ${lprefix}long-3-a1|CANCELLED" \
  "$(long_states | sed 's/|CANCELLED by [0-9]*/|CANCELLED/' | paste -sd' ')"
