#!/usr/bin/env python3
"""Unit tests of guest/reporter-check.py, the lab reporter scenario's
comparison, on synthetic runs built from a fixed seed: a flow whose rate
swings every second as it did on CI (6-43 Mbit/s), a reporter that samples
late and irregularly and whose stamps trail its samples, reports lost on
the way. A faithful reporter must land within 1 % whatever the swings; a
reporter 8 % low must not pass the scenario's 5 %; too few reports must
give no ratio at all."""
import importlib.util
import json
import os
import random
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("reporter_check",
                                              os.path.join(HERE, "guest", "reporter-check.py"))
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)

T0 = 1_795_000_000.0


class Run:
    """A synthetic 30 s upload: the receiver's cumulative bytes as a
    piecewise-linear function of time, recv-sampler.py's log of it, and the
    station's reports."""

    def __init__(self, seed, scale=1.0, lost=(), stall=0.6, stall_p=0.005):
        rnd = random.Random(seed)
        self.start, self.end = T0 + 0.4, T0 + 30.4
        # Per-second rates that swing, in bytes/s.
        self.rates = [rnd.uniform(6e6, 43e6) / 8 for _ in range(31)]
        self.stall_p = stall_p
        self.recv = self._recv_log(rnd)
        self.reports = self._reports(rnd, scale, set(lost), stall)

    def received(self, t):
        if t <= self.start:
            return 0.0
        t = min(t, self.end)
        whole = int(t - self.start)
        return sum(self.rates[:whole]) + self.rates[whole] * (t - self.start - whole)

    def _recv_log(self, rnd):
        """recv-sampler.py's lines: every 50 ms, now and then (stall_p per
        sample) a stall of up to 0.5 s (the emulated machine), the control
        connection beside the data connection, which is gone after the
        transfer."""
        lines, t = ["not json"], T0 - 1
        while t < self.end + 2:
            got = {"11": 164}
            if self.start <= t <= self.end + 0.05:
                got["12"] = round(self.received(t))
            lines.append(json.dumps({"t": round(t, 6), "b": got}))
            t += 0.05 + (rnd.uniform(0, 0.5) if rnd.random() < self.stall_p else 0)
        return lines

    def _reports(self, rnd, scale, lost, stall):
        reports, seq, prev, s = [], 0, None, T0 - 3
        while s < self.end + 3:
            if prev is not None:
                bps = (self.received(s) - self.received(prev)) * 8 / (s - prev) * scale
                flows = ([{"dst": "10.99.0.1:5201", "goodput_tx_bps": bps}]
                         if self.start < s and prev < self.end else [])
                # The seal trails the sample by nl80211 and the send path.
                stamp = s + rnd.uniform(0.05, 0.9)
                body = {"boot": "b1", "seq": seq, "time_us": int(stamp * 1e6),
                        "sampled_us": int(s * 1e6), "span_s": s - prev,
                        "sampled_end_us": int((s + rnd.uniform(0.0002, 0.004)) * 1e6),
                        "interval_s": 1.0, "flows": flows,
                        "interfaces": [{"name": "wlan1", "goodput_tx_bps": bps,
                                        "station": {"signal_dbm": -30, "ssid": "lab"}}]}
                if seq not in lost:
                    reports.append({"event": "report", "host": "h", "from": "10.99.0.11:1",
                                    "report": body})
                s_next = s + 1.0 + (rnd.uniform(0, stall) if rnd.random() < 0.2 else 0)
            else:
                s_next = s + 1.0
            prev, s, seq = s, s_next, seq + 1
        return reports


