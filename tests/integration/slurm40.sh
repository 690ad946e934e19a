#!/usr/bin/env bash
# Acceptance 1: the 40-case campaign (campaigns/slurm40.yaml: -C mc on 1, 2 and 4 nodes, -C gpu on 1
# and 2 nodes, a staging step the others depend on) on the virtual Slurm cluster ends with every case
# completed, and accounting shows exactly 40 jobs of the campaign, one per case, no duplicates.
#
# Usage: bash slurm40.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 40 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

wd=$WORK/slurm40
say "campaign run slurm40 (40 cases)"
"$CAMPAIGN" run "$SRC/tests/integration/campaigns/slurm40.yaml" --workdir "$wd" -q
check_eq "campaign run exits 0" 0 $?

cases "$wd" >"$WORK/cases.tsv"
check_eq "40 cases" 40 "$(wc -l <"$WORK/cases.tsv")"
check_eq "every case completed" 40 "$(awk -F'\t' '$2 == "completed"' "$WORK/cases.tsv" | wc -l)"
check_eq "every case at attempt 1" 40 "$(awk -F'\t' '$3 == 1' "$WORK/cases.tsv" | wc -l)"
check "the staging step ran first (its output exists)" test -s "$wd/staged.txt"

# Geometry: the 4-node mc cases ran on 4 mc nodes, the gpu ones on gpu nodes.
n4=$(grep -l -- '--nodes=4' "$wd"/s40-mc-N4-r*/job.sh | wc -l)
check_eq "eight 4-node mc job scripts" 8 "$n4"
check "mc scripts carry --constraint=mc" grep -q -- '--constraint=mc' "$wd/s40-mc-N4-r1/job.sh"
check "gpu scripts carry --constraint=gpu" grep -q -- '--constraint=gpu' "$wd/s40-gpu-N2-r1/job.sh"
check "gpu jobs ran on gpu nodes" grep -q 'on gn' "$wd/s40-gpu-N1-r1"/slurm-*.out
check_eq "a 4-node mc job ran one rank on each of cn1-cn4" "cn1 cn2 cn3 cn4" \
  "$(grep -ho 'of 4 on cn[0-9]' "$wd/s40-mc-N4-r1"/slurm-*.out | awk '{ print $NF }' | sort | paste -sd' ')"

# Accounting: exactly one job per case, by the names `campaign status --json` reports.
prefix=$(prefix_of "$wd")
wait_sacct_jobs "$prefix" 40
sacct_jobs "$prefix" >"$WORK/sacct.txt"
check_eq "sacct: 40 jobs named $prefix*" 40 "$(wc -l <"$WORK/sacct.txt")"
check_eq "sacct: no duplicate job name" 0 "$(awk '{ print $2 }' "$WORK/sacct.txt" | sort | uniq -d | wc -l)"
check_eq "sacct names = status --json names" "" \
  "$(diff <(awk '{ print $2 }' "$WORK/sacct.txt" | sort) <(cut -f5 "$WORK/cases.tsv" | sort))"
check_eq "sacct: every job COMPLETED" 40 "$(awk '$3 == "COMPLETED"' "$WORK/sacct.txt" | wc -l)"
check_eq "sacct job ids = status --json job ids" "" \
  "$(diff <(awk '{ print $1 }' "$WORK/sacct.txt" | sort) <(cut -f4 "$WORK/cases.tsv" | sort))"

# The dependency: every train job started after the staging job ended.
stage_end=$(sacct -X -n -P -j "$(field "$wd" s40-stage 4)" -o End | head -1)
first_train=$(sacct -X -n -P -j "$(cut -f4 "$WORK/cases.tsv" | grep -v "^$(field "$wd" s40-stage 4)\$" | paste -sd,)" \
  -o Start | sort | head -1)
check "train jobs start after the staging job ended ($first_train >= $stage_end)" \
  test "$first_train" \> "$stage_end" -o "$first_train" == "$stage_end"

# Running again submits nothing.
"$CAMPAIGN" run "$SRC/tests/integration/campaigns/slurm40.yaml" --workdir "$wd" -q
check_eq "a second campaign run exits 0" 0 $?
check_eq "and submits nothing" 40 "$(grep -c 'submitted job' "$wd/campaign.log")"
