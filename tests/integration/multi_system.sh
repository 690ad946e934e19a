#!/usr/bin/env bash
# Issue 34, one campaign across two systems at once: the same weak-scaling sweep on `local` and on the
# Slurm test cluster reached through a real sshd on 127.0.0.1, one catalog, one report comparing them.
#  1. `run` dies at its third submission (CAMPAIGN_TEST_CRASH, as kill -9 there), is killed -9 twice
#     more at random moments, and run again: every case ends completed once at attempt 1 on each side
#     (each job appends its name to its side's runs.txt; sacct holds one job per remote case name),
#     the run directories are on each side, and the report has the comparison and ratio of the two.
#  2. The link lost mid-run (the cluster's side as one job array, each system in its own mode): the
#     login node's sshd stops accepting (SIGSTOP) and its connections are cut, so the remote side
#     cannot reach Slurm; the local side still runs all its cases to the end meanwhile; once sshd goes
#     on, the remote side reconnects (the log says so) and the run ends with every case once.
#     A login node that refuses connections when `run` starts: the local side runs every case, `run`
#     names the system it could not reach and exits 1.
#  3. References: `reference set --from` writes bounds the same run passes (report exits 0); a value
#     outside its band makes report, run and history (local's part) exit 3 and say which value left
#     which band; the site keeps the systems apart and shows the band and the newest value against it.
#
# Usage: bash multi_system.sh CAMPAIGN_BINARY SOURCE_DIR        (labels ssh slurm; about 2 minutes)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ssh_lib.sh"
ensure_cluster

start_sshd "$WORK/sshd"
profile=$WORK/ssh-testcluster.yaml
ssh_profile testcluster "$profile" jump=none
remote=ssh-testcluster

mkdir -p "$WORK/camp/collectors"
cat >"$WORK/camp/collectors/epochs.yaml" <<'YAML'
name: epochs
sources:
  - {engine: csv, file: epochs.csv, metrics: [epoch_time]}
YAML
# campaign NAME SECONDS [YAML]: the sweep, each case SECONDS long, on both systems; YAML added at the end.
campaign() {
  cat >"$WORK/camp/$1.yaml" <<YAML
name: $1
system: [local, $profile]
matrix:
  n: [1, 2, 4]
  data: [real, dummy]
case_name: w-{{data}}-n{{n}}
params: {seconds: $2}
job:
  partition: cpu
  ranks: n
  cpus_per_rank: 1
  oversubscribe: true
  launch: false
  walltime: 5m
  command: >-
    echo \$PWD >> ../runs.txt; sleep {{seconds}};
    printf 'epoch,epoch_time\n0,9\n1,%s\n2,%s\n' {{n}} {{n}} > epochs.csv
collectors: [epochs]
analyses:
  - name: weak
    scaling: weak
    x: n
    time: {metric: epoch_time}
    samples: 100 * n
    group_by: [data]
    compare: {axis: system, baseline: local}
    ratio: {axis: system, numerator: $remote, denominator: local}
${3:-}
YAML
}
campaign multisys 1
file=$WORK/camp/multisys.yaml
wd=$WORK/multi
rd=$WORK/remote/multisys@$remote

"$CAMPAIGN" plan "$file" -q >"$WORK/plan.txt" 2>&1
check_eq "plan exits 0" 0 $?
check "plan: local's cases and node-hours" grep -q '^local: 6 cases in 1 step, .* node-hours requested' "$WORK/plan.txt"
check "plan: the cluster's apart" grep -q "^$remote: 6 cases in 1 step, .* node-hours requested" "$WORK/plan.txt"
check "plan: and summed" grep -q '^all 2 systems: 12 cases, .* node-hours requested' "$WORK/plan.txt"

say "run, killed at its third submission, then twice at random, then to the end"
CAMPAIGN_TEST_CRASH=after_submit:3 "$CAMPAIGN" run "$file" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "the run died at its third submission" 137 $?
kill_runs 2 1 2 "$CAMPAIGN" run "$file" --workdir "$wd" -q
"$CAMPAIGN" run "$file" --workdir "$wd" >"$WORK/run.out" 2>&1
check_eq "campaign run again exits 0" 0 $?
check "it says each system's end" grep -q "^local: done: 6 cases succeeded" "$WORK/run.out"
check "... the cluster's too" grep -q "^$remote: done: 6 cases succeeded" "$WORK/run.out"

