#!/bin/bash
# Every program of the repository answers --help (exit status 0, a "Usage:" line) and refuses an
# option it does not know (non-zero exit status, nothing done): `campaign` and each of its
# subcommands, the benchmarks, and the scripts users run by hand (scripts are run only once they are
# seen to source tools/usage.sh, which answers before anything else happens).
#
# Usage: bash tests/cli/help.sh CAMPAIGN_BINARY SOURCE_DIR BENCH_BINARY...
set -u
source "$(dirname "$0")/lib.sh"
src=$2
shift 2
benches=("$@")

# answers NAME COMMAND...: COMMAND --help and COMMAND --no-such-option. CLI11 reports a missing
# required argument before an unexpected one: either refusal names its reason.
answers() {
  local name=$1
  shift
  "$@" --help >"$tmp/out" 2>"$tmp/err"
  check_eq "$name --help exits 0" 0 $?
  check "$name --help prints a usage line" grep -qi '^ *usage' "$tmp/out"
  "$@" --no-such-option >"$tmp/out" 2>"$tmp/err" </dev/null
  local rc=$?
  check "$name refuses an unknown option (exit $rc)" test "$rc" -ne 0
  check "$name says why" grep -Eq -- '--no-such-option|required' "$tmp/err"
}

answers campaign "$exe"
subcommands=$("$exe" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
check "campaign lists its subcommands" test "$(wc -w <<<"$subcommands")" -ge 10
for sub in $subcommands executor pack-exec; do answers "campaign $sub" "$exe" "$sub"; done

for b in "${benches[@]}"; do answers "$(basename "$b")" "$b"; done

# A mistyped command or option is named with the nearest one, exit status 2 (issue 33).
# says NAME WANT COMMAND...: COMMAND exits 2 and its stderr holds WANT.
says() {
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  check_eq "$name exits 2" 2 $?
  check "$name says: $want" grep -qF -- "$want" "$tmp/err"
}
says "campaign statsu" "unknown command 'statsu', did you mean 'status'?" "$exe" statsu
says "campaign frobnicate" "unknown command 'frobnicate' (commands: plan, validate" "$exe" frobnicate
says "campaign run --sytem" "unknown option '--sytem' of \`campaign run\`, did you mean '--system'?" \
  "$exe" run --sytem local campaigns/weak_scaling.yaml
says "campaign status --refrsh=1" "unknown option '--refrsh'" "$exe" status --refrsh=1 x.yaml
says "campaign report --format pdf" "unknown report format 'pdf'" "$exe" report --format pdf "$tmp"
says "campaign plan --system nope.yaml" "no such system file: nope.yaml" \
  "$exe" plan --system nope.yaml "$src/campaigns/weak_scaling.yaml"

for script in bench/slurm_bench.sh bench/site_bench.sh bench/scale_bench.sh bench/modes_bench.sh bench/effects_bench.sh tests/cli/site.sh tests/slurm/start-cluster.sh tests/slurm/stop-cluster.sh \
  tests/slurm/record-outputs.sh tests/slurm/record-steps.sh tests/slurm/record-arrays.sh tests/ssh/start-sshd.sh tests/ssh/stop-sshd.sh \
  tools/setup.sh .ci/run \
  tests/workloads/minicosmo_smoke.sh tests/integration/local_campaign.sh tests/cli/plan.sh; do
  if grep -q 'usage.sh' "$src/$script" "$src/$(dirname "$script")/lib.sh" 2>/dev/null; then
    answers "$script" bash "$src/$script"
  else
    check "$script sources tools/usage.sh" false
  fi
done

finish 100
