#!/usr/bin/env bash
# Issue 30: a full work directory, on the local executor and on the test cluster. The work directory
# is a 3 MB tmpfs and 24 cases each write 120 KB into their run directories (campaigns/diskfull.yaml):
# the disk fills mid-run. `campaign run` must stop (not hang) with exit status 4 and one line naming
# what it could not write and what to do; nothing half-written is left (job records, exit markers,
# the catalog); once the file system grows, `campaign run` and `campaign resume --failed` finish
# every case, each job of an attempt ran once, and no case ran more often than its attempts (on
# Slurm: one sacct job per attempt, no job name twice, each case's state the one sacct holds). On
# the file system turned read-only, `campaign run` exits 4 too, the catalog unchanged.
#
# Needs root (mount); CI runs as root.
# Usage: bash diskfull.sh CAMPAIGN_BINARY SOURCE_DIR local|slurm   (local about 15 s, slurm 1 min)
if ((EUID != 0)); then
  echo "skipped: mounting a small tmpfs needs root"
  exit 77
fi
source "$(dirname "$0")/lib.sh"
system=${3:?local or slurm}
if [[ $system == slurm ]]; then
  ensure_cluster
  args=(--system testcluster)
  path=$PATH
  job_outputs='slurm-*.out'  # one per job: the batch script's output
else
  args=()
  path=$(path_without_slurm)
  job_outputs='job-*.out'
fi
file=$SRC/tests/integration/campaigns/diskfull.yaml
mnt=$WORK/mnt
mkdir -p "$mnt"
mount -t tmpfs -o size=3m tmpfs "$mnt" || {
  bad "cannot mount a tmpfs on $mnt"
  exit 1
}
on_exit "kill_local_jobs; umount -l '$mnt'"
wd=$mnt/wd

say "campaign run with the work directory on a 3 MB tmpfs"
env PATH="$path" timeout 120 "$CAMPAIGN" run "$file" "${args[@]}" --workdir "$wd" -q 2>"$WORK/run1.err"
check_eq "campaign run stops on the full disk with exit status 4" 4 $?
say "stderr: $(cat "$WORK/run1.err")"
check_eq "... with one line" 1 "$(wc -l <"$WORK/run1.err")"
check "... naming what could not be written, why and what to do" grep -Eq \
  "^campaign: cannot write (the catalog )?$wd/.*(No space left on device|database or disk is full).*free space.*campaign run. again" \
  "$WORK/run1.err"
avail=$(df --output=avail "$mnt" | tail -1 | tr -d ' ')
check "the disk is full indeed (${avail} KB left, less than a case writes)" test "$avail" -lt 120

# Nothing half-written: no temporary left by campaign, every record and marker whole.
check_eq "no temporary file of campaign is left" "" "$(find "$wd" -name '*.campaign-tmp-*')"
if [[ $system == local ]]; then
  check "every job record of the executor is whole JSON" /usr/bin/python3 - "$wd/.local/jobs" <<'PY'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*.json")
assert files, "no job records"
for f in files:
    json.load(open(f))
PY
fi
bad_markers=$(find "$wd" -name .exit -exec grep -LEx '[0-9]+' {} +)
check_eq "every exit marker holds a status" "" "$bad_markers"
cases "$wd" >"$WORK/cases1.tsv"
check_eq "the catalog reads: 24 cases" 24 "$(wc -l <"$WORK/cases1.tsv")"
say "after the full disk: $(cut -f2 "$WORK/cases1.tsv" | sort | uniq -c | tr -s ' \n' ' ')"

