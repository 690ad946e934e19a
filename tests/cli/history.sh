#!/bin/bash
# `campaign history` on three runs of the weak-scaling campaign (local sizes),
# each a work directory made by `campaign import` of a hand-written results
# tree, recorded at three commits of a git repository holding the campaign
# file. The third commit's epochs are 20 % slower: history flags it and exits
# 3; noise of 3 % (the second) is not flagged. Runs are imported out of
# order, so only ordering by commit date puts the slow one last. Also: the
# direction of time and throughput metrics, --baseline, --threshold,
# --fail-on, labels without git, the files written, repetitions (a change must exceed their
# spread; the rule that flagged it), and bad METRICs (exit 2).
#
# Usage: bash tests/cli/history.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
export HOME=$tmp # code_dir is $HOME/cosmoflow-benchmark in the campaign's base: not there

# The campaign file in its own repository, three commits a day apart.
repo=$tmp/repo
mkdir -p "$repo"
cp "$src/campaigns/weak_scaling.yaml" "$repo/"
g() { git -C "$repo" -c user.name=t -c user.email=t@example.org "$@"; }
g init -q
g add weak_scaling.yaml
for day in 1 2 3; do
  echo "# change $day" >>"$repo/weak_scaling.yaml"
  g add weak_scaling.yaml
  GIT_AUTHOR_DATE="2026-01-0${day}T02:00:00Z" GIT_COMMITTER_DATE="2026-01-0${day}T02:00:00Z" g commit -q -m "day $day"
  commit[$day]=$(g rev-parse HEAD)
done

write_tree "$tmp/tree1" 1.0
write_tree "$tmp/tree2" 1.03
write_tree "$tmp/tree3" 1.2
runs=$tmp/runs
import() { # day workdir
  "$exe" import "$repo/weak_scaling.yaml" --system local --from "$tmp/tree$1" --workdir "$runs/$2" \
    --commit "${commit[$1]}" >/dev/null 2>"$tmp/import.err" || { echo "import of day $1 failed:"; cat "$tmp/import.err"; }
}
# Made out of commit order: the slow one first, so creation order would put it first.
import 3 night-a
import 1 night-b
import 2 night-c

json=$("$exe" status "$runs/night-a" --json)
check "the run records the commit it measured" grep -q "\"commit\": \"${commit[3]}\"" <<<"$json"
check "and its commit date (2026-01-03T02:00Z)" grep -q '"date": 1767405600' <<<"$json"
check "version = short commit" grep -q "\"version\": \"${commit[3]:0:10}\"" <<<"$json"

out=$("$exe" history 'throughputs@ranks=4' "$runs" 2>"$tmp/err")
rc=$?
echo "$out"
check_eq "history exits 3 on the 20 % slowdown" 3 $rc
check "throughput: higher is better" grep -q "higher is better" <<<"$out"
order=$(awk '$1 ~ /^night-/ { print $1 }' <<<"$out" | head -3 | paste -sd' ')
check_eq "runs in commit order" "night-b night-c night-a" "$order"
check "the noisy run is within the threshold" grep -Eq "night-c .* 0\.971 ok" <<<"$out"
check "the slow run is flagged in both partitions" \
  test "$(grep -Ec "night-a .* 0\.833 REGRESSION \(-16\.7%\)" <<<"$out")" = 2
check "the summary names the commit" grep -q "^REGRESSION beyond -10% vs baseline ${commit[1]:0:10}: partition=cpu at ${commit[3]:0:10}" <<<"$out"
csv=$runs/history/cosmoflow-weak-scaling-throughputs_ranks=4.csv
check "CSV written" test -f "$csv"
check_eq "CSV: 2 series x 3 runs, 2 regressions" "6 2" "$(($(wc -l <"$csv") - 1)) $(grep -c ',REGRESSION,' "$csv")"
check "plot drawn" test -s "$runs/history/cosmoflow-weak-scaling-throughputs_ranks=4.svg"
check "no warnings" test ! -s "$tmp/err"

