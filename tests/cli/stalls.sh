#!/bin/bash
# DS-Analyzer's tables (`scaling: stalls`) against tests/reference/ds_analyzer.py, a pandas
# implementation written from DS-Analyzer's notebook that shares no code with campaign's: every
# column of the summary row and of every what-if row within 1e-9 relative, on (a) the hand-made
# 2-GPU run of tests/data/stalls/two_gpus (worked out in tests/unit/analysis/stalls_test.cpp) and
# (c) an 8-GPU series generated here, rank 5 skewed (slower fetches that start late), recorded as
# minicosmo records it (Unix seconds, 6 decimals, read exactly to the microsecond on both sides),
# under the notebook's `Epoch == 1` (the default) and under `epochs: all`. Bad data (one rank only, a rank missing an
# iteration, training starts going back) leaves those cases out with the reason while the others
# go on, and `campaign import` still exits 0. (b), a real 4-rank minicosmo run, is in
# tests/integration/data_loading_local.sh.
#
# Usage: bash tests/cli/stalls.sh CAMPAIGN_BINARY SOURCE_DIR     (needs python3-pandas, else 77)
set -u
source "$(dirname "$0")/lib.sh"
src=$2
py=/usr/bin/python3
$py -c 'import pandas' 2>/dev/null || { echo "missing: python3-pandas (tools/setup.sh installs it)"; exit 77; }
ref=$src/tests/reference/ds_analyzer.py
tree=$tmp/results

