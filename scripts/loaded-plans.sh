#!/usr/bin/env bash
# The shipped plans under load: runs the quick start QUICK times and every
# other plan in Plans/ EACH times, as shipped, with BURNERS CPU-burning
# processes (`while :; do :; done`) beside them, and prints one line a run:
# the plan, when it started, how long it took, its exit code, the load
# average it ran at and its verdict line. A plan whose control finds its bug
# only when the machine is quiet fails here first: the burners take the cores
# away from the trials' workers at random moments, as a loaded CI runner does.
#
#   scripts/loaded-plans.sh [QUICK [EACH [BURNERS [PARALLEL]]]]
#   scripts/loaded-plans.sh 20 5 2 3   # what docs/benchmarks/loaded-plans-*.txt holds
#
# Defaults: 20, 5, 2, 1 (PARALLEL runs at a time, which load the machine
# further; lines print as runs end). Uses .build/release/stressbench (build it first with
# `swift build -c release`; $STRESSBENCH overrides the binary), so every run
# tests the same binary. Each run's output is kept in $LOGS (default
# /tmp/stressbench-loaded-plans), PLAN-N.txt. Set PLANS to a space-separated
# list to run only those plans (the quick start is always first). The burners
# run alone for $WARM seconds (default 60) first, so that the load average
# has risen when the first run starts. Exit 0 when
# every run exited 0, 1 when any did not, 2 on a usage error. Ctrl-C stops
# the burners too.
set -uo pipefail
cd "$(dirname "$0")/.."

quick=${1:-20}
each=${2:-5}
burners=${3:-2}
parallel=${4:-1}
for n in "$quick" "$each" "$burners" "$parallel"; do
    [[ "$n" =~ ^[0-9]+$ ]] || { echo "usage: scripts/loaded-plans.sh [QUICK [EACH [BURNERS [PARALLEL]]]] (whole numbers)" >&2; exit 2; }
done
(( parallel >= 1 )) || { echo "PARALLEL must be at least 1" >&2; exit 2; }
bin=${STRESSBENCH:-.build/release/stressbench}
[[ -x "$bin" ]] || { echo "no $bin: run swift build -c release first (or set STRESSBENCH)" >&2; exit 2; }
logs=${LOGS:-/tmp/stressbench-loaded-plans}
mkdir -p "$logs"

source scripts/lib/burners.sh
start_burners "$burners"

# The load average is a one-minute mean: let the burners raise it before the
# first run ($WARM seconds, default 60).
sleep "${WARM:-60}"
plans=${PLANS:-$(ls Plans/*.yaml | grep -v '^Plans/quickstart.yaml$' | tr '\n' ' ')}
echo "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); quick start x$quick, every other plan x$each, $burners burner(s), $parallel at a time; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
# One run: its line goes to standard output when it ends, and its exit code
# to $logs/NAME-N.status.
one_run() {
    local plan=$1 n=$2 name start began status load verdict
    name=$(basename "$plan" .yaml)
    start=$SECONDS
    began=$(date -u +%H:%M:%S)
    "$bin" run "$plan" -q >"$logs/$name-$n.txt" 2>&1
    status=$?
    echo "$status" >"$logs/$name-$n.status"
    load=$(cut -d' ' -f1 /proc/loadavg)
    verdict=$(tail -n 1 "$logs/$name-$n.txt")
    printf '%-22s run %2d  began %s  %4ds  exit %d  load %s  %s\n' "$plan" "$n" "$began" $((SECONDS - start)) "$status" "$load" "$verdict"
}
runs=()
for ((n = 1; n <= quick; n++)); do runs+=("Plans/quickstart.yaml:$n"); done
for plan in $plans; do
    for ((n = 1; n <= each; n++)); do runs+=("$plan:$n"); done
done
rm -f "$logs"/*.status
# Only the runs are waited for: the burners never end.
active=()
for run in "${runs[@]}"; do
    while (( ${#active[@]} >= parallel )); do
        wait -n "${active[@]}"
        still=()
        for p in "${active[@]}"; do kill -0 "$p" 2>/dev/null && still+=("$p"); done
        active=("${still[@]}")
    done
    one_run "${run%%:*}" "${run##*:}" &
    active+=($!)
done
for p in "${active[@]}"; do wait "$p"; done
ok=$(grep -lx 0 "$logs"/*.status 2>/dev/null | wc -l)
echo "# $ok of ${#runs[@]} runs exited 0; load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
(( ok == ${#runs[@]} ))
