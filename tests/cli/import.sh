#!/bin/bash
# `campaign import` on a results tree laid out like the seed analysis'
# (results/weak_scaling/<timestamp>/scaling-{gpu,cpu}[-dummy]-n{1..64}/history.csv),
# then the report: the GPU table reproduces the published Piz Daint
# throughputs and efficiencies to 6 decimals; absent runs stay planned;
# importing again changes nothing.
#
# Usage: bash tests/cli/import.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
tree=$tmp/results/weak_scaling/20201023_1200
# Mean epoch time (epochs > 0) per rank count, as published (64: the time the
# published throughput implies, 29.642493338, which rounds to 29.642493).
declare -A gpu=([1]=27.585474 [2]=28.193059 [4]=28.447324 [8]=28.971968 [16]=29.003337 [32]=29.266624 [64]=29.642493338)
write_history() {  # dir time epochs
  mkdir -p "$1"
  {
    echo "epoch,loss,lr,mae,time,val_loss,val_mae"
    echo "0,0.5,0.001,0.3,$(awk "BEGIN{print $2 * 3}"),0.5,0.3"  # warm-up epoch, excluded
    for ((e = 1; e < $3; e++)); do echo "$e,0.4,0.001,0.2,$2,0.4,0.2"; done
  } >"$1/history.csv"
}
for r in 1 2 4 8 16 32 64; do
  write_history "$tree/scaling-gpu-n$r" "${gpu[$r]}" 16
  write_history "$tree/scaling-gpu-dummy-n$r" "$(awk "BEGIN{print ${gpu[$r]} * 0.9}")" 16
  write_history "$tree/scaling-cpu-dummy-n$r" 100 4
  [ "$r" = 64 ] || write_history "$tree/scaling-cpu-n$r" 120 4   # cpu-n64 never ran
done
mkdir -p "$tree/scaling-cpu-dummy-n32-broken" "$tree/unrelated"
printf 'epoch,time\n0,abc\n' >"$tree/scaling-cpu-dummy-n32/history.csv"   # malformed: collect_failed

out=$("$exe" import "$src/campaigns/weak_scaling.yaml" --system daint --workdir "$tmp/w" --from "$tmp/results/weak_scaling" 2>"$tmp/err")
rc=$?
check "import exits 1: a case failed collection, as run would ($rc)" test $rc -eq 1
check "import summary: $out" grep -q "imported 27 of 28 cases (26 collected, 1 collect_failed, 0 already there, 1 not found" <<<"$out"
check "the malformed case is named on stderr" grep -q "scaling-cpu-dummy-n32: history.csv" "$tmp/err"
csv=$tmp/w/report/weak_scaling-gpu.csv
check "report table written" test -f "$csv"
check "seed column names" grep -q "^ranks,samples,times,throughputs,ideal,eff,times_dummy,throughputs_dummy,ideal_dummy,eff_dummy" "$csv"
expect_row() {  # ranks throughput eff
  awk -F, -v r="$1" -v t="$2" -v e="$3" 'NR > 1 && $1 == r {
      ok = sprintf("%.6f", $4) == t && sprintf("%.6f", $6) == e; found = 1 }
    END { exit !(found && ok) }' "$csv"
}
check "n1: 18.560493, 1.000000" expect_row 1 18.560493 1.000000
check "n2: 36.320997, 0.978449" expect_row 2 36.320997 0.978449
check "n64: 1105.440073, 0.930606" expect_row 64 1105.440073 0.930606
status=$("$exe" status "$tmp/w")
check "cpu-n64 stays planned" grep -Eq "^scaling-cpu-n64 +planned" <<<"$status"
check "cpu-dummy-n32 is collect_failed" grep -Eq "^scaling-cpu-dummy-n32 +collect_failed" <<<"$status"
again=$("$exe" import "$src/campaigns/weak_scaling.yaml" --system daint --workdir "$tmp/w" --from "$tmp/results/weak_scaling" 2>/dev/null)
check "second import changes nothing: $again" grep -q "imported 0 of 28 cases (0 collected, 0 collect_failed, 27 already there" <<<"$again"
check "report.md and report.html" test -f "$tmp/w/report/report.md" -a -f "$tmp/w/report/report.html"
check "plots next to their gnuplot scripts" test -f "$tmp/w/report/weak_scaling-gpu.svg" -a -f "$tmp/w/report/weak_scaling-gpu.gp" -a -f "$tmp/w/report/weak_scaling-gpu.dat"
term=$("$exe" report "$tmp/w" --terminal)
check "report --terminal prints the table" grep -q "1105.440073" <<<"$term"

# Collectors that read the job's output (issue 33 item 6): an imported run's is the one scheduler
# output file in its run directory (slurm-*.out, job-*.out, lsf-*.out), or the file --output names.
cat >"$tmp/out.yaml" <<'YAML'
name: outs
matrix:
  n: [1, 2, 3]
case_name: out-{{n}}
job: {command: "true"}
collectors: [epoch.yaml]
YAML
cat >"$tmp/epoch.yaml" <<'YAML'
name: epoch
sources:
  - engine: regex
    stdout: true
    patterns:
      - {regex: 'Mean epoch time: (?<seconds>[0-9.]+)', name: mean_epoch_time, unit: s}
YAML
mkdir -p "$tmp/outs/out-1" "$tmp/outs/out-2" "$tmp/outs/out-3"
echo "Mean epoch time: 1.5" >"$tmp/outs/out-1/slurm-4242.out"
echo "Mean epoch time: 2.5" >"$tmp/outs/out-2/job-17.out"
echo "Mean epoch time: 3.5" >"$tmp/outs/out-3/train.log"
out=$("$exe" import "$tmp/out.yaml" --system local --workdir "$tmp/wo" --from "$tmp/outs" 2>"$tmp/err")
check "import finds slurm-*.out and job-*.out; out-3's log is not named ($out)" \
  grep -q "imported 3 of 3 cases (2 collected, 1 collect_failed" <<<"$out"
check "and says how to name it" grep -q "name it with import --output" "$tmp/err"
out=$("$exe" import "$tmp/out.yaml" --system local --workdir "$tmp/wo2" --from "$tmp/outs" --output '*.log' 2>"$tmp/err")
check "--output '*.log' names out-3's ($out)" grep -q "imported 3 of 3 cases (1 collected, 2 collect_failed" <<<"$out"
finish
