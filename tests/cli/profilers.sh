#!/bin/bash
# Profiler components end to end: `campaign import` of run directories holding the recorded TAU
# pprof and `nsys stats` outputs of tests/data/profilers, with the tau and nsys collectors and a
# campaign's `components:`, records component:NAME and component_percent:NAME with the routine
# and kernel metrics, which `campaign history` reads and follows like any metric; three nights of
# profiles make `campaign history --plot`'s one figure of the tracked metrics and the site's.
#
# Usage: bash tests/cli/profilers.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
data=$src/tests/data/profilers
cat >"$tmp/profiled.yaml" <<'YAML'
name: profiled
matrix:
  ranks: [4, 8]
case_name: "gs-n{{ranks}}"
job:
  command: ./gray-scott
  oversubscribe: true  # 8 ranks measured elsewhere, imported with the local profile
collectors: [tau, nsys]
components:
  io: {collector: tau, match: '^BP4Writer::'}
  memcpy_htod: {collector: nsys, match: '\[CUDA memcpy (HtoD|Host-to-Device)\]'}
  gemm: {collector: nsys, match: gemm}
YAML
tree=$tmp/results
mkdir -p "$tree/gs-n4" "$tree/gs-n8"
cp "$data/pprof-gray-scott.txt" "$tree/gs-n4/pprof.txt"
cp "$data/nsys_cuda_gpu_kern_sum.csv" "$data/nsys-stats-vllm-7599.csv" "$tree/gs-n4/"
cp "$data/nsys_gpukernsum.csv" "$data/nsys_gpumemtimesum.csv" "$tree/gs-n8/"   # no TAU profile here

out=$("$exe" import "$tmp/profiled.yaml" --system local --from "$tree" --workdir "$tmp/w" 2>"$tmp/err")
check "import exits 0 ($(cat "$tmp/err"))" test $? -eq 0
check "both cases collected: $out" grep -q "2 collected, 0 collect_failed" <<<"$out"
# metric RANKS NAME: the value `campaign history` reads for the case with RANKS ranks; when history
# fails or shows no value, what it said instead (so that the check shows it).
metric() {
  "$exe" history "$2@ranks=$1" "$tmp/w" --better lower --out "$tmp/h" >"$tmp/hist.out" 2>"$tmp/hist.err"
  local rc=$? value
  value=$(awk '$1 == "w" { printf "%.6f\n", $(NF - 2); exit }' "$tmp/hist.out")
  if [ "$rc" -eq 0 ] && [ -n "$value" ]; then echo "$value"; else echo "history exit $rc: $(cat "$tmp/hist.err")"; fi
}
# pprof -s: the mean listing over the 4 ranks, over `.TAU application`'s inclusive 48.738 s.
check_eq "n4: % time in MPI (tau's default component)" 17.792568 "$(metric 4 component_percent:mpi)"
check_eq "n4: time in MPI, s (mean over the ranks)" 8.671742 "$(metric 4 component:mpi)"
check_eq "n4: the campaign's io component" 0.440700 "$(metric 4 component:io)"
check_eq "n4: host-to-device copies, s" 2.472025 "$(metric 4 component:memcpy_htod)"
check_eq "n4: their share of GPU time, %" 89.649417 "$(metric 4 component_percent:memcpy_htod)"
check_eq "n4: gemm kernels, s" 0.046645 "$(metric 4 component:gemm)"
check_eq "n4: a routine's exclusive time" 7.122000 "$(metric 4 'tau_exclusive:MPI_Sendrecv()')"
check_eq "n4: its total over the ranks" 28.489000 "$(metric 4 'tau_exclusive_total:MPI_Sendrecv()')"
check_eq "n4: a kernel's instances" 32.000000 "$(metric 4 nsys_instances:flash_attention_prefill_f16)"
check_eq "n8: old report names, HtoD copies, s" 0.000880 "$(metric 8 component:memcpy_htod)"
"$exe" history 'component:mpi@ranks=8' "$tmp/w" --out "$tmp/h" >"$tmp/hist.out" 2>"$tmp/hist.err"
check_eq "n8: no TAU profile, no MPI component: history says so (exit 2)" \
  "2 no case matching the conditions has a metric 'component:mpi'" \
  "$? $(grep -o "no case matching the conditions has a metric 'component:mpi'" "$tmp/hist.err")"
