#!/usr/bin/env bash
# What the harness adds to a lock: the throughput stressbench reports for the
# uncontended (1 thread) `counter` workload under a lock strategy, beside a
# hand-written tight loop of lock / increment / unlock over the same lock in
# the same build (`stressbench-dev baseline`, the development tool's command).
#
#   scripts/bench-lock-overhead.sh                      # pthread-mutex and mutex
#   LOCKS="pthread-mutex mutex nslock" OPS=20000000 REPS=9 scripts/bench-lock-overhead.sh
#   SAMPLES="auto 1024 1" scripts/bench-lock-overhead.sh  # the timings to run (default "auto 1")
#   REPS=0 PAIRS=200 scripts/bench-lock-overhead.sh       # the one-process table only
#
# Two tables, each a line per lock and timing:
#   separate processes  REPS pairs (default 7) of a `stressbench run` (the trial
#                       in its own child process, as a user runs it) and a
#                       `stressbench-dev baseline` process: the figure end to end, but on a
#                       shared VM the pairs straddle changes in the host's speed
#   one process         PAIRS pairs (default 100) of PAIR_OPS operations a side
#                       (default 1000000, about 10 ms), the in-process trial and
#                       the hand loop alternating in one process pinned to one
#                       CPU (`stressbench-dev overhead`): the same engine and
#                       record, and the tighter ratio (see below)
#
# For each lock it runs the harness with the default timing (`sample: auto`)
# and with every operation timed (`sample: 1`), or with each of SAMPLES, and
# prints:
#   ns/op          the measured window's wall time / operations (1e9 / ops/s):
#                  picking the operation, the step, the lock, the bookkeeping,
#                  and the clock reads of the timed operations
#   every          the interval the run timed at (1: every op; auto picks it)
#   baseline       the tight loop's ns/op: the lock and the increment, nothing else
#   ratio          baseline ns/op / harness ns/op = harness ops/s / baseline ops/s
#                  (the issue's goal for the default timing: >= 0.95), with the
#                  range over the pairs
#   ci95           a 95% bootstrap interval for that median ratio (the pairs
#                  resampled 2000 times, seeded): the spread within this run.
#                  Runs minutes apart can differ by more, as the host's state
#                  drifts (on 2026-11-24, pthread-mutex medians of 0.90 to 1.03)
#   fastest        the fastest hand-loop window / the fastest harness window
#                  (one window a side per pair, so neither side gets more
#                  chances): the ratio with the host's slow spells left out. On
#                  the reference VM each CPU runs the same pthread loop at about
#                  7.5 or about 12 ns/op, switching every few hundred ms on its
#                  own; a pair that straddles a switch gives a ratio of about
#                  0.65 or 1.5, and in the separate-process table the median of
#                  15 such pairs moves by +-0.03 or more from run to run.
#   added          harness ns/op - baseline ns/op, and for `sample: 1` the
#                  allowance: the clock reads a timed lock operation needs (3: its
#                  start, the moment it acquired, for the acquire-wait histogram,
#                  and its end; as the run measured them, back to back) + 5 ns
#   beyond         for `sample: 1` on the CPU's counter: harness ns/op - the ns/op
#                  of the hand loop with those three reads in it (`<lock>-timed`,
#                  paired in the same round), i.e. what the harness adds beyond
#                  the reads as they cost in place (the goal read this way: <= 5);
#                  beyond-f: the same from the fastest run of each side
# A last line (with REPS > 0) gives the floor for any harness with pluggable workloads: the
# pthread hand loop with its increment behind one indirect call.
#
# How, separate processes: REPS pairs (default 7), each a harness run (one trial, its own child
# process, after a 200 ms warm-up) and one hand-loop round of the same length
# (after a warm-up round, and 200 ms or more into its process), next to each
# other (which runs first alternates): one measured run a side, each starting
# about as long after its process did. (Until the morning of 2026-11-24 the
# hand loop's side was the best of two rounds, which can only favour it: by 1-8%
# in runs of that day; until about 09:00 UTC that day it was one round after a
# single warm-up round, about 100 ms into its process, where the same loop ran
# 4.7% faster on this VM than 300 ms in (medians of 20 rotations); and until
# 08:10 UTC the hand loops ran single-threaded, where glibc's pthread mutex
# takes no atomic instruction: `baseline` now starts an idle thread.) The ratio
# column is the median of the pairs' ratios, with their range, and the other
# columns the medians of their own figures. On a shared VM the speed of the same
# loop drifts by 10-30% from one minute to the next; pairing seconds apart
# keeps that drift out of the ratio, which best-of-N figures taken minutes
# apart (this script's earlier method) did not.
# Needs only the toolchain, python3 and a release build of stressbench and
# stressbench-dev (made here).
set -euo pipefail
cd "$(dirname "$0")/.."

