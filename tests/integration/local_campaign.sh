#!/usr/bin/env bash
# Acceptance 5: the 40-case campaign of the Slurm tests (campaigns/slurm40.yaml, with its staging step)
# runs unchanged with `--system local` on a machine without any scheduler: PATH holds every command of
# this machine except Slurm's and LSF's. Every case completes; the staging step ends before any train
# job starts.
#
# Usage: bash local_campaign.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 40 s on 2 cores)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
check "no Slurm command on the PATH of the run" env PATH="$nopath" bash -c '! command -v sbatch && ! command -v squeue'
wd=$WORK/local40
say "campaign run slurm40 --system local"
env PATH="$nopath" "$CAMPAIGN" run "$SRC/tests/integration/campaigns/slurm40.yaml" --system local --workdir "$wd" -q
check_eq "campaign run exits 0" 0 $?
cases "$wd" >"$WORK/cases.tsv"
check_eq "40 cases" 40 "$(wc -l <"$WORK/cases.tsv")"
check_eq "every case completed at attempt 1" "40 40" \
  "$(awk -F'\t' '$2 == "completed"' "$WORK/cases.tsv" | wc -l) $(awk -F'\t' '$3 == 1' "$WORK/cases.tsv" | wc -l)"
check "the staging step ran (its output exists)" test -s "$wd/staged.txt"
# The staging job's script writes .exit as its last act; every rank of every train job prints when it
# started.
stage_end=$(stat -c %.9Y "$wd/s40-stage/.exit" 2>/dev/null)
first_start=$(cat "$wd"/s40-*-r*/job-*.out 2>/dev/null | awk '/ started / { print $NF }' | sort -g | head -1)
check_eq "every train rank says when it started" 78 "$(cat "$wd"/s40-*-r*/job-*.out | grep -c ' started ')"
check "the staging step ended before the first train job started ($stage_end < $first_start)" \
  awk -v a="$stage_end" -v b="$first_start" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }'
check_eq "a 4-node case ran 4 ranks through the built-in launcher" "0 1 2 3" \
  "$(grep -ho 'rank [0-9] of 4' "$wd"/s40-mc-N4-r1/job-*.out | awk '{ print $2 }' | sort | paste -sd' ')"
check "the system is local in status --json" \
  bash -c "'$CAMPAIGN' status '$wd' --json | grep -q '\"system\": \"local\"'"
check_eq "no job ran twice (one output file per case)" 40 "$(ls "$wd"/*/job-*.out | wc -l)"
