# Shared by the workload tests (tests/workloads/*.sh), sourced after `set -euo pipefail`:
#
#   source "$(dirname "$0")/lib.sh"
#
# Sets PYTHON (default Debian's /usr/bin/python3), MC (workloads/minicosmo), WORK (a fresh directory,
# removed on exit, when the processes in PIDS are killed too) and START; defines fail and free_port.
# A PYTHON without torch, numpy or yaml cannot run the workload: the test exits 77 (skipped).

PYTHON=${PYTHON:-/usr/bin/python3}
MC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../workloads/minicosmo" && pwd)
WORK=$(mktemp -d)
PIDS=()
START=$(date +%s)

cleanup() {
  for p in "${PIDS[@]:-}"; do
    [[ -n "$p" ]] && kill "$p" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

free_port() {
  "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

if ! "$PYTHON" -c 'import torch, numpy, yaml' 2>/dev/null; then
  echo "skipped: $PYTHON lacks torch/numpy/yaml (tools/setup.sh installs python3-torch python3-numpy python3-yaml)"
  exit 77
fi
