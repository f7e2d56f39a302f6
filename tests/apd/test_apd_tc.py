#!/usr/bin/env python3
"""wlanfair-apd's tc actuators on the real kernel, driven by wf-actuate in
network namespaces: an 'AP' namespace whose interface reaches two
'station' namespaces through a bridge (the 'air'). Needs root; exits 77
(skip) without it. Run one case per process:
    test_apd_tc.py ApdTcTest.test_rate_classes
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

# The shared helpers (testlib/wftest.py; it puts testbed/ on the path too).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))), "testlib"))
import wftest  # noqa: E402
from wftest import Actuate, run  # noqa: E402

ACT = os.environ.get("WF_ACTUATE", "wf-actuate")
REFUSED = ("{dev} has an htb root qdisc 1: with classes set by someone else; "
           "wlanfair-apd will not replace it")


class Cell:
    """ap <-> air (bridge) <-> s1, s2. Names carry the pid; nothing
    outlives close(), even a half-built cell."""

    def __init__(self):
        pid = os.getpid()
        self.p = "wfapd%d" % pid
        self.ap, self.air = self.p + "-ap", self.p + "-air"
        self.stas = [self.p + "-s1", self.p + "-s2"]
        self.dev = "wfa%d" % pid
        self.ap_addr = "10.233.0.1"
        self.sta_addrs = ["10.233.0.11", "10.233.0.12"]
        self.macs = []
        try:
            for ns in [self.ap, self.air] + self.stas:
                run("ip", "netns", "add", ns)
                run("ip", "-n", ns, "link", "set", "lo", "up")
            run("ip", "-n", self.air, "link", "add", "br0", "type", "bridge")
            run("ip", "-n", self.air, "link", "set", "br0", "up")
            run("ip", "link", "add", self.dev, "netns", self.ap, "type", "veth",
                "peer", "name", "wfb%d" % pid, "netns", self.air)
            run("ip", "-n", self.air, "link", "set", "wfb%d" % pid, "master", "br0", "up")
            run("ip", "-n", self.ap, "addr", "add", self.ap_addr + "/24", "dev", self.dev)
            run("ip", "-n", self.ap, "link", "set", self.dev, "up")
            for k, ns in enumerate(self.stas):
                dev, peer = "wfs%d-%d" % (k, pid), "wfp%d-%d" % (k, pid)
                run("ip", "link", "add", dev, "netns", ns, "type", "veth",
                    "peer", "name", peer, "netns", self.air)
                run("ip", "-n", self.air, "link", "set", peer, "master", "br0", "up")
                run("ip", "-n", ns, "addr", "add", self.sta_addrs[k] + "/24", "dev", dev)
                run("ip", "-n", ns, "link", "set", dev, "up")
                link = json.loads(run("ip", "-n", ns, "-j", "link", "show", dev).stdout)
                self.macs.append(link[0]["address"])
        except BaseException:
            self.close()
            raise

    def close(self):
        for ns in [self.ap, self.air] + self.stas:
            run("ip", "netns", "del", ns, check=False)

    def sh(self, *args, ns=None, **kw):
        return run("ip", "netns", "exec", ns or self.ap, *args, **kw)

    def tc(self, *args, **kw):
        return self.sh("tc", *args, **kw)

    def exists(self, dev):
        return self.sh("ip", "link", "show", dev, check=False).returncode == 0

    def qdiscs(self, dev=None):
        """The qdiscs of dev as tc lists them, without counters."""
        out = json.loads(self.tc("-j", "qdisc", "show", "dev", dev or self.dev).stdout)
        for q in out:
            q.pop("refcnt", None)
        return out

    def classes(self, dev=None):
        """{classid: rate in bit/s} of dev's HTB classes."""
        out = {}
        for line in self.tc("class", "show", "dev", dev or self.dev).stdout.splitlines():
            m = re.match(r"class htb (\S+) .*\brate (\d+(?:\.\d+)?)([KMG]?)bit", line)
            if m:
                out[m.group(1)] = float(m.group(2)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(3)]
        return out

    def filters(self, *where, dev=None):
        """u32 key nodes under `where` (e.g. 'ingress', or 'parent', 'fa1:'):
        [(pref, node handle, MAC at -14 or -8 or None, the text)]."""
        text = self.tc("filter", "show", "dev", dev or self.dev, *where).stdout
        out = []
        for block in re.split(r"\n(?=filter )", text):
            m = re.search(r"pref (\d+) u32 .*? fh (\S+::?\S*)", block)
            if not m or "::" not in m.group(2):
                continue
            data = {}
            for val, mask, off in re.findall(r"match ([0-9a-f]{8})/([0-9a-f]{8}) at (-?\d+)", block):
                for i in range(4):
                    if mask[2 * i:2 * i + 2] == "ff":
                        data[int(off) + i] = val[2 * i:2 * i + 2]
            mac = None
            for base in (-14, -8):
                if all(base + i in data for i in range(6)):
                    mac = ":".join(data[base + i] for i in range(6))
            out.append((int(m.group(1)), m.group(2), mac, block))
        return out


