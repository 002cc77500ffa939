#!/usr/bin/env bash
# PCT's bound, measured: a planted bug of depth 2 (the counter's lost update,
# `split-rmw` under `unsynchronized`: one worker preempted between its load
# and its store) with n workers of one increment each (`ops: 1`), run under
# `schedule: controlled` over SEEDS seeds, once per policy. PCT of depth d
# finds a bug of depth d among n workers and k scheduling points with
# probability at least 1/(n·k^(d−1)); for d = 2 that is 1/(n·k). k is the
# longest `schedule.decisions` of the run's trials. The measured rate comes
# with its 95% (Wilson) interval. Control does not depend on speed, so a
# debug build and a loaded machine give the same figures: results are by
# seed.
#
# Usage: scripts/pct-bound.sh [SEEDS] [OUTDIR]        (default SEEDS=1000)
# Environment: BIN (default .build/debug/stressbench, built when missing),
# WORKERS (default "2 3 4"), POLICIES (default "pct:2 pct:3 chaos": a
# policy, and for pct the plan's pct_depth).
# Results: OUTDIR/summary.txt, one plan and JSON per case.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${1:-1000}
OUT=${2:-$(mktemp -d /tmp/pct-bound.XXXXXX)}
BIN=${BIN:-.build/debug/stressbench}
WORKERS=${WORKERS:-"2 3 4"}
POLICIES=${POLICIES:-"pct:2 pct:3 chaos"}
mkdir -p "$OUT"
[ -x "$BIN" ] || swift build --product stressbench >/dev/null

for n in $WORKERS; do
  for p in $POLICIES; do
    policy=${p%%:*}
    fuzz=$policy
    [ "$policy" != "$p" ] && fuzz="{profile: $policy, pct_depth: ${p#*:}}"
    name="n${n}-${p/:/-d}"
    cat > "$OUT/$name.yaml" <<YAML
experiments:
  - name: lost-update
    workload: counter
    parameters: {variant: split-rmw, read_ratio: 0}
    strategies: [unsynchronized]
    threads: $n
    ops: 1
    warmup: 0
    schedule: controlled
    fuzz: $fuzz
    repetitions: $SEEDS
YAML
    # Exit 1 (violations found) is the point; anything above is not.
    "$BIN" run "$OUT/$name.yaml" --no-shrink --json "$OUT/$name.json" >"$OUT/$name.log" 2>&1 || [ $? -eq 1 ]
  done
done

python3 - "$OUT" $WORKERS -- $POLICIES <<'PY' | tee "$OUT/summary.txt"
import json, math, os, sys
out = sys.argv[1]
split = sys.argv.index("--")
workers, policies = sys.argv[2:split], sys.argv[split + 1:]

def wilson(found, total, z=1.96):
    p = found / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)

print(f"{'case':<14} {'seeds':>5} {'n':>2} {'k':>3} {'found':>5} {'rate':>7} {'95% interval':>17} {'1/(n·k)':>8}  verdict")
for n in workers:
    for p in policies:
        name = f"n{n}-{p.replace(':', '-d')}"
        trials = json.load(open(os.path.join(out, name + ".json")))["trials"]
        k = max(t["schedule"]["decisions"] for t in trials)
        found = sum(1 for t in trials if t["outcome"] == "violated")
        bad = sum(1 for t in trials if t["outcome"] not in ("violated", "passed"))
        total = len(trials)
        low, high = wilson(found, total)
        bound = 1 / (int(n) * k)
        verdict = "" if not p.startswith("pct:2") else ("holds" if low >= bound else "below bound" if high < bound else "not separable")
        note = f" ({bad} neither passed nor violated)" if bad else ""
        print(f"{name:<14} {total:>5} {n:>2} {k:>3} {found:>5} {found / total:>7.3f} [{low:.3f}, {high:.3f}] {bound:>8.4f}  {verdict}{note}")
PY
echo "results in $OUT"