class ReporterCheck(unittest.TestCase):
    def check(self, run):
        return rc.check(run.reports, {}, run.recv, "wlan1")

    def test_faithful_reporter_within_1pct_over_seeds(self):
        for seed in range(20):
            with self.subTest(seed=seed):
                res = self.check(Run(seed, lost=(7, 8, 15)))
                self.assertEqual(res["reasons"], [])
                self.assertAlmostEqual(res["ratio_iface"], 1.0, delta=0.01)
                self.assertAlmostEqual(res["ratio_flow"], 1.0, delta=0.01)
                self.assertEqual(res["reports_missing"], 3)
                self.assertGreater(res["covered_s"], 0.7 * res["window_s"])

    def test_low_reporter_fails(self):
        for seed in range(5):
            with self.subTest(seed=seed):
                res = self.check(Run(seed, scale=0.92))
                self.assertLess(res["ratio_flow"], 0.95)

    def test_lost_reports_shorten_coverage_not_bias(self):
        res = self.check(Run(3, lost=(5, 6, 12, 20, 21, 22)))
        self.assertIn("ratio_flow", res, res["reasons"])
        self.assertAlmostEqual(res["ratio_flow"], 1.0, delta=0.01)
        # Four reports in five lost: 5 of the middle's 26 s covered.
        res = self.check(Run(3, lost=[k for k in range(40) if k % 5]))
        self.assertNotIn("ratio_flow", res)
        self.assertTrue(any("cover" in r for r in res["reasons"]), res["reasons"])

    def test_gap_at_a_run_end_trims_the_run(self):
        # The AP's samples stop for 0.8 s around one report's instant, the
        # data came in a burst in that gap, and the next report was lost:
        # that instant ends a run of spans. The span ending there drops
        # out rather than take a line across the gap; a gap inside a run
        # costs nothing (its error cancels between the two spans).
        for lose_next, dropped in ((True, 1), (False, 0)):
            with self.subTest(lose_next=lose_next):
                run = Run(6, stall_p=0)
                ordered = sorted(run.reports, key=lambda r: r["report"]["seq"])
                mid = ordered[15]["report"]["sampled_us"] / 1e6
                smooth = run.received
                run.received = (lambda t: smooth(mid - 0.4) if mid - 0.4 < t < mid + 0.35
                                else smooth(t))
                run.recv = [l for l in run.recv[1:] if abs(json.loads(l)["t"] - mid) > 0.4]
                for r in run.reports:   # the reporter saw the same burst
                    b = r["report"]
                    if "span_s" in b:
                        tb = b["sampled_us"] / 1e6
                        bps = (run.received(tb) - run.received(tb - b["span_s"])) * 8 / b["span_s"]
                        b["interfaces"][0]["goodput_tx_bps"] = bps
                        for f in b["flows"]:
                            f["goodput_tx_bps"] = bps
                if lose_next:
                    run.reports.remove(ordered[16])
                res = self.check(run)
                self.assertEqual(res["spans_unbracketed"], dropped)
                self.assertAlmostEqual(res["ratio_flow"], 1.0, delta=0.002)
                if lose_next:
                    rc.BRACKET, old = 10.0, rc.BRACKET
                    try:   # a line across the gap at a run's end: off
                        self.assertGreater(abs(self.check(run)["ratio_flow"] - 1), 0.01)
                    finally:
                        rc.BRACKET = old

    def test_slow_dump_at_a_run_end_trims_the_run(self):
        # A stall inside one report's flow dump: the sockets were read 1.3 s
        # after its sampled_us, so its span carries the bytes of 1.3 s more
        # (what one CI run showed), and the next report was lost, so that
        # instant ends a run. With sampled_end_us the span drops out; a
        # reporter that did not say (old) or a check that ignored it would
        # be off by several percent.
        run = Run(8, stall_p=0)
        ordered = sorted(run.reports, key=lambda r: r["report"]["seq"])
        b = ordered[15]["report"]
        tb = b["sampled_us"] / 1e6
        late = (run.received(tb + 1.3) - run.received(tb - b["span_s"])) * 8 / b["span_s"]
        b["interfaces"][0]["goodput_tx_bps"] = late
        for f in b["flows"]:
            f["goodput_tx_bps"] = late
        b["sampled_end_us"] = b["sampled_us"] + 1_300_000
        run.reports.remove(ordered[16])
        res = self.check(run)
        self.assertEqual(res["spans_blurred"], 1)
        self.assertAlmostEqual(res["ratio_flow"], 1.0, delta=0.005)
        del b["sampled_end_us"]
        res = self.check(run)
        self.assertEqual(res["spans_blurred"], 0)
        self.assertGreater(res["ratio_flow"], 1.02)

    def test_slow_sample_at_a_run_end_is_left_out(self):
        # The AP's side of the same stall: one sample's dump took 0.8 s, so
        # its midpoint stamp is 0.4 s before the bytes it read, right at an
        # instant that ends a run (the next report was lost).
        run = Run(9, stall_p=0)
        ordered = sorted(run.reports, key=lambda r: r["report"]["seq"])
        tb = ordered[15]["report"]["sampled_us"] / 1e6
        run.reports.remove(ordered[16])
        recs = [json.loads(l) for l in run.recv[1:]]
        k = min(range(len(recs)), key=lambda i: abs(recs[i]["t"] - tb))
        recs[k]["b"]["12"] = round(run.received(recs[k]["t"] + 0.4))
        recs[k]["d"] = 0.8
        run.recv = [json.dumps(r) for r in recs]
        res = self.check(run)
        self.assertAlmostEqual(res["ratio_flow"], 1.0, delta=0.003)
        rc.SAMPLE_BLUR, old = 10.0, rc.SAMPLE_BLUR
        try:   # taken at its stamp, it moves the run's bytes
            self.assertGreater(abs(self.check(run)["ratio_flow"] - 1), 0.006)
        finally:
            rc.SAMPLE_BLUR = old

    def test_unplaced_reports_give_no_ratio(self):
        # A reporter without sampled_us/span_s: its rates have no place in
        # time (time_us is the seal), so nothing is covered.
        run = Run(5)
        for r in run.reports:
            del r["report"]["sampled_us"]
        res = self.check(run)
        self.assertNotIn("ratio_flow", res)
        self.assertEqual(res["reports_unplaced"], len(run.reports))

    def test_station_rates_as_most_reports_give_them(self):
        """A report's tx rate is the station's last frame: a null or
        management frame at 1 Mbit/s now and then, and the last report
        (after the upload) may be one. The rates most reports give count."""
        run = Run(5)
        ht = {"signal_dbm": -30, "ssid": "lab", "tx_rate": {"mcs": 15, "bitrate_kbps": 130000},
              "rx_rate": {"mcs": 15, "bitrate_kbps": 130000}}
        legacy = dict(ht, tx_rate={"bitrate_kbps": 1000})
        n = len(run.reports)
        for i, r in enumerate(run.reports):
            r["report"]["interfaces"][0]["station"] = legacy if i in (3, 9, n - 1) else ht
        res = self.check(run)
        self.assertEqual(res["tx_mcs"], 15)
        self.assertEqual(res["tx_bitrate_kbps"], 130000)
        self.assertEqual(res["tx_reports_without_mcs"], 3)
        # Most at a legacy rate: that is what the scenario's check sees.
        for r in run.reports:
            r["report"]["interfaces"][0]["station"] = legacy
        r["report"]["interfaces"][0]["station"] = ht
        res = self.check(run)
        self.assertIsNone(res["tx_mcs"])
        self.assertEqual(res["tx_reports_without_mcs"], n - 1)

    def test_no_data_connection(self):
        run = Run(1)
        # Only the control connection: iperf3 never sent data.
        only_control = [json.dumps({"t": json.loads(l)["t"], "b": {"11": 164}})
                        for l in run.recv[1:]]
        res = rc.check(run.reports, {}, only_control, "wlan1")
        self.assertNotIn("ratio_flow", res)
        self.assertTrue(res["reasons"])

    def test_recv_log_picks_data_connection(self):
        run = Run(2)
        series = rc.parse_recv_log(run.recv)
        self.assertGreater(len(series), 100)
        self.assertTrue(all(b > 1000 or t < run.start + 0.2 for t, b in series))
        self.assertEqual(series, sorted(series))
        lo, hi = rc.flow_window(series)
        self.assertAlmostEqual(lo, run.start + rc.EDGE, delta=0.3)
        self.assertAlmostEqual(hi, run.end - rc.EDGE, delta=0.3)
        self.assertIsNone(rc.received_at(series, series[0][0] - 1))

    def test_main_prints_json(self):
        run = Run(4)
        with tempfile.TemporaryDirectory() as d:
            paths = [os.path.join(d, n) for n in ("listen.jsonl", "iperf.json", "recv.jsonl")]
            with open(paths[0], "w") as f:
                f.write("not json\n")
                f.writelines(json.dumps(r) + "\n" for r in run.reports)
            with open(paths[1], "w") as f:
                json.dump({"end": {"sum_received": {"bytes": run.received(run.end),
                                                    "seconds": 30.0}}}, f)
            with open(paths[2], "w") as f:
                f.write("\n".join(run.recv) + "\n")
            out = subprocess.run(["python3", os.path.join(HERE, "guest", "reporter-check.py")]
                                 + paths + ["wlan1"], capture_output=True, text=True, check=True)
        res = json.loads(out.stdout)
        self.assertAlmostEqual(res["ratio_flow"], 1.0, delta=0.01)
        self.assertAlmostEqual(res["truth_vs_iperf3"], 1.0, delta=0.01)
        self.assertEqual(res["ssid"], "lab")


if __name__ == "__main__":
    unittest.main()
