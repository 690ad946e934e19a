#!/usr/bin/env bash
# Benchmark of `campaign run` against the virtual Slurm cluster (tests/slurm/start-cluster.sh; started
# here when sinfo does not answer; as root).
#
# Usage: bash bench/slurm_bench.sh CAMPAIGN_BINARY [SOURCE_DIR] [--quick]
#
# Two campaigns, each in a fresh temporary work directory:
#   80 jobs    40 cases x (-C mc, -C gpu), one whole node each, `srun sleep 2`
#   1000 jobs  500 cases x (-C mc, -C gpu), one core each (4 jobs per node), `sleep 0`  (skipped by --quick)
# and for each, printed:
#   cpu/job       CPU time of the `campaign` process itself (user + system), children (sbatch, squeue,
#                 ...) excluded, divided by the jobs. Read from /proc/PID/stat (utime, stime) after the
#                 process has exited but before it is reaped (waitid WNOWAIT), so nothing is missed and
#                 nothing of the children is counted (those are in cutime/cstime).
#   queries/s     squeue + sacct + scontrol calls per second of the run, from PATH wrappers that log each
#                 call (the wrappers add about 3 ms per call; they use no subprocess). calls/s adds sbatch
#                 (one per job, unavoidable) and scancel.
#   submit        seconds from the start of `campaign run` to the last "submitted job" line of its log,
#                 and from the first to the last submission.
#   notice        delay from a job's end to its `completed` record: the log line's time (ms) minus the
#                 job's exit-marker mtime (ns; written by the job script as its last act), median and
#                 p90; and the same against sacct's End (whole seconds, so up to 1 s more).
#   makespan      first sacct Start to last sacct End of the campaign's jobs, and the wall time of
#                 `campaign run` less that (the time it spends before the first job starts and after the
#                 last one ends: submission, confirming the last completions from accounting).
#   loop          (80 jobs) the same job scripts submitted again by a plain sbatch loop, interleaved
#                 (mc, gpu, mc, ...), waited for with squeue: its makespan, and campaign's / the loop's.
# Targets (80 jobs): cpu/job <= 2 ms, queries/s <= 0.5, submit <= 2 s, notice median <= 0.5 s,
# p90 <= 1.5 s, makespan <= 1.05 x the loop's, wall - makespan <= 2 s: one TARGET line each at the end.
# 1000 jobs (twice the test cluster's max_queued_jobs, 500): the last submission waits for room in
# the queue, the site's limit; from the end that made room (sacct End of the 500th job to end) to
# the last submission <= 2 s, ours.
# A campaign run that fails (exit status, a case not completed, accounting without every job) gets no
# figures: FAILED, its targets "not measured", exit status 1.
SCRIPT_OPTIONS="--quick" source "$(dirname "$0")/../tools/usage.sh" "$@"
set -uo pipefail

