#!/usr/bin/env bash
# Issue 12 acceptance, job arrays on a real Slurm: campaigns/array200.yaml (200 one-core cases of
# 2 s, `array: {throttle: 10}`) becomes one job array submitted with the throttle (%10: its submit
# line in accounting); squeue, sampled every 0.2 s, never shows more than 10 tasks of an array running
# (how many the samples do see depends on the machine's load: not a verdict); the one case that fails (exit 3) is retried alone, as a new
# array of one task, and every other case completes at attempt 1 under its own task's id.
#
# Usage: bash array200_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 60 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

file=$SRC/tests/integration/campaigns/array200.yaml
wd=$WORK/array200
mkdir -p "$wd"
(
  while :; do
    # the most running tasks of one of our arrays (%F: the array's id; a retry is its own array)
    squeue -h -r -t R -o '%F %Z' 2>/dev/null | awk -v w="$wd/" 'index($2, w) == 1 { n[$1]++ }
      END { m = 0; for (a in n) if (n[a] > m) m = n[a]; print m }'
    sleep 0.2
  done
) >"$WORK/running.txt" &
sampler=$!
BG_PIDS+=("$sampler")
"$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "campaign run exits 0" 0 $?
kill "$sampler" 2>/dev/null
max=$(sort -n "$WORK/running.txt" | tail -1)
say "$(wc -l <"$WORK/running.txt") squeue samples, at most $max tasks of one array running"
check "never more than 10 tasks of an array running" test "$max" -le 10

check_eq "every case completed" 200 "$(count_state "$wd" completed)"
first=$(field "$wd" a200-r1 4)
first=${first%_*}
check_eq "199 cases at attempt 1, as tasks of one array" 199 \
  "$(cases "$wd" | awk -F'\t' -v a="$first" '$3 == 1 && index($4, a "_") == 1' | wc -l)"
r7=$(field "$wd" a200-r7 4)
check_eq "case r7 completed at attempt 2" 2 "$(field "$wd" a200-r7 3)"
check "... as task 0 of another array" test "${r7%_*}" != "$first" -a "${r7#*_}" = 0
prefix=$(prefix_of "$wd")
array_tasks() { sacct -X -n -P -j "$first,${r7%_*}" -o JobID,State 2>/dev/null; }
ended_tasks() { array_tasks | ended_records; }
wait_accounting 201 ended_tasks
tasks=$(array_tasks)
check_eq "accounting: 200 tasks in the first array, 1 in the second" "200 1" \
  "$(grep -c "^${first}_" <<<"$tasks") $(grep -c "^${r7%_*}_" <<<"$tasks")"
check_eq "... one FAILED (r7's first attempt), the rest COMPLETED" "1 200" \
  "$(grep -c '|FAILED' <<<"$tasks") $(grep -c '|COMPLETED' <<<"$tasks")"
check_eq "the first array was submitted with its throttle (sacct's submit line)" "--array=0-199%10" \
  "$(sacct -X -n -P -j "${first}_0" -o SubmitLine 2>/dev/null | grep -o -- '--array=[^ ]*' | head -1)"
outputs=0
while IFS=$'\t' read -r name _ _ id _; do
  [[ -e $wd/$name/slurm-$id.out ]] && outputs=$((outputs + 1))
done < <(cases "$wd")
check_eq "each case's output under its task's id in its run directory" 200 "$outputs"
