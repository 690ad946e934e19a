#!/bin/bash
#LOCAL --cores=2 --gpus=0
# Case scaling-gpu-n2 of campaign cosmoflow-weak-scaling (step train, attempt 1),
# rendered by campaign for system local: 2 ranks, 1
# cores each, walltime 00:20:00. Run by the local executor (no scheduler), which
# reads the #LOCAL line above: the cores, GPUs and memory it holds for the job.

# The exit status goes to .exit however the script ends: the first
# news of the job's end for the orchestrator, which the executor's own record
# then confirms.
cd @WORKDIR@/scaling-gpu-n2 || exit 1
# The attempt's start, written first on the machine that runs it: files older than this stamp are
# an earlier attempt's, never collected as this one's measurement.
echo 1 >.started-1
rm -f .exit
trap 'echo $? > .exit.tmp && mv -f .exit.tmp .exit' EXIT
trap 'exit 143' TERM

export OMP_NUM_THREADS=1

@CAMPAIGN@ launch -n 2 -- /usr/bin/python3 @SRC@/campaigns/../workloads/minicosmo/train.py --distributed --rank-gpu @SRC@/campaigns/../workloads/minicosmo/configs/cosmo.yaml --data-dir @WORKDIR@/data --n-train 256 --n-valid 256 --n-epochs 4 --output-dir .
