#!/usr/bin/env python3
"""Prints a results file's outcomes as a Markdown grid: one row per strategy,
one column per experiment, each cell how the trials of that pair ended (the
docs/workloads.md's bug-pattern grid is made with it from Plans/bugs.yaml).

    .build/release/stressbench run Plans/bugs.yaml --json bugs.json
    python3 scripts/outcome-grid.py bugs.json

A cell lists every outcome its trials had, with a count when there were
several trials ("violated ×2, passed"); "—" when the pair did not run (a
lock-free strategy with a workload that has no lock-free form). Rows and
columns keep the order of the plan.
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        report = json.load(f)
    if report.get("schema") != "stressbench.results/1":
        sys.exit(f"{sys.argv[1]}: not a stressbench.results/1 file")
    experiments, strategies, cells = [], [], {}
    for t in report["trials"]:
        experiment, strategy = t["trial"]["experiment"], t["trial"]["strategy"]
        if experiment not in experiments:
            experiments.append(experiment)
        if strategy not in strategies:
            strategies.append(strategy)
        cells.setdefault((experiment, strategy), []).append(t["outcome"])

    def cell(outcomes):
        if not outcomes:
            return "—"
        counts = {}
        for o in outcomes:
            counts[o] = counts.get(o, 0) + 1
        return ", ".join(o if n == 1 else f"{o} ×{n}" for o, n in counts.items())

    print("| strategy | " + " | ".join(f"`{e}`" for e in experiments) + " |")
    print("|---|" + "---|" * len(experiments))
    for s in strategies:
        print(f"| `{s}` | " + " | ".join(cell(cells.get((e, s), [])) for e in experiments) + " |")


if __name__ == "__main__":
    main()