check_eq "n8: no gemm kernel there: 0" 0.000000 "$(metric 8 component:gemm)"
hist=$("$exe" history 'component:memcpy_htod@ranks=4' "$tmp/w" --out "$tmp/h" 2>&1)
check "history follows a component, in seconds, lower is better: $hist" \
  grep -q "collected metric component:memcpy_htod (mean per case) \[s\], lower is better" <<<"$hist"

# Three nights, each profile's run directory imported as its own run; % memcpy over the
# application's time that TAU measured (a denominator from another collector).
cat >"$tmp/nightly.yaml" <<'YAML'
name: profiled-nightly
matrix:
  ranks: [4]
case_name: "gs-n{{ranks}}"
job: {command: ./app}
collectors: [tau, nsys]
components:
  memcpy: {collector: nsys, match: '\[CUDA memcpy', percent_of: tau_application_time}
track:
  - {metric: 'component_percent:mpi@ranks=4', better: lower}
  - {metric: 'component_percent:memcpy@ranks=4', better: lower}
  - tau_application_time@ranks=4
YAML
n=0
for p in pprof-gray-scott.txt pprof-exarl-mean.txt pprof-4ranks-comm.txt; do
  n=$((n + 1))
  mkdir -p "$tmp/night$n/gs-n4"
  cp "$data/$p" "$tmp/night$n/gs-n4/pprof.txt"
  cp "$data/nsys-stats-vllm-7599.csv" "$tmp/night$n/gs-n4/"
  "$exe" import "$tmp/nightly.yaml" --system local --from "$tmp/night$n" --workdir "$tmp/nights/n$n" \
    --label "night$n" >/dev/null 2>&1
done
out=$("$exe" history --plot "$tmp/nights" --out "$tmp/hp" 2>&1)
status=$?
check "history --plot follows the three tracked metrics: $out" grep -q "3 tracked metric(s)" <<<"$out"
check "it prints each one's latest relative value" grep -q "^  component_percent:mpi@ranks=4: 0.648 improved" <<<"$out"
# % MPI falls (17.79, 14.64, 11.53 %): improved; the latest night's application time (74.2 s against
# the baseline's 48.7 s) is a regression: exit status 3.
check_eq "history --plot exit status" 3 "$status"
csv=$tmp/hp/profiled-nightly-tracked.csv
check_eq "one CSV line per metric and night" 10 "$(wc -l <"$csv")"
check_eq "night 2's % MPI relative to night 1's" 0.822733 \
  "$(awk -F, '$1 == "component_percent:mpi@ranks=4" && $3 == "n2" { printf "%.6f", $7 }' "$csv")"
# The copies (host-to-device, device-to-device, device-to-host: 2.542849 s) over 48.738 s.
check_eq "night 1's % memcpy over TAU's application time" 5.217386 \
  "$(awk -F, '$1 == "component_percent:memcpy@ranks=4" && $3 == "n1" { printf "%.6f", $6 }' "$csv")"
check "the figure: three lines" test "$(grep -c 'title "' "$tmp/hp/profiled-nightly-tracked.gp")" -ge 4
check "the figure rendered" test -s "$tmp/hp/profiled-nightly-tracked.svg"
out=$("$exe" history --plot --track 'tau_calls:MPI_Init()@ranks=4' "$tmp/nights" --out "$tmp/hp2" 2>&1)
check "--track adds a metric, the PATH after it stays a PATH: $out" grep -q "4 tracked metric(s)" <<<"$out"
"$exe" site "$tmp/nights" --out "$tmp/site" >/dev/null 2>&1
check "the site's index has the combined plot" grep -q "All tracked metrics, relative to the baseline" \
  "$tmp/site/index.html"
finish 25
