#!/bin/bash
#SBATCH --job-name=cmp@ID@-scaling-gpu-n2-a1
#SBATCH --nodes=2
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=12
#SBATCH --gpus-per-task=1
#SBATCH --time=01:00:00
#SBATCH --output=@WORKDIR@/scaling-gpu-n2/slurm-%j.out
#SBATCH --no-requeue
#SBATCH --account=proj123
#SBATCH --constraint=gpu
# Case scaling-gpu-n2 of campaign cosmoflow-weak-scaling (step train, attempt 1),
# rendered by campaign for system daint, partition gpu.
# --no-requeue: after a node failure campaign retries with a new attempt,
# so every attempt is one job and one record.

# The exit status goes to .exit however the script ends: the first
# news of the job's end for the orchestrator, which the scheduler's accounting
# then confirms or corrects (srun exits 0 after a node failure).
cd @WORKDIR@/scaling-gpu-n2 || exit 1
rm -f .exit
trap 'echo $? > .exit.tmp && mv -f .exit.tmp .exit' EXIT
trap 'exit 143' TERM

module load daint-gpu
export CRAY_CUDA_MPS=1
export OMP_NUM_THREADS=12

srun -l -u python $HOME/cosmoflow-benchmark/train.py --distributed --rank-gpu $HOME/cosmoflow-benchmark/configs/cosmo.yaml --n-train 512 --n-valid 512 --n-epochs 16 --output-dir .
