#!/bin/bash
#SBATCH --job-name=cmp@ID@-scaling-gpu-dummy-n4-a1
#SBATCH --nodes=1
#SBATCH --ntasks=4
#SBATCH --ntasks-per-node=4
#SBATCH --cpus-per-task=1
#SBATCH --gpus-per-node=2
#SBATCH --gpu-bind=single:2
#SBATCH --time=00:20:00
#SBATCH --output=@WORKDIR@/scaling-gpu-dummy-n4/slurm-%j.out
#SBATCH --no-requeue
#SBATCH --constraint=gpu
# Case scaling-gpu-dummy-n4 of campaign cosmoflow-weak-scaling (step train, attempt 1),
# rendered by campaign for system testcluster, partition gpu.
# --no-requeue: after a node failure campaign retries with a new attempt,
# so every attempt is one job and one record.

# The exit status goes to .exit however the script ends: the first
# news of the job's end for the orchestrator, which the scheduler's accounting
# then confirms or corrects (srun exits 0 after a node failure).
cd @WORKDIR@/scaling-gpu-dummy-n4 || exit 1
# One job per attempt: a second job of it (a submission answered twice) leaves this directory to the
# first and exits 75 (noclobber: the claim is created once; a requeued job finds its own id).
(set -C; echo "$SLURM_JOB_ID" >.claimed-1) 2>/dev/null || [ "$(cat .claimed-1)" = "$SLURM_JOB_ID" ] ||
  { echo "campaign: job $SLURM_JOB_ID: attempt 1 ran in another job ($(cat .claimed-1))" >&2; exit 75; }
# The attempt's start, written first on the machine that runs it: files older than this stamp are
# an earlier attempt's, never collected as this one's measurement.
echo 1 >.started-1
rm -f .exit
trap 'echo $? > .exit.tmp && mv -f .exit.tmp .exit' EXIT
trap 'exit 143' TERM

export MASTER_ADDR=127.0.0.1
export OMP_NUM_THREADS=1
# The utilisation sampler (campaign sample) beside the job, one per node as a step sharing the
# job's resources (--overlap), each writing utilisation-<node>.csv here; srun passes the
# SIGTERM after the command on to them.
srun --overlap --ntasks-per-node=1 -N "$SLURM_NNODES" -n "$SLURM_NNODES" --cpus-per-task=1 \
  @CAMPAIGN@ sample --interval 0.1 --gpu auto &
sampler=$!

srun /usr/bin/python3 @SRC@/campaigns/../workloads/minicosmo/train.py --distributed --rank-gpu @SRC@/campaigns/../workloads/minicosmo/configs/cosmo_dummy.yaml --data-dir @WORKDIR@/data --n-train 256 --n-valid 256 --n-epochs 3 --output-dir .
status=$?
kill -TERM "$sampler" && wait "$sampler"
exit "$status"
