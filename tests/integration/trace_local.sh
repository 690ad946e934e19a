#!/usr/bin/env bash
# Issue 14 point 4: `campaign trace` of a tiny local campaign (one case completes, one fails and is
# retried, one fails for good; each completed case writes epochs.csv and two ranks' stalls files) is a
# valid Trace Event Format file: checked against tests/data/trace/trace_event.schema.json (written
# from the format's document; Debian's python3-jsonschema) and for what the timeline must show (a
# row per case, attempts, failures, epochs, per-rank stalls, rows per node, --iterations). With
# `chromium`, the file is also parsed and checked by headless Chromium (a local page, no network).
#
# Usage: bash trace_local.sh CAMPAIGN_BINARY SOURCE_DIR [chromium]    (label local; about 10 s)
py=/usr/bin/python3
if ! $py -c 'import jsonschema' 2>/dev/null; then
  echo "missing: python3-jsonschema (tools/setup.sh installs it)"
  exit 77
fi
browser=${3:-}
source "$(dirname "$0")/lib.sh"

cat >"$WORK/job.sh" <<'SH'
# job.sh N: case 3 fails every time, case 2 the first time only; the others write two epochs of two
# iterations each, from its start, as the workload would (epochs.csv, stalls-rank<R>.csv; Unix seconds).
n=$1
[ "$n" = 3 ] && { echo "case 3 always fails" >&2; exit 3; }
[ "$n" = 2 ] && [ ! -e tried ] && { touch tried; exit 1; }
t0=$(date +%s.%N)
sleep 2
awk -v t0="$t0" 'BEGIN {
  print "epoch,start_time,end_time,epoch_time" > "epochs.csv"
  for (e = 0; e < 2; e++) printf "%d,%.6f,%.6f,%.6f\n", e, t0 + e, t0 + e + 1, 1 >> "epochs.csv"
  for (r = 0; r < 2; r++) {
    f = "stalls-rank" r ".csv"
    print "Iteration,Epoch,Fetch time (sec),Fetch done time (sec),Training start (sec),Iteration time (sec),Training Stall time (sec),Compute time (sec)" > f
    for (i = 0; i < 4; i++) {
      start = t0 + i * 0.5 + 0.2
      printf "%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", i, int(i / 2), 0.2, start, start, 0.5, 0.2, 0.3 >> f
    }
  }
}'
SH
cat >"$WORK/trace.yaml" <<YAML
name: tracedemo
system: local
matrix:
  n: [1, 2, 3]
case_name: trace-{{n}}
job:
  nodes: 1
  walltime: 5m
  launch: false
  command: bash $WORK/job.sh {{n}}
collectors: [epochs, stalls]
retry: {on: [failed], max_attempts: 2}
YAML

wd=$WORK/wd
nopath=$(path_without_slurm)
env PATH="$nopath" "$CAMPAIGN" run "$WORK/trace.yaml" --workdir "$wd" -q 2>"$WORK/run.err"
check_eq "campaign run exits 1 (case 3 fails)" 1 $?
check_eq "states" "collected collected failed" "$(for c in 1 2 3; do field "$wd" "trace-$c" 2; done | paste -sd' ')"
check_eq "attempts" "1 2 2" "$(for c in 1 2 3; do field "$wd" "trace-$c" 3; done | paste -sd' ')"

"$CAMPAIGN" trace "$wd" --out "$WORK/trace.json" >"$WORK/out.txt"
check_eq "campaign trace exits 0" 0 $?
check "it says what it wrote" grep -q "trace events to $WORK/trace.json" "$WORK/out.txt"
"$CAMPAIGN" trace "$wd" --by node --iterations 1 -o "$WORK/nodes.json" >/dev/null
check_eq "campaign trace --by node --iterations 1 exits 0" 0 $?
"$CAMPAIGN" trace "$wd" --by rack -o "$WORK/x.json" >/dev/null 2>&1
check_eq "--by rack is refused" 2 $?

for f in trace nodes; do
  check "$f.json is valid against the Trace Event Format's schema" $py - "$SRC/tests/data/trace/trace_event.schema.json" \
    "$WORK/$f.json" <<'PY'
import json, sys, jsonschema
schema, trace = (json.load(open(p)) for p in sys.argv[1:])
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(trace), key=lambda e: list(e.path))
for e in errors[:5]:
    print(list(e.path), e.message)
sys.exit(bool(errors))
PY
done

check "the schema refuses a complete event without its duration" $py - "$SRC/tests/data/trace/trace_event.schema.json" \
  "$WORK/trace.json" <<'PY'
import json, sys, jsonschema
schema, trace = (json.load(open(p)) for p in sys.argv[1:])
next(e for e in trace["traceEvents"] if e["ph"] == "X").pop("dur")
sys.exit(jsonschema.Draft7Validator(schema).is_valid(trace))
PY

