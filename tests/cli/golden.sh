#!/bin/bash
# Golden-file test: the scripts rendered for every shipped system match
# tests/golden/<system>/<case>.sh, and every golden file is compared: a case
# that does not render where its golden file exists fails, so does a golden
# file no case compared, and a rendered case without one. Paths that depend on
# where the test runs (work directory, binary, source tree, job-name id) are
# replaced by placeholders. UPDATE_GOLDEN=1 rewrites the golden files.
#
# Usage: bash tests/cli/golden.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
golden=$src/tests/golden
compared=$tmp/compared
: >"$compared"

# compare SYSTEM RENDERED_DIR CASE: RENDERED_DIR/CASE/job.sh against tests/golden/SYSTEM/CASE.sh.
compare() {
  local sys=$1 out=$2 c=$3 want=$golden/$1/$3.sh got=$tmp/got.sh
  echo "$sys/$c.sh" >>"$compared"
  if [ ! -f "$out/$c/job.sh" ]; then
    echo "FAIL $sys/$c.sh: the case did not render"
    fail=$((fail + 1))
    return
  fi
  sed -e "s|$out|@WORKDIR@|g" -e "s|$exe|@CAMPAIGN@|g" -e "s|$src|@SRC@|g" \
    -e 's/cmp[0-9a-f]\{6\}-/cmp@ID@-/g' "$out/$c/job.sh" >"$got"
  if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    mkdir -p "$golden/$sys"
    cp "$got" "$want"
  fi
  if [ ! -f "$want" ]; then
    echo "FAIL $sys/$c.sh: rendered, but no golden file (UPDATE_GOLDEN=1 writes it)"
    fail=$((fail + 1))
  elif diff -u "$want" "$got" >"$tmp/diff"; then
    pass=$((pass + 1))
  else
    echo "FAIL $sys/$c.sh differs from the golden file:"
    head -40 "$tmp/diff"
    fail=$((fail + 1))
  fi
}

# plan_into DIR CAMPAIGN SYSTEM: renders the campaign's scripts into DIR; false when plan fails.
plan_into() {
  CAMPAIGN_ACCOUNT=proj123 "$exe" plan "$2" --system "$3" --out "$1" -q >/dev/null && return 0
  echo "FAIL $3: plan $(basename "$2") failed"
  fail=$((fail + 1))
  return 1
}

# One GPU and one CPU case of each kind; the staging step where the system enables it (local and
# the test cluster).
for sys in local testcluster daint cori summit perlmutter frontier; do
  plan_into "$tmp/$sys" "$src/campaigns/weak_scaling.yaml" "$sys" || continue
  cases="scaling-gpu-n2 scaling-cpu-dummy-n1 scaling-gpu-dummy-n4"
  case $sys in local | testcluster) cases="$cases prepare-data" ;; esac
  for c in $cases; do compare "$sys" "$tmp/$sys" "$c"; done
done
# MLPerf HPC weak scaling: one job of K instances, each its own step in its own directory.
for sys in daint local; do
  plan_into "$tmp/mlperf-$sys" "$src/campaigns/cosmoflow_mlperf_weak.yaml" "$sys" || continue
  for c in $(cd "$tmp/mlperf-$sys" && ls -d cosmoflow-weak-*); do compare "$sys" "$tmp/mlperf-$sys" "$c"; done
done
# LSF's -W where the profile reads walltimes as LSF does (summit: walltime_format: lsf): "1:30" is
# one hour thirty, "0-20" twenty hours.
if plan_into "$tmp/lsfw-summit" "$src/tests/integration/campaigns/lsf_walltime.yaml" summit; then
  for c in lsfw-hm lsfw-day; do compare summit "$tmp/lsfw-summit" "$c"; done
fi
# Every golden file was compared.
orphans=$(cd "$golden" && find . -name '*.sh' | sed 's|^\./||' | sort | comm -23 - <(sort -u "$compared"))
check_eq "every golden file is compared" "" "$orphans"
finish "$(cd "$golden" && find . -name '*.sh' | wc -l)"