CAMPAIGN=$(readlink -f "$1")
shift
SRC=$(readlink -f "$(dirname "$0")/..")
if [[ $# -gt 0 && $1 != --* ]]; then
  SRC=$(readlink -f "$1")
  shift
fi
QUICK=0
[[ ${1:-} == --quick ]] && QUICK=1
source "$SRC/bench/lib.sh"
bench_setup

write_campaign() {  # NAME REPEAT CPUS COMMAND
  cat >"$WORK/$1.yaml" <<EOF
name: $1
system: testcluster
matrix:
  partition: [mc, gpu]
  repeat: $2
case_name: $1-{{partition}}-r{{repeat}}
job:
  partition: "{{partition}}"
  nodes: 1
  ranks_per_node: 1
  cpus_per_rank: $3
  walltime: 5m
  command: "$4"
EOF
}

# wait_ended IDS N: waits (at most 120 s) until accounting has an End for N of the jobs IDS (comma
# separated): it lags behind the jobs' ends. False when it never has.
wait_ended() {
  local deadline=$((SECONDS + 120))
  until (($(sacct -X -n -P -j "$1" -o End 2>/dev/null | grep -cv '^Unknown$') >= $2)); do
    ((SECONDS < deadline)) || return 1
    sleep 1
  done
}

# run_campaign NAME JOBS: runs it; prints the figures (and writes them to WORK/NAME.fig) when every
# job completed.
run_campaign() {
  local name=$1 jobs=$2 wd=$WORK/$1
  echo "== $name: $jobs jobs"
  measured_run "$WORK/calls-$name" run "$WORK/$name.yaml" --workdir "$wd" -q >"$WORK/$name.cpu"
  read -r utime stime cutime cstime rc wall <"$WORK/$name.cpu"
  [[ $rc == 0 ]] || { fail "campaign run of $name exited $rc"; return 1; }
  local done
  done=$(completed "$wd")
  [[ $done == "$jobs" ]] || { fail "$name: $done of $jobs cases completed"; return 1; }
  # Job ends: sacct End and the marker's mtime, by job name; completions from the log.
  local ids
  ids=$("$CAMPAIGN" status "$wd" --json | python3 -c '
import json, sys
print(",".join(k["job_id"] for c in json.load(sys.stdin) for k in c["cases"]))')
  wait_ended "$ids" "$jobs" || { fail "$name: accounting has no end for some of its $jobs jobs after 120 s"; return 1; }
  sacct -X -n -P -j "$ids" -o JobName,End,Start >"$WORK/$name.sacct"
  QUEUE_LIMIT=$(awk '/max_queued_jobs:/ { print $2 }' "$SRC/systems/testcluster.yaml") \
    python3 - "$wd" "$WORK/calls-$name" "$WORK/$name.sacct" "$jobs" "$utime" "$stime" "$cutime" "$cstime" "$wall" \
    "$WORK/$name.fig" <<'EOF'
import datetime, glob, json, os, re, statistics, sys
wd, calls_log, sacct, jobs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
utime, stime, cutime, cstime, wall = map(float, sys.argv[5:10])
figures = open(sys.argv[10], "w")
def fig(key, value): figures.write(f"{key} {value}\n")
def ts(line):  # "[2026-11-22 06:43:03.565] ..." -> epoch seconds
    return datetime.datetime.strptime(line[1:24], "%Y-%m-%d %H:%M:%S.%f").timestamp()
start = None; first_sub = last_sub = None; done = {}
for line in open(os.path.join(wd, "campaign.log")):
    if start is None and " on testcluster" in line: start = ts(line)
    m = re.search(r"\] (\S+): (submitted job|job \S+ completed)", line)
    if not m: continue
    if m.group(2) == "submitted job":
        first_sub = first_sub or ts(line); last_sub = ts(line)
    else:
        done.setdefault(m.group(1), ts(line))
end = max(done.values())
calls = [l.split()[:2] for l in open(calls_log)]
queries = sum(1 for _, c in calls if c in ("squeue", "sacct", "scontrol"))
by_cmd = {c: sum(1 for _, x in calls if x == c) for c in ("squeue", "sacct", "scontrol", "sbatch", "scancel")}
duration = end - start
delay_marker, delay_sacct = [], []
rows = [l.strip().split("|") for l in open(sacct) if "|" in l]
ends = {r[0]: r[1] for r in rows}
def epoch(s): return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp()
starts = [epoch(r[2]) for r in rows if r[2] not in ("Unknown", "None", "")]
finishes = [epoch(r[1]) for r in rows if r[1] not in ("Unknown", "")]
makespan = max(finishes) - min(starts)
for case, t in done.items():
    marker = os.path.join(wd, case, ".exit")
    delay_marker.append(t - os.stat(marker).st_mtime)
# sacct End by job name -> case: job names are cmpXXXXXX-<case>-aN
for name, e in ends.items():
    case = re.sub(r"^cmp[0-9a-f]+-(.*)-a\d+$", r"\1", name)
    if case in done and e not in ("Unknown", ""):
        delay_sacct.append(done[case] - datetime.datetime.strptime(e, "%Y-%m-%dT%H:%M:%S").timestamp())
def q(v, p): v = sorted(v); return v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
print(f"  duration         {duration:.1f} s (start of run to last completion), {len(done)} completed")
fig("cpu_per_job_ms", (utime + stime) / jobs * 1000)
fig("queries_per_s", queries / duration)
fig("submit_s", last_sub - start)
fig("notice_median_s", statistics.median(delay_marker))
fig("notice_p90_s", q(delay_marker, 0.9))
fig("makespan_s", makespan)
fig("wall_minus_makespan_s", wall - makespan)
# The site's bound on the last submission: with more jobs than the profile's max_queued_jobs, the
# last one fits in the queue only once jobs - limit of the others have ended (sacct End, whole
# seconds: up to 1 s early). What comes after that moment is ours: noticing the end, submitting.
limit = int(os.environ.get("QUEUE_LIMIT") or 0)
if limit and jobs > limit and len(finishes) == jobs:
    room = sorted(finishes)[jobs - limit - 1]
    fig("submit_after_room_s", last_sub - room)
print(f"  cpu/job          {(utime + stime) / jobs * 1000:.2f} ms (campaign process: user {utime:.2f} s + system {stime:.2f} s;"
      f" its children: {cutime + cstime:.2f} s)")
print(f"  queries/s        {queries / duration:.2f} ({by_cmd['squeue']} squeue, {by_cmd['sacct']} sacct, {by_cmd['scontrol']} scontrol)")
print(f"  calls/s          {len(calls) / duration:.2f} (with {by_cmd['sbatch']} sbatch, {by_cmd['scancel']} scancel)")
print(f"  submit           {last_sub - start:.2f} s from the start of the run to the last submission"
      f" ({last_sub - first_sub:.2f} s first to last)")
print(f"  notice (marker)  median {statistics.median(delay_marker):.3f} s, p90 {q(delay_marker, 0.9):.3f} s,"
      f" max {max(delay_marker):.3f} s")
if delay_sacct:
    print(f"  notice (sacct)   median {statistics.median(delay_sacct):.3f} s, p90 {q(delay_sacct, 0.9):.3f} s"
          f" (End has whole seconds: up to 1 s more than the true delay)")
print(f"  makespan         {makespan:.0f} s (first sacct Start to last End); wall of campaign run {wall:.1f} s,"
      f" wall - makespan {wall - makespan:.1f} s")
if limit and jobs > limit and len(finishes) == jobs:
    print(f"  queue limit      {limit} jobs: the last job had room {room - start:.1f} s after the start (the"
          f" {jobs - limit}th end), its submission {last_sub - room:.2f} s after that")
EOF
}

# loop NAME: the campaign's job scripts again, by a plain sbatch loop interleaving the partitions
# (r1 mc, r1 gpu, r2 mc, ...), waited for with squeue; prints its makespan beside campaign's and
# writes the ratio to WORK/NAME.fig.
loop() {
  local name=$1 wd=$WORK/$1 ids=() d r p list id
  echo "== $name: the same scripts by a plain interleaved sbatch loop"
  for r in $(ls "$wd" | sed -n "s/^$name-[a-z]*-r\([0-9]*\)$/\1/p" | sort -un); do
    for p in mc gpu; do
      d=$wd/$name-$p-r$r
      [[ -f $d/job.sh ]] || continue
      rm -f "$d"/.claimed-*  # campaign's own job claimed the attempt; the loop's runs it again (as prepare clears)
      id=$(sbatch --parsable --chdir "$d" "$d/job.sh") || { fail "the loop's sbatch of $d/job.sh"; return 1; }
      ids+=("$id")
    done
  done
  list=$(IFS=,; echo "${ids[*]}")
  while [[ -n $(squeue -h -j "$list" -o %A 2>/dev/null) ]]; do sleep 0.5; done
  wait_ended "$list" "${#ids[@]}" || { fail "the loop: accounting has no end for some of its jobs after 120 s"; return 1; }
  local states
  states=$(sacct -X -n -P -j "$list" -o State 2>/dev/null | sort | uniq -c | paste -sd' ')
  [[ $states =~ ^\ *${#ids[@]}\ COMPLETED$ ]] || { fail "the loop's jobs: $states"; return 1; }
  python3 - "$list" "$(figure "$WORK/$name.fig" makespan_s)" "$WORK/$name.fig" <<'EOF'
import datetime, subprocess, sys
out = subprocess.run(["sacct", "-X", "-n", "-P", "-j", sys.argv[1], "-o", "Start,End"], capture_output=True,
                     text=True).stdout
def epoch(s): return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp()
rows = [l.split("|") for l in out.split()]
makespan = max(epoch(e) for _, e in rows) - min(epoch(s) for s, _ in rows)
ours = float(sys.argv[2])
print(f"  makespan         {makespan:.0f} s for {len(rows)} jobs; campaign's / the loop's: {ours / makespan:.3f}")
open(sys.argv[3], "a").write(f"makespan_vs_loop {ours / makespan}\n")
EOF
}

write_campaign bench80 40 4 "sleep 2"
run_campaign bench80 80 && loop bench80
if ((QUICK == 0)); then
  write_campaign bench1000 500 1 "sleep 0"
  sed -i 's/^  command: .*/&\n  launch: false/' "$WORK/bench1000.yaml"
  run_campaign bench1000 1000
fi

f=$WORK/bench80.fig
echo "== targets (80 jobs)"
target "cpu per job (the campaign process)" "$(figure "$f" cpu_per_job_ms)" "<=" 2 ms
target "scheduler queries per second" "$(figure "$f" queries_per_s)" "<=" 0.5 "/s"
target "time to the last submission" "$(figure "$f" submit_s)" "<=" 2 s
target "notice of a job's end, median" "$(figure "$f" notice_median_s)" "<=" 0.5 s
target "notice of a job's end, p90" "$(figure "$f" notice_p90_s)" "<=" 1.5 s
target "makespan, campaign's / a plain sbatch loop's" "$(figure "$f" makespan_vs_loop)" "<=" 1.05 x
target "wall time of campaign run less the makespan" "$(figure "$f" wall_minus_makespan_s)" "<=" 2 s
if ((QUICK == 0)); then
  f=$WORK/bench1000.fig
  echo "== targets (1000 jobs, twice the test cluster's queue limit)"
  target "last submission after the queue limit had room for it" "$(figure "$f" submit_after_room_s)" "<=" 2 s
fi
exit "$FAILED"
