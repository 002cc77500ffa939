#!/usr/bin/env bash
# Calibrates `stressbench ab` (the paired comparison of two builds) on this
# machine, and runs the baseline gate (`run` + `compare`) side by side on the
# same builds:
#   A/A:  the same binary against itself, N times: how often is a regression
#         called? (goal: at most 1 in 20)
#   A/B5: against a build whose ~30 ns operation does about 5% more work,
#         N times: how often is it caught? (goal: at least 19 in 20)
#   A/B2: the same with about 2% more work: the power at 2%.
#   Time: seconds per comparison, and one comparison of the 10-cell
#         Plans/paired.yaml (goal: under 5 minutes).
#
# Usage: scripts/ab-calibration.sh [N] [OUTDIR]      (default N=20)
#
# The builds are Examples/ABCalibration: ab-calibration-base and
# ab-calibration-plus1/2, `stressbench` with the hidden `_ab-work` workload
# doing 0, 1 or 2 more shift-and-xor steps per operation, compiled in (no
# environment variable: two builds, as a main branch and a pull request are).
# A first long paired run of base against each plus build (EFFECT_PAIRS pairs
# a cell, default 30) measures what each extra step costs here; FIVE and TWO
# (default plus2 and plus1) name the builds that stand for 5% and 2%.
#
# Environment: BIN_DIR (where the builds are, default .build/release; built
# there when missing), PLAN (default scripts/ab-calibration.yaml), FIVE, TWO,
# EFFECT_PAIRS (0: no effect runs), AB_OPTIONS (more options for every `ab`,
# e.g. "--tolerance 1%"), PARTS (default "aa ab5 ab2 gate": which comparisons
# each iteration makes; gate is the baseline gate's runs and compares).
# Results: OUTDIR/summary.txt, one JSON per comparison and run.
set -euo pipefail
cd "$(dirname "$0")/.."

n=${1:-20}
out=${2:-$(mktemp -d /tmp/ab-calibration.XXXXXX)}
plan=${PLAN:-scripts/ab-calibration.yaml}
five=${FIVE:-plus2}
two=${TWO:-plus1}
effect_pairs=${EFFECT_PAIRS:-30}
parts=" ${PARTS:-aa ab5 ab2 gate} "
read -r -a ab_options <<< "${AB_OPTIONS:-}"
mkdir -p "$out"
bin_dir=${BIN_DIR:-.build/release}
for b in base plus1 plus2; do
    [ -x "$bin_dir/ab-calibration-$b" ] || swift build -c release --product "ab-calibration-$b" >&2
done
bin() { echo "$bin_dir/ab-calibration-$1"; }
base=$(bin base)

ab() { # ab NEW-BUILD NAME [options]: the exit code, and the seconds it took in NAME.seconds
    local new=$1 name=$2 code=0 start end; shift 2
    start=$(date +%s.%N)
    "$base" ab "$base" "$(bin "$new")" "$plan" --json "$out/$name.json" -q "${ab_options[@]}" "$@" > "$out/$name.txt" 2>&1 || code=$?
    end=$(date +%s.%N)
    echo "$end - $start" | bc > "$out/$name.seconds"
    echo "$code"
}

run() { # run BUILD NAME: a results file of the plan by BUILD, for the baseline gate
    "$(bin "$1")" run "$plan" --json "$out/$2.json" -q > "$out/$2.txt" 2>&1 || true
}

compare() { # compare BASE NEW LABEL [options]: the exit code of the baseline gate
    local code=0 base_file=$1 new_file=$2 label=$3; shift 3
    "$base" compare "$out/$base_file.json" "$out/$new_file.json" --plan "$plan" --json "$out/$label.json" -q "$@" > "$out/$label.txt" 2>&1 || code=$?
    echo "$code"
}

{
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "plan: $plan; A/B5 build: $five, A/B2 build: $two; ab options: ${AB_OPTIONS:-(defaults)}"
} | tee "$out/summary.txt"

# What each extra step costs here: long paired runs, median of the per-pair ratios.
if [ "$effect_pairs" -gt 0 ]; then
    for b in plus1 plus2; do
        echo "effect of $b: exit $(ab "$b" "effect-$b" --pairs "$effect_pairs")" | tee -a "$out/summary.txt"
    done
fi

for i in $(seq 1 "$n"); do
    line="iteration $i/$n:"
    case $parts in *" aa "*) line="$line ab A/A exit $(ab base "aa-$i")";; esac
    case $parts in *" ab5 "*) line="$line, A/B5 exit $(ab "$five" "ab5-$i")";; esac
    case $parts in *" ab2 "*) line="$line, A/B2 exit $(ab "$two" "ab2-$i")";; esac
    case $parts in *" gate "*)
        run base "run-a-$i"
        run "$five" "run-b5-$i"
        run "$two" "run-b2-$i"
        line="$line; baseline gate p50 A/B5 exit $(compare "run-a-$i" "run-b5-$i" "gate-p50-b5-$i")"
        line="$line, A/B2 exit $(compare "run-a-$i" "run-b2-$i" "gate-p50-b2-$i")"
        line="$line; ops_per_s at 2% A/B5 exit $(compare "run-a-$i" "run-b5-$i" "gate-ops-b5-$i" --metric ops_per_s --tolerance 2%)"
        line="$line, A/B2 exit $(compare "run-a-$i" "run-b2-$i" "gate-ops-b2-$i" --metric ops_per_s --tolerance 2%)";;
    esac
    echo "$line" | tee -a "$out/summary.txt"
done

# Time: the same build against itself on the 10-cell plan.
start=$(date +%s.%N)
code=0
"$base" ab "$base" "$base" Plans/paired.yaml --json "$out/paired-10-cells.json" -q "${ab_options[@]}" > "$out/paired-10-cells.txt" 2>&1 || code=$?
echo "10-cell Plans/paired.yaml, A/A: exit $code in $(echo "$(date +%s.%N) - $start" | bc | cut -d. -f1) s" | tee -a "$out/summary.txt"

python3 scripts/ab_calibration_summary.py "$out" "$n" | tee -a "$out/summary.txt"
# What other numbers of pairs would do under the noise measured here (an estimate by resampling).
for kind in aa ab5 ab2; do
    if [ -e "$out/$kind-1.json" ]; then
        python3 scripts/ab_power.py "$out" "$kind" 0.02 25 50 75 | tee -a "$out/summary.txt"
    fi
done
echo "files in $out"
