#!/usr/bin/env bash
# The main job end to end on this machine: campaigns/weak_scaling.yaml on the `local` system (the
# bundled minicosmo trainer: a data-staging step, then ranks 1, 2, 4 x real/dummy x gpu/cpu). The
# first `campaign run` is killed (SIGKILL) once a few cases are collected; the second finishes it
# without rerunning what was done (one attempt per case in the catalog, one job output per run
# directory, completed cases' history.csv untouched). Then: the report's tables have the expected
# rows, dummy-data epochs are not slower than real-data ones beyond noise, the HTML report and the
# plots exist, the progress output (plain lines, a rewritten line on a terminal, -q, -v), the log,
# the code version recorded, and `campaign history` on the run.
#
# Usage: bash weak_scaling_local.sh CAMPAIGN_BINARY SOURCE_DIR        (labels e2e, workload; ~2.5 min on 2 cores)
source "$(dirname "$0")/lib.sh"

py=/usr/bin/python3
file=$SRC/campaigns/weak_scaling.yaml
wd=$WORK/w

# 1. Run, and kill the orchestrator once 4 cases are collected (jobs keep running).
say "campaign run (killed after 4 collected cases)"
"$CAMPAIGN" run "$file" --system local --workdir "$wd" >"$WORK/run1.out" 2>"$WORK/run1.err" &
pid=$!
BG_PIDS+=("$pid")
four_collected() { (($(count_state "$wd" collected) >= 4)); }
wait_until 150 four_collected
kill -9 "$pid" 2>/dev/null
killed=$?
{ wait "$pid"; } 2>/dev/null
BG_PIDS=()
check_eq "the first run was killed while cases were left" 0 "$killed"
cases "$wd" >"$WORK/before.tsv"
done_before=$(awk -F'\t' '$2 == "collected" { print $1 }' "$WORK/before.tsv")
left=$(awk -F'\t' '$2 != "collected" && $2 != "completed"' "$WORK/before.tsv" | wc -l)
say "killed with $(echo "$done_before" | wc -l) collected, $left not finished"
check "cases were left to do" test "$left" -gt 0
declare -A mtime
for c in $done_before; do mtime[$c]=$(stat -c %.9Y "$wd/$c/history.csv"); done

# 2. Run again: it finishes. On a terminal (script(1) gives it one) the progress line is rewritten.
say "campaign run again, on a terminal"
script -qec "'$CAMPAIGN' run '$file' --system local --workdir '$wd'" /dev/null >"$WORK/run2.out" 2>&1
check_eq "the second run exits 0" 0 $?
tr -d '\r' <"$WORK/run2.out" | sed 's/\x1b\[K//g' >"$WORK/run2.txt"
check "progress rewritten in place on a terminal" grep -q $'\r\x1b\[K\[00:0' "$WORK/run2.out"
check "final summary" grep -q "^done: 13 cases succeeded (1 completed, 12 collected); work directory $wd" "$WORK/run2.txt"
check "report path printed" grep -q "^report: $wd/report/report.html" "$WORK/run2.txt"
check "plain progress lines when not a terminal" grep -q '^\[00:00:0[0-9]\] 13 cases: ' "$WORK/run1.out"
check "no carriage returns when not a terminal" bash -c "! grep -q $'\r' '$WORK/run1.out'"

# 3. Nothing ran twice.
cases "$wd" >"$WORK/after.tsv"
check_eq "13 cases: prepare completed, 12 collected" "1 12" \
  "$(awk -F'\t' '$2 == "completed"' "$WORK/after.tsv" | wc -l) $(awk -F'\t' '$2 == "collected"' "$WORK/after.tsv" | wc -l)"
check_eq "catalog: one attempt per case" "13 13" "$($py -c '
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(db.execute("select count(*) from attempts").fetchone()[0], db.execute("select count(*) from cases").fetchone()[0])' "$wd/campaign.db")"
check_eq "one job output per run directory" 13 "$(ls "$wd"/*/job-*.out | wc -l)"
same=0
for c in $done_before; do [[ $(stat -c %.9Y "$wd/$c/history.csv") == "${mtime[$c]}" ]] && same=$((same + 1)); done
check_eq "history.csv of the cases done before the kill untouched" "$(echo "$done_before" | wc -w)" "$same"
for c in $done_before; do
  [[ $(awk -F'\t' -v c="$c" '$1 == c { print $4 }' "$WORK/before.tsv") == $(awk -F'\t' -v c="$c" '$1 == c { print $4 }' "$WORK/after.tsv") ]] ||
    bad "$c: job id changed"
