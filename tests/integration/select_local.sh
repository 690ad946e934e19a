#!/usr/bin/env bash
# Choosing cases (issue 33): `run --case GLOB` and `--only KEY=VALUE` run only the chosen cases (and
# those they run after), leave the others planned and end when the chosen ones end; `status` shows a
# selection; `resume --again` runs a completed case again on purpose, keeping its first attempt;
# mistakes (a parameter no case has, a selection that chooses nothing, --again without one) exit 2
# before anything runs.
#
# Usage: bash select_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 10 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
wd=$WORK/select
file=$WORK/select.yaml
cat >"$file" <<'YAML'
name: select
system: local
matrix:
  data: [real, dummy]
  ranks: [1, 2]
case_name: "{{step}}-{{data}}-{{ranks}}"
job:
  walltime: 5m
  launch: false
  command: "echo {{data}} {{ranks}} >> ran.txt"
steps:
  stage:
    matrix: {data: [real, dummy]}
    case_name: "stage-{{data}}"
  train:
    after: [stage]
YAML
run() { env PATH="$nopath" "$CAMPAIGN" "$@"; }
state_of() { field "$wd" "$1" 2; }

run run "$file" --workdir "$wd" --only rank=2 >"$WORK/bad1.out" 2>&1
check_eq "--only with a parameter no case has: exit 2" 2 $?
check "it names the nearest one" grep -q "no case has a parameter 'rank', did you mean 'ranks'?" "$WORK/bad1.out"
run run "$file" --workdir "$wd" --case 'nope-*' >"$WORK/bad2.out" 2>&1
check_eq "--case that matches nothing: exit 2" 2 $?
check "it says so" grep -q -- "--case 'nope-\*': no case matches (of 6" "$WORK/bad2.out"
check "and nothing was written" test ! -e "$wd"

run run "$file" --workdir "$wd" --case 'train-real-*' --only ranks=2 >"$WORK/run1.out" 2>"$WORK/run1.err"
check_eq "run --case train-real-* --only ranks=2: exit 0" 0 $?
check "it says what it chose" grep -q -- "--case 'train-real-\*' --only ranks=2: 1 of the 6 cases, and 1 they run after" "$WORK/run1.out"
check "the summary counts the chosen cases" grep -q "^done: 2 chosen cases succeeded (2 completed)" "$WORK/run1.out"
check_eq "train-real-2 completed" completed "$(state_of train-real-2)"
check_eq "stage-real (it runs after it) completed" completed "$(state_of stage-real)"
check_eq "train-real-1 is still planned" planned "$(state_of train-real-1)"
check_eq "stage-dummy is still planned" planned "$(state_of stage-dummy)"

"$CAMPAIGN" status "$wd" --only data=dummy >"$WORK/status.txt"
check_eq "status --only data=dummy: exit 0" 0 $?
check_eq "it lists the 3 dummy cases" "stage-dummy train-dummy-1 train-dummy-2" \
  "$(awk 'NR > 3 && /^(stage|train)-/ { print $1 }' "$WORK/status.txt" | sort | tr '\n' ' ' | sed 's/ $//')"
"$CAMPAIGN" status "$wd" --only data=none >/dev/null 2>&1
check_eq "status with a selection that chooses nothing: exit 2" 2 $?

run resume "$file" --workdir "$wd" --again >"$WORK/again0.out" 2>&1
check_eq "resume --again without a selection: exit 2" 2 $?
run resume "$file" --workdir "$wd" --again --case train-real-2 >"$WORK/again.out" 2>"$WORK/again.err"
check_eq "resume --again --case train-real-2: exit 0" 0 $?
check_eq "train-real-2 ran again: attempt 2" 2 "$(field "$wd" train-real-2 3)"
check_eq "its case ran twice" 2 "$(wc -l <"$wd/train-real-2/ran.txt")"
check_eq "stage-real did not run again" 1 "$(field "$wd" stage-real 3)"
check "attempt 1's script is kept" test -s "$wd/train-real-2/attempt-1/job.sh"

run run "$file" --workdir "$wd" -q
check_eq "run without a selection runs the rest: exit 0" 0 $?
check_eq "every case completed" 6 "$(cases "$wd" | awk -F'\t' '$2 == "completed"' | wc -l)"
