#!/usr/bin/env python3
"""Markdown tables of throughput and p99 per strategy and thread count, one
table per experiment, from a results JSON (docs/strategies.md's "What each strategy
costs" tables come from Plans/strategies.yaml this way):

    .build/release/stressbench run Plans/strategies.yaml --json strategies.json
    python3 scripts/strategy-tables.py strategies.json

With repetitions, a cell shows the median ops/s of its repetitions and the p99
of their merged histograms (never an average of percentiles). A trial that did
not pass shows its outcome and violation count beside its figures.
"""
import collections
import json
import statistics
import sys


def si(x):
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.2f}{suffix}" if div > 1e3 else f"{x / div:.0f}{suffix}"
    return f"{x:.0f}"


def duration(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.1f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def percentile(buckets, p):
    """The value at percentile p (0-100) of merged [value, count] buckets."""
    total = sum(c for _, c in buckets)
    if total == 0:
        return None
    rank = max(1, round(p / 100 * total))
    seen = 0
    for value, count in sorted(buckets):
        seen += count
        if seen >= rank:
            return value
    return sorted(buckets)[-1][0]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    report = json.load(open(sys.argv[1]))
    cells = collections.defaultdict(list)
    experiments, strategies, threads = [], [], []
    for t in report["trials"]:
        spec = t["trial"]
        key = (spec["experiment"], spec["strategy"], spec["threads"])
        cells[key].append(t)
        for seen, value in ((experiments, spec["experiment"]), (strategies, spec["strategy"]), (threads, spec["threads"])):
            if value not in seen:
                seen.append(value)
    threads.sort()
    for experiment in experiments:
        print(f"**{experiment}**\n")
        header = "| strategy |" + "".join(f" {n} thread{'s' if n > 1 else ''} ops/s | p99 |" for n in threads)
        print(header)
        print("|---|" + "--:|--:|" * len(threads))
        for strategy in strategies:
            row = f"| `{strategy}` |"
            for n in threads:
                trials = cells.get((experiment, strategy, n), [])
                measured = [t for t in trials if t.get("measurement")]
                if not measured:
                    row += " – | – |"
                    continue
                rate = statistics.median(t["measurement"]["opsPerSecond"] for t in measured)
                buckets = [b for t in measured for b in t["measurement"]["histogram"]]
                p99 = percentile(buckets, 99)
                note = ""
                bad = [t for t in trials if t["outcome"] != "passed"]
                if bad:
                    outcomes = collections.Counter(t["outcome"] for t in bad)
                    violations = sum(t["violations"]["count"] for t in bad)
                    note = " (" + ", ".join(f"{o}" for o in outcomes) + (f", {violations} violations" if violations else "") + ")"
                row += f" {si(rate)}{note} | {duration(p99) if p99 is not None else '–'} |"
            print(row)
        print()


if __name__ == "__main__":
    main()
