#!/usr/bin/env bash
# minicosmo's --rank-gpu where no GPU is visible: the unit tests of the device and backend choice
# (minicosmo_devices_test.py, GPUs mocked), then 2 ranks through the built-in launcher with and
# without --rank-gpu. With it, rank 0 alone says once on stderr that there is no GPU, every rank
# trains on the CPU over gloo (config.yaml), and the losses and MAEs are those of the CPU path,
# digit for digit. The runs hide any GPU (CUDA_VISIBLE_DEVICES empty); minicosmo_gpu.sh uses them.
# About a minute.
# Usage: tests/workloads/minicosmo_devices.sh CAMPAIGN_BINARY   (PYTHON overrides the interpreter)
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail

exe=${1:?usage: minicosmo_devices.sh CAMPAIGN_BINARY}
source "$(dirname "$0")/lib.sh"

echo "== unit tests (devices.py)"
(cd "$(dirname "$0")" && "$PYTHON" -B -m unittest minicosmo_devices_test) || fail "unit tests"

echo "== prepare.py"
timeout 60 "$PYTHON" "$MC/prepare.py" --data-dir "$WORK/data" --n-samples 64 --n-valid 16 \
  > "$WORK/prepare.out" 2>&1 || { cat "$WORK/prepare.out"; fail "prepare.py"; }

# run NAME ARGS...: 2 ranks, 2 epochs of real data through the ring buffer, no GPU visible.
run() {
  local name=$1
  shift
  CUDA_VISIBLE_DEVICES='' timeout 180 "$exe" launch -n 2 -- "$PYTHON" "$MC/train.py" --distributed "$MC/configs/cosmo.yaml" \
    --data-dir "$WORK/data" --n-train 64 --n-valid 16 --n-epochs 2 --loader ring_buffer --timeout 60 \
    --output-dir "$WORK/$name" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" ||
    { tail -n 20 "$WORK/$name.out" "$WORK/$name.err"; fail "run $name"; }
}
echo "== 2 ranks, CPU"
run cpu
echo "== 2 ranks, --rank-gpu"
run asked --rank-gpu

[[ $(grep -c -- '--rank-gpu' "$WORK/asked.err") == 1 ]] ||
  { cat "$WORK/asked.err"; fail "not exactly one line about --rank-gpu on stderr"; }
grep -qx 'minicosmo: --rank-gpu: no GPU visible (.*); training on the CPU' "$WORK/asked.err" ||
  fail "the line says: $(cat "$WORK/asked.err")"
grep -q -- '--rank-gpu' "$WORK/cpu.err" && fail "a note without --rank-gpu"
grep -qx 'Devices: rank 0 cpu, rank 1 cpu; gradients over gloo' "$WORK/asked.out" ||
  fail "no 'Devices:' line for the two CPU ranks"

"$PYTHON" - "$WORK" <<'PY' || fail "--rank-gpu without a GPU differs from the CPU path"
import csv, sys, yaml
work = sys.argv[1]
def results(name):
    """history.csv without its time column, and the stall files' iterations."""
    rows = list(csv.DictReader(open("%s/%s/history.csv" % (work, name))))
    assert len(rows) == 2, rows
    iters = [len(open("%s/%s/stalls-rank%d.csv" % (work, name, r)).readlines()) for r in (0, 1)]
    return [{k: v for k, v in r.items() if k != "time"} for r in rows], iters
assert results("asked") == results("cpu"), (results("asked"), results("cpu"))
for name in ("asked", "cpu"):
    cfg = yaml.safe_load(open("%s/%s/config.yaml" % (work, name)))
    assert cfg["distributed"]["backend"] == "gloo", cfg["distributed"]
    assert [d["device"] for d in cfg["devices"]] == ["cpu", "cpu"], cfg["devices"]
    assert all(d["gpu"] is None for d in cfg["devices"]), cfg["devices"]
print("the same losses and MAEs:", results("cpu")[0][-1])
PY
echo "PASS minicosmo devices test ($(( $(date +%s) - START ))s)"
