#!/usr/bin/env bash
# Acceptance 2, crash safety on Slurm: `campaign run` dies 24 times, each time followed by `campaign
# run` again, at forced points and at random moments: 6 times between sbatch and the catalog commit of
# the job id (CAMPAIGN_TEST_CRASH=after_submit:1 exits there, as kill -9 would); 4 times killed while a
# slow sbatch (a PATH wrapper that waits 3 s) is on its way, so that the job appears after the next
# run has looked for it; once as sbatch starts, which then submits nothing (that case must go back to
# planned, after the grace period); 13 times by kill -9 at a random moment. The campaign
# (campaigns/crash.yaml: 41 jobs, at most 6 queued at once so that submissions go on all along) must
# end with every case completed at attempt 1, exactly one job per case in accounting, and every job run
# once (each appends its name to runs.txt).
#
# Usage: bash crash_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 80 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/crash.yaml
system=$SRC/tests/integration/systems/testcluster-q6.yaml
wd=$WORK/crash
rand_sleep() { sleep "$(awk -v r=$RANDOM -v max="$1" 'BEGIN { printf "%.2f", 0.05 + r / 32768 * max }')"; }

# An sbatch that is slow to reach the controller: it records that it started, waits, then submits.
# Killing `campaign run` while it waits leaves it orphaned: it submits after its parent died, and the
# next run must not take the missing job for a submission that never happened.
mkdir -p "$WORK/slow"
printf '#!/bin/bash\ntouch %q\nsleep 3\nexec %q "$@"\n' "$WORK/slow/started" "$(command -v sbatch)" >"$WORK/slow/sbatch"
chmod +x "$WORK/slow/sbatch"
# An sbatch that never reaches the controller: the orchestrator dies as it starts it.
mkdir -p "$WORK/never"
printf '#!/bin/bash\ntouch %q\nkill -9 $PPID\nexit 1\n' "$WORK/slow/started" >"$WORK/never/sbatch"
chmod +x "$WORK/never/sbatch"

# exited PID: the process is gone or a zombie.
exited() { [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) =~ ^(Z|)$ ]]; }

# The crash points are forced, not left to timing: first 11 runs that each die at their first
# submission (each uses up one case, and waits for a free queue slot as long as it takes), in three
# ways (`never` once the staging step has its job: its case waits for the grace period, and the other
# cases depend on the staging step); then 13 runs killed at a random moment (0.05-1.5 s after their start). The campaign cannot
# end during those: its 41 jobs of 4 s, 6 at a time, need far more time than the random runs are
# given.
schedule=(hook slow hook never slow hook slow hook slow hook hook random random random random random random
  random random random random random random random)
crashes=0 hooked=0 inflight=0 never=0 killed=0 i=0
for mode in "${schedule[@]}"; do
  i=$((i + 1))
  rm -f "$WORK/slow/started"
  # The binary itself in the background (env execs it: $! is the campaign process).
  case $mode in
    random) env "$CAMPAIGN" run "$file" --system "$system" --workdir "$wd" -q 2>>"$WORK/stderr.txt" & ;;
    hook) env CAMPAIGN_TEST_CRASH=after_submit:1 "$CAMPAIGN" run "$file" --system "$system" --workdir "$wd" -q \
      2>>"$WORK/stderr.txt" & ;;
    slow | never) env PATH="$WORK/$mode:$PATH" "$CAMPAIGN" run "$file" --system "$system" --workdir "$wd" -q \
      2>>"$WORK/stderr.txt" & ;;
  esac
  pid=$!
  BG_PIDS+=("$pid")
  case $mode in
    random) rand_sleep 1.5 ;;
    # Up to 5 min: the hook fires when a queue slot frees, later when other work holds the nodes.
    hook) for _ in $(seq 3000); do exited "$pid" && break; sleep 0.1; done ;;
    slow | never) for _ in $(seq 3000); do [[ -e $WORK/slow/started ]] && break; sleep 0.1; done ;;
  esac
  was_alive=0
  exited "$pid" || { kill -9 "$pid" 2>/dev/null && was_alive=1 && killed=$((killed + 1)); }
  { wait "$pid"; } 2>/dev/null
  rc=$?
  BG_PIDS=()
  if ((rc == 137)); then
    crashes=$((crashes + 1))
    [[ $mode == hook && $was_alive == 0 ]] && hooked=$((hooked + 1))
    [[ $mode == slow && -e $WORK/slow/started ]] && inflight=$((inflight + 1))
    [[ $mode == never && -e $WORK/slow/started ]] && never=$((never + 1))
  else
    bad "campaign run exited $rc (iteration $i, $mode): the campaign ended too early or the run failed"
    break
  fi
done
say "$crashes crashes: $killed by kill -9 ($inflight of them while sbatch was on its way), $hooked between sbatch" \
  "and the catalog commit, $never as sbatch started (it then submitted nothing)"
check_eq "24 crashes before the campaign finished" 24 "$crashes"
check_eq "6 crashes between sbatch and the catalog commit" 6 "$hooked"
check_eq "4 crashes while sbatch was on its way" 4 "$inflight"
check_eq "1 crash as sbatch started" 1 "$never"

say "campaign run to the end"
"$CAMPAIGN" run "$file" --system "$system" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "the last campaign run exits 0" 0 $?

cases "$wd" >"$WORK/cases.tsv"
check_eq "41 cases" 41 "$(wc -l <"$WORK/cases.tsv")"
check_eq "every case completed" 41 "$(awk -F'\t' '$2 == "completed"' "$WORK/cases.tsv" | wc -l)"
check_eq "every case at attempt 1" 41 "$(awk -F'\t' '$3 == 1' "$WORK/cases.tsv" | wc -l)"
adopted=$(grep -c 'adopting job' "$wd/campaign.log")
check "crashed submissions were adopted by job name ($adopted)" test "$adopted" -ge 1
check "submissions on their way when the run died were waited for" grep -Eq 'no job named .* yet; its submission (may still be on its way|still runs on the login node)' "$wd/campaign.log"
check "a submission that never reached Slurm went back to planned (after the grace period)" \
  grep -q 'the submission never reached the scheduler' "$wd/campaign.log"

prefix=$(prefix_of "$wd")
wait_sacct_jobs "$prefix" 41  # a duplicate submitted earlier would show by then too (lib.sh)
sacct_jobs "$prefix" >"$WORK/sacct.txt"
check_eq "sacct: 41 jobs of the campaign" 41 "$(wc -l <"$WORK/sacct.txt")"
check_eq "sacct: no duplicate job name" "" "$(awk '{ print $2 }' "$WORK/sacct.txt" | sort | uniq -d | paste -sd' ')"
check_eq "sacct job ids = status --json job ids" "" \
  "$(diff <(awk '{ print $1 }' "$WORK/sacct.txt" | sort) <(cut -f4 "$WORK/cases.tsv" | sort))"
check_eq "every job ran once (runs.txt)" "41 0" \
  "$(sort "$wd/runs.txt" | uniq | wc -l) $(sort "$wd/runs.txt" | uniq -d | wc -l)"
if grep -qiv 'interrupted\|^$' "$WORK/stderr.txt"; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | sort -rn | head -10
fi
