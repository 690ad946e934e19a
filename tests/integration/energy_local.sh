#!/usr/bin/env bash
# Usage and energy on the local system (issue 31), with a stand-in nvidia-smi that lists one GPU
# (`-L`), replays the recorded H100 readings under load (tests/data/nvidia-smi/h100-driver580,
# load-noheader-nounits.csv in the sampler's column order: 41 readings, 692-702 W) and answers
# --query-compute-apps with the job script's pid (case gpu-used) or a pid of no job (gpu-idle).
# Two one-GPU cases with `sample:` and the collector `usage`:
#  - each has gpu_energy_j, the recorded readings' trapezoid (2816.93 J, the number the unit test
#    computes by hand from the same file) and gpu_power_mean_w (697.78 W), in the catalog and in the
#    report's usage table, whose notes say it is GPU only and that no CPU package energy was measured
#    where no powercap is (this machine has none: the note says which it found); and, from the case's
#    MLPerf log (run_start/run_stop inside the readings), gpu_energy_to_train_j;
#  - gpu-idle, whose processes touched no GPU, is marked so in `status` (its usage column, its JSON),
#    in the report's usage table and in a note of the analysis whose table it is in; gpu-used is not.
#
# Usage: bash energy_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 10 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
load="$SRC/tests/data/nvidia-smi/h100-driver580/load-noheader-nounits.csv"
mkdir -p "$WORK/bin"
cat >"$WORK/bin/nvidia-smi" <<SH
#!/bin/bash
case "\$1" in
-L) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece)"; exit 0 ;;
--query-gpu=*)
  # Recorded: timestamp, index, uuid, utilization.gpu, utilization.memory, power.draw, ...,
  # memory.used (10th); the sampler asks timestamp, index, utilization.gpu, power.draw, memory.used, uuid.
  awk -F', ' '{ print \$1 ", " \$2 ", " \$4 ", " \$6 ", " \$10 ", " \$3 }' "$load" ;;
--query-compute-apps=*)
  # The sampler's parent is the job script (its --pid).
  job=\$(awk '{ print \$4 }' /proc/\$PPID/stat)
  if [ "\$FAKE_SMI_APP" = used ]; then pid=\$job; else pid=4194000; fi
  echo "\$pid, GPU-73e2e5fc-d1a4-3f1c-74b3-82a522602ece, 874" ;;
*) exit 0 ;;
esac
# As nvidia-smi -lms: running until stopped.
exec sleep 60
SH
chmod +x "$WORK/bin/nvidia-smi"
# The case's MLPerf log: run_start and run_stop inside the replayed readings, 18:36:20.500 to
# 18:36:22.500 local time (the time stamps' zone), for its energy to train.
start_ms=$(date -d '2026-11-27 18:36:20.500' +%s%3N)
stop_ms=$(date -d '2026-11-27 18:36:22.500' +%s%3N)
cat >"$WORK/bin/mllog-run" <<SH
#!/bin/sh
echo ':::MLLOG {"namespace": "", "time_ms": $start_ms, "event_type": "INTERVAL_START", "key": "run_start", "value": null, "metadata": {"file": "run", "lineno": 1}}'
sleep 1
echo ':::MLLOG {"namespace": "", "time_ms": $stop_ms, "event_type": "INTERVAL_END", "key": "run_stop", "value": null, "metadata": {"file": "run", "lineno": 2, "status": "success"}}'
SH
chmod +x "$WORK/bin/mllog-run"

cat >"$WORK/energy.yaml" <<'YAML'
name: localenergy
system: local
matrix:
  app: [used, idle]
case_name: gpu-{{app}}
job:
  partition: gpu
  ranks: 1
  cpus_per_rank: 1
  gpus_per_rank: 1
  walltime: 5m
  launch: false
  sample: {interval: 0.1, gpu: on}
  env:
    FAKE_SMI_APP: "{{app}}"
  command: mllog-run
collectors: [usage, mlperf_weak]
# Energy as a figure of merit like any metric, per app.
analyses:
  - name: energy
    scaling: none
    x: app
    time: {metric: gpu_energy_j}
