#!/usr/bin/env bash
# Issue 34 without a cluster: one campaign on two systems of this machine (`local` and a copy of it
# named `local2`, each with its own executor and folder). validate, plan (--json too) and run take
# both; --system takes one, leaving the other as it is; status shows both parts of the one catalog;
# the report of the work directory holds both systems' cases; cancel acts on both; bad input (a
# system listed twice, --system that is not one of them, '@' in a name, a reference to an unknown
# system) exits 2 before anything is written.
#
# Usage: bash multi_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 10 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
run() { env PATH="$nopath" "$CAMPAIGN" "$@"; }
sed 's/^name: local$/name: local2/' "$SRC/systems/local.yaml" >"$WORK/local2.yaml"
file=$WORK/two.yaml
mkdir -p "$WORK/collectors"
printf 'name: t\nsources:\n  - {engine: csv, file: t.csv, metrics: [t]}\n' >"$WORK/collectors/t.yaml"
cat >"$file" <<YAML
name: two
system: [local, $WORK/local2.yaml]
matrix:
  n: [1, 2]
case_name: c-{{n}}
job:
  walltime: 5m
  launch: false
  command: "echo {{n}} >> ../ran.txt; printf 'step,t\n1,%s\n' {{n}} > t.csv"
collectors: [t]
analyses:
  - {name: s, scaling: strong, x: n, time: {metric: t, warmup: 0}, compare: {axis: system, baseline: local}}
systems:
  local2: {params: {extra: 1}}
YAML
wd=$WORK/w

run validate "$file" >"$WORK/validate.txt" 2>&1
check_eq "validate: both systems" "0 2" "$? $(grep -c '^ok: campaign two on local2\?' "$WORK/validate.txt")"
run validate "$file" --json >"$WORK/validate.json"
check_eq "validate --json: one entry per system" "local local2" \
  "$(/usr/bin/python3 -c 'import json,sys; print(*[s["system"] for s in json.load(open(sys.argv[1]))["systems"]])' "$WORK/validate.json")"
run plan "$file" --json >"$WORK/plan.json"
check_eq "plan --json: each system's jobs and node-hours, and the sum" "2 2 True" \
  "$(/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
print(len(p["systems"][0]["jobs"]), len(p["systems"][1]["jobs"]),
      abs(p["node_hours"] - sum(s["node_hours"] for s in p["systems"])) < 1e-9)' "$WORK/plan.json")"

run run "$file" --workdir "$wd" --system local2 -q
check_eq "run --system local2 runs that part alone" "0 2" "$? $(wc -l <"$wd/local2/ran.txt")"
check "... and leaves local's as it is" test ! -e "$wd/local/ran.txt"
run run "$file" --workdir "$wd" -q
check_eq "run runs the other, and nothing twice" "0 2 2" \
  "$? $(wc -l <"$wd/local/ran.txt") $(wc -l <"$wd/local2/ran.txt")"
check_eq "one catalog, a part per system" "two@local two@local2" \
  "$(run status "$wd" --json | /usr/bin/python3 -c 'import json,sys; print(*sorted(c["campaign"] for c in json.load(sys.stdin)))')"
run status "$file" --workdir "$wd" >"$WORK/status.txt"
check "status of the file shows both" grep -q "^campaign two@local2 on local2" "$WORK/status.txt"
run report "$wd" >/dev/null
check_eq "report of the work directory: both systems, side by side" "1 1" \
  "$(grep -c '| System | local2, local |' "$wd/report/report.md") $(grep -c '| n | times | speedup | eff | times_local2' "$wd/report/report.md")"
run run "$file" --workdir "$wd" --only n=9 >"$WORK/only.txt" 2>&1
check_eq "--only choosing nothing on any system: exit 2" 2 $?

run cancel "$file" --workdir "$wd" >"$WORK/cancel.txt"
check_eq "cancel acts on each system" 2 "$(grep -c ': cancelled 0 cases' "$WORK/cancel.txt")"

bad() {  # bad NAME EXPECTED-TEXT YAML: validate exits 2 saying EXPECTED-TEXT
  printf '%s\n' "$3" >"$WORK/$1.yaml"
  run validate "$WORK/$1.yaml" >"$WORK/$1.out" 2>&1
  check_eq "$1: exit 2" 2 $?
  check "$1: it says so" grep -qF "$2" "$WORK/$1.out"
}
bad twice "system 'local' is listed twice" "$(printf 'name: t\nsystem: [local, local]\njob: {command: x}')"
bad at "without '/', '@' or spaces" "$(printf 'name: t@x\njob: {command: x}')"
bad refsys "reference.nowhere: unknown system 'nowhere'" \
  "$(printf 'name: t\nsystem: local\njob: {command: x}\nreference: {nowhere: {times: [1]}}')"
run run "$file" --workdir "$wd" --system daint >"$WORK/notone.txt" 2>&1
check_eq "--system that is not one of the campaign's: exit 2" 2 $?
check "it lists them" grep -q "'daint' is not one of the campaign's systems (local, local2)" "$WORK/notone.txt"
