#!/usr/bin/env bash
# Issue 12 (pack, inside the allocation) on the virtual Slurm cluster: the six cases of
# campaigns/pack6.yaml (1 and 2 nodes, srun sleep) rendered by pack_render as one allocation of 3
# nodes, submitted with sbatch. Then sacct shows one step per case, named after the case attempt,
# each on as many nodes as the case asked, all COMPLETED, steps running at the same time on
# disjoint nodes (the nodes of each case's .start), and each case's .exit is 0.
#
# Usage: bash pack_slurm.sh CAMPAIGN_BINARY SOURCE_DIR PACK_RENDER     (label slurm; about 30 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

wd=$WORK/pack6
script=$("$3" "$SRC/tests/integration/campaigns/pack6.yaml" testcluster "$wd" "$CAMPAIGN" 3 600)
check "pack_render writes the allocation" test -x "$script"
alloc=$(dirname "$script")
job=$(cd "$WORK" && sbatch --parsable "$script")
check "sbatch accepts the allocation script" test -n "$job"
say "allocation $job"

final() { sacct -X -n -P -j "$job" -o State 2>/dev/null | grep -Eq "$FINAL_STATE_RE"; }
check "the allocation ends within 2 minutes" wait_until 120 final
# Accounting of the steps lags a little behind the job's end.
steps() { sacct -n -P -j "$job" -o JobID,JobName,State,NNodes,NodeList,Start,End 2>/dev/null | grep -E "^$job\.[0-9]+\|"; }
ended_steps() { steps | cut -d'|' -f1-3 | ended_records; }
wait_accounting 6 ended_steps
steps >"$WORK/steps.txt"
sed 's/^/    /' "$WORK/steps.txt"
sed 's/^/    /' "$alloc"/slurm-*.out
check_eq "the allocation COMPLETED" COMPLETED "$(sacct -X -n -P -j "$job" -o State)"

check "one COMPLETED step per case, named after it, on its nodes; steps overlap on disjoint nodes" \
  python3 - "$alloc/manifest.json" "$WORK/steps.txt" <<'PY'
import json, subprocess, sys
from datetime import datetime
m = json.load(open(sys.argv[1]))
steps = {}
for line in open(sys.argv[2]):
    jid, name, state, nnodes, nodelist, start, end = line.rstrip("\n").split("|")
    assert name not in steps, f"two steps named {name}"
    nodes = subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True,
                           text=True).stdout.split()
    steps[name] = (state, int(nnodes), set(nodes), datetime.fromisoformat(start), datetime.fromisoformat(end))
assert len(steps) == len(m["cases"]) == 6, (len(steps), sorted(steps))
for c in m["cases"]:
    s = steps[c["job_name"]]
    assert s[0] == "COMPLETED" and s[1] == c["nodes"], (c["job_name"], s)
    start = json.load(open(c["run_dir"] + "/.start"))
    assert set(start["nodes"]) == s[2], (c["job_name"], start, s)
    assert open(c["run_dir"] + "/.exit").read().strip() == "0", c["job_name"]
iv = list(steps.values())
peak = 0
for a in iv:
    now = [b for b in iv if b[3] <= a[3] < b[4]]
    nodes = [n for b in now for n in b[2]]
    assert len(nodes) == len(set(nodes)), ("a node shared", now)
    peak = max(peak, len(now))
assert peak >= 2, "no two steps ran at the same time"
print(f"peak {peak} steps at once")
PY
