#!/usr/bin/env python3
"""Checks the charts of scripts/plot.py on made-up results (needs matplotlib):

    .venv/bin/python scripts/test_plot.py

Legends outside the data, threads on a log-2 axis, CSV latency as one line per
strategy, the outcome grid split by thread count with expected failures
marked, and the scenario outcomes as one bar chart per cell.
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

    def test_scenario_chart_is_one_bar_chart_per_cell_coloured_by_grade(self):
        def scenario_trial(strategy, repetition, outcomes):
            return plot.Trial("sb", "store-buffering", strategy, 2, repetition, "passed", 1e6, [], [], None,
                              outcomes=outcomes)
        outcomes = [{"outcome": "1, 0", "count": 600, "grade": "acceptable"},
                    {"outcome": "0, 0", "count": 7, "grade": "interesting"}]
        trials = [scenario_trial("unsynchronized", r, outcomes) for r in range(2)]
        trials.append(scenario_trial("mutex", 0, [{"outcome": "1, 1", "count": 3, "grade": "forbidden"}]))
        trials.append(trial("mutex", 2, 0))  # a workload trial: no outcomes, no panel
        path = plot.scenario_chart("p", trials, self.out)
        self.assertEqual(path, os.path.join(self.out, "scenarios.png"))
        self.assertTrue(os.path.getsize(path) > 0)
        axes = [ax for ax in self.figures[-1].axes if ax.patches]
        self.assertEqual([ax.get_title() for ax in axes], ["sb (store-buffering)\nunsynchronized", "sb (store-buffering)\nmutex"])
        first = axes[0]
        self.assertEqual([t.get_text() for t in first.get_xticklabels()], ["1, 0", "0, 0"])
        self.assertEqual([bar.get_height() for bar in first.patches], [1200, 14], "repetitions added up")
        self.assertEqual(first.get_yscale(), "log")
        colours = [plot.matplotlib.colors.to_hex(bar.get_facecolor()) for bar in first.patches + axes[1].patches]
        self.assertEqual(colours, [plot.GRADE_COLOURS[g] for g in ("acceptable", "interesting", "forbidden")])

    def test_no_scenario_trials_no_scenario_chart(self):
        self.assertIsNone(plot.scenario_chart("p", [trial("mutex", 1, 0)], self.out))


if __name__ == "__main__":
    unittest.main()