# What the timeline shows, row by row.
check "the timeline of the cases" $py - "$WORK/trace.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
assert t["displayTimeUnit"] == "ms" and t["otherData"]["campaign"] == "tracedemo", t.get("otherData")
rows = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
on = lambda row, ph: [e for e in ev if e["ph"] == ph and rows.get((e["pid"], e["tid"])) == row]
names = lambda row, ph: sorted(e["name"] for e in on(row, ph))
fails = []
def want(what, got, expected):
    if got != expected: fails.append(f"{what}: {got} != {expected}")
want("rows", sorted(rows.values()), ["trace-1", "trace-1 epochs", "trace-1 rank 0", "trace-1 rank 1", "trace-2",
     "trace-2 epochs", "trace-2 rank 0", "trace-2 rank 1", "trace-3"])
want("trace-1", names("trace-1", "X"), ["attempt 1", "collecting", "queued", "running"])
want("trace-2", names("trace-2", "X"), ["attempt 1", "attempt 2", "collecting", "queued", "queued", "running", "running"])
want("trace-2 failure", names("trace-2", "i"), ["failed"])
want("trace-3 failures", names("trace-3", "i"), ["failed", "failed"])
want("trace-3 exit codes", [e["args"].get("exit_code") for e in on("trace-3", "i")], [3, 3])
want("trace-2 attempt 1 state", [e["args"]["state"] for e in on("trace-2", "X") if e["name"] == "attempt 1"], ["failed"])
want("trace-1 job id", all(e["args"]["job_id"] for e in on("trace-1", "X")), True)
want("epochs", names("trace-1 epochs", "X"), ["epoch 0", "epoch 1"])
want("rank 0", names("trace-1 rank 0", "X"), ["compute"] * 4 + ["data stall"] * 4)
stall = min((e for e in on("trace-1 rank 1", "X") if e["name"] == "data stall"), key=lambda e: e["ts"])
want("a stall's length (0.2 s)", stall["dur"], 200000)
# The running phase holds the epochs (the scheduler's times are whole seconds: widened by one).
run = [e for e in on("trace-1", "X") if e["name"] == "running"][0]
ep = on("trace-1 epochs", "X")
want("epochs within running", all(run["ts"] - 1e6 <= e["ts"] and e["ts"] + e["dur"] <= run["ts"] + run["dur"] + 1e6
                                   for e in ep), True)
if fails:
    print("\n".join(fails))
sys.exit(bool(fails))
PY
check "by node: a group per node, the first iteration of each rank" $py - "$WORK/nodes.json" "$(hostname)" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
procs = sorted(e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name")
rows = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
computes = [e for e in ev if e["name"] == "compute" and rows[(e["pid"], e["tid"])] == "trace-1 rank 0"]
ok = t["otherData"]["rows"] == "node" and procs == [sys.argv[2]] and len(computes) == 1
print(procs, len(computes)) if not ok else None
sys.exit(not ok)
PY

if [[ $browser == chromium ]]; then
  # A local page that parses the file as a viewer's importer does and checks each event's fields.
  $py - "$WORK/trace.json" "$WORK/check.html" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write("""<!doctype html><html><body><script>
const text = %s;
let out = "OK";
try {
  const t = JSON.parse(text);
  if (!Array.isArray(t.traceEvents)) throw "no traceEvents array";
  const num = (v) => typeof v === "number" && isFinite(v);
  let x = 0, i = 0, m = 0;
  for (const e of t.traceEvents) {
    const where = JSON.stringify(e).slice(0, 120);
    if (typeof e.name !== "string" || !num(e.pid) || !num(e.tid)) throw "name/pid/tid: " + where;
    if (e.ph === "X") { if (!num(e.ts) || !num(e.dur) || e.dur < 0) throw "X: " + where; x++; }
    else if (e.ph === "i") { if (!num(e.ts) || !["g", "p", "t"].includes(e.s)) throw "i: " + where; i++; }
    else if (e.ph === "M") { if (typeof e.args !== "object") throw "M: " + where; m++; }
    else throw "unexpected ph: " + where;
  }
  out += " " + x + " complete, " + i + " instant, " + m + " metadata";
} catch (err) { out = "BAD " + err; }
document.body.textContent = out;
</script></body></html>""" % json.dumps(text))
PY
  "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$WORK/chromium" --dump-dom \
    "file://$WORK/check.html" >"$WORK/dom.html" 2>"$WORK/chromium.err"
  say "chromium: $(grep -o 'OK[^<]*\|BAD[^<]*' "$WORK/dom.html")"
  check "headless Chromium parses the trace and finds every event well-formed" grep -q '<body>OK ' "$WORK/dom.html"
fi
