#!/usr/bin/env bash
# `campaign status` moves while `run` drives a job on a real Slurm (issue 33 item 2): with `run` going
# in the background, a case whose job waits for a gate file is running; `status --json`, and
# `status --refresh` (which had printed no case at all: the run holds the catalog; now it says so and
# shows what the run recorded), show its elapsed time counted on from its start, twice a few seconds apart, each within 2 s of the elapsed time squeue prints for the job.
# Then the gate opens and `run` finishes the campaign with the one job, once, in accounting.
#
# Usage: bash status_look_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 20 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

wd=$WORK/look
file=$WORK/look.yaml
cat >"$file" <<YAML
name: look
system: testcluster
matrix:
  n: [1]
case_name: look-{{n}}
job:
  partition: mc
  walltime: 5m
  launch: false
  command: "for i in \$(seq 1200); do [ -e $WORK/gate ] && exit 0; sleep 0.1; done; exit 1"
YAML
# seconds TEXT: squeue's elapsed ([D-][H:]M:SS) in seconds.
seconds() { awk -v t="$1" 'BEGIN { d = 0; if (split(t, a, "-") == 2) { d = a[1]; t = a[2] }
  n = split(t, f, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + f[i]; print d * 86400 + s }'; }
# shown_elapsed [--refresh]: the elapsed seconds `status --json` shows for look-1.
shown_elapsed() {
  "$CAMPAIGN" status "$file" --workdir "$wd" --json "$@" 2>>"$WORK/stderr.txt" | /usr/bin/python3 -c 'import json, sys
print(next((k.get("elapsed_s", "") for c in json.load(sys.stdin) for k in c["cases"] if k["case"] == "look-1"), ""))'
}

"$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt" &
run_pid=$!
BG_PIDS+=("$run_pid")
running() { [[ $(field "$wd" look-1 2) == running && -n $(squeue -h -j "$(field "$wd" look-1 4)" -t R -o %i 2>/dev/null) ]]; }
check "the case's job runs on the cluster while run waits for it" wait_until 60 running
job=$(field "$wd" look-1 4)

for round in 1 2; do
  sleep 3
  for how in plain refresh; do
    if [[ $how == refresh ]]; then shown=$(shown_elapsed --refresh); else shown=$(shown_elapsed); fi
    squeue_s=$(seconds "$(squeue -h -j "$job" -o %M)")
    check "status ($how) shows look-1's elapsed time ($shown s) within 2 s of squeue's ($squeue_s s), look $round" \
      test "${shown:--99}" -ge $((squeue_s - 2)) -a "${shown:-99}" -le $((squeue_s + 2))
  done
done

check "status --refresh says that the run holds the catalog and asks the scheduler itself" \
  grep -q "is in use by pid $run_pid.*not refreshed: that run asks the scheduler itself" "$WORK/stderr.txt"

touch "$WORK/gate"
wait "$run_pid"
check_eq "run finishes the campaign" 0 $?
check_eq "look-1 completed" completed "$(field "$wd" look-1 2)"
check_eq "its job ran once (accounting)" 1 "$(records "$job" | awk -F'|' '$1 !~ /\./' | wc -l)"
