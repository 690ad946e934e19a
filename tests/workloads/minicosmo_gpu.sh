#!/usr/bin/env bash
# minicosmo on GPUs, through the built-in launcher (`campaign launch -n 2`, 2 ranks, --rank-gpu, real
# data through the ring buffer). Needs `nvidia-smi -L` to list a GPU and PYTHON's torch to see CUDA,
# else it is skipped (77). Registered only with cmake -DCAMPAIGN_GPU_TESTS=ON (label gpu): CI has no GPU.
#  - Rank 1 without a GPU (CUDA_VISIBLE_DEVICES empty): rank 0 on cuda:0, rank 1 on the CPU,
#    gradients over gloo, and rank 0's one note on stderr naming rank 1.
#  - Both ranks with --rank-gpu: with 2 GPUs or more, each rank on a GPU of its own (different UUIDs
#    in config.yaml, also when the launcher hands each rank one device), gradients over NCCL, no note.
#    With one GPU both ranks share it, over gloo (NCCL refuses two ranks on one GPU) with the note
#    saying so; the NCCL check then cannot run and the test ends skipped (77) after those checks.
# Every run must train (finite losses, run_stop success) and write epochs.csv and each rank's stalls.
# About a minute.
# Usage: tests/workloads/minicosmo_gpu.sh CAMPAIGN_BINARY   (PYTHON: a python3 whose torch has CUDA)
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail

exe=${1:?usage: minicosmo_gpu.sh CAMPAIGN_BINARY}
source "$(dirname "$0")/lib.sh"

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
  echo "skipped: no GPU (nvidia-smi -L lists none)"
  exit 77
fi
gpus=$("$PYTHON" -c 'import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)')
if ((gpus < 1)); then
  echo "skipped: $PYTHON's torch $("$PYTHON" -c 'import torch; print(torch.__version__)') sees no CUDA" \
    "device (Debian's python3-torch is CPU-only: set PYTHON to a python3 whose torch has CUDA)"
  exit 77
fi
echo "== $gpus GPU(s) visible to torch"
nvidia-smi -L

timeout 60 "$PYTHON" "$MC/prepare.py" --data-dir "$WORK/data" --n-samples 64 --n-valid 16 \
  > "$WORK/prepare.out" 2>&1 || { cat "$WORK/prepare.out"; fail "prepare.py"; }

# run NAME [ENV=VALUE...]: 2 ranks, 3 epochs; an ENV is set for rank 1 alone.
run() {
  local name=$1
  shift
  RUN_DIR=$WORK/$name timeout 300 "$exe" launch -n 2 -l -- bash -c '[[ $RANK == 1 && $# -gt 0 ]] && export "$@"; exec "$PYTHON" "$TRAIN" \
    --distributed "$CONFIG" --data-dir "$DATA" --n-train 128 --n-valid 16 --n-epochs 3 \
    --loader ring_buffer --rank-gpu --timeout 120 --output-dir "$RUN_DIR"' rank "$@" \
    > "$WORK/$name.out" 2> "$WORK/$name.err" ||
    { tail -n 30 "$WORK/$name.out" "$WORK/$name.err"; fail "run $name"; }
  grep '^0: Devices:' "$WORK/$name.out" || fail "$name: rank 0 printed no 'Devices:' line"
}
export PYTHON TRAIN=$MC/train.py CONFIG=$MC/configs/cosmo.yaml DATA=$WORK/data

# check NAME BACKEND DEVICES NOTE: config.yaml's backend and devices (cpu or cuda:N per rank), with
# the GPUs of the ranks on one "distinct" or "shared", and the stderr note (a regex, or "" for none).
check() {
  "$PYTHON" - "$WORK/$1" "$2" "$3" "$4" <<'PY' || fail "$1"
import csv, json, math, sys, yaml
d, backend, layout = sys.argv[1], sys.argv[2], sys.argv[3]
cfg = yaml.safe_load(open(d + "/config.yaml"))
devs = cfg["devices"]
print("%s: backend %s, devices %s" % (d.rsplit("/", 1)[1], cfg["distributed"]["backend"],
                                       [(x["device"], x["gpu"]) for x in devs]))
assert cfg["distributed"]["backend"] == backend, cfg["distributed"]
kinds = layout.split(",")[:2]
assert [x["device"].split(":")[0] for x in devs] == kinds, (devs, kinds)
gpus = [x["gpu"] for x in devs if x["device"] != "cpu"]
assert all(gpus), devs
if layout.endswith("distinct"):
    assert len(set(gpus)) == len(gpus), "two ranks on one GPU: %s" % gpus
if layout.endswith("shared"):
    assert len(set(gpus)) == 1, gpus
rows = list(csv.DictReader(open(d + "/history.csv")))
assert len(rows) == 3 and all(math.isfinite(float(r["loss"])) for r in rows), rows
assert len(list(csv.reader(open(d + "/epochs.csv")))) == 4
for r in (0, 1):
    assert len(open("%s/stalls-rank%d.csv" % (d, r)).readlines()) == 1 + 3 * 8, r
recs = [json.loads(l.split(":::MLLOG ", 1)[1]) for l in open(d + "/mlperf.log") if ":::MLLOG " in l]
assert [r["metadata"]["status"] for r in recs if r["key"] == "run_stop"] == ["success"]
PY
  local notes
  notes=$(grep -c -- '--rank-gpu' "$WORK/$1.err" || true)
  if [[ -z $4 ]]; then
    [[ $notes == 0 ]] || { cat "$WORK/$1.err"; fail "$1: a note on stderr"; }
  else
    [[ $notes == 1 ]] && grep -Eq -- "^0: minicosmo: --rank-gpu: $4" "$WORK/$1.err" ||
      { cat "$WORK/$1.err"; fail "$1: not one note from rank 0 matching '$4'"; }
  fi
}

echo "== rank 1 without a GPU"
run mixed CUDA_VISIBLE_DEVICES=
check mixed gloo cuda,cpu 'rank\(s\) 1 see no GPU'

echo "== both ranks with --rank-gpu"
run both
if ((gpus >= 2)); then
  check both nccl cuda,cuda,distinct ""
  echo "PASS minicosmo GPU test ($(( $(date +%s) - START ))s)"
else
  check both gloo cuda,cuda,shared 'ranks share a GPU'
  echo "skipped: one GPU: the ranks shared it over gloo as they should; a GPU per rank and NCCL need 2"
  exit 77
fi
