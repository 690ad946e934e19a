#!/bin/bash
#BSUB -J cmp@ID@-scaling-gpu-dummy-n4-a1
#BSUB -P proj123
#BSUB -nnodes 4
#BSUB -W 01:00
#BSUB -q batch
#BSUB -o @WORKDIR@/scaling-gpu-dummy-n4/lsf-%J.out
#BSUB -e @WORKDIR@/scaling-gpu-dummy-n4/lsf-%J.out
# Case scaling-gpu-dummy-n4 of campaign cosmoflow-weak-scaling (step train, attempt 1),
# rendered by campaign for system summit, partition batch:
# 4 ranks on 4 nodes, 1 per node.

# The exit status goes to .exit however the script ends: the first
# news of the job's end for the orchestrator, which the scheduler's accounting
# then confirms or corrects (srun exits 0 after a node failure).
cd @WORKDIR@/scaling-gpu-dummy-n4 || exit 1
# One job per attempt: a second job of it (a submission answered twice) leaves this directory to the
# first and exits 75 (noclobber: the claim is created once; a requeued job finds its own id).
(set -C; echo "$LSB_JOBID[$LSB_JOBINDEX]" >.claimed-1) 2>/dev/null || [ "$(cat .claimed-1)" = "$LSB_JOBID[$LSB_JOBINDEX]" ] ||
  { echo "campaign: job $LSB_JOBID[$LSB_JOBINDEX]: attempt 1 ran in another job ($(cat .claimed-1))" >&2; exit 75; }
# The attempt's start, written first on the machine that runs it: files older than this stamp are
# an earlier attempt's, never collected as this one's measurement.
echo 1 >.started-1
rm -f .exit
trap 'echo $? > .exit.tmp && mv -f .exit.tmp .exit' EXIT
trap 'exit 143' TERM

export OMP_NUM_THREADS=42
# The utilisation sampler (campaign sample) beside the job, on the batch host only: a jsrun of
# its own would take a core of every compute node's resource sets from the job's own jsrun.
@CAMPAIGN@ sample --interval 0.1 --gpu auto &
sampler=$!

jsrun -n 4 -r 1 -a 1 -c 42 -g 6 -b rs python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo_dummy.yaml --n-train 1024 --n-valid 1024 --n-epochs 16 --output-dir .
status=$?
kill -TERM "$sampler" && wait "$sampler"
exit "$status"