done

check_eq "every case has its elapsed time" "" "$("$CAMPAIGN" status "$wd" --json | $py -c '
import json, sys
print(" ".join(k["case"] for c in json.load(sys.stdin) for k in c["cases"] if k.get("elapsed_s", 0) <= 0))')"

# 4. The report.
rep=$wd/report
for p in gpu cpu; do
  csv=$rep/weak_scaling-$p.csv
  check "table $p" test -s "$csv"
  check_eq "$p: columns" "ranks,samples,times,throughputs,ideal,eff,times_dummy,throughputs_dummy,ideal_dummy,eff_dummy" \
    "$(head -1 "$csv")"
  check_eq "$p: rows for ranks 1, 2, 4, each with real and dummy times" "1 2 4" \
    "$(awk -F, 'NR > 1 && $3 > 0 && $7 > 0 { print $1 }' "$csv" | paste -sd' ')"
  check_eq "$p: efficiency 1 at one rank" 1 "$(awk -F, 'NR == 2 { print $6 }' "$csv")"
  for f in svg png gp dat; do check "plot $p.$f" test -s "$rep/weak_scaling-$p.$f"; done
done
check "report.html" test -s "$rep/report.html"
check "report.md" test -s "$rep/report.md"
check_eq "the HTML report embeds both plots" 2 "$(grep -o "<img alt=\"weak_scaling, partition=[a-z]*\" src=\"data:image/svg+xml;base64," "$rep/report.html" | wc -l)"
# Dummy data has no I/O and no preprocessing: over the 6 (partition, ranks) points its epochs are not
# slower than real data's beyond noise (geometric mean of dummy/real at most 1.10).
ratios=$(awk -F, 'FNR > 1 { printf "%s ", $7 / $3 }' "$rep/weak_scaling-gpu.csv" "$rep/weak_scaling-cpu.csv")
gmean=$(awk -v r="$ratios" 'BEGIN { n = split(r, a, " "); s = 0; for (i = 1; i <= n; i++) s += log(a[i]); printf "%.3f", exp(s / n) }')
say "dummy/real epoch time: $ratios(geometric mean $gmean)"
check "dummy epochs not slower than real ones beyond noise ($gmean <= 1.10)" awk -v g="$gmean" 'BEGIN { exit !(g <= 1.10) }'

# 5. Output modes, the log, the code version, history.
out=$("$CAMPAIGN" run "$file" --system local --workdir "$wd" -q 2>&1)
check_eq "run -q on a finished campaign: exit 0" 0 $?
check_eq "run -q prints nothing" "" "$out"
"$CAMPAIGN" run "$file" --system local --workdir "$wd" -v >/dev/null 2>"$WORK/verbose.err"
check "run -v logs on stderr" grep -q "campaign: info: campaign cosmoflow-weak-scaling on local" "$WORK/verbose.err"
check_eq "still one attempt per case" 13 "$(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"
check "campaign.log in the work directory" grep -q "code version" "$wd/campaign.log"
# The source tree is a git work tree (a clone; ctest runs this test only where git is installed).
head=$(git -C "$SRC" rev-parse HEAD 2>&1)
check "the source tree is a git work tree at a commit ($head)" test "${#head}" -eq 40
check "the run recorded the source tree's commit" \
  bash -c "'$CAMPAIGN' status '$wd' --json | grep -q '\"commit\": \"$head\"'"
"$CAMPAIGN" history 'throughputs@ranks=4' "$WORK" >"$WORK/history.out" 2>&1
check_eq "history of one run: exit 0" 0 $?
check "history: both partitions" test "$(grep -c ' baseline$' "$WORK/history.out")" = 2
"$CAMPAIGN" history 'staging_time@ranks=4,data=real' "$WORK" >"$WORK/history2.out" 2>&1
check_eq "history of a per-phase timer from mlperf.log: exit 0" 0 $?
check "staging time of both partitions' 4-rank cases" test "$(grep -Ec '^scaling-(gpu|cpu)-n4$' "$WORK/history2.out")" = 2
