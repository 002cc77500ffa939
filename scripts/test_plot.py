#!/usr/bin/env python3
"""Checks the charts of scripts/plot.py on made-up results (needs matplotlib):

    .venv/bin/python scripts/test_plot.py

Legends outside the data, threads on a log-2 axis, CSV latency as one line per
strategy, and the outcome grid split by thread count with expected failures
marked.
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402


def trial(strategy, threads, repetition, outcome="passed", percentiles=None, expected=None):
    return plot.Trial("counter", "counter", strategy, threads, repetition, outcome, 1e6 * threads, [],
                      percentiles or [], None, expected=expected)


class PlotTests(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.figures = []
        real_savefig = plot.plt.Figure.savefig

        def keep(fig, *args, **kwargs):
            self.figures.append(fig)
            return real_savefig(fig, *args, **kwargs)
        plot.plt.Figure.savefig = keep
        self.addCleanup(setattr, plot.plt.Figure, "savefig", real_savefig)
        plot.plt.close = lambda *_: None  # keep the figures to inspect them

    def test_legend_outside_and_threads_on_a_log2_axis(self):
        trials = [trial(s, th, 0) for s in ("mutex", "actor") for th in (1, 2, 4)]
        plot.throughput_chart("p", trials, self.out)
        ax = self.figures[-1].axes[0]
        self.assertEqual(ax.get_xscale(), "log")
        self.assertEqual(ax.xaxis.get_transform().base, 2)
        renderer = self.figures[-1].canvas.get_renderer()
        legend = ax.get_legend().get_window_extent(renderer)
        self.assertGreaterEqual(legend.x0, ax.get_window_extent(renderer).x1, "the legend is right of the axes")

    def test_csv_latency_is_one_line_per_strategy(self):
        pcts = lambda k: [(50, 100 * k), (99, 200 * k), (99.9, 400 * k)]  # noqa: E731
        trials = [trial(s, 4, r, percentiles=pcts(r + 1)) for s in ("mutex", "actor") for r in range(3)]
        plot.latency_chart("p", trials, self.out, None)
        ax = self.figures[-1].axes[0]
        self.assertEqual([line.get_label() for line in ax.get_lines()], ["mutex", "actor"])
        self.assertEqual(list(ax.get_lines()[0].get_ydata()), [200, 400, 800], "the median of the repetitions")

    def test_outcome_grid_is_split_by_thread_count(self):
        trials = [trial("unsynchronized", 1, 0), trial("unsynchronized", 4, 0, "violated", expected=["violated"])]
        plot.outcome_chart("p", trials, self.out)
        ax = self.figures[-1].axes[0]
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], ["counter\n1 thr", "counter\n4 thr"])
        texts = [t.get_text() for t in ax.texts]
        self.assertEqual(texts, ["1 passed", "1 violated\n(as expected)"])


if __name__ == "__main__":
    unittest.main()