mkdir -p "$tree/two_gpus"
cp "$src"/tests/data/stalls/two_gpus/*.csv "$tree/two_gpus/"
# 8 ranks, 3 epochs of 30 iterations, synchronised at each step's end as data-parallel training is:
# a rank's loader starts the next batch before the step ends, the rank stalls until it is there.
$py - "$tree/eight_gpus" <<'PY'
import os, random, sys
out = sys.argv[1]
os.makedirs(out)
rng = random.Random(23)
head = ("Iteration,Epoch,Fetch time (sec),Fetch done time (sec),Training start (sec),Iteration time (sec),"
        "Training Stall time (sec),Compute time (sec)\n")
files = [open(os.path.join(out, f"stalls-rank{g}.csv"), "w") for g in range(8)]
for f in files:
    f.write(head)
end = 1765000000.0
for it in range(90):
    ready, compute = [], []
    for g in range(8):
        skew = g == 5
        start = end - 0.04 + rng.uniform(0, 0.02) + (0.03 if skew else 0)
        fetch = rng.uniform(0.03, 0.09) * (2.5 if skew else 1)
        done = start + fetch
        ready.append((start, fetch, done, max(end, done)))
        compute.append(rng.uniform(0.07, 0.09))
    new_end = max(r[3] + c for r, c in zip(ready, compute))
    for g, ((start, fetch, done, t), c) in enumerate(zip(ready, compute)):
        files[g].write("%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n" % (it, it // 30, fetch, done, t, new_end - end,
                                                               t - end, new_end - t))
    end = new_end
PY
# Bad data, each from the 2-GPU run: one rank only; rank 1 without iteration 6; rank 0's
# iteration 7 starting before its iteration 6.
mkdir -p "$tree/one_rank" "$tree/missing_iteration" "$tree/time_back"
cp "$tree/two_gpus/stalls-rank0.csv" "$tree/one_rank/"
cp "$tree"/two_gpus/*.csv "$tree/missing_iteration/"
sed -i '/^6,/d' "$tree/missing_iteration/stalls-rank1.csv"
cp "$tree"/two_gpus/*.csv "$tree/time_back/"
sed -i 's/^7,1,0.150,1700000011.150,1700000011.200,/7,1,0.150,1700000011.150,1700000010.700,/' \
  "$tree/time_back/stalls-rank0.csv"

cat >"$tmp/stalls.yaml" <<'YAML'
name: stalls-reference
system: local
matrix:
  data: [two_gpus, eight_gpus, one_rank, missing_iteration, time_back]
case_name: "{{data}}"
job: {command: "true"}
collectors: [stalls]
analyses:
  - {name: stalls, scaling: stalls}                                     # the notebook's defaults: Epoch == 1
  - {name: every, scaling: stalls, epochs: all}                         # every epoch >= 1, the named variant
  - {name: hand, scaling: stalls, warmup: 1, skip_iterations: 1}         # the 2-GPU run's 3 iterations
YAML
"$exe" import "$tmp/stalls.yaml" --workdir "$tmp/w" --from "$tree" >"$tmp/out" 2>"$tmp/err"
check_eq "import exits 0, bad data or not" 0 $?
rep=$tmp/w/report

compare() {  # analysis case reference-options...
  local analysis=$1 case=$2
  shift 2
  if $py "$ref" "$tree/$case" "$@" --check "$rep" "$case" --analysis "$analysis" >"$tmp/ref-$case.csv" \
    2>"$tmp/ref-$case.err"; then
    pass=$((pass + 1))
  else
    echo "FAIL: $analysis, $case: campaign and the reference differ"
    cat "$tmp/ref-$case.err"
    fail=$((fail + 1))
  fi
  echo "$analysis, $case: $(tail -1 "$tmp/ref-$case.err")"
}
compare hand two_gpus --skip 1
compare stalls eight_gpus
compare every eight_gpus --epochs all
iterations() { $py -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))['iterations'])" "$rep/$1.csv"; }
check_eq "8 GPUs, the notebook's Epoch == 1: 19 iterations (30 - 11)" 19 "$(iterations stalls)"
check_eq "8 GPUs, epochs: all: 38 iterations (epochs 1 and 2)" 38 "$(iterations every)"
saving() { $py -c "import csv,sys; print('%.4f' % float([r for r in csv.DictReader(open(sys.argv[1])) if r['fetch'] == r['start'] == 'min'][0]['Saving (sec)']))" "$rep/$1-whatif-eight_gpus.csv"; }
echo "8 GPUs, min/min saving: $(saving stalls) s (Epoch == 1), $(saving every) s (epochs: all)"
check "the 8-GPU what-if has 9 rows" test "$(($(wc -l <"$rep/stalls-whatif-eight_gpus.csv") - 1))" = 9
# The hand-worked numbers (stalls_test.cpp) in the report's CSV: min/min predicts 0.286667 s.
check "2 GPUs, min/min: 0.286667 s, 33.33 % effective delay" $py - "$rep/hand-whatif-two_gpus.csv" <<'PY'
import csv, sys
row = [r for r in csv.DictReader(open(sys.argv[1])) if r["fetch"] == "min" and r["start"] == "min"][0]
sys.exit(not (abs(float(row["Avg iteration time (sec)"]) - 0.860002 / 3) < 1e-6
              and abs(float(row["Effective Delay time (%)"]) - 100 / 3) < 1e-6))
PY
# The skewed rank: aligning its fetch and start saves time; the notebook's threshold counts delays.
check "8 GPUs: avg/avg saves time against rank/rank" $py - "$rep/stalls-whatif-eight_gpus.csv" <<'PY'
import csv, sys
rows = {(r["fetch"], r["start"]): r for r in csv.DictReader(open(sys.argv[1]))}
sys.exit(not float(rows[("avg", "avg")]["Saving (sec)"]) > 0.01)
PY

left_out() { grep -F "| $1 |" "$rep/report.md" | grep -qF "$2"; }
check "one rank only: left out with the reason" left_out one_rank "one rank only (rank 0)"
check "a rank missing an iteration: left out" left_out missing_iteration "rank 1 has no iteration 6, which other ranks have"
check "a start going back: left out" left_out time_back "rank 0, iteration 7: Training start (sec)"
check "the 2-GPU run under the notebook's defaults: nothing left past index 10" \
  left_out two_gpus "none of its 8 iterations is in the first epoch >= 1 (epochs: first) past the first 11 of its epoch"
check_eq "the summary has the good cases" "eight_gpus" "$(cut -d, -f1 "$rep/stalls.csv" | tail -n +2 | paste -sd' ')"
check "the report shows the what-if tables under their own heading" grep -q "^### hand-whatif: case=two_gpus" "$rep/report.md"
check "and the what-if plot" test -s "$rep/stalls-whatif.gp"
finish 14
