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

# write_tree DIR FACTOR: run directories of campaigns/weak_scaling.yaml's train cases (for import), a
# history.csv of every train case: epoch time = base(partition, ranks) * factor; epoch 0 is warm-up.
write_tree() { # dir factor
  local p d r t base
  for p in gpu cpu; do
    for d in "" -dummy; do
      for r in 1 2 4; do
        mkdir -p "$1/scaling-$p$d-n$r"
        base=$(awk -v p=$p -v r=$r -v d="$d" 'BEGIN { t = (p == "gpu" ? 1.0 : 0.5) * (1 + 0.1 * log(r) / log(2)); if (d != "") t *= 0.9; print t }')
        t=$(awk -v b="$base" -v f="$2" 'BEGIN { print b * f }')
        {
          echo "epoch,loss,lr,mae,time,val_loss,val_mae"
          echo "0,0.5,0.01,0.3,$(awk -v t="$t" 'BEGIN { print 3 * t }'),0.5,0.3"
          for e in 1 2 3; do echo "$e,0.4,0.01,0.2,$t,0.4,0.2"; done
        } >"$1/scaling-$p$d-n$r/history.csv"
      done
    done
  done
}
