#!/usr/bin/env bash
# Data races with ThreadSanitizer (docs/data-races.md): builds stressbench
# with TSan, once, in its own build directory, and runs the TSan subset,
# Plans/tsan/data-races.yaml (every strategy on the counter and the bank, the
# controlled control, the settings-cache example, the own-code and async
# examples' correct versions). Every correct cell must give no data race and
# every planted race must be reported: the plan's `expect` says which is
# which, so the run exits 0 on a healthy build.
#
#   scripts/tsan.sh                      build and run the subset
#   CONFIG=debug scripts/tsan.sh         the same with a debug TSan build (what
#                                        CI runs: it compiles in a fifth of the
#                                        CPU time and gives the same verdicts)
#   SEEDS=10 scripts/tsan.sh             and then each planted race under 10 seeds:
#                                        how many reported it, with both stacks
#                                        naming the workload's own file
#
# The build goes to $SCRATCH (default .build-tsan: a TSan build shares no
# object with a plain one, so it never overwrites .build), in its release or
# debug folder ($CONFIG, default release: its throughput is the one
# docs/data-races.md compares). Measured cold, 2 cores (docs/data-races.md#ci):
# the release build takes 485 s of CPU (about 7.5 minutes on quiet cores), the
# debug build 103 s (about 1.5 minutes); the run about 1 minute either way (its
# trials have fixed windows; 84 s at load 5 to 7). CI runs CONFIG=debug. Output:
# the run's table on standard output, its records in $SCRATCH/data-races.json.
# Exit: the run's exit code (0 when every cell did what the plan expects), 2
# on a usage error, or the build's when it failed.
set -uo pipefail
cd "$(dirname "$0")/.."

scratch=${SCRATCH:-.build-tsan}
config=${CONFIG:-release}
seeds=${SEEDS:-0}
[[ "$seeds" =~ ^[0-9]+$ ]] || { echo "SEEDS is a whole number" >&2; exit 2; }
[[ "$config" == release || "$config" == debug ]] || { echo "CONFIG is release or debug, not '$config'" >&2; exit 2; }

swift build -c "$config" --sanitize=thread --scratch-path "$scratch" --product stressbench || exit $?
bin="$scratch/$config/stressbench"

"$bin" run Plans/tsan/data-races.yaml --json "$scratch/data-races.json"
status=$?

# A planted race run in the stressbench process itself (--in-process): its
# status must be the documented one (0: the race was expected), not TSan's
# 66, which the executable's own TSan defaults turn off
# (Sources/CStressbenchDefaults), and the race must still be recorded.
"$bin" run Plans/tsan/data-races.yaml --in-process --only counter/unsynchronized/t2 --json "$scratch/in-process.json" -q > /dev/null 2>&1
in_process=$?
if [ "$in_process" != 0 ] || ! grep -q '"data-race"' "$scratch/in-process.json"; then
    echo "--in-process under TSan: exit $in_process (expected 0, with the race recorded as a data-race violation)" >&2
    [ "$status" = 0 ] && status=1
else
    echo "--in-process under TSan: exit 0, the planted race recorded"
fi

if [ "$seeds" -gt 0 ]; then
    command -v python3 > /dev/null || { echo "SEEDS needs python3" >&2; exit 2; }
    # The planted races, one seed a repetition; each must be a data race
    # whose two stacks both name the file the race is in.
    for cell in "counter/unsynchronized/t2:CounterWorkload" "bank/unsynchronized/t2:BankWorkload" \
                "counter-controlled/unsynchronized/t2:CounterWorkload" "settings-cache/unsynchronized/t4:SettingsCache.swift"; do
        only=${cell%%:*} file=${cell#*:}
        "$bin" run Plans/tsan/data-races.yaml --only "$only" --repetitions "$seeds" --json "$scratch/seeds.json" -q > /dev/null
        python3 - "$scratch/seeds.json" "$only" "$file" <<'PY'
import json, sys
report, cell, file = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
trials = report["trials"]
def both_stacks(t):
    for s in t["violations"]["samples"]:
        if s.get("kind") == "data-race" and all(any(file in f for f in a["frames"]) for a in s["accesses"]):
            return True
    return False
found = sum(1 for t in trials if both_stacks(t))
print(f"{cell}: reported with both stacks naming {file} in {found}/{len(trials)} seeds")
PY
    done
fi
exit $status
