#!/usr/bin/env bash
# Issue 30: `campaign pack-exec` killed between writing a case's start marker (`launched: false`) and
# launching it, on the real cluster (campaigns/packdriver-marker.yaml; the driver's test hook
# CAMPAIGN_TEST_PACK_CRASH dies there once, as kill -9 would). The allocation's script starts the
# driver again; the new one finds the marker not launched, the case's lock free and no start stamp,
# and launches it: both cases complete at attempt 1 in that allocation, one step each. Before, the
# new driver held the case's node for its whole walltime (10 minutes, past this test's timeout).
#
# Usage: bash pack_driver_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 40 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

w=$WORK/marker
token=$WORK/crash-token
touch "$token"
say "run: the first driver dies at pdm-first's start marker"
CAMPAIGN_TEST_PACK_CRASH=$token timeout 180 "$CAMPAIGN" run "$SRC/tests/integration/campaigns/packdriver-marker.yaml" \
  --workdir "$w" -q >"$w.out" 2>&1
check_eq "campaign run exits 0" 0 $?
check "the hook fired (its token is gone)" test ! -e "$token"
alloc=$(field "$w" pdm-first 4)
for c in pdm-first pdm-second; do
  check_eq "$c completed at attempt 1 in allocation $alloc" "completed 1 $alloc" \
    "$(field "$w" $c 2) $(field "$w" $c 3) $(field "$w" $c 4)"
done
log=$(find "$w" -name "slurm-$alloc.out" | head -1)
check "the allocation's script started the driver again" grep -q 'starting it again' "$log"
check "the new driver launched pdm-first itself ('start again')" \
  grep -q 'start again pdm-first: its start marker was written, its script never ran' "$log"
check_eq "no driver held pdm-first's node" 0 "$(grep -c 'hold pdm-first' "$log")"
check_eq "each case launched once" "1 1" \
  "$(grep -c '^pack-exec .*start pdm-first (' "$log") $(grep -c '^pack-exec .*start pdm-second (' "$log")"
check_eq "pdm-first's start marker says launched" True "$(/usr/bin/python3 -c \
  'import json,sys; print(json.load(open(sys.argv[1]))["launched"])' "$w/pdm-first/.start")"
check_eq "sacct: the allocation ended COMPLETED" COMPLETED "$(wait_alloc "$alloc")"
check_eq "sacct: one step per case, both COMPLETED" "COMPLETED COMPLETED 2" \
  "$(step_state "$alloc" pdm-first) $(step_state "$alloc" pdm-second) $(records "$alloc" | grep -c '\.[0-9]*|')"
check_eq "each case's command ran once" "ran ran" "$(cat "$w/pdm-first/ran.txt") $(cat "$w/pdm-second/ran.txt")"
