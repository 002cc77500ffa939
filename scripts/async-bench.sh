#!/usr/bin/env bash
# The figures of docs/async.md, from Plans/async.yaml and its examples:
#
#   1. detection: every trial with SEEDS seeds (scripts/detection-rates.sh),
#      on the deterministic executor (the plan's) and on the parallel harness
#      executor, each on all CPUs and pinned to one (taskset -c 0); a bug
#      counts as found within the plan's 2 s window;
#   2. false alarms: the correct variants with SEEDS seeds under the yield,
#      chaos, pct and light profiles, on both executors (must all pass);
#   3. replay: for each bug, `replay --times 10` of its first three seeds on
#      the deterministic executor (must be 10/10, the same first message);
#   4. executor cost: the correct variants without fuzzing, the global
#      executor against the harness executor, alternated ROUNDS times in one
#      run of this script (this machine's speed drifts: compare within a run).
#
#   scripts/async-bench.sh [SEEDS [ROUNDS]]      (defaults: 30 and 5)
#
# The binary is $STRESSBENCH, default .build/release/stressbench (build it
# first: swift build -c release). Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-30}
rounds=${2:-5}
bin=${STRESSBENCH:-.build/release/stressbench}
export STRESSBENCH=$bin
[ -x "$bin" ] || { echo "no $bin: swift build -c release first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bugs=(overdraft over-capacity dropped-element resumed-twice never-resumed)
pin=()
command -v taskset > /dev/null && pin=(taskset -c 0)

echo "== 1. detection: $seeds seeds per bug (found = violated, deadlock or crashed within the 2 s window)"
for executor in deterministic harness; do
    for cpus in all one; do
        [ "$cpus" = one ] && [ ${#pin[@]} -eq 0 ] && { echo "(no taskset: skipping one CPU)"; continue; }
        echo "-- executor $executor, $cpus CPU(s)"
        only=()
        for b in "${bugs[@]}"; do only+=(--only "$b"); done
        if [ "$cpus" = one ]; then "${pin[@]}" scripts/detection-rates.sh Plans/async.yaml "$seeds" -- --executor "$executor" "${only[@]}"
        else scripts/detection-rates.sh Plans/async.yaml "$seeds" -- --executor "$executor" "${only[@]}"; fi
    done
done

echo "== 2. false alarms: the correct variants, $seeds seeds per profile and executor"
alarms=0
for executor in deterministic harness; do
    for profile in yield chaos pct light; do
        "$bin" run Plans/async.yaml --only bank-account-correct --only bank-account-reserve --only connection-pool-correct \
            --only stream-relay-correct --only legacy-fetcher-correct --repetitions "$seeds" --fuzz "$profile" \
            --executor "$executor" --json "$tmp/correct.json" -q > /dev/null 2>&1 || true
        line=$(python3 - "$tmp/correct.json" <<'PY'
import json, sys, collections
trials = json.load(open(sys.argv[1]))["trials"]
outcomes = collections.Counter(t["outcome"] for t in trials)
print(len(trials), sum(n for o, n in outcomes.items() if o != "passed"), dict(outcomes))
PY
)
        set -- $line
        alarms=$((alarms + $2))
        echo "executor $executor, fuzz $profile: $1 trials, $2 not passed ${*:3}"
    done
done
echo "false alarms in all: $alarms"

echo "== 3. deterministic replay: 10 reruns of each bug's first three seeds"
"$bin" run Plans/async.yaml "${bugs[@]/#/--only=}" --repetitions 3 --json "$tmp/bugs.json" -q > /dev/null 2>&1 || true
python3 - "$tmp/bugs.json" > "$tmp/seeds" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))["trials"]:
    print(t["trial"]["id"], t["trial"]["seed"], t["outcome"])
PY
while read -r id seed outcome; do
    [ "$outcome" = passed ] && { echo "$id seed $seed: not found by this seed (nothing to replay)"; continue; }
    out=$("$bin" replay Plans/async.yaml --only "$id" --seed "$seed" --repetitions 3 --times 10 2>&1 || true)
    echo "$id seed $seed: $(grep '^replay rate' <<< "$out" | cut -d';' -f1); $(tail -n 1 <<< "$out")"
done < "$tmp/seeds"

echo "== 4. executor cost: correct variants, fuzz off, 1 s windows, $rounds alternating rounds"
for r in $(seq 1 "$rounds"); do
    for executor in global harness; do
        "$bin" run Plans/async.yaml --only bank-account-correct/unsynchronized/t4/r0 --only connection-pool-correct/unsynchronized/t4/r0 \
            --only stream-relay-correct/unsynchronized/t4/r0 --fuzz off --executor "$executor" --duration 1s \
            --json "$tmp/cost-$executor-$r.json" -q > /dev/null 2>&1 || true
    done
done
python3 - "$tmp" "$rounds" <<'PY'
import json, sys, statistics
tmp, rounds = sys.argv[1], int(sys.argv[2])
rates = {}
for r in range(1, rounds + 1):
    for ex in ("global", "harness"):
        for t in json.load(open(f"{tmp}/cost-{ex}-{r}.json"))["trials"]:
            rates.setdefault(t["trial"]["experiment"], {}).setdefault(ex, []).append(t["measurement"]["opsPerSecond"])
for name, by in sorted(rates.items()):
    g, h = statistics.median(by["global"]), statistics.median(by["harness"])
    print(f"{name}: global {g:,.0f} ops/s, harness {h:,.0f} ops/s (medians of {rounds}); harness/global {h / g:.2f}")
PY
