#!/usr/bin/env python3
"""Unit tests of guest/scan-dips.py, the lab scan scenario's reading of a
download: which scans started in it, and which of them the guard had
excused by reporting a beacon loss (its journal), on hand-made inputs
in the formats the lab writes ('iw event -t', rate.py's CSV,
'journalctl -o short-unix')."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "guest", "scan-dips.py")
spec = importlib.util.spec_from_file_location("scan_dips", SCRIPT)
sd = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sd)

T0 = 1_795_000_000.0


def journal(*lines):
    """(offset s, text) -> short-unix lines of wlanfair-scand."""
    return "".join("%.6f lab wlanfair-scand[7]: %s\n" % (T0 + t, text) for t, text in lines)


LOSS = "wlan1: beacon loss: scans allowed for 30 s despite traffic"
SUPPRESS = 'wlan1: bgscan suppressed on /fi/w1/N/0: "simple:3:-10:3" -> "" (traffic)'


class ScanDips(unittest.TestCase):
    def run_dips(self, scan_starts, journal_text, secs=60, skip=2):
        with tempfile.TemporaryDirectory() as d:
            ev, rate, jn = (os.path.join(d, n) for n in ("ev.txt", "rate.csv", "j.txt"))
            with open(ev, "w") as f:
                for t in scan_starts:
                    f.write("%.6f: wlan1 (phy #1): scan started\n" % (T0 + t))
                    f.write("%.6f: wlan1 (phy #1): scan finished: 2412 2437\n" % (T0 + t + 3))
                # Another interface's scan is not this station's.
                f.write("%.6f: wlan0 (phy #0): scan started\n" % (T0 + 30))
            with open(rate, "w") as f:
                f.write("t,rx_bytes,tx_bytes\n")
                for k in range(2 * secs + 1):
                    f.write("%.3f,%d,%d\n" % (T0 + k / 2, k * 1_000_000, k * 30_000))
            with open(jn, "w") as f:
                f.write(journal_text)
            out = subprocess.run([sys.executable, SCRIPT, "--samples", rate, "--events", ev,
                                  "--window", "%f,%f" % (T0, T0 + secs), "--skip", str(skip),
                                  "--journal", jn], check=True, capture_output=True, text=True)
            return json.loads(out.stdout)

    def test_scan_in_a_held_download_counts(self):
        res = self.run_dips([20.0], journal((-5, SUPPRESS)))
        self.assertEqual(res["scans_started_in_traffic"], 1)
        self.assertEqual(res["scans_started_unexcused"], 1)
        self.assertEqual(res["unexcused_starts"], [20.0])
        self.assertEqual(res["guarded_s"], 58.0)
        self.assertEqual(res["excused"], [])

    def test_beacon_loss_excuses_until_suppressed_again(self):
        # Beacon loss at 27 s, suppressed again at 58 s: the scans at 30,
        # 45 and 57 s are by design; the one at 10 s is not.
        j = journal((0.5, SUPPRESS), (27.0, "wlan1: beacon loss reported by the driver"),
                    (27.0, LOSS), (58.0, SUPPRESS))
        res = self.run_dips([10.0, 30.0, 45.0, 57.0], j)
        self.assertEqual(res["scans_started_in_traffic"], 4)
        self.assertEqual(res["unexcused_starts"], [10.0])
        self.assertEqual(res["excused"], [[27.0, 58.0]])
        self.assertEqual(res["guarded_s"], 27.0)
        # Without the 10-s scan the download passes, with 27 s held.
        res = self.run_dips([30.0, 45.0, 57.0], j)
        self.assertEqual(res["scans_started_unexcused"], 0)

    def test_no_suppression_after_the_loss_excuses_to_the_end(self):
        res = self.run_dips([40.0], journal((1, SUPPRESS), (35.0, LOSS)))
        self.assertEqual(res["scans_started_unexcused"], 0)
        self.assertEqual(res["excused"], [[35.0, 60.0]])
        self.assertEqual(res["guarded_s"], 33.0)

    def test_loss_before_the_download_reaches_into_it(self):
        res = self.run_dips([5.0, 25.0], journal((-20.0, LOSS), (12.0, SUPPRESS)))
        self.assertEqual(res["unexcused_starts"], [25.0])
        self.assertEqual(res["guarded_s"], 48.0)

    def test_other_interface_and_other_lines_ignored(self):
        j = journal((1, SUPPRESS), (10.0, "wlan0: beacon loss: scans allowed for 30 s despite traffic"),
                    (11.0, "wlan1: traffic 900 packets/s >= 20: scans should pause"))
        res = self.run_dips([15.0], j)
        self.assertEqual(res["scans_started_unexcused"], 1)
        self.assertEqual(res["guarded_s"], 58.0)

    def test_excused_windows_parse(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write(journal((3.0, LOSS), (4.0, LOSS), (34.0, SUPPRESS), (50.0, LOSS)))
            f.flush()
            self.assertEqual(sd.excused(f.name, "wlan1", T0 + 60),
                             [(T0 + 3.0, T0 + 34.0), (T0 + 50.0, T0 + 60)])


if __name__ == "__main__":
    unittest.main()
