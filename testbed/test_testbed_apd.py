#!/usr/bin/env python3
"""Unit tests of testbed_apd.py's figures (no root, no daemon)."""
import os
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "testlib"))  # wftest
import wftest  # noqa: E402
import testbed_apd as ta  # noqa: E402


def run_of(flows, seconds, goodput, rounds=()):
    dirs = {f.station: f.direction for f in flows}
    sg, sj = ta.status_series(list(rounds), seconds, dirs)
    return ta.Run(seconds, flows, [], goodput, sg, sj, list(rounds), [], 0, "")


class Figures(unittest.TestCase):
    def test_phases(self):
        flows = [ta.FlowSpec(1, "up", 0, 20), ta.FlowSpec(2, "up", 0, 40),
                 ta.FlowSpec(3, "up", 10, 40), ta.FlowSpec(1, "up", 30, 40)]
        self.assertEqual(ta.phases_of(flows, 40),
                         [(0, 10, [1, 2]), (10, 20, [1, 2, 3]), (20, 30, [2, 3]),
                          (30, 40, [1, 2, 3])])
        self.assertEqual(ta.phases_of([ta.FlowSpec(1, "down", 0, 5)], 5), [(0, 5, [1])])

    def test_time_to(self):
        per = [0.5, 0.99, 0.8, 0.98, 0.99, 1.0]
        self.assertEqual(ta.time_to(per, 0, 6, 0.97), 3)      # the dip at 2 counts
        self.assertEqual(ta.time_to(per, 3, 6, 0.97), 0)      # fair from the event
        self.assertIsNone(ta.time_to([0.99, 0.5], 0, 2, 0.97))  # unfair at the end
        self.assertEqual(ta.time_to([0.99, 0.97], 0, 2, 0.97), 0)  # >= target

    def test_jain_per_second_active_only(self):
        flows = [ta.FlowSpec(1, "up", 0, 2), ta.FlowSpec(2, "up", 0, 4)]
        g = {1: [1.0, 1.0, 0.0, 0.0], 2: [1.0, 3.0, 2.0, 5.0]}
        j = ta.jain_per_second(g, flows, 4)
        self.assertAlmostEqual(j[0], 1.0)
        self.assertAlmostEqual(j[1], 16 / (2 * 10))
        self.assertEqual(j[2:], [1.0, 1.0])                   # station 2 alone
        j5 = ta.jain_per_second(g, flows, 4, smooth=5)
        self.assertAlmostEqual(j5[1], ta.jain([1.0, 2.0]))    # moving means 1, 2

    def test_phase_figures_bound(self):
        flows = [ta.FlowSpec(1, "up", 0, 4), ta.FlowSpec(2, "up", 0, 4)]
        g = {1: [5.0, 5.0, 4.0, 4.0], 2: [3.0, 3.0, 4.0, 4.0]}
        f = ta.phase_figures(run_of(flows, 4, g), {2: 4.0}, {"up": 20.0, "down": 10.0},
                             capacity=30.0, steady=2)
        p = f[0]
        self.assertEqual(p["stations"], [1, 2])
        self.assertAlmostEqual(p["bound_bps"], 2 * 20.0 / 5)  # n C / sum c
        self.assertAlmostEqual(p["total_bps"], 8.0)
        self.assertAlmostEqual(p["total_of_bound"], 1.0)
        self.assertAlmostEqual(p["jain_steady"], 1.0)
        self.assertEqual(p["converge_s"], 2)
        self.assertAlmostEqual(p["tradeoff"], ta.tradeoff([4.0, 4.0], 30.0))
        # A mix: each station's airtime at its direction's C_near.
        flows = [ta.FlowSpec(1, "up", 0, 2), ta.FlowSpec(2, "down", 0, 2)]
        f = ta.phase_figures(run_of(flows, 2, {1: [1.0, 1.0], 2: [1.0, 1.0]}), {},
                             {"up": 20.0, "down": 10.0}, capacity=30.0, steady=2)
        self.assertAlmostEqual(f[0]["bound_bps"], 2 / (1 / 20 + 1 / 10))

    def test_limited_elsewhere(self):
        """A lossy station below the others counts in no Jain, and the bound
        gives the others the air it left; above them it counts."""
        self.assertEqual(ta.maxmin_members({1: 1.0, 2: 4.0, 3: 4.0}, {1}), [2, 3])
        self.assertEqual(ta.maxmin_members({1: 5.0, 2: 4.0, 3: 4.0}, {1}), [1, 2, 3])
        self.assertEqual(ta.maxmin_members({1: 1.0}, {1}), [1])
        flows = [ta.FlowSpec(1, "up", 0, 4), ta.FlowSpec(2, "up", 0, 4),
                 ta.FlowSpec(3, "up", 0, 4)]
        g = {1: [2.0, 2.0, 1.0, 1.0], 2: [5.0, 5.0, 4.0, 4.0], 3: [3.0, 3.0, 4.0, 4.0]}
        j = ta.jain_per_second(g, flows, 4, limited={1})
        self.assertAlmostEqual(j[0], ta.jain([5.0, 3.0]))
        self.assertEqual(j[2:], [1.0, 1.0])
        # Near stations (C 20): station 1 at 1 uses 1/20 of the air, the two
        # others share 19/20: 9.5 each.
        f = ta.phase_figures(run_of(flows, 4, g), {}, {"up": 20.0}, capacity=30.0, steady=2,
                             limited={1})
        p = f[0]
        self.assertAlmostEqual(p["jain_steady"], 1.0)
        self.assertAlmostEqual(p["jain_of_means"], 1.0)
        self.assertEqual(p["converge_s"], 2)
        self.assertAlmostEqual(p["bound_bps"], 1.0 + 2 * (19 / 20) / (2 / 20))
        self.assertAlmostEqual(p["held_at_limited_bps"], 3.0)
        self.assertAlmostEqual(p["total_vs_held"], 9.0 / 3.0)
        self.assertEqual(p["limited_bps"], {"1": 1.0})
        # Without the lossy station named, the same run is unfair.
        p = ta.phase_figures(run_of(flows, 4, g), {}, {"up": 20.0}, capacity=30.0,
                             steady=2)[0]
        self.assertAlmostEqual(p["jain_steady"], ta.jain([1.0, 4.0, 4.0]))
        self.assertNotIn("limited_bps", p)

    def test_status_series(self):
        rounds = [{"t": 1.1, "jain": 0.5, "stations": {1: {"up": 7.0, "down": 1.0}}},
                  {"t": 2.05, "jain": 0.9, "stations": {1: {"up": 8.0, "down": 1.0}}}]
        sg, sj = ta.status_series(rounds, 3, {1: "up"})
        self.assertEqual(sg[1], [7.0, 8.0, None])
        self.assertEqual(sj, [0.5, 0.9, None])


if __name__ == "__main__":
    wftest.main()