# Counts what arrives from one connection: bit/s from WARM s after the
# first byte to WARM + DUR s. Prints "ready", then the JSON result.
RECV = r"""
import json, socket, sys, time
addr, port, warm, dur = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind((addr, port)); l.listen(1); l.settimeout(20)
print("ready", flush=True)
c, _ = l.accept(); c.settimeout(0.2)
n = 0; mark = None; t0 = None
while True:
    try:
        b = c.recv(1 << 16)
        if not b:
            break
    except socket.timeout:
        b = b""
    now = time.monotonic()
    if t0 is None and b:
        t0 = now
    if t0 is not None and mark is None and now - t0 >= warm:
        mark = (now, n)
    if mark is not None and now - mark[0] >= dur:
        break
    n += len(b)
print(json.dumps({"bps": (n - mark[1]) * 8 / (now - mark[0]), "bytes": n}), flush=True)
"""
# Sends as fast as TCP lets it for ARGV[3] s at most, or until the peer goes.
SEND = r"""
import socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
end = time.monotonic() + float(sys.argv[3]); buf = b"x" * 65536
try:
    while time.monotonic() < end:
        s.send(buf)
except OSError:
    pass
"""


class ApdTcTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="wfapd-")
        self.state = os.path.join(self.tmp, "run", "state")
        os.mkdir(os.path.dirname(self.state))   # never created by the program
        self.log = os.path.join(self.tmp, "wf-actuate.log")
        self.cell = Cell()
        self.ifb = "wfifb%d" % int(self.cell.sh("cat", "/sys/class/net/%s/ifindex" % self.cell.dev)
                                   .stdout)
        self.acts = []

    def tearDown(self):
        status = [a.close() for a in self.acts]
        if os.path.exists(self.state):
            self.act("restore", check=False)
        self.cell.close()
        if os.path.exists(self.log):
            with open(self.log) as f:
                sys.stdout.write(f.read())
        run("rm", "-rf", self.tmp, check=False)
        self.assertTrue(all(s in (0, 3) for s in status), "wf-actuate exited %s" % status)

    def act(self, *cmds, actuator="rate", check=True):
        return self.cell.sh(ACT, "--iface", self.cell.dev, "--state", self.state,
                            "--actuator", actuator, *cmds, check=check)

    def actuator(self, name="rate"):
        a = Actuate(ACT, self.cell.ap, self.cell.dev, self.state, self.log, name)
        self.acts.append(a)
        return a

    def ok(self, a, line):
        self.assertEqual(a(line), "ok", line)

    def assert_clean(self, before):
        """What the interface had before; no IFB; no record."""
        self.assertEqual(self.cell.qdiscs(), before)
        self.assertFalse(self.cell.exists(self.ifb), "the IFB is still there")
        self.assertFalse(os.path.exists(self.state), "the state file is still there")

    def transfer(self, send_ns, recv_ns, recv_addr, port, warm=0.5, dur=2.5):
        """bit/s a TCP connection from send_ns to recv_addr delivers."""
        r = subprocess.Popen(["ip", "netns", "exec", recv_ns, sys.executable, "-c", RECV,
                              recv_addr, str(port), str(warm), str(dur)],
                             stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(r.stdout.readline().strip(), "ready")
            s = subprocess.Popen(["ip", "netns", "exec", send_ns, sys.executable, "-c", SEND,
                                  recv_addr, str(port), str(warm + dur + 5)])
            out = r.stdout.readline()
            r.wait(30)
            s.kill()
            s.wait()
        finally:
            if r.poll() is None:
                r.kill()
                r.wait()
        return json.loads(out)["bps"]

    # ---- cases ----------------------------------------------------------

    def test_rate_classes(self):
        c = self.cell
        before = c.qdiscs()
        a = self.actuator()
        self.ok(a, "start")
        self.ok(a, "set %s 2000000 1000000" % c.macs[0])
        # Below the floor: clamped, not refused.
        self.ok(a, "set %s 100000 0" % c.macs[1])
        eg, up = c.classes(), c.classes(self.ifb)
        self.assertEqual(eg["fa1:2"], 2e6)
        self.assertEqual(eg["fa1:3"], 256e3)
        self.assertGreaterEqual(eg["fa1:1"], 40e9)      # the default does not limit
        self.assertEqual(up["fa1:2"], 1e6)
        self.assertNotIn("fa1:3", up)                    # no uplink cap asked
        self.assertEqual(sorted(m for _, _, m, _ in c.filters("parent", "fa1:")), sorted(c.macs))
        self.assertEqual([m for _, _, m, _ in c.filters("parent", "fa1:", dev=self.ifb)],
                         [c.macs[0]])
        ingress = c.filters("ingress")
        self.assertEqual([m for _, _, m, _ in ingress], [c.macs[0]])
        self.assertIn("Redirect to device %s" % self.ifb, ingress[0][3])
        self.assertEqual(c.qdiscs()[0]["kind"], "htb")
        # A change of rate changes the class only.
        self.ok(a, "set %s 3000000 1000000" % c.macs[0])
        self.assertEqual(c.classes()["fa1:2"], 3e6)
        self.assertEqual(len(c.filters("ingress")), 1)
        self.ok(a, "stop")
        self.assert_clean(before)

    def test_rate_holds_tcp_to_cap(self):
        c = self.cell
        cap_down, cap_up = 4e6, 3e6
        a = self.actuator()
        self.ok(a, "start")
        self.ok(a, "set %s %d %d" % (c.macs[0], cap_down, cap_up))
        down = self.transfer(c.ap, c.stas[0], c.sta_addrs[0], 5001)
        free = self.transfer(c.ap, c.stas[1], c.sta_addrs[1], 5002)
        up = self.transfer(c.stas[0], c.ap, c.ap_addr, 5003)
        print("capped down %.2f Mbit/s (cap %.1f), up %.2f (cap %.1f); uncapped %.1f Mbit/s"
              % (down / 1e6, cap_down / 1e6, up / 1e6, cap_up / 1e6, free / 1e6))
        self.assertLessEqual(down, 1.15 * cap_down)
        self.assertGreater(down, 0.5 * cap_down)
        self.assertLessEqual(up, 1.15 * cap_up)
        self.assertGreater(up, 0.5 * cap_up)
        self.assertGreater(free, 10 * cap_down)
        self.ok(a, "stop")

    def restores_root(self, *root):
        c = self.cell
        if root:
            c.tc("qdisc", "add", "dev", c.dev, "root", *root)
        before = c.qdiscs()
        text = c.tc("qdisc", "show", "dev", c.dev).stdout
        a = self.actuator()
        self.ok(a, "start")
        self.ok(a, "set %s 2000000 2000000" % c.macs[0])
        self.assertEqual(c.qdiscs()[0]["kind"], "htb")
        self.ok(a, "stop")
        self.assert_clean(before)
        self.assertEqual(c.tc("qdisc", "show", "dev", c.dev).stdout, text)
        return before

    def test_stop_restores_default_root(self):
        before = self.restores_root()
        self.assertEqual(before[0]["handle"], "0:")

    def test_stop_restores_tbf_root(self):
        before = self.restores_root("tbf", "rate", "5mbit", "burst", "32k", "latency", "50ms")
        self.assertEqual(before[0]["kind"], "tbf")

    def test_stop_restores_pfifo_root(self):
        before = self.restores_root("handle", "37:", "pfifo", "limit", "37")
        self.assertEqual(before[0]["options"]["limit"], 37)

    def kept(self, kind):
        """An administrator's ingress/clsact qdisc and filters: ours come
        and go beside them."""
        c = self.cell
        c.tc("qdisc", "add", "dev", c.dev, kind)
        # At our first choice of priority: ours must take another.
        c.tc("filter", "add", "dev", c.dev, "ingress", "prio", "4001", "protocol", "ip",
             "u32", "match", "ip", "src", "10.9.9.9/32", "flowid", "1:1")
        if kind == "clsact":
            c.tc("filter", "add", "dev", c.dev, "egress", "prio", "7", "protocol", "ip",
                 "u32", "match", "ip", "dst", "10.9.9.8/32", "flowid", "1:1")
        before = c.qdiscs()
        filters = c.tc("filter", "show", "dev", c.dev, "ingress").stdout
        egress = c.tc("filter", "show", "dev", c.dev, "egress").stdout if kind == "clsact" else ""
        a = self.actuator()
        self.ok(a, "start")
        self.ok(a, "set %s 2000000 1000000" % c.macs[0])
        ours = [f for f in c.filters("ingress") if f[2] == c.macs[0]]
        self.assertEqual(len(ours), 1)
        self.assertEqual(ours[0][0], 4002)
        self.assertEqual(len(c.filters("ingress")), 2)
        self.ok(a, "stop")
        self.assert_clean(before)
        self.assertEqual(c.tc("filter", "show", "dev", c.dev, "ingress").stdout, filters)
        if kind == "clsact":
            self.assertEqual(c.tc("filter", "show", "dev", c.dev, "egress").stdout, egress)

    def test_ingress_kept(self):
        self.kept("ingress")

    def test_clsact_kept(self):
        self.kept("clsact")

    def test_crash_then_restore(self):
        c = self.cell
        before = c.qdiscs()
        a = self.actuator()
        self.ok(a, "start")
        self.ok(a, "set %s 2000000 1000000" % c.macs[0])
        self.ok(a, "set %s 3000000 0" % c.macs[1])
        self.assertEqual(a.crash(), 3)
        self.assertEqual(c.qdiscs()[0]["kind"], "htb")
        self.assertTrue(self.cell.exists(self.ifb))
        self.act("restore")
        self.assert_clean(before)
        # Idempotent: nothing recorded, nothing to do.
        self.act("restore")
        self.assert_clean(before)

    def test_crash_then_restore_admin_root(self):
        c = self.cell
        c.tc("qdisc", "add", "dev", c.dev, "root", "tbf", "rate", "5mbit", "burst", "32k",
             "latency", "50ms")
        c.tc("qdisc", "add", "dev", c.dev, "clsact")
        c.tc("filter", "add", "dev", c.dev, "ingress", "prio", "3", "protocol", "ip",
             "u32", "match", "ip", "src", "10.9.9.9/32", "flowid", "1:1")
        before = c.qdiscs()
        text = c.tc("qdisc", "show", "dev", c.dev).stdout
        filters = c.tc("filter", "show", "dev", c.dev, "ingress").stdout
        a = self.actuator()
        self.ok(a, "start")
        self.ok(a, "set %s 2000000 1000000" % c.macs[0])
        self.assertEqual(a.crash(), 3)
        self.act("restore")
        self.assert_clean(before)
        self.assertEqual(c.tc("qdisc", "show", "dev", c.dev).stdout, text)
        self.assertEqual(c.tc("filter", "show", "dev", c.dev, "ingress").stdout, filters)

    def test_classful_root_refused(self):
        c = self.cell
        c.tc("qdisc", "add", "dev", c.dev, "root", "handle", "1:", "htb", "default", "10")
        c.tc("class", "add", "dev", c.dev, "parent", "1:", "classid", "1:10", "htb",
             "rate", "1mbit")
        before = c.qdiscs()
        classes = c.classes()
        r = self.act("start", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn(REFUSED.format(dev=c.dev), r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertEqual(c.qdiscs(), before)
        self.assertEqual(c.classes(), classes)
        self.assertFalse(c.exists(self.ifb))
        self.assertFalse(os.path.exists(self.state))
        # The probe says the same, and changes nothing either.
        r = self.act("probe", check=False)
        self.assertIn(REFUSED.format(dev=c.dev), r.stderr)

    def test_forget_removes_station(self):
        c = self.cell
        a = self.actuator()
        self.ok(a, "start")
        for mac in c.macs:
            self.ok(a, "set %s 2000000 1000000" % mac)
        self.assertEqual(len(c.filters("ingress")), 2)
        self.ok(a, "forget %s" % c.macs[0])
        for where, dev in ((("parent", "fa1:"), None), (("parent", "fa1:"), self.ifb),
                           (("ingress",), None)):
            self.assertEqual([m for _, _, m, _ in c.filters(*where, dev=dev)], [c.macs[1]],
                             (where, dev))
        self.assertEqual(sorted(c.classes()), ["fa1:1", "fa1:3"])
        self.assertEqual(sorted(c.classes(self.ifb)), ["fa1:1", "fa1:3"])
        self.assertEqual([q["handle"] for q in c.qdiscs() if q["kind"] == "pfifo"], ["1003:"])
        # "No cap" in one direction drops that direction's entries only.
        self.ok(a, "set %s 0 1000000" % c.macs[1])
        self.assertEqual(sorted(c.classes()), ["fa1:1"])
        self.assertEqual(sorted(c.classes(self.ifb)), ["fa1:1", "fa1:3"])
        self.ok(a, "unset %s" % c.macs[1])
        self.assertEqual(c.filters("ingress"), [])
        self.assertEqual(sorted(c.classes(self.ifb)), ["fa1:1"])
        # Forgetting a station never set is no error; its slot is reused.
        self.ok(a, "forget 02:00:00:00:00:99")
        self.ok(a, "set %s 2000000 0" % c.macs[0])
        self.assertEqual(sorted(c.classes()), ["fa1:1", "fa1:2"])
        self.ok(a, "stop")

    def test_delay_probe_fails(self):
        c = self.cell
        before = c.qdiscs()
        links = c.sh("ip", "-br", "link").stdout
        r = self.act("probe", actuator="delay", check=False)
        self.assertEqual(c.sh("ip", "-br", "link").stdout, links)   # the throw-away IFB is gone
        self.assertEqual(c.qdiscs(), before)
        if r.returncode == 0:
            # A kernel with netem (the lab): the delay lands on the leaf.
            a = self.actuator("delay")
            self.ok(a, "start")
            self.ok(a, "delay %s 80000" % c.macs[0])
            netem = [q for q in c.qdiscs() if q["kind"] == "netem"]
            self.assertEqual(len(netem), 1)
            self.assertEqual(netem[0]["parent"], "fa1:2")
            self.ok(a, "stop")
            self.assert_clean(before)
            return
        self.assertEqual(r.returncode, 1)
        self.assertIn("delay: this kernel has no netem (sch_netem)", r.stderr)
        self.assertFalse(os.path.exists(self.state))

    def test_airtime_probe_fails(self):
        r = self.act("probe", actuator="airtime", check=False)
        self.assertEqual(r.returncode, 1)
        if os.path.exists("/sys/class/ieee80211"):
            # nl80211 there: a veth is no Wi-Fi interface.
            self.assertIn("airtime: %s is not a Wi-Fi interface" % self.cell.dev, r.stderr)
        else:
            self.assertIn("airtime: nl80211 not available", r.stderr)
        self.assertFalse(os.path.exists(self.state))

    def test_restore_after_interface_gone(self):
        c = self.cell
        a = self.actuator()
        self.ok(a, "start")
        self.ok(a, "set %s 2000000 1000000" % c.macs[0])
        self.assertEqual(a.crash(), 3)
        c.sh("ip", "link", "del", c.dev)
        self.act("restore")
        self.assertFalse(c.exists(self.ifb))
        self.assertFalse(os.path.exists(self.state))


if __name__ == "__main__":
    wftest.main(wftest.need_root)
