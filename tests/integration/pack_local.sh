#!/usr/bin/env bash
# Issue 12 (pack, inside the allocation): `campaign pack-exec MANIFEST` on this machine, with eight
# scripted cases (1 and 2 nodes, short sleeps, one failing with 3) over three nodes: never more nodes
# busy than there are, never one node given twice at once (from the .start markers and the .exit
# times), biggest first, each .exit right, a driver started again in the same allocation starts
# nothing. Then SIGTERM mid-way: the driver exits 143, cases that never started have no .start,
# running ones end 143, one that ignores SIGTERM is killed after the manifest's grace (no .exit).
# Bad manifests: exit 2 naming the file.
#
# Usage: bash pack_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 15 s)
source "$(dirname "$0")/lib.sh"

# case_script DIR NAME SECONDS EXIT [BODY]: a case script like templates/pack/case.sh.mustache
# renders, which logs its start and end with the nodes it was given to DIR/../events.
case_script() {
  local dir=$1 name=$2 secs=$3 rc=$4 body=${5:-}
  mkdir -p "$dir"
  cat >"$dir/job.sh" <<SH
#!/bin/bash
cd $dir || exit 1
rm -f .exit
trap 'echo \$? > .exit.tmp && mv -f .exit.tmp .exit' EXIT
trap 'exit 143' TERM
echo "\$(date +%s.%N) start $name \${CAMPAIGN_NODES:-}" >> ../events
${body:-sleep $secs}
echo "\$(date +%s.%N) end $name" >> ../events
exit $rc
SH
}

# manifest ALLOC_DIR JOB_NAME NODES GRACE "NAME NODES SECONDS EXIT"...: writes ALLOC_DIR/manifest.json.
manifest() {
  local dir=$1 job=$2 nodes=$3 grace=$4
  shift 4
  mkdir -p "$dir"
  python3 - "$dir" "$job" "$nodes" "$grace" "$@" <<'PY'
import json, os, sys
d, job, nodes, grace = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
wd = os.path.dirname(os.path.dirname(d))
cases = []
for spec in sys.argv[5:]:
    name, n = spec.split()[:2]
    run = os.path.join(wd, name)
    cases.append({"key": "k-" + name, "case": name, "job_name": "cmpx-" + name + "-a1", "run_dir": run,
                  "nodes": int(n), "ranks": int(n), "walltime_s": 60, "script": run + "/job.sh"})
json.dump({"version": 1, "job_name": job, "partition": "local", "nodes": nodes, "walltime_s": 600,
           "dir": d, "grace_s": grace, "cases": cases}, open(d + "/manifest.json", "w"), indent=1)
PY
}

# --- 1: eight cases over three nodes -----------------------------------------------------------
wd=$WORK/w1
specs=("a 1 1 0" "b 2 2 0" "c 1 2 0" "d 1 1 3" "e 2 1 0" "f 1 1 0" "g 1 2 0" "h 2 1 0")
for s in "${specs[@]}"; do
  read -r name n secs rc <<<"$s"
  case_script "$wd/$name" "$name" "$secs" "$rc"
done
alloc=$wd/.alloc/cmpx-alloc1
manifest "$alloc" cmpx-alloc1 3 5 "${specs[@]}"
"$CAMPAIGN" pack-exec --nodes "n1 n2 n3" "$alloc/manifest.json" >"$WORK/driver1.out" 2>&1
check_eq "pack-exec exits 0 when every case ended (one failed)" 0 $?
sed 's/^/    /' "$WORK/driver1.out"

check "every case's .exit is its exit status, its .start names the allocation" python3 - "$wd" "${specs[@]}" <<'PY'
import json, sys
wd = sys.argv[1]
for spec in sys.argv[2:]:
    name, n, secs, rc = spec.split()
    start = json.load(open(f"{wd}/{name}/.start"))
    assert start["allocation"] == "cmpx-alloc1" and start["job_name"] == f"cmpx-{name}-a1", start
    assert len(start["nodes"]) == int(n) and len(start["slots"]) == int(n), start
    assert open(f"{wd}/{name}/.exit").read().strip() == rc, (name, rc)
PY

check "never more than 3 nodes busy, no node given twice at once, some cases ran together" \
  python3 - "$wd" "${specs[@]}" <<'PY'
