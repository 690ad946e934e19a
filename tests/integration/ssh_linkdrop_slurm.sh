#!/usr/bin/env bash
# Issue 30, nothing runs twice when the link to the login node drops mid-submission: the 40-case
# campaign (campaigns/slurm40.yaml) runs on the Slurm test cluster through a real sshd on 127.0.0.1
# whose `sbatch` is slow, as on a loaded login node (0.3 s before the real one, 0.5 s after it), while
# the sshd processes serving the run are SIGKILLed 0.2-1.0 s after each time it connected (kill_connections:
# the commands they started live on, as after a network failure). A submit command cut off this way may still
# land its job after the run looked for it by name: before the fix, 7 of 200 cases ran twice.
#
# LINKDROP_RUNS times (2 under ctest, to keep the suite short; the README's figure is of 10), each in a fresh work directory: the run
# (and, when it gave up with a clear error, `campaign run` again without kills) ends with every case
# completed at attempt 1, one line of output from each rank of each case (a case run twice would
# have two), one job per case name in sacct (none submitted twice), and nothing of the campaign left
# in the queue.
#
# Usage: bash ssh_linkdrop_slurm.sh CAMPAIGN_BINARY SOURCE_DIR     (labels ssh slow, on the test cluster; 1 to 3 minutes a run)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ssh_lib.sh"
ensure_cluster
runs=${LINKDROP_RUNS:-2}

# The login node's slow sbatch, first in the PATH of the sshd's sessions.
slow=$WORK/slow-bin
mkdir -p "$slow"
printf '#!/bin/sh\nsleep 0.3\n%q "$@"\ns=$?\nsleep 0.5\nexit $s\n' "$(command -v sbatch)" >"$slow/sbatch"
chmod +x "$slow/sbatch"
SSHD_EXTRA_CONFIG="SetEnv SHLVL=1 PATH=$slow:$PATH" start_sshd "$WORK/sshd"
profile=$WORK/ssh-testcluster.yaml
ssh_profile testcluster "$profile" jump=none
file=$SRC/tests/integration/campaigns/slurm40.yaml

total_kills=0
for run in $(seq "$runs"); do
  wd=$WORK/local/run$run
  "$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q >"$WORK/run$run.out" 2>&1 &
  pid=$!
  BG_PIDS+=("$pid")
  kills=0
  deadline=$((SECONDS + 300))
  # A drop 0.2-1.0 s into each link: in CI's load a connection could take most of a fixed interval,
  # and runs then crawled (230 s where 40 s do alone).
  while ((SECONDS < deadline)) && wait_connected "$pid"; do
    sleep "0.$((RANDOM % 9 + 2))"
    kill_connections
    kills=$((kills + 1))
  done
  wait "$pid"
  rc=$?
  BG_PIDS=()
  total_kills=$((total_kills + kills))
  unclear=$(grep -c 'submission outcome unknown' "$wd/campaign.log")
  say "run $run: $kills link kills, $unclear submissions cut off, exit $rc"
  if ((rc != 0)); then
    check_eq "run $run: a run that gives up says why in one line" 1 "$(grep -c '^campaign: ' "$WORK/run$run.out")"
    "$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q
    check_eq "run $run: campaign run again, without kills, exits 0" 0 $?
  fi
  cases "$wd" >"$WORK/cases$run.tsv"
  check_eq "run $run: 40 cases, every one completed at attempt 1" "40 40 40" \
    "$(wc -l <"$WORK/cases$run.tsv") $(awk -F'\t' '$2 == "completed"' "$WORK/cases$run.tsv" | wc -l) \
$(awk -F'\t' '$3 == 1' "$WORK/cases$run.tsv" | wc -l)"
  # Each rank of a training case prints one line; a case that ran twice printed its lines twice.
  twice="" seen=0
  for dir in "$WORK"/remote/slurm40/s40-*-N*-r*; do
    [[ -d $dir ]] || continue
    seen=$((seen + 1))
    nodes=${dir##*-N}
    nodes=${nodes%%-*}
    lines=$(cat "$dir"/*.out 2>/dev/null | grep -c '^rank ')
    ((lines == nodes)) || twice+=" $(basename "$dir"):$lines/$nodes"
  done
  check_eq "run $run: every rank of the 39 training cases printed once" "39 " "$seen $twice"
  prefix=$(prefix_of "$wd")
  wait_sacct_jobs "$prefix" 40  # a duplicate submitted earlier would show by then too (lib.sh)
  sacct_jobs "$prefix" >"$WORK/sacct$run.txt"
  check_eq "run $run: sacct: 40 jobs named $prefix*, no name twice" "40 0" \
    "$(wc -l <"$WORK/sacct$run.txt") $(awk '{ print $2 }' "$WORK/sacct$run.txt" | sort | uniq -d | wc -l)"
  check_eq "run $run: nothing of the campaign left in the queue" 0 \
    "$(squeue -h -a -o '%j' | grep -c "^$prefix")"
  rm -rf "$WORK/remote/slurm40"  # the next run starts on a clean remote work directory
done
say "$runs runs, $total_kills link kills in all"
