#!/usr/bin/env python3
"""Scenario benchmark: how fast rounds run, how reliably buggy scenarios are
caught, and what drawing PCT's schedule per round buys over drawing it once.

    swift build -c release
    python3 scripts/bench-scenarios.py [--seeds 30] [--budget 2s] [--reps 5]
                                       [--out results/scenarios] [--only PART]

Four parts (--only rate|detection|never|pct runs one):

  rate       rounds per second of `empty` (two roles that do nothing: the
             harness's own cost per round) and of `store-buffering` (relaxed),
             under `unsynchronized`, 2 workers, 1 s windows, --reps repetitions;
             the median and the range.
  detection  every buggy scenario variant, under each strategy
             Plans/scenarios.yaml runs it with, with --seeds seeds (repetitions of one plan: each has its
             own seed), a --budget window and stop_on_violation, with fuzzing
             off (rounds in strides: the roles overlap most), under the default
             bug-hunting profile (`yield`, as Plans/bugs.yaml) and under `pct`;
             plus store-buffering with relaxed and with acquiring-releasing
             orderings, whose `0, 0` must show on x86-64 (its "detection" is
             seeing that outcome at all).
             Prints the detection rate with a 95% Wilson score interval and the
             median round of the first detection.
  never      the outcomes x86-64 must never show, each in --seeds / 3 trials of
             --budget with fuzzing off: store-buffering's and Dekker's with
             sequentially consistent orderings, message passing's `1, 0` with
             every ordering (x86 is TSO), load buffering's `1, 1` (relaxed);
             the rounds run and the rounds that showed it (must be 0).
  pct        the same buggy variants (under their first strategy) under soft PCT with the schedule drawn
             afresh for every round (`pct_scope: round`, the default) and drawn
             once for the whole trial (`pct_scope: trial`, as for workloads):
             detection rate, and rounds until the first detection (median and
             range over the seeds that found it).

Needs only Python 3 and the release build; writes every JSON result under --out.
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

# (label, scenario, parameters, strategies): buggy variants, under the
# strategies Plans/scenarios.yaml runs them with (where the bug is real).
BUGGY = [
    ("start-cancel: cancel-finishes", "operation-start-cancel", "{variant: cancel-finishes}",
     ["pthread-mutex", "serial-queue", "actor"]),
    ("lazy-init: check-then-create", "lazy-init-race", "{variant: check-then-create}",
     ["pthread-mutex", "rwlock", "rw-queue", "actor"]),
    ("lazy-init: publish-before-initialize", "lazy-init-race", "{variant: publish-before-initialize}",
     ["pthread-mutex", "rwlock", "rw-queue", "actor"]),
    ("nested transaction: reenter", "nested-transaction-once", "{variant: reenter}", ["pthread-mutex", "serial-queue"]),
    ("dekker: acquiring-releasing", "dekker", "{ordering: acquiring-releasing}", ["unsynchronized"]),
]
# The relaxed outcomes store buffering must show on x86-64 (its "detection"
# is seeing `0, 0` at all): with relaxed and with acquiring-releasing orderings.
STORE_BUFFERING = [("store-buffering: %s shows 0, 0" % o, "store-buffering", "{ordering: %s}" % o, ["unsynchronized"])
                   for o in ("relaxed", "acquiring-releasing")]


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def run_plan(yaml, out, name):
    path = os.path.join(out, name + ".yaml")
    result = os.path.join(out, name + ".json")
    with open(path, "w") as f:
        f.write(yaml)
    proc = subprocess.run([BIN, "run", path, "--json", result, "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 1, 3):
        sys.exit(f"{name}: stressbench exited {proc.returncode}: {proc.stderr}")
    with open(result) as f:
        return json.load(f)["trials"]


def found(trial, outcome=None):
    """Whether the trial caught its bug, and in which round (None when unknown)."""
    if outcome is not None:
        hits = [o for o in trial.get("outcomes") or [] if o["outcome"] == outcome]
        return (bool(hits), hits[0].get("firstRound") if hits else None)
    if trial["outcome"] in ("deadlock", "hang", "crashed"):
        return (True, None)
    if trial["outcome"] != "violated":
        return (False, None)
    rounds = [o["firstRound"] for o in trial.get("outcomes") or [] if o["grade"] == "forbidden" and "firstRound" in o]
    return (True, min(rounds) if rounds else None)


def part_rate(args):
    print(f"\n## Rounds per second (unsynchronized, 2 workers, 1 s windows, {args.reps} repetitions)\n")
    print("| scenario | median rounds/s | range |")
    print("|---|--:|--:|")
    for label, scenario, params in [("empty", "empty", "{}"), ("store-buffering, relaxed", "store-buffering", "{ordering: relaxed}")]:
        trials = run_plan(f"""experiments:
  - scenario: {scenario}
    parameters: {params}
    strategies: [unsynchronized]
    duration: 1s
    warmup: 100ms
    repetitions: {args.reps}