import json, os, sys
wd = sys.argv[1]
iv = []
for spec in sys.argv[2:]:
    name = spec.split()[0]
    start = json.load(open(f"{wd}/{name}/.start"))
    iv.append((start["time"], os.stat(f"{wd}/{name}/.exit").st_mtime, set(start["nodes"]), name))
peak = 0
for t, _, _, _ in iv:
    now = [x for x in iv if x[0] <= t < x[1]]
    busy = sum(len(x[2]) for x in now)
    assert busy <= 3, (t, [x[3] for x in now])
    nodes = [n for x in now for n in x[2]]
    assert len(nodes) == len(set(nodes)), (t, [(x[3], x[2]) for x in now])
    peak = max(peak, busy)
assert peak == 3, peak
# The events the cases logged say the same about the nodes they were given.
for line in open(f"{wd}/events"):
    f = line.split()
    if f[1] == "start":
        name = f[2]
        assert f[3].split(",") == json.load(open(f"{wd}/{name}/.start"))["nodes"], line
PY

starts=$(sed -n 's/.*] start \([^ ]*\) .*/\1/p' "$WORK/driver1.out" | tr '\n' ' ')
check_eq "biggest first: the first 2-node case, then the first 1-node case" "b a" "$(cut -d' ' -f1,2 <<<"$starts")"
check_eq "one start and one end line per case" "8 8" \
  "$(grep -c ' start ' "$WORK/driver1.out") $(grep -c ' end ' "$WORK/driver1.out")"

events=$(wc -l <"$wd/events")
"$CAMPAIGN" pack-exec --nodes "n1 n2 n3" "$alloc/manifest.json" >"$WORK/driver1b.out" 2>&1
check_eq "pack-exec started again in the same allocation exits 0" 0 $?
check_eq "... and starts nothing" "8 $events" "$(grep -c 'skip' "$WORK/driver1b.out") $(wc -l <"$wd/events")"

# --- 2: SIGTERM mid-way ---------------------------------------------------------------------------
wd=$WORK/w2
specs=("q 1 30 0" "p 1 30 0" "r 1 30 0" "s 1 30 0" "t 2 30 0")
for s in "${specs[@]}"; do
  read -r name n secs rc <<<"$s"
  case_script "$wd/$name" "$name" "$secs" "$rc"
done
# q ignores SIGTERM (its process does, so its script cannot end): killed after the grace.
case_script "$wd/q" q 30 0 "python3 -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(30)'"
alloc=$wd/.alloc/cmpx-alloc2
manifest "$alloc" cmpx-alloc2 3 2 "${specs[@]}"
"$CAMPAIGN" pack-exec "$alloc/manifest.json" >"$WORK/driver2.out" 2>&1 &
driver=$!
BG_PIDS+=("$driver")
wait_until 10 test -e "$wd/q/.start" -a -e "$wd/t/.start"
sleep 1  # the cases' scripts set their traps
t0=$SECONDS
kill -TERM "$driver"
wait "$driver"
rc=$?
sed 's/^/    /' "$WORK/driver2.out"
check_eq "SIGTERM: pack-exec exits 143" 143 "$rc"
check "... within the grace and a little" test $((SECONDS - t0)) -le 5
check_eq "the running case that stops on SIGTERM ends 143" 143 "$(cat "$wd/t/.exit" 2>/dev/null)"
check "the one that ignores SIGTERM was killed: started, no .exit" test -e "$wd/q/.start" -a ! -e "$wd/q/.exit"
check_eq "cases never started have no .start" "" "$(ls "$wd"/{p,r,s}/.start 2>/dev/null)"
check "no process of the cases is left" bash -c "! pgrep -f 'time.sleep\\(30\\)' >/dev/null"

# --- bad manifests --------------------------------------------------------------------------------
echo '{"version": 1, "job_name": "x"}' >"$WORK/bad.json"
"$CAMPAIGN" pack-exec "$WORK/bad.json" >"$WORK/bad.out" 2>&1
check_eq "a bad manifest: exit 2" 2 $?
check "... naming the file and the key" grep -q "^$WORK/bad.json: partition: required key is missing" "$WORK/bad.out"
"$CAMPAIGN" pack-exec "$WORK/none.json" >"$WORK/none.out" 2>&1
check_eq "a missing manifest: exit 2" 2 $?
