#!/usr/bin/env bash
# `modules:` with a real module system (issue 22): Lmod (Debian package lmod) on the local executor
# or the Slurm test cluster. A test modulefile sets a variable and prepends a PATH entry; the job
# prints both. `campaign run` starts without `module` in its environment (no BASH_ENV, no exported
# function), as from cron: the job script reads the module system's init itself. On local the same
# again from a login shell, where Lmod's /etc/profile.d script exports BASH_ENV, as at a centre. A
# module that does not exist fails its case: Lmod's message in the job's output, the command not
# run, and `status` names the failed `module load` (exit status 78).
#
# Usage: bash modules.sh CAMPAIGN_BINARY SOURCE_DIR local|slurm       (about 10 s)
source "$(dirname "$0")/lib.sh"
system=${3:?local or slurm}
lmod_init=/usr/share/lmod/lmod/init/bash
if [[ ! -r $lmod_init ]]; then
  echo "missing: Lmod ($lmod_init; tools/setup.sh installs the package lmod)"
  trap - EXIT
  exit 77
fi

mkdir -p "$WORK/modulefiles/testmod" "$WORK/modbin"
cat >"$WORK/modulefiles/testmod/1.0.lua" <<LUA
whatis("A module of the campaign tests")
setenv("CAMPAIGN_TEST_MOD", "loaded-1.0")
prepend_path("PATH", "$WORK/modbin")
LUA
printf '#!/bin/sh\necho "modtool ran from $0"\n' >"$WORK/modbin/modtool"
chmod +x "$WORK/modbin/modtool"

# campaign NAME MODULE: a campaign of one case loading MODULE, printing what the module set.
campaign_file() {
  cat >"$WORK/$1.yaml" <<YAML
name: $1
system: $([[ $system == slurm ]] && echo testcluster || echo local)
matrix: {repeat: 1}
case_name: $1-case
job:
  partition: mc
  ranks: 1
  cpus_per_rank: 1
  walltime: 2m
  launch: false
  modules: [$2]
  command: 'echo "CAMPAIGN_TEST_MOD=\$CAMPAIGN_TEST_MOD"; modtool'
retry: {max_attempts: 1}
YAML
}
campaign_file good testmod/1.0
campaign_file bad nosuchmod
if [[ $system == slurm ]]; then
  ensure_cluster
  envpath=$PATH
else
  envpath=$(path_without_slurm)
fi
# Without `module` anywhere in the environment: only MODULEPATH, as a centre's users have it.
plain=(env -u BASH_ENV -u MODULESHOME -u LMOD_CMD -u MODULEPATH_ROOT -u BASH_FUNC_module%% -u BASH_FUNC_ml%%
  PATH="$envpath" MODULEPATH="$WORK/modulefiles")

output_of() { cat "$1"/*.out "$1"/*.log 2>/dev/null; } # the job's output, whatever the scheduler names it

"${plain[@]}" "$CAMPAIGN" run "$WORK/good.yaml" --workdir "$WORK/good" -q >"$WORK/good.txt" 2>&1
check_eq "a job loading testmod/1.0 completes" 0 $?
out=$(output_of "$WORK/good/good-case")
check "the job sees the module's variable" grep -qx "CAMPAIGN_TEST_MOD=loaded-1.0" <<<"$out"
check "the job runs the program on the module's PATH entry" grep -qx "modtool ran from $WORK/modbin/modtool" <<<"$out"
check "the script loads it with module load" grep -q "^module load testmod/1.0 || exit 78$" "$WORK/good/good-case/job.sh"

"${plain[@]}" "$CAMPAIGN" run "$WORK/bad.yaml" --workdir "$WORK/bad" -q >"$WORK/bad.txt" 2>&1
check_eq "a job loading a module that does not exist: run exits 1" 1 $?
out=$(output_of "$WORK/bad/bad-case")
echo "$out" | head -5
check "Lmod's message is in the job's output" grep -q 'The following module(s) are unknown: *"nosuchmod"' <<<"$(tr '\n' ' ' <<<"$out")"
check "the command did not run" test -z "$(grep CAMPAIGN_TEST_MOD= <<<"$out")"
check_eq "the case failed" failed "$(field "$WORK/bad" bad-case 2)"
check_eq "with exit status 78" 78 "$(field "$WORK/bad" bad-case 6)"
reason=$(field "$WORK/bad" bad-case 7)
check "status names the failed module load: $reason" grep -q '^a `module load` in the job script failed' <<<"$reason"
status_out=$("$CAMPAIGN" status "$WORK/bad")
echo "$status_out"
check "campaign status shows it" grep -q 'module load. in the job script failed' <<<"$status_out"

if [[ $system == local ]]; then
  # As at a centre: from a login shell, /etc/profile.d/lmod.sh has exported BASH_ENV and `module`.
  rm -rf "$WORK/good"
  "${plain[@]}" bash -l -c "[ -n \"\$BASH_ENV\" ] && type module >/dev/null && \"$CAMPAIGN\" run \"$WORK/good.yaml\" --workdir \"$WORK/good\" -q" \
    >"$WORK/login.txt" 2>&1
  check_eq "from a login shell (BASH_ENV from Lmod's profile.d script) the job completes too" 0 $?
  check "and sees the module's variable" grep -qx "CAMPAIGN_TEST_MOD=loaded-1.0" <<<"$(output_of "$WORK/good/good-case")"
fi
