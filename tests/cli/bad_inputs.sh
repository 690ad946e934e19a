#!/bin/bash
# Every malformed input in tests/data/bad/ must give a one-line error with
# file:line:col (and the expected text), exit status 2, never a crash and
# never a partial output directory - from `plan` and from `validate` alike.
# Each file ends with `# expect: TEXT` and optionally `# args: EXTRA ARGS`.
# Then `run` on campaigns with a bad analysis: refused before anything is
# submitted.
#
# Usage: bash tests/cli/bad_inputs.sh CAMPAIGN_BINARY BAD_INPUTS_DIR
set -u
source "$(dirname "$0")/lib.sh"
dir=$2
# expect_error NAME EXPECT CMD...: CMD fails as a bad input should: exit status 2, one line on
# stderr with file:line:col and EXPECT.
expect_error() {
  local name=$1 expect=$2
  shift 2
  "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$? err lines problem=""
  err=$(cat "$tmp/stderr")
  lines=$(wc -l <"$tmp/stderr")
  [ "$rc" -eq 2 ] || problem="exit status $rc, want 2"
  [ -z "$problem" ] && [ "$lines" -eq 1 ] || problem="${problem:-stderr has $lines lines, want 1}"
  [ -z "$problem" ] && { [[ "$err" == *"$expect"* ]] || problem="stderr lacks '$expect'"; }
  [ -z "$problem" ] && { [[ "$err" =~ \.yaml:[0-9]+:[0-9]+:\  || "$err" =~ \.mustache:[0-9]+:[0-9]+:\  ]] || problem="no file:line:col"; }
  if [ -n "$problem" ]; then
    echo "FAIL $name: $problem"
    echo "     stderr: $err"
    fail=$((fail + 1))
    return 1
  fi
  pass=$((pass + 1))
}

for f in "$dir"/*.yaml; do
  name=$(basename "$f" .yaml)
  expect=$(sed -n 's/^# expect: //p' "$f")
  args=$(sed -n 's/^# args: //p' "$f")
  out="$tmp/out-$name"
  # shellcheck disable=SC2086
  expect_error "plan $name" "$expect" "$exe" plan "$f" $args --out "$out"
  check "plan $name leaves no output directory" test ! -e "$out"
  check "plan $name leaves no partial directory" bash -c "! ls '$tmp' | grep -q partial"
  # shellcheck disable=SC2086
  expect_error "validate $name" "$expect" "$exe" validate "$f" $args
done

# `run` refuses a bad campaign before it writes anything (README): no work directory at all, not even
# its log (issue 33: a walltime over the limit, a missing input had left one behind).
for name in analysis_unknown_metric analysis_unknown_x analysis_unknown_variable walltime_over_limit input_missing; do
  f="$dir/$name.yaml"
  work="$tmp/run-$name"
  args=$(sed -n 's/^# args: //p' "$f")
  # shellcheck disable=SC2086
  expect_error "run $name" "$(sed -n 's/^# expect: //p' "$f")" "$exe" run "$f" $args --workdir "$work" -q
  check "run $name writes nothing" test ! -e "$work"
done
finish 200
