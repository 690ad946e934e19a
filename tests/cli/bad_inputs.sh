#!/bin/bash
# Every malformed input in tests/data/bad/ must give a one-line error with
# file:line:col (and the expected text), exit status 2, never a crash and
# never a partial output directory. Each file ends with `# expect: TEXT` and
# optionally `# args: EXTRA ARGS`.
#
# Usage: bash tests/cli/bad_inputs.sh CAMPAIGN_BINARY BAD_INPUTS_DIR
set -u
source "$(dirname "$0")/lib.sh"
dir=$2
for f in "$dir"/*.yaml; do
  expect=$(sed -n 's/^# expect: //p' "$f")
  args=$(sed -n 's/^# args: //p' "$f")
  out="$tmp/out-$(basename "$f" .yaml)"
  # shellcheck disable=SC2086
  "$exe" plan "$f" $args --out "$out" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  err=$(cat "$tmp/stderr")
  lines=$(wc -l <"$tmp/stderr")
  problem=""
  [ "$rc" -eq 2 ] || problem="exit status $rc, want 2"
  [ -z "$problem" ] && [ "$lines" -eq 1 ] || problem="${problem:-stderr has $lines lines, want 1}"
  [ -z "$problem" ] && { [[ "$err" == *"$expect"* ]] || problem="stderr lacks '$expect'"; }
  [ -z "$problem" ] && { [[ "$err" =~ \.yaml:[0-9]+:[0-9]+:\  || "$err" =~ \.mustache:[0-9]+:[0-9]+:\  ]] || problem="no file:line:col"; }
  [ -z "$problem" ] && { [ ! -e "$out" ] || problem="left an output directory"; }
  [ -z "$problem" ] && { ls "$tmp" | grep -q partial && problem="left a partial directory"; }
  if [ -n "$problem" ]; then
    echo "FAIL $(basename "$f"): $problem"
    echo "     stderr: $err"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
finish 30
