#!/usr/bin/env python3
"""Reports are control traffic (wlanfair-reportd's dscp=, docs/reporter.md):
a station whose uplink is saturated still delivers them on time when they
are marked. The emulated BSS of testbed/ (an HTB medium with a voice
and a best-effort class per contender): the built wlanfair-reportd on a far
station reports every 0.5 s to a receiver on the AP, which stamps arrivals,
while the station's uplink is saturated through the medium. Root only; exits
77 (skip) without root or iperf3. One case per process:
    test_report_priority.py ReportPriorityTest.test_udp_uplink
"""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True          # no __pycache__ in the source tree
# The shared helpers (testlib/wftest.py; it puts testbed/ on the path too).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))), "testlib"))
import wftest  # noqa: E402
import testbed  # noqa: E402

REPORTD = os.environ.get("WLANFAIR_REPORTD", "wlanfair-reportd")
INTERVAL = 0.5
RUN_S = 6.0          # reports counted per phase
WARMUP_S = 1.5       # the uplink saturated before the reporter starts
REPORT_PORT = 7455
REPORTER = 1         # the reporting station (far), uploading
FAR_COST = 4
# A marked report waits for the frame on the air and one turn at most (a
# few ms); an unmarked one behind a full FIFO of far frames waits ~160 ms.
ON_TIME_S = 0.05

# Stamps each report on arrival: receiver's realtime clock, the sender's
# time_us (the namespaces share the clock: the difference is the delay
# through the medium) and seq (losses).
SINK = """
import json, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
print("ready", flush=True)
while True:
    data, peer = s.recvfrom(65536)
    t = time.time()
    r = json.loads(data)
    print(json.dumps({"t": t, "sent": r["time_us"] / 1e6, "seq": r["seq"]}), flush=True)
"""


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


