#!/bin/bash
#LOCAL --cores=2 --gpus=0
# Case cosmoflow-weak-4x1 of campaign cosmoflow-mlperf-weak (step train, attempt 1),
# rendered by campaign for system local: 4 ranks, 1
# cores each, walltime 00:20:00. Run by the local executor (no scheduler), which
# reads the #LOCAL line above: the cores, GPUs and memory it holds for the job.

# The exit status goes to .exit however the script ends: the first
# news of the job's end for the orchestrator, which the executor's own record
# then confirms.
cd @WORKDIR@/cosmoflow-weak-4x1 || exit 1
# The attempt's start, written first on the machine that runs it: files older than this stamp are
# an earlier attempt's, never collected as this one's measurement.
echo 1 >.started-1
rm -f .exit
trap 'echo $? > .exit.tmp && mv -f .exit.tmp .exit' EXIT
trap 'exit 143' TERM

export OMP_NUM_THREADS=1

# 4 instances side by side, each in its own directory with its own
# ranks from the built-in launcher; the job's status is the first non-zero
# status of an instance in instance order (0 when all succeed).
pids=()
mkdir -p instance-0 && (cd instance-0 && @CAMPAIGN@ launch -n 1 -- /usr/bin/python3 @SRC@/campaigns/../workloads/minicosmo/train.py @SRC@/campaigns/../workloads/minicosmo/configs/cosmo.yaml --data-dir @WORKDIR@/data --n-train 64 --n-valid 32 --n-epochs 4 --instance 0 --target-mae 0.6 --output-dir .) >instance-0/output.log 2>&1 &
pids+=($!)
mkdir -p instance-1 && (cd instance-1 && @CAMPAIGN@ launch -n 1 -- /usr/bin/python3 @SRC@/campaigns/../workloads/minicosmo/train.py @SRC@/campaigns/../workloads/minicosmo/configs/cosmo.yaml --data-dir @WORKDIR@/data --n-train 64 --n-valid 32 --n-epochs 4 --instance 1 --target-mae 0.6 --output-dir .) >instance-1/output.log 2>&1 &
pids+=($!)
mkdir -p instance-2 && (cd instance-2 && @CAMPAIGN@ launch -n 1 -- /usr/bin/python3 @SRC@/campaigns/../workloads/minicosmo/train.py @SRC@/campaigns/../workloads/minicosmo/configs/cosmo.yaml --data-dir @WORKDIR@/data --n-train 64 --n-valid 32 --n-epochs 4 --instance 2 --target-mae 0.6 --output-dir .) >instance-2/output.log 2>&1 &
pids+=($!)
mkdir -p instance-3 && (cd instance-3 && @CAMPAIGN@ launch -n 1 -- /usr/bin/python3 @SRC@/campaigns/../workloads/minicosmo/train.py @SRC@/campaigns/../workloads/minicosmo/configs/cosmo.yaml --data-dir @WORKDIR@/data --n-train 64 --n-valid 32 --n-epochs 4 --instance 3 --target-mae 0.6 --output-dir .) >instance-3/output.log 2>&1 &
pids+=($!)
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || { rc=$?; [ "$status" -ne 0 ] || status=$rc; }
done
exit "$status"