out=$("$exe" history 'epoch_time@ranks=4,data=real' "$runs")
check_eq "a time metric regresses upwards: exit 3" 3 $?
check "epoch time: lower is better, +20 %" grep -Eq "night-a .* 1\.200 REGRESSION \(\+20\.0%\)" <<<"$out"
"$exe" history 'epoch_time@ranks=4,data=real' "$runs" --threshold 25 >/dev/null
check_eq "--threshold 25: no regression" 0 $?
"$exe" history 'eff@max' "$runs" >/dev/null
check_eq "efficiency does not change with a uniform slowdown" 0 $?
"$exe" history 'throughputs@ranks=4' "$runs" --baseline "${commit[3]:0:8}" >/dev/null
check_eq "--baseline the slow commit: nothing is worse" 0 $?
"$exe" history 'throughputs@ranks=4' "$runs" --baseline "${commit[2]}" >/dev/null
check_eq "--baseline the noisy commit: still a regression" 3 $?
out=$("$exe" history 'throughputs@ranks=4' "$repo/weak_scaling.yaml" --system local --out "$tmp/h" 2>&1)
check "a campaign file as PATH: its runs/ directory (none here)" grep -q "no runs of campaign cosmoflow-weak-scaling under $repo/runs" <<<"$out"

# A fourth run, fixed again (label, same commit date as the third, made later): the latest is fine.
import 1 night-d-fixed
"$exe" import "$repo/weak_scaling.yaml" --system local --from "$tmp/tree1" --workdir "$runs/night-e" \
  --commit "${commit[3]}" --label fixed >/dev/null 2>&1
"$exe" history 'throughputs@ranks=4' "$runs" >/dev/null
check_eq "the latest run is fine: exit 0 (the older regression is shown, not failed)" 0 $?
"$exe" history 'throughputs@ranks=4' "$runs" --fail-on any >/dev/null
check_eq "--fail-on any: exit 3" 3 $?

# Without git: labels, ordered by when the runs were made.
nogit=$tmp/nogit
mkdir -p "$nogit"
cp "$src/campaigns/weak_scaling.yaml" "$nogit/"
for l in 1 2 3; do
  "$exe" import "$nogit/weak_scaling.yaml" --system local --from "$tmp/tree$l" --workdir "$nogit/runs/r$l" \
    --label "v$l" >/dev/null 2>&1
  sleep 1
done
out=$("$exe" history 'median(epoch_time)@ranks=max,partition=gpu,data=dummy' "$nogit/weak_scaling.yaml" --system local)
rc=$?
check_eq "labels without git: exit 3" 3 $rc
check_eq "labels in the order the runs were made" "v1 v2 v3" "$(awk '$1 ~ /^r[0-9]/ { print $2 }' <<<"$out" | paste -sd' ')"
check "max picks ranks 4" grep -q "scaling-gpu-dummy-n4" <<<"$out"
check "written beside the runs" test -f "$nogit/runs/history/cosmoflow-weak-scaling-median_epoch_time__ranks=max_partition=gpu_data=dummy.json"

