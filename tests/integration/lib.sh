# Shared helpers of the integration tests (sourced by tests/integration/*.sh).
#
#   source lib.sh CAMPAIGN_BINARY SOURCE_DIR
#
# Sets CAMPAIGN (the binary), SRC (the source tree), WORK (a fresh temporary directory, removed on
# exit unless KEEP_WORK=1), and an EXIT trap that stops the `campaign` processes the test started
# (by pid), cancels the Slurm jobs whose working directory is under WORK, and prints
# "N passed, M failed". The script's exit status is non-zero when any check failed.
set -uo pipefail
# --help prints the test's header; no options.
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/usage.sh" "$@"

# The test cluster the Slurm commands talk to: TESTCLUSTER (set by ctest) names it.
source "$(dirname "${BASH_SOURCE[0]}")/../slurm/env.sh" || exit 1
CAMPAIGN=$(readlink -f "$1")
SRC=$(readlink -f "$2")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/campaign-it.XXXXXX")
PASSED=0
FAILED=0
BG_PIDS=()
T0=$SECONDS

say() { printf '[%s %3ds] %s\n' "$(basename "$0" .sh)" $((SECONDS - T0)) "$*"; }
ok() { PASSED=$((PASSED + 1)); say "ok: $*"; }
bad() { FAILED=$((FAILED + 1)); say "FAIL: $*"; }
# check DESCRIPTION COMMAND...: one check, passing when COMMAND succeeds.
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
  if [[ "$2" == "$3" ]]; then ok "$1 ($3)"; else bad "$1: expected '$2', got '$3'"; fi
}

# Jobs of this test: those whose working directory is under WORK (every campaign of a test has its
# work directory there, and its jobs run in their run directories).
our_jobs() {
  command -v squeue >/dev/null 2>&1 || return 0
  squeue -h -o '%A %Z' 2>/dev/null | awk -v w="$WORK/" 'index($2 "/", w) == 1 { print $1 }'
}

EXIT_HOOKS=()
# on_exit COMMAND: run COMMAND (eval) when the test ends, before the jobs are cancelled.
on_exit() { EXIT_HOOKS+=("$*"); }

