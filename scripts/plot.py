#!/usr/bin/env python3
"""Turns stressbench results into PNG charts.

    python3 -m venv .venv && .venv/bin/pip install matplotlib   # PEP 668 systems (Debian 12)
    .venv/bin/python scripts/plot.py results.json --out plots/  # or results.csv

Writes, for the run:
  throughput.png  ops/s against threads, one line per strategy, one panel per
                  experiment (the median over repetitions; the bar spans the
                  slowest to the fastest repetition)
  latency.png     the service-time percentile spectrum per strategy, on the usual
                  HdrHistogram axis 1/(1-p) (50%, 90%, 99%, 99.9%, ... evenly
                  spaced), one panel per experiment, at one thread count
                  (--threads, default the largest run). From JSON the curve
                  comes from the merged histogram buckets of every repetition;
                  from CSV only the recorded percentiles are available: one
                  line per strategy, the median of its repetitions' values at
                  each percentile, with their range as a band (not a merged
                  percentile, and the title says so)
  outcomes.png    a strategy x (experiment, thread count) grid coloured by the
                  worst outcome of the cell's trials, with the counts written
                  in ("as expected" where the plan's `expect` says so) and a
                  legend of the colours
Legends sit outside the plotting area, so they never hide a line; threads are
on a log-2 axis.
  scenarios.png   for a run with scenario trials (JSON only): one bar chart
                  per scenario cell (experiment x strategy, its repetitions
                  added up), a bar per outcome, counts on a log scale,
                  coloured by grade (acceptable, interesting, forbidden)

A "strategy" above is a series: when a run has more than one allocator or
fuzz profile, each strategy gets one series per allocator and profile
(labelled "mutex · jemalloc", "mutex · fuzz=chaos"), so they are never pooled
into one line. A portfolio is one profile (its repetitions rotate through
several, as its cell in a baseline comparison does) when read from JSON; a CSV
row only names the profile its repetition ran.

Only trials with figures are drawn in the first two; every trial counts in the
third. Needs matplotlib (and nothing else outside the standard library).
"""
import argparse
import collections
import csv
import json
import math
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

# Worst first: the colour of a cell is its worst outcome.
OUTCOMES = ["crashed", "deadlock", "hang", "timeout", "error", "violated", "skipped", "passed"]
OUTCOME_COLOURS = {
    "crashed": "#7b1fa2", "deadlock": "#c62828", "hang": "#ef6c00", "timeout": "#f9a825",
    "error": "#5d4037", "violated": "#e57373", "skipped": "#bdbdbd", "passed": "#66bb6a",
}
NOT_RUN_COLOUR = "#f5f5f5"
CSV_PERCENTILES = [("lat_p50_ns", 50), ("lat_p90_ns", 90), ("lat_p99_ns", 99),
                   ("lat_p999_ns", 99.9), ("lat_p9999_ns", 99.99)]


class Trial:
    """One trial as the charts need it, read from JSON or CSV."""

    def __init__(self, experiment, workload, strategy, threads, repetition, outcome, ops, buckets, percentiles, max_ns,
                 allocator="system", fuzz="off", outcomes=None, expected=None):
        self.experiment, self.workload, self.strategy = experiment, workload, strategy
        self.threads, self.repetition, self.outcome = threads, repetition, outcome
        self.allocator = allocator or "system"  # older records do not name it
        self.fuzz = fuzz or "off"
        self.series = (strategy, self.allocator, self.fuzz)
        self.ops = ops                  # ops/s, or None when not measured
        self.buckets = buckets          # [[value_ns, count]] (JSON only)
        self.percentiles = percentiles  # [(percentile, ns)] (CSV)
        self.max_ns = max_ns
        self.outcomes = outcomes        # a scenario's [{outcome, count, grade}] (JSON only)
        self.expected = expected or []  # the plan's `expect` for the trial; empty: must pass
        self.caught = outcome != "passed" and outcome in self.expected  # failed as the plan expects


def real(value):
    """A JSON real, which stressbench writes as a string when it is not finite."""
    return None if value is None or isinstance(value, str) else float(value)


def load(path):
    if path.endswith(".csv"):
        return load_csv(path)
    with open(path) as f:
        report = json.load(f)
    if not str(report.get("schema", "")).startswith("stressbench.results/"):
        sys.exit(f"{path}: not a stressbench results file")
    trials = []
    for r in report["trials"]:
        t, m = r["trial"], r.get("measurement")
        fuzz = t.get("fuzz") or {}
        trials.append(Trial(t["experiment"], t["workload"], t["strategy"], t["threads"], t["repetition"], r["outcome"],
                            real(m["opsPerSecond"]) if m else None, m["histogram"] if m else [], [],
                            (m.get("latency") or {}).get("maxNs") if m else None,
                            t.get("allocator"), fuzz.get("rotatedFrom") or fuzz.get("profile"), r.get("outcomes"),
                            t.get("expect")))
    return report.get("plan", os.path.basename(path)), trials