# Repetitions (nightly.yaml: repeat 2, local sizes): a change must also exceed their spread. Night 2
# has one repetition 30 % slow (its mean +14.9 %, past the threshold): within the noise, exit 0. Night 3
# is 20 % slower in both repetitions: a regression by disjoint intervals (rule ci), exit 3.
nrepo=$tmp/nrepo
mkdir -p "$nrepo"
cp "$src/campaigns/nightly.yaml" "$nrepo/"
write_night() { # dir factor_r1 factor_r2
  local p d r k f t
  for d in "" -dummy; do
    for r in 1 2 4; do
      for k in 1 2; do
        f=$([ $k = 1 ] && echo "$2" || echo "$3")
        mkdir -p "$1/nightly-cpu$d-n$r-r$k"
        t=$(awk -v r=$r -v f="$f" -v k=$k 'BEGIN { print (1 + 0.1 * log(r) / log(2)) * f * (k == 1 ? 1.005 : 0.995) }')
        {
          echo "epoch,loss,lr,mae,time,val_loss,val_mae"
          echo "0,0.5,0.01,0.3,$(awk -v t="$t" 'BEGIN { print 3 * t }'),0.5,0.3"
          for e in 1 2 3; do echo "$e,0.4,0.01,0.2,$t,0.4,0.2"; done
        } >"$1/nightly-cpu$d-n$r-r$k/history.csv"
      done
    done
  done
}
write_night "$tmp/night1" 1.0 1.0
write_night "$tmp/night2" 1.0 1.3
write_night "$tmp/night3" 1.2 1.2
for n in 1 2 3; do
  "$exe" import "$nrepo/nightly.yaml" --system local --from "$tmp/night$n" --workdir "$nrepo/runs/n$n" \
    --label "night$n" >/dev/null 2>"$tmp/import.err" || { echo "import of night $n failed:"; cat "$tmp/import.err"; }
  sleep 1
done
out=$("$exe" history 'epoch_time@ranks=4,data=real' "$nrepo/runs/n1" "$nrepo/runs/n2" --out "$tmp/h2")
rc=$?
echo "$out"
check_eq "one slow repetition: within the noise, exit 0" 0 $rc
check "the header names the noise rules" grep -q "beyond the spread of the repetitions" <<<"$out"
check "night 2 is past the threshold but within noise" grep -Eq "^ +n2 +night2 .* 2 .* ok \(\+14\.9% within noise\)" <<<"$out"
out=$("$exe" history 'epoch_time@ranks=4,data=real' "$nrepo/runs")
rc=$?
echo "$out"
check_eq "both repetitions 20 % slower: exit 3" 3 $rc
check "flagged by the intervals" grep -Eq "^ +n3 +night3 .* REGRESSION \(\+20\.0%\) +ci" <<<"$out"
check "the summary names the rule" grep -q "^REGRESSION beyond +10% vs baseline night1: nightly-cpu-n4-r1 at night3 +20.0% (ci)" <<<"$out"
out=$("$exe" history 'times@ranks=4' "$nrepo/runs")
rc=$?
echo "$out"
check_eq "the table's column (times_std, count): exit 3" 3 $rc
check "its repetitions are judged" grep -Eq "^ +n2 +night2 .* ok \(\+14\.9% within noise\)" <<<"$out"
csv=$nrepo/runs/history/cosmoflow-nightly-times_ranks=4.csv
check "CSV: the rule and the repetitions" grep -q ',REGRESSION,,ci,2,' "$csv"

# Bad input: exit 2, one line that helps.
err=$("$exe" history 'throughput@ranks=4' "$runs" 2>&1 >/dev/null)
check_eq "unknown metric: exit 2" 2 $?
check "did you mean throughputs: $err" grep -q "did you mean 'throughputs'" <<<"$err"
err=$("$exe" history 'eff@rank=4' "$runs" 2>&1 >/dev/null)
check_eq "unknown key: exit 2" 2 $?
check "did you mean ranks: $err" grep -q "did you mean 'ranks'" <<<"$err"
err=$("$exe" history 'sum(val_mae)@ranks=1' "$runs" --baseline nope 2>&1 >/dev/null)
check_eq "unknown baseline: exit 2" 2 $?
err=$("$exe" history 'max(lr)@ranks=1' "$runs" 2>&1 >/dev/null)
check_eq "direction unknown: exit 2" 2 $?
check "asks for --better: $err" grep -q "pass --better higher|lower" <<<"$err"
"$exe" history 'max(lr)@ranks=1' "$runs" --better lower >/dev/null
check_eq "--better given: exit 0" 0 $?
"$exe" history 'eff@max' "$tmp/empty-nothing-here" >/dev/null 2>&1
check_eq "a missing PATH: exit 2" 2 $?
finish
