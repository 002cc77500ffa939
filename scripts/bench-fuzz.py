#!/usr/bin/env python3
"""Thread-fuzzing benchmark: how fast and how reliably each profile finds each
bug pattern, and what each profile costs a correct workload.

    swift build -c release
    python3 scripts/bench-fuzz.py [--seeds 30] [--budget 1s] [--out results/fuzz]
                                  [--scenario one-core|two-cores] [--only PATTERN]

For every bug pattern (a buggy `variant` of a workload, under a strategy where
the bug is real) and every profile (off, light, yield, chaos, pct, portfolio),
it runs SEEDS trials (repetitions of one plan: each has its own seed) with a
fixed time budget per trial and `stop_on_violation`, in two scenarios:

  one-core    2 workers with the trial process pinned to one CPU (taskset -c 0):
              a CI runner with one vCPU, a container with a CPU quota. Threads
              then interleave only where the scheduler preempts them (a timer
              tick every few ms), which is where plain stress is weakest.
  two-cores   4 workers on both CPUs: preemption inside and between critical
              sections all the time, where plain stress already does well.

and prints, per scenario, pattern and profile:

  detection rate   trials that ended violated, deadlock, hang or crashed, with a
                   95% Wilson score interval
  median time      to the first violation (or the start of the stall), over the
                   trials that found it; "final" when only the end-of-run check
                   saw it, "-" when nothing was found or it crashed (no time)

and, for correct workloads (bank under pthread-mutex with 4 threads, and under
actor with 4 tasks, 1 s, 3 repetitions), each profile's median throughput
relative to `off`, and the violations it produced (there must be none).

Needs only Python 3, taskset (util-linux) for the one-core scenario, and the
release build; writes every JSON result under --out.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".build", "release", "stressbench")
PROFILES = ["off", "light", "yield", "chaos", "pct", "portfolio"]

# (name, workload, parameters, strategy, extra plan keys); the scenario sets the workers.
PATTERNS = [
    ("lost-update (counter)", "counter", "{variant: split-rmw}", "pthread-mutex", ""),
    ("lost-update (bank)", "bank", "{variant: lost-update, accounts: 2, deposit_ratio: 0.6, audit_ratio: 0}", "pthread-mutex", ""),
    ("check-then-act", "bank", "{variant: check-then-act, accounts: 4, initial_balance: 100, max_transfer: 100, "
     "withdraw_ratio: 0.45, deposit_ratio: 0.4, close_ratio: 0}", "pthread-mutex", ""),
    ("stale-snapshot", "cache", "{variant: stale-snapshot, keys: 4, read_ratio: 0.5}", "pthread-mutex", ""),
    ("nested-transaction", "bank", "{variant: nested-transaction}", "pthread-mutex", "deadlock_after: 300ms"),
    ("lock-order-inversion", "bank", "{variant: lock-order-inversion, accounts: 4}", "pthread-mutex", "deadlock_after: 300ms"),
    ("lock-order-inversion", "bank", "{variant: lock-order-inversion, accounts: 64, audit_ratio: 0.3}", "actor", ""),
    ("write-through-read", "cache", "{variant: write-through-read, keys: 4, read_ratio: 0.5}", "rwlock", ""),
    ("publish-before-initialize", "lazy-init", "{variant: publish-before-initialize, reset_ratio: 0.1}", "pthread-mutex", ""),
    ("actor-reentrancy", "lifecycle", "{variant: actor-reentrancy, slots: 1}", "actor", ""),
]
# name: (workers, CPUs to pin to or None)
SCENARIOS = {"one-core": (2, "0"), "two-cores": (4, None)}
FOUND = {"violated", "deadlock", "hang", "crashed"}


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def run(plan_text, out_json, timeout, cpus=None):
    # The plan is kept beside its results, so the rerun commands they print work.
    plan = out_json[:-len(".json")] + ".yaml"
    with open(plan, "w") as f:
        f.write(plan_text)
    command = [BIN, "run", plan, "--json", out_json, "-q"]
    if cpus is not None:
        command = ["taskset", "-c", cpus] + command
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    with open(out_json) as f:
        return json.load(f)["trials"]


def first_failure_ns(t):
    if t["outcome"] == "violated":
        return t["violations"].get("firstAfterNs")
    if t.get("stall"):
        return t["stall"].get("beganAfterNs")
    return None


def median_time(found):
    times = [x for x in (first_failure_ns(t) for t in found) if x is not None]
    if times:
        return statistics.median(times), f"{statistics.median(times) / 1e6:.1f} ms"
    if any(t["outcome"] == "violated" for t in found):
        return None, "final"
    return None, "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--budget", default="1s")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "fuzz"))
    ap.add_argument("--only", help="run only patterns whose name contains this")
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), action="append",
                    help="run only this scenario (repeatable; default: both)")
    ap.add_argument("--skip-cost", action="store_true", help="skip the throughput-cost runs")
    args = ap.parse_args()
    if not os.access(BIN, os.X_OK):
        sys.exit("build first: swift build -c release")
    os.makedirs(args.out, exist_ok=True)
    scenarios = args.scenario or ["one-core", "two-cores"]
    if "one-core" in scenarios and not shutil.which("taskset"):
        print("taskset not found (util-linux): skipping the one-core scenario", file=sys.stderr)
        scenarios = [s for s in scenarios if s != "one-core"]

    summary = []
    for scenario in scenarios:
        workers, cpus = SCENARIOS[scenario]
        print(f"\n{scenario}: {workers} workers" + (f", pinned to CPU {cpus}" if cpus else ", all CPUs")
              + f"; budget {args.budget}, {args.seeds} seeds, stop at the first violation")
        print(f"{'pattern':28} {'strategy':14} {'profile':10} {'found':>7} {'95% interval':>14} {'median time':>12}")
        for name, workload, params, strategy, extra in PATTERNS:
            if args.only and args.only not in name:
                continue
            for profile in PROFILES:
                plan = (f"experiments:\n  - name: bench\n    workload: {workload}\n    parameters: {params}\n"
                        f"    strategies: [{strategy}]\n    threads: {workers}\n    duration: {args.budget}\n"
                        f"    warmup: 0s\n    repetitions: {args.seeds}\n    seed: 7\n    fuzz: {profile}\n"
                        f"    stop_on_violation: true\n" + (f"    {extra}\n" if extra else ""))
                slug = f"{scenario}-{name}-{strategy}-{profile}".replace(" ", "").replace("(", "-").replace(")", "")
                trials = run(plan, os.path.join(args.out, slug + ".json"), timeout=args.seeds * 120, cpus=cpus)
                found = [t for t in trials if t["outcome"] in FOUND]
                lo, hi = wilson(len(found), len(trials))
                median_ns, median = median_time(found)
                print(f"{name:28} {strategy:14} {profile:10} {len(found):>3}/{len(trials):<3} "
                      f"{f'[{lo:.2f}, {hi:.2f}]':>14} {median:>12}", flush=True)
                summary.append(dict(scenario=scenario, pattern=name, strategy=strategy, profile=profile,
                                    found=len(found), trials=len(trials), wilson=[lo, hi], median_first_ns=median_ns))

    if not args.skip_cost:
        for strategy in ["pthread-mutex", "actor"]:
            print(f"\nthroughput cost on a correct workload (bank, {strategy}, 4 workers, 1 s, 3 repetitions; median ops/s):")
            base = None
            for profile in PROFILES:
                plan = (f"experiments:\n  - name: cost\n    workload: bank\n    strategies: [{strategy}]\n    threads: 4\n"
                        f"    duration: 1s\n    repetitions: 3\n    fuzz: {profile}\n")
                trials = run(plan, os.path.join(args.out, f"cost-{strategy}-{profile}.json"), timeout=300)
                rates = [t["measurement"]["opsPerSecond"] for t in trials if t.get("measurement")]
                violations = sum(t["violations"]["count"] for t in trials)
                med = statistics.median(rates) if rates else float("nan")
                base = base or med
                print(f"  {profile:10} {med / 1e6:8.2f} M ops/s  ({med / base:6.1%} of off)  violations: {violations}", flush=True)
                summary.append(dict(strategy=strategy, profile=profile, cost_ops_per_s=med, violations_on_correct=violations))
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
