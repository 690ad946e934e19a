#!/usr/bin/env bash
# Everyday use (issue 33), on a real run on local: tags on a run (`run --tag`, shown by status, show,
# results, list and the report, chosen by `list --tag`), `validate --json`, `--case`/`--only` on
# report and show, a selection over a catalog of two campaigns, the warm-up said in the report, and
# the results table of a metric no decimal text round trip survives (a subnormal double).
#
# Usage: bash everyday_more_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 10 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
mkdir -p "$WORK/runs"
wd=$WORK/runs/workday
file=$WORK/workday.yaml
# Epoch 0 takes 100 s (warm-up), epoch 1 8/ranks s: the default warm-up leaves epoch 0 out, so the
# strong-scaling time is 8 at one rank and 4 at two. lr is the smallest subnormal double.
cat >"$file" <<'YAML'
name: workday
system: local
matrix:
  data: [real, dummy]
  ranks: [1, 2]
case_name: "wd-{{data}}-{{ranks}}"
job:
  walltime: 5m
  launch: false
  command: 'printf "epoch,time,loss,val_loss,lr\n0,100,0.5,0.6,4.9406564584124654e-324\n1,$((8 / {{ranks}})),0.25,0.3,4.9406564584124654e-324\n" > history.csv'
collectors: [cosmoflow]
analyses:
  - {name: strong, scaling: strong, x: ranks, time: {metric: epoch_time}}
YAML

say "validate --json"
"$CAMPAIGN" validate "$file" --json >"$WORK/validate.json"
check_eq "validate --json: exit 0" 0 $?
check "it lists the 4 cases with their walltime and parameters" /usr/bin/python3 - "$WORK/validate.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["ok"] is True and v["campaign"] == "workday" and v["system"] == "local", v
assert sorted(c["case"] for c in v["cases"]) == ["wd-dummy-1", "wd-dummy-2", "wd-real-1", "wd-real-2"], v
c = [c for c in v["cases"] if c["case"] == "wd-real-2"][0]
assert c["walltime_s"] == 300 and c["walltime"] == "00:05:00" and c["ranks"] == 2, c
assert c["params"]["data"] == "real" and c["params"]["ranks"] == "2", c
PY
sed 's/walltime: 5m/walltime: 5m\n  walltim: 1/' "$file" >"$WORK/bad.yaml"
"$CAMPAIGN" validate "$WORK/bad.yaml" --json >"$WORK/bad.json" 2>"$WORK/bad.err"
check_eq "validate --json of a bad file: exit 2" 2 $?
check "the error as JSON: file, line, column, key, message" /usr/bin/python3 - "$WORK/bad.json" "$WORK/bad.yaml" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["ok"] is False and len(v["errors"]) == 1, v
e = v["errors"][0]
assert e["file"].endswith("bad.yaml") and e["line"] == 9 and e["column"] == 3, e
assert e["key"] == "job.walltim" and "did you mean 'walltime'" in e["message"], e
PY
check "and the line on stderr, as without --json" grep -q "bad.yaml:9:3: job.walltim" "$WORK/bad.err"

