#!/bin/bash
# needs.sh NEED... -- COMMAND...: runs COMMAND when every NEED is there. A NEED is a program on the
# PATH, or python3:MODULE, a module Debian's /usr/bin/python3 imports (from the package
# python3-MODULE). Otherwise it says what is missing and exits 77, which ctest reports as skipped
# (SKIP_RETURN_CODE 77): a test that cannot check anything is not counted as passed. tools/setup.sh
# installs every NEED named here.
missing=()
while (($#)) && [[ $1 != -- ]]; do
  case $1 in
    python3:*) /usr/bin/python3 -c "import ${1#python3:}" >/dev/null 2>&1 || missing+=("python3-${1#python3:}") ;;
    *) command -v "$1" >/dev/null 2>&1 || missing+=("$1") ;;
  esac
  shift
done
shift
if ((${#missing[@]})); then
  echo "missing: ${missing[*]} (tools/setup.sh installs it)"
  exit 77
fi
exec "$@"
