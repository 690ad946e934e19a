#!/usr/bin/env bash
# Issue 13 acceptance on this machine: campaigns/data_loading.yaml on `local` (minicosmo: 2 loaders x
# 2 I/O limits x 3 repetitions, sampled at 10 Hz): original / ring_buffer at the 5 MB/s limit and its
# std as computed here from the cases' epochs.csv; the utilisation joined with the epochs' windows and
# the utilisation-vs-progress curve per loader and limit as computed here from the run directories,
# by the window analysis' own rules (an epoch counts when samples lie before its start and after its
# end and at least `smooth` of them inside: a 0.3 s epoch at 10 Hz may have too few, and is then left
# out, as the study leaves it out). Then a 4-rank run (original loader, 5 MB/s): DS-Analyzer's
# per-iteration table has each rank's stall, and its summary and what-if tables match, every column
# within 1e-9 relative, tests/reference/ds_analyzer.py (pandas, from DS-Analyzer's notebook, no code
# shared) run on the ranks' stalls-rank<R>.csv files. How much faster the ring buffer is, and how
# much longer the original loader stalls at the limit, is measured by bench/effects_bench.sh, not
# asserted (a shared machine's load decides it): with FIGURES=FILE this test writes those figures
# there ("KEY VALUE" lines).
#
# Usage: bash data_loading_local.sh CAMPAIGN_BINARY SOURCE_DIR        (labels e2e, workload; ~1.5 min)
source "$(dirname "$0")/lib.sh"

py=/usr/bin/python3
wd=$WORK/dl
"$CAMPAIGN" run "$SRC/campaigns/data_loading.yaml" --system local --workdir "$wd" -q 2>"$WORK/stderr.txt"
check_eq "campaign run exits 0" 0 $?
check_eq "12 training cases collected" 12 "$(count_state "$wd" collected)"
# exclusive: true (issue 20): the cases' training windows (first epoch start to last epoch end, from
# their epochs.csv) never overlap, whatever the machine's cores.
overlaps=$($py - "$wd" <<'PY'
import csv, glob, sys
spans = []
for f in glob.glob(sys.argv[1] + "/loading-*/epochs.csv"):
    rows = list(csv.DictReader(open(f)))
    spans.append((min(float(r["start_time"]) for r in rows), max(float(r["end_time"]) for r in rows)))
print(len(spans), sum(1 for i, a in enumerate(spans) for b in spans[i + 1:] if a[0] < b[1] and b[0] < a[1]))
PY
)
check_eq "the 12 cases ran one at a time (epochs.csv windows never overlap)" "12 0" "$overlaps"
ratio=$($py - "$wd/report/loader_ratio.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["io_limit"] == "5MBps":
        print(r["ratio"], r["ratio_std"])
PY
)
say "original / ring_buffer at 5 MB/s: $ratio"
put_figure() { [[ -z ${FIGURES:-} ]] || echo "$1 $2" >>"$FIGURES"; }
put_figure ratio_5MBps "${ratio% *}"
# The reference, from the run directories' epochs.csv: per case the mean epoch time after warm-up
# (epochs >= 1), per loader the mean and sample std of the 3 repetitions, the ratio of the means, and
# its std with the relative errors added in quadrature.
check "... and its std, as computed from the cases' epochs.csv" $py - "$wd" "$ratio" <<'PY'
import csv, glob, math, os, statistics, sys
wd, (got_ratio, got_std) = sys.argv[1], map(float, sys.argv[2].split())
times = {}
for loader in ("original", "ring_buffer"):
    per_case = []
    for d in sorted(glob.glob(os.path.join(wd, f"loading-{loader}-io5MBps-r*"))):
        rows = [r for r in csv.DictReader(open(os.path.join(d, "epochs.csv"))) if int(r["epoch"]) >= 1]
        per_case.append(sum(float(r["epoch_time"]) for r in rows) / len(rows))
    times[loader] = per_case
(mo, so), (mr, sr) = [(statistics.mean(v), statistics.stdev(v)) for v in (times["original"], times["ring_buffer"])]
ratio = mo / mr
std = ratio * math.sqrt((so / mo) ** 2 + (sr / mr) ** 2)
print(f"reference: {len(times['original'])}+{len(times['ring_buffer'])} cases, ratio {ratio:.6f} std {std:.6f}")
close = lambda a, b: abs(a - b) <= 1e-6 + 1e-5 * abs(b)
sys.exit(not (len(times["original"]) == len(times["ring_buffer"]) == 3 and std > 0
              and close(got_ratio, ratio) and close(got_std, std)))
PY
stall=$($py - "$wd/report/stalls.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def mean(limit):
    v = [float(r["Avg training stall time (sec)"]) for r in rows
         if r["case"].startswith(f"loading-original-io{limit}-")]
    return sum(v) / len(v)
print(f"{mean('5MBps'):.4f} {mean('none'):.4f}")
PY
)
say "original's training stall [s]: $stall (5 MB/s, none)"
put_figure original_stall_5MBps_s "${stall% *}"
put_figure original_stall_none_s "${stall#* }"
# The reference, from the run directories (collectors/utilisation.yaml, analysis/window.hpp): the
# `proc` samples of utilisation-<host>.csv at their times rounded to the millisecond; an epoch >= 1
# counts when a sample lies before its start and one after its end, and at least SMOOTH (5, the
# campaign's) within [start, end]; its value is their mean, its curve their moving average over
# SMOOTH (n - SMOOTH + 1 points). A case counts when one of its epochs does (its value the mean over
# them, its curve as long as its longest epoch's); per loader and limit the mean over the cases that
# count, no value when none does. The curve table has a line per loader and limit with a case that
# counts, as long as its longest case's curve, from 0 to 100 % by sample index.
check "utilisation within the epochs' windows and its curve, as computed from the run directories" \
  $py - "$wd" "$wd/report/proc_util.csv" "$wd/report/proc_util-progress.csv" <<'PY'