say "run --tag"
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" --tag 'bad tag' -q 2>"$WORK/tag.err"
check_eq "run --tag with a space in its key: exit 2" 2 $?
check "it says what a tag is" grep -q "a tag is KEY=VALUE or a WORD" "$WORK/tag.err"
check "and nothing was written" test ! -e "$wd"
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" --tag nightly --tag node=a100 -q
check_eq "run --tag nightly --tag node=a100: exit 0" 0 $?
"$CAMPAIGN" status "$wd" >"$WORK/status.txt"
check "status shows the tags" grep -qx "tags nightly, node=a100" "$WORK/status.txt"
"$CAMPAIGN" status "$wd" --json >"$WORK/status.json"
check "status --json: the tags and every case" /usr/bin/python3 - "$WORK/status.json" <<'PY'
import json, sys
[c] = json.load(open(sys.argv[1]))
assert c["tags"] == {"nightly": "", "node": "a100"}, c
assert len(c["cases"]) == 4 and all(k["state"] == "collected" for k in c["cases"]), c
PY
"$CAMPAIGN" show "$wd" wd-real-1 >"$WORK/show.txt"
check "show shows them" grep -qx "tags nightly, node=a100" "$WORK/show.txt"
"$CAMPAIGN" results "$wd" -f json >"$WORK/results.json"
check "results -f json: each row with the run's tags" /usr/bin/python3 - "$WORK/results.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 4 and all(r["tags"] == {"nightly": "", "node": "a100"} for r in rows), rows
PY
"$CAMPAIGN" results "$wd" -f csv >"$WORK/results.csv"
check "results -f csv: a tags column" grep -q ',"nightly, node=a100",' "$WORK/results.csv"
check "report.md's header has them" grep -qx "| Tags | nightly, node=a100 |" "$wd/report/report.md"
"$CAMPAIGN" list "$WORK/runs" --tag node=a100 >"$WORK/list.txt"
check "list --tag node=a100 lists the run, with its tags" grep -Eq '^workday +workday +local +4 .*nightly, node=a100$' "$WORK/list.txt"
"$CAMPAIGN" list "$WORK/runs" --tag nightly --json >"$WORK/list.json"
check "list --tag nightly (a word) --json" /usr/bin/python3 - "$WORK/list.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1 and rows[0]["tags"] == {"nightly": "", "node": "a100"}, rows
PY
"$CAMPAIGN" list "$WORK/runs" --tag node=h100 >"$WORK/list2.txt"
check "list --tag node=h100 lists none" grep -q "^no campaign under .* tagged node=h100" "$WORK/list2.txt"
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" --tag node=h100 -q
check_eq "run again with --tag node=h100: exit 0" 0 $?
"$CAMPAIGN" status "$wd" --json >"$WORK/status2.json"
check "a key given again takes the new value; the others stay" /usr/bin/python3 - "$WORK/status2.json" <<'PY'
import json, sys
[c] = json.load(open(sys.argv[1]))
assert c["tags"] == {"nightly": "", "node": "h100"}, c
PY

say "warm-up, said"
check "report.md says the default warm-up leaves the first epoch out" \
  grep -q 'over steps >= 1 (warm-up: steps below 1 dropped, `time: {warmup: 1}`, the default: the first epoch, step 0, is left out; `warmup: 0` keeps every step' "$wd/report/report.md"
"$CAMPAIGN" report "$wd" --terminal >"$WORK/terminal.txt"
check_eq "report --terminal: exit 0" 0 $?
check "the times are epoch 1's: 8 s at one rank, 4 at two (epoch 0's 100 s left out)" /usr/bin/python3 - "$wd/report" <<'PY'
import csv, glob, sys
rows = [r for f in sorted(glob.glob(sys.argv[1] + "/strong*.csv")) for r in csv.DictReader(open(f))]
assert rows, "no strong*.csv"
times = sorted((r["ranks"], float(r["times"])) for r in rows)
assert times == [("1", 8.0), ("1", 8.0), ("2", 4.0), ("2", 4.0)], times
PY
check "report --help says the warm-up" bash -c "'$CAMPAIGN' report --help | grep -q 'warm-up'"

