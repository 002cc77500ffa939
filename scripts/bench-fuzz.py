#!/usr/bin/env python3
"""Thread-fuzzing benchmark: how fast and how reliably each profile finds each
bug pattern, and what each profile costs a correct workload.

    swift build -c release
    python3 scripts/bench-fuzz.py [--seeds 30] [--budget 1s] [--out results/fuzz]

For every bug pattern (a buggy `variant` of a workload, under a strategy where
the bug is real) and every profile (off, light, yield, chaos, pct, portfolio),
it runs SEEDS trials (repetitions of one plan: each has its own seed) with a
fixed time budget per trial and `stop_on_violation`, and prints:

  detection rate   trials that ended violated, deadlock, hang or crashed, with a
                   95% Wilson score interval
  median time      to the first violation (or the start of the stall), over the
                   trials that found it; "-" when the failure was a crash
                   (no time) or nothing was found
and, for a correct workload (bank under pthread-mutex, 4 threads), each
profile's throughput relative to `off`.

Needs only Python 3 and the release build; writes every JSON result under --out.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".build", "release", "stressbench")
PROFILES = ["off", "light", "yield", "chaos", "pct", "portfolio"]

# (name, workload, parameters, strategy, threads, extra plan keys)
PATTERNS = [
    ("lost-update (counter)", "counter", "{variant: split-rmw}", "pthread-mutex", 4, ""),
    ("lost-update (bank)", "bank", "{variant: lost-update, accounts: 2, deposit_ratio: 0.6, audit_ratio: 0}", "pthread-mutex", 4, ""),
    ("check-then-act", "bank", "{variant: check-then-act, accounts: 4, initial_balance: 100, max_transfer: 100, "
     "withdraw_ratio: 0.45, deposit_ratio: 0.4, close_ratio: 0}", "pthread-mutex", 4, ""),
    ("stale-snapshot", "cache", "{variant: stale-snapshot, keys: 4, read_ratio: 0.5}", "pthread-mutex", 4, ""),
    ("nested-transaction", "bank", "{variant: nested-transaction}", "pthread-mutex", 4, "deadlock_after: 300ms"),
    ("lock-order-inversion", "bank", "{variant: lock-order-inversion, accounts: 4}", "pthread-mutex", 4, "deadlock_after: 300ms"),
    ("lock-order-inversion", "bank", "{variant: lock-order-inversion, accounts: 4}", "actor", 4, ""),
    ("write-through-read", "cache", "{variant: write-through-read, keys: 4, read_ratio: 0.5}", "rwlock", 4, ""),
    ("publish-before-initialize", "lazy-init", "{variant: publish-before-initialize, reset_ratio: 0.1}", "pthread-mutex", 4, ""),
    ("actor-reentrancy", "lifecycle", "{variant: actor-reentrancy, slots: 1}", "actor", 4, ""),
]
FOUND = {"violated", "deadlock", "hang", "crashed"}


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def run(plan_text, out_json, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(plan_text)
        plan = f.name
    try:
        subprocess.run([BIN, "run", plan, "--json", out_json, "-q"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=timeout, check=False)
        with open(out_json) as f:
            return json.load(f)["trials"]
    finally:
        os.unlink(plan)


def first_failure_ns(t):
    if t["outcome"] == "violated":
        return t["violations"].get("firstAfterNs")
    if t.get("stall"):
        return t["stall"].get("beganAfterNs")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--budget", default="1s")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "fuzz"))
    ap.add_argument("--only", help="run only patterns whose name contains this")
    args = ap.parse_args()
    if not os.access(BIN, os.X_OK):
        sys.exit("build first: swift build -c release")
    os.makedirs(args.out, exist_ok=True)

    print(f"{'pattern':28} {'strategy':14} {'profile':10} {'found':>7} {'95% interval':>14} {'median time':>12}")
    summary = []
    for name, workload, params, strategy, threads, extra in PATTERNS:
        if args.only and args.only not in name:
            continue
        for profile in PROFILES:
            plan = (f"experiments:\n  - name: bench\n    workload: {workload}\n    parameters: {params}\n"
                    f"    strategies: [{strategy}]\n    threads: {threads}\n    duration: {args.budget}\n"
                    f"    warmup: 0s\n    repetitions: {args.seeds}\n    seed: 7\n    fuzz: {profile}\n"
                    f"    stop_on_violation: true\n" + (f"    {extra}\n" if extra else ""))
            slug = f"{name}-{strategy}-{profile}".replace(" ", "").replace("(", "-").replace(")", "")
            trials = run(plan, os.path.join(args.out, slug + ".json"), timeout=args.seeds * 60)
            found = [t for t in trials if t["outcome"] in FOUND]
            times = [x for x in (first_failure_ns(t) for t in found) if x is not None]
            lo, hi = wilson(len(found), len(trials))
            median = f"{statistics.median(times) / 1e6:.1f} ms" if times else "-"
            print(f"{name:28} {strategy:14} {profile:10} {len(found):>3}/{len(trials):<3} "
                  f"{f'[{lo:.2f}, {hi:.2f}]':>14} {median:>12}", flush=True)
            summary.append(dict(pattern=name, strategy=strategy, profile=profile, found=len(found),
                                trials=len(trials), wilson=[lo, hi],
                                median_first_ns=statistics.median(times) if times else None))

    print("\nthroughput cost on a correct workload (bank, pthread-mutex, 4 threads, 1 s, 3 repetitions; median ops/s):")
    base = None
    for profile in PROFILES:
        plan = (f"experiments:\n  - name: cost\n    workload: bank\n    strategies: [pthread-mutex]\n    threads: 4\n"
                f"    duration: 1s\n    repetitions: 3\n    fuzz: {profile}\n")
        trials = run(plan, os.path.join(args.out, f"cost-{profile}.json"), timeout=120)
        rates = [t["measurement"]["opsPerSecond"] for t in trials if t.get("measurement")]
        violations = sum(t["violations"]["count"] for t in trials)
        med = statistics.median(rates) if rates else float("nan")
        base = base or med
        print(f"  {profile:10} {med / 1e6:8.2f} M ops/s  ({med / base:6.1%} of off)  violations: {violations}", flush=True)
        summary.append(dict(profile=profile, cost_ops_per_s=med, violations_on_correct=violations))
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