import csv, glob, math, os, statistics, sys
wd, table, progress = sys.argv[1:]
SMOOTH = 5
def case(d):
    """(mean, curve length) over the epochs that count, or None."""
    samples = []
    for f in glob.glob(os.path.join(d, "utilisation-*.csv")):
        samples += [(round(float(r["time"]) * 1000), float(r["utilization"]))
                    for r in csv.DictReader(open(f)) if r["device"] == "proc"]
    samples.sort()
    means, lengths = [], []
    for e in csv.DictReader(open(os.path.join(d, "epochs.csv"))):
        lo, hi = float(e["start_time"]) * 1000, float(e["end_time"]) * 1000
        inside = [v for t, v in samples if math.ceil(lo) <= t <= math.floor(hi)]
        if int(e["epoch"]) >= 1 and samples and samples[0][0] < lo and samples[-1][0] > hi and len(inside) >= SMOOTH:
            means.append(sum(inside) / len(inside))
            lengths.append(len(inside) - SMOOTH + 1)
    return (sum(means) / len(means), max(lengths)) if means else None
ok = True
rows = list(csv.DictReader(open(table)))
curves = list(csv.DictReader(open(progress))) if os.path.exists(progress) else []
for limit in ("none", "5MBps"):
    row = [r for r in rows if r["io_limit"] == limit]
    for loader, column in (("original", "utilization"), ("ring_buffer", "utilization_ring_buffer")):
        cases = sorted(glob.glob(os.path.join(wd, f"loading-{loader}-io{limit}-r*")))
        counted = [c for c in map(case, cases) if c]
        got = row[0].get(column, "") if row else ""
        line = f"progress_{limit}_{loader}"
        points = [float(r[line]) for r in curves if r.get(line)]
        if counted:
            want = statistics.mean(m for m, _ in counted)
            length = max(n for _, n in counted)
            print(f"{limit} {loader}: reference {want:.4f} % ({len(counted)} of {len(cases)} cases), "
                  f"report {got or '-'} %; curve of {length} points, report {len(points)}")
            ok &= bool(got) and abs(float(got) - want) <= 1e-6 + 1e-5 * want
            ok &= len(points) == length and (length < 2 or (points[0] == 0 and points[-1] == 100))
        else:
            print(f"{limit} {loader}: no case with an epoch of {SMOOTH} samples (of {len(cases)} cases); "
                  f"report {got or '-'}, curve of {len(points)} points")
            ok &= not got and not points
        ok &= len(cases) == 3
sys.exit(not ok)
PY

# 4 ranks of one case, original loader at 5 MB/s on the study's data, 32 iterations an epoch: DS-Analyzer's
# tables against the reference computed from the ranks' files.
cat >"$WORK/ranks4.yaml" <<YAML
name: ranks4
system: local
job:
  ranks: 4
  cpus_per_rank: 1
  oversubscribe: true  # 4 ranks on a machine of 2 cores
  walltime: "00:05:00"
  command: >-
    $py $SRC/workloads/minicosmo/train.py --distributed $SRC/workloads/minicosmo/configs/cosmo.yaml
    --data-dir $wd/data --loader original --io-limit 5 --n-train 256 --n-valid 0 --n-epochs 3
    --batch-size 2 --output-dir .
collectors: [epochs, stalls]
analyses:
  - {name: stalls, scaling: stalls, warmup: 1}
YAML
"$CAMPAIGN" run "$WORK/ranks4.yaml" --workdir "$WORK/r4" -q 2>>"$WORK/stderr.txt"
check_eq "the 4-rank case is collected" 1 "$(count_state "$WORK/r4" collected)"
table=$(ls "$WORK"/r4/report/stalls-*.csv 2>/dev/null | grep -v whatif | head -1)
check "the per-iteration table has each rank's stall, gpu0 to gpu3" $py - "$table" <<'PY'
import csv, sys
head = next(csv.reader(open(sys.argv[1])))
need = ["Epoch", "Index number", "Iteration time (sec)", "Delay time (sec)", "Batch fetch time diff (sec)",
        "Batch fetch start time diff (sec)"] + [f"Training Stall time (sec)_gpu{i}" for i in range(4)]
missing = [n for n in need if n not in head]
print("missing:", missing) if missing else None
sys.exit(bool(missing))
PY
run=$(dirname "$(ls "$WORK"/r4/*/stalls-rank0.csv | head -1)")
case=$(basename "$run")
reference() { $py "$SRC/tests/reference/ds_analyzer.py" "$run" --check "$WORK/r4/report" "$case" >"$WORK/ref4.csv" 2>"$WORK/ref4.err"; }
check "summary and what-if as the reference computes them from the ranks' files" reference
say "reference: $(tail -1 "$WORK/ref4.err")"
[ "$(wc -l <"$WORK/ref4.err")" -gt 1 ] && head -5 "$WORK/ref4.err"
check_eq "21 iterations kept (epoch 1 only, the notebook's Epoch == 1: 32, the first 11 left out)" 21 \
  "$($py -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))['iterations'])" "$WORK/r4/report/stalls.csv")"
