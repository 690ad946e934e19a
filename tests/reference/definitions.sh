#!/bin/bash
# Every number as its study defines it (issue 24): campaign's values against references written
# from the studies' text and code (tests/reference/*.py, Debian's python3-numpy and -pandas, no
# code shared with campaign), on the same inputs, to 1e-9 relative:
#   TAU: the ExaRL plan's mean listing (14.64 % in MPI), a 4-rank listing with per-communicator
#     lines, node, total and mean listings, and the Gray-Scott pprof -s (tau_reference.py reads the
#     catalog `campaign import` wrote);
#   the data-loading study's utilisation per epoch window and its curve (window_reference.py:
#     a generated 10 Hz recording with epochs of different lengths, against `campaign report`);
#   throughput over repetitions and MLPerf time to train (scaling_reference.py, likewise).
#
# Usage: bash tests/reference/definitions.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/../cli/lib.sh"
src=$2
ref=$src/tests/reference
py=/usr/bin/python3
if ! $py -c 'import numpy, pandas' 2>/dev/null; then
  echo "missing: Debian's python3-numpy and python3-pandas (tools/setup.sh installs them)"
  exit 77
fi

# TAU: one case per profile, imported.
cat >"$tmp/tau.yaml" <<'YAML'
name: tau-ref
matrix:
  profile: [exarl, ranks4, grayscott]
case_name: "tau-{{profile}}"
job: {command: ./app}
collectors: [tau]
YAML
mkdir -p "$tmp/tau/tau-exarl" "$tmp/tau/tau-ranks4" "$tmp/tau/tau-grayscott"
cp "$src/tests/data/profilers/pprof-exarl-mean.txt" "$tmp/tau/tau-exarl/pprof.txt"
cp "$src/tests/data/profilers/pprof-4ranks-comm.txt" "$tmp/tau/tau-ranks4/pprof.txt"
cp "$src/tests/data/profilers/pprof-gray-scott.txt" "$tmp/tau/tau-grayscott/pprof.txt"
out=$("$exe" import "$tmp/tau.yaml" --system local --from "$tmp/tau" --workdir "$tmp/tw" 2>&1)
check "tau: import ($out)" grep -q "3 collected, 0 collect_failed" <<<"$out"
for c in exarl ranks4 grayscott; do
  out=$($py "$ref/tau_reference.py" "$src/tests/data/profilers/$(
    case $c in exarl) echo pprof-exarl-mean.txt ;; ranks4) echo pprof-4ranks-comm.txt ;; *) echo pprof-gray-scott.txt ;; esac
  )" "$tmp/tw/campaign.db" "tau-$c" 2>&1)
  check "tau: $c against TAU's definitions: $out" test $? -eq 0
  echo "$out" | tail -1
done
pct=$("$exe" history 'component_percent:mpi@profile=exarl' "$tmp/tw" --better lower --out "$tmp/th" 2>/dev/null |
  awk '$1 == "tw" { printf "%.2f", $(NF - 2) }')
check_eq "tau: the ExaRL plan's % time in MPI" 14.64 "$pct"

# The window analysis: the study's method on a generated recording.
$py "$ref/window_reference.py" data "$tmp/win"
cat >"$tmp/win.yaml" <<'YAML'
name: window-ref
matrix:
  loader: [original, ring_buffer]
  io_limit: [100, 200]
  repeat: 3
case_name: "wr-{{loader}}-io{{io_limit}}-r{{repeat}}"
job: {command: "true"}
collectors: [epochs, utilisation]
analyses:
  - {name: util, scaling: window, x: io_limit, warmup: 1, compare: {axis: loader, baseline: original},
     window: {series: 'utilization:{node}:gpu{i}', smooth: 5}}
YAML
out=$("$exe" import "$tmp/win.yaml" --system local --from "$tmp/win" --workdir "$tmp/ww" 2>&1)
check "window: import ($out)" grep -q "12 collected, 0 collect_failed" <<<"$out"
"$exe" report "$tmp/ww" --format json --out "$tmp/wr" >/dev/null 2>&1
out=$($py "$ref/window_reference.py" check "$tmp/win" "$tmp/wr" 2>&1)
check "window: the study's numbers: $out" test $? -eq 0
echo "$out" | tail -1

# Rates over repetitions and MLPerf time to train.
$py "$ref/scaling_reference.py" data "$tmp/thr"
cat >"$tmp/thr.yaml" <<'YAML'
name: scaling-ref
matrix:
  ranks: [1, 2, 4]
  repeat: 3
case_name: "tr-n{{ranks}}-r{{repeat}}"
job: {command: "true"}
collectors: [cosmoflow]
analyses:
  - {name: weak, scaling: weak, x: ranks, time: {metric: epoch_time, warmup: 1}, samples: 64 * ranks}
  - {name: strong, scaling: strong, x: ranks, time: {metric: epoch_time, warmup: 1}, samples: 256}
  - {name: ttt, scaling: mlperf_strong, x: ranks}
YAML
out=$("$exe" import "$tmp/thr.yaml" --system local --from "$tmp/thr" --workdir "$tmp/tw2" 2>&1)
check "scaling: import ($out)" grep -q "9 collected, 0 collect_failed" <<<"$out"
"$exe" report "$tmp/tw2" --format json,md --out "$tmp/tr" >/dev/null 2>&1
out=$($py "$ref/scaling_reference.py" check "$tmp/thr" "$tmp/tr" 2>&1)
check "scaling: the studies' rates: $out" test $? -eq 0
echo "$out" | tail -1
grep -q "tr-n2-r3.*did not reach the target" "$tmp/tr/report.md"
check "mlperf_strong: the aborted repetition is left out, saying why" test $? -eq 0
finish 9