class ReportPriorityTest(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root (network namespaces)")
        for tool in ("iperf3", "tc", "ip"):
            if shutil.which(tool) is None:
                self.skipTest("%s is not installed" % tool)
        self.tmp = tempfile.mkdtemp(prefix="wfrp-")
        self.procs = []
        self.machine_id = os.path.join(self.tmp, "machine-id")
        with open(self.machine_id, "w") as f:
            f.write("0123456789abcdef0123456789abcdef\n")
        # Two stations: the reporter (far) and a near one, both uploading in
        # the TCP case; the medium's defaults otherwise.
        self.cfg = testbed.Config(up=2, down=0, far={REPORTER: FAR_COST},
                                  prefix="wfrp%d-" % os.getpid())
        self.tb = testbed.Testbed(self.cfg)
        self.tb.setup()

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.tb.teardown()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def spawn(self, ns, args, **kw):
        p = subprocess.Popen(testbed.nsexec(ns, args), stdin=subprocess.DEVNULL, **kw)
        self.procs.append(p)
        return p

    def stop(self, p):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def uplink(self, station, port, udp):
        """iperf3 from `station` to the server, long enough for a phase."""
        secs = str(int(WARMUP_S + RUN_S + 3))
        args = ["iperf3", "-c", testbed.SRV_IP, "-p", str(port), "-t", secs,
                "--connect-timeout", "5000"]
        if udp:
            # Twice what the medium carries, with a socket buffer larger than
            # the station's FIFO: UDP has no TCP Small Queues to stop it, so
            # the station's best-effort FIFO stays full.
            args += ["-u", "-b", "%dM" % (2 * self.cfg.capacity / 1e6), "-l", "1400",
                     "-w", "1M"]
        return self.spawn(self.tb.sta[station - 1], args, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)

    def phase(self, dscp, udp):
        """One run: the uplink(s), then the reporter for RUN_S seconds.
        Returns the arrivals [{t, sent, seq}] and the reporter's log."""
        tb = self.tb
        before = tb.tc_stats()["sta%d" % REPORTER]
        servers, clients = [], []
        stations = [REPORTER] if udp else [1, 2]
        for n, station in enumerate(stations):
            port = testbed.BASE_PORT + n
            servers.append(self.spawn(tb.srv, ["iperf3", "-s", "-1", "-B", testbed.SRV_IP,
                                               "-p", str(port)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        testbed.wait_listening(tb, [testbed.BASE_PORT + n for n in range(len(stations))])
        sink = self.spawn(tb.ap, [sys.executable, "-c", SINK, testbed.AP_WLAN_IP,
                                  str(REPORT_PORT)], stdout=subprocess.PIPE, text=True)
        self.assertEqual(sink.stdout.readline().strip(), "ready")
        for n, station in enumerate(stations):
            clients.append(self.uplink(station, testbed.BASE_PORT + n, udp))
        time.sleep(WARMUP_S)
        conf = os.path.join(self.tmp, "reportd-%s.conf" % dscp)
        with open(conf, "w") as f:
            f.write("[reportd]\ndscp=%s\n" % dscp)
        log = open(os.path.join(self.tmp, "reportd-%s.log" % dscp), "w")
        reporter = self.spawn(tb.sta[REPORTER - 1],
                              [REPORTD, "--config", conf, "--machine-id", self.machine_id,
                               "--interval", str(INTERVAL), "-i", "wlan0",
                               "--destination", "%s:%d" % (testbed.AP_WLAN_IP, REPORT_PORT),
                               "--socket", "none", "--textfile-dir", "none"],
                              stdout=log, stderr=subprocess.STDOUT)
        arrivals, backlog = [], 0
        deadline = time.monotonic() + INTERVAL + RUN_S
        next_look = time.monotonic()
        while time.monotonic() < deadline:
            if time.monotonic() >= next_look:
                # How full the reporter's FIFOs are while it reports.
                backlog = max(backlog, tb.tc_stats()["sta%d" % REPORTER]["backlog_packets"])
                next_look += INTERVAL / 2
            r, _, _ = select.select([sink.stdout], [], [],
                                    max(0.0, min(deadline, next_look) - time.monotonic()))
            if r:
                arrivals.append(json.loads(sink.stdout.readline()))
        self.assertIsNone(reporter.poll(), "wlanfair-reportd exited")
        self.stop(reporter)
        log.close()
        with open(log.name) as f:
            self.assertEqual(reporter.returncode, 0, f.read())
        for p in clients + servers + [sink]:
            self.stop(p)
        after = tb.tc_stats()["sta%d" % REPORTER]
        fifo = {"dropped": after["dropped"] - before["dropped"], "backlog_max": backlog,
                "voice_sent": after["voice"]["sent_packets"] - before["voice"]["sent_packets"]}
        with open(log.name) as f:
            return arrivals, f.read(), fifo

    def summary(self, what, arrivals, fifo):
        gaps = [b["t"] - a["t"] for a, b in zip(arrivals, arrivals[1:])]
        delays = [a["t"] - a["sent"] for a in arrivals]
        seqs = [a["seq"] for a in arrivals]
        # Missing sequence numbers, or fewer reports than the run had
        # periods for (none at all arrived, or the last ones).
        lost = max((seqs[-1] - seqs[0] + 1 - len(seqs)) if seqs else 0,
                   int(RUN_S / INTERVAL) - 1 - len(seqs))
        s = {"reports": len(arrivals), "lost": lost,
             "gap_max_s": max(gaps, default=float("inf")),
             "gap_p95_s": percentile(gaps, 95) if gaps else float("inf"),
             "delay_p50_s": percentile(delays, 50) if delays else float("inf"),
             "delay_max_s": max(delays, default=float("inf")),
             "on_time": sum(1 for d in delays if d < ON_TIME_S),
             "fifo_dropped": fifo["dropped"], "fifo_backlog_max": fifo["backlog_max"],
             "voice_sent": fifo["voice_sent"]}
        print("%-22s %2d reports (%d on time), %d lost, gaps p95 %.3f max %.3f s, delay p50 %.4f"
              " max %.4f s; station FIFO: up to %d packets, %d dropped; voice leaf sent %d"
              % (what, s["reports"], s["on_time"], lost, s["gap_p95_s"], s["gap_max_s"],
                 s["delay_p50_s"], s["delay_max_s"], s["fifo_backlog_max"], s["fifo_dropped"],
                 s["voice_sent"]))
        return s

    def check_marked(self, s):
        # Every report, each within 2 intervals of the previous one, and on
        # time: the voice leaf passes the uplink's backlog.
        self.assertGreaterEqual(s["reports"], int(RUN_S / INTERVAL) - 1, s)
        self.assertEqual(s["lost"], 0, s)
        self.assertLess(s["gap_max_s"], 2 * INTERVAL, s)
        self.assertLess(s["delay_max_s"], ON_TIME_S, s)
        self.assertGreater(s["voice_sent"], 0, s)

    def test_udp_uplink(self):
        """The station's own uplink fills its best-effort FIFO (UDP, no TSQ):
        marked reports take the voice class and all arrive on time, every gap
        below two intervals; unmarked ones wait behind the FIFO or are
        dropped with it."""
        marked, log, fifo = self.phase("cs6", udp=True)
        self.assertIn("reports marked DSCP cs6 (48), priority 6", log)
        m = self.summary("udp uplink, dscp=cs6", marked, fifo)
        plain, log, fifo = self.phase("0", udp=True)
        self.assertIn("reports not marked", log)
        p = self.summary("udp uplink, dscp=0", plain, fifo)
        self.check_marked(m)
        # The setup does what it claims: the best-effort FIFO was full.
        self.assertGreaterEqual(p["fifo_backlog_max"], self.cfg.sta_buffer, p)
        # Clearly worse without the marking: not one report on time. Each is
        # dropped with the flood or waits behind the full FIFO; which of the
        # two is luck (4 to 7 of 11 were lost in the runs of docs/reporter.md,
        # so the gaps' p95 was 1 to 2 s), so only that sum is asserted.
        self.assertEqual(p["on_time"], 0, p)
        self.assertGreater(p["delay_p50_s"], 2 * ON_TIME_S, p)

    def test_tcp_uplink(self):
        """Two TCP uploads, the reporter's and a near station's: marked
        reports arrive on time. Unmarked ones hardly later in this model:
        TCP Small Queues keep the station's FIFO at a few frames (the
        figures are printed; what is asserted of the unmarked run is that
        short FIFO)."""
        marked, log, fifo = self.phase("cs6", udp=False)
        m = self.summary("tcp uplink, dscp=cs6", marked, fifo)
        plain, log, fifo = self.phase("0", udp=False)
        p = self.summary("tcp uplink, dscp=0", plain, fifo)
        self.check_marked(m)
        # Why unmarked reports are not worse here: the FIFO they share with
        # the upload stays short (TSQ), unlike the UDP case.
        self.assertLess(p["fifo_backlog_max"], self.cfg.sta_buffer // 4, p)


if __name__ == "__main__":
    wftest.main()