LOCKS=${LOCKS:-"pthread-mutex mutex"}
OPS=${OPS:-10000000}
REPS=${REPS:-7}
PAIRS=${PAIRS:-100}
PAIR_OPS=${PAIR_OPS:-1000000}
for count in "REPS=$REPS" "PAIRS=$PAIRS" "OPS=$OPS" "PAIR_OPS=$PAIR_OPS"; do
    case ${count#*=} in
        '' | *[!0-9]*) echo "bench-lock-overhead.sh: ${count%%=*} must be a whole number, not '${count#*=}'" >&2; exit 2 ;;
    esac
done

# Every target: stressbench, and stressbench-dev (a development tool, no product).
swift build -c release 2>&1 | tail -n 1 >&2
bin=.build/release/stressbench
dev=.build/release/stressbench-dev
tmp=$(mktemp -d)
# What the hand loops say about the process they ran in is printed once, at the end.
: > "$tmp/hand-stderr"
trap 'sort -u "$tmp/hand-stderr" >&2 || true; rm -rf "$tmp"' EXIT

# One measured hand-loop round per lock named, after a warm-up round of its own
# and at least 200 ms after the process started: ns/op.
hand() {
    "$dev" baseline "$@" --iterations "$OPS" --warmup-rounds 1 --warmup-ms 200 --rounds 1 2>>"$tmp/hand-stderr" | awk '{ print $(NF - 1) }' | paste -s -d ' '
}


# One line of a table from the pairs in file $1 (lines of: harness ns/op,
# hand-loop ns/op, the interval timed at, the clock read's ns, the timed hand
# loop's ns/op or nan), for lock $2 and timing $3.
summarize() {
    python3 - "$1" "$2" "$3" <<'PY'
import math, random, statistics, sys
rows = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
harness = statistics.median(r[0] for r in rows)
base = statistics.median(r[1] for r in rows)
ratios = sorted(r[1] / r[0] for r in rows)
every = round(statistics.median(r[2] for r in rows))
allowance = "-" if sys.argv[3] != "1" else f"{3 * statistics.median(r[3] for r in rows) + 5:.1f}"
added = statistics.median(r[0] - r[1] for r in rows)
fastest = min(r[1] for r in rows) / min(r[0] for r in rows)
rng = random.Random(1)
medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
ci = f"{medians[49]:.2f}-{medians[1949]:.2f}"
beyond = beyond_fastest = "-"
if sys.argv[3] == "1" and not any(math.isnan(r[4]) for r in rows):
    beyond = f"{statistics.median(r[0] - r[4] for r in rows):.1f}"
    beyond_fastest = f"{min(r[0] for r in rows) - min(r[4] for r in rows):.1f}"
print(f"{sys.argv[2]:<14} {'sample ' + sys.argv[3]:<10} {harness:9.2f} {every:6d} {base:9.2f} {statistics.median(ratios):7.2f} "
      f"{ratios[0]:.2f}-{ratios[-1]:.2f}{'':<2} {ci:<11} {fastest:7.2f} {added:7.1f} {allowance:>9} {beyond:>7} {beyond_fastest:>8}")
PY
}

if [ "$REPS" -gt 0 ]; then
    echo "separate processes: 'stressbench run' (a child process per trial) beside a 'stressbench-dev baseline' process, $REPS pairs"
    printf '%-14s %-10s %9s %6s %9s %7s %-11s %-11s %7s %7s %9s %7s %8s\n' lock timing "ns/op" every baseline ratio range ci95 fastest added allowance beyond beyond-f
    for lock in $LOCKS; do
        for sample in ${SAMPLES:-auto 1}; do
            cat > "$tmp/plan.yaml" <<PLAN
