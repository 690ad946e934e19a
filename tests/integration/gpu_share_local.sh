#!/usr/bin/env bash
# Issue 31, GPUs shared by ranks, never lost, on the local executor: with a stand-in nvidia-smi
# listing one GPU on the PATH,
#  - the main campaign (campaigns/weak_scaling.yaml on `local`) gives its 2- and 4-rank `gpu` cases
#    the GPU (#LOCAL --gpus=1, not 0) and every rank of them sees it (the trainer is replaced by a
#    stand-in python that writes what each rank sees); the sampler runs beside them (sample:
#    {when: gpus}: usage-<node>.csv) and beside no cpu case;
#  - with two GPUs, a 4-rank case at gpus_per_rank 0.5 has its ranks two per GPU (0 0 1 1), and a
#    2-rank case at 0.5 sees the same GPU (0 0) whether its job is exclusive or not.
#
# Usage: bash gpu_share_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 20 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
mkdir -p "$WORK/one" "$WORK/two"
# stand_in_smi DIR ID...: an nvidia-smi listing one GPU per ID.
stand_in_smi() {
  local dir=$1
  shift
  {
    echo '#!/bin/sh'
    echo '[ "$1" = -L ] || exit 0'
    for g in "$@"; do echo "echo 'GPU $g: Stand-in GPU (UUID: GPU-$g$g$g$g$g$g$g$g-0000-0000-0000-000000000000)'"; done
  } >"$dir/nvidia-smi"
  chmod +x "$dir/nvidia-smi"
}
stand_in_smi "$WORK/one" 0
stand_in_smi "$WORK/two" 0 1
# The trainer's stand-in: each rank writes the GPUs it is shown to gpus-<rank> in its run directory.
cat >"$WORK/python" <<'SH'
#!/bin/sh
echo "${CUDA_VISIBLE_DEVICES-unset}" > "gpus-${LOCAL_RANK:-x}"
SH
chmod +x "$WORK/python"
# seen WORKDIR CASE: what each rank of a case saw, in rank order.
seen() { (cd "$1/$2" 2>/dev/null && for f in $(ls gpus-* 2>/dev/null | sort -t- -k2 -n); do cat "$f"; done) | paste -sd' '; }

# 1. The main campaign, its trainer replaced, on a machine with one GPU.
sed "s|python: /usr/bin/python3|python: $WORK/python|" "$SRC/campaigns/weak_scaling.yaml" >"$WORK/weak_scaling.yaml"
env PATH="$WORK/one:$nopath" "$CAMPAIGN" plan "$WORK/weak_scaling.yaml" --system local -o "$WORK/plan" >/dev/null 2>"$WORK/plan.err"
check_eq "main campaign, one GPU: plan exits 0" 0 $?
for n in 1 2 4; do
  check "scaling-gpu-n$n asks for the GPU (#LOCAL ... --gpus=1)" grep -q '^#LOCAL .* --gpus=1\b' "$WORK/plan/scaling-gpu-n$n/job.sh"
done
check "a cpu case asks for none" grep -q '^#LOCAL .* --gpus=0\b' "$WORK/plan/scaling-cpu-n2/job.sh"
# sample: {when: gpus}: the sampler beside the cases that hold the GPU, none beside the others.
check "scaling-gpu-n2 runs the sampler" grep -q ' sample --interval 0.1 ' "$WORK/plan/scaling-gpu-n2/job.sh"
check_eq "scaling-cpu-n2 runs none" 0 "$(grep -c ' sample --interval' "$WORK/plan/scaling-cpu-n2/job.sh")"
env PATH="$WORK/one:$nopath" "$CAMPAIGN" run "$WORK/weak_scaling.yaml" --system local --workdir "$WORK/w" -q \
  --case prepare-data --case 'scaling-gpu-n*' --case scaling-cpu-n2 >/dev/null 2>>"$WORK/stderr.txt"
check_eq "gpu n1: its rank sees the GPU" "0" "$(seen "$WORK/w" scaling-gpu-n1)"
check_eq "gpu n2: both ranks see the GPU" "0 0" "$(seen "$WORK/w" scaling-gpu-n2)"
check_eq "gpu n4: all four ranks see the GPU" "0 0 0 0" "$(seen "$WORK/w" scaling-gpu-n4)"
check_eq "cpu n2: its ranks see none (set, empty)" " " "$(seen "$WORK/w" scaling-cpu-n2)"
check "gpu n2: its usage recorded (usage-<node>.csv)" compgen -G "$WORK/w/scaling-gpu-n2/usage-*.csv"
check_eq "cpu n2: no sampler, no usage file" "" "$(compgen -G "$WORK/w/scaling-cpu-n2/usage-*.csv")"

# 2. Two GPUs: shares of 0.5, exclusive or not.
cat >"$WORK/share.yaml" <<YAML
name: share
system: local
matrix:
  ranks: [2, 4]
  whole: [false, true]
case_name: "n{{ranks}}-x{{whole}}"
job:
  partition: gpu
  ranks: ranks
  cpus_per_rank: 1
  oversubscribe: true
  gpus_per_rank: 0.5
  exclusive: "{{whole}}"
  walltime: 5m
  command: $WORK/python
YAML
env PATH="$WORK/two:$nopath" "$CAMPAIGN" run "$WORK/share.yaml" --workdir "$WORK/s" -q >/dev/null 2>>"$WORK/stderr.txt"
check_eq "share: all completed" 4 "$(count_state "$WORK/s" completed)"
check_eq "4 ranks at 0.5 on 2 GPUs: two per GPU" "0 0 1 1" "$(seen "$WORK/s" n4-xfalse)"
check_eq "... the same when exclusive" "0 0 1 1" "$(seen "$WORK/s" n4-xtrue)"
check_eq "2 ranks at 0.5: one GPU, both ranks on it" "0 0" "$(seen "$WORK/s" n2-xfalse)"
check_eq "... the same when exclusive (not every GPU of the machine)" "0 0" "$(seen "$WORK/s" n2-xtrue)"
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
