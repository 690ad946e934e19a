#!/usr/bin/env bash
# Issue 20, packed cases share nodes by what they use, on a real Slurm:
#  - campaigns/packsub.yaml, 32 one-core `sleep 6` cases on the 4 mc nodes of 4 cores: from sacct,
#    the steps on one node overlap, never more than 4 at once and 4 at some moment on every node (the
#    allocation's wall time against the 12 s floor is printed, not asserted: a speed, which
#    bench/modes_bench.sh's subnode mode measures against its target);
#  - campaigns/packgpu.yaml, 4 one-GPU cases on the 2 gn nodes (Gres=gpu:2): 2 per node at once, each
#    with its own CUDA_VISIBLE_DEVICES, as Slurm bound them.
#
# Usage: bash pack_subnode_slurm.sh CAMPAIGN_BINARY SOURCE_DIR        (label slurm; about 60 s)
source "$(dirname "$0")/lib.sh"
ensure_cluster

# steps_of WORKDIR: "node start end" of each step of the campaign's allocations (epoch seconds).
steps_of() {
  local allocs
  allocs=$(cases "$1" | cut -f4 | sort -u | paste -sd, -)
  sacct -n -P -j "$allocs" -o JobID,NodeList,Start,End 2>/dev/null | awk -F'|' '$1 ~ /\.[0-9]+$/' |
    while IFS='|' read -r _ node start end; do
      echo "$node $(date -d "$start" +%s) $(date -d "$end" +%s)"
    done
}
# most_at_once: per node, the most steps running at one moment (from "node start end" lines).
most_at_once() {
  /usr/bin/python3 -c '
import collections, sys
by = collections.defaultdict(list)
for line in sys.stdin:
    node, s, e = line.split()
    by[node].append((int(s), int(e)))
for node in sorted(by):
    print(node, max(sum(1 for s2, e2 in by[node] if s2 <= s < e2) for s, _ in by[node]))'
}
# wait_steps WORKDIR N: until sacct has N ended steps of the campaign's allocations (at most 60 s).
wait_steps() {
  local deadline=$((SECONDS + 60))
  until (($(steps_of "$1" | awk '$3 > 0' | wc -l) >= $2)) || ((SECONDS >= deadline)); do sleep 1; done
}

wd=$WORK/packsub
"$CAMPAIGN" run "$SRC/tests/integration/campaigns/packsub.yaml" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "packsub: the run exits 0" 0 $?
check_eq "packsub: every case completed at attempt 1" "32 32" \
  "$(count_state "$wd" completed) $(cases "$wd" | awk -F'\t' '$3 == 1' | wc -l)"
wait_steps "$wd" 32
steps=$(steps_of "$wd")
check_eq "packsub: 32 steps in accounting" 32 "$(wc -l <<<"$steps")"
at_once=$(most_at_once <<<"$steps")
say "most steps at once per node: $(tr '\n' ';' <<<"$at_once")"
check_eq "packsub: 4 nodes, 4 steps at once on each, never more" "cn1 4;cn2 4;cn3 4;cn4 4;" \
  "$(sort <<<"$at_once" | tr '\n' ';')"
alloc=$(cases "$wd" | cut -f4 | sort -u)
check_eq "packsub: one allocation" 1 "$(wc -l <<<"$alloc")"
wall=$(sacct -n -P -X -j "$alloc" -o ElapsedRaw 2>/dev/null | head -1)
say "allocation $alloc: ${wall}s of wall time (floor 12 s; whole nodes would take 48 s)"

wd=$WORK/packgpu
"$CAMPAIGN" run "$SRC/tests/integration/campaigns/packgpu.yaml" --workdir "$wd" -q 2>>"$WORK/stderr.txt"
check_eq "packgpu: the run exits 0" 0 $?
check_eq "packgpu: every case completed" 4 "$(count_state "$wd" completed)"
seen=$(for d in "$wd"/gpu-r*; do head -1 "$d/gpu.txt" | cut -d' ' -f1,2; done | sort)
say "node and CUDA_VISIBLE_DEVICES of each case: $(tr '\n' ';' <<<"$seen")"
check_eq "packgpu: 2 cases on each gn node, with GPUs 0 and 1" "gn1 0;gn1 1;gn2 0;gn2 1;" "$(tr '\n' ';' <<<"$seen")"
# Both cases of a node ran at the same time: each started before the other ended.
overlap=$(/usr/bin/python3 - "$wd" <<'PY'
import collections, glob, sys
by = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + "/gpu-r*/gpu.txt"):
    first, last = open(f).read().split("\n")[:2]
    node, _, start = first.split()
    by[node].append((float(start), float(last)))
print(sum(1 for runs in by.values() if len(runs) == 2 and max(s for s, _ in runs) < min(e for _, e in runs)))
PY
)
check_eq "packgpu: the two cases of each node overlapped" 2 "$overlap"
if [[ -s $WORK/stderr.txt ]]; then
  say "stderr of the runs:"
  sort "$WORK/stderr.txt" | uniq -c | head
fi
