#!/usr/bin/env bash
# Acceptance 5: `campaign cancel --case PATTERN` and `campaign status --json` on the local executor.
# Six jobs of a minute (campaigns/localcancel.yaml) are submitted with `campaign run --no-wait`;
# `campaign cancel --case 'cancel-a-*'` cancels the three "a" cases (running or waiting for a core)
# and nothing else; their processes are gone; `campaign cancel` then cancels the rest.
#
# Usage: bash cancel_local.sh CAMPAIGN_BINARY SOURCE_DIR        (label local; about 10 s)
source "$(dirname "$0")/lib.sh"

nopath=$(path_without_slurm)
file=$SRC/tests/integration/campaigns/localcancel.yaml
wd=$WORK/localcancel
env PATH="$nopath" "$CAMPAIGN" run "$file" --workdir "$wd" --no-wait -q
check_eq "campaign run --no-wait exits 0" 0 $?
check_eq "6 cases queued or running" 6 "$(cases "$wd" | awk -F'\t' '$2 == "queued" || $2 == "running"' | wc -l)"

# status --json: its shape.
"$CAMPAIGN" status "$wd" --json >"$WORK/status.json"
check "status --json: campaign, system, cases with state, attempt, job id and name" python3 - "$WORK/status.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d[0]
assert c["campaign"] == "localcancel" and c["system"] == "local" and len(c["cases"]) == 6, c
for k in c["cases"]:
    assert k["state"] in ("queued", "running") and k["attempt"] == 1 and k["job_id"] and k["job_name"], k
    assert k["job_name"].endswith(k["case"] + "-a1"), k
PY

sleep 1
running_pids() {  # pids of `sleep 60` processes of this test's run directories matching $1
  local p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    [[ $cwd == "$wd"/$1 && $(cat "$p/comm" 2>/dev/null) == sleep ]] && echo "${p#/proc/}"
  done
}
say "running: $(running_pids 'cancel-*' | wc -l) jobs"
env PATH="$nopath" "$CAMPAIGN" cancel "$file" --workdir "$wd" --case 'cancel-a-*' >"$WORK/cancel.out"
check_eq "campaign cancel --case exits 0" 0 $?
check "it says 3 cases were cancelled" grep -q 'cancelled 3 cases' "$WORK/cancel.out"
cases "$wd" >"$WORK/cases.tsv"
check_eq "the three a cases are cancelled" "cancelled cancelled cancelled" \
  "$(awk -F'\t' '$1 ~ /^cancel-a-/ { print $2 }' "$WORK/cases.tsv" | paste -sd' ')"
check "... with the reason 'cancelled by the user'" \
  test "$(awk -F'\t' '$1 ~ /^cancel-a-/ && $7 == "cancelled by the user"' "$WORK/cases.tsv" | wc -l)" -eq 3
check_eq "the b cases are untouched" 3 "$(awk -F'\t' '$1 ~ /^cancel-b-/ && ($2 == "queued" || $2 == "running")' \
  "$WORK/cases.tsv" | wc -l)"
no_a() { [[ -z $(running_pids 'cancel-a-*') ]]; }
check "no process of an a case is left" wait_until 15 no_a
env PATH="$nopath" "$CAMPAIGN" cancel "$file" --workdir "$wd" >"$WORK/cancel2.out"
check_eq "campaign cancel (all) exits 0" 0 $?
check_eq "every case cancelled" 6 "$(count_state "$wd" cancelled)"
no_job() { [[ -z $(running_pids 'cancel-*') ]]; }
check "no job process is left" wait_until 15 no_job
