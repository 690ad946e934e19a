#!/usr/bin/env bash
# Benchmark of `campaign site` (issue 14): a site over N runs (default 1000) of the weak-scaling
# campaign (local sizes: 12 train cases of 4 epochs each) tracking three metrics. One run is made by
# `campaign import` with its report; the others are copies of its work directory, each given its own
# commit, commit date (a day apart) and a noisy factor on its epoch times (the last 10 % slower).
# Printed: the wall time of `campaign site`, its peak memory, the size of index.html and of the
# whole site. Targets, one TARGET line each at the end: wall <= 5 s (issue 35), index.html <= 2 MB. When the
# import or the site fails (the site's status 3, regressions found, is its expected answer here):
# FAILED, no figures, exit status 1.
#
# Usage: bash bench/site_bench.sh CAMPAIGN_BINARY [SOURCE_DIR] [--runs N]
SCRIPT_OPTIONS="--runs" source "$(dirname "$0")/../tools/usage.sh" "$@"
set -uo pipefail

CAMPAIGN=$(readlink -f "$1")
shift
SRC=$(readlink -f "$(dirname "$0")/..")
if [[ $# -gt 0 && $1 != --* ]]; then
  SRC=$(readlink -f "$1")
  shift
fi
RUNS=1000
[[ ${1:-} == --runs ]] && RUNS=$2
source "$SRC/bench/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/site-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK

cp "$SRC/campaigns/weak_scaling.yaml" "$WORK/"
cat >>"$WORK/weak_scaling.yaml" <<'YAML'
track:
  - throughputs@ranks=4
  - metric: epoch_time@ranks=4,data=real
    threshold: 10
  - eff@max
commit_url: "https://example.org/org/repo/commit/{{commit}}"
YAML
for p in gpu cpu; do
  for d in "" -dummy; do
    for r in 1 2 4; do
      mkdir -p "$WORK/tree/scaling-$p$d-n$r"
      {
        echo "epoch,loss,lr,mae,time,val_loss,val_mae"
        for e in 0 1 2 3; do echo "$e,0.4,0.01,0.2,$((e == 0 ? 3 : 1)).$r,0.4,0.2"; done
      } >"$WORK/tree/scaling-$p$d-n$r/history.csv"
    done
  done
done
"$CAMPAIGN" import "$WORK/weak_scaling.yaml" --system local --from "$WORK/tree" --workdir "$WORK/seed" \
  --label seed >/dev/null 2>&1 || {
  fail "campaign import failed"
  target "campaign site over $RUNS runs, wall" "" "<=" 5 s
  target "index.html" "" "<=" 2048 KB
  exit 1
}
"$CAMPAIGN" report "$WORK/seed" >/dev/null 2>&1 || echo "no report (gnuplot missing?): the site links none"

echo "making $RUNS runs"
for ((i = 1; i <= RUNS; i++)); do
  d=$WORK/runs/$(printf 'night-%04d' "$i")
  mkdir -p "$d"
  cp -r "$WORK/seed/campaign.db" "$WORK/seed/report" "$d/" 2>/dev/null
done
/usr/bin/python3 - "$WORK/runs" "$RUNS" <<'PY'
import hashlib, random, sqlite3, struct, sys
root, n = sys.argv[1], int(sys.argv[2])
random.seed(14)
for i in range(1, n + 1):
    c = sqlite3.connect(f"{root}/night-{i:04d}/campaign.db")
    commit = hashlib.sha1(str(i).encode()).hexdigest()
    factor = random.gauss(1.0, 0.02) * (1.2 if i > 0.9 * n else 1.0)
    c.execute("update campaigns set code_commit = ?, code_version = ?, code_date = ?",
              (commit, commit[:10], 1767225600 + 86400 * i))
    for rid, vals in c.execute("select id, vals from metric_series where name = 'epoch_time'").fetchall():
        v = [x * factor for x in struct.unpack(f"{len(vals) // 8}d", vals)]
        c.execute("update metric_series set vals = ? where id = ?", (struct.pack(f"{len(v)}d", *v), rid))
    c.commit()
    c.close()
PY

/usr/bin/time -f "%e %M" -o "$WORK/time" "$CAMPAIGN" site "$WORK/runs" --out "$WORK/site" >"$WORK/out" 2>"$WORK/err"
status=$?
wall="" index_kb=""
if [[ $status == 0 || $status == 3 ]] && [[ -s $WORK/site/index.html ]]; then
  read -r wall rss < <(tail -1 "$WORK/time")
  index_kb=$(($(stat -c %s "$WORK/site/index.html") / 1024))
  echo "runs:        $RUNS (status $status: $(grep -c '^REGRESSION' "$WORK/out") regressed series)"
  echo "wall:        $wall s"
  echo "peak memory: $((rss / 1024)) MB"
  echo "index.html:  $index_kb KB"
  echo "site:        $(du -sm "$WORK/site" | cut -f1) MB in $(find "$WORK/site" -type f | wc -l) files"
else
  fail "campaign site exited $status"
fi
head -3 "$WORK/err"
target "campaign site over $RUNS runs, wall" "$wall" "<=" 5 s
target "index.html" "$index_kb" "<=" 2048 KB
exit "$FAILED"
