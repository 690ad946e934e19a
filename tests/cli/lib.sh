# Shared by the CLI tests (tests/cli/*.sh), sourced after `set -u`:
#
#   source "$(dirname "$0")/lib.sh"      # with the campaign binary as $1
#
# Sets exe (the binary) and tmp (a fresh directory removed on exit), counts checks in pass and
# fail, and ends the test with `finish [MIN_PASSED]`.

# --help prints the test's header; no options.
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/usage.sh" "$@"
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# check DESCRIPTION COMMAND...: one check, passing when COMMAND succeeds.
check() {
  local what=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $what"; fail=$((fail + 1)); fi
}

# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
  if [ "$2" = "$3" ]; then pass=$((pass + 1)); else echo "FAIL: $1: expected '$2', got '$3'"; fail=$((fail + 1)); fi
}

# finish [MIN_PASSED]: prints the counts; the test's status: no failure, and at least MIN_PASSED passed.
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ] && [ "$pass" -ge "${1:-0}" ]
}
