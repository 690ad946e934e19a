#!/bin/bash
# `campaign site` over five runs of the weak-scaling campaign at five commits of a scratch git
# repository (imported as in history.sh), the last one 25 % slower, plus two run directories that
# cannot be read (a corrupt catalog, one of a newer schema); then, without `track:`, five nights, the
# last two 25 % slower, where the site follows the analyses' headline columns by default. The site is opened in headless Chromium:
# the index shows the plots (SVG), a commit link leads to the run page and a metric link to the
# metric page (every relative link resolves to a file), no console error, no request leaves the
# file system; a screenshot of the index is saved in OUT_DIR. Exit status 3 as `history`.
#
# Usage: bash tests/cli/site.sh CAMPAIGN_BINARY SOURCE_DIR OUT_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
keep=$3 # survives the test: the site and the screenshot
export HOME=$tmp
rm -rf "$keep" && mkdir -p "$keep"

repo=$tmp/repo
mkdir -p "$repo"
cp "$src/campaigns/weak_scaling.yaml" "$repo/"
cat >>"$repo/weak_scaling.yaml" <<'YAML'
track:
  - throughputs@ranks=4
  - metric: epoch_time@ranks=4,data=real
    threshold: 10
  - eff@max
commit_url: "https://example.org/org/repo/commit/{{commit}}"
YAML
g() { git -C "$repo" -c user.name=t -c user.email=t@example.org "$@"; }
g init -q
g add weak_scaling.yaml
for day in 1 2 3 4 5; do
  echo "# change $day" >>"$repo/weak_scaling.yaml"
  g add weak_scaling.yaml
  GIT_AUTHOR_DATE="2026-01-0${day}T02:00:00Z" GIT_COMMITTER_DATE="2026-01-0${day}T02:00:00Z" g commit -q -m "day $day"
  commit[$day]=$(g rev-parse HEAD)
done

runs=$tmp/runs
factor=(x 1.0 1.02 0.98 1.01 1.25)
for day in 1 2 3 4 5; do
  write_tree "$tmp/tree$day" "${factor[$day]}"
  "$exe" import "$repo/weak_scaling.yaml" --system local --from "$tmp/tree$day" --workdir "$runs/night-$day" \
    --commit "${commit[$day]}" >/dev/null 2>"$tmp/import.err" || { echo "import of day $day failed:"; cat "$tmp/import.err"; }
  "$exe" report "$runs/night-$day" >/dev/null 2>&1 || echo "report of day $day failed"
done
mkdir -p "$runs/corrupt"
echo "this is not a database" >"$runs/corrupt/campaign.db"
mkdir -p "$runs/newer"
cp "$runs/night-1/campaign.db" "$runs/newer/"
/usr/bin/python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("pragma user_version = 999"); c.commit()' \
  "$runs/newer/campaign.db"

site=$keep/site
out=$("$exe" site "$runs" --out "$site" 2>"$tmp/err")
rc=$?
echo "$out"
cat "$tmp/err"
check_eq "site exits 3 on the 25 % slowdown, as history" 3 $rc
check "the regression is named" grep -q "^REGRESSION: cosmoflow-weak-scaling throughputs@ranks=4" <<<"$out"
check "the corrupt catalog is skipped with its reason" grep -q "skipped .*/corrupt: .*not a database" "$tmp/err"
check "the newer catalog is skipped with its reason" grep -q "skipped .*/newer: .*newer" "$tmp/err"
index=$site/index.html
check "index written" test -s "$index"
check "index lists the skipped directories" grep -q "newer than this campaign understands" "$index"
check_eq "five run pages" 5 "$(ls "$site"/runs/cosmoflow-weak-scaling/*.html | wc -l)"
check "each run's report copied" test -s "$site/runs/cosmoflow-weak-scaling/night-5/report.html"
"$exe" history 'throughputs@ranks=4' "$runs" --out "$tmp/h" >/dev/null 2>&1
check_eq "history agrees (exit 3)" 3 $?

# Nothing leaves the file system: the only absolute URLs are the commit links (and the XML namespace
# names of the reports' SVG plots, which name a namespace and are never fetched).
ext=$(grep -rhoE 'https?://[^"<> ]*' "$site" | grep -v '^https://example.org/org/repo/commit/[0-9a-f]\{40\}$' |
  grep -vx -e 'http://www.w3.org/2000/svg' -e 'http://www.w3.org/1999/xlink' | sort -u)
check_eq "no absolute URL but the commit links" "" "$ext"
check "the run page links its commit" grep -q "https://example.org/org/repo/commit/${commit[5]}" \
  "$site/runs/cosmoflow-weak-scaling/night-5.html"

mkdir -p "$tmp/nothing"
"$exe" site "$tmp/nothing" --out "$tmp/s2" >/dev/null 2>&1
check_eq "no runs: exit 1" 1 $?
"$exe" site "$runs" --campaign nope --out "$tmp/s3" >/dev/null 2>&1
check_eq "no runs of that campaign: exit 1" 1 $?
out=$("$exe" site "$runs/night-1" "$runs/night-2" --track 'median(epoch_time)@ranks=max' --out "$tmp/s4" 2>&1)
check_eq "two runs within the threshold: exit 0" 0 $?
check "--track adds a metric page" test -s "$tmp/s4/metrics/cosmoflow-weak-scaling/median_epoch_time__ranks_max.html"

