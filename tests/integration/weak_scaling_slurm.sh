#!/usr/bin/env bash
# The main job end to end on the virtual Slurm cluster: campaigns/weak_scaling.yaml with its
# testcluster override (the bundled minicosmo trainer; a data-staging step, then ranks 1..16 on the
# `mc` nodes and 1..8 on the `gpu` nodes, real and dummy data; 19 jobs). Every case completes at
# its first attempt with one job in accounting; multi-node cases really ran all their ranks (gloo
# over loopback); the report's tables have the expected rows; the HTML report and the plots exist.
# (Whether dummy-data epochs are faster than real-data ones is measured by bench/effects_bench.sh, not
# asserted: on two shared cores the load decides it; with FIGURES=FILE this test writes the geometric
# mean of dummy/real there.) `campaign site` and `campaign
# trace` read this run's own output (not an import): the site's run page shows 19 of 19 cases and
# each partition's throughput at the largest rank count as the report's CSV has it; the trace has a
# row per case whose running phase lies within its job's times in sacct.
#
# Usage: bash weak_scaling_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (labels e2e, slurm; ~2.5 min on 2 cores)
source "$(dirname "$0")/lib.sh"

ensure_cluster
py=/usr/bin/python3
wd=$WORK/w
say "campaign run weak_scaling --system testcluster"
"$CAMPAIGN" run "$SRC/campaigns/weak_scaling.yaml" --system testcluster --workdir "$wd" >"$WORK/run.out" 2>"$WORK/run.err"
check_eq "campaign run exits 0" 0 $?
tail -2 "$WORK/run.out"
check "final summary" grep -q "^done: 19 cases succeeded (1 completed, 18 collected); work directory $wd" "$WORK/run.out"
check "report path printed" grep -q "^report: $wd/report/report.html" "$WORK/run.out"
[[ -s $WORK/run.err ]] && { say "stderr:"; head -5 "$WORK/run.err"; }

"$CAMPAIGN" status "$wd" --json >"$WORK/status.json"
$py - "$WORK/status.json" >"$WORK/cases.txt" <<'EOF'
import json, sys
for c in json.load(open(sys.argv[1])):
    for k in c["cases"]:
        print(k["case"], k["state"], k["attempt"], k.get("nodes", ""), k.get("node_list", ""), k.get("elapsed_s", 0))
EOF
check_eq "19 cases at attempt 1" 19 "$(awk '$3 == 1' "$WORK/cases.txt" | wc -l)"
check_eq "cpu cases ran on mc nodes only" "" "$(awk '$1 ~ /^scaling-cpu/ && $5 !~ /^cn/' "$WORK/cases.txt")"
check_eq "gpu cases ran on gpu nodes only" "" "$(awk '$1 ~ /^scaling-gpu/ && $5 !~ /^gn/' "$WORK/cases.txt")"
check_eq "16 ranks on 4 mc nodes" "4 cn1,cn2,cn3,cn4" "$(awk '$1 == "scaling-cpu-n16" { print $4, $5 }' "$WORK/cases.txt")"
check_eq "8 ranks on both gpu nodes" "2 gn1,gn2" "$(awk '$1 == "scaling-gpu-n8" { print $4, $5 }' "$WORK/cases.txt")"
check_eq "every case has its elapsed time" "" "$(awk '$6 <= 0 { print $1 }' "$WORK/cases.txt")"
check "the 16-rank job had a world of 16" grep -q "world_size: 16" "$wd/scaling-cpu-n16/config.yaml"
check "every rank of it was counted (mlperf.log)" grep -q '"key": "number_of_ranks", "value": 16' "$wd/scaling-cpu-n16/mlperf.log"
prefix=$(prefix_of "$wd")
wait_sacct_jobs "$prefix" 19
check_eq "one job per case in accounting" 19 "$(sacct_jobs "$prefix" | wc -l)"

