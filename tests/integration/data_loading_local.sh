#!/usr/bin/env bash
# Issue 13 acceptance on this machine: campaigns/data_loading.yaml on `local` (minicosmo: 2 loaders x
# 2 I/O limits x 3 repetitions, sampled at 10 Hz) must show a real effect: original / ring_buffer
# > 1.3 at the 5 MB/s limit, with its std, and original's stall fraction larger at the limit than
# without; the utilisation is joined with the epochs' windows (window analysis, a progress curve per
# loader and limit as the study draws it: by sample index, 0 to 100 %). Then a 4-rank run: the DS-Analyzer table has per-rank columns, and its rank delay and
# effective delay match a reference computed here from the ranks' stalls-rank<R>.csv files.
#
# Usage: bash data_loading_local.sh CAMPAIGN_BINARY SOURCE_DIR        (labels e2e, workload; ~1.5 min)
source "$(dirname "$0")/lib.sh"

py=/usr/bin/python3
wd=$WORK/dl
"$CAMPAIGN" run "$SRC/campaigns/data_loading.yaml" --system local --workdir "$wd" -q 2>"$WORK/stderr.txt"
check_eq "campaign run exits 0" 0 $?
check_eq "12 training cases collected" 12 "$(count_state "$wd" collected)"
ratio=$($py - "$wd/report/loader_ratio.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["io_limit"] == "5MBps":
        print(r["ratio"], r["ratio_std"])
PY
)
say "original / ring_buffer at 5 MB/s: $ratio"
check "original / ring_buffer > 1.3 at 5 MB/s" $py -c "import sys; sys.exit(not float('${ratio% *}') > 1.3)"
check "... with its std" $py -c "import sys; sys.exit(not float('${ratio#* }') >= 0)"
stall=$($py - "$wd/report/stalls.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def mean(limit):
    v = [float(r["Stall (%)"]) for r in rows if r["case"].startswith(f"loading-original-io{limit}-")]
    return sum(v) / len(v)
print(f"{mean('5MBps'):.2f} {mean('none'):.2f}")
PY
)
say "original's stall %: $stall (5 MB/s, none)"
check "original stalls more at the limit than without" \
  $py -c "import sys; a, b = map(float, '$stall'.split()); sys.exit(not a > b)"
check "a utilisation-vs-progress curve per loader and limit, 0 to 100 % by sample index" \
  $py - "$wd/report/proc_util-progress.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lines = [c for c in rows[0] if c.startswith("progress_")]
ends = [[float(r[c]) for r in rows if r[c]] for c in lines]
sys.exit(not (len(lines) == 4 and all(e[0] == 0 and e[-1] == 100 and len(e) > 10 for e in ends)))
PY
check "utilisation within the epochs' windows for both loaders at both limits" $py - "$wd/report/proc_util.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(not (len(rows) == 2 and all(float(r["utilization"]) > 0 and float(r["utilization_ring_buffer"]) > 0
                                      for r in rows)))
PY

# 4 ranks of one case: the per-rank DS-Analyzer columns and the delays against our own reference.
cat >"$WORK/ranks4.yaml" <<YAML
name: ranks4
system: local
job:
  ranks: 4
  cpus_per_rank: 1
  walltime: "00:05:00"
  command: >-
    $py $SRC/workloads/minicosmo/train.py --distributed $SRC/workloads/minicosmo/configs/cosmo_dummy.yaml
    --n-train 64 --n-valid 0 --n-epochs 3 --batch-size 4 --output-dir .
collectors: [epochs, stalls]
analyses:
  - {name: stalls, scaling: stalls, warmup: 1}
YAML
"$CAMPAIGN" run "$WORK/ranks4.yaml" --workdir "$WORK/r4" -q 2>>"$WORK/stderr.txt"
check_eq "the 4-rank case is collected" 1 "$(count_state "$WORK/r4" collected)"
table=$(ls "$WORK"/r4/report/stalls-*.csv 2>/dev/null | head -1)
check "per-rank DS-Analyzer columns, gpu0 to gpu3" $py - "$table" <<'PY'
import csv, sys
head = next(csv.reader(open(sys.argv[1])))
need = [f"{c}_gpu{i}" for i in range(4) for c in ("Fetch time (sec)", "Training Stall time (sec)",
                                                  "Training start (sec)", "Iteration time (sec)")]
missing = [n for n in need if n not in head]
print("missing:", missing) if missing else None
sys.exit(bool(missing))
PY
check "rank delay and effective delay as computed from the ranks' files" $py - "$WORK/r4" <<'PY'
import csv, glob, os, sys
wd = sys.argv[1]
run = [d for d in glob.glob(os.path.join(wd, "*")) if glob.glob(os.path.join(d, "stalls-rank*.csv"))][0]
ranks = {}
for f in glob.glob(os.path.join(run, "stalls-rank*.csv")):
    ranks[f] = [r for r in csv.DictReader(open(f)) if int(r["Epoch"]) >= 1]
starts, times = {}, []
for rows in ranks.values():
    for r in rows:
        starts.setdefault(int(r["Iteration"]), []).append(float(r["Training start (sec)"]))
        times.append(float(r["Iteration time (sec)"]))
full = [v for v in starts.values() if len(v) == len(ranks)]
delay = sum(max(v) - min(v) for v in full) / len(full)
effective = 100 * delay / (sum(times) / len(times))
row = next(csv.DictReader(open(os.path.join(wd, "report", "stalls.csv"))))
got_delay, got_eff = float(row["Rank delay (sec)"]), float(row["Effective delay (%)"])
print(f"reference {delay:.6f} s {effective:.4f} %, report {got_delay:.6f} s {got_eff:.4f} %")
sys.exit(not (len(ranks) == 4 and abs(got_delay - delay) <= 1e-6 + 1e-4 * delay
              and abs(got_eff - effective) <= 1e-4 + 1e-4 * effective))
PY
