#!/usr/bin/env bash
# The controlled scheduler's cost in instructions: how many a decision and a
# round take, counted by valgrind's callgrind, for the trials
# scripts/controlled-speed.sh times (`empty` with 8 steps, `lazy-init` under
# `rwlock`, the quick start's counter with one worker).
#
# Why a second benchmark: on this host the same binary's rounds per second
# move threefold from one minute to the next (the CPUs' other tenants), so a
# change of 5% to the scheduler's own work is invisible in timings. An
# instruction count does not drift: under callgrind the run is the same run
# each time (controlled scheduling makes it so), and the count moves only
# with the code. What it cannot show is the cost of a cache line that comes
# from the other CPU after a switch: that is what the timings are for.
#
#   scripts/controlled-instructions.sh [STRESSBENCH...]
#   DECISIONS=60000 POLICIES='pct yield' scripts/controlled-instructions.sh /tmp/before/stressbench .build/release/stressbench
#
# Counted: the instructions of the workers' loops (a scenario's rounds, a
# workload's operations: where every decision is made; the trial's setup
# and its record are left out), without the spinning of a worker that
# waits for its turn (callgrind runs one thread at a time, so how long a
# waiter spins says nothing about the code); divided by the trial's
# decisions, and by its rounds (a workload's operations). Needs valgrind (Debian: apt-get install valgrind). Valgrind
# 3.19 cannot read the debug information Swift 6.3 writes, so each binary
# is copied with its debug information stripped, beside the libraries it
# loads from its own folder. Defaults: the binary .build/release/stressbench,
# DECISIONS 60000 a trial, POLICIES `off pct yield`, seed 1. Exit 0 when
# every cell was counted, 1 when one was not (its line says why), 2 on a
# usage error or a missing tool.
set -uo pipefail
# The binaries as given, from where the script was called: it then works
# from the repository's root.
bins=()
for b in "$@"; do bins+=("$(realpath -m -- "$b")"); done
cd "$(dirname "$0")/.."

decisions=${DECISIONS:-60000}
[[ "$decisions" =~ ^[0-9]+$ ]] || { echo "DECISIONS is a whole number" >&2; exit 2; }
policies=${POLICIES:-off pct yield}
for p in $policies; do [[ "$p" =~ ^(off|pct|yield|chaos|light)$ ]] || { echo "POLICIES: of off, pct, yield, chaos and light, not $p" >&2; exit 2; }; done
command -v valgrind > /dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
command -v callgrind_annotate > /dev/null || { echo "needs callgrind_annotate (it comes with valgrind)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "needs python3" >&2; exit 2; }
[ ${#bins[@]} -eq 0 ] && bins=(.build/release/stressbench)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in "${!bins[@]}"; do
    b=${bins[$i]}
    [ -x "$b" ] || { echo "no $b: swift build -c release --product stressbench first" >&2; exit 2; }
    mkdir -p "$tmp/bin$i"
    cp "$b" "$tmp/bin$i/stressbench"
    cp "$(dirname "$b")"/*.so "$tmp/bin$i/" 2> /dev/null
    strip -g "$tmp/bin$i/stressbench" || { echo "cannot strip a copy of $b" >&2; exit 2; }
done

echo "# Controlled scheduling's instructions: scripts/controlled-instructions.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# $(valgrind --version), DECISIONS=$decisions, seed 1"
for i in "${!bins[@]}"; do echo "# binary $i: ${bins[$i]}"; done

status=0
for target in "scripts/controlled-speed.yaml empty-steps/unsynchronized" "Plans/scenarios.yaml lazy-init/rwlock" \
              "Plans/quickstart.yaml counter/pthread-mutex/t1"; do
    set -- $target
    for fuzz in $policies; do
        echo
        echo "== $2, --fuzz $fuzz, $decisions decisions"
        for i in "${!bins[@]}"; do
            rm -f "$tmp/r.json" "$tmp/cg.out"
            # In process: callgrind then follows the trial's own threads.
            valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" --toggle-collect='*RoundLoopO3run*' \
                --toggle-collect='*ThreadDriverO14timedOperation*' \
                "$tmp/bin$i/stressbench" run "$1" --only "$2" --schedule controlled --fuzz "$fuzz" --seed 1 \
                --max-decisions "$decisions" --in-process --json "$tmp/r.json" -q > "$tmp/out.txt" 2>&1
            if [ ! -s "$tmp/r.json" ] || [ ! -s "$tmp/cg.out" ]; then
                echo "binary $i  no result: $(grep -v '^==' "$tmp/out.txt" | tail -n 1)"
                status=1
                continue
            fi
            callgrind_annotate --threshold=100 "$tmp/cg.out" > "$tmp/annotated.txt" 2> /dev/null
            python3 - "$tmp/r.json" "$tmp/annotated.txt" "$i" <<'PY' || status=1
import json, re, sys
doc = json.load(open(sys.argv[1]))
trial = (doc["trials"] if isinstance(doc, dict) else doc)[0]
schedule, measurement = trial.get("schedule") or {}, trial.get("measurement") or {}
decisions = schedule.get("decisions")
rounds = trial.get("rounds") or measurement.get("totalOps")
total = waiting = None
for line in open(sys.argv[2]):
    m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)", line)
    if not m:
        continue
    count, what = int(m.group(1).replace(",", "")), m.group(2)
    if "PROGRAM TOTALS" in what:
        total = count
    elif what.split(" ")[0].endswith(":stress_baton_wait"):
        waiting = count
outcome = trial.get("outcome") or "unknown"
if not (total and decisions and rounds):
    print(f"binary {sys.argv[3]}  {outcome}, no count")
    sys.exit(1)
work = total - (waiting or 0)
print(f"binary {sys.argv[3]}  {outcome:8} {decisions:>7} decisions {rounds:>7} rounds  "
      f"{work / decisions:7.0f} instructions a decision  {work / rounds:8.0f} a round  "
      f"(waiting's spin left out: {waiting or 0:,})")
PY
        done
    done
done
exit $status
