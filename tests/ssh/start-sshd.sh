#!/usr/bin/env bash
# Starts throwaway OpenSSH servers on 127.0.0.1 for the SSH transport tests and the SSH bench: a
# target and a jump host (only the jump host allows TCP forwarding, so a session that reaches the
# target through it really went through the jump). Everything lives in DIR: host keys, one user key
# (ed25519, in authorized_keys), known_hosts with both host keys, configs, logs and pid files.
#
# Usage: start-sshd.sh DIR [--rekey|--restart]
#
#   start-sshd.sh DIR            start both servers; prints KEY=VALUE lines (also written to DIR/env):
#                                SSHD_PORT JUMP_PORT SSH_USER IDENTITY KNOWN_HOSTS SSHD_PID JUMP_PID
#   start-sshd.sh DIR --rekey    give the running target a new host key (same port) and wait until
#                                it serves it
#   start-sshd.sh DIR --restart  start the target again, same port and keys, after stop-sshd.sh
#
# SSHD_EXTRA_CONFIG (environment) holds sshd_config lines for the target only; they come first, so
# they win over the defaults below. Runs as root (logging in as root) or as any user (logging in as
# that user). Exit status 3 when sshd is not installed.
SCRIPT_OPTIONS="--rekey --restart" source "$(dirname "$0")/../../tools/usage.sh" "$@"
set -euo pipefail

die() { echo "start-sshd.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: start-sshd.sh DIR [--rekey|--restart]"
dir=$1
mode=${2:-start}

sshd=
for candidate in "$(command -v sshd 2>/dev/null || true)" /usr/sbin/sshd /usr/local/sbin/sshd; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then sshd=$candidate; break; fi
done
if [ -z "$sshd" ]; then
  echo "start-sshd.sh: sshd not found: install OpenSSH's server (Debian: apt-get install openssh-server)" >&2
  exit 3
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
user=$(id -un)
# Debian's sshd refuses to start without its privilege separation directory when run as root.
if [ "$(id -u)" = 0 ]; then mkdir -p /run/sshd && chmod 0755 /run/sshd; fi

new_key() {  # new_key FILE COMMENT: a fresh ed25519 key pair without passphrase
  rm -f "$1" "$1.pub"
  ssh-keygen -q -t ed25519 -N '' -C "$2" -f "$1" </dev/null
}

listening_lines() { grep -c 'Server listening on' "$1" 2>/dev/null || true; }

# launch NAME: starts sshd from NAME_sshd_config; true once it listens. The daemon writes its pid
# file only after its listening socket is bound.
launch() {
  local name=$1
  local pidfile=$dir/$name.pid log=$dir/$name.log
  rm -f "$pidfile"
  : >"$log"
  "$sshd" -f "$dir/${name}_sshd_config" -E "$log" || return 1
  for _ in $(seq 1 100); do
    [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && return 0
    grep -q -e 'Cannot bind' -e 'fatal' "$log" 2>/dev/null && return 1
    sleep 0.05
  done
  return 1
}

# start_server NAME FORWARDING: writes NAME_sshd_config, starts sshd on a free port, prints the port.
start_server() {
  local name=$1 forwarding=$2 extra=${3:-}
  local config=$dir/${name}_sshd_config port
  [ -f "$dir/${name}_host_ed25519" ] || new_key "$dir/${name}_host_ed25519" "campaign-test-$name-host"
  for _ in $(seq 1 30); do
    port=$((20000 + RANDOM % 40000))
    if command -v ss >/dev/null && ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then continue; fi
    {
      [ -n "$extra" ] && printf '%s\n' "$extra"
      cat <<CONFIG
ListenAddress 127.0.0.1:$port
HostKey $dir/${name}_host_ed25519
PidFile $dir/$name.pid
AuthorizedKeysFile $dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
StrictModes no
AllowTcpForwarding $forwarding
AllowAgentForwarding no
X11Forwarding no
PrintMotd no
PrintLastLog no
LogLevel VERBOSE
Subsystem sftp internal-sftp
# Hermetic commands: bash skips ~/.bashrc for sshd-started commands when it is not a top-level
# shell, so the tester's rc files neither slow every command down nor print into its output.
SetEnv SHLVL=1
CONFIG
      # No AcceptEnv line: the default accepts no client environment variables.
    } >"$config"
    launch "$name" && { echo "$port"; return 0; }
  done
  cat "$dir/$name.log" >&2
  die "could not start sshd ($name); log above"
}

if [ "$mode" = --rekey ]; then
  pid=$(cat "$dir/target.pid")
  before=$(listening_lines "$dir/target.log")
  new_key "$dir/target_host_ed25519" campaign-test-target-host-rekeyed
  kill -HUP "$pid"  # sshd re-executes itself: same pid and port, host keys read again
  for _ in $(seq 1 100); do
    [ "$(listening_lines "$dir/target.log")" -gt "$before" ] && exit 0
    sleep 0.05
  done
  die "sshd did not restart after SIGHUP"
fi
if [ "$mode" = --restart ]; then
  launch target || { cat "$dir/target.log" >&2; die "could not restart sshd"; }
  exit 0
fi
[ "$mode" = start ] || die "unknown option $mode"

[ -f "$dir/user_ed25519" ] || new_key "$dir/user_ed25519" campaign-test-user
cp "$dir/user_ed25519.pub" "$dir/authorized_keys"

port=$(start_server target no "${SSHD_EXTRA_CONFIG:-}")
jump_port=$(start_server jump yes)

{
  printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$dir/target_host_ed25519.pub")"
  printf '[127.0.0.1]:%s %s\n' "$jump_port" "$(cut -d' ' -f1,2 "$dir/jump_host_ed25519.pub")"
} >"$dir/known_hosts"

cat >"$dir/env" <<ENV
SSHD_PORT=$port
JUMP_PORT=$jump_port
SSH_USER=$user
IDENTITY=$dir/user_ed25519
KNOWN_HOSTS=$dir/known_hosts
SSHD_PID=$(cat "$dir/target.pid")
JUMP_PID=$(cat "$dir/jump.pid")
ENV
cat "$dir/env"