# node_down NODE: sets NODE DOWN under its jobs (a node failure), then resumes it 3 s later; every
# node set down is resumed at the test's exit too, whatever happened in between.
DOWN_NODES=()
resume_down() {
  local n
  for n in "${DOWN_NODES[@]}"; do scontrol update nodename="$n" state=resume >/dev/null 2>&1; done
}
node_down() {
  ((${#DOWN_NODES[@]})) || on_exit resume_down
  DOWN_NODES+=("$1")
  say "scontrol update nodename=$1 state=down"
  scontrol update nodename="$1" state=down reason=campaign-integration-test
  sleep 3
  resume_down
  say "$1: $(sinfo -h -n "$1" -o %T)"
}

# Jobs of the local executor are processes detached from `campaign run`: those whose working directory
# is under WORK are this test's.
kill_local_jobs() {
  local p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    [[ $cwd == "$WORK"/* ]] && kill -9 "${p#/proc/}" 2>/dev/null
  done
}

cleanup() {
  local rc=$? pid jobs hook
  for pid in "${BG_PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
  for hook in "${EXIT_HOOKS[@]}"; do eval "$hook"; done
  jobs=$(our_jobs | tr '\n' ' ')
  [[ -n ${jobs// /} ]] && scancel $jobs 2>/dev/null
  kill_local_jobs
  if [[ ${KEEP_WORK:-0} == 1 || $FAILED -gt 0 && ${KEEP_WORK_ON_FAILURE:-0} == 1 ]]; then
    say "work directory kept: $WORK"
  else
    rm -rf "$WORK"
  fi
  echo "$PASSED passed, $FAILED failed"
  if ((FAILED > 0 || (PASSED == 0))); then exit 1; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts the virtual cluster when sinfo does not answer; resumes nodes a test left down.
ensure_cluster() {
  if ! sinfo -h >/dev/null 2>&1 || sinfo -h -o '%T' | grep -Eqv '^(idle|allocated|mixed|completing)$'; then
    say "starting the test cluster"
    bash "$SRC/tests/slurm/start-cluster.sh" >"$WORK/start-cluster.log" 2>&1 || {
      tail -20 "$WORK/start-cluster.log"
      bad "the test cluster does not start"
      exit 1
    }
  fi
}

# cases WORKDIR: one line per case of the catalog in WORKDIR, tab-separated:
#   case state attempt job_id job_name exit_code reason
cases() {
  [[ -e $1/campaign.db ]] || return 0
  "$CAMPAIGN" status "$1" --json 2>/dev/null | python3 -c '
import json, sys
text = sys.stdin.read()
for c in json.loads(text) if text.strip() else []:
    for k in c["cases"]:
        print("\t".join(str(x) for x in (k["case"], k["state"], k["attempt"], k["job_id"], k["job_name"],
                                         k.get("exit_code", ""), k["reason"].replace("\t", " "))))'
}

# field WORKDIR CASE COLUMN: one column (1-based, as in cases()) of one case.
field() { cases "$1" | awk -F'\t' -v c="$2" -v f="$3" '$1 == c { print $f }'; }

# count_state WORKDIR STATE: how many cases are in STATE.
count_state() { cases "$1" | awk -F'\t' -v s="$2" '$2 == s { n++ } END { print n + 0 }'; }

# wait_until SECONDS COMMAND...: polls COMMAND every 0.5 s; false on timeout.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS >= deadline)) && return 1
    sleep 0.5
  done
}

# sacct_jobs PREFIX: "jobid name state" of every job (whole jobs, all users) whose name starts with
# PREFIX, from accounting, submitted since the test started.
sacct_jobs() {
  sacct -X -n -P -a -S "$TEST_START" -E now -o JobIDRaw,JobName,State 2>/dev/null |
    awk -F'|' -v p="$1" 'index($2, p) == 1 { print $1, $2, $3 }'
}
TEST_START=$(date +%Y-%m-%dT%H:%M:%S)

# Accounting (slurmdbd) lags behind the jobs' ends, by minutes on a loaded machine: a test that
# asserts on it first waits until it holds the records the test expects, at most ACCOUNTING_WAIT_S.
# slurmctld queues its records to slurmdbd in order, so once the last job's end is recorded, every
# earlier submission is too (a duplicate job that should not exist would show by then).
ACCOUNTING_WAIT_S=${ACCOUNTING_WAIT_S:-120}
# States a job or step ends in (sacct's State column, "CANCELLED by 0" included).
FINAL_STATE_RE='^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE)'

# wait_accounting N COMMAND...: waits until COMMAND prints at least N lines (looking every second,
# at most ACCOUNTING_WAIT_S); says how long it waited when it had to.
wait_accounting() {
  local n=$1 t0=$SECONDS got
  shift
  while got=$("$@" | wc -l); ((got < n && SECONDS - t0 < ACCOUNTING_WAIT_S)); do sleep 1; done
  ((SECONDS > t0)) && say "accounting: $got of $n records after $((SECONDS - t0)) s"
  return 0
}

# sacct_ended PREFIX: the lines of sacct_jobs PREFIX whose job has ended.
sacct_ended() { sacct_jobs "$1" | awk -v re="$FINAL_STATE_RE" '$3 ~ re'; }
# wait_sacct_jobs PREFIX N: waits until accounting has N ended jobs named PREFIX*.
wait_sacct_jobs() { wait_accounting "$2" sacct_ended "$1"; }
# ended_records: the lines of stdin (sacct -P output, State last) whose job or step has ended.
ended_records() { awk -F'|' -v re="$FINAL_STATE_RE" '$NF ~ re'; }

# Packed allocations in the accounting:
# records JOB: "jobid|name|state|exitcode|start|end" of the allocation and its numbered steps.
records() { sacct -n -P -j "$1" -o JobID,JobName,State,ExitCode,Start,End 2>/dev/null | grep -v -e '\.batch|' -e '\.extern|'; }
alloc_ended() { sacct -n -P -X -j "$1" -o JobID,State 2>/dev/null | ended_records; }
# wait_alloc JOB: until the accounting holds the allocation's end; prints its state.
wait_alloc() {
  wait_accounting 1 alloc_ended "$1" >&2
  alloc_ended "$1" | head -1 | cut -d'|' -f2
}
# step_state JOB CASE [ATTEMPT]: the state of the case's step in JOB ("" when it has none).
step_state() { records "$1" | awk -F'|' -v s="-$2-a${3:-1}" '$1 ~ /\.[0-9]+$/ && substr($2, length($2) - length(s) + 1) == s { print $3 }'; }

# prefix_of WORKDIR: the job name prefix of the campaign in WORKDIR ("cmp1a2b3c-").
prefix_of() { cases "$1" | awk -F'\t' '$5 != "" && !done { sub(/-.*/, "-", $5); print $5; done = 1 }'; }

# kill_runs TIMES MIN SPAN CMD...: starts CMD in the background TIMES times and kills it with SIGKILL
# after MIN + a random part of SPAN seconds each time (as a crash would); KILLS counts the runs that
# SIGKILL ended (not those that had exited by then). The crash tests' campaigns hold one case until
# the test creates WORKDIR/release after the kills, so that every run is still running when killed.
kill_runs() {
  local times=$1 min=$2 span=$3 pid rc i
  shift 3
  KILLS=0
  for i in $(seq "$times"); do
    "$@" &
    pid=$!
    BG_PIDS+=("$pid")
    sleep "$(awk -v r=$RANDOM -v a="$min" -v b="$span" 'BEGIN { printf "%.2f", a + r / 32768 * b }')"
    kill -9 "$pid" 2>/dev/null
    { wait "$pid"; } 2>/dev/null
    rc=$?
    ((rc == 128 + 9)) && KILLS=$((KILLS + 1)) || say "run $i had exited $rc before its kill"
    BG_PIDS=()
  done
}

# A directory for PATH with every command of /usr/bin and /bin except Slurm's: a machine without a
# scheduler.
path_without_slurm() {
  local dir=$WORK/noslurm-bin
  mkdir -p "$dir"
  # /bin is /usr/bin on Debian 12; later directories do not replace earlier links.
  find /usr/local/bin /usr/bin /bin -maxdepth 1 \( -type f -o -type l \) 2>/dev/null |
    grep -Ev '/(sbatch|squeue|sacct|scontrol|scancel|srun|sinfo|salloc|sattach|sstat|sprio|sshare|sreport|sacctmgr|sdiag|strigger|sview|sbcast|scrontab|sh5util|sjobexitmod|sjstat|smap|seff|bsub|bjobs|bkill|bhist)$' |
    xargs ln -s -t "$dir" 2>/dev/null
  echo "$dir"
}

# scheduler_wrappers DIR LOG: puts squeue, sacct, scontrol, sbatch and scancel wrappers in DIR that
# append "EPOCH_SECONDS.NANOSECONDS COMMAND ARGS..." to LOG, then exec the real command. Put DIR first
# in PATH to count what the orchestrator asks the scheduler.
scheduler_wrappers() {
  local dir=$1 log=$2 cmd
  mkdir -p "$dir"
  for cmd in squeue sacct scontrol sbatch scancel; do
    printf '#!/bin/bash\necho "$(date +%%s.%%N) %s $*" >>%q\nexec %q "$@"\n' "$cmd" "$log" "$(command -v "$cmd")" \
      >"$dir/$cmd"
    chmod +x "$dir/$cmd"
  done
}

# gate_wrappers DIR GATE CMD...: the scheduler_wrappers in DIR for each CMD hold while the file GATE
# exists (each held call shows as a file GATE.held.PID), then go on: a run can be caught waiting for
# the scheduler's answer, at a point its log does not show.
gate_wrappers() {
  local dir=$1 gate=$2 cmd
  shift 2
  for cmd in "$@"; do
    { head -1 "$dir/$cmd"
      printf 'if [ -e %q ]; then touch %q.held.$$; while [ -e %q ]; do sleep 0.05; done; fi\n' "$gate" "$gate" "$gate"
      tail -n +2 "$dir/$cmd"; } >"$dir/$cmd.new"
    chmod +x "$dir/$cmd.new" && mv "$dir/$cmd.new" "$dir/$cmd"
  done
}

# stop_between_polls PID LOG: stops the `campaign run` PID (SIGSTOP; SIGCONT resumes it) at a moment
# where its next poll of the scheduler comes after a fresh read of the exit markers. LOG is the log of
# its scheduler_wrappers. Each tick of the engine reads the markers, then polls when a poll is due, and
# polls (`squeue -r -u USER -o ...`, without `-t all`) at most every poll_min (0.5 s on the test
# cluster) while jobs run: stopped less than 0.3 s after such a poll began, no later tick can have
# read the markers yet and be about to poll. It also waits until that squeue has answered, so the
# answer predates what the caller does next. False when that never worked out in 20 tries.
stop_between_polls() {
  local pid=$1 log=$2 n stopped started
  polls() { grep -c ' squeue -r -u [^ ]* -o ' "$log" 2>/dev/null; }
  squeue_running() { ps --ppid "$pid" -o stat=,args= 2>/dev/null | grep -v '^Z' | grep -q squeue; }
  for _ in $(seq 20); do
    n=$(polls)
    local deadline=$((SECONDS + 30))
    while (($(polls) <= n)); do
      ((SECONDS < deadline)) || return 1
      sleep 0.02
    done
    kill -STOP "$pid"
    stopped=$(date +%s.%N)
    started=$(grep ' squeue -r -u [^ ]* -o ' "$log" | tail -1 | cut -d' ' -f1)
    if awk -v a="$started" -v b="$stopped" 'BEGIN { exit !(b - a < 0.3) }' && wait_until 10 eval '! squeue_running'; then
      return 0
    fi
    kill -CONT "$pid"
  done
  return 1
}
