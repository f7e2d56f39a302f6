#!/usr/bin/env python3
"""Unit tests of the testbed's pure parts (no root needed):
    python3 tests/testbed/test_testbed.py
With WLANFAIR_TESTBED_LIVE=1 (as root, iperf3 installed) a short live run is
added that also checks nothing is left behind."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
import testbed  # noqa: E402
import testbed_results as tr  # noqa: E402


def iperf_json(intervals, error=None):
    d = {"start": {}, "intervals": [{"sum": {"start": a, "end": z, "bytes": b}}
                                    for a, z, b in intervals],
         "end": {"sum_received": {"bits_per_second": 1.0}}}
    if error:
        d["error"] = error
    return json.dumps(d)


class Parsing(unittest.TestCase):
    def test_mix(self):
        self.assertEqual(testbed.parse_mix("u2d3"), (2, 3))
        for bad in ("u0d0", "u2", "d2u1", "u-1d2", ""):
            with self.assertRaises(testbed.UsageError):
                testbed.parse_mix(bad)

    def test_rate(self):
        self.assertEqual(testbed.parse_rate("30M"), 30e6)
        self.assertEqual(testbed.parse_rate("2.5k"), 2500)
        for bad in ("0", "-1M", "M", "3X"):
            with self.assertRaises(testbed.UsageError):
                testbed.parse_rate(bad)

    def test_config(self):
        cfg = testbed.Config(up=2, down=3)
        self.assertEqual(cfg.stations, 5)
        self.assertAlmostEqual(cfg.htb_rate / 1e6, 30 * 2664 / 1514)
        self.assertEqual(testbed.Config(overhead=0).htb_rate, 30e6)
        for bad in (dict(up=3, down=3, stations=5), dict(prefix="x y"),
                    dict(prefix=""), dict(cc="a b"), dict(duration=1)):
            with self.assertRaises(testbed.UsageError):
                testbed.Config(**bad).validate()

    def test_prefix_matches_only_our_roles(self):
        pat = testbed.ns_pattern("wft1-")
        for ok in ("wft1-srv", "wft1-ap", "wft1-sta12"):
            self.assertTrue(pat.fullmatch(ok))
        for other in ("wft1-x", "wft12-srv", "wft1-sta", "wft1-srvx"):
            self.assertFalse(pat.fullmatch(other))


class Results(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, text):
        path = os.path.join(self.dir.name, "x.json")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_read_intervals_drops_repeats(self):
        # iperf3 repeats the last interval when interrupted.
        ivs, err, _ = tr.read_intervals(self.write(iperf_json(
            [(0, 1, 10), (1, 2, 20), (1, 2, 20)], error="interrupt")))
        self.assertEqual(ivs, [(0, 1, 10), (1, 2, 20)])
        self.assertEqual(err, "interrupt")

    def test_read_intervals_bad_files(self):
        for text in ("", "{\"start\": ", "   \n"):
            ivs, err, end = tr.read_intervals(self.write(text))
            self.assertEqual(ivs, [])
            self.assertTrue(err)
        ivs, err, _ = tr.read_intervals(os.path.join(self.dir.name, "missing"))
        self.assertTrue(err.startswith("no output"))

    def test_rebin(self):
        bins = tr.rebin([(0, 1, 100), (1, 2, 200)], 0.5, 4)
        self.assertEqual(bins, [50, 150, 100, 0])
        self.assertEqual(tr.rebin([], 0, 3), [0, 0, 0])
        # reports beyond the run are cut off, not folded in
        self.assertEqual(tr.rebin([(0, 1, 10), (1, 2, 10), (2, 3, 10)], 0, 2), [10, 10])

    def test_parse_ss(self):
        text = ("ESTAB 0 0 10.0.0.1:5201 10.1.0.6:40000\n"
                "\t ts sack cubic wscale:7,7 rto:204 bytes_sent:1000 cwnd:10\n"
                "ESTAB 0 0 10.0.0.1:5201 10.1.0.6:40002\n"
                "\t bbr wscale:7,7 bytes_sent:5\n")
        socks = tr.parse_ss(text, {"cubic", "bbr", "reno"})
        self.assertEqual([(s["peer"], s["cc"], s["bytes_sent"]) for s in socks],
                         [("10.1.0.6:40000", "cubic", 1000), ("10.1.0.6:40002", "bbr", 5)])

    def test_outputs(self):
        base = os.path.join(self.dir.name, "run")
        flows = [{"name": "up-1", "mean_bps": 8e6, "bins_bps": [8e6, 8e6]},
                 {"name": "down-1", "mean_bps": 0.0, "bins_bps": [0.0, 0.0]}]
        s = tr.write_outputs({"duration": 2}, {"flows": flows, "start_wall": 0,
                                               "tc": {}}, base)
        with open(base + ".csv") as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "start_s,end_s,flow,bits_per_s")
        self.assertEqual(lines[1:], ["0,1,up-1,8000000", "1,2,up-1,8000000",
                                     "0,1,down-1,0", "1,2,down-1,0"])
        self.assertEqual(s["starved"], ["down-1"])
        self.assertEqual(s["total_bps"], 8e6)
        with open(base + ".json") as f:
            self.assertNotIn("bins_bps", json.load(f)["flows"][0])


@unittest.skipUnless(os.environ.get("WLANFAIR_TESTBED_LIVE") == "1",
                     "set WLANFAIR_TESTBED_LIVE=1 (root, iperf3) for a live run")
class Live(unittest.TestCase):
    def test_short_run_leaves_nothing(self):
        with tempfile.TemporaryDirectory() as out:
            prefix = f"wftut{os.getpid()}-"
            cfg = testbed.Config(up=1, down=1, duration=4, prefix=prefix,
                                 out_dir=out, name="live")
            s = testbed.run(cfg, log=lambda *a: None)
            self.assertEqual([f["name"] for f in s["flows"]], ["up-1", "down-1"])
            self.assertGreater(s["total_bps"], 10e6)
            self.assertGreater(s["tc"]["ap"]["sent_packets"], 0)
            with open(os.path.join(out, "live.csv")) as f:
                self.assertEqual(len(f.read().splitlines()), 1 + 2 * 4)
            self.assertEqual(testbed.list_namespaces(prefix), [])
            links = subprocess.run(["ip", "-o", "link"], capture_output=True,
                                   text=True).stdout
            self.assertNotIn(prefix, links)


if __name__ == "__main__":
    unittest.main()