experiments:
  - workload: counter
    strategies: [$lock]
    threads: [1]
    ops: $OPS
    warmup: 200ms
    timing: {sample: $sample}
PLAN
            : > "$tmp/pairs"
            for rep in $(seq "$REPS"); do
                # Alternate which of the pair runs first, so drift has no fixed
                # direction. The hand loop's 200 ms of warm-up play the part of the
                # harness's 200 ms warm-up; then one round, as the harness's one
                # trial (a best of several would pick the luckiest).
                # With every operation timed, the hand loop with its three clock
                # reads too (`<lock>-timed`), in the same round.
                loops="$lock"
                [ "$sample" = 1 ] && loops="$lock $lock-timed"
                [ $((rep % 2)) = 0 ] && base=$(hand $loops)
                "$bin" run "$tmp/plan.yaml" --json "$tmp/run.json" -q >/dev/null
                [ $((rep % 2)) = 1 ] && base=$(hand $loops)
                python3 - "$tmp/run.json" $base >> "$tmp/pairs" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["trials"][0]
assert t["outcome"] == "passed", t["outcome"]
m = t["measurement"]
timing = m["timing"]
# The timed hand loop reads the CPU's counter: a fair partner only for a run on it.
timed_hand = sys.argv[3] if len(sys.argv) > 3 and timing["clock"] == "tsc" else "nan"
print(m["elapsedNs"] / m["totalOps"], sys.argv[2], timing["sampleEvery"], timing["clockReadNs"], timed_hand)
PY
            done
            summarize "$tmp/pairs" "$lock" "$sample"
        done
    done
fi

# The same comparison in one process pinned to one CPU: the harness's trial
# (as `stressbench run --in-process` runs it) and the hand loop alternate,
# windows of PAIR_OPS operations, PAIRS pairs (`stressbench-dev overhead`, which
# pins itself). Each of this VM's CPUs switches between two speeds every few
# hundred ms on its own; pairs some 25 ms long on one CPU mostly run at one
# speed, so this table's ratios are the tighter ones (on 2026-11-24: the same
# median to 0.02 over three runs, where the table above moved by 0.13 over
# the day).
if [ "$PAIRS" -gt 0 ]; then
    [ "$REPS" -gt 0 ] && echo
    echo "one process: the in-process trial and the hand loop alternating, $PAIRS pairs of $PAIR_OPS operations"
    printf '%-14s %-10s %9s %6s %9s %7s %-11s %-11s %7s %7s %9s %7s %8s\n' lock timing "ns/op" every baseline ratio range ci95 fastest added allowance beyond beyond-f
    for lock in $LOCKS; do
        for sample in ${SAMPLES:-auto 1}; do
            # Its notes (the CPU it pinned to) join the hand loops' at the end;
            # if it fails, what it said comes first, unsorted.
            if ! "$dev" overhead "$lock" --pairs "$PAIRS" --iterations "$PAIR_OPS" --sample "$sample" > "$tmp/pairs" 2> "$tmp/overhead-stderr"; then
                cat "$tmp/overhead-stderr" >&2
                exit 1
            fi
            cat "$tmp/overhead-stderr" >> "$tmp/hand-stderr"
            summarize "$tmp/pairs" "$lock" "$sample"
        done
    done
fi

if [ "$REPS" -gt 0 ]; then
    # The floor for any harness whose workloads are plugged in: the pthread loop
    # with the increment behind one indirect call (what calling a workload's step
    # costs at the least), and the ratio it would reach; paired like the rest.
    for rep in $(seq "$REPS"); do
        hand pthread-mutex pthread-mutex-indirect
    done > "$tmp/floor"
    python3 - "$tmp/floor" <<'PY'
import statistics, sys
rows = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
plain = statistics.median(r[0] for r in rows)
indirect = statistics.median(r[1] for r in rows)
print(f"\nfloor: pthread-mutex hand loop {plain:.2f} ns/op; with the increment behind one indirect call {indirect:.2f} ns/op "
      f"(ratio {statistics.median(r[0] / r[1] for r in rows):.2f}, median of {len(rows)} pairs)")
PY
fi
