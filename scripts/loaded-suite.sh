#!/usr/bin/env bash
# The test suite under load: runs `swift test --skip-build` RUNS times with
# BURNERS CPU-burning processes (`while :; do :; done`) beside it, PARALLEL
# suites at a time, and prints one line a run: when it started, how long it
# took, the load average it ran at, XCTest's and Swift Testing's counts, and
# the failing tests by name. A test whose expectation leans on timing fails
# here first: the burners take the cores away from the trials' workers at
# random moments, which is what a loaded CI runner does.
#
#   scripts/loaded-suite.sh [RUNS [BURNERS [PARALLEL]]]
#   scripts/loaded-suite.sh 10 2 2     # ten runs, two burners, two suites at once
#
# Defaults: 10 runs, 2 burners, 1 suite at a time. Build the tests first
# (`swift build --build-tests`); the script builds nothing, so every run tests
# the same binary. A run is what `swift test` runs, in two parts: the XCTest
# suite, run straight from the test bundle (SwiftPM holds a lock on .build for
# as long as `swift test` runs, which would make parallel runs take turns),
# then the Swift Testing suite through `swift test --skip-build
# --disable-xctest` (seconds; SwiftPM sets up its output). Each run's whole
# output is kept in $LOGS (default /tmp/stressbench-loaded-suite), run-N.log.
# Exit 0 when every run passed, 1 when any failed, 2 on a usage error. Ctrl-C
# stops the burners too.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${1:-10}
burners=${2:-2}
parallel=${3:-1}
for n in "$runs" "$burners" "$parallel"; do
    [[ "$n" =~ ^[0-9]+$ ]] || { echo "usage: scripts/loaded-suite.sh [RUNS [BURNERS [PARALLEL]]] (whole numbers)" >&2; exit 2; }
done
(( runs >= 1 && parallel >= 1 )) || { echo "RUNS and PARALLEL must be at least 1" >&2; exit 2; }
logs=${LOGS:-/tmp/stressbench-loaded-suite}
mkdir -p "$logs"

source scripts/lib/burners.sh
start_burners "$burners"

bundle=$(ls -d "$(swift build --show-bin-path)"/*PackageTests.xctest 2>/dev/null | head -1)
[[ -n "$bundle" && -x "$bundle" ]] || { echo "no test bundle: run swift build --build-tests first" >&2; exit 2; }

# One run: its summary line goes to run-N.summary when it ends.
one_run() {
    local n=$1
    local log="$logs/run-$n.log" start=$SECONDS began
    began=$(date -u +%H:%M:%S)
    "$bundle" >"$log" 2>&1
    local status=$?
    swift test --skip-build --disable-xctest >>"$log" 2>&1 || status=1
    local load
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    local xctest swifttesting failed
    xctest=$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -n 1 | sed -E 's/^[[:space:]]*//; s/ \(.*//')
    swifttesting=$(grep -E "Test run with [0-9]+ tests?" "$log" | tail -n 1 | sed -E 's/^.*(Test run with)/\1/')
    failed=$(grep -Eo "Test Case '[^']+' failed|Test [^ ]+ failed after" "$log" | sed -E "s/Test Case '(.*)' failed/\1/; s/Test (.*) failed after/\1/" | sort -u | tr '\n' ' ')
    printf 'run %2d  began %s  %4ds  exit %d  load %s  %s; %s%s\n' "$n" "$began" $((SECONDS - start)) "$status" "$load" \
        "${xctest:-no XCTest summary}" "${swifttesting:-no Swift Testing summary}" "${failed:+  FAILED: $failed}" >"$logs/run-$n.summary"
    return "$status"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $runs run(s), $burners burner(s), $parallel at a time; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
failures=0
next=1
while (( next <= runs )); do
    batch=()
    for ((p = 0; p < parallel && next <= runs; p++)); do
        one_run "$next" &
        batch+=("$!:$next")
        next=$((next + 1))
    done
    for entry in "${batch[@]}"; do
        wait "${entry%%:*}" || failures=$((failures + 1))
        cat "$logs/run-${entry##*:}.summary"
    done
done
echo "# done $(date -u +%Y-%m-%dT%H:%MZ): $((runs - failures)) of $runs run(s) passed; logs in $logs"
(( failures == 0 ))
