#!/bin/bash
# Where profiles come from (issue 22): the campaign's own folder, then the user's folder
# ($XDG_CONFIG_HOME/campaign, default ~/.config/campaign), then the site's ($CAMPAIGN_PATH), then the
# shipped ones. `campaign systems` lists every profile with its file, the files it hides and what
# `auto` picks; `campaign paths` and `--version` print the order; a user profile that overrides a
# shipped one is what `plan` renders; collectors follow the same order.
#
# Usage: bash tests/cli/systems.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$(readlink -f "$2")
unset CAMPAIGN_PATH XDG_CONFIG_HOME CAMPAIGN_HOSTNAME
export HOME=$tmp/home
mkdir -p "$HOME"

out=$("$exe" --version)
check_eq "--version exits 0" 0 $?
check "--version: the version first" grep -q "^campaign [0-9]\+\.[0-9]\+\.[0-9]\+ (" <<<"$out"
check "--version: the user folder (~/.config/campaign without XDG_CONFIG_HOME)" \
  grep -q "^  1\. user  *$HOME/.config/campaign  (nothing there)" <<<"$out"
check "--version: a build-tree binary reads the source tree last" grep -q "^  2\. source tree  *$src  (systems," <<<"$out"

# A user profile named like a shipped one overrides it; a site profile adds a system.
user=$tmp/xdg/campaign
mkdir -p "$user/systems" "$user/collectors" "$tmp/site1/systems" "$tmp/site2/systems"
sed 's/^description: .*/description: my laptop, with my environment/' "$src/systems/local.yaml" >"$user/systems/local.yaml"
cat >>"$user/systems/local.yaml" <<'YAML'
env: {FROM_USER_PROFILE: "yes"}
YAML
cp "$src/systems/testcluster.yaml" "$tmp/site1/systems/mysite.yaml"
sed -i 's/^name: .*/name: mysite/; s/^hostnames:.*/hostnames: ["mysite-login[0-9]+"]/' "$tmp/site1/systems/mysite.yaml"
grep -q '^hostnames: \["mysite' "$tmp/site1/systems/mysite.yaml" || echo 'hostnames: ["mysite-login[0-9]+"]' >>"$tmp/site1/systems/mysite.yaml"
cp "$tmp/site1/systems/mysite.yaml" "$tmp/site2/systems/mysite.yaml"
cp "$user/systems/local.yaml" "$tmp/site2/systems/local.yaml"
export XDG_CONFIG_HOME=$tmp/xdg CAMPAIGN_PATH=$tmp/site1:$tmp/site2

out=$("$exe" systems 2>&1)
check_eq "systems exits 0" 0 $?
echo "$out"
check "local comes from the user folder" grep -q "^  local  *local  *$user/systems/local.yaml  \[user\]" <<<"$out"
check "and hides the site's and the shipped one, in order" \
  test "$(grep -A2 "^  local " <<<"$out" | tail -2 | awk '{ print $2 }' | tr '\n' ' ')" = "$tmp/site2/systems/local.yaml $src/systems/local.yaml "
check "mysite from the first site folder" grep -q "^  mysite  *slurm  *$tmp/site1/systems/mysite.yaml  \[site (CAMPAIGN_PATH)\]" <<<"$out"
check "daint from the source tree" grep -q "^  daint  *slurm  *$src/systems/daint.yaml  \[source tree\]" <<<"$out"
check "auto picks local on this host" grep -q "^auto: local (no profile matches host " <<<"$out"
out=$(CAMPAIGN_HOSTNAME=mysite-login3 "$exe" systems 2>&1)
check "auto picks the site's profile on its login node" grep -q "^auto: mysite (host mysite-login3)" <<<"$out"

out=$("$exe" paths)
check "paths: user, site folders, source tree, in that order" test "$(grep -oE '^  [0-9]\. [a-z]+' <<<"$out" | awk '{ print $2 }' | tr '\n' ' ')" = "user site site source "

