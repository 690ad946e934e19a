#!/usr/bin/env bash
# The job option `sample:` on the local system: each job script starts `campaign sample` beside its
# command and stops it after, before the exit marker. Each run directory then holds
# utilisation-<host>.csv (issue 13 format 3) with rows for the node (cpu) and the job's process tree
# (proc), times increasing per device; the busy case's tree shows CPU use; the failing case's
# status is its command's, not the sampler's; no sampler outlives its job. How many rows a job of
# 1-2 s gets at 0.1 s, and how much of a core its loop gets, depend on the machine's load: the test
# asserts what the sampler guarantees (a row per device at least, the one of its stop), and the
# utilisation's computation is unit-tested on fixed /proc readings (tests/unit/sample).
#
# Usage: bash sample_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 10 s)
source "$(dirname "$0")/lib.sh"

wd=$WORK/sample
say "campaign run localsample"
"$CAMPAIGN" run "$SRC/tests/integration/campaigns/localsample.yaml" --workdir "$wd" -q
check_eq "campaign run exits 1 (one case fails)" 1 $?
check_eq "the busy case completed" completed "$(field "$wd" sample-1 2)"
check_eq "the failing case failed" failed "$(field "$wd" sample-2 2)"
check_eq "its exit marker holds the command's status" 3 "$(cat "$wd/sample-2/.exit")"
for c in sample-1 sample-2; do
  f=$(ls "$wd/$c"/utilisation-*.csv 2>/dev/null | head -1)
  check "$c has a utilisation file" test -s "$f"
  [ -s "$f" ] || continue
  check_eq "$c: header" "time,device,utilization" "$(head -1 "$f")"
  check "$c: cpu rows" test "$(grep -c ',cpu,' "$f")" -ge 1
  check "$c: proc rows" test "$(grep -c ',proc,' "$f")" -ge 1
  check_eq "$c: times increase per device" "" \
    "$(awk -F, 'NR > 1 { if (($2 in last) && $1 <= last[$2]) print NR": "$0; last[$2] = $1 }' "$f")"
done
# The busy loop's share of a core depends on the machine's load (two cores shared here), but it
# runs for a second or more: some of it.
peak() { awk -F, '$2 == "proc" && $3 > m { m = $3 } END { print m + 0 }' "$wd/$1"/utilisation-*.csv; }
busy=$(peak sample-1)
say "proc peaks: busy $busy %, sleeping $(peak sample-2) %"
check "the busy case's tree shows CPU use ($busy % at its peak)" awk -v b="$busy" 'BEGIN { exit !(b > 0) }'
samplers_left() { for p in $(pgrep -f "campaign sample"); do readlink "/proc/$p/cwd"; done | grep -F "$wd"; }
check_eq "no sampler outlives its job" "" "$(samplers_left)"
