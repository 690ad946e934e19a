#!/usr/bin/env bash
# Issue 5 (ssh), the link dies mid-run: the 40-case campaign (campaigns/slurm40.yaml) runs on the
# Slurm test cluster through a real sshd on 127.0.0.1. While it submits and polls, the sshd process
# serving its session is SIGKILLed (the listener stays), and later the whole server is stopped for
# several seconds and started again on the same port. The run reconnects by itself (or stops with a
# clear error, and `campaign run` again finishes it): in the end every case completed once, and
# accounting holds exactly one job per case, none submitted twice.
#
# Usage: bash ssh_reconnect.sh CAMPAIGN_BINARY SOURCE_DIR        (label ssh, needs the cluster; about 35 s)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ssh_lib.sh"
ensure_cluster

start_sshd "$WORK/sshd"
profile=$WORK/ssh-testcluster.yaml
ssh_profile testcluster "$profile" jump=none
file=$SRC/tests/integration/campaigns/slurm40.yaml
wd=$WORK/local/slurm40
submitted() {  # grep -c says 0 and fails where nothing matches: one number either way
  local n
  n=$(grep -c 'submitted job' "$wd/campaign.log" 2>/dev/null)
  echo "${n:-0}"
}
at_least() { (($(submitted) >= $1)); }

logins=$(accepted_logins)
say "campaign run slurm40 over ssh, in the background"
"$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q >"$WORK/run.out" 2>&1 &
pid=$!
BG_PIDS+=("$pid")

check "the run submits" wait_until 60 at_least 3
kill_connections
at_kill=$(submitted)
say "killed the sshd processes serving the run after $at_kill submissions"
check "the run reconnects and goes on" wait_until 60 at_least $((at_kill + 3 > 40 ? 40 : at_kill + 3))
sleep 1

logins_before_stop=$(($(accepted_logins) - logins))  # the restart starts a new log
bash "$SRC/tests/ssh/stop-sshd.sh" "$SSHD_DIR"
say "sshd stopped after $(submitted) submissions"
sleep 6
bash "$SRC/tests/ssh/start-sshd.sh" "$SSHD_DIR" --restart
say "sshd started again ($(submitted) submissions meanwhile)"

deadline=$((SECONDS + 150))
while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 1; done
wait "$pid"
rc=$?
BG_PIDS=()
say "the first run ended with status $rc: $(tail -1 "$WORK/run.out")"
logins=$((logins_before_stop + $(accepted_logins)))
check "it reconnected after each loss (at least 3 logins: $logins)" test "$logins" -ge 3
if ((rc != 0)); then
  check_eq "a run that gives up says why in one line" 1 "$(grep -c '^campaign: ' "$WORK/run.out")"
fi
grep -E 'unavailable|answers again|outcome unknown|adopting|never reached' "$wd/campaign.log" | cut -c1-240 | head

"$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q
check_eq "campaign run (again) exits 0" 0 $?
cases "$wd" >"$WORK/cases.tsv"
check_eq "40 cases, every one completed at attempt 1" "40 40 40" \
  "$(wc -l <"$WORK/cases.tsv") $(awk -F'\t' '$2 == "completed"' "$WORK/cases.tsv" | wc -l) \
$(awk -F'\t' '$3 == 1' "$WORK/cases.tsv" | wc -l)"
prefix=$(prefix_of "$wd")
wait_sacct_jobs "$prefix" 40  # a duplicate submitted earlier would show by then too (lib.sh)
sacct_jobs "$prefix" >"$WORK/sacct.txt"
check_eq "sacct: 40 jobs named $prefix*, no duplicate name" "40 0" \
  "$(wc -l <"$WORK/sacct.txt") $(awk '{ print $2 }' "$WORK/sacct.txt" | sort | uniq -d | wc -l)"
check_eq "sacct job ids = status --json job ids" "" \
  "$(diff <(awk '{ print $1 }' "$WORK/sacct.txt" | sort) <(cut -f4 "$WORK/cases.tsv" | sort))"
check_eq "every job COMPLETED in accounting" 40 "$(awk '$3 == "COMPLETED"' "$WORK/sacct.txt" | wc -l)"
