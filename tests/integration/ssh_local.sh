#!/usr/bin/env bash
# Issue 5 (ssh), against `local`: whole campaigns driven from "the laptop" through a real sshd and a
# jump host on 127.0.0.1, with `scheduler: local`, so the jobs run under the executor ON THE REMOTE
# side (`campaign executor` called over the session). Shows: one authenticated session per run; the
# remote work directory from the profile; inputs staged once; parameter values with spaces, quotes
# and $(...) staged and run literally; collector files fetched back (large outputs excluded) and
# collected locally; status naming the host, never the key; the 40-case campaign of the Slurm tests
# complete with every case run once.
#
# Usage: bash ssh_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label ssh; about 50 s on 2 cores)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ssh_lib.sh"

start_sshd "$WORK/sshd"
profile=$WORK/ssh-local.yaml
ssh_profile local "$profile"
weird_campaign "$WORK/camp"

wd=$WORK/local/weird
rd=$WORK/remote/weird
logins=$(accepted_logins)
say "campaign run weird (4 cases) over ssh + jump host"
"$CAMPAIGN" run "$WORK/camp/weird.yaml" --system "$profile" --workdir "$wd" -q >"$WORK/run1.out" 2>&1
check_eq "campaign run exits 0" 0 $?
cat "$WORK/run1.out"
check_eq "one authenticated session for the whole run" 1 $(($(accepted_logins) - logins))
check "it went through the jump host" grep -q 'Accepted publickey' "$SSHD_DIR/jump.log"
check "the remote work directory is the profile's workdir/NAME" test -s "$rd/c-w-1/job.sh"
check "scripts refer to the remote run directory" grep -qF "cd $rd/c-w-1" "$wd/c-w-1/job.sh"
check "the executor spool is remote, not local" bash -c "test -d '$rd/.local' && ! test -e '$wd/.local'"
check_weird "$wd" "$rd"
check_eq "the inputs were staged" 2 "$(find "$rd/data" -type f | wc -l)"
check "remote.json names the host and the remote directory" \
  grep -qF "\"workdir\": \"$rd\"" "$wd/remote.json"

"$CAMPAIGN" status "$wd" >"$WORK/status.txt" 2>&1
check "campaign status names the host" grep -qF "ssh $SSH_USER@127.0.0.1:$SSHD_PORT via $SSH_USER@127.0.0.1:$JUMP_PORT in $rd" \
  "$WORK/status.txt"
"$CAMPAIGN" status "$wd" --json >"$WORK/status.json" 2>&1
check "status --json has the remote host" grep -qF "\"host\": \"$SSH_USER@127.0.0.1:$SSHD_PORT" "$WORK/status.json"
"$CAMPAIGN" status "$WORK/camp/weird.yaml" --system "$profile" --workdir "$wd" --refresh >"$WORK/refresh.txt" 2>&1
check_eq "status --refresh over ssh exits 0" 0 $?
no_secrets "$wd" "$WORK/run1.out" "$WORK/status.txt" "$WORK/status.json" "$WORK/refresh.txt"

# Again: nothing submitted, nothing staged, the files fetched again by `collect` only if changed.
"$CAMPAIGN" run "$WORK/camp/weird.yaml" --system "$profile" --workdir "$wd" -q
check_eq "a second run exits 0" 0 $?
check_eq "and submits nothing" 4 "$(grep -c 'submitted job' "$wd/campaign.log")"
check "and sends no input again" grep -q 'inputs: 2 files, 0 sent' "$wd/campaign.log"
"$CAMPAIGN" collect "$WORK/camp/weird.yaml" --system "$profile" --workdir "$wd" >"$WORK/collect.txt" 2>&1
check "collect over ssh recollects the 4 cases" grep -q 'collected 4 cases, 0 failed' "$WORK/collect.txt"

# A job that fails: its output is mirrored too (no collector reads it), so it can be read locally.
cat >"$WORK/camp/failing.yaml" <<'YAML'
name: failing
matrix: {code: [0, 3]}
case_name: f{{code}}
retry: {max_attempts: 1}
job: {partition: cpu, nodes: 1, ranks: 1, walltime: 5m, launch: false, command: "echo out-{{code}}; exit {{code}}"}
YAML
"$CAMPAIGN" run "$WORK/camp/failing.yaml" --system "$profile" --workdir "$WORK/local/failing" -q
check_eq "a campaign with a failing job exits 1" 1 $?
check_eq "the failed job's output is mirrored locally" out-3 "$(cat "$WORK"/local/failing/f3/job-*.out)"
check_eq "and its exit marker" 3 "$(cat "$WORK/local/failing/f3/.exit")"

# The 40-case campaign of the Slurm tests, on the remote host's executor.
wd40=$WORK/local/slurm40
rd40=$WORK/remote/slurm40
say "campaign run slurm40 (40 cases) over ssh + jump host, local executor on the remote side"
"$CAMPAIGN" run "$SRC/tests/integration/campaigns/slurm40.yaml" --system "$profile" --workdir "$wd40" -q
check_eq "campaign run exits 0" 0 $?
cases "$wd40" >"$WORK/cases40.tsv"
check_eq "every case completed at attempt 1" "40 40" \
  "$(awk -F'\t' '$2 == "completed"' "$WORK/cases40.tsv" | wc -l) $(awk -F'\t' '$3 == 1' "$WORK/cases40.tsv" | wc -l)"
check "the staging step ran first, remotely" test -s "$rd40/staged.txt"
check_eq "a 4-node case ran 4 ranks through the remote campaign's launcher" "0 1 2 3" \
  "$(grep -ho 'rank [0-9] of 4' "$rd40"/s40-mc-N4-r1/job-*.out | awk '{ print $2 }' | sort | paste -sd' ')"
check_eq "no job ran twice (one output file per case, remotely)" 40 "$(ls "$rd40"/*/job-*.out | wc -l)"
check_eq "each job's output is mirrored locally" 40 "$(ls "$wd40"/*/job-*.out | wc -l)"