rep=$wd/report
expect() { # partition rows
  local csv=$rep/weak_scaling-$1.csv
  check_eq "$1: rows with real and dummy times" "$2" "$(awk -F, 'NR > 1 && $3 > 0 && $7 > 0 { print $1 }' "$csv" | paste -sd' ')"
  for f in svg png; do check "plot $1.$f" test -s "$rep/weak_scaling-$1.$f"; done
}
expect cpu "1 2 4 8 16"
expect gpu "1 2 4 8"
check_eq "report.html embeds both plots" 2 "$(grep -o "<img alt=\"weak_scaling, partition=[a-z]*\" src=\"data:image/svg+xml;base64," "$rep/report.html" | wc -l)"
# dummy/real epoch time over the 9 (partition, ranks) points, for the bench (not a verdict: see above).
ratios=$(awk -F, 'FNR > 1 { printf "%s ", $7 / $3 }' "$rep/weak_scaling-gpu.csv" "$rep/weak_scaling-cpu.csv")
gmean=$(awk -v r="$ratios" 'BEGIN { n = split(r, a, " "); s = 0; for (i = 1; i <= n; i++) s += log(a[i]); printf "%.3f", exp(s / n) }')
say "dummy/real epoch time: $ratios(geometric mean $gmean)"
[[ -z ${FIGURES:-} ]] || echo "dummy_real_gmean $gmean" >>"$FIGURES"
"$CAMPAIGN" history 'eff@max' "$WORK" >"$WORK/history.out" 2>&1
check_eq "history of the run: exit 0" 0 $?
check "history reads both partitions' efficiency at their largest rank count" \
  test "$(grep -Ec 'ranks=(8|16) +1\.000 baseline$' "$WORK/history.out")" = 2

"$CAMPAIGN" site "$WORK" -o "$WORK/site" >"$WORK/site.out" 2>&1
check_eq "campaign site of the run: exit 0 (one run, nothing to regress)" 0 $?
check "the site's run page: 19 of 19 cases, the throughput at the largest rank count as in the report" \
  $py - "$WORK/site" "$rep" <<'PY'
import csv, glob, html, re, sys
site, rep = sys.argv[1:]
pages = glob.glob(f"{site}/runs/*/*.html")
index = open(f"{site}/index.html").read()
fails = [] if len(pages) == 1 else [f"{len(pages)} run pages"]
if not re.search(r'<td class="num">19 / 19</td><td class="num">0</td>', index): fails.append("index: not 19 / 19, 0 failed")
page = open(pages[0]).read() if pages else ""
for part in ("cpu", "gpu"):
    rows = list(csv.DictReader(open(f"{rep}/weak_scaling-{part}.csv")))
    top = max(rows, key=lambda r: float(r["ranks"]))
    want = "%.3g" % float(top["throughputs"])
    got = re.findall(r'weak_scaling\.throughputs@max</a></td><td>partition=' + part + r'</td><td class="num">([^<]*)</td>',
                     html.unescape(page))
    if got[:1] != [want.split()[0]] and not (got and got[0].startswith(want)): fails.append(f"{part}: site {got}, report {want}")
print("\n".join(fails))
sys.exit(bool(fails))
PY
"$CAMPAIGN" trace "$wd" -o "$WORK/trace.json" >/dev/null
check_eq "campaign trace of the run: exit 0" 0 $?
sacct -X -n -P -a -S "$TEST_START" -E now -o JobName,Start,End 2>/dev/null | grep "^$prefix" >"$WORK/times.txt"
check "the trace: each of the 19 cases running within its job's times in sacct" \
  $py - "$WORK/trace.json" "$WORK/times.txt" "$wd/campaign.db" <<'PY'
import datetime, json, sqlite3, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rows = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
us = lambda t: datetime.datetime.fromisoformat(t).timestamp() * 1e6
times = {n: (us(s), us(e)) for n, s, e in (l.rstrip("\n").split("|") for l in open(sys.argv[2]))}
names = dict(sqlite3.connect(sys.argv[3]).execute("SELECT c.name, a.job_name FROM attempts a JOIN cases c ON c.id = a.case_id"))
fails = [] if len(names) == 19 else [f"{len(names)} attempts"]
for case, job in names.items():
    run = [e for e in ev if e["ph"] == "X" and e["name"] == "running" and rows.get((e["pid"], e["tid"])) == case]
    start, end = times.get(job, (None, None))
    if len(run) != 1 or start is None: fails.append(f"{case}: {len(run)} running phases, sacct {job in times}"); continue
    if not (start - 1e6 <= run[0]["ts"] and run[0]["ts"] + run[0]["dur"] <= end + 1e6): fails.append(f"{case}: outside its job")
print("\n".join(fails))
sys.exit(bool(fails))
PY
