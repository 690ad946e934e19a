# Shared by the shell benchmarks (slurm_bench.sh, modes_bench.sh, scale_bench.sh, site_bench.sh), sourced after SRC
# (and CAMPAIGN) are set:
#   bench_setup          WORK (a fresh temporary directory, removed on exit unless KEEP_WORK=1, its
#                        Slurm jobs cancelled), the test cluster started when sinfo does not answer,
#                        and WORK/wrappers: squeue, sacct, scontrol, sbatch and scancel logging
#                        "EPOCH_SECONDS.MICROSECONDS COMMAND ARGS" to $CAMPAIGN_BENCH_LOG before
#                        running the real command (about 3 ms per call; no subprocess of their own).
#   measured_run LOG ARGS...
#                        runs `$CAMPAIGN ARGS...` with the wrappers first on PATH, calls logged to
#                        LOG, and prints "utime stime cutime cstime status wall": the CPU seconds of
#                        the campaign process itself and of its children, read from /proc/PID/stat
#                        after it exited but before it is reaped (nothing missed, children apart).
#   target WHAT FIGURE OP LIMIT UNIT
#                        the line of one stated target, in bench/targets.hpp's format: OP is <=, < or
#                        >=; an empty FIGURE is "not measured" and fails. False when it fails.
#   fail WHAT            says "FAILED: WHAT" and sets FAILED=1, the benchmark's exit status.
#   completed WORKDIR    how many cases of the campaign in WORKDIR completed (or were collected).
#   figure FILE KEY      the value of KEY in FILE ("KEY VALUE" lines, as the benchmarks' Python
#                        writes its figures); empty when FILE or KEY is missing.
#
# A benchmark prints no figure of a run that failed (a campaign that did not complete every case),
# says FAILED, ends with its target lines all the same ("not measured") and exits 1.

bench_setup() {
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/campaign-bench.XXXXXX")
  trap bench_cleanup EXIT
  if ! sinfo -h >/dev/null 2>&1; then
    echo "starting the test cluster"
    bash "$SRC/tests/slurm/start-cluster.sh" >"$WORK/start-cluster.log" 2>&1 || {
      tail "$WORK/start-cluster.log"
      exit 1
    }
  fi
  mkdir -p "$WORK/wrappers"
  local cmd
  for cmd in squeue sacct scontrol sbatch scancel; do
    printf '#!/bin/bash\necho "$EPOCHREALTIME %s $*" >>"$CAMPAIGN_BENCH_LOG"\nexec %q "$@"\n' "$cmd" \
      "$(command -v "$cmd")" >"$WORK/wrappers/$cmd"
    chmod +x "$WORK/wrappers/$cmd"
  done
}

bench_cleanup() {
  local jobs
  jobs=$(squeue -h -o '%A %Z' 2>/dev/null | awk -v w="$WORK/" 'index($2 "/", w) == 1 { print $1 }' | paste -sd' ')
  [[ -n $jobs ]] && scancel $jobs 2>/dev/null
  [[ ${KEEP_WORK:-0} == 1 ]] && echo "work directory kept: $WORK" || rm -rf "$WORK"
}

measured_run() {
  local log=$1
  shift
  CAMPAIGN_BENCH_LOG=$log PATH="$WORK/wrappers:$PATH" /usr/bin/python3 - "$CAMPAIGN" "$@" <<'PY'
import os, subprocess, sys, time
t0 = time.time()
p = subprocess.Popen(sys.argv[1:])
os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: /proc/PID/stat is final
wall = time.time() - t0
fields = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
tick = os.sysconf("SC_CLK_TCK")
utime, stime, cutime, cstime = (int(x) / tick for x in fields[11:15])
print(utime, stime, cutime, cstime, p.wait(), wall)
PY
}

target() {
  local what=$1 fig=$2 op=$3 lim=$4 unit=$5
  if [[ -z $fig ]]; then
    echo "TARGET $what: not measured (target $op $lim $unit) FAIL"
    return 1
  fi
  awk -v w="$what" -v f="$fig" -v o="$op" -v l="$lim" -v u="$unit" 'BEGIN {
    p = o == "<=" ? f + 0 <= l + 0 : o == "<" ? f + 0 < l + 0 : f + 0 >= l + 0
    printf "TARGET %s: %.4g %s (target %s %g %s) %s\n", w, f, u, o, l, u, p ? "PASS" : "FAIL"
    exit !p
  }'
}

figure() { [[ -f $1 ]] && awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

completed() {
  "$CAMPAIGN" status "$1" --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
text = sys.stdin.read()
print(sum(k["state"] in ("completed", "collected") for c in (json.loads(text) if text.strip() else [])
          for k in c["cases"]))'
}

FAILED=0
fail() {
  echo "FAILED: $*"
  FAILED=1
}
