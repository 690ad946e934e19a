#!/bin/bash
# `campaign plan` and `validate` on the shipped campaigns, checked the way a
# user reads them: script counts, Slurm constraints, -N equal to the rank
# count, LSF directives and jsrun lines, the node-hours line, auto detection.
#
# Usage: bash tests/cli/plan.sh CAMPAIGN_BINARY SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
src=$2
ws=$src/campaigns/weak_scaling.yaml

# Daint: 28 Slurm scripts; gpu ones -C gpu, cpu ones -C mc; -N equals the rank count.
"$exe" plan "$ws" --system daint --out "$tmp/daint" >"$tmp/daint.txt"
check "daint writes 28 scripts" test "$(find "$tmp/daint" -name job.sh | wc -l)" -eq 28
check "daint summary line" grep -q "^28 cases in 1 step, 762.00 node-hours requested" "$tmp/daint.txt"
bad=0
for f in "$tmp"/daint/*/job.sh; do
  case=$(basename "$(dirname "$f")")
  ranks=${case##*-n}
  grep -q "^#SBATCH --nodes=$ranks$" "$f" || { echo "  $case: nodes != $ranks"; bad=1; }
  case $case in
    scaling-gpu-*) grep -q '^#SBATCH --constraint=gpu$' "$f" || { echo "  $case: no -C gpu"; bad=1; } ;;
    scaling-cpu-*) grep -q '^#SBATCH --constraint=mc$' "$f" || { echo "  $case: no -C mc"; bad=1; } ;;
    *) echo "  unexpected case $case"; bad=1 ;;
  esac
  grep -q '^srun -l -u python .*/train.py --distributed ' "$f" || { echo "  $case: launch line"; bad=1; }
done
check "daint scripts: constraint, nodes, srun line" test $bad -eq 0
check "daint gpu real uses cosmo.yaml, 256 per rank, 16 epochs" \
  grep -q -- "--rank-gpu .*/configs/cosmo.yaml --n-train 2048 --n-valid 2048 --n-epochs 16" "$tmp/daint/scaling-gpu-n8/job.sh"
check "daint cpu dummy uses cosmo_dummy.yaml, 32 per rank, 4 epochs" \
  grep -q -- "--distributed  .*/configs/cosmo_dummy.yaml --n-train 256 --n-valid 256 --n-epochs 4" "$tmp/daint/scaling-cpu-dummy-n8/job.sh"
check "every script writes the exit marker" test "$(grep -l "mv -f .exit.tmp .exit" "$tmp"/daint/*/job.sh | wc -l)" -eq 28

# Summit: LSF scripts with -nnodes and a jsrun line.
"$exe" plan "$ws" --system summit --out "$tmp/summit" -q >/dev/null
check "summit writes 28 scripts" test "$(find "$tmp/summit" -name job.sh | wc -l)" -eq 28
check "summit #BSUB -nnodes" grep -q "^#BSUB -nnodes 8$" "$tmp/summit/scaling-gpu-n8/job.sh"
check "summit #BSUB -W" grep -q "^#BSUB -W 01:00$" "$tmp/summit/scaling-gpu-n8/job.sh"
check "summit jsrun line" grep -q "^jsrun -n 8 -r 1 " "$tmp/summit/scaling-gpu-n8/job.sh"
check "summit has no #SBATCH" test "$(grep -l SBATCH "$tmp"/summit/*/job.sh | wc -l)" -eq 0

# LSF's walltime grammar where a profile says so (summit.yaml: walltime_format: lsf): "1:30" is one
# hour thirty as `bsub -W 1:30` reads it, one minute thirty as Slurm's --time reads it (daint); the
# forms that mean the same under both stay so; the LSF script asks for [hour:]minute.
cp "$src/tests/integration/campaigns/lsf_walltime.yaml" "$tmp/lsfw.yaml"
CAMPAIGN_ACCOUNT=proj "$exe" plan "$tmp/lsfw.yaml" --system summit --out "$tmp/lsfw-summit" >"$tmp/lsfw-summit.txt"
check_eq "summit (walltime_format: lsf) plans every form" 0 $?
CAMPAIGN_ACCOUNT=proj "$exe" plan "$tmp/lsfw.yaml" --system daint --out "$tmp/lsfw-daint" >"$tmp/lsfw-daint.txt"
check_eq "daint (Slurm) plans every form" 0 $?
walltime_of() { awk -v c="$2" '$1 == c { print $(NF - 1) }' "$1"; }  # plan's table: walltime, node-h
check_eq "summit: 1:30 is LSF's hours:minutes" 01:30:00 "$(walltime_of "$tmp/lsfw-summit.txt" lsfw-hm)"
check_eq "daint: 1:30 is Slurm's minutes:seconds" 00:01:30 "$(walltime_of "$tmp/lsfw-daint.txt" lsfw-hm)"
for c in hms min day units; do
  check_eq "lsfw-$c: the same walltime under both grammars" "$(walltime_of "$tmp/lsfw-daint.txt" lsfw-$c)" \
    "$(walltime_of "$tmp/lsfw-summit.txt" lsfw-$c)"
