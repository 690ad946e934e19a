#!/usr/bin/env bash
# Smoke test of the bundled minicosmo workload: prepare.py, a 2-rank real-data
# run launched by hand (gloo over loopback) and a 1-rank dummy-data run, each
# 2 epochs; checks history.csv, mlperf.log, config.yaml and the stdout lines.
# Usage: tests/workloads/minicosmo_smoke.sh   (PYTHON overrides the interpreter)
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail

source "$(dirname "$0")/lib.sh"

# check_run DIR RANKS STDOUT: outputs of a finished 2-epoch run.
check_run() {
  local dir=$1 ranks=$2 out=$3
  [[ -f "$dir/config.yaml" ]] || fail "$dir/config.yaml missing"
  [[ -f "$dir/history.csv" ]] || fail "$dir/history.csv missing"
  [[ -f "$dir/mlperf.log" ]] || fail "$dir/mlperf.log missing"
  "$PYTHON" - "$dir" "$ranks" <<'PY' || fail "bad outputs in $1"
import csv, json, sys, yaml
d, ranks = sys.argv[1], int(sys.argv[2])
rows = list(csv.reader(open(d + "/history.csv")))
assert rows[0] == "epoch,loss,lr,mae,time,val_loss,val_mae".split(","), rows[0]
assert len(rows) == 3, "expected 2 epoch rows, got %d" % (len(rows) - 1)
for i, r in enumerate(rows[1:]):
    assert int(r[0]) == i and float(r[4]) > 0, r
recs = [json.loads(l.split(":::MLLOG ", 1)[1]) for l in open(d + "/mlperf.log") if l.startswith(":::MLLOG ")]
keys = [r["key"] for r in recs]
for k in ("submission_benchmark", "init_start", "init_stop", "run_start",
          "staging_start", "staging_stop", "global_batch_size", "number_of_ranks", "run_stop"):
    assert k in keys, "missing key " + k
for r in recs:
    assert set(r) == {"namespace", "time_ms", "event_type", "key", "value", "metadata"}, r
    assert {"file", "lineno"} <= set(r["metadata"]), r
ep = lambda k: [r["metadata"]["epoch_num"] for r in recs if r["key"] == k]
assert ep("epoch_start") == [0, 1] and ep("epoch_stop") == [0, 1], (ep("epoch_start"), ep("epoch_stop"))
assert len(ep("eval_error")) == 2
stop = [r for r in recs if r["key"] == "run_stop"]
assert len(stop) == 1 and stop[0]["metadata"]["status"] == "success", stop
assert keys[-1] == "run_stop"
assert [r["value"] for r in recs if r["key"] == "number_of_ranks"] == [ranks]
# The issue 13 files: per-epoch windows (rank 0), per-iteration stalls (every rank).
assert next(csv.reader(open(d + "/epochs.csv"))) == "epoch,start_time,end_time,epoch_time".split(",")
assert len(list(csv.reader(open(d + "/epochs.csv")))) == 3
for r in range(ranks):
    head = next(csv.reader(open(d + "/stalls-rank%d.csv" % r)))
    assert head[0] == "Iteration" and head[-1] == "Compute time (sec)", head
cfg = yaml.safe_load(open(d + "/config.yaml"))
assert cfg["n_ranks"] == ranks and cfg["data"]["n_epochs"] == 2, cfg
PY
  [[ $(grep -c '^Epoch [12]/2 .*time [0-9.]*s loss ' "$out") == 2 ]] || fail "epoch lines missing in $out"
  grep -Eq '^Mean epoch time: [0-9]+\.[0-9]{3}$' "$out" || fail "no 'Mean epoch time' in $out"
}

echo "== prepare.py"
timeout 60 "$PYTHON" "$MC/prepare.py" --data-dir "$WORK/data" --n-samples 64 --n-valid 16 \
  --sample-shape 16 16 16 4 --seed 1 > "$WORK/prepare.out" 2>&1 || { cat "$WORK/prepare.out"; fail "prepare.py"; }
[[ -f "$WORK/data/dataset.yaml" && -f "$WORK/data/train/targets.npy" && -f "$WORK/data/validation/sample_00015.npy" ]] ||
  fail "prepare.py outputs missing"

echo "== 2 ranks, real data"
PORT=$(free_port)
for r in 0 1; do
  env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT="$PORT" \
    timeout 120 "$PYTHON" "$MC/train.py" "$MC/configs/cosmo.yaml" --distributed \
    --data-dir "$WORK/data" --n-train 128 --n-valid 32 --n-epochs 2 --timeout 60 \
    --output-dir "$WORK/real2" > "$WORK/real2_rank$r.out" 2>&1 &
  PIDS+=($!)
done
rc=0
for p in "${PIDS[@]}"; do wait "$p" || rc=$?; done
PIDS=()
if [[ $rc != 0 ]]; then
  tail -n 20 "$WORK"/real2_rank*.out
  fail "2-rank run exited with $rc"
fi
check_run "$WORK/real2" 2 "$WORK/real2_rank0.out"
grep -q '^Epoch ' "$WORK/real2_rank1.out" && fail "rank 1 printed epoch lines"
[[ -e "$WORK/real2/history.csv" ]] || fail "rank 0 wrote no history"

echo "== 1 rank, dummy data"
timeout 120 "$PYTHON" "$MC/train.py" "$MC/configs/cosmo_dummy.yaml" \
  --n-train 64 --n-valid 16 --n-epochs 2 --output-dir "$WORK/dummy1" > "$WORK/dummy1.out" 2>&1 ||
  { tail -n 20 "$WORK/dummy1.out"; fail "1-rank dummy run"; }
check_run "$WORK/dummy1" 1 "$WORK/dummy1.out"
grep -q 'data dummy' "$WORK/dummy1.out" || fail "dummy run did not use dummy data"

echo "== instances with a quality target (MLPerf HPC weak scaling)"
# Instance 3 with a target every run reaches: stops after epoch 0, success. Instance 5 with one no
# run reaches: all epochs, aborted. Every record of both carries metadata.instance_id.
for spec in "3 0.99 success 1" "5 0.001 aborted 3"; do
  set -- $spec
  timeout 120 "$PYTHON" "$MC/train.py" "$MC/configs/cosmo_dummy.yaml" --n-train 32 --n-valid 16 \
    --n-epochs 3 --instance "$1" --target-mae "$2" --output-dir "$WORK/inst$1" > "$WORK/inst$1.out" 2>&1 ||
    { tail -n 20 "$WORK/inst$1.out"; fail "instance $1"; }
  "$PYTHON" - "$WORK/inst$1/mlperf.log" "$@" <<'PY' || fail "instance $1: bad mlperf.log"
import json, sys
log, inst, target, status, epochs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
recs = [json.loads(l.split(":::MLLOG ", 1)[1]) for l in open(log) if l.startswith(":::MLLOG ")]
assert all(r["metadata"].get("instance_id") == inst for r in recs), "a record without instance_id"
assert [r["value"] for r in recs if r["key"] == "target_mae"] == [target]
stop = [r for r in recs if r["key"] == "run_stop"]
assert len(stop) == 1 and stop[0]["metadata"]["status"] == status, stop
assert len([r for r in recs if r["key"] == "epoch_stop"]) == epochs
PY
done

grep -h '^Mean epoch time' "$WORK/real2_rank0.out" | sed 's/^/real, 2 ranks: /'
grep -h '^Mean epoch time' "$WORK/dummy1.out" | sed 's/^/dummy, 1 rank: /'
echo "PASS minicosmo smoke test ($(( $(date +%s) - START ))s)"
