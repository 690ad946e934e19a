#!/usr/bin/env bash
# Issue 31, GPUs shared by ranks, on a real Slurm (the virtual cluster's gn nodes: Gres=gpu:2 of
# stand-in device files, bound by Slurm as CUDA_VISIBLE_DEVICES): a 4-rank case on one gn node, its
# gpus_per_rank unset (2 GPUs / 4 ranks: 0.5), shares the node's 2 GPUs two per GPU, each rank shown
# one (ranks 0 1 on the first, 2 3 on the second: --gpu-bind=single:2), in its own job, exclusive or
# not (the same devices), and as a packed step. Each rank writes its node and CUDA_VISIBLE_DEVICES.
#
# Usage: bash gpu_share_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 40 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

# campaign FILE [JOB LINE]...: the 4-rank case, one job per value of `whole` (exclusive).
campaign() {
  local file=$1
  shift
  cat >"$file" <<YAML
name: $(basename "$file" .yaml)
system: testcluster
matrix:
  whole: [false, true]
case_name: "x{{whole}}"
job:
  partition: gpu
  ranks: 4
  ranks_per_node: 4
  cpus_per_rank: 1
  exclusive: "{{whole}}"
  walltime: 5m
  command: >-
    bash -c 'echo "\$SLURMD_NODENAME \${CUDA_VISIBLE_DEVICES-unset}" > gpus-\$SLURM_LOCALID'
$(for l in "$@"; do echo "$l"; done)
YAML
}
# seen WORKDIR CASE: "node gpus" of ranks 0..3, ';'-separated.
seen() { (cd "$1/$2" 2>/dev/null && cat gpus-0 gpus-1 gpus-2 gpus-3 2>/dev/null | awk '{ print $2 }' | paste -sd' '); }
node_of() { (cd "$1/$2" 2>/dev/null && cat gpus-* 2>/dev/null | awk '{ print $1 }' | sort -u | paste -sd' '); }

campaign "$WORK/one.yaml"
"$CAMPAIGN" plan "$WORK/one.yaml" -o "$WORK/plan" >/dev/null 2>>"$WORK/stderr.txt"
check "one job: the script asks the node's 2 GPUs, two ranks bound to each" \
  grep -qz $'#SBATCH --gpus-per-node=2\n#SBATCH --gpu-bind=single:2\n' "$WORK/plan/xfalse/job.sh"
"$CAMPAIGN" run "$WORK/one.yaml" --workdir "$WORK/one" -q 2>>"$WORK/stderr.txt"
check_eq "one job: the run exits 0" 0 $?
check_eq "one job: both cases completed" 2 "$(count_state "$WORK/one" completed)"
check_eq "one job: ranks 0 1 on GPU 0, 2 3 on GPU 1" "0 0 1 1" "$(seen "$WORK/one" xfalse)"
check_eq "one job, exclusive: the same devices" "0 0 1 1" "$(seen "$WORK/one" xtrue)"
check "one job: every rank on one gn node" grep -qx 'gn[12]' <<<"$(node_of "$WORK/one" xfalse)"

campaign "$WORK/packed.yaml" "pack: {nodes: 1, walltime: 10m}"
"$CAMPAIGN" run "$WORK/packed.yaml" --workdir "$WORK/packed" -q 2>>"$WORK/stderr.txt"
check_eq "packed: the run exits 0" 0 $?
check_eq "packed: both cases completed" 2 "$(count_state "$WORK/packed" completed)"
check_eq "packed: ranks 0 1 on GPU 0, 2 3 on GPU 1" "0 0 1 1" "$(seen "$WORK/packed" xfalse)"
check_eq "packed, exclusive: the same devices" "0 0 1 1" "$(seen "$WORK/packed" xtrue)"
check "packed: every rank on one gn node" grep -qx 'gn[12]' <<<"$(node_of "$WORK/packed" xtrue)"
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
