#!/bin/bash
# Golden-file test: the scripts rendered for every shipped system match
# tests/golden/<system>/<case>.sh. Paths that depend on where the test runs
# (work directory, binary, source tree, job-name id) are replaced by
# placeholders. UPDATE_GOLDEN=1 rewrites the golden files.
#
# Usage: bash tests/cli/golden.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
golden=$src/tests/golden
# One GPU and one CPU case of each kind, and the staging step where it exists.
cases="scaling-gpu-n2 scaling-cpu-dummy-n1 scaling-gpu-dummy-n4 prepare-data"
for sys in local testcluster daint cori summit perlmutter frontier; do
  out=$tmp/$sys
  if ! CAMPAIGN_ACCOUNT=proj123 "$exe" plan "$src/campaigns/weak_scaling.yaml" --system "$sys" --out "$out" -q >/dev/null; then
    echo "FAIL $sys: plan failed"
    fail=$((fail + 1))
    continue
  fi
  for c in $cases; do
    [ -f "$out/$c/job.sh" ] || continue
    got=$tmp/got.sh
    sed -e "s|$out|@WORKDIR@|g" -e "s|$exe|@CAMPAIGN@|g" -e "s|$src|@SRC@|g" \
        -e 's/cmp[0-9a-f]\{6\}-/cmp@ID@-/g' "$out/$c/job.sh" >"$got"
    want=$golden/$sys/$c.sh
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
      mkdir -p "$golden/$sys"
      cp "$got" "$want"
    fi
    if diff -u "$want" "$got" >"$tmp/diff"; then
      pass=$((pass + 1))
    else
      echo "FAIL $sys/$c.sh differs from the golden file:"
      head -40 "$tmp/diff"
      fail=$((fail + 1))
    fi
  done
done
# MLPerf HPC weak scaling: one job of K instances, each its own step in its own directory.
for sys in daint local; do
  out=$tmp/mlperf-$sys
  if ! CAMPAIGN_ACCOUNT=proj123 "$exe" plan "$src/campaigns/cosmoflow_mlperf_weak.yaml" --system "$sys" --out "$out" -q >/dev/null; then
    echo "FAIL mlperf $sys: plan failed"
    fail=$((fail + 1))
    continue
  fi
  c=$(cd "$out" && ls -d cosmoflow-weak-*)
  got=$tmp/got.sh
  sed -e "s|$out|@WORKDIR@|g" -e "s|$exe|@CAMPAIGN@|g" -e "s|$src|@SRC@|g" \
      -e 's/cmp[0-9a-f]\{6\}-/cmp@ID@-/g' "$out/$c/job.sh" >"$got"
  want=$golden/$sys/$c.sh
  [ "${UPDATE_GOLDEN:-0}" = 1 ] && cp "$got" "$want"
  if diff -u "$want" "$got" >"$tmp/diff"; then
    pass=$((pass + 1))
  else
    echo "FAIL $sys/$c.sh differs from the golden file:"
    head -40 "$tmp/diff"
    fail=$((fail + 1))
  fi
done
finish 16
