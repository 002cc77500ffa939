#!/usr/bin/env bash
# Measures how reliably a plan's trials detect their bug: runs every trial of the
# plan REPS times with different seeds (repetitions 0..REPS-1; repetition 0 has
# the plan's own seed, the one the tests use), then prints, for each experiment
# and strategy, how many runs ended in each outcome.
#
#   scripts/detection-rates.sh [PLAN] [REPS] [BINARY] [-- extra stressbench run options]
#
# Defaults: Plans/bugs.yaml, 50, .build/debug/stressbench (the build the tests
# use). A budget is good enough for a test when every trial where the bug is real
# detects it in REPS out of REPS runs. Deadlocks show as timeout (or deadlock
# once the watchdog reports them), traps as crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
plan=${1:-Plans/bugs.yaml}
reps=${2:-50}
bin=${3:-.build/debug/stressbench}
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = "--" ] && shift

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -q '^defaults:' "$plan" || { echo "$plan has no 'defaults:' section to put repetitions in" >&2; exit 2; }
if grep -q '^ *repetitions:' "$plan"; then echo "$plan sets repetitions itself; remove them first" >&2; exit 2; fi
sed "s/^defaults:.*/&\n  repetitions: $reps/" "$plan" > "$tmp/plan.yaml"

start=$(date +%s)
"$bin" run "$tmp/plan.yaml" --csv "$tmp/results.csv" -q "$@" > /dev/null || true
echo "$plan: $reps seeds per trial, $(( $(date +%s) - start ))s"

# Columns 3, 6, 10 and 12 are experiment, strategy, outcome and the measured
# window in ns (none of the columns before the free-text ones contains a comma).
# "window" is the mean measured window of the trials that ran to the end.
awk -F, -v reps="$reps" 'NR > 1 {
    key = $3 "\t" $6
    if (!(key in seen)) { order[++n] = key; seen[key] = 1 }
    count[key, $10]++
    if ($10 != "passed") found[key]++
    if ($12 != "") { elapsed[key] += $12; timed[key]++ }
}
END {
    printf "%-28s %-20s %9s %9s  %s\n", "experiment", "strategy", "detected", "window", "outcomes"
    for (i = 1; i <= n; i++) {
        key = order[i]; split(key, part, "\t")
        outcomes = ""
        split("passed violated timeout deadlock crashed error", names, " ")
        for (j = 1; j <= 6; j++) if (count[key, names[j]] > 0) outcomes = outcomes names[j] "=" count[key, names[j]] " "
        window = timed[key] ? sprintf("%.0fms", elapsed[key] / timed[key] / 1e6) : "-"
        printf "%-28s %-20s %5d/%-3d %9s  %s\n", part[1], part[2], found[key] + 0, reps, window, outcomes
    }
}' "$tmp/results.csv"
