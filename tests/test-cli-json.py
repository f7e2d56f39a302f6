#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every --json output of wlanfairctl is strict JSON, over edge values.

Runs the built wlanfairctl ($WLANFAIRCTL): fairness (throughputs and a
series), tcp status, ap status (a status file holding extreme numbers),
status --direct (where it runs unprivileged), listen on loopback (reports
carrying extreme goodputs). Each output is read by Python's json with
NaN, Infinity and -Infinity refused (parse_constant) and numbers kept as
text first, so that "2e+17.0", "nan" or "inf" fail; non-finite values
must come out as null (wlanfairctl(1), JSON OUTPUT). Invalid input must be
refused with the usage status, not printed.

Usage: test-cli-json.py [unittest arguments]   (exit status 0, 1; 77 skip)
"""

import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest

# The shared helpers (testlib/wftest.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                                "testlib"))
import wftest  # noqa: E402
from wftest import free_port, report, wifi_body  # noqa: E402

CTL = os.environ.get("WLANFAIRCTL", "wlanfairctl")
SRCDIR = os.environ.get("G_TEST_SRCDIR", os.path.dirname(os.path.abspath(__file__)))
# wlanfairctl logs nothing through GLib: any GLib warning or critical that
# an input reaches is a failure.
os.environ["G_DEBUG"] = "fatal-warnings,fatal-criticals"


def refuse(constant):
    raise ValueError("not JSON: %s" % constant)


def strict_loads(text):
    """json.loads that takes only RFC 8259 JSON; numbers read as float."""
    return json.loads(text, parse_constant=refuse, parse_float=float, parse_int=int)


def run(*args, **kw):
    return subprocess.run([CTL, *args], capture_output=True, text=True, timeout=30, **kw)


class FairnessJson(unittest.TestCase):
    def fairness(self, *args):
        r = run("fairness", "--json", *args)
        self.assertEqual(r.returncode, 0, (args, r.stderr))
        self.assertEqual(r.stderr, "")
        return strict_loads(r.stdout)

    def test_edge_values(self):
        cases = [
            ["0"], ["0", "0"], ["1e-320", "1e-320"], ["1e-320", "0"],
            ["4.9e-324", "1"], ["1e17", "1e17"], ["2e17"], ["1e308"],
            ["1e308", "0", "1e-320"], ["1.7976931348623157e308"],
            ["8.9e307", "8.9e307"], ["123456789012345678", "1"], ["2.5M", "7500k"],
            [str(i) for i in range(1, 2001)],
            ["1e-300"] * 500,
        ]
        for values in cases:
            with self.subTest(values=values[:4]):
                o = self.fairness(*values)
                xs = [float(v.replace("M", "e6").replace("k", "e3")) for v in values]
                self.assertEqual(o["n"], len(values))
                self.assertIsInstance(o["sum"], float)
                self.assertTrue(math.isfinite(o["sum"]))
                self.assertTrue(math.isclose(o["sum"], math.fsum(xs), rel_tol=1e-12),
                                (o["sum"], math.fsum(xs)))
                self.assertTrue(0 < o["jain"] <= 1 + 1e-12, o)
                self.assertIsNone(o["tradeoff"])

    def test_exact_numbers(self):
        o = self.fairness("1e17", "1e17")
        self.assertEqual(o["sum"], 2e17)
        o = self.fairness("1e-320", "1e-320")
        self.assertEqual(o["sum"], 2e-320)
        self.assertEqual(o["jain"], 1.0)

    def test_with_capacity(self):
        for args in (["--capacity", "1e308", "1e308"],
                     ["--capacity", "1e-320", "--allow-over", "1e-320", "1e-320"],
                     ["--capacity", "1e-300", "--allow-over", "1e10", "1e10"],
                     ["--capacity", "3e17", "--alpha", "0", "1e17", "1e17"],
                     ["--capacity", "10", "0", "0"]):
            with self.subTest(args=args):
                o = self.fairness(*args)
                for key in ("sum", "jain", "tradeoff", "capacity", "alpha"):
                    self.assertIsInstance(o[key], float, key)
                    self.assertTrue(math.isfinite(o[key]), key)

    def test_refused(self):
        for args in (["1e308", "1e308"], ["1.7976931348623157e308", "1e300"],
                     ["--capacity", "1", "1e308", "1e308"],
                     ["--capacity", "1", "--allow-over", "1e308", "1e308"],
                     ["--", "-1"], ["nan"], ["inf"], ["-inf"], ["1e999"], ["0x10"], [""]):
            with self.subTest(args=args):
                for json_flag in ([], ["--json"]):
                    r = run("fairness", *json_flag, *args)
                    self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
                    self.assertEqual(r.stdout, "")
                    self.assertNotIn("nan", r.stderr.lower().replace("'nan'", ""))
                    self.assertEqual(r.stderr.count("\n"), 1, r.stderr)

    def test_sum_overflow_message(self):
        r = run("fairness", "1e308", "1e308")
        self.assertEqual(r.returncode, 2)
        self.assertIn("add up to more than", r.stderr)

    def write_series(self, rate_a, rate_b):
        rows = ["start_s,end_s,flow,bits_per_s"]
        for t in range(8):
            rows.append("%d,%d,a,%s" % (t, t + 1, rate_a if t % 2 else "1e-320"))
            rows.append("%d,%d,b,%s" % (t, t + 1, "0" if t % 3 else rate_b))
        f = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
        f.write("\n".join(rows) + "\n")
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_series(self):
        path = self.write_series("1e17", "2e17")
        for extra in ([], ["--capacity", "1e18", "--allow-over"], ["--capacity", "1e-300",
                                                                   "--allow-over"]):
            with self.subTest(extra=extra):
                r = run("fairness", "--json", "--series", path, "--window", "1,2,4", *extra)
                self.assertEqual(r.returncode, 0, r.stderr)
                o = strict_loads(r.stdout)
                self.assertEqual(len(o["windows"]), 3)
                self.assertTrue(math.isfinite(o["run"]["jain"]))

    def test_series_overflow_refused(self):
        # Rates near the largest double: their window averages overflow.
        path = self.write_series("1e308", "1.7e308")
        for json_flag in ([], ["--json"]):
            r = run("fairness", *json_flag, "--series", path, "--window", "2")
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(r.stdout, "")
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertNotIn("nan", r.stderr)


class StatusJson(unittest.TestCase):
    def test_tcp_status(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"pid": 999999999}')
        try:
            r = run("tcp", "status", "--json", "--status-file", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(strict_loads(r.stdout)["running"])

    def test_ap_status_extremes(self):
        with open(os.path.join(SRCDIR, "data", "apd-status.json")) as f:
            status = json.load(f)
        status["pid"] = os.getpid()
        status["time_us"] = int(time.time() * 1e6)
        status["round"]["total_bps"] = 2e17
        status["round"]["capacity_bps"] = 1e308
        status["round"]["jain"] = 1e-320
        status["edge"] = [0.0, -0.0, 1e-320, 5e-324, 1e17, 2e17, 1.7976931348623157e308, 0.1,
                          "OVERFLOW"]
        text = json.dumps(status).replace('"OVERFLOW"', "1e400")
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(text)
        try:
            r = run("ap", "status", "--json", "--status", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        o = strict_loads(r.stdout)
        self.assertEqual(o["round"]["total_bps"], 2e17)
        self.assertEqual(o["round"]["jain"], 1e-320)
        # What the file's reader makes of 1e400 (infinity) is written as null.
        self.assertEqual(o["edge"], status["edge"][:-1] + [None])
        self.assertEqual(math.copysign(1, o["edge"][1]), -1)

    def test_status_direct(self):
        r = run("status", "--direct", "-i", "lo", "--json")
        if r.returncode != 0:
            self.skipTest("status --direct does not run here: " + r.stderr.strip())
        o = strict_loads(r.stdout)
        self.assertEqual(o["source"], "direct")


class ListenJson(unittest.TestCase):
    def listen(self, goodputs, duration=15):
        """Lines of `listen --json` with one report per host carrying GOODPUTS."""
        for _ in range(5):
            port = free_port()
            p = subprocess.Popen([CTL, "listen", "--json", "--bind", "127.0.0.1",
                                  "--port", str(port), "--count", str(len(goodputs)),
                                  "--duration", str(duration)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                deadline = time.monotonic() + 10
                seq = 1
                while p.poll() is None and time.monotonic() < deadline:
                    for i, g in enumerate(goodputs):
                        c.sendto(report("%032x" % (i + 1), seq, body=wifi_body(g)), ("127.0.0.1", port))
                    seq += 1
                    time.sleep(0.1)
                c.close()
                out, err = p.communicate(timeout=10)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            if "Address already in use" not in err:
                break
        self.assertEqual(p.returncode, 0, err)
        return [strict_loads(line) for line in out.splitlines()]

    def test_extreme_goodputs(self):
        # Reports' rates are bounded (docs/report-protocol.md: 0..1e13):
        # the edge is at the bound, and below the smallest normal double.
        for goodputs in ([1e13, 1e13, 1e13], [9.999999999999e12, 1e-320], [5e-324, 0.0],
                         [0.0, 0.0]):
            with self.subTest(goodputs=goodputs):
                events = self.listen(goodputs)
                reports = [e for e in events if e["event"] == "report"]
                tables = [e for e in events if e["event"] == "table"]
                self.assertTrue(reports and tables, events)
                self.assertEqual(sorted({r["goodput_rx_bps"] for r in reports}),
                                 sorted(set(goodputs)))
                fairness = tables[-1]["fairness"]
                self.assertEqual(fairness["n"], len(goodputs))
                self.assertTrue(math.isclose(fairness["sum_bps"], math.fsum(goodputs),
                                             rel_tol=1e-12))
                self.assertTrue(0 < fairness["jain"] <= 1 + 1e-12, fairness)

    def test_rejected_extremes(self):
        # Beyond the bound: a reject event each, itself strict JSON.
        events = self.listen([1e17, 1e308], duration=1)
        rejects = [e for e in events if e["event"] == "reject"]
        self.assertTrue(rejects, events)
        self.assertTrue(all(e["reason"] == "range" for e in rejects), rejects)
        self.assertEqual(events[-1]["counters"]["accepted"], 0)

if __name__ == "__main__":
    wftest.main()
