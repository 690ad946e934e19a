#!/usr/bin/env bash
# Issue 30: the catalog's writes failing, and a damaged catalog, on the local executor.
#
# 1. `campaign run` again and again on one work directory, each run's catalog writes failing after
#    N of them (CAMPAIGN_TEST_CATALOG_FAULT=full|ioerr|readonly:N, catalog/write_fault.hpp), N
#    growing: every run that meets the fault, wherever in a tick, stops with exit status 4 and one
#    line naming the catalog; the run that meets none finishes, and then every case completed in
#    its first attempt and ran exactly once (campaigns/catfaults.yaml appends to ran.txt).
# 2. The catalog damaged three ways (not SQLite, cut in half, a page overwritten): `run`, `resume`,
#    `status` and `cancel` each exit 2 with one line naming the file and what to do, the file stays
#    byte-identical and nothing is submitted; the good copy put back, `run` resubmits nothing.
#
# Usage: bash catalog_faults_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 30 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
file=$SRC/tests/integration/campaigns/catfaults.yaml
wd=$WORK/catfaults
run() { env PATH="$nopath" timeout 60 "$CAMPAIGN" "$@"; }

kinds=(full ioerr readonly)
faulted=0 finished=0 wrong=0 i=0
for n in $(seq 0 3 600); do
  kind=${kinds[i++ % 3]}
  CAMPAIGN_TEST_CATALOG_FAULT=$kind:$n run run "$file" --workdir "$wd" -q 2>"$WORK/err"
  rc=$?
  if ((rc == 0)); then
    finished=1
    say "$kind:$n: the run met no fault and finished"
    break
  fi
  faulted=$((faulted + 1))
  if ((rc != 4)) || [[ $(wc -l <"$WORK/err") != 1 ]] ||
    ! grep -q "^campaign: cannot write the catalog $wd/campaign.db (.*SQLite code.*continues where it stopped" "$WORK/err"; then
    wrong=$((wrong + 1))
    say "$kind:$n: exit status $rc: $(cat "$WORK/err")"
  fi
done
say "last fault: $(cat "$WORK/err")"
check "runs met the fault at many points ($faulted runs)" test "$faulted" -ge 10
check_eq "each stopped with exit status 4 and one line naming the catalog" 0 "$wrong"
check_eq "a run without a fault finished" 1 "$finished"
# The last run's closing checkpoint met the fault too (its commits are in campaign.db-wal): a run
# without any folds them into campaign.db, as the damage below needs.
run run "$file" --workdir "$wd" -q
check_eq "campaign run without a fault exits 0" 0 $?
check "campaign.db holds everything (no WAL left)" test ! -s "$wd/campaign.db-wal"
cases "$wd" >"$WORK/cases.tsv"
check_eq "every case completed in its first attempt" 6 \
  "$(awk -F'\t' '$2 == "completed" && $3 == 1' "$WORK/cases.tsv" | wc -l)"
once=0
for d in "$wd"/cf-r*/; do [[ $(cat "$d/ran.txt" 2>/dev/null) == ran ]] && once=$((once + 1)); done
check_eq "every case ran exactly once" 6 "$once"
check_eq "the executor ran 6 jobs" 6 "$(find "$wd/.local/jobs" -name '*.json' | wc -l)"

# 2. A damaged catalog.
db=$wd/campaign.db
cp "$db" "$WORK/good.db"
size=$(stat -c %s "$db")
for damage in text half page; do
  case $damage in
    text) printf 'name: not a catalog\n%.0s' $(seq 300) >"$db" ;;
    half) head -c $((size / 2)) "$WORK/good.db" >"$db" ;;
    page) cp "$WORK/good.db" "$db" && dd if=/dev/urandom of="$db" bs=4096 seek=2 count=1 conv=notrunc 2>/dev/null ;;
  esac
  rm -f "$db-wal" "$db-shm"
  cp "$db" "$WORK/damaged.db"
  for cmd in "run $file --workdir $wd -q" "resume $file --workdir $wd -q" "status $wd" "cancel $file --workdir $wd"; do
    run $cmd >/dev/null 2>"$WORK/err"
    rc=$?
    what="$damage, campaign ${cmd%% *}"
    check_eq "$what: exit status 2" 2 "$rc"
    check "$what: one line naming the file and what to do" eval \
      "[[ \$(wc -l <'$WORK/err') == 1 ]] && grep -q '^campaign: $db is damaged (.*restore campaign.db from a copy.*aside' '$WORK/err'"
    check "$what: the file is unchanged" cmp -s "$WORK/damaged.db" "$db"
  done
done
say "$(cat "$WORK/err")"
check_eq "nothing was submitted meanwhile" 6 "$(find "$wd/.local/jobs" -name '*.json' | wc -l)"
cp "$WORK/good.db" "$db"
rm -f "$db-wal" "$db-shm"
run run "$file" --workdir "$wd" -q
check_eq "the good copy back, campaign run exits 0" 0 $?
check_eq "... and resubmits nothing" 6 "$(find "$wd/.local/jobs" -name '*.json' | wc -l)"
