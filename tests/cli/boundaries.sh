#!/bin/bash
# The boundaries ARCHITECTURE.md promises, kept by reading orchestrator/ (comments left out):
#  - scheduler and launcher dialect (commands, state and reason words, srun/jsrun lines, Slurm's
#    "None") lives in sched/ and local/ (the back ends); everything else sees typed values;
#  - the wall clock is read by the engine's clock, the catalog's default clock, and the places that
#    stamp something (lock file, report date, job records of the local executor, the pack driver's
#    start markers, the sampler's rows, LSF's year-less times, status's running time, the site's
#    date); monotonic deadlines of commands are not decisions and not checked;
#  - the decisions (ARCHITECTURE.md's table) are pure: no logging, no catalog, no file, no clock;
#  - processes are started only by util/process (commands that end), local/process with
#    local/monitor/campaign_monitor.cpp (the local executor's jobs) and local/launch (the built-in
#    launcher's ranks), pack/driver (an allocation's cases)
#    and sample/sampler (its long-lived nvidia-smi);
#  - an include goes down the folders' order (below), never up, so there is no cycle;
#  - the fit of a case on nodes is decided in resource/ only, and the job templates' case body is
#    one partial that each includes.
#  - a campaign's `analyses:` is read from YAML only in spec/ (parse_analyses, called as the campaign
#    is read); every other folder gets the typed Campaign::analyses;
#  - no source, template, profile, campaign, script or document cites a repository file that is not
#    there (a path with a folder, e.g. pack/driver.hpp or tests/cli/lib.sh, or a document's bare name,
#    e.g. README.md; comments only in code, profiles and scripts; URLs and placeholders such as
#    collectors/NAME.yaml left out).
#
# Usage: bash tests/cli/boundaries.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
cd "$src/orchestrator" || exit 1

# check_code NAME PATTERN ALLOWED_FILES_REGEX: no code line (comments stripped) outside ALLOWED matches.
scan() {
  /usr/bin/python3 - "$@" <<'PY'
import os, re, sys
pattern, allowed, only = re.compile(sys.argv[1]), re.compile(sys.argv[2]), sys.argv[3:]
for dirpath, _, files in os.walk("."):
    for f in sorted(files):
        if not f.endswith((".cpp", ".hpp")):
            continue
        path = os.path.join(dirpath, f)
        if allowed.pattern and allowed.search(path) or (only and path not in only):
            continue
        text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
        for n, line in enumerate(text.split("\n"), 1):
            code = re.sub(r'//.*$', "", re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: m.group(0) if "//" not in m.group(0) else '""', line))
            if pattern.search(code):
                print(f"{path}:{n}: {line.strip()}")
PY
}

dialect='ReqNodeNotAvail|DependencyNeverSatisfied|NODE_FAIL|"None"|\b(sacct|squeue|sbatch|scontrol|scancel|sinfo|bjobs|bsub|bkill|srun|jsrun)\b|TERM_[A-Z]'
check_eq "no scheduler dialect outside sched/ and local/" "" "$(scan "$dialect" '^\./(sched|local)/')"

wall='system_clock::now|std::time\(|[^_]time\(nullptr\)|CLOCK_REALTIME|gettimeofday'
allowed='^\./(engine/engine\.cpp|local/|pack/driver\.cpp|sample/sampler\.cpp|catalog/impl\.cpp|catalog/lock\.cpp|sched/scheduler\.hpp|report/report\.cpp|site/site\.cpp|cli/status\.cpp)'
check_eq "the wall clock is read only where ARCHITECTURE.md says" "" "$(scan "$wall" "$allowed")"

decisions=(./engine/decide.cpp ./engine/memory.cpp ./engine/cancel.cpp ./engine/choose.cpp ./engine/policy.cpp ./pack/planner.cpp ./pack/slots.cpp
  ./batch/batch.cpp ./resource/model.cpp ./local/admission.cpp ./history/verdicts.cpp ./trace/trace.cpp)
for f in "${decisions[@]}"; do
  check "the decision file $f exists" test -f "$f"
done
impure='spdlog|\bcatalog_?\.|Catalog&|Catalog::open|fstream|fopen|\bopen\(|read_file|write_file|std::filesystem::(exists|create|remove)|fs::(exists|create|remove)|::now\(|\bnow\(\)'
check_eq "the decisions use no logging, catalog, file or clock" "" "$(scan "$impure" '' "${decisions[@]}")"

