#!/bin/bash
# The installed tree (issue 22): `cmake --install` into a temporary prefix, the prefix moved, then
# `--version`, `systems`, `validate`, `plan` and a tiny `run` on `local` from the moved prefix with an
# empty environment (no CAMPAIGN_PATH, no HOME), outside the source tree and, as root, with the
# source tree hidden; the same through `module load campaign` with Lmod (the Lua modulefile, and the
# Tcl one in a copy without it).
#
# Usage: bash tests/install/prefix.sh BUILD_DIR SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
[ -r "$lmod_init" ] || { echo "missing: Lmod ($lmod_init; tools/setup.sh installs the package lmod)"; exit 77; }
version=$(awk -F'"' '/^set\(CPACK_PACKAGE_VERSION / { print $2 } /^CPACK_PACKAGE_VERSION/ { print $2 }' "$build/CPackConfig.cmake" | head -1)
echo "version $version; source tree hidden from the installed binary: $hidden"

cmake --install "$build" --prefix "$tmp/first" >"$tmp/install.log" 2>&1
check_eq "cmake --install exits 0" 0 $?
mkdir -p "$tmp/elsewhere"
mv "$tmp/first" "$tmp/elsewhere/campaign-$version"
p=$tmp/elsewhere/campaign-$version
for f in bin/campaign libexec/campaign/campaign-monitor share/campaign/systems/local.yaml share/campaign/templates/slurm.sh.mustache \
  share/campaign/collectors/cosmoflow.yaml share/campaign/campaigns/weak_scaling.yaml \
  share/campaign/workloads/minicosmo/train.py share/doc/campaign/README.md \
  "share/modulefiles/campaign/$version.lua" "share/modulefiles/campaign/$version"; do
  check "installed: $f" test -e "$p/$f"
done
check "no run directories or caches installed" test -z "$(find "$p" -name runs -o -name __pycache__ -o -name '*.pyc')"

work=$tmp/work
tiny_campaign "$work"
out=$(isolated "$work" "$p/bin/campaign" --version)
echo "$out"
check "--version: the version" grep -q "^campaign $version ($p/bin/campaign)" <<<"$out"
check "--version: the moved prefix's data, installed" grep -q "^  1\. installed  *$p/share/campaign  (systems, templates, collectors, campaigns, workloads)" <<<"$out"
check "--version: never the source tree" test -z "$(grep -F "$src" <<<"$out")"
out=$(isolated "$work" "$p/bin/campaign" systems)
check "systems: local from the moved prefix" grep -q "^  local  *local  *$p/share/campaign/systems/local.yaml  \[installed\]" <<<"$out"
check "systems: auto picks local" grep -q "^auto: local " <<<"$out"

isolated "$work" "$p/bin/campaign" validate tiny.yaml >"$tmp/v.out" 2>&1
check_eq "validate from the moved prefix" 0 $?
isolated "$work" "$p/bin/campaign" plan tiny.yaml --out plan >"$tmp/p.out" 2>&1
check_eq "plan from the moved prefix" 0 $?
check "plan: the launcher is the moved binary" grep -q "^$p/bin/campaign launch " "$work/plan/tiny-s1/job.sh"
isolated "$work" "$p/bin/campaign" run tiny.yaml -q >"$tmp/r.out" 2>&1
check_eq "run from the moved prefix" 0 $?
cat "$tmp/r.out"
out=$(isolated "$work" "$p/bin/campaign" status tiny.yaml)
check_eq "both cases collected (the shipped collector found)" 2 "$(grep -c ' collected ' <<<"$out")"
check "the ranks ran through the moved binary's launcher" grep -rqs "rank 1 of 2" "$work/runs/tiny/tiny-s2"
# Without its monitor program an installation starts no job: `run` says so at once, before any.
mv "$p/libexec/campaign/campaign-monitor" "$tmp/monitor-aside"
out=$(isolated "$work" "$p/bin/campaign" run tiny.yaml --workdir "$work/nomonitor" -q 2>&1)
check_eq "run without campaign-monitor fails" 1 $?
check "... naming what is missing and where it was looked for ($out)" \
  grep -qF "campaign-monitor is missing (looked for $p/bin/campaign-monitor, $p/libexec/campaign/campaign-monitor)" <<<"$out"
check "... before any submission" test -z "$(ls "$work/nomonitor/.local/jobs" 2>/dev/null)"
mv "$tmp/monitor-aside" "$p/libexec/campaign/campaign-monitor"
# An installed campaign's default work directory is in the current directory, never in the prefix.
out=$(isolated "$work" "$p/bin/campaign" status "$p/share/campaign/campaigns/weak_scaling.yaml" 2>&1)
check "an installed campaign works in ./runs/NAME ($out)" grep -qF "no catalog in $work/runs/cosmoflow-weak-scaling:" <<<"$out"

# Through the modulefiles, with Lmod.
modrun() { # PREFIX COMMANDS: bash with Lmod, the prefix's modulefiles used, campaign loaded
  isolated "$work" /bin/bash --noprofile --norc -c ". $lmod_init; module use $1/share/modulefiles; module load campaign; $2" 2>&1
}
out=$(modrun "$p" 'module --terse list; command -v campaign; echo "root=$CAMPAIGN_ROOT"')
echo "$out"
check "module load campaign (Lua): loaded as campaign/$version" grep -qx "campaign/$version" <<<"$out"
check "module load campaign: the moved prefix's binary on the PATH" grep -qx "$p/bin/campaign" <<<"$out"
check "module load campaign: CAMPAIGN_ROOT is the prefix" grep -qx "root=$p" <<<"$out"
rm -rf "$work/runs"
out=$(modrun "$p" 'campaign validate tiny.yaml && campaign plan tiny.yaml -q && campaign run tiny.yaml -q && campaign status tiny.yaml')
check_eq "validate, plan, run through the module: both cases collected" 2 "$(grep -c ' collected ' <<<"$out")"
out=$(modrun "$p" 'module unload campaign; command -v campaign || echo gone')
check "module unload campaign takes it off the PATH" grep -qx gone <<<"$out"

cp -a "$p" "$tmp/tclcopy"
rm "$tmp/tclcopy/share/modulefiles/campaign/$version.lua"
out=$(modrun "$tmp/tclcopy" 'command -v campaign; echo "root=$CAMPAIGN_ROOT"; campaign --version')
echo "$out"
check "module load campaign (Tcl modulefile): its prefix's binary" grep -qx "$tmp/tclcopy/bin/campaign" <<<"$out"
check "module load campaign (Tcl modulefile): CAMPAIGN_ROOT" grep -qx "root=$tmp/tclcopy" <<<"$out"
finish 25
