#!/usr/bin/env bash
# The code version a run recorded survives the commands that only look at or cancel its jobs (issue:
# `status --refresh` and `cancel` went through the engine's start path and erased it). The campaign
# file lives in a scratch git repository (so the commit is known and this test's own); the "a" cases
# print a metric and end, the "b" cases sleep. After `run --no-wait` (again until the "a" cases are
# collected), `status --refresh` and `cancel`, the catalog and `campaign history` still name the commit.
#
#   bash code_version_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 10 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
repo=$WORK/repo
mkdir -p "$repo"
cat >"$repo/codever.yaml" <<YAML
name: codever
system: local
matrix:
  group: [a, b]
  repeat: 2
case_name: cv-{{group}}-r{{repeat}}
job:
  nodes: 1
  ranks_per_node: 1
  walltime: 5m
  launch: false
  command: "if [ {{group}} = a ]; then echo 'Mean epoch time: 1.5'; else sleep 60; fi"
collectors: [timers]
YAML
g() { git -C "$repo" -c user.name=t -c user.email=t@example.org "$@"; }
g init -q && g add codever.yaml &&
  GIT_AUTHOR_DATE=2026-01-02T03:04:05Z GIT_COMMITTER_DATE=2026-01-02T03:04:05Z g commit -q -m one
commit=$(g rev-parse HEAD)
file=$repo/codever.yaml
wd=$WORK/runs/codever
recorded() { "$CAMPAIGN" status "$wd" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["code"]["commit"])'; }

env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" --no-wait -q
check_eq "campaign run --no-wait exits 0" 0 $?
check_eq "run recorded the commit" "$commit" "$(recorded)"

# `run --no-wait` again is what starts cases still waiting for a core (status --refresh only looks).
a_collected() {
  env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" --no-wait -q >/dev/null 2>&1
  "$CAMPAIGN" collect "$file" --workdir "$wd" >/dev/null 2>&1
  [[ $(count_state "$wd" collected) == 2 ]]
}
check "the two a cases end and are collected" wait_until 30 a_collected
env PATH="$nopath" "$CAMPAIGN" status "$file" --workdir "$wd" --refresh >/dev/null 2>&1
check_eq "status --refresh exits 0" 0 $?
check_eq "status --refresh keeps the commit" "$commit" "$(recorded)"

env PATH="$nopath" "$CAMPAIGN" cancel "$file" --workdir "$wd" >"$WORK/cancel.out" 2>&1
check_eq "campaign cancel exits 0" 0 $?
check_eq "the two b cases are cancelled" 2 "$(count_state "$wd" cancelled)"
check_eq "cancel keeps the commit" "$commit" "$(recorded)"

"$CAMPAIGN" history 'mean_epoch_time@group=a' "$WORK/runs" -o "$WORK/history" >"$WORK/history.out" 2>&1
check "history names the run's commit (${commit:0:10})" grep -q "${commit:0:10}" "$WORK/history.out"
if ((FAILED > 0)); then cat "$WORK/history.out" "$WORK/cancel.out"; fi
