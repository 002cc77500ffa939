#!/usr/bin/env bash
# Measures the CI gate on this machine:
#   A/A: the same build compared with itself N times: how often is a
#        regression called? (goal: at most 1 in 20)
#   A/B: one side does 25% more work per operation: how often is it caught?
#        (goal: at least 19 in 20)
#
# Usage: scripts/gate-calibration.sh [--plan PLAN] [N] [OUTDIR]     (default N=20)
#
# PLAN defaults to scripts/gate-calibration.yaml (the hidden _busywork
# workload, 2 cells, about 6 minutes for N=20). Any other plan works for A/A,
# e.g. --plan Plans/ci-gate.yaml (33 cells, about 1.5 minutes a run, so about
# an hour for N=20); A/B needs a plan whose experiments use _busywork, the
# only workload STRESSBENCH_BUSYWORK_EXTRA_PERCENT slows down, and is skipped
# for plans without one.
#
# Environment: STRESSBENCH (the binary; default: a release build, built if
# missing), EXTRA_PERCENT (the B side's extra work, default 25), TOLERANCE
# (passed to compare, default: the plan's 10%), METRICS (the figures each
# pair of runs is compared on, default "ops_per_s p50": the same runs are
# judged once per metric).
#
# Each iteration runs A, then B, then A again, and compares A1 with A2 (A/A)
# and A1 with B (A/B), so both comparisons see the same drift of a shared
# machine over time. Results: OUTDIR/summary.txt and one JSON per run.
set -euo pipefail
cd "$(dirname "$0")/.."

plan=scripts/gate-calibration.yaml
if [ "${1:-}" = "--plan" ]; then
    plan=${2:?--plan needs a plan file}
    shift 2
fi
[ -f "$plan" ] || { echo "no such plan: $plan" >&2; exit 2; }
n=${1:-20}
out=${2:-$(mktemp -d /tmp/stressbench-calibration.XXXXXX)}
extra=${EXTRA_PERCENT:-25}
ab=yes
grep -q '_busywork' "$plan" || ab=no
bin=${STRESSBENCH:-.build/release/stressbench}
if [ ! -x "$bin" ]; then
    swift build -c release --product stressbench >&2
fi
mkdir -p "$out"
metrics=${METRICS:-ops_per_s p50}
tolerance=()
[ -n "${TOLERANCE:-}" ] && tolerance=(--tolerance "$TOLERANCE")

run() { # run NAME [ENV=VALUE]
    local name=$1; shift
    env "$@" "$bin" run "$plan" --json "$out/$name.json" -q > "$out/$name.txt"
}

compare() { # compare BASE NEW LABEL METRIC: prints the exit code
    local code=0
    "$bin" compare "$out/$1.json" "$out/$2.json" --plan "$plan" --metric "$4" "${tolerance[@]}" \
        --json "$out/$3.json" -q > "$out/$3.txt" || code=$?
    echo "$code"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/summary.txt"
echo "plan: $plan$([ "$ab" = no ] && echo " (no _busywork experiment: A/A only)")" | tee -a "$out/summary.txt"
for i in $(seq 1 "$n"); do
    run "a1-$i"
    [ "$ab" = yes ] && run "b-$i" STRESSBENCH_BUSYWORK_EXTRA_PERCENT="$extra"
    run "a2-$i"
    line="iteration $i/$n:"
    for m in $metrics; do
        line="$line $m: A/A exit $(compare "a1-$i" "a2-$i" "aa-$m-$i" "$m")"
        [ "$ab" = yes ] && line="$line, A/B exit $(compare "a1-$i" "b-$i" "ab-$m-$i" "$m")"
        line="$line;"
    done
    echo "$line" | tee -a "$out/summary.txt"
done
for m in $metrics; do
    python3 scripts/gate_calibration_summary.py "$out" "$n" "$m" | tee -a "$out/summary.txt"
done
echo "files in $out"
