#!/usr/bin/env bash
# How reliably `check: linearizable` finds the built-in models' bugs, and that
# it raises no false alarm on the correct variants: runs Plans/linearizability.yaml
# through scripts/detection-rates.sh twice,
#
#   1. every buggy experiment with BUGGY_SEEDS seeds (default 30), each trial
#      ending at its first violation: "found" must be every seed, and
#      "slowest" (the time from the trial's start to its first violation)
#      within the plan's 2 s window;
#   2. every correct experiment with CORRECT_SEEDS seeds (default 100), each
#      trial checking every round of its whole window: "found" must be 0.
#
#   scripts/linearizability-detection.sh [BUGGY_SEEDS [CORRECT_SEEDS]] [stressbench run options...]
#
# The binary is $STRESSBENCH, default .build/debug/stressbench (the build the
# tests use). Other load on the machine changes how often threads are
# preempted where it matters; say how loaded it was with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

buggy=30
correct=100
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then buggy=$1; shift; fi
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then correct=$1; shift; fi
plan=Plans/linearizability.yaml

# The experiments, read from the plan: a buggy one expects `violated`.
mapfile -t buggy_names < <(python3 - "$plan" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for block in re.split(r"\n  - ", text)[1:]:
    name = re.search(r"name: (\S+)", block).group(1)
    if "expect: violated" in block:
        print(name)
PY
)
mapfile -t correct_names < <(python3 - "$plan" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for block in re.split(r"\n  - ", text)[1:]:
    name = re.search(r"name: (\S+)", block).group(1)
    if "expect: violated" not in block:
        print(name)
PY
)
only() { for name in "$@"; do printf -- '--only %s ' "$name"; done; }

echo "== buggy variants: $buggy seeds each, stopping at the first violation (load: $(cut -d' ' -f1-3 /proc/loadavg))"
# shellcheck disable=SC2046
scripts/detection-rates.sh "$plan" "$buggy" --stop-on-violation $(only "${buggy_names[@]}") "$@"
echo
echo "== correct variants: $correct seeds each, whole windows (load: $(cut -d' ' -f1-3 /proc/loadavg))"
# shellcheck disable=SC2046
scripts/detection-rates.sh "$plan" "$correct" $(only "${correct_names[@]}") "$@"
