#!/usr/bin/env bash
# What the harness adds to a lock: the throughput stressbench reports for the
# uncontended (1 thread) `counter` workload under a lock strategy, beside a
# hand-written tight loop of lock / increment / unlock over the same lock in
# the same binary (the hidden `stressbench _baseline` command).
#
#   scripts/bench-lock-overhead.sh                      # pthread-mutex and mutex
#   LOCKS="pthread-mutex mutex nslock" OPS=20000000 REPS=7 scripts/bench-lock-overhead.sh
#
# For each lock it runs the harness with the default timing (`sample: auto`)
# and with every operation timed (`sample: 1`), and prints:
#   ns/op          the measured window's wall time / operations (1e9 / ops/s):
#                  picking the operation, the step, the lock, the bookkeeping,
#                  and the clock reads of the timed operations
#   every          the interval the run timed at (1: every op; auto picks it)
#   baseline       the tight loop's ns/op: the lock and the increment, nothing else
#   ratio          baseline ns/op / harness ns/op = harness ops/s / baseline ops/s
#                  (the issue's goal for the default timing: >= 0.95)
#   added          harness ns/op - baseline ns/op, and for `sample: 1` the
#                  allowance: the clock reads a timed lock operation needs (3: its
#                  start, the moment it acquired, for the acquire-wait histogram,
#                  and its end; as the run measured them) + 5 ns
# A last line gives the floor for any harness with pluggable workloads: the
# pthread hand loop with its increment behind one indirect call.
# Each figure is the best of REPS runs (default 5): the others absorb warm-up
# and interruptions. Needs only the toolchain, awk and a release build (made here).
set -euo pipefail
cd "$(dirname "$0")/.."

LOCKS=${LOCKS:-"pthread-mutex mutex"}
OPS=${OPS:-10000000}
REPS=${REPS:-5}

swift build -c release 2>&1 | tail -n 1 >&2
bin=.build/release/stressbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-14s %-10s %9s %6s %9s %7s %9s %11s\n' lock timing "ns/op" every baseline ratio added allowance
for lock in $LOCKS; do
    baseline=$("$bin" _baseline "$lock" --iterations "$OPS" --rounds "$REPS" | awk '{ print $(NF - 1) }')
    for sample in auto 1; do
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
        "$bin" run "$tmp/plan.yaml" --json "$tmp/run.json" -q >/dev/null
        # The best (fastest) repetition, with the interval it timed at and the
        # clock read cost it measured.
        read -r harness every clock < <(python3 - "$tmp/run.json" <<'PY'
import json, sys
trials = [t for t in json.load(open(sys.argv[1]))["trials"] if t["outcome"] == "passed"]
best = min(trials, key=lambda t: t["measurement"]["elapsedNs"] / t["measurement"]["totalOps"])
m = best["measurement"]
print(f'{m["elapsedNs"] / m["totalOps"]:.2f} {m["timing"]["sampleEvery"]} {m["timing"]["clockReadNs"]}')
PY
)
        ratio=$(awk -v h="$harness" -v b="$baseline" 'BEGIN { printf "%.2f", b / h }')
        added=$(awk -v h="$harness" -v b="$baseline" 'BEGIN { printf "%.1f", h - b }')
        allowance="-"
        [ "$sample" = 1 ] && allowance=$(awk -v c="$clock" 'BEGIN { printf "%.1f", 3 * c + 5 }')
        printf '%-14s %-10s %9s %6s %9s %7s %9s %11s\n' "$lock" "sample $sample" "$harness" "$every" "$baseline" "$ratio" "$added" "$allowance"
    done
done

# The floor for any harness whose workloads are plugged in: the pthread loop
# with the increment behind one indirect call (what calling a workload's step
# costs at the least), and the ratio it would reach.
plain=$("$bin" _baseline pthread-mutex --iterations "$OPS" --rounds "$REPS" | awk '{ print $(NF - 1) }')
indirect=$("$bin" _baseline pthread-mutex-indirect --iterations "$OPS" --rounds "$REPS" | awk '{ print $(NF - 1) }')
printf '\nfloor: pthread-mutex hand loop %s ns/op; with the increment behind one indirect call %s ns/op (ratio %s)\n' \
    "$plain" "$indirect" "$(awk -v a="$plain" -v b="$indirect" 'BEGIN { printf "%.2f", a / b }')"
