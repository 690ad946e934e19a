#!/usr/bin/env bash
# Issue 5 (ssh), against the real Slurm test cluster: the 40-case campaign (campaigns/slurm40.yaml)
# driven from "the laptop" through a real sshd and a jump host on 127.0.0.1. The Slurm back end runs
# unchanged over the SSH shell: every case completes once, accounting shows exactly 40 jobs with the
# names the catalog recorded, one authenticated session serves the whole run, the job outputs are
# mirrored locally. Then the 4-case campaign with file names holding spaces, quotes and $(...),
# staged and run literally on Slurm, and status, cancel and a second run over ssh.
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
