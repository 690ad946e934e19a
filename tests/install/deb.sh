#!/bin/bash
# The Debian package (issue 22): CPack builds campaign_<version>_<arch>.deb; its Depends name the
# package of every shared library the binary loads; `dpkg -i` installs it into this machine, where
# /usr/bin/campaign answers `--version` and `systems` (profiles from /usr/share/campaign), validates
# and plans a shipped campaign, and `module load campaign` works with Lmod; `dpkg --purge` removes it
# again, so the machine is left as it was. Needs root; holds /tmp/campaign-dpkg.lock while it runs.
#
# Usage: bash tests/install/deb.sh BUILD_DIR SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: dpkg -i needs root"; exit 77; }
for p in cpack dpkg-shlibdeps ldd objdump; do
  command -v $p >/dev/null || { echo "missing: $p (tools/setup.sh installs it)"; exit 77; }
done
[ -r "$lmod_init" ] || { echo "missing: Lmod ($lmod_init; tools/setup.sh installs the package lmod)"; exit 77; }
exec 9>/tmp/campaign-dpkg.lock
flock 9
if dpkg-query -W -f='${Status}' campaign 2>/dev/null | grep -q "install ok installed"; then
  echo "skipped: a campaign package is installed on this machine; this test would replace it"
  exit 77
fi

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg") >"$tmp/cpack.log" 2>&1
check_eq "cpack -G DEB exits 0" 0 $?
version=$(awk -F'"' '/^set\(CPACK_PACKAGE_VERSION / { print $2 }' "$build/CPackConfig.cmake")
deb=$tmp/pkg/campaign_${version}_$(dpkg --print-architecture).deb
check "the package is named campaign_<version>_<arch>.deb: $(basename "$deb")" test -s "$deb"
[ -s "$deb" ] || { cat "$tmp/cpack.log"; finish 99; exit 1; }

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
echo "Recommends: $(dpkg-deb -f "$deb" Recommends)"
names=" $(tr ',|' '\n\n' <<<"$depends" | sed 's/(.*//; s/ //g' | tr '\n' ' ') "
dpkg-deb -x "$deb" "$tmp/root"
# Each library the binary needs itself (NEEDED; apt brings theirs): its package, or a name it
# provides, is in Depends.
undeclared=""
needed=$(objdump -p "$tmp/root/usr/bin/campaign" | awk '$1 == "NEEDED" { print $2 }')
for so in $needed; do
  lib=$(ldd "$tmp/root/usr/bin/campaign" | awk -v so="$so" '$1 == so { print $3 }')
  pkg=$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1)
  [ -z "$pkg" ] && pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1)
  provides=$(dpkg-query -W -f='${Provides}' "$pkg" 2>/dev/null | tr ',' '\n' | sed 's/(.*//; s/ //g')
  found=0
  for n in $pkg $provides; do [[ $names == *" $n "* ]] && found=1; done
  ((found)) || undeclared+=" $so($pkg)"
done
check "the binary needs libraries ($(wc -w <<<"$needed"))" test "$(wc -w <<<"$needed")" -ge 8
check_eq "every library the binary needs is declared by its package" "" "$undeclared"
listing=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for f in ./usr/bin/campaign ./usr/libexec/campaign/campaign-monitor ./usr/share/campaign/systems/local.yaml ./usr/share/campaign/campaigns/weak_scaling.yaml \
  ./usr/share/doc/campaign/README.md "./usr/share/modulefiles/campaign/$version.lua" "./usr/share/modulefiles/campaign/$version"; do
  check "packaged: $f" grep -qx "$f" <<<"$listing"
done

trap 'dpkg --purge campaign >/dev/null 2>&1; rm -rf "$tmp"' EXIT
dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1
check_eq "dpkg -i exits 0" 0 $?
cat "$tmp/dpkg.log"
work=$tmp/work
mkdir -p "$work"
out=$(isolated "$work" /usr/bin/campaign --version)
echo "$out"
check "--version from /usr/bin" grep -q "^campaign $version (/usr/bin/campaign)" <<<"$out"
check "--version: the data in /usr/share/campaign" grep -q "^  1\. installed  */usr/share/campaign  (systems, templates, collectors, campaigns, workloads)" <<<"$out"
out=$(isolated "$work" /usr/bin/campaign systems)
echo "$out"
check "systems: every shipped profile from /usr/share/campaign" \
  test "$(grep -c ' /usr/share/campaign/systems/[a-z]*\.yaml  \[installed\]$' <<<"$out")" -eq "$(ls "$src"/systems/*.yaml | wc -l)"
check "systems: auto picks local here" grep -q "^auto: local " <<<"$out"
isolated "$work" /usr/bin/campaign validate /usr/share/campaign/campaigns/weak_scaling.yaml --system local >"$tmp/v.out" 2>&1
check_eq "validate a shipped campaign" 0 $?
isolated "$work" /usr/bin/campaign plan /usr/share/campaign/campaigns/weak_scaling.yaml --system daint --out "$work/plan" -q
check_eq "plan a shipped campaign for daint" 0 $?
check "28 scripts" test "$(find "$work/plan" -name job.sh | wc -l)" -eq 28
out=$(isolated "$work" /bin/bash --noprofile --norc -c \
  ". $lmod_init; module use /usr/share/modulefiles; module load campaign; module --terse list; echo root=\$CAMPAIGN_ROOT" 2>&1)
check "module use /usr/share/modulefiles; module load campaign" grep -qx "campaign/$version" <<<"$out"
check "CAMPAIGN_ROOT=/usr" grep -qx "root=/usr" <<<"$out"

dpkg --purge campaign >"$tmp/purge.log" 2>&1
check_eq "dpkg --purge campaign exits 0" 0 $?
check "nothing left in /usr/bin or /usr/share" test ! -e /usr/bin/campaign -a ! -e /usr/share/campaign -a ! -e /usr/share/modulefiles/campaign
finish 20
