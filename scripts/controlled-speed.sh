#!/usr/bin/env bash
# The controlled scheduler's speed: rounds per second and nanoseconds per
# decision of a 2-role scenario with about 10 scheduling points a role
# (scripts/controlled-speed.yaml: `empty` with 8 empty steps a role), and of
# `lazy-init` under `rwlock` (Plans/scenarios.yaml, about 12 points a role,
# with the model's lock in it), and of the quick start's counter with one
# worker (no hand-off at all: the scheduler's own cost a decision; its
# "rounds" are operations), under `--schedule controlled` with `--fuzz off`
# (first come, first served: a switch at nearly every point), `--fuzz pct`
# (a switch at each change point and where a worker blocks) and `--fuzz
# yield` (the default bug-hunting profile: a seeded random walk that keeps
# the running worker at half the points and otherwise picks at random among
# the runnable ones: with two roles a switch at 29% of the points), on all
# CPUs and under `taskset -c 0`; plus one hand-off's cost alone
# (scripts/controlled-handoff.c: two threads passing the token through the
# scheduler's batons, with the spin budget the scheduler uses).
#
#   scripts/controlled-speed.sh [STRESSBENCH...]
#   REPEATS=5 DECISIONS=200000 scripts/controlled-speed.sh /tmp/a/stressbench .build/release/stressbench
#   TRIALS=empty-steps POLICIES=off CPUS=all HANDOFF=no scripts/controlled-speed.sh ...
#
# With several binaries (say, release builds of two commits) every
# measurement runs each binary in turn, interleaved, REPEATS times, so the
# machine's drift falls on all of them alike. The figures come from each
# trial's record (rounds, decisions, the measured window); the load average
# is printed with every line. Defaults: the binary .build/release/stressbench,
# REPEATS 3, DECISIONS 200000 a trial. A subset, for a quick rerun: TRIALS
# (an extended regular expression on the trials' names), POLICIES (of `off
# pct yield`), CPUS (of `all one`), HANDOFF=no (leaves out the batons alone). Exit
# 0 when it ran to the end, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.."

repeats=${REPEATS:-3}
decisions=${DECISIONS:-200000}
for n in "$repeats" "$decisions"; do
    [[ "$n" =~ ^[0-9]+$ ]] || { echo "REPEATS and DECISIONS are whole numbers" >&2; exit 2; }
done
trials=${TRIALS:-.}
policies=${POLICIES:-off pct yield}
cpu_sets=${CPUS:-all one}
for p in $policies; do [[ "$p" =~ ^(off|pct|yield)$ ]] || { echo "POLICIES: of off, pct and yield, not $p" >&2; exit 2; }; done
for c in $cpu_sets; do [[ "$c" =~ ^(all|one)$ ]] || { echo "CPUS: all and/or one, not $c" >&2; exit 2; }; done
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=(.build/release/stressbench)
for b in "${bins[@]}"; do
    [ -x "$b" ] || { echo "no $b: swift build -c release --product stressbench first" >&2; exit 2; }
done
command -v python3 > /dev/null || { echo "needs python3" >&2; exit 2; }
cc=${CC:-cc}
pin=()
command -v taskset > /dev/null && pin=(taskset -c 0)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
on() {
    local cpus=$1
    shift
    if [ "$cpus" = one ]; then "${pin[@]}" "$@"; else "$@"; fi
}
# Prints one trial's figures from its JSON results.
figures() {
    python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
trials = doc["trials"] if isinstance(doc, dict) else doc
for t in trials:
    m, s = t.get("measurement") or {}, t.get("schedule") or {}
    # A scenario's rounds (its totalOps counts every role's operation); a
    # workload's operations.
    ops, ns, dec = t.get("rounds") or m.get("totalOps"), m.get("elapsedNs"), s.get("decisions")
    if not (ops and ns and dec):
        print(f"{t['outcome']}, no measurement")
        continue
    print(f"{t['outcome']:8} {ops:>8} rounds {dec:>7} decisions ({dec / ops:4.1f} a round) "
          f"{ops / (ns / 1e9):>9,.0f} rounds/s {ns / dec:>7,.0f} ns a decision  controlled {s.get('controlled')}")
PY
}

echo "# Controlled scheduling's speed: scripts/controlled-speed.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); REPEATS=$repeats DECISIONS=$decisions; load $(load)"
for i in "${!bins[@]}"; do echo "# binary $i: ${bins[$i]}"; done
[ ${#pin[@]} -eq 0 ] && echo "# no taskset: the one-CPU runs are skipped"

echo
echo "== one hand-off alone (scheduler's batons, 2 threads)"
if [ "${HANDOFF:-yes}" = no ]; then
    echo "(HANDOFF=no: skipped)"
elif "$cc" -O2 -I Sources/CStressSupport/include -o "$tmp/handoff" scripts/controlled-handoff.c Sources/CStressSupport/shim.c -lpthread -ldl; then
    for r in $(seq 1 "$repeats"); do
        echo "all CPUs, spin then park         load $(load)  $("$tmp/handoff" 1000000 2000)"
        echo "all CPUs, park at once           load $(load)  $("$tmp/handoff" 200000 0)"
        if [ ${#pin[@]} -gt 0 ]; then
            echo "taskset -c 0, park at once       load $(load)  $("${pin[@]}" "$tmp/handoff" 200000 0)"
            # What the scheduler does on one CPU: 4 yields, then park.
            echo "taskset -c 0, yield 4, then park load $(load)  $("${pin[@]}" "$tmp/handoff" 200000 0 4)"
        fi
    done
else
    echo "(cannot build scripts/controlled-handoff.c with $cc: skipped)"
fi

for target in "scripts/controlled-speed.yaml empty-steps/unsynchronized" "Plans/scenarios.yaml lazy-init/rwlock" \
              "Plans/quickstart.yaml counter/pthread-mutex/t1"; do
    set -- $target
    [[ "$2" =~ $trials ]] || continue
    for cpus in $cpu_sets; do
        [ "$cpus" = one ] && [ ${#pin[@]} -eq 0 ] && continue
        for fuzz in $policies; do
            echo
            echo "== $2, $cpus CPU(s), --fuzz $fuzz, $decisions decisions"
            for r in $(seq 1 "$repeats"); do
                for i in "${!bins[@]}"; do
                    f="$tmp/r.json"
                    rm -f "$f"
                    # A controlled trial ends by its decisions, not by the
                    # clock: a slow hand-off makes it long, hence the timeout.
                    on "$cpus" "${bins[$i]}" run "$1" --only "$2" --schedule controlled --fuzz "$fuzz" \
                        --max-decisions "$decisions" --trial-timeout 120s --json "$f" -q > "$tmp/out.txt" 2>&1
                    printf 'binary %d  load %-15s %s\n' "$i" "$(load)" "$( [ -s "$f" ] && figures "$f" || tail -n 1 "$tmp/out.txt")"
                done
            done
        done
    done
done
