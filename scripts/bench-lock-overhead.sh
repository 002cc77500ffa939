#!/usr/bin/env bash
# What the harness adds to a lock: the harness's ns/op for the uncontended
# (1 thread) `counter` workload under a lock strategy, beside a hand-written
# tight loop of lock / increment / unlock over the same lock in the same
# binary (the hidden `stressbench _baseline` command).
#
#   scripts/bench-lock-overhead.sh                      # pthread-mutex and mutex
#   LOCKS="pthread-mutex mutex nslock" OPS=20000000 scripts/bench-lock-overhead.sh
#
# For each lock, with every operation timed (the default) and with 1 in 8
# timed (`timing: {sample: 8}`), it prints:
#   harness ns/op    the measured window's wall time / operations (1e9 / ops/s):
#                    picking the operation, the clock reads, the step, the lock
#   harness mean     the mean recorded service time of a timed operation
#   baseline ns/op   the tight loop: the lock and the increment, nothing else
#   ratio            harness ns/op / baseline ns/op
# Each figure is the best of REPS runs (default 5). Needs only the toolchain,
# awk and a release build (made here).
set -euo pipefail
cd "$(dirname "$0")/.."

LOCKS=${LOCKS:-"pthread-mutex mutex"}
OPS=${OPS:-10000000}
REPS=${REPS:-5}

swift build -c release 2>&1 | tail -n 1 >&2
bin=.build/release/stressbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The harness as plans use it by default (every operation timed: two clock
# reads per op), and with 1 operation in 8 timed (`timing: {sample: 8}`).
printf '%-15s %-10s %14s %14s %15s %7s\n' lock timed "harness ns/op" "harness mean" "baseline ns/op" ratio
for lock in $LOCKS; do
    baseline=$("$bin" _baseline "$lock" --iterations "$OPS" --rounds "$REPS" | awk '{ print $(NF - 1) }')
    for sample in 1 8; do
        cat > "$tmp/plan.yaml" <<PLAN
experiments:
  - workload: counter
    strategies: [$lock]
    threads: [1]
    ops: $OPS
    warmup: 200ms
    repetitions: $REPS
    timing: {sample: $sample}
PLAN
        "$bin" run "$tmp/plan.yaml" --csv "$tmp/run.csv" -q >/dev/null
        # Columns by name; the best (lowest) repetition of each figure.
        read -r harness mean < <(awk -F, '
            NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            $col["outcome"] == "passed" {
                v = $col["elapsed_ns"] / $col["total_ops"]; m = $col["lat_mean_ns"]
                if (best == "" || v < best) best = v
                if (mean == "" || m < mean) mean = m
            }
            END { if (best == "") exit 1; printf "%.2f %.2f\n", best, mean }' "$tmp/run.csv")
        ratio=$(awk -v h="$harness" -v b="$baseline" 'BEGIN { printf "%.1f", h / b }')
        printf '%-15s %-10s %14s %14s %15s %6sx\n' "$lock" "1 in $sample" "$harness" "$mean" "$baseline" "$ratio"
    done
done
