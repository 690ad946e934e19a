#!/usr/bin/env bash
# Issue 21: `plan` and `run` make one decision. For each shipped campaign (and the packed and array
# test campaigns) on the test cluster, `campaign plan --json` lists the jobs; `campaign run --no-wait`
# then submits what is ready (everything, with the cluster's empty queue), and the jobs Slurm holds
# (squeue: name, nodes, time limit; an array's tasks by name) and the cases of each (the catalog) must
# be the ones plan printed, kind by kind. `sbatch` is wrapped to add --hold: every job submitted stays
# pending in the queue until the test cancels it, however fast it would have run (a short job could
# otherwise end, and leave squeue, before the test reads the queue).
#
# Usage: bash plan_run_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 90 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

mkdir -p "$WORK/hold"
printf '#!/bin/bash\nexec %q --hold "$@"\n' "$(command -v sbatch)" >"$WORK/hold/sbatch"
chmod +x "$WORK/hold/sbatch"

compare() {  # NAME FILE [ARGS...]
  local name=$1 file=$2 wd=$WORK/$1
  shift 2
  "$CAMPAIGN" plan "$file" --system testcluster --workdir "$wd" --json "$@" >"$WORK/$name.plan.json" 2>"$WORK/$name.err" ||
    { bad "$name: plan --json failed: $(cat "$WORK/$name.err")"; return; }
  PATH="$WORK/hold:$PATH" "$CAMPAIGN" run "$file" --system testcluster --workdir "$wd" --no-wait -q "$@" \
    2>>"$WORK/$name.err"
  squeue -h -r -o '%j|%D|%l|%Z' 2>/dev/null | awk -F'|' -v w="$wd/" 'index($4 "/", w) == 1' >"$WORK/$name.squeue"
  "$CAMPAIGN" status "$wd" --json >"$WORK/$name.status.json" 2>/dev/null
  local diff
  diff=$(/usr/bin/python3 - "$WORK/$name.plan.json" "$WORK/$name.squeue" "$WORK/$name.status.json" <<'PY'
import json, re, sys
strip = lambda n: re.sub(r"^cmp[0-9a-f]{6}-", "", n)
def seconds(t):  # squeue's time limit: [D-]HH:MM:SS or MM:SS
    d, _, rest = t.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return (int(d) if d else 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
plan = {strip(j["job"]): (j["kind"], j["nodes"], j["walltime_s"], sorted(j["cases"])) for j in json.load(open(sys.argv[1]))["jobs"]}
slurm = {}
for line in open(sys.argv[2]):
    name, nodes, limit, _ = line.rstrip("\n").split("|")
    slurm.setdefault(strip(name), []).append((int(nodes), seconds(limit)))
cases = {}
for c in json.load(open(sys.argv[3])):
    for k in c["cases"]:
        if k["job_name"]:
            cases.setdefault(strip(k["job_name"]), []).append(k["case"])
run = {}
for name, tasks in slurm.items():
    kind = "array" if len(tasks) > 1 or name.startswith("arr") else ("allocation" if name.startswith("pack") else "job")
    run[name] = (kind, tasks[0][0], tasks[0][1], sorted(cases.get(name, [])))
out = []
for name in sorted(set(plan) | set(run)):
    if plan.get(name) != run.get(name):
        out.append(f"{name}: plan {plan.get(name)} run {run.get(name)}")
print(f"{len(plan)} jobs planned, {len(run)} in the queue")
print("\n".join(out[:10]))
PY
)
  say "$name: $(head -1 <<<"$diff")"
  check_eq "$name: the jobs run submitted are the jobs plan printed" "" "$(tail -n +2 <<<"$diff")"
  check "$name: plan listed jobs" test "$(head -1 <<<"$diff" | cut -d' ' -f1)" -gt 0
  jobs=$(our_jobs | tr "\n" " ")
  [[ -n ${jobs// /} ]] && scancel $jobs 2>/dev/null
}

for c in weak_scaling strong_scaling cosmoflow_mlperf_weak data_loading; do
  compare "$c" "$SRC/campaigns/$c.yaml"
done
NIGHT=plan-run compare nightly "$SRC/campaigns/nightly.yaml"
compare pack60 "$SRC/tests/integration/campaigns/pack60.yaml"
compare array200 "$SRC/tests/integration/campaigns/array200.yaml"
compare packsub "$SRC/tests/integration/campaigns/packsub.yaml"