def load_csv(path):
    trials = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            number = lambda k: float(row[k]) if row.get(k) else None  # noqa: E731
            percentiles = [(p, number(k)) for k, p in CSV_PERCENTILES if number(k) is not None]
            trials.append(Trial(row["experiment"], row["workload"], row["strategy"], int(row["threads"]),
                                int(row["repetition"]), row["outcome"], number("ops_per_s"), [], percentiles,
                                number("lat_max_ns"), row.get("allocator"), row.get("fuzz_profile")))
    plan = trials[0].experiment if trials else os.path.basename(path)
    with open(path, newline="") as f:
        first = next(csv.DictReader(f), None)
        plan = first["plan"] if first else plan
    return plan, trials


def in_order(values):
    """Distinct values in first-seen order (the plan's order)."""
    return list(dict.fromkeys(values))


class Series:
    """How each series (strategy, allocator, fuzz profile) of one panel is
    named and drawn: colour and marker by strategy (the same in every panel:
    `strategies` is the whole run's), line style by allocator and profile, and
    the allocator and profile in the label only when the panel has several."""

    LINESTYLES = ["-", "--", ":", "-."]
    MARKERS = "osD^vP*Xh<>"

    def __init__(self, trials, strategies):
        self.keys = in_order(t.series for t in trials)
        self.many_allocators = len({k[1] for k in self.keys}) > 1
        self.many_profiles = len({k[2] for k in self.keys}) > 1
        variants = in_order(k[1:] for k in self.keys)
        cmap = plt.get_cmap("tab10")
        self.colour = {s: cmap(i % 10) for i, s in enumerate(strategies)}
        self.marker = {s: self.MARKERS[i % len(self.MARKERS)] for i, s in enumerate(strategies)}
        self.linestyle = {v: self.LINESTYLES[i % len(self.LINESTYLES)] for i, v in enumerate(variants)}

    def label(self, key):
        strategy, allocator, fuzz = key
        parts = [strategy]
        if self.many_allocators:
            parts.append(allocator)
        if self.many_profiles:
            parts.append(f"fuzz={fuzz}")
        return " · ".join(parts)

    def style(self, key):
        return dict(color=self.colour[key[0]], marker=self.marker[key[0]], linestyle=self.linestyle[key[1:]],
                    label=self.label(key))


def panels(count):
    columns = min(count, 2)
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(6.4 * columns, 4.4 * rows), squeeze=False)
    flat = [a for row in axes for a in row]
    for extra in flat[count:]:
        extra.set_visible(False)
    return fig, flat


def rate_label(value, _):
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def time_label(ns, _):
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if ns >= scale:
            return f"{ns / scale:g}{unit}"
    return f"{ns:g}ns"


