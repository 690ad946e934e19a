#!/usr/bin/env bash
# Issue 20, the local executor admits cases by the cores and GPUs they ask for (not one per rank),
# each with its own GPUs, through `campaign run` on `local`. The machine is made 2 cores with taskset
# (the executor counts the CPUs of its affinity mask), so the test means the same on any machine:
#  - four cases of one rank and 2 CPUs run one at a time, never two at once;
#  - four cases of one CPU run two at a time, each pinned to one CPU of its own;
#  - with a stand-in nvidia-smi listing 2 GPUs on the PATH, four one-GPU cases run two at a time,
#    the two at once with different CUDA_VISIBLE_DEVICES; a CPU case sees none;
#  - a case asking for more than the machine has is refused by validate with file:line:col.
# Needs 2 CPUs (taskset -c 0,1).
#
# Usage: bash resources_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 30 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)

# campaign FILE CPUS GPUS [EXTRA JOB LINE]: four one-rank cases writing their start, end, GPUs and CPUs.
campaign() {
  cat >"$1" <<YAML
name: $(basename "$1" .yaml)
system: local
matrix: {repeat: 4}
case_name: c{{repeat}}
job:
  partition: $([[ $3 -gt 0 ]] && echo gpu || echo cpu)
  ranks: 1
  cpus_per_rank: $2
  gpus_per_rank: $3
  walltime: 5m
  launch: false
  command: >-
    echo "start \$(date +%s.%N) gpus=[\${CUDA_VISIBLE_DEVICES-unset}] cpus=[\$(grep Cpus_allowed_list /proc/self/status | cut -f2)]" > times;
    sleep 1.5; echo "end \$(date +%s.%N)" >> times
  ${4:-}
YAML
}
# most_at_once WORKDIR: the most cases running at one moment, from their times files.
most_at_once() {
  /usr/bin/python3 - "$1" <<'PY'
import glob, sys
runs = []
for f in glob.glob(sys.argv[1] + "/c*/times"):
    lines = open(f).read().split("\n")
    runs.append((float(lines[0].split()[1]), float(lines[1].split()[1])))
print(max(sum(1 for s2, e2 in runs if s2 <= s < e2) for s, _ in runs) if len(runs) == 4 else "missing")
PY
}
run() { env PATH="$1" taskset -c 0,1 "$CAMPAIGN" run "$2" --workdir "$3" -q 2>>"$WORK/stderr.txt"; }

campaign "$WORK/two.yaml" 2 0
run "$nopath" "$WORK/two.yaml" "$WORK/two"
check_eq "2-CPU cases: all completed" 4 "$(count_state "$WORK/two" completed)"
check_eq "2-CPU cases on 2 cores: one at a time" 1 "$(most_at_once "$WORK/two")"

campaign "$WORK/one.yaml" 1 0
run "$nopath" "$WORK/one.yaml" "$WORK/one"
check_eq "1-CPU cases: all completed" 4 "$(count_state "$WORK/one" completed)"
check_eq "1-CPU cases on 2 cores: two at a time" 2 "$(most_at_once "$WORK/one")"
masks=$(cat "$WORK"/one/c*/times | awk '$1 == "start" { print $4 }' | sort -u | paste -sd' ')
check_eq "each 1-CPU case pinned to one CPU, both CPUs used" "cpus=[0] cpus=[1]" "$masks"

# A stand-in nvidia-smi with two GPUs.
mkdir -p "$WORK/bin"
cat >"$WORK/bin/nvidia-smi" <<'SH'
#!/bin/sh
[ "$1" = -L ] || exit 0
echo "GPU 0: Stand-in GPU (UUID: GPU-00000000-0000-0000-0000-000000000000)"
echo "GPU 1: Stand-in GPU (UUID: GPU-11111111-1111-1111-1111-111111111111)"
SH
chmod +x "$WORK/bin/nvidia-smi"
campaign "$WORK/gpu.yaml" 1 1
run "$WORK/bin:$nopath" "$WORK/gpu.yaml" "$WORK/gpu"
check_eq "1-GPU cases: all completed" 4 "$(count_state "$WORK/gpu" completed)"
check_eq "1-GPU cases on 2 GPUs: two at a time" 2 "$(most_at_once "$WORK/gpu")"
overlapping=$(/usr/bin/python3 - "$WORK/gpu" <<'PY'
import glob, sys
runs = []
for f in glob.glob(sys.argv[1] + "/c*/times"):
    lines = open(f).read().split("\n")
    start = lines[0].split()
    runs.append((float(start[1]), float(lines[1].split()[1]), start[2][len("gpus=["):-1]))
pairs = {tuple(sorted((a[2], b[2]))) for a in runs for b in runs if a is not b and a[0] < b[1] and b[0] < a[1]}
print(" ".join(sorted("+".join(p) for p in pairs)))
PY
)
check_eq "cases that ran at once had different GPUs" "0+1" "$overlapping"
campaign "$WORK/cpu.yaml" 1 0
run "$WORK/bin:$nopath" "$WORK/cpu.yaml" "$WORK/cpu"
check_eq "a CPU case on a machine with GPUs sees none (set, empty)" "4 gpus=[]" \
  "$(awk '$1 == "start" { print $3 }' "$WORK"/cpu/c*/times | sort | uniq -c | awk '{ print $1, $2 }')"

campaign "$WORK/big.yaml" 4 0
env PATH="$nopath" taskset -c 0,1 "$CAMPAIGN" validate "$WORK/big.yaml" >/dev/null 2>"$WORK/big.err"
check_eq "4 CPUs on 2 cores: validate exits 2" 2 $?
check "... naming the key with file:line:col" grep -qE 'big\.yaml:[0-9]+:[0-9]+: job\.cpus_per_rank: 1 ranks x 4 cpus per rank exceed the 2 cores of this machine' "$WORK/big.err"
campaign "$WORK/over.yaml" 4 0 "oversubscribe: true"
env PATH="$nopath" taskset -c 0,1 "$CAMPAIGN" validate "$WORK/over.yaml" >/dev/null 2>&1
check_eq "... unless oversubscribe: true" 0 $?
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
