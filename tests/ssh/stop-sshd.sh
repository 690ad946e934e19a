#!/usr/bin/env bash
# Stops the servers start-sshd.sh started in DIR: each listener named by a pid file there, and every
# process below it (per-connection sshd children and the commands they run). Only those pids are
# signalled. Leaves DIR in place; safe to run twice.
#
# Usage: stop-sshd.sh DIR
source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: stop-sshd.sh DIR" >&2; exit 1; }
dir=$1

# alive PID: the process exists and is not a zombie (the daemon's parent, often pid 1 in a
# container, may be slow to reap it or never do so).
alive() {
  local stat
  stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ -n "$stat" ] && [ "${stat#Z}" = "$stat" ]
}

descendants() {  # descendants PID: every process below PID, deepest last
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

for pidfile in "$dir"/target.pid "$dir"/jump.pid; do
  [ -s "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  alive "$pid" || { rm -f "$pidfile"; continue; }
  # Frozen first, from the listener down: a connection it accepted, or a session a connection forked,
  # while the tree was being listed would otherwise outlive the stop, and a client reconnecting at
  # that moment would go on through it (ssh_reconnect saw a run that never noticed the stop).
  kill -STOP "$pid" 2>/dev/null
  for _ in 1 2 3; do
    children=$(descendants "$pid")
    # shellcheck disable=SC2086
    [ -n "$children" ] && kill -STOP $children 2>/dev/null
  done
  children=$(descendants "$pid")
  # shellcheck disable=SC2086
  kill -KILL $children "$pid" 2>/dev/null
  for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.02; done
  rm -f "$pidfile"
done
exit 0
