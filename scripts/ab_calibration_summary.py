#!/usr/bin/env python3
"""Summarises scripts/ab-calibration.sh: for `stressbench ab`, how often A/A
called a regression (false alarms) and how often A/B5 and A/B2 did
(detections, the power), with the per-cell median ratios and intervals it
saw and the seconds per comparison; and the same detections for the
baseline gate (`run` + `compare`) on the same builds.

Usage: ab_calibration_summary.py OUTDIR N   (standard library only)
"""
import json
import math
import os
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def ab_summary(out, n, kind, title):
    flagged, verdicts, ratios, lows, seconds, codes = 0, {}, [], [], [], {}
    for i in range(1, n + 1):
        path = f"{out}/{kind}-{i}.json"
        if not os.path.exists(path):
            continue
        r = load(path)
        codes[r["exit"]["code"]] = codes.get(r["exit"]["code"], 0) + 1
        if any(c["verdict"] == "regressed" for c in r["cells"]):
            flagged += 1
        for c in r["cells"]:
            verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
            if c.get("ratio") is not None:
                ratios.append(c["ratio"])
                lows.append(c["ratioLow"])
        with open(f"{out}/{kind}-{i}.seconds") as f:
            seconds.append(float(f.read()))
    runs = sum(codes.values())
    if runs == 0:
        return
    print(f"ab {title}: regression called in {flagged}/{runs} comparisons; exit codes {dict(sorted(codes.items()))}; "
          f"cell verdicts {dict(sorted(verdicts.items()))}")
    if ratios:
        print(f"  per-cell median ratio new/old: median {statistics.median(ratios):.4f}, "
              f"range {min(ratios):.4f}..{max(ratios):.4f}; interval low end median {statistics.median(lows):.4f}")
    if seconds:
        print(f"  seconds per comparison: median {statistics.median(seconds):.1f}, max {max(seconds):.1f}")


def spread(out, n, kind):
    """The standard deviation of the pairs' log-ratios, per metric, over every
    pair of every comparison of `kind`: how far two trials of a pair differ."""
    figures = {
        # None for a window in which the process completed nothing (it can
        # happen to an 80 ms window on a loaded machine): that pair is left out.
        "ns_per_op": lambda t: (t["measurement"]["elapsedNs"] * t["trial"]["threads"] / t["measurement"]["totalOps"]
                                if t["measurement"]["totalOps"] > 0 else None),
        "cpu_ns_per_op": lambda t: (t["measurement"].get("resources") or {}).get("cpuNsPerOp"),
        "worker_cpu_ns_per_op": lambda t: (t["measurement"].get("resources") or {}).get("workerCpuNsPerOp"),
    }
    logs = {m: [] for m in figures}
    for i in range(1, n + 1):
        path = f"{out}/{kind}-{i}.json"
        if not os.path.exists(path):
            continue
        r = load(path)
        new = {t["trial"]["id"]: t for t in r["newTrials"]}
        for old in r["oldTrials"]:
            other = new.get(old["trial"]["id"])
            if not other or old["outcome"] != "passed" or other["outcome"] != "passed":
                continue
            for m, f in figures.items():
                a, b = f(old), f(other)
                if a and b:
                    logs[m].append(math.log(b / a))
    parts = [f"{m} {statistics.stdev(v) * 100:.1f}% over {len(v)} pairs" for m, v in logs.items() if len(v) > 1]
    print(f"  spread of the pairs (sd of log new/old): " + "; ".join(parts))


def gate_summary(out, n, kind, title):
    flagged, runs, verdicts, ratios = 0, 0, {}, []
    for i in range(1, n + 1):
        path = f"{out}/{kind}-{i}.json"
        if not os.path.exists(path):
            continue
        runs += 1
        cells = load(path)["gate"]["comparison"]["cells"]
        if any(c["verdict"] == "regressed" for c in cells):
            flagged += 1
        for c in cells:
            verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
            if c.get("ratio") is not None:
                ratios.append(c["ratio"])
    if runs == 0:
        return
    print(f"baseline gate {title}: regression called in {flagged}/{runs} comparisons; cell verdicts {dict(sorted(verdicts.items()))}"
          + (f"; median ratio {statistics.median(ratios):.4f}" if ratios else ""))


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    for b in ("plus1", "plus2"):
        path = f"{out}/effect-{b}.json"
        if os.path.exists(path):
            r = load(path)
            cells = ", ".join(f"{c['cell']['strategy']}: {c['ratio']:.4f} [{c['ratioLow']:.4f}, {c['ratioHigh']:.4f}] "
                              f"({c['oldMedian']:.2f} -> {c['newMedian']:.2f} ns/op)" for c in r["cells"] if c.get("ratio"))
            print(f"effect of {b} ({r['pairsPerCell']} pairs a cell): {cells}")
    ab_summary(out, n, "aa", "A/A (same binary)")
    spread(out, n, "aa")
    ab_summary(out, n, "ab5", "A/B5")
    ab_summary(out, n, "ab2", "A/B2")
    gate_summary(out, n, "gate-p50-b5", "A/B5, p50 at the plan's 10%")
    gate_summary(out, n, "gate-p50-b2", "A/B2, p50 at the plan's 10%")
    gate_summary(out, n, "gate-ops-b5", "A/B5, ops_per_s at 2%")
    gate_summary(out, n, "gate-ops-b2", "A/B2, ops_per_s at 2%")


main()
