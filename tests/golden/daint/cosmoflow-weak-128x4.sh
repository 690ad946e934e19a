#!/bin/bash
#SBATCH --job-name=cmp@ID@-cosmoflow-weak-128x4-a1
#SBATCH --nodes=512
#SBATCH --ntasks=512
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=12
#SBATCH --gpus-per-task=1
#SBATCH --time=04:00:00
#SBATCH --output=@WORKDIR@/cosmoflow-weak-128x4/slurm-%j.out
#SBATCH --no-requeue
#SBATCH --account=proj123
#SBATCH --constraint=gpu
# Case cosmoflow-weak-128x4 of campaign cosmoflow-mlperf-weak (step train, attempt 1),
# rendered by campaign for system daint, partition gpu.
# --no-requeue: after a node failure campaign retries with a new attempt,
# so every attempt is one job and one record.

# The exit status goes to .exit however the script ends: the first
# news of the job's end for the orchestrator, which the scheduler's accounting
# then confirms or corrects (srun exits 0 after a node failure).
cd @WORKDIR@/cosmoflow-weak-128x4 || exit 1
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
module load daint-gpu || exit 78
export CRAY_CUDA_MPS=1
export OMP_NUM_THREADS=12

# 128 instances side by side, each in its own directory as its own
# step on its own nodes (srun --exact); the job's status is the first non-zero
# status of an instance in instance order (0 when all succeed).
pids=()
mkdir -p instance-0 && (cd instance-0 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-0/output.log 2>&1 &
pids+=($!)
mkdir -p instance-1 && (cd instance-1 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-1/output.log 2>&1 &
pids+=($!)
mkdir -p instance-2 && (cd instance-2 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-2/output.log 2>&1 &
pids+=($!)
mkdir -p instance-3 && (cd instance-3 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-3/output.log 2>&1 &
pids+=($!)
mkdir -p instance-4 && (cd instance-4 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-4/output.log 2>&1 &
pids+=($!)
mkdir -p instance-5 && (cd instance-5 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-5/output.log 2>&1 &
pids+=($!)
mkdir -p instance-6 && (cd instance-6 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-6/output.log 2>&1 &
pids+=($!)
mkdir -p instance-7 && (cd instance-7 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-7/output.log 2>&1 &
pids+=($!)
mkdir -p instance-8 && (cd instance-8 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-8/output.log 2>&1 &
pids+=($!)
mkdir -p instance-9 && (cd instance-9 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-9/output.log 2>&1 &
pids+=($!)
mkdir -p instance-10 && (cd instance-10 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-10/output.log 2>&1 &
pids+=($!)
mkdir -p instance-11 && (cd instance-11 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-11/output.log 2>&1 &
pids+=($!)
mkdir -p instance-12 && (cd instance-12 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-12/output.log 2>&1 &
pids+=($!)
mkdir -p instance-13 && (cd instance-13 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-13/output.log 2>&1 &
pids+=($!)
mkdir -p instance-14 && (cd instance-14 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-14/output.log 2>&1 &
pids+=($!)
mkdir -p instance-15 && (cd instance-15 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-15/output.log 2>&1 &
pids+=($!)
mkdir -p instance-16 && (cd instance-16 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-16/output.log 2>&1 &
pids+=($!)
mkdir -p instance-17 && (cd instance-17 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-17/output.log 2>&1 &
pids+=($!)
mkdir -p instance-18 && (cd instance-18 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-18/output.log 2>&1 &
pids+=($!)
mkdir -p instance-19 && (cd instance-19 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-19/output.log 2>&1 &
pids+=($!)
mkdir -p instance-20 && (cd instance-20 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-20/output.log 2>&1 &
pids+=($!)
mkdir -p instance-21 && (cd instance-21 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-21/output.log 2>&1 &
pids+=($!)
mkdir -p instance-22 && (cd instance-22 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-22/output.log 2>&1 &
pids+=($!)
mkdir -p instance-23 && (cd instance-23 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-23/output.log 2>&1 &
pids+=($!)
mkdir -p instance-24 && (cd instance-24 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-24/output.log 2>&1 &
pids+=($!)
mkdir -p instance-25 && (cd instance-25 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-25/output.log 2>&1 &
pids+=($!)
mkdir -p instance-26 && (cd instance-26 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-26/output.log 2>&1 &
pids+=($!)
mkdir -p instance-27 && (cd instance-27 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-27/output.log 2>&1 &
pids+=($!)
mkdir -p instance-28 && (cd instance-28 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-28/output.log 2>&1 &
pids+=($!)
mkdir -p instance-29 && (cd instance-29 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-29/output.log 2>&1 &
pids+=($!)
mkdir -p instance-30 && (cd instance-30 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-30/output.log 2>&1 &
pids+=($!)
mkdir -p instance-31 && (cd instance-31 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-31/output.log 2>&1 &
pids+=($!)
mkdir -p instance-32 && (cd instance-32 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-32/output.log 2>&1 &
pids+=($!)
mkdir -p instance-33 && (cd instance-33 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-33/output.log 2>&1 &
pids+=($!)
mkdir -p instance-34 && (cd instance-34 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-34/output.log 2>&1 &
pids+=($!)
mkdir -p instance-35 && (cd instance-35 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-35/output.log 2>&1 &
pids+=($!)
mkdir -p instance-36 && (cd instance-36 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-36/output.log 2>&1 &
pids+=($!)
mkdir -p instance-37 && (cd instance-37 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-37/output.log 2>&1 &
pids+=($!)
mkdir -p instance-38 && (cd instance-38 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-38/output.log 2>&1 &
pids+=($!)
mkdir -p instance-39 && (cd instance-39 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-39/output.log 2>&1 &
pids+=($!)
mkdir -p instance-40 && (cd instance-40 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-40/output.log 2>&1 &
pids+=($!)
mkdir -p instance-41 && (cd instance-41 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-41/output.log 2>&1 &
pids+=($!)
mkdir -p instance-42 && (cd instance-42 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-42/output.log 2>&1 &
pids+=($!)
mkdir -p instance-43 && (cd instance-43 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-43/output.log 2>&1 &
pids+=($!)
mkdir -p instance-44 && (cd instance-44 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-44/output.log 2>&1 &
pids+=($!)
mkdir -p instance-45 && (cd instance-45 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-45/output.log 2>&1 &
pids+=($!)
mkdir -p instance-46 && (cd instance-46 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-46/output.log 2>&1 &
pids+=($!)
mkdir -p instance-47 && (cd instance-47 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-47/output.log 2>&1 &
pids+=($!)
mkdir -p instance-48 && (cd instance-48 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-48/output.log 2>&1 &
pids+=($!)
mkdir -p instance-49 && (cd instance-49 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-49/output.log 2>&1 &
pids+=($!)
mkdir -p instance-50 && (cd instance-50 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-50/output.log 2>&1 &
pids+=($!)
mkdir -p instance-51 && (cd instance-51 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-51/output.log 2>&1 &
pids+=($!)
mkdir -p instance-52 && (cd instance-52 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-52/output.log 2>&1 &
pids+=($!)
mkdir -p instance-53 && (cd instance-53 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-53/output.log 2>&1 &
pids+=($!)
mkdir -p instance-54 && (cd instance-54 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-54/output.log 2>&1 &
pids+=($!)
mkdir -p instance-55 && (cd instance-55 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-55/output.log 2>&1 &
pids+=($!)
mkdir -p instance-56 && (cd instance-56 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-56/output.log 2>&1 &
pids+=($!)
mkdir -p instance-57 && (cd instance-57 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-57/output.log 2>&1 &
pids+=($!)
mkdir -p instance-58 && (cd instance-58 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-58/output.log 2>&1 &
pids+=($!)
mkdir -p instance-59 && (cd instance-59 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-59/output.log 2>&1 &
pids+=($!)
mkdir -p instance-60 && (cd instance-60 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-60/output.log 2>&1 &
pids+=($!)
mkdir -p instance-61 && (cd instance-61 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-61/output.log 2>&1 &
pids+=($!)
mkdir -p instance-62 && (cd instance-62 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-62/output.log 2>&1 &
pids+=($!)
mkdir -p instance-63 && (cd instance-63 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-63/output.log 2>&1 &
pids+=($!)
mkdir -p instance-64 && (cd instance-64 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-64/output.log 2>&1 &
pids+=($!)
mkdir -p instance-65 && (cd instance-65 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-65/output.log 2>&1 &
pids+=($!)
mkdir -p instance-66 && (cd instance-66 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-66/output.log 2>&1 &
pids+=($!)
mkdir -p instance-67 && (cd instance-67 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-67/output.log 2>&1 &
pids+=($!)
mkdir -p instance-68 && (cd instance-68 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-68/output.log 2>&1 &
pids+=($!)
mkdir -p instance-69 && (cd instance-69 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-69/output.log 2>&1 &
pids+=($!)
mkdir -p instance-70 && (cd instance-70 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-70/output.log 2>&1 &
pids+=($!)
mkdir -p instance-71 && (cd instance-71 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-71/output.log 2>&1 &
pids+=($!)
mkdir -p instance-72 && (cd instance-72 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-72/output.log 2>&1 &
pids+=($!)
mkdir -p instance-73 && (cd instance-73 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-73/output.log 2>&1 &
pids+=($!)
mkdir -p instance-74 && (cd instance-74 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-74/output.log 2>&1 &
pids+=($!)
mkdir -p instance-75 && (cd instance-75 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-75/output.log 2>&1 &
pids+=($!)
mkdir -p instance-76 && (cd instance-76 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-76/output.log 2>&1 &
pids+=($!)
mkdir -p instance-77 && (cd instance-77 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-77/output.log 2>&1 &
pids+=($!)
mkdir -p instance-78 && (cd instance-78 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-78/output.log 2>&1 &
pids+=($!)
mkdir -p instance-79 && (cd instance-79 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-79/output.log 2>&1 &
pids+=($!)
mkdir -p instance-80 && (cd instance-80 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-80/output.log 2>&1 &
pids+=($!)
mkdir -p instance-81 && (cd instance-81 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-81/output.log 2>&1 &
pids+=($!)
mkdir -p instance-82 && (cd instance-82 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-82/output.log 2>&1 &
pids+=($!)
mkdir -p instance-83 && (cd instance-83 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-83/output.log 2>&1 &
pids+=($!)
mkdir -p instance-84 && (cd instance-84 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-84/output.log 2>&1 &
pids+=($!)
mkdir -p instance-85 && (cd instance-85 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-85/output.log 2>&1 &
pids+=($!)
mkdir -p instance-86 && (cd instance-86 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-86/output.log 2>&1 &
pids+=($!)
mkdir -p instance-87 && (cd instance-87 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-87/output.log 2>&1 &
pids+=($!)
mkdir -p instance-88 && (cd instance-88 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-88/output.log 2>&1 &
pids+=($!)
mkdir -p instance-89 && (cd instance-89 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-89/output.log 2>&1 &
pids+=($!)
mkdir -p instance-90 && (cd instance-90 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-90/output.log 2>&1 &
pids+=($!)
mkdir -p instance-91 && (cd instance-91 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-91/output.log 2>&1 &
pids+=($!)
mkdir -p instance-92 && (cd instance-92 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-92/output.log 2>&1 &
pids+=($!)
mkdir -p instance-93 && (cd instance-93 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-93/output.log 2>&1 &
pids+=($!)
mkdir -p instance-94 && (cd instance-94 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-94/output.log 2>&1 &
pids+=($!)
mkdir -p instance-95 && (cd instance-95 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-95/output.log 2>&1 &
pids+=($!)
mkdir -p instance-96 && (cd instance-96 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-96/output.log 2>&1 &
pids+=($!)
mkdir -p instance-97 && (cd instance-97 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-97/output.log 2>&1 &
pids+=($!)
mkdir -p instance-98 && (cd instance-98 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-98/output.log 2>&1 &
pids+=($!)
mkdir -p instance-99 && (cd instance-99 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-99/output.log 2>&1 &
pids+=($!)
mkdir -p instance-100 && (cd instance-100 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-100/output.log 2>&1 &
pids+=($!)
mkdir -p instance-101 && (cd instance-101 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-101/output.log 2>&1 &
pids+=($!)
mkdir -p instance-102 && (cd instance-102 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-102/output.log 2>&1 &
pids+=($!)
mkdir -p instance-103 && (cd instance-103 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-103/output.log 2>&1 &
pids+=($!)
mkdir -p instance-104 && (cd instance-104 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-104/output.log 2>&1 &
pids+=($!)
mkdir -p instance-105 && (cd instance-105 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-105/output.log 2>&1 &
pids+=($!)
mkdir -p instance-106 && (cd instance-106 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-106/output.log 2>&1 &
pids+=($!)
mkdir -p instance-107 && (cd instance-107 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-107/output.log 2>&1 &
pids+=($!)
mkdir -p instance-108 && (cd instance-108 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-108/output.log 2>&1 &
pids+=($!)
mkdir -p instance-109 && (cd instance-109 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-109/output.log 2>&1 &
pids+=($!)
mkdir -p instance-110 && (cd instance-110 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-110/output.log 2>&1 &
pids+=($!)
mkdir -p instance-111 && (cd instance-111 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-111/output.log 2>&1 &
pids+=($!)
mkdir -p instance-112 && (cd instance-112 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-112/output.log 2>&1 &
pids+=($!)
mkdir -p instance-113 && (cd instance-113 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-113/output.log 2>&1 &
pids+=($!)
mkdir -p instance-114 && (cd instance-114 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-114/output.log 2>&1 &
pids+=($!)
mkdir -p instance-115 && (cd instance-115 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-115/output.log 2>&1 &
pids+=($!)
mkdir -p instance-116 && (cd instance-116 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-116/output.log 2>&1 &
pids+=($!)
mkdir -p instance-117 && (cd instance-117 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-117/output.log 2>&1 &
pids+=($!)
mkdir -p instance-118 && (cd instance-118 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-118/output.log 2>&1 &
pids+=($!)
mkdir -p instance-119 && (cd instance-119 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-119/output.log 2>&1 &
pids+=($!)
mkdir -p instance-120 && (cd instance-120 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-120/output.log 2>&1 &
pids+=($!)
mkdir -p instance-121 && (cd instance-121 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-121/output.log 2>&1 &
pids+=($!)
mkdir -p instance-122 && (cd instance-122 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-122/output.log 2>&1 &
pids+=($!)
mkdir -p instance-123 && (cd instance-123 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-123/output.log 2>&1 &
pids+=($!)
mkdir -p instance-124 && (cd instance-124 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-124/output.log 2>&1 &
pids+=($!)
mkdir -p instance-125 && (cd instance-125 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-125/output.log 2>&1 &
pids+=($!)
mkdir -p instance-126 && (cd instance-126 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-126/output.log 2>&1 &
pids+=($!)
mkdir -p instance-127 && (cd instance-127 && srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 04:00:00 -J cmp@ID@-cosmoflow-weak-128x4-a1 ${CAMPAIGN_NODES:+-w "$CAMPAIGN_NODES"} -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-epochs 64 --output-dir .) >instance-127/output.log 2>&1 &
pids+=($!)
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
done
exit "$status"