def throughput_chart(plan, trials, out):
    measured = [t for t in trials if t.ops]
    if not measured:
        return None
    experiments = in_order(t.experiment for t in measured)
    strategies = in_order(t.strategy for t in trials)
    fig, axes = panels(len(experiments))
    for ax, experiment in zip(axes, experiments):
        series = Series([t for t in measured if t.experiment == experiment], strategies)
        cells = collections.defaultdict(list)
        for t in measured:
            if t.experiment == experiment:
                cells[(t.series, t.threads)].append(t.ops)
        threads = sorted({th for _, th in cells})
        for key in in_order(k for k, _ in cells):
            xs = [th for th in threads if (key, th) in cells]
            medians = [statistics.median(cells[(key, th)]) for th in xs]
            low = [m - min(cells[(key, th)]) for m, th in zip(medians, xs)]
            high = [max(cells[(key, th)]) - m for m, th in zip(medians, xs)]
            ax.errorbar(xs, medians, yerr=[low, high], capsize=3, linewidth=1.5, **series.style(key))
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(threads))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(rate_label))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
        ax.set_xlabel("threads")
        ax.set_ylabel("ops/s (median of repetitions)")
        ax.set_title(f"{experiment}")
        ax.grid(True, which="major", alpha=0.3)
        outside_legend(ax)
    fig.suptitle(f"{plan}: throughput by thread count (bars: slowest to fastest repetition)")
    fig.tight_layout()
    path = os.path.join(out, "throughput.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def outside_legend(ax):
    """The legend to the right of the axes, where it hides no data point."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)


def spectrum_from_buckets(buckets):
    """(x = 1/(1-p), latency) points of the merged histogram, one per bucket:
    the fraction of samples at or below each value, on the HdrHistogram axis."""
    merged = collections.Counter()
    for value, count in buckets:
        merged[value] += count
    total = sum(merged.values())
    points, seen = [], 0
    for value in sorted(merged):
        # The percentile at which this value starts: the samples below it.
        p = seen / total
        points.append((1 / (1 - p), value))
        seen += merged[value]
        # The last value holds up to p = 1, which the axis cannot show; end
        # the curve at the last sample's own rank instead.
    points.append((float(total), max(merged)))
    return points


def latency_chart(plan, trials, out, threads_wanted):
    measured = [t for t in trials if t.buckets or t.percentiles]
    if not measured:
        return None
    experiments = in_order(t.experiment for t in measured)
    strategies = in_order(t.strategy for t in trials)
    fig, axes = panels(len(experiments))
    largest_x = 1e2
    for ax, experiment in zip(axes, experiments):
        here = [t for t in measured if t.experiment == experiment]
        threads = threads_wanted if threads_wanted else max(t.threads for t in here)
        here = [t for t in here if t.threads == threads]
        series = Series(here, strategies)
        for key in in_order(t.series for t in here):
            mine = [t for t in here if t.series == key]
            style = series.style(key)
            if any(t.buckets for t in mine):
                points = spectrum_from_buckets([b for t in mine for b in t.buckets])
                xs, ys = zip(*points)
                ax.step(xs, ys, where="post", color=style["color"], linestyle=style["linestyle"], label=style["label"],
                        linewidth=1.5)
            else:
                # CSV: only each repetition's recorded percentiles, no histogram
                # to merge. One line per strategy: at each percentile the median
                # of the repetitions' values, with their range as a band. Not a
                # merged percentile, and the title says so.
                by_p = collections.defaultdict(list)
                for t in mine:
                    for p, ns in t.percentiles:
                        by_p[p].append(ns)
                ps = sorted(by_p)
                xs = [1 / (1 - p / 100) for p in ps]
                ys = [statistics.median(by_p[p]) for p in ps]
                ax.plot(xs, ys, linewidth=1.5, **style)
                if len(mine) > 1:
                    ax.fill_between(xs, [min(by_p[p]) for p in ps], [max(by_p[p]) for p in ps],
                                    color=style["color"], alpha=0.15, linewidth=0)
            largest_x = max(largest_x, max(xs))
        ax.set_xscale("log")
        ax.set_yscale("log")
        # 50%, 90%, 99%, ...: the 0% tick at x = 1 would sit on top of 50%.
        ticks = [p for p in (2, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7) if p <= largest_x * 1.01]
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * (1 - 1 / v):.10g}%"))
        # Each decade adds a digit to the label while the spacing stays the
        # same: above 99.999% upright labels run into each other.
        ax.tick_params(axis="x", labelrotation=35)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
            label.set_rotation_mode("anchor")
        ax.yaxis.set_major_formatter(FuncFormatter(time_label))
        ax.set_xlim(1, largest_x * 1.5)
        ax.set_xlabel("percentile")
        ax.set_ylabel("service time per operation")
        ax.set_title(f"{experiment}, {threads} thread(s)")
        ax.grid(True, which="major", alpha=0.3)
        outside_legend(ax)
    merged = any(t.buckets for t in measured)
    fig.suptitle(f"{plan}: service-time percentile spectrum "
                 + ("(histograms of all repetitions merged)" if merged
                    else "(CSV: median of the repetitions' recorded percentiles, band: their range; not merged histograms)"))
    fig.tight_layout()
    path = os.path.join(out, "latency.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def outcome_chart(plan, trials, out):
    """Rows: strategies (one per allocator when the run has several); columns:
    experiments split by thread count (a race can show at 4 threads and not
    at 1), and by fuzz profile when an experiment ran several, as a portfolio
    read from CSV does. The experiment already fixes its profile."""
    if not trials:
        return None
    many_allocators = len({t.allocator for t in trials}) > 1
    rows = in_order((t.strategy, t.allocator) for t in trials)
    profiles = collections.defaultdict(set)
    for t in trials:
        profiles[t.experiment].add(t.fuzz)
    columns = sorted(in_order((t.experiment, t.fuzz, t.threads) for t in trials),
                     key=lambda c: (in_order(t.experiment for t in trials).index(c[0]), c[1], c[2]))
    row_labels = [f"{s} · {a}" if many_allocators else s for s, a in rows]
    column_labels = [f"{e}\n{th} thr" + (f", fuzz={f}" if len(profiles[e]) > 1 else "") for e, f, th in columns]
    grid = [[None] * len(columns) for _ in rows]
    labels = [[""] * len(columns) for _ in rows]
    for i, row in enumerate(rows):
        for j, column in enumerate(columns):
            cell = [t for t in trials if (t.strategy, t.allocator) == row and (t.experiment, t.fuzz, t.threads) == column]
            counts = collections.Counter(t.outcome for t in cell)
            if not counts:
                labels[i][j] = "not run"
                continue
            worst = min(counts, key=OUTCOMES.index)
            grid[i][j] = OUTCOMES.index(worst)
            labels[i][j] = "\n".join(f"{n} {o}" for o, n in sorted(counts.items(), key=lambda kv: OUTCOMES.index(kv[0])))
            if cell and all(t.caught for t in cell if t.outcome != "passed") and any(t.caught for t in cell):
                labels[i][j] += "\n(as expected)"
    cmap = ListedColormap([OUTCOME_COLOURS[o] for o in OUTCOMES]).with_extremes(bad=NOT_RUN_COLOUR)
    import numpy as np  # matplotlib depends on numpy
    values = np.ma.masked_invalid(np.array([[np.nan if v is None else v for v in row] for row in grid], dtype=float))
    fig, ax = plt.subplots(figsize=(max(1.9 * len(columns) + 4.4, 8.0), 0.62 * len(rows) + 1.8))
    ax.imshow(values, cmap=cmap, vmin=-0.5, vmax=len(OUTCOMES) - 0.5, aspect="auto")
    ax.set_xticks(range(len(columns)), column_labels, rotation=20, ha="right")
    ax.set_yticks(range(len(rows)), row_labels)
    for i in range(len(rows)):
        for j in range(len(columns)):
            ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=8,
                    color="white" if grid[i][j] is not None and OUTCOMES[grid[i][j]] in ("crashed", "deadlock", "error") else "black")
    ax.set_xticks([x - 0.5 for x in range(1, len(columns))], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, len(rows))], minor=True)
    ax.grid(which="minor", color="white", linewidth=2)
    ax.tick_params(which="minor", length=0)
    # Every outcome's colour, worst first, so a cell can be read without its text.
    legend = [Patch(facecolor=OUTCOME_COLOURS[o], edgecolor="#9e9e9e", label=o) for o in OUTCOMES]
    legend.append(Patch(facecolor=NOT_RUN_COLOUR, edgecolor="#9e9e9e", label="not run"))
    ax.legend(handles=legend, title="worst outcome", loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8,
              title_fontsize=8, frameon=False)
    ax.set_title(f"{plan}: outcomes\n(colour: the worst outcome of the cell's trials)", fontsize=11)
    fig.tight_layout()
    path = os.path.join(out, "outcomes.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


GRADE_COLOURS = {"acceptable": "#66bb6a", "interesting": "#ffa726", "forbidden": "#e53935"}


def scenario_chart(plan, trials, out):
    cells = collections.OrderedDict()
    for t in trials:
        if t.outcomes is None:
            continue
        counts = cells.setdefault((t.experiment, t.workload, t.strategy), collections.OrderedDict())
        for o in t.outcomes:
            count, grade = counts.get(o["outcome"], (0, o["grade"]))
            counts[o["outcome"]] = (count + o["count"], o["grade"])
    if not cells:
        return None
    fig, axes = panels(len(cells))
    for ax, ((experiment, scenario, strategy), counts) in zip(axes, cells.items()):
        names = list(counts)
        values = [counts[n][0] for n in names]
        colours = [GRADE_COLOURS.get(counts[n][1], "#9e9e9e") for n in names]
        ax.bar(range(len(names)), values, color=colours)
        ax.set_yscale("log")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center", fontsize=8)
        for i, v in enumerate(values):
            ax.annotate(f"{v:,}", (i, v), ha="center", va="bottom", fontsize=7)
        ax.set_title(f"{experiment} ({scenario})\n{strategy}", fontsize=9)
        ax.set_ylabel("rounds")
    fig.legend(handles=[Patch(color=c, label=g) for g, c in GRADE_COLOURS.items()], loc="upper center",
               ncol=3, bbox_to_anchor=(0.5, 1.0), fontsize=8, frameon=False)
    fig.suptitle(f"{plan}: scenario outcomes (repetitions added up)", fontsize=11, y=1.04)
    fig.tight_layout()
    path = os.path.join(out, "scenarios.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="results file: JSON (run --json) or CSV (run --csv)")
    parser.add_argument("--out", default=".", help="directory for the PNG files (default: .)")
    parser.add_argument("--threads", type=int, help="thread count for the latency spectrum (default: the largest)")
    args = parser.parse_args()
    plan, trials = load(args.results)
    os.makedirs(args.out, exist_ok=True)
    for path in (throughput_chart(plan, trials, args.out), latency_chart(plan, trials, args.out, args.threads),
                 outcome_chart(plan, trials, args.out), scenario_chart(plan, trials, args.out)):
        if path:
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
