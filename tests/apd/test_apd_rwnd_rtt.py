#!/usr/bin/env python3
"""rwnd's policies against TCP's RTT bias, on this kernel (no netem: the
delays are wf-delay wires): three downloads of 30, 50 and 100 ms RTT
through one AP and one shared bottleneck of 19 Mbit/s (the issue's
published scenario, without the UDP game stream), uncontrolled, with
rwnd-policy=equal and with rwnd-policy=rtt-fair (C = 18 Mbit/s: the
bottleneck's goodput). Needs root, iperf3 and ethtool; exits 77 (skip)
otherwise.

    sta -- bott (wf-delay 1 ms, 19 Mbit/s) -- ap (rwnd on its station side)
        ap -- wK (wf-delay 14/24/49 ms, 100 Mbit/s) -- srv (one address each)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

# The shared helpers (testlib/wftest.py; it puts testbed/ on the path too).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))), "testlib"))
import wftest  # noqa: E402
from wftest import Actuate, jain, run  # noqa: E402

ACT = os.environ.get("WF_ACTUATE", "wf-actuate")
DELAY = os.environ.get("WF_DELAY", "wf-delay")
BOTTLENECK_BPS = 19e6
CAPACITY_BPS = 18e6
ONE_WAY_MS = (14, 24, 49)   # + 1 ms each way at the bottleneck: 30, 50, 100 ms
SECONDS = 14
MEASURE = (5, 13)


class RttPath:
    def __init__(self):
        pid = os.getpid()
        p = "wfrt%d" % pid
        self.sta, self.bott, self.ap, self.srv = p + "-sta", p + "-bott", p + "-ap", p + "-srv"
        self.wires = ["%s-w%d" % (p, k) for k in range(3)]
        self.dev = "rta%d" % pid
        self.srv_addr = ["10.236.%d.2" % (10 + k) for k in range(3)]
        self.delays = []
        self.servers = []
        devs = []
        try:
            for ns in [self.sta, self.bott, self.ap, self.srv] + self.wires:
                run("ip", "netns", "add", ns)
                run("ip", "-n", ns, "link", "set", "lo", "up")
            links = [("rts%d" % pid, self.sta, "rtb%d" % pid, self.bott),
                     ("rtc%d" % pid, self.bott, self.dev, self.ap)]
            for k, w in enumerate(self.wires):
                links += [("rtu%d-%d" % (k, pid), self.ap, "rtx%d-%d" % (k, pid), w),
                          ("rty%d-%d" % (k, pid), w, "rtv%d-%d" % (k, pid), self.srv)]
            for a, ans, b, bns in links:
                run("ip", "link", "add", a, "netns", ans, "type", "veth", "peer", "name", b,
                    "netns", bns)
                devs += [(ans, a), (bns, b)]
            for ns, dev in devs:
                run("ip", "netns", "exec", ns, "ethtool", "-K", dev, "tx", "off", "rx", "off",
                    "tso", "off", "gso", "off", "gro", "off")
                run("ip", "-n", ns, "link", "set", dev, "up")
            for ns in [self.bott] + self.wires:
                run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
            run("ip", "-n", self.sta, "addr", "add", "10.236.1.2/24", "dev", "rts%d" % pid)
            run("ip", "-n", self.sta, "route", "add", "default", "via", "10.236.1.1")
            run("ip", "-n", self.ap, "addr", "add", "10.236.1.1/24", "dev", self.dev)
            for k in range(3):
                run("ip", "-n", self.ap, "addr", "add", "10.236.%d.1/24" % (10 + k), "dev",
                    "rtu%d-%d" % (k, pid))
                run("ip", "-n", self.srv, "addr", "add", self.srv_addr[k] + "/24", "dev",
                    "rtv%d-%d" % (k, pid))
            # The server answers each address by its own wire.
            for k in range(3):
                run("ip", "-n", self.srv, "rule", "add", "from", self.srv_addr[k], "table",
                    str(100 + k))
                run("ip", "-n", self.srv, "route", "add", "default", "via",
                    "10.236.%d.1" % (10 + k), "table", str(100 + k))
            run("ip", "netns", "exec", self.ap, "sysctl", "-qw", "net.ipv4.ip_forward=1")
            self.wire(self.bott, "rtb%d" % pid, "rtc%d" % pid, 1, BOTTLENECK_BPS)
            for k, w in enumerate(self.wires):
                self.wire(w, "rtx%d-%d" % (k, pid), "rty%d-%d" % (k, pid), ONE_WAY_MS[k], 100e6)
            for k in range(3):
                run("ip", "netns", "exec", self.sta, sys.executable, "-c",
                    "import socket, sys; s = socket.socket(); s.settimeout(5); "
                    "sys.exit(0 if s.connect_ex(('%s', 9)) == 111 else 1)" % self.srv_addr[k])
        except BaseException:
            self.close()
            raise

    def wire(self, ns, a, b, ms, bps):
        d = subprocess.Popen(["ip", "netns", "exec", ns, DELAY, a, b, str(ms), str(int(bps))],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.delays.append(d)
        assert d.stdout.readline().strip() == "ready"

    def close(self):
        wftest.stop_procs(self.servers)
        for d in self.delays:
            if d.poll() is None:
                d.terminate()
                d.wait(10)
            d.stdout.close()
        for ns in [self.sta, self.bott, self.ap, self.srv] + self.wires:
            run("ip", "netns", "del", ns, check=False)


def rate(result, t0, t1):
    ivs = [i["sum"] for i in result["intervals"]
           if i["sum"]["start"] >= t0 - 0.05 and i["sum"]["end"] <= t1 + 0.05]
    return sum(i["bytes"] * 8 for i in ivs) / sum(i["seconds"] for i in ivs)


class ApdRwndRttTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="wfrwrtt-")
        self.log = os.path.join(self.tmp, "wf-actuate.log")
        self.path = RttPath()

    def tearDown(self):
        self.path.close()
        if os.path.exists(self.log):
            with open(self.log) as f:
                text = f.read()
            sys.stderr.write(text)
            for bad in ("ERROR: AddressSanitizer", "runtime error:", "LeakSanitizer"):
                self.assertNotIn(bad, text)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def downloads(self, policy, port):
        """Three downloads at once; returns their Mbit/s (30, 50, 100 ms)."""
        state = os.path.join(self.tmp, "state-%s" % policy)
        a = None
        if policy:
            a = Actuate(ACT, self.path.ap, self.path.dev, state, self.log, "rwnd",
                        "--rwnd-policy", policy, "--rwnd-capacity", str(int(CAPACITY_BPS)))
            self.assertEqual(a("start"), "ok")
        clients = []
        for k in range(3):
            wftest.iperf3_server(self.path.srv, self.path.srv_addr[k], port + k, self.path.servers)
        for k in range(3):
            clients.append(subprocess.Popen(
                ["ip", "netns", "exec", self.path.sta, "iperf3", "-c", self.path.srv_addr[k],
                 "-p", str(port + k), "-t", str(SECONDS), "-i", "1", "-J", "-R"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        t0 = time.monotonic()
        status = None
        while a and time.monotonic() - t0 < SECONDS - 1:
            time.sleep(1.0)
            self.assertEqual(a("refresh"), "ok")
            status = json.loads(a("status"))
            self.assertEqual(a.p.stdout.readline().strip(), "ok")
        rates = []
        for c in clients:
            out, err = c.communicate(timeout=SECONDS + 30)
            self.assertEqual(c.returncode, 0, err)
            rates.append(rate(json.loads(out), *MEASURE) / 1e6)
        if a:
            self.assertEqual(a("stop"), "ok")
            self.assertEqual(a.close(), 0)
            windows = sorted(x["target_bytes"] for f in status["flows_listed"]
                             for x in f["senders"] if x["bytes"] > 1e6)
            sys.stderr.write("%s: target windows %s, RTTs (handshake, timestamps, lowest) %s\n"
                             % (policy, windows,
                                sorted((round(f.get("rtt_handshake_s", 0) * 1e3, 1),
                                        round(f.get("rtt_timestamps_s", 0) * 1e3, 1),
                                        round(f.get("rtt_timestamps_min_s", 0) * 1e3, 1))
                                       for f in status["flows_listed"])))
            # The program's RTT from timestamps: its lowest is the path's
            # (a wire never delays less than it is set to).
            for k in range(3):
                want = 2 * (ONE_WAY_MS[k] + 1) / 1e3
                data = [f for f in status["flows_listed"]
                        if any(e.endswith(":%d" % (port + k)) for e in f["endpoints"])
                        and max(x["bytes"] for x in f["senders"]) > 1e6]
                self.assertEqual(len(data), 1, status["flows_listed"])
                low = data[0].get("rtt_timestamps_min_s", 0)
                self.assertGreaterEqual(low, 0.95 * want, data[0])
                self.assertLessEqual(low, 1.5 * want + 0.010, data[0])
                self.assertGreaterEqual(data[0]["rtt_timestamps_s"], low)
        return rates

    def test_rtt_fairness(self):
        table = {}
        for n, policy in enumerate((None, "equal", "rtt-fair")):
            table[policy or "uncontrolled"] = self.downloads(policy, 5710 + 10 * n)
        sys.stderr.write("policy        30 ms  50 ms 100 ms  total  Jain (Mbit/s)\n")
        for name, r in table.items():
            sys.stderr.write("%-12s %6.2f %6.2f %6.2f %6.2f %5.3f\n"
                             % (name, r[0], r[1], r[2], sum(r), jain(r)))
        eq, fair, free = table["equal"], table["rtt-fair"], table["uncontrolled"]
        # Equal windows favour the short RTT; RTT-fair ones make it even.
        self.assertGreater(eq[0], 2 * eq[2])
        self.assertGreaterEqual(jain(fair), 0.95)
        self.assertGreaterEqual(sum(fair), 0.9 * sum(free))


def requires(names):
    if os.geteuid() != 0:
        return "needs root"
    missing = [t for t in ("iperf3", "ethtool") if shutil.which(t) is None]
    return "needs " + ", ".join(missing) if missing else None


if __name__ == "__main__":
    wftest.main(requires)