done
check_eq "summit: #BSUB -W [hour:]minute of 1:30" "#BSUB -W 01:30" "$(grep '^#BSUB -W' "$tmp/lsfw-summit/lsfw-hm/job.sh")"
check_eq "summit: #BSUB -W of 0-20 (LSF has no days)" "#BSUB -W 20:00" "$(grep '^#BSUB -W' "$tmp/lsfw-summit/lsfw-day/job.sh")"
check_eq "summit: #BSUB -W of 45 minutes" "#BSUB -W 00:45" "$(grep '^#BSUB -W' "$tmp/lsfw-summit/lsfw-min/job.sh")"
check_eq "daint: --time of 1:30" "#SBATCH --time=00:01:30" \
  "$(grep '^#SBATCH --time' "$tmp/lsfw-daint/lsfw-hm/job.sh")"
# A pack: allocation's walltime is read as the system reads walltimes too.
printf 'pack: {nodes: 2, walltime: "24:00"}\n' >>"$tmp/lsfw.yaml"
CAMPAIGN_ACCOUNT=proj "$exe" validate "$tmp/lsfw.yaml" --system summit >/dev/null
check_eq "summit: a pack of 24:00 (a day) holds the case of 20 hours: exit 0" 0 $?
CAMPAIGN_ACCOUNT=proj "$exe" validate "$tmp/lsfw.yaml" --system daint >/dev/null 2>"$tmp/lsfw.err"
check_eq "daint: a pack of 24:00 (24 minutes) cannot hold a case of 01:05:00: exit 2" 2 $?
check "it says so" grep -q "more than an allocation's 00:24:00" "$tmp/lsfw.err"

# Auto detection: a Daint login node picks daint, an unknown host local.
CAMPAIGN_HOSTNAME=daint103 "$exe" plan "$ws" -q >/dev/null 2>&1
out=$(CAMPAIGN_HOSTNAME=daint103 "$exe" plan "$ws" | head -1)
check "auto picks daint on daint103 ($out)" grep -q "on daint (auto: host daint103)" <<<"$out"
out=$(CAMPAIGN_HOSTNAME=laptop "$exe" plan "$ws" | head -1)
check "auto picks local elsewhere ($out)" grep -q "on local (auto" <<<"$out"

# Every shipped campaign plans and validates on every system: exit status 0, plan's node-hours line,
# validate's "ok:" line naming the campaign's cases and system.
for c in "$src"/campaigns/*.yaml; do
  for sys in local testcluster daint cori summit perlmutter frontier; do
    CAMPAIGN_ACCOUNT=proj "$exe" plan "$c" --system "$sys" -q >"$tmp/out" 2>&1
    rc=$?
    check "plan $(basename "$c") on $sys (exit $rc): $(tail -1 "$tmp/out")" \
      test "$rc" -eq 0 -a "$(grep -c "node-hours requested" "$tmp/out")" -eq 1
    CAMPAIGN_ACCOUNT=proj "$exe" validate "$c" --system "$sys" >"$tmp/out" 2>&1
    rc=$?
    check "validate $(basename "$c") on $sys (exit $rc): $(tail -1 "$tmp/out")" \
      test "$rc" -eq 0 -a "$(grep -Ec "^ok: campaign .* on $sys \(--system\): [0-9]+ cases in [0-9]+ steps?, [0-9]+ scripts render" "$tmp/out")" -eq 1
  done
done

# Packed cases (issue 12): the plan shows the allocations, and --out writes each case's step script
# and each allocation's script and manifest.
pack60=$src/tests/integration/campaigns/pack60.yaml
"$exe" plan "$pack60" >"$tmp/pack60.txt"
check "pack60: 60 cases in 3 allocations at most" grep -Eq "^60 cases in 1 step, [123] allocations? for packed cases" "$tmp/pack60.txt"
check "pack60: each allocation listed with its nodes" grep -q "allocation 1: partition mc, 4 nodes" "$tmp/pack60.txt"
"$exe" plan "$pack60" --out "$tmp/pack60" -q >/dev/null
check "pack60: every case script is one srun --exact step" \
  test "$(grep -l '^srun --exact' "$tmp"/pack60/p60-*/job.sh | wc -l)" -eq 60
check "pack60: case scripts have no #SBATCH" test "$(grep -l SBATCH "$tmp"/pack60/p60-*/job.sh | wc -l)" -eq 0
check "pack60: allocation scripts ask for 4 nodes" \
  test "$(grep -l '^#SBATCH --nodes=4$' "$tmp"/pack60/.alloc/*/job.sh | wc -l)" -eq "$(ls "$tmp/pack60/.alloc" | wc -l)"
check_eq "pack60: the manifests list each case once" 60 \
  "$(cat "$tmp"/pack60/.alloc/*/manifest.json | grep -o '"case": *"p60-[^"]*"' | sort -u | wc -l)"

# A re-plan into an existing directory replaces scripts in place.
"$exe" plan "$ws" --system daint --out "$tmp/daint" -q >/dev/null
check "re-plan keeps 28 scripts" test "$(find "$tmp/daint" -name job.sh | wc -l)" -eq 28
check "--help lists plan and validate" bash -c "'$exe' --help | grep -q plan && '$exe' --help | grep -q validate"
finish
