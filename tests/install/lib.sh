# Shared by the installation tests (tests/install/*.sh), sourced after `set -u` with the build
# directory and the source tree as $1 and $2: the CLI tests' checks (tests/cli/lib.sh: tmp, check,
# check_eq, finish), and
#
#   isolated DIR CMD...   runs CMD in DIR with an empty environment and, where a private mount
#                         namespace is allowed (root), the source tree hidden under an empty tmpfs,
#                         so nothing can be read from it; $hidden says whether it was.
#   lmod_init             Lmod's bash init (Debian package lmod); the test is skipped without it.
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
build=$(readlink -f "$1")
src=$(readlink -f "$2")
lmod_init=/usr/share/lmod/lmod/init/bash

hidden=no
if [ "$(id -u)" = 0 ] && /usr/bin/unshare -m /bin/sh -c "mount -t tmpfs -o size=1m none '$src'" 2>/dev/null; then
  hidden=yes
fi
isolated() { # DIR CMD...
  local dir=$1
  shift
  if [ $hidden = yes ]; then
    env -i /usr/bin/unshare -m /bin/sh -c 'mount -t tmpfs -o size=1m none "$0" && cd "$1" && shift && exec "$@"' \
      "$src" "$dir" "$@"
  else
    (cd "$dir" && env -i "$@")
  fi
}

# tiny_campaign DIR: a campaign of two cases on `local` (2 ranks through the built-in launcher, then
# a history.csv for the shipped collector `cosmoflow`), written outside the source tree.
tiny_campaign() {
  mkdir -p "$1"
  cat >"$1/tiny.yaml" <<'YAML'
name: tiny
system: auto
matrix:
  scale: [1, 2]
case_name: tiny-s{{scale}}
job:
  ranks: 2
  cpus_per_rank: 1
  walltime: 5m
  command: >-
    /bin/bash -c 'echo "rank $RANK of $WORLD_SIZE";
    if [ "$RANK" = 0 ]; then printf "epoch,loss,lr,mae,time,val_loss,val_mae\n0,0.5,0.01,0.3,2.0,0.5,0.3\n1,0.4,0.01,0.2,1.0,0.4,0.2\n" >history.csv; fi'
collectors: [cosmoflow]
YAML
}
