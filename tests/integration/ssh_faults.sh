#!/usr/bin/env bash
# Issue 5 (ssh): what goes wrong before a run can start, against a real sshd (and jump host) on
# 127.0.0.1, each a clear one-line error naming user@host:port (and the host key's fingerprint), exit
# status 1, and nothing submitted (no catalog is even created): a refused port, a key the server does
# not know, an unknown host key (then --accept-new-host-key records it, for the jump host and the
# target, and the run goes through), a changed host key (refused even with --accept-new-host-key).
#
# Usage: bash ssh_faults.sh CAMPAIGN_BINARY SOURCE_DIR        (label ssh; about 15 s)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ssh_lib.sh"

start_sshd "$WORK/sshd"
weird_campaign "$WORK/camp"
file=$WORK/camp/weird.yaml
fingerprint() { ssh-keygen -lf "$1" | awk '{ print $2 }'; }

# expect_failure NAME PROFILE PATTERN... [-- OPTIONS]: campaign run fails at once with one line
# holding every PATTERN, and nothing was submitted.
expect_failure() {
  local name=$1 profile=$2 wd=$WORK/local/$1 err=$WORK/$1.err rc t0=$SECONDS
  shift 2
  local patterns=() options=()
  while (($#)); do
    [[ $1 == -- ]] && { shift; options=("$@"); break; }
    patterns+=("$1")
    shift
  done
  "$CAMPAIGN" run "$file" --system "$profile" --workdir "$wd" -q "${options[@]}" >"$WORK/$name.out" 2>"$err"
  rc=$?
  say "$name: $(cat "$err")"
  check_eq "$name: campaign run exits 1" 1 "$rc"
  check_eq "$name: one line on stderr" 1 "$(wc -l <"$err")"
  local p missing=""
  for p in "${patterns[@]}"; do grep -qF -- "$p" "$err" || missing+=" [$p]"; done
  check_eq "$name: the error says what and where" "" "$missing"
  check "$name: within seconds" test $((SECONDS - t0)) -le 20
  check "$name: nothing submitted (no catalog)" test ! -e "$wd/campaign.db"
  no_secrets "$wd" "$err" "$WORK/$name.out"
}

# A port nobody listens on.
closed=0
for _ in $(seq 50); do
  p=$((20000 + RANDOM % 40000))
  ss -Hltn "sport = :$p" | grep -q . || { closed=$p; break; }
done
ssh_profile local "$WORK/refused.yaml" port="$closed" jump=none
expect_failure refused "$WORK/refused.yaml" "$SSH_USER@127.0.0.1:$closed" "cannot connect"

# A key the server does not know.
ssh-keygen -q -t ed25519 -N '' -C stranger -f "$WORK/stranger_key" </dev/null
ssh_profile local "$WORK/wrong-key.yaml" identity="$WORK/stranger_key" jump=none
expect_failure wrong_key "$WORK/wrong-key.yaml" "$SSH_USER@127.0.0.1:$SSHD_PORT" \
  "public-key authentication failed"

# Unknown host keys (an empty known_hosts): the jump host is checked first, then the target.
ssh_profile local "$WORK/unknown.yaml" known_hosts="$WORK/fresh/known_hosts"
jump_fp=$(fingerprint "$SSHD_DIR/jump_host_ed25519.pub")
target_fp=$(fingerprint "$SSHD_DIR/target_host_ed25519.pub")
expect_failure unknown_host "$WORK/unknown.yaml" "$SSH_USER@127.0.0.1:$JUMP_PORT: unknown host key" "$jump_fp" \
  "--accept-new-host-key"
"$CAMPAIGN" run "$file" --system "$WORK/unknown.yaml" --workdir "$WORK/local/accepted" -q --accept-new-host-key
check_eq "--accept-new-host-key: the run goes through" 0 $?
check_eq "--accept-new-host-key: both host keys recorded" 2 \
  "$(grep -cE "^\[127.0.0.1\]:($JUMP_PORT|$SSHD_PORT) ssh-ed25519 " "$WORK/fresh/known_hosts")"
check_eq "the recorded target key is the one the server has" "$target_fp" \
  "$(ssh-keygen -lf "$WORK/fresh/known_hosts" -F "[127.0.0.1]:$SSHD_PORT" | awk '/ED25519/ { print $3 }')"
"$CAMPAIGN" run "$file" --system "$WORK/unknown.yaml" --workdir "$WORK/local/accepted" -q
check_eq "and later runs need no flag" 0 $?
check_weird "$WORK/local/accepted" "$WORK/remote/weird"

# The target's host key changes (same port): refused, naming the new fingerprint, even with the flag.
bash "$SRC/tests/ssh/start-sshd.sh" "$SSHD_DIR" --rekey
new_fp=$(fingerprint "$SSHD_DIR/target_host_ed25519.pub")
check "the host key really changed" test "$new_fp" != "$target_fp"
expect_failure changed_host "$WORK/unknown.yaml" "$SSH_USER@127.0.0.1:$SSHD_PORT: host key for [127.0.0.1]:$SSHD_PORT has CHANGED" \
  "$new_fp"
expect_failure changed_host_flag "$WORK/unknown.yaml" "has CHANGED" "$new_fp" -- --accept-new-host-key
check_eq "the known key was not replaced" 1 "$(grep -c "^\[127.0.0.1\]:$SSHD_PORT " "$WORK/fresh/known_hosts")"
