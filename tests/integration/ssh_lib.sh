# Helpers of the ssh integration tests, sourced after lib.sh: throwaway OpenSSH servers on 127.0.0.1
# (tests/ssh/start-sshd.sh: a target and a jump host, their host keys, one user key) and system
# profiles that reach them, generated into WORK because the ports are chosen at run time.
#
#   start_sshd DIR           starts the servers (stopped on exit) and sets SSHD_DIR SSHD_PORT JUMP_PORT
#                            SSH_USER IDENTITY KNOWN_HOSTS SSHD_PID JUMP_PID
#   ssh_profile BASE OUT [KEY=VALUE...]
#                            writes OUT: systems/BASE.yaml named ssh-BASE, whose remote work directory
#                            is under WORK/remote, reached over ssh with the test key; KEY is one of
#                            port, identity, known_hosts, jump (host:port, or "none"), campaign
#   accepted_logins          how many logins the target has accepted since it started
#   kill_connections         SIGKILLs the target's per-connection sshd processes (the listener and
#                            the commands they ran stay), as when the link to a login node drops
#   wait_connected PID       waits until the target serves a logged-in client (status 0) or PID ended (1)

# Only the keys the profiles name: an agent of the tester must not log us in.
unset SSH_AUTH_SOCK

start_sshd() {
  SSHD_DIR=$1
  if ! bash "$SRC/tests/ssh/start-sshd.sh" "$SSHD_DIR" >"$WORK/start-sshd.log" 2>&1; then
    cat "$WORK/start-sshd.log"
    bad "the test sshd does not start"
    exit 1
  fi
  # shellcheck disable=SC1091
  source "$SSHD_DIR/env"
  on_exit "bash '$SRC/tests/ssh/stop-sshd.sh' '$SSHD_DIR'"
  say "sshd on 127.0.0.1:$SSHD_PORT, jump host on 127.0.0.1:$JUMP_PORT"
}

ssh_profile() {
  local base=$1 out=$2
  shift 2
  local port=$SSHD_PORT identity=$IDENTITY known_hosts=$KNOWN_HOSTS jump="127.0.0.1:$JUMP_PORT"
  local campaign=$CAMPAIGN kv
  for kv in "$@"; do
    case $kv in
      port=*) port=${kv#port=} ;;
      identity=*) identity=${kv#identity=} ;;
      known_hosts=*) known_hosts=${kv#known_hosts=} ;;
      jump=*) jump=${kv#jump=} ;;
      campaign=*) campaign=${kv#campaign=} ;;
      *) echo "ssh_profile: unknown $kv" >&2; return 1 ;;
    esac
  done
  {
    sed -e "s/^name: .*/name: ssh-$base/" "$SRC/systems/$base.yaml"
    cat <<PROFILE
workdir: $WORK/remote
access:
  ssh:
    host: 127.0.0.1
    port: $port
    user: $SSH_USER
    identity: $identity
    known_hosts: $known_hosts
    campaign: $campaign
PROFILE
    [[ $jump == none ]] || echo "    jump: $jump"
  } >"$out"
}

accepted_logins() { grep -c 'Accepted publickey' "$SSHD_DIR/target.log"; }

