#!/bin/bash
#SBATCH --job-name=cmp@ID@-scaling-gpu-n2-a1
#SBATCH --nodes=2
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=64
#SBATCH --gpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=@WORKDIR@/scaling-gpu-n2/slurm-%j.out
#SBATCH --no-requeue
#SBATCH --account=proj123
#SBATCH --constraint=gpu
#SBATCH --qos=regular
#SBATCH --gpu-bind=none
# Case scaling-gpu-n2 of campaign cosmoflow-weak-scaling (step train, attempt 1),
# rendered by campaign for system perlmutter, partition gpu.
# --no-requeue: after a node failure campaign retries with a new attempt,
# so every attempt is one job and one record.

# The exit status goes to .exit however the script ends: the first
# news of the job's end for the orchestrator, which the scheduler's accounting
# then confirms or corrects (srun exits 0 after a node failure).
cd @WORKDIR@/scaling-gpu-n2 || exit 1
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

# `module` comes with the job's environment where the centre sets it up for non-interactive
# shells (Lmod's /etc/profile.d script exports BASH_ENV); else the module system's init is read
# here. A failing `module load` ends the job with status 78, which `campaign status` names.
type module >/dev/null 2>&1 ||
  for init in "${MODULESHOME:-/nonexistent}/init/bash" /etc/profile.d/lmod.sh /etc/profile.d/modules.sh; do
    [ -r "$init" ] && . "$init" >/dev/null && break
  done
module load gpu || exit 78
export OMP_NUM_THREADS=64
# The utilisation sampler (campaign sample) beside the job, one per node as a step sharing the
# job's resources (--overlap), each writing utilisation-<node>.csv here; srun passes the
# SIGTERM after the command on to them.
srun --overlap --ntasks-per-node=1 -N "$SLURM_NNODES" -n "$SLURM_NNODES" --cpus-per-task=1 \
  @CAMPAIGN@ sample --interval 0.1 --gpu auto &
sampler=$!

srun --cpu-bind=cores python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-train 512 --n-valid 512 --n-epochs 16 --output-dir .
status=$?
kill -TERM "$sampler" && wait "$sampler"
exit "$status"
