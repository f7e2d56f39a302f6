#!/usr/bin/env python3
"""wlanfair-apd on an access point that bridges (root only).

The AP namespace bridges the station links (veth, one per station) and
its uplink into br0, as hostapd's bridge= or OpenWrt's dumb AP do; a
router namespace on the uplink is the stations' gateway. The built
wlanfair-reportd runs in every station namespace with its defaults (to
the default gateway, the router) and the shared key; wlanfair-apd runs
in the AP namespace (interface=br0, stations-from=bridge-ports) and must
read every station's report in transit (path "carried") and control,
(the uplink port is a "station" too in this emulation, the router, with
no report),
while the router still receives every report and sees nothing of its own
changed. A case where the AP is the gateway checks that a report is
counted once (addressed, never also carried).

Exits 77 (skip) without root or the built programs ($WLANFAIR_APD,
$WLANFAIR_REPORTD). One case per process:
    test_apd_bridged.py ApdBridgedTest.test_carried_ipv4
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.dont_write_bytecode = True
# The shared helpers (testlib/wftest.py; it puts testbed/ on the path too).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))), "testlib"))
import wftest  # noqa: E402
from wftest import run  # noqa: E402

APD = os.environ.get("WLANFAIR_APD", "")
REPORTD = os.environ.get("WLANFAIR_REPORTD", "")
CTL = os.environ.get("WLANFAIRCTL", "")
KEY = b"apd-bridged-key-0123456789abcdef0123"
PORT = 7455
STATIONS = 2
ROUTER4, AP4 = "10.77.0.1", "10.77.0.2"
ROUTER6_LL = "fe80::1"
BR_MAC = "02:77:00:00:00:fe"     # not any port's: every port sees frames to it as OTHERHOST

# Counts every report datagram by source, in the router namespace.
SINK = r"""
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", int(sys.argv[1])))
print("ready", flush=True)
while True:
    data, addr = s.recvfrom(65536)
    print(addr[0], len(data), flush=True)
