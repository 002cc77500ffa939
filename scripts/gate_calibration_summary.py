#!/usr/bin/env python3
"""Summarises scripts/gate-calibration.sh: how often the gate called a
regression in the A/A comparisons (false alarms) and in the A/B ones
(detections), per run and per cell, with the ratios it saw.

Usage: gate_calibration_summary.py OUTDIR N METRIC   (standard library only)
"""
import json
import os
import statistics
import sys


def cells(path):
    with open(path) as f:
        report = json.load(f)
    return report["gate"]["comparison"]["cells"]


def summarise(out, n, kind, metric):
    runs_flagged = 0
    verdicts = {}
    ratios = []
    highs = []
    for i in range(1, n + 1):
        cs = cells(f"{out}/{kind}-{metric}-{i}.json")
        if any(c["verdict"] == "regressed" for c in cs):
            runs_flagged += 1
        for c in cs:
            verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
            if c.get("ratio") is not None:
                ratios.append(c["ratio"])
            if c.get("ratioHigh") is not None:
                highs.append(c["ratioHigh"])
    spread = ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items()))
    total = sum(verdicts.values())
    ratio_text = ""
    if ratios:
        ratio_text = (f"; new/baseline ratio median {statistics.median(ratios):.3f} "
                      f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
    return runs_flagged, f"{total} cells: {spread}{ratio_text}"


def main():
    out, n, metric = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    aa, aa_cells = summarise(out, n, "aa", metric)
    print(f"{metric}: A/A (same build twice): regression called in {aa}/{n} comparisons (goal <= {n // 20}); {aa_cells}")
    if os.path.exists(f"{out}/ab-{metric}-1.json"):
        ab, ab_cells = summarise(out, n, "ab", metric)
        print(f"{metric}: A/B (more work per op): regression caught in {ab}/{n} comparisons (goal >= {n - n // 20}); {ab_cells}")


if __name__ == "__main__":
    main()