kill_connections() {
  local victims=() pid
  sshd_below() {  # sshd_below PID: the sshd processes below PID (per-connection and session ones)
    local child
    for child in $(ps -o pid= --ppid "$1"); do
      [[ $(ps -o comm= -p "$child") == sshd ]] && echo "$child" && sshd_below "$child"
    done
  }
  # Only sshd itself: a command it was running lives on, as after a network failure.
  for pid in $(sshd_below "$SSHD_PID"); do victims+=("$pid"); done
  ((${#victims[@]})) && kill -KILL "${victims[@]}" 2>/dev/null
  return 0
}

# wait_connected PID: waits until a session of the sshd serves a logged-in client again (its process
# title "sshd: USER@..."), or until PID has ended (status 1). A link drop then cuts an operation of
# the run, whatever time a loaded machine takes to connect again.
wait_connected() {
  local run=$1
  while kill -0 "$run" 2>/dev/null; do
    ps -eo pid=,ppid=,args= | awk -v root="$SSHD_PID" '
      { parent[$1] = $2; args[$1] = $0 }
      END {
        for (p in parent) {
          if (args[p] !~ /sshd: [^ ]*@/) continue
          for (q = parent[p]; q in parent && q != root; q = parent[q]) {}
          if (q == root) exit 0
        }
        exit 1
      }' && return 0
    sleep 0.05
  done
  return 1
}

# weird_campaign DIR: a 4-case campaign in DIR whose parameter values are file names with spaces,
# quotes and $(...); the files are campaign inputs, each job copies its file, prints its name and
# writes result.csv (collected) and big.bin (never fetched).
weird_campaign() {
  local dir=$1
  mkdir -p "$dir/data" "$dir/collectors"
  printf 'literal\n' >"$dir/data/it's a \$(touch pwned) \"file\".txt"
  printf 'plain\n' >"$dir/data/plain.txt"
  cat >"$dir/collectors/result.yaml" <<'YAML'
name: result
sources:
  - {engine: csv, file: result.csv, metrics: [bytes]}
YAML
  cat >"$dir/weird.yaml" <<'YAML'
name: weird
inputs: [data]
matrix:
  file:
    - {name: w, path: "it's a $(touch pwned) \"file\".txt"}
    - {name: p, path: plain.txt}
  n: [1, 2]
case_name: c-{{file}}-{{n}}
collectors: [result]
fetch: {include: [copy.txt, big.bin], exclude: ["*.bin"]}
job:
  partition: cpu
  nodes: 1
  ranks: 1
  walltime: 5m
  launch: false
  command: >-
    bash -c 'cp -- "$0" copy.txt && printf "%s\n" "$1" > name.txt && head -c 100000 /dev/zero > big.bin &&
    printf "n,bytes\n%s,%s\n" "$2" "$(wc -c < copy.txt)" > result.csv' {{workdir}}/data/{{path}} {{path}} {{n}}
YAML
}

# check_weird LOCAL REMOTE: the weird campaign ran literally and came back as it should.
check_weird() {
  local wd=$1 rd=$2 c f wrong=""
  check_eq "weird: 4 cases collected" 4 "$(count_state "$wd" collected)"
  check_eq "weird: the job saw the parameter literally" "it's a \$(touch pwned) \"file\".txt" \
    "$(cat "$rd/c-w-1/name.txt")"
  check_eq "weird: the staged file was read by its literal name" literal "$(cat "$rd/c-w-2/copy.txt")"
  check_eq "weird: nothing ran the \$(...)" "" "$(find "$WORK" -name pwned; ls -d /pwned ~/pwned 2>/dev/null)"
  for c in c-w-1 c-w-2 c-p-1 c-p-2; do
    for f in result.csv copy.txt .exit job.sh; do [[ -f $wd/$c/$f ]] || wrong+=" missing:$c/$f"; done
    for f in big.bin name.txt; do [[ -e $wd/$c/$f ]] && wrong+=" fetched:$c/$f"; done
  done
  check_eq "weird: collector files, fetch.include and the marker fetched; fetch.exclude and the rest not" \
    "" "$wrong"
  check "weird: the remote big.bin exists (it was only not fetched)" test -s "$rd/c-p-2/big.bin"
}

# no_secrets WORKDIR OUTPUT...: no key material in the work directory (catalog, log, mirror) or the
# given outputs, and the identity path in none of the outputs.
no_secrets() {
  local wd=$1 body
  shift
  body=$(sed -n 2p "$IDENTITY")  # a line of the private key's base64 body
  check "no private key material in $(basename "$wd") (catalog, log, remote.json, mirror)" \
    bash -c '! grep -rqF -e "$1" -e "PRIVATE KEY" "$2"' _ "$body" "$wd"
  check "no identity path or key in the command output" bash -c '! grep -qF -e "$1" -e "$2" -e "PRIVATE KEY" "${@:3}"' _ \
    "$IDENTITY" "$body" "$@"
}