""", args.out, "rate-" + scenario)
        rates = [t["measurement"]["roundsPerSecond"] for t in trials]
        print(f"| {label} | {statistics.median(rates) / 1e6:.2f}M | {min(rates) / 1e6:.2f}M to {max(rates) / 1e6:.2f}M |")


def detection_cell(args, label, scenario, params, strategy, fuzz, outcome=None, tag=""):
    trials = run_plan(f"""experiments:
  - scenario: {scenario}
    parameters: {params}
    strategies: [{strategy}]
    duration: {args.budget}
    warmup: 0
    repetitions: {args.seeds}
    stop_on_violation: true
    deadlock_after: 300ms
    fuzz: {fuzz}
""", args.out, f"detect-{scenario}-{strategy}-{tag or fuzz}".replace(" ", "").replace("{", "").replace("}", "").replace(":", "-").replace(",", "-"))
    results = [found(t, outcome) for t in trials]
    k = sum(1 for hit, _ in results if hit)
    rounds = [r for hit, r in results if hit and r is not None]
    return k, len(trials), rounds


def part_detection(args):
    print(f"\n## Detection within {args.budget} ({args.seeds} seeds, stop_on_violation)\n")
    print("| scenario (strategy) | off | yield | pct |")
    print("|---|---|---|---|")
    for label, scenario, params, strategies in BUGGY + STORE_BUFFERING:
        outcome = "0, 0" if scenario == "store-buffering" else None
        for strategy in strategies:
            row = []
            for fuzz in ("off", "yield", "pct"):
                k, n, rounds = detection_cell(args, label, scenario, params, strategy, fuzz, outcome)
                lo, hi = wilson(k, n)
                first = f"; first in round {statistics.median(rounds):g} (median)" if rounds else ""
                row.append(f"{k}/{n} [{lo:.2f}, {hi:.2f}]{first}")
            print(f"| {label} ({strategy}) | " + " | ".join(row) + " |", flush=True)


def part_never(args):
    seeds = max(1, args.seeds // 3)
    print(f"\n## Outcomes x86-64 never shows ({seeds} seeds x {args.budget}, fuzzing off)\n")
    print("| scenario, ordering | outcome | rounds run | rounds that showed it |")
    print("|---|---|--:|--:|")
    cells = [("store-buffering", "sequentially-consistent", "0, 0"), ("dekker", "sequentially-consistent", "1, 1")]
    cells += [("message-passing", o, "1, 0") for o in ("relaxed", "acquiring-releasing", "sequentially-consistent")]
    cells += [("load-buffering", "relaxed", "1, 1")]
    for scenario, ordering, outcome in cells:
        trials = run_plan(f"""experiments:
  - scenario: {scenario}
    parameters: {{ordering: {ordering}}}
    strategies: [unsynchronized]
    duration: {args.budget}
    warmup: 0
    repetitions: {seeds}
""", args.out, f"never-{scenario}-{ordering}")
        rounds = sum(t.get("rounds") or 0 for t in trials)
        shown = sum(o["count"] for t in trials for o in t.get("outcomes") or [] if o["outcome"] == outcome)
        print(f"| {scenario}, {ordering} | `{outcome}` | {rounds:,} | {shown} |")


def part_pct(args):
    print(f"\n## Soft PCT per round against per trial ({args.seeds} seeds, {args.budget} each)\n")
    print("| scenario (strategy) | per round: found | rounds to the first | per trial: found | rounds to the first |")
    print("|---|---|--:|---|--:|")
    for label, scenario, params, strategies in BUGGY:
        strategy = strategies[0]
        row = []
        for scope in ("round", "trial"):
            k, n, rounds = detection_cell(args, label, scenario, params, strategy, f"{{profile: pct, pct_scope: {scope}}}", tag="pct-" + scope)
            lo, hi = wilson(k, n)
            spread = f"{statistics.median(rounds):g} ({min(rounds)} to {max(rounds)})" if rounds else "-"
            row += [f"{k}/{n} [{lo:.2f}, {hi:.2f}]", spread]
        print(f"| {label} ({strategy}) | " + " | ".join(row) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--budget", default="2s")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "scenarios"))
    parser.add_argument("--only", choices=["rate", "detection", "never", "pct"])
    args = parser.parse_args()
    if not os.path.exists(BIN):
        sys.exit("build first: swift build -c release")
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    for name, part in (("rate", part_rate), ("detection", part_detection), ("never", part_never), ("pct", part_pct)):
        if args.only in (None, name):
            part(args)


if __name__ == "__main__":
    main()
