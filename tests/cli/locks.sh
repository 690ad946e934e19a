#!/usr/bin/env bash
# README's test command runs eight tests at a time; what keeps it honest is the locks (ctest's
# RESOURCE_LOCK): every test that uses a Slurm test cluster (label slurm) holds the lock of the one its
# environment names (TESTCLUSTER=testcluster2, 3 or 4: that one, else `testcluster`), and
# every test that runs the PyTorch workload (label workload, or python3:torch among what it needs)
# holds `cores`; the loader study and the data-loading campaign (whose timings, the studies' numbers,
# no verdict depends on: bench/effects_bench.sh runs them alone for those) hold `cores` like every
# workload test. The local executor's other tests run short scripts and run beside anything.
# Reads ctest's own list of the registered tests (ctest --show-only=json-v1).
#
# Usage: bash locks.sh CAMPAIGN_BINARY BUILD_DIR
set -u
source "$(dirname "$0")/lib.sh"
build=$2
ctest --test-dir "$build" --show-only=json-v1 >"$tmp/tests.json" 2>"$tmp/err"
check "ctest lists the tests: $(head -2 "$tmp/err")" test -s "$tmp/tests.json"
out=$(/usr/bin/python3 - "$tmp/tests.json" <<'PY'
import json, sys
need = {"slurm": "testcluster", "workload": "cores"}  # label: the lock its tests hold (slurm: their cluster's)
clusters = {"testcluster": 0, "testcluster2": 0, "testcluster3": 0, "testcluster4": 0}
tests = json.load(open(sys.argv[1]))["tests"]
counts = dict.fromkeys(["slurm", "local", "workload"], 0)
studies = {"workload_minicosmo_loaders", "data_loading_local"}  # their timings are the studies'
for t in tests:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if t["name"] in studies:
        studies.discard(t["name"])
        if "cores" not in props.get("RESOURCE_LOCK", []):
            print(f"{t['name']}: without RESOURCE_LOCK cores")
    labels, locks = props.get("LABELS", []), props.get("RESOURCE_LOCK", [])
    env = [e.split("=", 1)[1] for e in props.get("ENVIRONMENT", []) if e.startswith("TESTCLUSTER=")]
    cluster = env[0] if env else "testcluster"
    if "slurm" in labels:
        clusters[cluster] += 1
    if "python3:torch" in t.get("command", []) and "cores" not in locks:
        print(f"{t['name']}: runs the PyTorch workload without RESOURCE_LOCK cores")
    for label in counts:
        counts[label] += label in labels
    for label, lock in need.items():
        if label == "slurm":
            lock = cluster
        if label in labels and lock not in locks:
            print(f"{t['name']}: label {label} without RESOURCE_LOCK {lock}")
for name in sorted(studies):
    print(f"{name}: not registered")
print(" ".join(f"{k}={v}" for k, v in list(counts.items()) + list(clusters.items())))
PY
)
echo "$out" | tail -1
check_eq "every slurm test holds its cluster, every test of the PyTorch workload holds cores" "" "$(echo "$out" | head -n -1)"
check "the suite has slurm, local and workload tests, and slurm tests on each of the four clusters" \
  grep -qE "slurm=[1-9][0-9]* local=[1-9][0-9]* workload=[1-9][0-9]* testcluster=[1-9][0-9]* testcluster2=[1-9][0-9]* testcluster3=[1-9][0-9]* testcluster4=[1-9]" \
  <<<"$(echo "$out" | tail -1)"
finish 3
