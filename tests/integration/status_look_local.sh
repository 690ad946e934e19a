#!/usr/bin/env bash
# `campaign status --refresh` only looks (issue 33 item 3): on the local executor it records what the
# jobs did, and starts, submits and retries nothing. Three exclusive cases (one at a time on this
# machine) that wait for a gate file: `run --no-wait` starts the first; `status --refresh` then, and
# again after the first one ended, records its completion and leaves the other two queued, never
# started; `run` afterwards runs them. Meanwhile `status` shows the running case's time as it runs.
#
# Usage: bash status_look_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 15 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
wd=$WORK/look
file=$WORK/look.yaml
cat >"$file" <<YAML
name: look
system: local
matrix:
  n: [1, 2, 3]
case_name: look-{{n}}
job:
  exclusive: true
  walltime: 5m
  launch: false
  command: "touch started; for i in \$(seq 600); do [ -e $WORK/gate ] && exit 0; sleep 0.1; done; exit 1"
YAML
started() { find "$wd" -name started | wc -l; }
# cases_elapsed WORKDIR CASE: the elapsed seconds `status --json` shows for CASE.
cases_elapsed() {
  "$CAMPAIGN" status "$1" --json | python3 -c 'import json, sys
print(next(k.get("elapsed_s", "") for k in json.load(sys.stdin)[0]["cases"] if k["case"] == sys.argv[1]))' "$2"
}
state_of() { cases "$wd" | awk -F'\t' -v c="$1" '$1 == c { print $2 }'; }

env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" --no-wait -q
check_eq "run --no-wait exits 0" 0 $?
for _ in $(seq 100); do [[ $(started) -ge 1 ]] && break; sleep 0.1; done
check_eq "one case started (exclusive: one at a time)" 1 "$(started)"

env PATH="$nopath" "$CAMPAIGN" status "$file" --workdir "$wd" --refresh >"$WORK/status1.txt" 2>&1
check_eq "status --refresh exits 0" 0 $?
check_eq "status --refresh started nothing" 1 "$(started)"
check_eq "two cases still queued" 2 "$(cases "$wd" | awk -F'\t' '$2 == "queued"' | wc -l)"

# While it runs, `status` counts its time on from its start (issue 33 item 2: it had shown the time a
# poll stored, 00:00:01, while the job had run for ten seconds), twice a few seconds apart: within 2 s
# of the time since the job's own first act.
for round in 1 2; do
  sleep 2
  shown=$(cases_elapsed "$wd" look-1)
  since=$(($(date +%s) - $(stat -c %Y "$wd/look-1/started")))
  check "status shows look-1's elapsed time ($shown s) within 2 s of its run ($since s), look $round" \
    test "${shown:--99}" -ge $((since - 2)) -a "${shown:-99}" -le $((since + 2))
done

# The first one ends: a scheduler that starts its pending jobs when asked would start the next now.
touch "$WORK/gate"
for _ in $(seq 100); do [[ -e $wd/look-1/.exit ]] && break; sleep 0.1; done
check "the first case left its exit marker" test -e "$wd/look-1/.exit"
rm "$WORK/gate"
env PATH="$nopath" "$CAMPAIGN" status "$file" --workdir "$wd" --refresh >"$WORK/status2.txt" 2>&1
check_eq "status --refresh exits 0 again" 0 $?
check "it recorded the first case's completion" bash -c "[[ \$(awk -F'\t' '\$1 == \"look-1\" { print \$2 }' <<<'$(cases "$wd")') == c* ]]"
check_eq "and still started nothing else" 1 "$(started)"
check_eq "two cases still queued" 2 "$(cases "$wd" | awk -F'\t' '$2 == "queued"' | wc -l)"
# (Before, a job it started ran under a `campaign status --refresh` process left behind.)
check "no status process is left behind" bash -c "! ps -eo args | grep -q '[s]tatus $file'"

# `run` does what status would not.
touch "$WORK/gate"
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" -q
check_eq "run then finishes the campaign" 0 $?
check_eq "each case ran once" 3 "$(started)"
