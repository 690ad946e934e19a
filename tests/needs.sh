#!/bin/bash
# needs.sh PROGRAM... -- COMMAND...: runs COMMAND when every PROGRAM is on the PATH. Otherwise it says
# which are missing and exits 77, which ctest reports as skipped (SKIP_RETURN_CODE 77): a test that
# cannot check anything is not counted as passed. tools/setup.sh installs every PROGRAM named here.
missing=()
while (($#)) && [[ $1 != -- ]]; do
  command -v "$1" >/dev/null 2>&1 || missing+=("$1")
  shift
done
shift
if ((${#missing[@]})); then
  echo "missing: ${missing[*]} (tools/setup.sh installs it)"
  exit 77
fi
exec "$@"