say "the file system grows; campaign run again"
mount -o remount,size=64m "$mnt"
env PATH="$path" timeout 120 "$CAMPAIGN" run "$file" "${args[@]}" --workdir "$wd" -q 2>"$WORK/run2.err"
rc=$?
check "campaign run finishes (0, or 1 for cases whose own writes failed)" test $rc -eq 0 -o $rc -eq 1
cases "$wd" >"$WORK/cases2.tsv"
failed=$(awk -F'\t' '$2 == "failed"' "$WORK/cases2.tsv" | wc -l)
check_eq "every case ended" 24 "$(awk -F'\t' '$2 == "completed" || $2 == "failed"' "$WORK/cases2.tsv" | wc -l)"
check_eq "each in its first attempt" 24 "$(awk -F'\t' '$3 == 1' "$WORK/cases2.tsv" | wc -l)"
# A case failed only when its job's own writes hit the full disk: its output is short, or it could
# not write its end (the executor says so).
short=0
# awk, not `IFS=$'\t' read`: a tab is whitespace to read, so an empty exit status column would merge
# with its neighbour and shift the reason out of its field.
while IFS=$'\t' read -r name reason; do
  size=$(stat -c %s "$wd/$name/out.bin" 2>/dev/null || echo 0)
  if ((size < 122880)) || [[ $reason == *"could be written (was the disk full?)"* ]]; then
    short=$((short + 1))
  else
    say "$name failed: $reason"
  fi
done < <(awk -F'\t' '$2 == "failed" { print $1 "\t" $7 }' "$WORK/cases2.tsv")
check_eq "each failed case failed for want of room (its output short, or its end unwritten)" "$failed" "$short"
say "$failed cases had failed for want of room"

if ((failed > 0)); then
  env PATH="$path" timeout 120 "$CAMPAIGN" resume "$file" "${args[@]}" --workdir "$wd" --failed -q
  check_eq "campaign resume --failed exits 0" 0 $?
fi
cases "$wd" >"$WORK/cases3.tsv"
check_eq "every case completed" 24 "$(awk -F'\t' '$2 == "completed"' "$WORK/cases3.tsv" | wc -l)"
check_eq "every output whole" 24 "$(find "$wd" -name out.bin -size 122880c | wc -l)"
# Nothing ran twice: one job (output file) per attempt, one attempt per case unless it failed.
dup=0
while IFS=$'\t' read -r name state attempt _; do
  jobs=$(find "$wd/$name" -maxdepth 1 -name "$job_outputs" | wc -l)
  ((jobs == attempt)) || dup=$((dup + 1))
done <"$WORK/cases3.tsv"
check_eq "one job per attempt in every run directory" 0 "$dup"
check_eq "attempts: 24 + the failed ones" $((24 + failed)) "$(awk -F'\t' '{ n += $3 } END { print n }' "$WORK/cases3.tsv")"
if [[ $system == local ]]; then
  check_eq "the executor ran as many jobs as there are attempts" $((24 + failed)) \
    "$(find "$wd/.local/jobs" -name '*.json' | wc -l)"
else
  prefix=$(prefix_of "$wd")
  wait_sacct_jobs "$prefix" $((24 + failed))
  sacct_jobs "$prefix" >"$WORK/sacct.txt"
  check_eq "sacct: as many jobs as there are attempts" $((24 + failed)) "$(wc -l <"$WORK/sacct.txt")"
  check_eq "sacct: no job name twice" "" "$(awk '{ print $2 }' "$WORK/sacct.txt" | sort | uniq -d)"
  # Each case's latest attempt: the catalog's state is the one sacct holds for its job.
  mismatched=$(awk -F'\t' '{ print $4, toupper($2) }' "$WORK/cases3.tsv" | while read -r job state; do
    grep -q "^$job [^ ]* $state" "$WORK/sacct.txt" || echo "$job:$state"
  done)
  check_eq "sacct: every case's job ended as the catalog says" "" "$mismatched"
fi

say "the file system turns read-only"
cp "$wd/campaign.db" "$WORK/before-ro.db"
mount -o remount,ro "$mnt"
env PATH="$path" timeout 60 "$CAMPAIGN" run "$file" "${args[@]}" --workdir "$wd" -q 2>"$WORK/run-ro.err"
check_eq "campaign run on it exits 4" 4 $?
check "... with one line saying so and what to do" eval \
  "[[ \$(wc -l <'$WORK/run-ro.err') == 1 ]] && grep -q '^campaign: cannot write $wd/.*Read-only file system: make that file system writable' '$WORK/run-ro.err'"
check "... and the catalog is unchanged" cmp -s "$WORK/before-ro.db" "$wd/campaign.db"
mount -o remount,rw "$mnt"
