#!/usr/bin/env bash
# minicosmo's loader strategies under an I/O limit (issue 13): the original
# loader, the ring buffer and the compressed loader at a tight limit (5 MB/s, a
# batch takes about as long to read as to train on), the original one without a
# limit. Checks epochs.csv and stalls-rank0.csv against the file contract (the
# iterations tile each epoch; the fetch time is the batch's reading: within the
# stall for the direct loaders) and that the limit holds (no batch read faster
# than bytes / limit). How much faster one loader is than another is measured
# by bench/effects_bench.sh (a shared machine's load decides it, so no test
# does): with FIGURES=FILE this test writes its figures there ("KEY VALUE"
# lines). About 40 s.
# Usage: tests/workloads/minicosmo_loaders.sh   (PYTHON overrides the interpreter)
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail

source "$(dirname "$0")/lib.sh"
LIMIT=5   # MB/s

echo "== prepare.py --compress zlib"
timeout 60 "$PYTHON" "$MC/prepare.py" --data-dir "$WORK/data" --n-samples 64 --n-valid 8 \
  --compress zlib > "$WORK/prepare.out" 2>&1 || { cat "$WORK/prepare.out"; fail "prepare.py"; }
[[ -f "$WORK/data/train/sample_00063.npy.zlib" && -f "$WORK/data/train/sample_00063.npy" ]] ||
  fail "prepare.py --compress wrote no sample_*.npy.zlib beside the .npy files"

# run NAME ARGS...: 3 epochs of 24 steps (batch 8, 16^3 x 4 int16 samples: 262 kB a batch).
run() {
  local name=$1
  shift
  timeout 120 "$PYTHON" "$MC/train.py" "$MC/configs/cosmo.yaml" --data-dir "$WORK/data" \
    --n-train 192 --n-valid 0 --n-epochs 3 --output-dir "$WORK/$name" "$@" > "$WORK/$name.out" 2>&1 ||
    { tail -n 20 "$WORK/$name.out"; fail "run $name"; }
  echo "$name: $(grep '^Mean epoch time' "$WORK/$name.out")"
}
echo "== runs"
run original_tight --loader original --io-limit $LIMIT
run ring_tight --ring-buffer --io-limit $LIMIT   # the alias the GPU campaign uses
run original_none --loader original
run compressed_tight --loader compressed --io-limit $LIMIT --n-epochs 2

"$PYTHON" - "$WORK" $LIMIT <<'PY' || fail "loader study"
import csv, math, os, statistics, sys
work, limit = sys.argv[1], float(sys.argv[2])
EPOCHS_HEADER = "epoch,start_time,end_time,epoch_time".split(",")
STALLS_HEADER = ["Iteration", "Epoch", "Fetch time (sec)", "Fetch done time (sec)",
                 "Training start (sec)", "Iteration time (sec)", "Training Stall time (sec)",
                 "Compute time (sec)"]
STEPS, BATCH_BYTES = 24, 8 * (16 * 16 * 16 * 4 * 2 + 128)  # an .npy header is 128 bytes here

def table(path, header):
    rows = list(csv.reader(open(path)))
    assert rows[0] == header, "%s: header %s" % (path, rows[0])
    return [[float(c) for c in r] for r in rows[1:]]

def check(name, n_epochs):
    """The run's mean epoch time and stall fraction after the first (warm-up) epoch."""
    d = work + "/" + name
    assert next(csv.reader(open(d + "/history.csv"))) == \
        "epoch,loss,lr,mae,time,val_loss,val_mae".split(","), "history.csv changed"
    ep = table(d + "/epochs.csv", EPOCHS_HEADER)
    st = table(d + "/stalls-rank0.csv", STALLS_HEADER)
    assert [int(r[0]) for r in ep] == list(range(n_epochs)), ep
    assert len(st) == n_epochs * STEPS, "%s: %d iterations" % (name, len(st))
    for e, start, end, t in ep:
        assert end > start > 1.7e9 and math.isclose(t, end - start, abs_tol=2e-6), (name, e)
        its = [r for r in st if r[1] == e]
        assert len(its) == STEPS
        # The iterations tile the epoch's window.
        assert math.isclose(sum(r[5] for r in its), t, abs_tol=1e-3), (name, e)
        assert start <= its[0][4] and its[-1][4] <= end
    for i, (it, e, fetch, done, train, it_time, stall, compute) in enumerate(st):
        assert it == i and fetch >= 0 and compute > 0 and stall >= 0, (name, i)
        assert done <= train and math.isclose(it_time, stall + compute, abs_tol=2e-6), (name, i)
        # DS-Analyzer's fetch (read and decode): in the step, within the stall, for the direct
        # loaders; ahead of the step in a worker for the ring buffer.
        if not name.startswith("ring"):
            assert stall >= fetch - 2e-6 and done - fetch >= train - stall - 2e-6, (name, i)
    after = [r for r in st if r[1] >= 1]
    if "tight" in name:
        # The limit holds: each fetch time is the batch's own reading (and decoding), in the
        # worker for the ring buffer: at least bytes / limit, and there mostly hidden behind the
        # previous step.
        per_batch = BATCH_BYTES / (limit * 1e6)
        if not name.startswith("compressed"):
            slow = [r[2] for r in st if r[2] < 0.99 * per_batch]
            assert not slow, (name, per_batch, slow[:5])
    # The ring buffer's fetches hidden behind the previous step (measured, for the bench).
    hidden = sum(1 for r in after if r[2] > r[6] + 0.001) / len(after)
    return (statistics.mean(r[3] for r in ep[1:]),
            sum(r[6] for r in after) / sum(r[5] for r in after), hidden)

orig_t, orig_t_stall, _ = check("original_tight", 3)
ring_t, ring_t_stall, ring_hidden = check("ring_tight", 3)
orig_n, orig_n_stall, _ = check("original_none", 3)
comp_t, _, _ = check("compressed_tight", 2)
figures = {"original_tight_s": orig_t, "ring_tight_s": ring_t, "original_none_s": orig_n,
           "compressed_tight_s": comp_t, "original_tight_stall": orig_t_stall,
           "original_none_stall": orig_n_stall, "ring_tight_stall": ring_t_stall,
           "ring_hidden_fraction": ring_hidden}
print("epoch time after warm-up [s]: original %.3f, ring_buffer %.3f at %g MB/s; original %.3f unlimited; "
      "compressed %.3f at %g MB/s" % (orig_t, ring_t, limit, orig_n, comp_t, limit))
print("stall fraction of original: %.3f at %g MB/s, %.3f unlimited (ring_buffer %.3f at %g MB/s)"
      % (orig_t_stall, limit, orig_n_stall, ring_t_stall, limit))
if os.environ.get("FIGURES"):
    with open(os.environ["FIGURES"], "a") as f:
        f.writelines("%s %.6g\n" % kv for kv in figures.items())
PY
echo "PASS minicosmo loaders test ($(( $(date +%s) - START ))s)"
