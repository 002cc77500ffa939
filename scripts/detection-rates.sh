#!/usr/bin/env bash
# How reliably a plan's trials detect their bug: runs every trial of the plan
# with SEEDS different seeds (`--repetitions SEEDS`: repetition 0 has the seed
# the plan gives it, the one the tests use), then prints, for each experiment,
# strategy and thread count:
#
#   found    runs that ended violated, deadlock, hang or crashed, out of SEEDS
#   how      how many runs ended each way (passed, violated, deadlock, hang,
#            crashed, and timeout or error, which count as not found: a timeout
#            is a stall the watchdog missed, an error a harness failure), and
#            how many of the deadlocks came with a non-empty wait-for cycle
#            and in how many the others went on (a partial deadlock)
#   median   time from the trial's start to the first violation a worker saw
#            (`violations.firstAfterNs`) or to the start of the stall the
#            watchdog reported (`stall.beganAfterNs`), median over the runs
#            that have one; "final" when the only detections came from final
#            checks (no time), "-" when nothing was found or it crashed
#   slowest  the longest of those times (the budget a test needs), "-" if none
#
#   scripts/detection-rates.sh [PLAN [SEEDS]] [stressbench run options...]
#   scripts/detection-rates.sh Plans/bugs.yaml 50 --fuzz yield
#
# Defaults: Plans/bugs.yaml, 50 seeds. The binary is $STRESSBENCH, default
# .build/debug/stressbench (the build the tests use; budgets behave differently
# in a release build). A budget is good enough for a test when every trial where
# the bug is real detects it in SEEDS out of SEEDS runs. Run it on a quiet
# machine: other load changes how often threads are preempted where it matters.
#
# The results are read from the run's JSON file by key, not from CSV columns by
# position, and the script refuses to count anything if a key it relies on is
# missing or the schema is not the one it knows (exit 2).
set -euo pipefail
cd "$(dirname "$0")/.."

plan=Plans/bugs.yaml
seeds=50
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then plan=$1; shift; fi
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then seeds=$1; shift; fi
[ "${1:-}" = "--" ] && shift
bin=${STRESSBENCH:-.build/debug/stressbench}

[ -f "$plan" ] || { echo "no plan file $plan" >&2; exit 2; }
[[ "$seeds" =~ ^[1-9][0-9]*$ ]] || { echo "SEEDS must be a positive number, got '$seeds'" >&2; exit 2; }
[ -x "$bin" ] || { echo "no stressbench at $bin (swift build, or set STRESSBENCH)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "needs python3" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
status=0
"$bin" run "$plan" --repetitions "$seeds" --json "$tmp/results.json" -q "$@" > /dev/null 2> "$tmp/stderr" || status=$?
# 0, 1 and 3 are runs that finished with passed, violated and stuck or crashed
# trials; anything else (a plan error, an interruption) left nothing to count.
case $status in
    0|1|3) ;;
    *) echo "stressbench run exited with status $status:" >&2; tail -n 20 "$tmp/stderr" >&2; exit 2 ;;
esac
echo "$plan: $seeds seeds per trial${*:+, options: $*}; $(( $(date +%s) - start ))s"

python3 - "$tmp/results.json" "$seeds" <<'PY'
import json
import re
import statistics
import sys

path, seeds = sys.argv[1], int(sys.argv[2])
FOUND = ("violated", "deadlock", "hang", "crashed")
SHOWN = ("passed",) + FOUND + ("timeout", "error", "skipped")


def refuse(why):
    print(f"detection-rates.sh: {why}; refusing to count (update this script to the new format)", file=sys.stderr)
    sys.exit(2)


with open(path) as f:
    report = json.load(f)
if report.get("schema") != "stressbench.results/1":
    refuse(f"results schema is {report.get('schema')!r}, not 'stressbench.results/1'")
trials = report.get("trials")
if not isinstance(trials, list) or not trials:
    refuse("the results file has no trials")
for t in trials:
    for where, keys in ((t, ("trial", "outcome", "violations")), (t.get("trial", {}), ("experiment", "strategy", "threads"))):
        missing = [k for k in keys if k not in where]
        if missing:
            refuse(f"a trial record lacks {missing}")
    if t["outcome"] not in SHOWN:
        refuse(f"unknown outcome {t['outcome']!r}")

cells = {}
for t in trials:
    key = (t["trial"]["experiment"], t["trial"]["strategy"], t["trial"]["threads"])
    cells.setdefault(key, []).append(t)


def first_detection_ns(t):
    """When the trial first saw its bug, from the start of the trial; None if unknown."""
    if t["outcome"] == "violated":
        return t["violations"].get("firstAfterNs")
    if t["outcome"] in ("deadlock", "hang"):
        return (t.get("stall") or {}).get("beganAfterNs")
    return None


def duration(ns):
    return f"{ns / 1e6:.1f} ms" if ns >= 100_000 else f"{ns / 1e3:.0f} µs"


print(f"{'experiment':28} {'strategy':20} {'threads':>7} {'found':>7}  {'median':>9}  {'slowest':>9}  how")
incomplete = False
for (experiment, strategy, threads), runs in cells.items():
    found = [t for t in runs if t["outcome"] in FOUND]
    times = [x for x in map(first_detection_ns, found) if x is not None]
    slowest = duration(max(times)) if times else "-"
    if times:
        median = duration(statistics.median(times))
    elif any(t["outcome"] == "violated" for t in found):
        median = "final"
    else:
        median = "-"
    counts = {o: sum(t["outcome"] == o for t in runs) for o in SHOWN}
    how = " ".join(f"{o}={n}" for o, n in counts.items() if n)
    # A deadlock is reported with its wait-for cycle: say how many were.
    cycles = sum(1 for t in runs if t["outcome"] == "deadlock" and (t.get("stall") or {}).get("cycle"))
    # A partial deadlock: some workers stuck for good while others still went
    # on (the stall's `partial` flag says only that the cycle was judged
    # among some workers; the others may have come to wait behind it).
    went_on = re.compile(r"while [1-9][0-9]* other worker\(s\) went on")
    partial = sum(1 for t in runs if t["outcome"] == "deadlock" and went_on.search((t.get("stall") or {}).get("summary", "")))
    if counts["deadlock"]:
        how += f" ({cycles} with a cycle" + (f", {partial} while others went on" if partial else "") + ")"
    incomplete |= len(runs) != seeds
    print(f"{experiment:28} {strategy:20} {threads:>7} {len(found):>3}/{len(runs):<3}  {median:>9}  {slowest:>9}  {how}")
if report.get("interrupted") or incomplete:
    print("note: the run was interrupted or some cells have fewer runs than seeds", file=sys.stderr)
PY