spawn='posix_spawn|\bfork\(|\bvfork\(|\bexecv|\bexecl|\bpopen\(|std::system\('
allowed='^\./(util/process\.|local/process\.|local/monitor/campaign_monitor\.cpp|local/launch\.cpp|pack/driver\.cpp|sample/sampler\.cpp)'
check_eq "processes start only where ARCHITECTURE.md says" "" "$(scan "$spawn" "$allowed")"

# The folders from the bottom up; a folder includes only folders before it (and itself).
order=(util resource transport catalog sample ssh sched local spec matrix analysis render trace pack batch
  collect report engine stage history site cli)
layers=$(printf '%s\n' "${order[@]}")
for d in */; do
  check "orchestrator/${d%/} has its place in the folders' order" grep -qx "${d%/}" <<<"$layers"
done
up=$(/usr/bin/python3 - "${order[@]}" <<'PY'
import os, re, sys
rank = {d: i for i, d in enumerate(sys.argv[1:])}
for d in sorted(rank):
    if not os.path.isdir(d):
        continue
    for dirpath, _, files in os.walk(d):  # a folder's subfolders (local/monitor) are of its rank
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            for n, line in enumerate(open(path, errors="replace"), 1):
                m = re.match(r'#include "([a-z_]+)/', line)
                if m and m.group(1) in rank and rank[m.group(1)] > rank[d]:
                    print(f"{path}:{n}: {d} includes {m.group(1)}")
PY
)
check_eq "no include goes up the folders' order" "" "$up"

# The fit is decided in resource/ only (resource::fit, Pool::place): no other file compares what a
# case asks (a Demand's nodes, cores, GPUs, memory) with what nodes offer (a node's or the machine's
# cores, GPUs, memory; a partition's cores or GPUs per node, max_nodes; an allocation's nodes).
capacity='\b(cores_per_node|gpus_per_node|max_nodes|alloc_nodes|(node|machine|machine_|node_)\.(cores|gpus|memory_mb)|(limits|a)\.(nodes|node\.\w+))\b'
asked='\b(demand\w*(\([^()]*\))?|d)\.(nodes|cores|gpus|memory_mb)\b'
# A comparison is spaced (clang-format), a template's brackets are not; one with a number (> 0) checks
# a value, it fits nothing.
fit="($asked|$capacity)\s+(<|>|<=|>=)\s+(?!-?[0-9]+[lLuU]*\b)|\s(<|>|<=|>=)\s+[-\w.:()]*($asked|$capacity)"
check_eq "the fit is decided in resource/ only" "" "$(scan "$fit" '^\./resource/')"
# Its callers ask it: validate's checks and plan's node-hours (matrix/geometry), the pack planner and
# manifest, the local executor's submissions; admission and the pack driver's slots through Pool::place.
for f in matrix/geometry pack/planner pack/manifest local/local_scheduler; do
  check "orchestrator/$f.cpp asks resource::fit" grep -q 'resource::fit(' "$f.cpp"
done
for f in local/admission pack/slots; do
  check "orchestrator/$f.cpp places with Pool::place" grep -q '\.place(' "$f.cpp"
done

# The case body of the job templates is one partial (templates/partials/case.sh.mustache) that each
# case template includes: none repeats its lines, and each includes it.
case_body() {
  /usr/bin/python3 - "$src/templates" <<'PY'
import os, re, sys
root = sys.argv[1]
partial = os.path.join(root, "partials", "case.sh.mustache")
# Its own lines: not the short ones (`done`, `{{{.}}}`) nor tags alone, which any template may hold.
lines = {l.strip() for l in open(partial) if len(l.strip()) >= 16 and not re.fullmatch(r"\{\{[#^/!].*\}\}", l.strip())}
for dirpath, _, files in os.walk(root):
    for f in sorted(files):
        path = os.path.join(dirpath, f)
        if path == partial or not f.endswith(".sh.mustache"):
            continue
        for n, line in enumerate(open(path), 1):
            if line.strip() in lines:
                print(f"{os.path.relpath(path, root)}:{n}: {line.strip()}")
PY
}
check_eq "no template repeats the case body of templates/partials/case.sh.mustache" "" "$(case_body)"
for t in slurm lsf local pack/case; do
  check "templates/$t.sh.mustache includes the case body" grep -qx '{{> case}}' "$src/templates/$t.sh.mustache"
done
analyses_yaml='parse_analyses\(|"analyses"|YAML::Node[&\s]+analyses\b'
check_eq "the analyses' YAML is read only in spec/" "" "$(scan "$analyses_yaml" '^\./spec/')"
check "a campaign's analyses are typed values" \
  grep -q 'std::vector<analysis::AnalysisSpec> analyses;' spec/campaign.hpp

