#!/usr/bin/env bash
# Everyday commands (issue 33), on a real run on local: `campaign results` (the per-case table of
# parameters and metrics, as CSV, JSON and a table, with --case/--only), `campaign list` (the
# campaigns under a folder) and `campaign completion bash` (completing commands, options and
# profile names in a real bash).
#
# Usage: bash everyday_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 5 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
mkdir -p "$WORK/runs"
wd=$WORK/runs/everyday
file=$WORK/everyday.yaml
# Two epochs per case; epoch times ranks and ranks + 1: the table's mean is ranks + 0.5.
cat >"$file" <<'YAML'
name: everyday
system: local
matrix:
  data: [real, dummy]
  ranks: [1, 2]
case_name: "ev-{{data}}-{{ranks}}"
job:
  walltime: 5m
  launch: false
  command: 'printf "epoch,time,loss,val_loss\n0,{{ranks}},0.5,0.6\n1,$(({{ranks}} + 1)),0.25,0.3\n" > history.csv'
collectors: [cosmoflow]
YAML
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" -q
check_eq "campaign run exits 0" 0 $?

say "campaign results"
"$CAMPAIGN" results "$wd" --format csv >"$WORK/results.csv"
check_eq "results --format csv: exit 0" 0 $?
check_eq "one header and one row per case" 5 "$(wc -l <"$WORK/results.csv")"
# The parameters that differ between cases: the matrix's and those that follow from ranks on this
# 2-core machine (nodes, cores per rank); not those every case shares (campaign, directories).
check "the header: case, step, the parameters that differ, the attempt's columns, the metrics" \
  grep -qx 'case,step,cpus_per_rank,data,nodes,ranks,state,attempt,job,elapsed_s,epoch_time,loss,val_loss' \
  <(head -1 "$WORK/results.csv")
# Every cell checked by a program that reads CSV, against the values the jobs wrote.
check "every row's parameters and metrics are the jobs' (epoch_time: mean of ranks and ranks + 1)" \
  /usr/bin/python3 - "$WORK/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted(r["case"] for r in rows) == ["ev-dummy-1", "ev-dummy-2", "ev-real-1", "ev-real-2"], rows
for r in rows:
    assert r["case"] == "ev-%s-%s" % (r["data"], r["ranks"]), r
    assert r["state"] == "collected" and r["attempt"] == "1" and r["job"], r
    assert float(r["epoch_time"]) == int(r["ranks"]) + 0.5, r
    assert float(r["loss"]) == 0.375 and abs(float(r["val_loss"]) - 0.45) < 1e-15, r
PY
"$CAMPAIGN" results "$wd" --format json --only ranks=2 --case 'ev-real-*' >"$WORK/results.json"
check_eq "results --format json --only ranks=2 --case ev-real-*: exit 0" 0 $?
check "it holds ev-real-2 alone, with its metric's count, min, max, last and unit" \
  /usr/bin/python3 - "$WORK/results.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert [r["case"] for r in rows] == ["ev-real-2"], rows
m = rows[0]["metrics"]["epoch_time"]
assert (m["n"], m["min"], m["max"], m["last"], m["value"], m["unit"]) == (2, 2, 3, 3, 2.5, "s"), m
assert rows[0]["params"]["data"] == "real" and rows[0]["params"]["ranks"] == "2", rows[0]
PY
"$CAMPAIGN" results "$wd" >"$WORK/results.txt"
check "the table shows the unit in its header" grep -q 'epoch_time \[s\]' "$WORK/results.txt"
check "and a row per case" test "$(grep -c '^ev-' "$WORK/results.txt")" -eq 4
"$CAMPAIGN" results "$wd" --only rank=2 >/dev/null 2>"$WORK/bad.err"
check_eq "results --only with a parameter no case has: exit 2" 2 $?
check "it names the nearest one" grep -q "did you mean 'ranks'" "$WORK/bad.err"

say "campaign list"
mkdir -p "$WORK/runs/empty/sub" "$WORK/runs/.hidden"
"$CAMPAIGN" list "$WORK/runs" >"$WORK/list.txt"
check_eq "list: exit 0" 0 $?
check "it lists the work directory, the campaign, its system and its cases by state" \
  grep -Eq '^everyday +everyday +local +4 +4 collected' "$WORK/list.txt"
"$CAMPAIGN" list "$WORK" --json >"$WORK/list.json"
check "list --json from a folder above: the workdir and the counts" /usr/bin/python3 - "$WORK/list.json" "$wd" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1 and rows[0]["workdir"] == sys.argv[2], rows
assert rows[0]["cases"] == 4 and rows[0]["states"] == {"collected": 4}, rows
PY
"$CAMPAIGN" list "$WORK" --depth 1 >"$WORK/list1.txt"
check "--depth 1 does not reach runs/everyday" grep -q '^no campaign under' "$WORK/list1.txt"
"$CAMPAIGN" list "$WORK/nope" >/dev/null 2>&1
check_eq "list of a missing folder: exit 2" 2 $?

say "campaign completion bash"
"$CAMPAIGN" completion bash >"$WORK/complete.bash"
check_eq "completion bash: exit 0" 0 $?
# complete WORDS...: what the script offers for the last word, in a real bash.
complete_words() {
  /bin/bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _campaign
    printf "%s\n" "${COMPREPLY[@]}"' _ "$WORK/complete.bash" "$@"
}
check_eq "campaign sta<TAB>: status" status "$(complete_words "$CAMPAIGN" sta)"
check_eq "campaign res<TAB>: the commands that start so" "results resume" "$(complete_words "$CAMPAIGN" res | sort | xargs)"
check "campaign run --sy<TAB>: --system" grep -qx -- --system <(complete_words "$CAMPAIGN" run --sy)
check "campaign results --fo<TAB>: --format" grep -qx -- --format <(complete_words "$CAMPAIGN" results --fo)
check "campaign run -s <TAB>: the system profiles" grep -qx testcluster <(complete_words "$CAMPAIGN" run -s '')
subcommands=$("$CAMPAIGN" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }' | sort | xargs)
check_eq "every command of --help completes, and no hidden one" "$subcommands" \
  "$(complete_words "$CAMPAIGN" '' | grep -v '^-' | sort | xargs)"
