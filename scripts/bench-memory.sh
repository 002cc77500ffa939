#!/usr/bin/env bash
# Memory stays flat in run length: the peak RSS of a 60 s trial must be within
# 10% of a 5 s trial's (per-thread histograms are fixed-size, violation samples
# are capped, nothing grows with the number of operations).
#
#   scripts/bench-memory.sh [SHORT_SECONDS] [LONG_SECONDS]
#
# Prints both peaks and the ratio; exits 1 when the ratio exceeds 1.10.
set -euo pipefail
cd "$(dirname "$0")/.."
short=${1:-5}
long=${2:-60}
swift build -c release >/dev/null
bin=.build/release/stressbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for secs in "$short" "$long"; do
    cat > "$tmp/plan-$secs.yaml" <<PLAN
experiments:
  - name: memory-${secs}s
    workload: bank
    parameters: { accounts: 64, audit_ratio: 0.1 }
    strategies: [pthread-mutex, actor]
    threads: 4
    duration: ${secs}s
    timeout: $((secs * 3 + 30))s
PLAN
    "$bin" run "$tmp/plan-$secs.yaml" --json "$tmp/$secs.json" -q >/dev/null || true
done
python3 - "$tmp/$short.json" "$tmp/$long.json" <<'PY'
import json, sys
short, long = (json.load(open(p)) for p in sys.argv[1:3])
worst = 0.0
for a, b in zip(short["trials"], long["trials"]):
    ra = a["measurement"]["resources"]["peakRSSBytes"]
    rb = b["measurement"]["resources"]["peakRSSBytes"]
    ratio = rb / ra
    worst = max(worst, ratio)
    print(f"{a['trial']['strategy']:>14}: peak RSS {ra/2**20:7.1f} MiB ({a['trial']['durationNs']/1e9:.0f} s, "
          f"{a['measurement']['totalOps']:,} ops)  {rb/2**20:7.1f} MiB ({b['trial']['durationNs']/1e9:.0f} s, "
          f"{b['measurement']['totalOps']:,} ops)  ratio {ratio:.3f}")
print("flat" if worst <= 1.10 else "GROWS", f"(worst ratio {worst:.3f}, limit 1.10)")
sys.exit(0 if worst <= 1.10 else 1)
PY