"$CAMPAIGN" status "$wd" --json >"$WORK/status.json"
per_side() {  # per_side CAMPAIGN: "cases collected attempt1" of that system's part
  /usr/bin/python3 -c '
import json, sys
for c in json.load(open(sys.argv[1])):
    if c["campaign"] == sys.argv[2]:
        k = c["cases"]
        print(len(k), sum(x["state"] == "collected" for x in k), sum(x["attempt"] == 1 for x in k))' \
    "$WORK/status.json" "$1"
}
check_eq "local: 6 cases collected at attempt 1" "6 6 6" "$(per_side multisys@local)"
check_eq "cluster: 6 cases collected at attempt 1" "6 6 6" "$(per_side "multisys@$remote")"
check_eq "local: each case ran once, in its own run directory" "6 0" \
  "$(wc -l <"$wd/local/runs.txt") $(sort "$wd/local/runs.txt" | uniq -d | wc -l)"
check_eq "cluster: each case ran once, in the remote run directory" "6 0" \
  "$(wc -l <"$rd/runs.txt") $(sort "$rd/runs.txt" | uniq -d | wc -l)"
check "the remote outputs are mirrored under the part's folder" test -s "$wd/$remote/w-real-n4/epochs.csv"
prefix=$(cases "$wd" | awk -F'\t' '$5 ~ /^cmp/ && $4 !~ /^[0-9]+$/ { next } { print }' >/dev/null; \
  /usr/bin/python3 -c '
import json, sys
for c in json.load(open(sys.argv[1])):
    if c["campaign"] == sys.argv[2]:
        print(c["cases"][0]["job_name"].split("-")[0] + "-")' "$WORK/status.json" "multisys@$remote")
wait_sacct_jobs "$prefix" 6
check_eq "sacct: 6 jobs of the cluster's part, no name twice" "6 0" \
  "$(sacct_jobs "$prefix" | wc -l) $(sacct_jobs "$prefix" | awk '{ print $2 }' | sort | uniq -d | wc -l)"
check "one catalog for both" test "$(find "$wd" -name campaign.db | wc -l)" -eq 1
md=$wd/report/report.md
check "the report names both systems" grep -q "| System | local, $remote |" "$md"
check "the report compares them: the cluster's columns beside local's" grep -q "throughputs_$remote" "$md"
check "... and their ratio" grep -q "| ratio" "$md"

say "the link to the login node lost mid-run: the local side goes on"
# Each system in its own mode: the cluster's cases as one job array (of one geometry: one rank each).
campaign linkloss 2 "systems: {$remote: {array: {throttle: 6}, job: {ranks: 1}}}"
lfile=$WORK/camp/linkloss.yaml
lw=$WORK/linkloss
"$CAMPAIGN" run "$lfile" --workdir "$lw" -q >"$WORK/linkloss.out" 2>&1 &
pid=$!
BG_PIDS+=("$pid")
remote_started() { [[ -s $WORK/remote/linkloss@$remote/runs.txt ]]; }
check "the cluster's cases start" wait_until 60 remote_started
kill -STOP "$SSHD_PID"
on_exit "kill -CONT $SSHD_PID 2>/dev/null"
kill_connections
local_done() {
  [[ $(/usr/bin/python3 -c '
import json, sys
for c in json.load(sys.stdin):
    if c["campaign"] == "linkloss@local":
        print(sum(k["state"] == "collected" for k in c["cases"]))' < <("$CAMPAIGN" status "$lw" --json 2>/dev/null)) == 6 ]]
}
check "while the cluster cannot be reached, every local case runs to the end" wait_until 120 local_done
check "the run is still going (the cluster's side waits)" kill -0 "$pid"
kill -CONT "$SSHD_PID"
wait "$pid"
check_eq "once the link is back the run ends, exit 0" 0 $?
BG_PIDS=()
check "the cluster's cases ran as tasks of one array" \
  test "$(cases "$lw" | awk -F'\t' '$4 ~ /^[0-9]+_[0-9]+$/ { sub(/_.*/, "", $4); print $4 }' | sort -u | wc -l)" -eq 1
check "the cluster's side logged the lost link" grep -q "ssh .*: the link dropped; reconnecting" "$lw/campaign.log"
check "... and that it reconnected" grep -q "ssh .*: reconnected" "$lw/campaign.log"
check_eq "every case ran once on each side" "6 6 0 0" \
  "$(wc -l <"$lw/local/runs.txt") $(wc -l <"$WORK/remote/linkloss@$remote/runs.txt") \
$(sort "$lw/local/runs.txt" | uniq -d | wc -l) $(sort "$WORK/remote/linkloss@$remote/runs.txt" | uniq -d | wc -l)"

say "a login node that does not answer at the start: the other systems run without it"
ssh_profile testcluster "$WORK/dead.yaml" port=1 jump=none
sed -i 's/^name: .*/name: dead-cluster/' "$WORK/dead.yaml"
sed -e "s|^system: .*|system: [local, $WORK/dead.yaml]|" -e 's/^name: multisys/name: halfdead/' \
  -e 's/numerator: ssh-testcluster/numerator: dead-cluster/' "$file" >"$WORK/camp/halfdead.yaml"
"$CAMPAIGN" run "$WORK/camp/halfdead.yaml" --workdir "$WORK/halfdead" -q >"$WORK/halfdead.out" 2>&1
check_eq "run exits 1: one system was not reached" 1 $?
check "it says which system and why" grep -q 'system dead-cluster cannot be reached' "$WORK/halfdead.out"
check_eq "the local side ran every case meanwhile" 6 "$(wc -l <"$WORK/halfdead/local/runs.txt")"

say "references per system"
cp "$file" "$WORK/camp/refs.yaml"
sed -i 's/^name: multisys/name: multisys/' "$WORK/camp/refs.yaml"
"$CAMPAIGN" reference set "$file" --from "$wd" --metric 'weak.times@n=4,data=real' --out "$WORK/camp/multisys.reference.yaml"
check_eq "reference set exits 0" 0 $?
check "it wrote the cluster's reference" grep -q "^\"$remote\":" "$WORK/camp/multisys.reference.yaml"
echo "reference: multisys.reference.yaml" >>"$file"
"$CAMPAIGN" report "$file" --workdir "$wd" >"$WORK/report-in.txt" 2>&1
check_eq "the same run within the bounds it wrote: report exits 0" 0 $?
check "and says so" grep -q 'references: 2 of 2 values within their bounds' "$WORK/report-in.txt"
# The same run held to a reference it misses: the local value is 4 s, the reference 3 s +-10 %.
sed -i '$d' "$file"
cat >>"$file" <<YAML
reference:
  local:
    weak.times@n=4,data=real: {value: 3, lower: -10%, upper: 10%}
  $remote:
    weak.times@n=4,data=real: [4, -0.1, 0.1]
YAML
"$CAMPAIGN" report "$file" --workdir "$wd" >"$WORK/report-out.txt" 2>&1
check_eq "a value outside its band: report exits 3" 3 $?
check "it says which value left which band" \
  grep -q 'local: weak.times@n=4,data=real = 4, above its band \[2.7, 3.3\]' "$WORK/report-out.txt"
check "the report's references table says so" grep -q '| local | weak.times@n=4,data=real | .* above |' "$wd/report/report.md"
check "... and the cluster's value is within" grep -q "| $remote | weak.times@n=4,data=real | .* within |" "$wd/report/report.md"
"$CAMPAIGN" run "$file" --workdir "$wd" -q >/dev/null 2>&1
check_eq "run, everything done but a reference missed, exits 3" 3 $?
"$CAMPAIGN" history "$wd" --campaign multisys@local >"$WORK/history.txt" 2>&1
check_eq "history of local's part: its newest run misses a reference, exit 3" 3 $?
check "history says which" grep -q 'local: weak.times@n=4,data=real = 4, above its band' "$WORK/history.txt"
"$CAMPAIGN" history "$file" >"$WORK/history-both.txt" 2>&1
check_eq "history keeps the systems apart: without --system it asks for one (exit 2)" 2 $?
"$CAMPAIGN" site "$wd" --out "$WORK/site" >"$WORK/site.txt" 2>&1
check "the site has each system's part apart" \
  bash -c 'ls "$1"/metrics | grep -qx "multisys_local" && ls "$1"/metrics | grep -qx "multisys_$2"' _ "$WORK/site" "$remote"
check "the site shows local's band of weak.times@n=4,data=real" \
  grep -rlq 'Reference on local .*its band 2.7 to 3.3.*Newest run[^:]*: 4 <span class="REGRESSION">above its band' \
  "$WORK/site/metrics"
