#!/usr/bin/env bash
# Issue 29: does the simulator find bugs planted on purpose? Each patch in bench/planted/ plants one
# (in a scratch copy of engine/decide.cpp, or engine.cpp for `cancel`), one at a time:
#   1 confirm a completion on its marker without waiting for the accounting
#   2 plan again a submission whose outcome is unknown (no grace, no submit record)
#   3 charge a packed case that was never launched
#   4 adopt the older of two jobs of a name and forget the newer (not cancelled)
#   5 `cancel` skips the attempts still submitting
# For each: the scratch tree (a copy of SOURCE_DIR, build/ beside it, the sim target only) is patched,
# built, and `sim --first 1 --count COUNT --allow outage` runs the schedules CI runs (ctest sim_random_a, _b);
# printed: the violation classes it found and after how many schedules the first one, then a TARGET line
# per bug (found within COUNT schedules). The unpatched tree must find nothing (the control).
#
# Usage: bash bench/sim_planted.sh SOURCE_DIR [COUNT] [SCRATCH_DIR]
#   COUNT        schedules per bug (default 100000, as CI)
#   SCRATCH_DIR  where the copy and its build go (default: a new temporary directory, removed at the
#                end; a kept one builds again only what changed, with ccache where set up)
#   ONLY=GLOB    (environment) only the patches whose name matches, e.g. ONLY='3-*'
set -uo pipefail
source "$(dirname "$0")/../tools/usage.sh" "$@"
SRC=$(readlink -f "${1:?SOURCE_DIR}")
COUNT=${2:-100000}
SCRATCH=${3:-}
source "$SRC/bench/lib.sh"
if [[ -z $SCRATCH ]]; then
  SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/campaign-planted.XXXXXX")
  trap 'rm -rf "$SCRATCH"' EXIT
fi
mkdir -p "$SCRATCH"
FAILED=0

# The scratch copy: the source tree as it is (uncommitted changes too), without build outputs. Each
# patch is applied, then reversed (a fresh mtime each time: the build compiles the file again).
sync_tree() {
  # Only files whose content differs are written (a fresh mtime), so that the build compiles them again.
  local stage=$SCRATCH/.stage f
  rm -rf "$stage" && mkdir -p "$stage" || return 1
  (cd "$SRC" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$stage" || return 1
  while IFS= read -r -d '' f; do
    f=${f#./}
    cmp -s "$stage/$f" "$SCRATCH/$f" && continue
    mkdir -p "$(dirname "$SCRATCH/$f")" && cat "$stage/$f" >"$SCRATCH/$f.new" && mv "$SCRATCH/$f.new" "$SCRATCH/$f" &&
      chmod --reference="$stage/$f" "$SCRATCH/$f"
  done < <(cd "$stage" && find . -type f -print0)
  rm -rf "$stage"
}
build() {
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$SCRATCH" -B "$SCRATCH/build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >"$SCRATCH/cmake.log" 2>&1 &&
    cmake --build "$SCRATCH/build" --target sim -j "$(nproc)" >"$SCRATCH/build.log" 2>&1
}
# run NAME: the simulator over COUNT schedules; prints its classes and sets FIRST (schedules until the
# first violation; empty when none).
run() {
  local out=$SCRATCH/$1.sim
  "$SCRATCH/build/tests/sim/sim" --first 1 --count "$COUNT" --allow outage >"$out" 2>&1
  FIRST=$(awk '/schedules; first: seed/ && !/\[allowed\]/ { sub(/.*\(after /, ""); sub(/ schedules.*/, ""); print }' "$out" |
    sort -n | head -1)
  echo "  $(head -1 "$out")"
  grep 'schedules; first: seed' "$out" | sed 's/^/  /'
}

declare -A found
sync_tree || { echo "cannot copy $SRC"; exit 1; }
echo "control: the tree as it is"
if build; then
  run control
  [[ -z $FIRST ]] || fail "the unpatched engine violates an invariant within $COUNT schedules"
else
  tail -20 "$SCRATCH/build.log"
  fail "the scratch tree does not build"
fi
patches=("$SRC"/bench/planted/${ONLY:-*}.patch)
for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  echo "$name: $(head -1 "$patch")"
  if ! patch -d "$SCRATCH" -p1 --quiet <"$patch"; then
    fail "$name does not apply"
    continue
  fi
  if ! build; then
    tail -20 "$SCRATCH/build.log"
    fail "$name does not build"
    continue
  fi
  run "$name"
  found[$name]=$FIRST
  # Unplanted again (a fresh mtime: the next build compiles the file again).
  patch -d "$SCRATCH" -p1 -R --quiet <"$patch" || fail "$name does not come out again"
done

for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  target "planted bug $name found after" "${found[$name]:-}" "<=" "$COUNT" schedules || FAILED=1
done
exit "$FAILED"