YAML
wd=$WORK/energy
say "campaign run localenergy"
env PATH="$WORK/bin:$nopath" "$CAMPAIGN" run "$WORK/energy.yaml" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "campaign run exits 0" 0 $?
check_eq "both cases collected" "collected collected" "$(field "$wd" gpu-used 2) $(field "$wd" gpu-idle 2)"

metric() {  # CASE NAME: the case's metric from `campaign results --format csv`
  "$CAMPAIGN" results "$wd" --format csv | /usr/bin/python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
print(next((r.get(sys.argv[2], "") for r in rows if r["case"] == sys.argv[1]), "missing"))' "$1" "$2"
}
for c in gpu-used gpu-idle; do
  check_eq "$c: gpu_energy_j, the recorded readings' trapezoid" 2816.93 "$(printf '%.2f' "$(metric $c gpu_energy_j)")"
  check_eq "$c: gpu_power_mean_w" 697.78 "$(printf '%.2f' "$(metric $c gpu_power_mean_w)")"
  check_eq "$c: gpus_held" 1 "$(metric $c gpus_held)"
  check_eq "$c: gpu_memory_peak_mib" 883 "$(metric $c gpu_memory_peak_mib)"
done
check_eq "gpu-used: gpus_used" 1 "$(metric gpu-used gpus_used)"
check_eq "gpu-idle: gpus_used" 0 "$(metric gpu-idle gpus_used)"

status=$("$CAMPAIGN" status "$wd")
say "status:"$'\n'"$status"
check "status has a usage column" grep -qE '^case +state .* usage' <<<"$status"
check "status marks gpu-idle" grep -qE '^gpu-idle .*asked for 1 GPU but no process of it used a GPU' <<<"$status"
check_eq "status does not mark gpu-used" "" "$(grep -E '^gpu-used .*asked for' <<<"$status")"
check_eq "status --json: gpu-idle's usage" "asked for 1 GPU but no process of it used a GPU|" \
  "$("$CAMPAIGN" status "$wd" --json | /usr/bin/python3 -c '
import json, sys
cases = {c["case"]: c for c in json.load(sys.stdin)[0]["cases"]}
print(cases["gpu-idle"].get("usage", "") + "|" + cases["gpu-used"].get("usage", ""))')"

md="$wd/report/report.md"
check "the report has the usage table" grep -q '^## usage' "$md"
check "... gpu-idle marked in it" grep -qE '^\| gpu-idle \|.*asked for 1 GPU but no process of it used a GPU \|$' "$md"
check "... gpu-used ok in it" grep -qE '^\| gpu-used \|.*\| ok \|$' "$md"
check "... its energy column" grep -qE '^\| gpu-used \|.*\| 2816\.928' "$md"
check "... says the GPU energy is GPU only" grep -q 'gpu_energy_j, gpu_power_mean_w: GPU only' "$md"
if [ -d /sys/class/powercap ]; then note='CPU package energy\|cpu_package_energy_share_j'; else note='CPU package energy: not measured: no powercap'; fi
check "... says what it found of the CPU package energy" grep -q "$note" "$md"
# The analysis over both cases says which one's use contradicts its request.
check "the energy analysis notes gpu-idle" grep -qE '^- Note: case gpu-idle asked for 1 GPU but no process of it used a GPU' "$md"
check_eq "... and not gpu-used" "" "$(grep -E '^- Note: case gpu-used' "$md")"
check "... its table has the energy per app" grep -qE '^\| used \| 2816\.928' "$md"
check "the usage table's CSV" test -s "$wd/report/usage.csv"
# MLPerf Power's energy to train: the readings within run_start..run_stop (20 of them, 1338.1508 J,
# the number the unit test writes from the definition with Python).
check "... the energy to train of gpu-used" grep -qE '^\| gpu-used \|.*\| 1338\.15' "$md"
check "... says what it is" grep -q "gpu_energy_to_train_j: MLPerf Power's energy to train, GPU only" "$md"
# The energy plot: the usage table's energies per case, drawn by gnuplot beside it.
check "the energy plot (usage.svg)" test -s "$wd/report/usage.svg"
check "... its data holds the energy to train" grep -q 'gpu_energy_to_train_j' "$wd/report/usage.dat"
