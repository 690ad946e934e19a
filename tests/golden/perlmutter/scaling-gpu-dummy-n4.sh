#!/bin/bash
#SBATCH --job-name=cmp@ID@-scaling-gpu-dummy-n4-a1
#SBATCH --nodes=4
#SBATCH --ntasks=4
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=64
#SBATCH --gpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=@WORKDIR@/scaling-gpu-dummy-n4/slurm-%j.out
#SBATCH --no-requeue
#SBATCH --account=proj123
#SBATCH --constraint=gpu
#SBATCH --qos=regular
#SBATCH --gpu-bind=none
# Case scaling-gpu-dummy-n4 of campaign cosmoflow-weak-scaling (step train, attempt 1),
# rendered by campaign for system perlmutter, partition gpu.
# --no-requeue: after a node failure campaign retries with a new attempt,
# so every attempt is one job and one record.

# The exit status goes to .exit however the script ends: the first
# news of the job's end for the orchestrator, which the scheduler's accounting
# then confirms or corrects (srun exits 0 after a node failure).
cd @WORKDIR@/scaling-gpu-dummy-n4 || exit 1
rm -f .exit
trap 'echo $? > .exit.tmp && mv -f .exit.tmp .exit' EXIT
trap 'exit 143' TERM

module load gpu
export OMP_NUM_THREADS=64

srun --cpu-bind=cores python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo_dummy.yaml --n-train 1024 --n-valid 1024 --n-epochs 16 --output-dir .