"""


def sta_ip4(i):
    return "10.77.0.%d" % (10 + i)


class ApdBridgedTest(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root (network namespaces, tc)")
        for tool in ("tc", "ip", "bridge"):
            if shutil.which(tool) is None:
                self.skipTest("%s is not installed" % tool)
        for var, path in (("WLANFAIR_APD", APD), ("WLANFAIR_REPORTD", REPORTD)):
            if not path or not os.access(path, os.X_OK):
                self.skipTest("$%s: no built program (%r)" % (var, path))
        self.tmp = tempfile.mkdtemp(prefix="wfapdbr-")
        self.procs = []
        self.logs = []
        self.apd = None
        self.reporters = []
        p = "wfbr%d-" % os.getpid()
        self.router, self.ap = p + "r", p + "ap"
        self.sta = [p + "s%d" % i for i in range(1, STATIONS + 1)]
        self.spaces = []
        self.key = os.path.join(self.tmp, "report.key")
        fd = os.open(self.key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, KEY + b"\n")
        os.close(fd)
        self.empty = os.path.join(self.tmp, "empty.conf")
        open(self.empty, "w").close()
        self.status_path = os.path.join(self.tmp, "status.json")
        self.prom_dir = os.path.join(self.tmp, "prom")
        os.mkdir(self.prom_dir)

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for ns in self.spaces:
            run("ip", "netns", "del", ns, check=False)
        for path in self.logs:
            with open(path, errors="replace") as f:
                lines = f.read().splitlines()
            print("--- %s (last 30 lines)" % os.path.basename(path))
            print("\n".join(lines[-30:]))
        shutil.rmtree(self.tmp, ignore_errors=True)

    # --- the network -----------------------------------------------------------

    def ns(self, ns, *args, **kw):
        return run("ip", "netns", "exec", ns, *args, **kw)

    def build(self, family):
        """Router -- uplink -- [AP: br0 = uplink + station ports] -- stations.
        family 4: IPv4 only, 6: IPv6 only (the router's link-local address
        as gateway, as routers advertise it)."""
        for ns in [self.router, self.ap] + self.sta:
            run("ip", "netns", "add", ns)
            self.spaces.append(ns)
            self.ns(ns, "sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0")
            self.ns(ns, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0")
            run("ip", "-n", ns, "link", "set", "lo", "up")
        run("ip", "-n", self.ap, "link", "add", "br0", "type", "bridge", "stp_state", "0")
        run("ip", "-n", self.ap, "link", "set", "br0", "address", BR_MAC)
        run("ip", "link", "add", "eth0", "netns", self.router, "type", "veth",
            "peer", "name", "up0", "netns", self.ap)
        run("ip", "-n", self.ap, "link", "set", "up0", "master", "br0", "up")
        run("ip", "-n", self.router, "link", "set", "eth0", "up")
        for i, ns in enumerate(self.sta, 1):
            run("ip", "link", "add", "wlan0", "netns", ns, "type", "veth",
                "peer", "name", "p%d" % i, "netns", self.ap)
            run("ip", "-n", self.ap, "link", "set", "p%d" % i, "master", "br0", "up")
            run("ip", "-n", ns, "link", "set", "wlan0", "up")
        run("ip", "-n", self.ap, "link", "set", "br0", "up")
        # The AP's management address (a dumb AP has one): not the gateway.
        run("ip", "-n", self.ap, "addr", "add", AP4 + "/24", "dev", "br0")
        if family == 4:
            run("ip", "-n", self.router, "addr", "add", ROUTER4 + "/24", "dev", "eth0")
            for i, ns in enumerate(self.sta, 1):
                run("ip", "-n", ns, "addr", "add", sta_ip4(i) + "/24", "dev", "wlan0")
                run("ip", "-n", ns, "route", "add", "default", "via", ROUTER4)
        else:
            run("ip", "-n", self.router, "addr", "add", ROUTER6_LL + "/64", "dev", "eth0",
                "nodad")
            run("ip", "-n", self.router, "addr", "add", "fd77::1/64", "dev", "eth0", "nodad")
            for i, ns in enumerate(self.sta, 1):
                run("ip", "-n", ns, "addr", "add", "fd77::%x/64" % (0x10 + i), "dev", "wlan0",
                    "nodad")
                run("ip", "-n", ns, "-6", "route", "add", "default", "via", ROUTER6_LL,
                    "dev", "wlan0")
        self.macs = [json.loads(run("ip", "-n", ns, "-j", "link", "show", "wlan0").stdout)
                     [0]["address"] for ns in self.sta]

    def snapshot(self, ns):
        """What another program could change in ns: qdiscs, addresses,
        routes (lifetimes left out)."""
        def j(*args):
            return json.loads(run("ip", "-n", ns, "-j", *args).stdout or "[]")
        addrs = j("addr", "show")
        for link in addrs:
            for a in link.get("addr_info", []):
                for k in [k for k in a if "life" in k]:
                    del a[k]
            link.pop("stats64", None)
        qd = json.loads(run("tc", "-n", ns, "-j", "qdisc", "show").stdout or "[]")
        return {"addrs": addrs, "routes4": j("-4", "route", "show", "table", "all"),
                "routes6": j("-6", "route", "show", "table", "all"), "qdiscs": qd}

    # --- programs --------------------------------------------------------------

    def spawn(self, ns, args, log=None, stdout=None):
        env = {k: v for k, v in os.environ.items() if k != "CREDENTIALS_DIRECTORY"}
        out = open(log, "w") if log else subprocess.DEVNULL
        if log:
            self.logs.append(log)
        try:
            p = subprocess.Popen(["ip", "netns", "exec", ns] + args, stdin=subprocess.DEVNULL,
                                 stdout=stdout or out, stderr=out if log else subprocess.DEVNULL,
                                 env=env, text=True)
        finally:
            if log:
                out.close()
        self.procs.append(p)
        return p

    def start_sink(self):
        self.sink = self.spawn(self.router, [sys.executable, "-c", SINK, str(PORT)],
                               stdout=subprocess.PIPE)
        self.assertEqual(self.sink.stdout.readline().strip(), "ready")

    def sink_lines(self):
        """Stops the sink; what it received, one (source, size) per report."""
        self.sink.send_signal(signal.SIGTERM)
        out, _ = self.sink.communicate(timeout=10)
        return [line.split() for line in out.splitlines() if line.strip()]

    def start_reporters(self, destination=None):
        """wlanfair-reportd on every station with its defaults: to the
        default gateway, on the report port, signed with the shared key."""
        for i, ns in enumerate(self.sta, 1):
            mid = os.path.join(self.tmp, "machine-id-%d" % i)
            with open(mid, "w") as f:
                f.write("%032x\n" % (0x7700 + i))
            args = [REPORTD, "--config", self.empty, "--machine-id", mid, "-i", "wlan0",
                    "--key", self.key, "--socket", "none", "--textfile-dir", "none"]
            if destination:
                args += ["--destination", destination]
            self.reporters.append(self.spawn(ns, args,
                                             os.path.join(self.tmp, "reportd-%d.log" % i)))

    def start_apd(self, *settings):
        args = [APD, "-c", self.empty, "-o", "interface=br0", "-o", "stations-from=bridge-ports",
                "-o", "status=" + self.status_path,
                "-o", "state=" + os.path.join(self.tmp, "state"),
                "-o", "textfile-dir=" + self.prom_dir, "-o", "key=" + self.key]
        for s in settings:
            args += ["-o", s]
        self.apd_log = os.path.join(self.tmp, "apd.log")
        self.apd = self.spawn(self.ap, args, self.apd_log)

    def stop_reporters(self):
        for p in self.reporters:
            p.send_signal(signal.SIGTERM)
        for p in self.reporters:
            p.wait(timeout=10)

    def wait_for_status(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while self.status() is None:
            self.assertIsNone(self.apd.poll(), "wlanfair-apd exited")
            self.assertLess(time.monotonic(), deadline, "no status file")
            time.sleep(0.1)

    def stop_apd(self):
        self.apd.send_signal(signal.SIGTERM)
        self.assertEqual(self.apd.wait(timeout=20), 0)

    def status(self):
        try:
            with open(self.status_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def station(self, st, mac):
        return next((s for s in st.get("stations", []) if s["mac"] == mac), None)

    def wait_all(self, path, timeout=25.0):
        """Until the daemon controls and every station's report is in,
        trusted, by `path`; that status."""
        def good(st):
            if st.get("mode") != "control":
                return False
            for mac in self.macs:
                s = self.station(st, mac)
                if not (s and s.get("reporting") and s.get("trusted")
                        and s.get("report_path") == path):
                    return False
            return True
        deadline = time.monotonic() + timeout
        st = None
        while time.monotonic() < deadline:
            if self.apd.poll() is not None:
                self.fail("wlanfair-apd exited %d" % self.apd.returncode)
            st = self.status()
            if st and good(st):
                return st
            time.sleep(0.2)
        self.fail("not every station reporting by %s in control within %g s: %s"
                  % (path, timeout, json.dumps(st, indent=1)[:3000]))

    # --- the cases ---------------------------------------------------------------

    def carried(self, family):
        self.build(family)
        self.start_sink()
        before = self.snapshot(self.router)
        # The controller first and the reporters stopped before the last
        # look: then it must have taken exactly what reached the router.
        self.start_apd()
        self.wait_for_status()
        self.start_reporters()
        self.wait_all("carried")
        during = self.snapshot(self.router)
        time.sleep(2)
        self.stop_reporters()
        time.sleep(1.5)                  # a round after the last report
        st = self.status()
        reports = st["reports"]
        print(json.dumps(reports, indent=1))
        self.assertTrue(reports["carried"]["enabled"], reports["carried"])
        self.assertGreaterEqual(reports["accepted_by_path"]["carried"], 2 * STATIONS)
        self.assertEqual(reports["accepted_by_path"]["addressed"], 0)
        self.assertEqual(reports["accepted"], reports["accepted_by_path"]["carried"])
        self.assertEqual(sum(reports["rejected"].values()), 0, reports)
        # The textfile says it by path, the CLI per station.
        with open(os.path.join(self.prom_dir, "wlanfair-ap.prom")) as f:
            prom = f.read()
        self.assertIn('wlanfair_ap_reports_accepted_total{path="carried"} %d'
                      % reports["accepted_by_path"]["carried"], prom)
        if CTL:
            out = run(CTL, "ap", "status", "--status", self.status_path).stdout
            print(out)
            self.assertIn("carried     on", out)
            for mac in self.macs:
                line = next(l for l in out.splitlines() if l.startswith(mac))
                self.assertIn(" carried ", line)
        self.stop_apd()
        after = self.snapshot(self.router)
        self.assertEqual(before, during, "the router's qdiscs/addresses/routes changed")
        self.assertEqual(before, after, "the router's qdiscs/addresses/routes changed")
        # Every report still reached the router, from every station, and
        # the controller took each of them once.
        got = self.sink_lines()
        per_src = {}
        for src, _ in got:
            per_src[src] = per_src.get(src, 0) + 1
        print("router received %d reports: %s" % (len(got), per_src))
        self.assertEqual(len(per_src), STATIONS, per_src)
        self.assertEqual(len(got), reports["accepted_by_path"]["carried"])

    def test_carried_ipv4(self):
        """IPv4: the stations send to the router through the bridge; the
        controller reads every report in transit and controls."""
        self.carried(4)

    def test_carried_ipv6(self):
        """IPv6, the router's link-local address as gateway (the source is
        the station's link-local address, which the bridging AP knows from
        no neighbour table: the frame's source MAC names the station)."""
        self.carried(6)

    def test_gateway_counted_once(self):
        """The AP is the gateway: the frames still cross its bridge ports
        (as another host's: br0 has a MAC of its own) but are left to the
        UDP socket. Every report is accepted once, addressed."""
        self.build(4)
        for ns in self.sta:
            run("ip", "-n", ns, "route", "replace", "default", "via", AP4)
        self.start_reporters()
        self.start_apd()
        self.wait_all("addressed")
        time.sleep(2)
        reports = self.status()["reports"]
        print(json.dumps(reports, indent=1))
        self.assertTrue(reports["carried"]["enabled"], reports["carried"])
        self.assertEqual(reports["accepted_by_path"]["carried"], 0)
        self.assertGreaterEqual(reports["accepted_by_path"]["addressed"], 2 * STATIONS)
        self.assertEqual(sum(reports["rejected"].values()), 0, reports)
        # Seen in transit and left alone: the dedup was exercised.
        self.assertGreater(reports["carried"]["addressed_here"], 0)
        self.stop_apd()

    def test_carried_off(self):
        """carried-reports=no: the bridged cell's reports are not read (the
        controller fails open, waiting for one), nothing is counted."""
        self.build(4)
        self.start_reporters()
        self.start_apd("carried-reports=no")
        time.sleep(4)
        st = self.status()
        self.assertIsNotNone(st)
        self.assertFalse(st["reports"]["carried"]["enabled"])
        self.assertEqual(st["reports"]["accepted"], 0)
        self.assertEqual(st["mode"], "fail-open")
        self.stop_apd()


if __name__ == "__main__":
    wftest.main()
