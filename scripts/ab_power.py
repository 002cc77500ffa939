#!/usr/bin/env python3
"""Estimates the power of `stressbench ab` for other numbers of pairs from the
pairs scripts/ab-calibration.sh measured: for each cell, the pairs' log-ratios
of all N comparisons of a kind (aa, ab5, ab2) are pooled; R times, n pairs a
cell are drawn from the pool with replacement and judged as `ab` judges them
(median ratio, 95% percentile-bootstrap interval, exact two-sided Wilcoxon
signed-rank test, Holm over the cells, tolerance); the share of draws in
which a cell is called regressed is the estimated rate. It is an estimate by
resampling, under the noise the calibration saw, not a measurement.

Usage: ab_power.py OUTDIR KIND [TOLERANCE] [PAIRS...]   (standard library only)
       e.g. ab_power.py /tmp/ab-calibration.x ab5 0.02 10 25 50 75
"""
import json
import math
import os
import random
import statistics
import sys


def pooled(out, kind):
    cells = {}
    i = 1
    while os.path.exists(f"{out}/{kind}-{i}.json"):
        with open(f"{out}/{kind}-{i}.json") as f:
            r = json.load(f)
        for c in r["cells"]:
            key = f"{c['cell']['experiment']}/{c['cell']['strategy']}/t{c['cell']['threads']}"
            cells.setdefault(key, []).extend(math.log(p["new"] / p["old"]) for p in c["pairs"] if p.get("old") and p.get("new"))
        i += 1
    return cells, r["settings"]


def wilcoxon_p(d):
    d = [x for x in d if x != 0]
    n = len(d)
    if n == 0:
        return 1.0
    order = sorted(range(n), key=lambda k: abs(d[k]))
    ranks = [0] * n
    i = 0
    while i < n:  # doubled mid-ranks, as the Swift code
        j = i
        while j + 1 < n and abs(d[order[j + 1]]) == abs(d[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = i + j + 2
        i = j + 1
    total = sum(ranks)
    observed = sum(r for r, x in zip(ranks, d) if x > 0)
    ways = [0] * (total + 1)
    ways[0] = 1
    reach = 0
    for r in ranks:
        reach += r
        for s in range(reach, r - 1, -1):
            if ways[s - r]:
                ways[s] += ways[s - r]
    distance = abs(2 * observed - total)
    extreme = sum(c for s, c in enumerate(ways) if c and abs(2 * s - total) >= distance)
    return min(1.0, extreme / sum(ways))


def judge(logs, rng, tolerance, resamples=1000):
    ratios = [math.exp(x) for x in logs]
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(resamples))
    lo = medians[int(0.025 * (resamples - 1))]
    return lo > 1 + tolerance, wilcoxon_p(logs)


def main():
    out, kind = sys.argv[1], sys.argv[2]
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 0.02
    sizes = [int(x) for x in sys.argv[4:]] or [10, 25, 50]
    cells, settings = pooled(out, kind)
    rng = random.Random(1)
    draws = 200
    for n in sizes:
        flagged = 0
        for _ in range(draws):
            results = [judge(rng.choices(pool, k=n), rng, tolerance) for pool in cells.values()]
            ps = sorted((p, k) for k, (_, p) in enumerate(results))
            adjusted, running = {}, 0.0
            for i, (p, k) in enumerate(ps):
                running = max(running, min(1.0, (len(ps) - i) * p))
                adjusted[k] = running
            if any(beyond and adjusted[k] < 0.05 for k, (beyond, _) in enumerate(results)):
                flagged += 1
        print(f"{kind}, {n} pairs a cell, tolerance {tolerance:.0%}: regression called in an estimated "
              f"{flagged / draws:.0%} of comparisons ({draws} resampled comparisons of {len(cells)} cells; "
              f"pools of {', '.join(str(len(p)) for p in cells.values())} pairs)")


main()
