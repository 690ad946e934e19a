#!/usr/bin/env bash
# Acceptance 5, crash safety of the local executor: `campaign run` (campaigns/localcrash.yaml: 12 jobs
# of 2 s, as many at once as this machine has cores) is killed with SIGKILL at random moments while
# its jobs run, 6 times, and run again each time. Jobs survive the orchestrator; at the end every case
# is completed at attempt 1 and every job ran exactly once (each appends its name to runs.txt).
#
# Usage: bash crash_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 30 s on 2 cores)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
file=$SRC/tests/integration/campaigns/localcrash.yaml
wd=$WORK/localcrash
kill_runs 6 0.3 2.5 env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
running=$(count_state "$wd" running)
say "$KILLS kills; $(count_state "$wd" completed) completed, $running running after the last one"
check_eq "killed all 6 times (its last case holds the campaign open)" 6 "$KILLS"
touch "$wd/release"
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "the last campaign run exits 0" 0 $?
check_eq "every case completed at attempt 1" "12 12" \
  "$(count_state "$wd" completed) $(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"
check_eq "every job ran exactly once (runs.txt)" "12 0" \
  "$(sort -u "$wd/runs.txt" | wc -l) $(sort "$wd/runs.txt" | uniq -d | wc -l)"
check_eq "runs.txt names = status --json job names" "" \
  "$(diff <(sort "$wd/runs.txt") <(cases "$wd" | cut -f5 | sort))"
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