# citations ROOT: each file under ROOT that cites a file ROOT lacks, with what it cites.
citations() {
  /usr/bin/python3 - "$1" <<'PY'
import os, re, sys
os.chdir(sys.argv[1])
tops = sorted(d for d in os.listdir(".") if os.path.isdir(d) and not d.startswith((".", "build"))
              and not os.path.exists(os.path.join(d, "CMakeCache.txt")))
folders = sorted(os.listdir("orchestrator")) if os.path.isdir("orchestrator") else []
ext = r"(?:md|hpp|cpp|h|yaml|yml|sh|mustache|py|cmake)"
# A path with a folder (spec/campaign.hpp, tests/cli/lib.sh) or a document's bare name (README.md).
cite = re.compile(r"(?<![\w./~${}<>*-])((?:[\w.-]+/)+[\w.-]+\." + ext + r"|[A-Z][A-Z_]+\.md)(?![\w/*{<-])")
placeholder = re.compile(r"^[A-Z][A-Z_]*(\.\w+)*$")  # collectors/NAME.yaml stands for any collector
def comments(path, text):
    if path.endswith((".cpp", ".hpp", ".h")):
        text = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)
        return "\n".join(m.group(0) for m in re.finditer(r"//[^\n]*|/\*.*?\*/", text, re.S))
    if path.endswith(".md"):
        return text
    return "\n".join(m.group(1) for m in re.finditer(r"(?:^|\s)(#[^\n]*)", text))
for top in ["."] + tops:
    for dirpath, dirs, files in os.walk(top):
        dirs[:] = [] if top == "." else [d for d in dirs if not d.startswith((".", "build", "__pycache__"))]
        for f in sorted(files):
            p = os.path.normpath(os.path.join(dirpath, f))
            if p.startswith(("tests/data/", "tests/golden/")) or not re.search(r"\." + ext + "$", f):
                continue
            text = re.sub(r"\w+://\S+", "", comments(p, open(p, errors="replace").read()))
            for m in cite.finditer(text):
                cited = m.group(1)
                parts = cited.split("/")
                if len(parts) > 1 and any(placeholder.match(c) for c in parts):
                    continue
                # Read from the citing file's folder or one above it, or from orchestrator/.
                bases, d = ["orchestrator"], os.path.dirname(p)
                while d:
                    bases.append(d)
                    d = os.path.dirname(d)
                bases.append(".")
                if len(parts) > 1 and parts[0] not in tops + folders and \
                        not any(os.path.isdir(os.path.join(b, parts[0])) for b in bases[1:]):
                    continue  # a run's file (WORKDIR/report/...), not the repository's
                if not any(os.path.exists(os.path.join(b, cited)) for b in bases):
                    print(f"{p}: cites {cited}, which the repository lacks")
PY
}
check_eq "every file the repository's files cite is there" "" "$(citations "$src")"

# The checks can fail: each pattern finds what it must in the files that are allowed to hold it.
check "the dialect pattern matches sched/" test -n "$(scan "$dialect" '' ./sched/slurm_parse.cpp ./sched/launchers.cpp)"
check "the clock pattern matches the engine" test -n "$(scan "$wall" '' ./engine/engine.cpp)"
check "the purity pattern matches the engine's effects" test -n "$(scan "$impure" '' ./engine/apply.cpp)"
check "the process pattern matches util/process" test -n "$(scan "$spawn" '' ./util/process.cpp)"
check "the fit pattern matches resource/" test -n "$(scan "$fit" '' ./resource/model.cpp)"
check "the analyses' YAML pattern matches spec/campaign.cpp" test -n "$(scan "$analyses_yaml" '' ./spec/campaign.cpp)"
mkdir -p "$tmp/cited/orchestrator/pack" "$tmp/cited/systems" "$tmp/cited/docs"
touch "$tmp/cited/orchestrator/pack/driver.hpp" "$tmp/cited/README.md"
printf '// driver: pack/driver.hpp; script: pack/script.hpp, see README.md\n' >"$tmp/cited/orchestrator/pack/x.hpp"
printf '# facts from SYSTEMS.md\nname: x\n' >"$tmp/cited/systems/x.yaml"
printf 'See `orchestrator/pack/driver.hpp`, `systems/y.yaml`, WORKDIR/report/report.md.\n' >"$tmp/cited/docs/d.md"
check_eq "the citation check finds missing files, and only those" \
  "docs/d.md: cites systems/y.yaml, which the repository lacks
orchestrator/pack/x.hpp: cites pack/script.hpp, which the repository lacks
systems/x.yaml: cites SYSTEMS.md, which the repository lacks" "$(citations "$tmp/cited" | sort)"
finish 48
