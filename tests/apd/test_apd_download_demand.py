#!/usr/bin/env python3
"""wlanfair-apd's download-demand (apd/bpf/wlanfair-download-demand.*) on
a real kernel path (root only), in ack-priority's bed
(test_apd_ack_priority.py: an AP namespace bridging one station port into
br0, its --serve and --probe modes).

download-demand=yes (ack-priority off): with a tbf on the station's port
that drops what it cannot send, the station's download marks it as
waiting at the AP (status `waits_at_ap`); without the tbf, never. A stop
and a restore after kill -9 remove its filter (handle 0xfa3).

Exits 77 without root or the built program ($WLANFAIR_APD). One case per
process:  test_apd_download_demand.py ApdDownloadDemandTest.test_stop_removes
"""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
# The bed, beside this file (it puts testlib/ on the path).
from test_apd_ack_priority import AP4, APD, DOWN_BYTES, Bed, requires  # noqa: E402
import test_apd_ack_priority  # noqa: E402
import wftest  # noqa: E402

BED_FILE = test_apd_ack_priority.__file__


class ApdDownloadDemandTest(Bed):
    """download-demand=yes alone, in the same two namespaces."""
    DEMAND = ("-o", "download-demand=yes", "-o", "ack-priority=no")
    READY = "counting what the AP is handed"

    def start_demand(self):
        self.start_apd(own=self.DEMAND, ready=self.READY)

    def waits_seen(self, shaped):
        """Runs the probe's upload and download beside the daemon; whether
        any round's status said the station waits at the AP, and the
        station's status (it must be there)."""
        if shaped:
            # What the port cannot send at 2 Mbit/s beyond 4 frames it
            # drops: the AP loses the download's frames.
            self.sh(self.ap, "tc", "qdisc", "add", "dev", "p1", "root", "tbf", "rate", "2mbit",
                    "burst", "3000", "limit", "6000")
            self.start_server()
        else:
            # Paced at 2 Mbit/s: no burst that a loaded machine's backlog
            # could drop between the port and the station.
            self.start_server(pace=250000)
        self.start_demand()
        # The bed's file has the --probe mode (this one runs cases only).
        probe = subprocess.Popen(["ip", "netns", "exec", self.sta, sys.executable, BED_FILE,
                                  "--probe", "wl0", AP4], stdout=subprocess.PIPE, text=True)
        seen, station = False, None
        deadline = time.monotonic() + 40
        # During the transfer and 2 s after it.
        end = None
        while time.monotonic() < deadline and (end is None or time.monotonic() < end):
            if end is None and probe.poll() is not None:
                end = time.monotonic() + 2
            try:
                with open(self.status) as f:
                    st = json.load(f)
            except (OSError, ValueError):   # replaced under us
                time.sleep(0.1)
                continue
            for sta in st.get("stations", []):
                station = sta
                seen = seen or sta.get("waits_at_ap", False)
            time.sleep(0.2)
        out, _ = probe.communicate(timeout=30)
        self.assertEqual(probe.returncode, 0)
        self.assertEqual(json.loads(out)["downloaded"], DOWN_BYTES)
        self.assertIsNotNone(station, self.apd_log())
        self.assertIn("waits_at_ap", station)
        return seen, station

    def test_waits_when_dropped(self):
        seen, station = self.waits_seen(True)
        self.assertTrue(seen, station)
        self.stop_apd()

    def test_no_wait_when_delivered(self):
        seen, station = self.waits_seen(False)
        self.assertFalse(seen, station)
        self.stop_apd()

    def test_stop_removes(self):
        self.start_demand()
        self.assertEqual(self.filters("0xfa3"), 1)
        self.stop_apd()
        self.assertEqual(self.filters("0xfa3"), 0)
        self.assertFalse(self.has_clsact())
        self.assertFalse(os.path.exists(self.state))
        self.assertIn("download-demand on br0: removed", self.apd_log())

    def test_kill9_then_restore(self):
        self.start_demand()
        self.apd.kill()
        self.apd.wait()
        self.assertEqual(self.filters("0xfa3"), 1)
        with open(self.state) as f:
            self.assertIn("[download-demand:br0]", f.read())
        r = self.sh(self.ap, APD, "-c", self.empty, "-o", "state=" + self.state,
                    "-o", "status=", "-o", "textfile-dir=", "--restore", check=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.filters("0xfa3"), 0)
        self.assertFalse(self.has_clsact())
        self.assertFalse(os.path.exists(self.state))


if __name__ == "__main__":
    wftest.main(requires)
