#!/usr/bin/env bash
# Acceptance 2, crash safety on Slurm: `campaign run` is killed with SIGKILL at least 20 times, each
# time followed by `campaign run` again, in three ways: at a random moment; between sbatch and the
# catalog commit of the job id (CAMPAIGN_TEST_CRASH=after_submit:1 exits there, as kill -9 would); and
# while a slow sbatch (a PATH wrapper that waits 2 s) is on its way, so that the job appears after the
# next run has looked for it. Once, the run dies as sbatch starts and nothing is submitted: that case
# must go back to planned. The campaign (campaigns/crash.yaml: 41 jobs, at most 4 queued at once so
# that submissions go on all along) must end with every case completed at attempt 1, exactly one job
# per case in accounting, and every job run once (each appends its name to runs.txt).
#
#   bash crash_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 80 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/crash.yaml
system=$SRC/tests/integration/systems/testcluster-q4.yaml
wd=$WORK/crash
run() { "$CAMPAIGN" run "$file" --system "$system" --workdir "$wd" -q "$@"; }
rand_sleep() { sleep "$(awk -v r=$RANDOM -v max="$1" 'BEGIN { printf "%.2f", 0.05 + r / 32768 * max }')"; }

# An sbatch that is slow to reach the controller: it records that it started, waits, then submits.
# Killing `campaign run` while it waits leaves it orphaned: it submits after its parent died, and the
# next run must not take the missing job for a submission that never happened.
mkdir -p "$WORK/slow"
printf '#!/bin/bash\ntouch %q\nsleep 2\nexec %q "$@"\n' "$WORK/slow/started" "$(command -v sbatch)" >"$WORK/slow/sbatch"
chmod +x "$WORK/slow/sbatch"
# An sbatch that never reaches the controller: the orchestrator dies as it starts it.
mkdir -p "$WORK/never"
printf '#!/bin/bash\ntouch %q\nkill -9 $PPID\nexit 1\n' "$WORK/slow/started" >"$WORK/never/sbatch"
chmod +x "$WORK/never/sbatch"

# exited PID: the process is gone or a zombie.
exited() { [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) =~ ^(Z|)$ ]]; }

crashes=0 hooked=0 inflight=0 never=0 killed=0 i=0
while ((crashes < 24)); do
  i=$((i + 1))
  mode=random
  # Two runs of three crash at a submission, while there is something left to submit: at the
  # first submission (after sbatch, before the catalog commit), or while a slow sbatch is on its way.
  if ((i % 3 != 1)) && [[ ! -e $wd/campaign.db || $(count_state "$wd" planned) -gt 0 ]]; then
    ((i % 3 == 2)) && mode=hook || mode=slow
    ((i == 3)) && mode=never
  fi
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
    random) rand_sleep 2.5 ;;
    hook) for _ in $(seq 40); do exited "$pid" && break; sleep 0.2; done ;;  # the hook fires as a slot frees
    slow | never) for _ in $(seq 80); do [[ -e $WORK/slow/started ]] && break; sleep 0.1; done ;;
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
  elif ((rc == 0)); then
    break  # finished: the check below tells whether there were enough crashes before
  else
    bad "campaign run exited $rc (iteration $i)"
    break
  fi
done
say "$crashes crashes: $killed by kill -9 ($inflight of them while sbatch was on its way), $hooked between sbatch" \
  "and the catalog commit, $never as sbatch started (it then submitted nothing)"
check "at least 20 crashes before the campaign finished" test "$crashes" -ge 20
check "at least 5 crashes between sbatch and the catalog commit" test "$hooked" -ge 5
check "at least 3 crashes while sbatch was on its way" test "$inflight" -ge 3

say "campaign run to the end"
run 2>>"$WORK/stderr.txt"
check_eq "the last campaign run exits 0" 0 $?

cases "$wd" >"$WORK/cases.tsv"
check_eq "41 cases" 41 "$(wc -l <"$WORK/cases.tsv")"
check_eq "every case completed" 41 "$(awk -F'\t' '$2 == "completed"' "$WORK/cases.tsv" | wc -l)"
check_eq "every case at attempt 1" 41 "$(awk -F'\t' '$3 == 1' "$WORK/cases.tsv" | wc -l)"
adopted=$(grep -c 'adopting job' "$wd/campaign.log")
check "crashed submissions were adopted by job name ($adopted)" test "$adopted" -ge 1
check "submissions on their way when the run died were waited for" grep -q 'may still be on its way' "$wd/campaign.log"
check "a submission that never reached Slurm went back to planned (after the grace period)" \
  grep -q 'the submission never reached the scheduler' "$wd/campaign.log"

prefix=$(prefix_of "$wd")
wait_sacct_jobs "$prefix" 41
sleep 2  # a duplicate submitted last would show now
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