# Without `track:` (issue 22): five nights of the shipped campaign, the last two 25 % slower. The site
# follows each analysis' headline columns, marked default, and rings the throughput's regression;
# `history` without METRIC follows the same.
plain=$tmp/plain
mkdir -p "$plain"
cp "$src/campaigns/weak_scaling.yaml" "$plain/"
plain_factor=(x 1.0 1.02 0.98 1.25 1.25)
for day in 1 2 3 4 5; do
  write_tree "$tmp/ptree$day" "${plain_factor[$day]}"
  "$exe" import "$plain/weak_scaling.yaml" --system local --from "$tmp/ptree$day" --workdir "$tmp/pruns/night-$day" \
    --label "night-$day" >/dev/null 2>"$tmp/import.err" || { echo "import of night $day failed:"; cat "$tmp/import.err"; }
done
out=$("$exe" site "$tmp/pruns" --out "$tmp/psite" 2>&1)
check_eq "without track: the site exits 3 on the 25 % slowdown" 3 $?
echo "$out"
check "the default throughput regressed (cpu)" grep -q "^REGRESSION: cosmoflow-weak-scaling weak_scaling.throughputs@max partition=cpu" <<<"$out"
check "and gpu" grep -q "^REGRESSION: cosmoflow-weak-scaling weak_scaling.throughputs@max partition=gpu" <<<"$out"
check "the efficiency (unchanged) did not" test -z "$(grep 'REGRESSION: .*eff@max' <<<"$out")"
check "no 'nothing tracked' notice" test -z "$(grep -i 'No metric is tracked' "$tmp/psite/index.html")"
check_eq "both defaults marked default on the index" 2 "$(grep -o '</a> <span class="default">default</span>' "$tmp/psite/index.html" | wc -l)"
check "the regression ringed on the index" grep -q 'class="regression"' "$tmp/psite/index.html"
check "the metric page says it is a default" grep -q "Followed by default" "$tmp/psite/metrics/cosmoflow-weak-scaling/weak_scaling.throughputs_max.html"
out=$("$exe" history "$tmp/pruns" --out "$tmp/ph" 2>&1)
check_eq "history without METRIC: exit 3 as the site" 3 $?
check "history follows the defaults" grep -q "following by default each analysis' headline columns (no \`track:\`): weak_scaling.throughputs@max, weak_scaling.eff@max" <<<"$out"
out=$("$exe" history "$runs" --out "$tmp/ph2" 2>&1)
check "history without METRIC follows the campaign's track:" grep -q "following the campaign's \`track:\`: throughputs@ranks=4, epoch_time@ranks=4,data=real, eff@max" <<<"$out"

# Every relative link of every page resolves to a file.
missing=""
while read -r page; do
  for href in $(grep -oE 'href="[^"#]+"' "$page" | sed 's/^href="//; s/"$//' | grep -v '^https\?://'); do
    [ -f "$(dirname "$page")/$href" ] || missing+=" $page->$href"
  done
done < <(find "$site" -name '*.html')
check_eq "every relative link resolves" "" "$missing"

chrome=(/usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions
  --user-data-dir="$tmp/chrome" --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0)
dom() { # FILE: the DOM after loading; console messages and errors appended to $tmp/console
  timeout 60 "${chrome[@]}" --dump-dom "file://$1" 2>>"$tmp/console"
}
d=$(dom "$index")
check "the index shows the plots (SVG with drawn series)" test "$(grep -o '<svg' <<<"$d" | wc -l)" -ge 3
check "the series are drawn" grep -q 'class="series"' <<<"$d"
check "the regression is marked on a plot" grep -q 'class="regression"' <<<"$d"
check "the latest verdict is shown" grep -q '<span class="REGRESSION">REGRESSION</span>' <<<"$d"
check "dates as dates on the axes" grep -q '>2026-01-0[1-5]<' <<<"$d"
commit_href=$(grep -oE 'class="commit" href="[^"]+"' <<<"$d" | head -1 | sed 's/.*href="//; s/"$//')
check "the newest commit links to its run page: $commit_href" test "$commit_href" = "runs/cosmoflow-weak-scaling/night-5.html"
r=$(dom "$site/$commit_href")
check "the run page shows its commit" grep -q "${commit[5]}" <<<"$r"
check "and the change from the previous run (+23.8 % epoch time)" grep -q '+23.8%' <<<"$r"
check "and links the previous run" grep -q 'href="../../runs/cosmoflow-weak-scaling/night-4.html"' <<<"$r"
metric_href=$(grep -oE 'class="metric" href="[^"]+"' <<<"$d" | head -1 | sed 's/.*href="//; s/"$//')
check "a metric links to its page: $metric_href" test -f "$site/$metric_href"
m=$(dom "$site/$metric_href")
check "the metric page: relative, absolute and speedup plots" \
  test "$(grep -oE 'relative to the baseline|speedup over the baseline|throughputs@ranks=4 \[' <<<"$m" | sort -u | wc -l)" -eq 3
check "one series per partition" grep -q 'partition=cpu' <<<"$m"
check "no console errors" test -z "$(grep -E 'Uncaught|ERROR:CONSOLE|Failed to load resource' "$tmp/console")"
timeout 60 "${chrome[@]}" --window-size=1280,1600 --screenshot="$keep/index.png" "file://$index" 2>>"$tmp/console" >/dev/null
check "screenshot saved" test -s "$keep/index.png"
echo "screenshot: $keep/index.png"
echo "site: $index"
finish 30