# plan renders the user's profile (its env), not the shipped one.
mkdir -p "$tmp/c"
cat >"$tmp/c/tiny.yaml" <<'YAML'
name: tiny
system: local
matrix: {n: [1]}
case_name: tiny-{{n}}
job: {ranks: 1, walltime: 1m, launch: false, command: "true"}
YAML
"$exe" plan "$tmp/c/tiny.yaml" --out "$tmp/plan1" >/dev/null
check "plan renders the user's local profile" grep -q "^export FROM_USER_PROFILE=yes" "$tmp/plan1/tiny-1/job.sh"

# The campaign's own folder comes first: its systems/local.yaml beats the user's.
mkdir -p "$tmp/c/systems"
sed 's/FROM_USER_PROFILE/FROM_CAMPAIGN_FOLDER/' "$user/systems/local.yaml" >"$tmp/c/systems/local.yaml"
"$exe" plan "$tmp/c/tiny.yaml" --out "$tmp/plan2" >/dev/null
check "the campaign's folder wins over the user's" grep -q "^export FROM_CAMPAIGN_FOLDER=yes" "$tmp/plan2/tiny-1/job.sh"
out=$("$exe" systems "$tmp/c/tiny.yaml")
check "systems FILE: local from the campaign's folder" grep -q "^  local  *local  *$tmp/c/systems/local.yaml  \[campaign\]" <<<"$out"
out=$("$exe" paths "$tmp/c/tiny.yaml")
check "paths FILE: the campaign's folder first" grep -q "^  1\. campaign  *$tmp/c  (systems)" <<<"$out"
rm -r "$tmp/c/systems"
# Also when it holds only a later folder (collectors/): listed first, as it is searched (issue 33).
mkdir -p "$tmp/c/collectors"
out=$("$exe" paths "$tmp/c/tiny.yaml")
check "paths FILE: a campaign folder with collectors/ only, first" grep -q "^  1\. campaign  *$tmp/c  (collectors)" <<<"$out"
rm -r "$tmp/c/collectors"

# A shipped campaign keeps the shipped place: the user's profile still overrides.
"$exe" plan "$src/campaigns/weak_scaling.yaml" --system local --out "$tmp/plan3" >/dev/null
check "a shipped campaign reads the user's local profile" \
  grep -q "^export FROM_USER_PROFILE=yes" "$tmp/plan3/scaling-cpu-n1/job.sh"

# Collectors: a user collector shadows the shipped one of the same name.
sed 's/epoch_time/user_epoch_time/g' "$src/collectors/cosmoflow.yaml" >"$user/collectors/cosmoflow.yaml"
"$exe" validate "$src/campaigns/weak_scaling.yaml" --system local >"$tmp/v.out" 2>&1
check_eq "validate with the user's collector cosmoflow (it renames epoch_time): exit 2" 2 $?
check "validate read the user's collector" grep -q "unknown metric 'epoch_time', did you mean 'user_epoch_time'" "$tmp/v.out"
rm "$user/collectors/cosmoflow.yaml"

# A relative XDG_CONFIG_HOME is ignored (XDG), ~/.config/campaign is used instead.
mkdir -p "$HOME/.config/campaign/systems"
cp "$src/systems/local.yaml" "$HOME/.config/campaign/systems/homeonly.yaml"
out=$(XDG_CONFIG_HOME=relative/dir "$exe" systems)
check "a relative XDG_CONFIG_HOME falls back to ~/.config/campaign" grep -q "^  homeonly .*$HOME/.config/campaign/systems/homeonly.yaml  \[user\]" <<<"$out"

"$exe" plan "$tmp/c/tiny.yaml" --system nosuch >/dev/null 2>"$tmp/err"
check_eq "an unknown system: exit 2" 2 $?
check "and the message points at campaign systems" grep -q "unknown system 'nosuch' (see \`campaign systems\`)" "$tmp/err"
finish 20
