#!/usr/bin/env bash
# A campaign file edited between runs is noticed and said (issue 33 item 4): which cases changed,
# in what (command, resources), and what that means for each one's attempts; every attempt's script is
# kept; cases dropped from the matrix are said by name and still listed by `status --all`; `show`
# prints one case's attempts, command and output.
#
# Usage: bash changed_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 5 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
wd=$WORK/changed
file=$WORK/changed.yaml
cat >"$file" <<'YAML'
name: changed
system: local
matrix:
  n: [1, 2, 3]
case_name: chg-{{n}}
job:
  walltime: 5m
  launch: false
  command: "echo v1; exit $(( {{n}} % 2 ))"
YAML
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" -q
check_eq "the first run ends with failures (chg-1, chg-3)" 1 $?

# The command changes, chg-3 leaves the matrix, chg-2 asks for more time.
cat >"$file" <<'YAML'
name: changed
system: local
matrix:
  n: [1, 2]
derived:
  minutes: "n == 2 ? 10 : 5"
case_name: chg-{{n}}
job:
  walltime: "{{minutes}}"
  launch: false
  command: "echo v2; exit $(( {{n}} % 2 ))"
YAML
env PATH="$nopath" "$CAMPAIGN" resume "$file" --workdir "$wd" --failed >"$WORK/resume.out" 2>"$WORK/resume.err"
check_eq "resume --failed ends: chg-1 still fails (exit 1)" 1 $?
check "it warns that the file changed, naming the fields and the cases" \
  grep -q "the campaign file changed since the catalog recorded 2 of its cases (command, walltime: chg-1, chg-2)" "$WORK/resume.err"
check "it names the case no longer in the file" grep -q "no longer in the campaign file (chg-3)" "$WORK/resume.err"
check "campaign.log says what changed for chg-1 and what happens to its attempt" \
  grep -q "chg-1 changed: command: 'echo v1; exit \$(( 1 % 2 ))' -> 'echo v2; exit \$(( 1 % 2 ))'; attempt 1 (failed) ran the earlier one" "$wd/campaign.log"
check "and that chg-2's completion stands" \
  grep -q "chg-2 changed: .*walltime: '00:05:00' -> '00:10:00'; attempt 1 completed with the earlier one and stands" "$wd/campaign.log"
check "attempt 1's script is kept as it ran" grep -q "echo v1" "$wd/chg-1/attempt-1/job.sh"
check "attempt 2 ran the new one" grep -q "echo v2" "$wd/chg-1/job.sh"
check_eq "chg-2 did not run again" 1 "$(cases "$wd" | awk -F'\t' '$1 == "chg-2" { print $3 }')"
check "status hides chg-3 and says so" bash -c "'$CAMPAIGN' status '$wd' | grep -q 'no longer in the campaign file: --all lists them'"
check "status --all lists it" bash -c "'$CAMPAIGN' status '$wd' --all | grep -q 'chg-3 (not in the file)'"

# `campaign show CASE`: both attempts, the new command, the tail of the job's output.
"$CAMPAIGN" show "$wd" chg-1 >"$WORK/show.txt" 2>&1
check_eq "show exits 0" 0 $?
check "show lists attempt 1 and attempt 2" bash -c "grep -q '^  #1 failed, job ' '$WORK/show.txt' && grep -q '^  #2 failed, job ' '$WORK/show.txt'"
check "show prints the command it runs now" grep -q "^command echo v2; exit" "$WORK/show.txt"
check "show prints the tail of the job's output" grep -q "^  v2$" "$WORK/show.txt"
"$CAMPAIGN" show "$wd" chg-9 >/dev/null 2>"$WORK/show.err"
check_eq "show of an unknown case exits 2" 2 $?
check "and names the nearest" grep -q "no case 'chg-9', did you mean" "$WORK/show.err"

# Unchanged, a run says nothing of changes.
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" >/dev/null 2>"$WORK/again.err"
check "an unchanged file: no warning of changes" bash -c "! grep -q 'changed since' '$WORK/again.err'"