say "report and show --case/--only"
"$CAMPAIGN" report "$wd" --only data=real --out "$WORK/real" >/dev/null
check_eq "report --only data=real: exit 0" 0 $?
check "its header says which cases" grep -qx "| Cases | --only data=real: 2 of the 4 cases |" "$WORK/real/report.md"
check "its tables hold the real cases only" /usr/bin/python3 - "$WORK/real" <<'PY'
import csv, glob, sys
files = sorted(glob.glob(sys.argv[1] + "/strong*.csv"))
rows = [r for f in files for r in csv.DictReader(open(f))]
assert len(rows) == 2 and all("dummy" not in f for f in files), (files, rows)
PY
"$CAMPAIGN" report "$wd" --case 'nope-*' --out "$WORK/nope" >/dev/null 2>"$WORK/nope.err"
check_eq "report --case matching nothing: exit 2" 2 $?
check "and writes nothing" test ! -e "$WORK/nope"
"$CAMPAIGN" show "$wd" --only data=real --json >"$WORK/show.json"
check_eq "show --only data=real --json: exit 0" 0 $?
check "an array of the two real cases" /usr/bin/python3 - "$WORK/show.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert [c["case"] for c in v] == ["wd-real-1", "wd-real-2"], v
PY
"$CAMPAIGN" show "$wd" --case 'wd-dummy-*' >"$WORK/show2.txt"
check_eq "show --case wd-dummy-*: both cases, one after the other" 2 "$(grep -c '^case wd-dummy-' "$WORK/show2.txt")"
"$CAMPAIGN" show "$wd" >/dev/null 2>&1
check_eq "show without a case or a selection: exit 2" 2 $?

say "the results table keeps doubles"
"$CAMPAIGN" results "$wd" >"$WORK/table.txt" 2>"$WORK/table.err"
check_eq "results (table) with a subnormal metric: exit 0" 0 $?
check "it shows it" grep -q '4.94066e-324' "$WORK/table.txt"
"$CAMPAIGN" results "$wd" -f csv >"$WORK/results.csv"
check "CSV keeps it exactly" /usr/bin/python3 - "$WORK/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4 and all(float(r["lr"]) == 5e-324 for r in rows), rows
PY

say "two campaigns in one catalog"
cat >"$WORK/other.yaml" <<'YAML'
name: other
system: local
matrix:
  size: [s, m]
case_name: "other-{{size}}"
job: {walltime: 5m, launch: false, command: "true"}
YAML
env PATH="$nopath" "$CAMPAIGN" run "$WORK/other.yaml" --workdir "$wd" -q
check_eq "a second campaign run in the same work directory: exit 0" 0 $?
"$CAMPAIGN" status "$wd" --only size=s >"$WORK/s.txt" 2>"$WORK/s.err"
check_eq "status --only size=s (a parameter of one campaign): exit 0" 0 $?
check "it shows other-s alone" test "$(grep -c '^other-s ' "$WORK/s.txt")" -eq 1 -a "$(grep -c '^wd-' "$WORK/s.txt")" -eq 0
"$CAMPAIGN" results "$wd" --only data=real -f json >"$WORK/r1.json"
check_eq "results --only data=real (a parameter of the first campaign): exit 0" 0 $?
check "its rows: the two real cases" /usr/bin/python3 - "$WORK/r1.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert sorted(r["case"] for r in rows) == ["wd-real-1", "wd-real-2"], rows
PY
"$CAMPAIGN" status "$wd" --only sizes=s >/dev/null 2>"$WORK/bad.err"
check_eq "a parameter neither has: exit 2" 2 $?
check "naming the nearest of either campaign's" grep -q "did you mean 'size'" "$WORK/bad.err"

say "completion of the new options"
"$CAMPAIGN" completion bash >"$WORK/complete.bash"
complete_words() {
  /bin/bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _campaign
    printf "%s\n" "${COMPREPLY[@]}"' _ "$WORK/complete.bash" "$@"
}
check "campaign run --ta<TAB>: --tag" grep -qx -- --tag <(complete_words "$CAMPAIGN" run --ta)
check "campaign list --ta<TAB>: --tag" grep -qx -- --tag <(complete_words "$CAMPAIGN" list --ta)
check "campaign validate --js<TAB>: --json" grep -qx -- --json <(complete_words "$CAMPAIGN" validate --js)
check "campaign report --on<TAB>: --only" grep -qx -- --only <(complete_words "$CAMPAIGN" report --on)
check "campaign show --ca<TAB>: --case" grep -qx -- --case <(complete_words "$CAMPAIGN" show --ca)
