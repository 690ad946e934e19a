#!/usr/bin/env bash
# Issue 21: packed runs, job arrays and `sample:` over ssh, against the real Slurm test cluster, driven
# from "the laptop" through a real sshd and a jump host on 127.0.0.1 (the way users reach Daint or
# Perlmutter). Scripts, manifests and index files go through the workspace; start markers are read
# through it.
#  - campaigns/packsub.yaml (32 one-core cases packed in one allocation of 4 nodes): the run dies
#    between its allocation's sbatch and the catalog's commit of its job id; the next run adopts it. Every case completed once,
#    at attempt 1: one allocation and 32 steps in accounting, each case's output in its remote run
#    directory and mirrored locally.
#  - campaigns/arraycrash.yaml (40 cases as job arrays, throttle 8; its last case waits for a release
#    file): killed with SIGKILL once while tasks run, then run again. Every case completed at
#    attempt 1, each task once in accounting.
#  - `sample:` on Slurm over ssh: each job's utilisation file, written remotely by the remote
#    campaign's sampler, is mirrored locally.
#
# Usage: bash ssh_modes_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (labels ssh, slurm; about 60 s)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ssh_lib.sh"
ensure_cluster

start_sshd "$WORK/sshd"
profile=$WORK/ssh-testcluster.yaml
ssh_profile testcluster "$profile"

# kill_once_after WORKDIR PATTERN CMD...: runs CMD in the background, kills it with SIGKILL once
# WORKDIR/campaign.log holds PATTERN (a check: at most 60 s), and leaves its exit status in KILLED_RC.
kill_once_after() {
  local wd=$1 pattern=$2 pid
  shift 2
  "$@" &
  pid=$!
  BG_PIDS+=("$pid")
  check "$(basename "$wd"): the log says '$pattern' before the kill" wait_until 60 grep -qs "$pattern" "$wd/campaign.log"
  kill -9 "$pid" 2>/dev/null
  { wait "$pid"; } 2>/dev/null
  KILLED_RC=$?
  BG_PIDS=()
}

# Packed.
file=$SRC/tests/integration/campaigns/packsub.yaml
wd=$WORK/local/packsub rd=$WORK/remote/packsub
say "packsub (32 cases, one allocation) over ssh + jump host, killed between its allocation's sbatch and the catalog commit"
# The crash point between the scheduler's answer and the commit of the job id (as kill -9 there
# would): the window in which only the job's name, and the submit command's record on the login
# node, say that the allocation exists.
env CAMPAIGN_TEST_CRASH=after_submit:1 "$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q \
  2>>"$WORK/stderr.txt"
check_eq "packsub: the first run died between sbatch and the commit" 137 $?
check_eq "packsub: its allocation was left submitting" 32 "$(count_state "$wd" submitting)"
"$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "packsub: the second run exits 0" 0 $?
check_eq "packsub: 32 cases completed, all at attempt 1" "32 32" \
  "$(count_state "$wd" completed) $(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"
check_eq "packsub: no allocation submitted again, the first adopted for its 32 cases" "0 32" \
  "$(grep -c 'submitted job' "$wd/campaign.log") $(grep -c 'adopting job' "$wd/campaign.log")"
alloc=$(cases "$wd" | cut -f4 | sort -u)
check_eq "packsub: every case ran in that allocation" 1 "$(wc -l <<<"$alloc")"
pprefix=$(prefix_of "$wd")
wait_sacct_jobs "$pprefix" 1
check_eq "packsub: accounting has that one allocation of the campaign, no other" "$alloc" \
  "$(sacct_jobs "$pprefix" | awk '{ print $1 }' | paste -sd' ')"
check "packsub: the allocation's manifest was written remotely" test -s "$(ls "$rd"/.alloc/*/manifest.json 2>/dev/null | head -1)"
steps() { sacct -n -P -j "$alloc" -o JobID,State 2>/dev/null | awk -F'|' '$1 ~ /\.[0-9]+$/' | ended_records; }
wait_accounting 32 steps
check_eq "packsub: 32 ended steps in accounting, each completed" "32 32" \
  "$(steps | wc -l) $(steps | grep -c '|COMPLETED')"
check_eq "packsub: each case's exit marker remotely" 32 "$(ls "$rd"/sub-r*/.exit 2>/dev/null | wc -l)"
check_eq "packsub: and mirrored locally" 32 "$(ls "$wd"/sub-r*/.exit 2>/dev/null | wc -l)"

# Arrays.
file=$SRC/tests/integration/campaigns/arraycrash.yaml
wd=$WORK/local/arraycrash rd=$WORK/remote/arraycrash
say "arraycrash (40 cases as arrays, throttle 8) over ssh + jump host, killed once while tasks run"
kill_once_after "$wd" "submitted job" "$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q
check_eq "arraycrash: the first run died of SIGKILL" 137 "$KILLED_RC"
mkdir -p "$rd" && touch "$rd/release"
"$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "arraycrash: the second run exits 0" 0 $?
check_eq "arraycrash: 40 cases completed, all at attempt 1" "40 40" \
  "$(count_state "$wd" completed) $(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"
prefix=$(prefix_of "$wd")
tasks() { sacct -n -P -a -S "$TEST_START" -E now -o JobID,JobName,State 2>/dev/null | awk -F'|' -v p="$prefix" 'index($2, p) == 1 && $1 ~ /_[0-9]+$/' | ended_records; }
wait_accounting 40 tasks
check_eq "arraycrash: 40 tasks in accounting, no task twice" "40 0" \
  "$(tasks | wc -l) $(tasks | cut -d'|' -f1 | sort | uniq -d | wc -l)"
check "arraycrash: the arrays' index files were written remotely" test -s "$(ls "$rd"/.alloc/*/index 2>/dev/null | head -1)"
check_eq "arraycrash: each case's output mirrored locally" 40 "$(ls "$wd"/ac-r*/.exit 2>/dev/null | wc -l)"

# sample:
mkdir -p "$WORK/camp"
cat >"$WORK/camp/sampled.yaml" <<'YAML'
name: sampled
matrix:
  n: [1, 2]
case_name: sampled-{{n}}
job:
  partition: mc
  nodes: 1
  walltime: 2m
  launch: false
  sample: {interval: 0.2, gpu: off}
  command: "end=$((SECONDS + 2)); while [ $SECONDS -lt $end ]; do :; done"
collectors: []
YAML
wd=$WORK/local/sampled rd=$WORK/remote/sampled
say "a sampled campaign (2 jobs) on Slurm over ssh + jump host"
"$CAMPAIGN" run "$WORK/camp/sampled.yaml" --system "$profile" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "sampled: the run exits 0" 0 $?
for c in sampled-1 sampled-2; do
  remote=$(ls "$rd/$c"/utilisation-*.csv 2>/dev/null | head -1)
  check "$c: the remote sampler wrote its file" test -s "$remote"
  # How many rows a 1-2 s job gets at 0.2 s depends on the machine's load; one (the stop's) it always has.
  check "$c: cpu rows" test "$(grep -c ',cpu,' "$remote" 2>/dev/null)" -ge 1
  check_eq "$c: mirrored locally, the same rows" "$(cat "$remote" 2>/dev/null | wc -l)" \
    "$(cat "$wd/$c/$(basename "${remote:-none}")" 2>/dev/null | wc -l)"
done
if [[ -s $WORK/stderr.txt ]]; then say "stderr:"; head -5 "$WORK/stderr.txt"; fi
