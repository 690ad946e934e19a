#!/usr/bin/env bash
# Ctrl-C and SIGTERM stop the orchestrator, not the jobs: `campaign run` gets SIGINT while its jobs
# run and exits 130 with a consistent catalog (every submitted case still queued or running with its
# job id, nothing lost or failed); the jobs that ran at the signal go on and finish while no
# orchestrator runs (each job writes its start and its end, with times, to runs.txt); `campaign run`
# again adopts their ends without submitting anything twice. Then the same with SIGTERM.
#
# Usage: bash interrupt.sh CAMPAIGN_BINARY SOURCE_DIR local|slurm       (about 30 s)
source "$(dirname "$0")/lib.sh"
system=${3:?local or slurm}

wd=$WORK/interrupt
file=$WORK/interrupt.yaml
# 4 jobs of 6 s; each appends "NAME start TIME" to runs.txt when it starts and "NAME end TIME" when
# it ends (Unix seconds).
cat >"$file" <<YAML
name: interrupt
system: $([[ $system == slurm ]] && echo testcluster || echo local)
matrix:
  repeat: 4
case_name: int-r{{repeat}}
job:
  nodes: 1
  ranks_per_node: 1
  cpus_per_rank: 1
  walltime: 5m
  launch: false
  command: "n=\$CAMPAIGN_JOB_NAME\${SLURM_JOB_NAME:-}; echo \$n start \$(date +%s.%N) >> ../runs.txt; sleep 6; echo \$n end \$(date +%s.%N) >> ../runs.txt"
YAML
if [[ $system == slurm ]]; then
  ensure_cluster
  envpath=$PATH
else
  envpath=$(path_without_slurm)
fi

for sig in INT TERM; do
  rm -rf "$wd"
  env PATH="$envpath" "$CAMPAIGN" run "$file" --workdir "$wd" >"$WORK/out-$sig.txt" 2>&1 &
  pid=$!
  BG_PIDS+=("$pid")
  two_running() { (($(cases "$wd" | awk -F'\t' '$2 == "running"' | wc -l) >= 2)); }
  wait_until 30 two_running || bad "SIG$sig: two jobs never ran"
  kill -s "$sig" "$pid"
  stopped=$(date +%s.%N)
  wait "$pid"
  rc=$?
  BG_PIDS=()
  check_eq "SIG$sig: campaign run exits 130" 130 "$rc"
  check "SIG$sig: it says the jobs keep running" grep -q "jobs keep running" "$wd/campaign.log"
  active=$(cases "$wd" | awk -F'\t' '($2 == "running" || $2 == "queued") && $4 != ""' | wc -l)
  check "SIG$sig: the catalog still holds the running jobs with their ids ($active)" test "$active" -ge 2
  check_eq "SIG$sig: nothing failed, lost or cancelled" 0 \
    "$(cases "$wd" | awk -F'\t' '$2 ~ /failed|lost|cancelled/' | wc -l)"
  # The jobs that ran at the signal (started before it, not ended before it) went on without the
  # orchestrator and ended after it.
  running_at_stop=$(awk -v t="$stopped" '$3 < t { if ($2 == "start") s[$1] = 1; else e[$1] = 1 }
    END { for (n in s) if (!(n in e)) print n }' "$wd/runs.txt" | sort)
  ended_after_stop() { awk -v t="$stopped" '$2 == "end" && $3 > t { print $1 }' "$wd/runs.txt" | sort -u; }
  all_ended() { [[ -z $(comm -23 <(echo "$running_at_stop") <(ended_after_stop)) ]]; }
  wait_until 20 all_ended
  check "SIG$sig: jobs ran at the signal ($(echo $running_at_stop))" test "$(wc -w <<<"$running_at_stop")" -ge 2
  check_eq "SIG$sig: ... and ended after it, with no orchestrator running" \
    "$(echo $running_at_stop)" "$(echo $(comm -12 <(echo "$running_at_stop") <(ended_after_stop)))"
  env PATH="$envpath" "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
  check_eq "SIG$sig: campaign run again exits 0" 0 $?
  check_eq "SIG$sig: every case completed at attempt 1" "4 4" \
    "$(count_state "$wd" completed) $(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"
  check_eq "SIG$sig: every job ran exactly once" "4 0" \
    "$(awk '$2 == "start" { print $1 }' "$wd/runs.txt" | sort -u | wc -l) \
$(awk '$2 == "start" { print $1 }' "$wd/runs.txt" | sort | uniq -d | wc -l)"
done
