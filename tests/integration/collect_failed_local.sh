#!/usr/bin/env bash
# Issue 15: a sweep whose outputs could not be collected did not succeed. In
# campaigns/localnocollect.yaml the collector requires history.csv, which cases 2 and 3 do not
# write: `campaign run` exits 1 and names each of them with its reason; case 1 is collected and
# not named.
#
# Usage: bash collect_failed_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 2 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
wd=$WORK/localnocollect
env PATH="$nopath" "$CAMPAIGN" run "$SRC/tests/integration/campaigns/localnocollect.yaml" --workdir "$wd" \
  >"$WORK/out.txt" 2>"$WORK/err.txt"
check_eq "campaign run exits 1" 1 $?
say "stdout: $(cat "$WORK/out.txt" | tail -1)"
cat "$WORK/err.txt"
check_eq "states" "collected collect_failed collect_failed" \
  "$(for c in 1 2 3; do field "$wd" "nocollect-$c" 2; done | paste -sd' ')"
check "the summary does not say done" grep -q '^finished: 1 collected, 2 collect_failed' "$WORK/out.txt"
check "it says 2 cases did not succeed" grep -q '^2 cases did not succeed:$' "$WORK/err.txt"
for c in 2 3; do
  check "nocollect-$c is listed with its reason" \
    grep -q "^  nocollect-$c: collect_failed (history.csv: no such file in .*/nocollect-$c)$" "$WORK/err.txt"
done
check "nocollect-1 is not listed" test "$(grep -c '^  nocollect-1:' "$WORK/err.txt")" -eq 0
