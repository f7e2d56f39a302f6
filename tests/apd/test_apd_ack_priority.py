#!/usr/bin/env python3
"""wlanfair-apd's ack-priority (apd/bpf/wlanfair-ack-priority.*) on a real
kernel path (root only); its bed (Bed) is download-demand's too
(test_apd_download_demand.py).

An AP namespace bridges one station port (veth) into br0 and serves TCP;
the built wlanfair-apd runs there (interface=br0,
stations-from=bridge-ports, actuator=none: it observes, ack-priority is
on in every mode). The station uploads and downloads through br0 while a
packet socket on its end of the veth records the DS field of every TCP
segment the AP sent:

- segments without payload (SYN-ACK, pure ACKs, FIN) leave as CS6, data
  as it was (best effort), IPv4 and IPv6; the transfer completing shows
  the IPv4 header checksum was mended (a bad one is dropped on receipt);
- a socket that set its own DSCP (CS1) keeps it;
- a stop removes the filter and the clsact qdisc apd created, and keeps a
  clsact that was there; after kill -9 the filter stays recorded and
  `wlanfair-apd --restore` removes it.

Exits 77 without root or the built program ($WLANFAIR_APD). One case per
process:  test_apd_ack_priority.py ApdAckPriorityTest.test_ipv4
Internal modes (run inside a namespace by the cases, for this file and
test_apd_download_demand.py): --serve, --probe.
"""
import json
import os
import select
import shutil
import signal
import socket
import struct
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
PORT = 5399
AP4, STA4 = "10.77.0.1", "10.77.0.2"
AP6, STA6 = "fd77::1", "fd77::2"
CS6, CS1 = 48, 8
UP_BYTES = 3 << 20
DOWN_BYTES = 1 << 20
ETH_P_ALL = 3
SO_MAX_PACING_RATE = 47


# ---- inside the namespaces ------------------------------------------------

def serve(port, tos, pace=0):
    """Accepts connections for ever: reads until EOF, then sends
    DOWN_BYTES and closes. tos: the DS field set on the listener (its
    accepted sockets inherit it), 0: none; pace: bytes/s of the download
    (TCP's own pacing), 0: none."""
    ls = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    if tos:
        ls.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        ls.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, tos)
    ls.bind(("::", port))
    ls.listen(4)
    print("listening", flush=True)
    while True:
        c, _ = ls.accept()
        while c.recv(65536):
            pass
        if pace:
            c.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, pace)
        c.sendall(b"d" * DOWN_BYTES)
        c.close()


def parse(frame, server):
    """(dscp, control) of a TCP segment from `server` (bytes), else None.
    control: no payload, or a SYN."""
    if len(frame) < 14:
        return None
    etype = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20 and ip[9] == 6 and ip[12:16] == server:
        hl = (ip[0] & 0xf) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        dscp, l4, l4len = ip[1] >> 2, ip[hl:], total - hl
    elif etype == 0x86DD and len(ip) >= 40 and ip[6] == 6 and ip[8:24] == server:
        tc = ((ip[0] & 0xf) << 4) | (ip[1] >> 4)
        dscp, l4, l4len = tc >> 2, ip[40:], struct.unpack("!H", ip[4:6])[0]
    else:
        return None
    if len(l4) < 14:
        return None
    doff = (l4[12] >> 4) * 4
    return dscp, doff >= l4len or bool(l4[13] & 0x02)


def probe(dev, server_addr):
    """Uploads UP_BYTES, reads the download, and prints as JSON what the
    packet socket on dev saw of the server's segments: DSCP -> count for
    control segments and for data."""
    family = socket.AF_INET6 if ":" in server_addr else socket.AF_INET
    server = socket.inet_pton(family, server_addr)
    cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    cap.bind((dev, 0))
    cap.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    seen = {"control": {}, "data": {}}
    frames = []

    def drain():
        while select.select([cap], [], [], 0)[0]:
            data, addr = cap.recvfrom(65535)
            if addr[2] != socket.PACKET_OUTGOING:
                frames.append(data[:120])

    s = socket.create_connection((server_addr, PORT), timeout=20)
    chunk = b"u" * 65536
    sent = 0
    while sent < UP_BYTES:
        sent += s.send(chunk[:min(len(chunk), UP_BYTES - sent)])
        drain()
    s.shutdown(socket.SHUT_WR)
    got = 0
    while True:
        b = s.recv(65536)
        drain()
        if not b:
            break
        got += len(b)
    s.close()
    time.sleep(0.2)
    drain()
    for f in frames:
        r = parse(f, server)
        if r:
            kind = "control" if r[1] else "data"
            seen[kind][str(r[0])] = seen[kind].get(str(r[0]), 0) + 1
    seen["downloaded"] = got
    print(json.dumps(seen))


# ---- the cases -------------------------------------------------------------

class Bed(unittest.TestCase):
    """The AP and station namespaces, the server, the daemon."""
    def setUp(self):
        p = "wfap%d" % os.getpid()
        self.ap, self.sta = p + "a", p + "s"
        self.dir = tempfile.mkdtemp(prefix="wf-ackprio-")
        self.state = os.path.join(self.dir, "state")
        self.status = os.path.join(self.dir, "status.json")
        self.empty = os.path.join(self.dir, "empty.conf")
        open(self.empty, "w").close()
        self.server = self.apd = self.log = None
        self.addCleanup(self.cleanup)
        run("ip", "netns", "add", self.ap)
        run("ip", "netns", "add", self.sta)
        run("ip", "-n", self.ap, "link", "add", "br0", "type", "bridge", "stp_state", "0")
        run("ip", "-n", self.ap, "link", "add", "p1", "type", "veth", "peer", "name", "wl0",
            "netns", self.sta)
        run("ip", "-n", self.ap, "link", "set", "p1", "master", "br0", "up")
        for ns, dev, a4, a6 in ((self.ap, "br0", AP4, AP6), (self.sta, "wl0", STA4, STA6)):
            run("ip", "-n", ns, "addr", "add", a4 + "/24", "dev", dev)
            run("ip", "-n", ns, "addr", "add", a6 + "/64", "dev", dev, "nodad")
            run("ip", "-n", ns, "link", "set", dev, "up")
            run("ip", "-n", ns, "link", "set", "lo", "up")
            # Frames as they are on the air, not coalesced (GRO) or
            # segmented late (TSO): one segment per frame.
            run("ip", "netns", "exec", ns, "ethtool", "-K", "p1" if ns == self.ap else dev,
                "tso", "off", "gso", "off", "gro", "off", check=False)

    def cleanup(self):
        for p in (self.apd, self.server):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        if self.server:
            self.server.stdout.close()
        if self.log:
            self.log.close()
        for ns in (self.ap, self.sta):
            run("ip", "netns", "del", ns, check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def sh(self, ns, *args, **kw):
        return run("ip", "netns", "exec", ns, *args, **kw)

    def start_server(self, tos=0, pace=0):
        self.server = subprocess.Popen(
            ["ip", "netns", "exec", self.ap, sys.executable, __file__, "--serve", str(PORT),
             str(tos), str(pace)], stdout=subprocess.PIPE, text=True)
        self.assertEqual(self.server.stdout.readline().strip(), "listening")

    def start_apd(self, *extra, wrap=(), own=("-o", "ack-priority=yes"), ready="(voice)"):
        if os.path.exists(self.status):   # a killed run's
            os.unlink(self.status)
        if self.log:
            self.log.close()
        self.log = open(os.path.join(self.dir, "apd.log"), "w")
        self.apd = subprocess.Popen(
            ["ip", "netns", "exec", self.ap, *wrap, APD, "-c", self.empty, "-o", "interface=br0",
             "-o", "stations-from=bridge-ports", "-o", "actuator=none",
             *own, "-o", "state=" + self.state,
             "-o", "status=" + self.status, "-o", "textfile-dir=", *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.apd.poll() is not None:
                self.fail("wlanfair-apd exited %d: %s" % (self.apd.returncode, self.apd_log()))
            # Attached (logged) and a first round written.
            if ready in self.apd_log() and os.path.exists(self.status):
                return
            time.sleep(0.1)
        self.fail("no %r in the log after 15 s: %s" % (ready, self.apd_log()))

    def apd_log(self):
        with open(os.path.join(self.dir, "apd.log")) as f:
            return f.read()

    def filters(self, handle="0xfa2"):
        """Our filters on br0's egress (ack-priority's handle 0xfa2,
        download-demand's 0xfa3)."""
        out = self.sh(self.ap, "tc", "filter", "show", "dev", "br0", "egress",
                      check=False).stdout
        return out.count("handle " + handle)

    def has_clsact(self):
        return "clsact" in self.sh(self.ap, "tc", "qdisc", "show", "dev", "br0").stdout

    def probe(self, addr):
        r = self.sh(self.sta, sys.executable, __file__, "--probe", "wl0", addr, timeout=60)
        seen = json.loads(r.stdout)
        print(addr, json.dumps(seen))
        self.assertEqual(seen["downloaded"], DOWN_BYTES)
        return seen

    def stop_apd(self):
        self.apd.send_signal(signal.SIGTERM)
        self.assertEqual(self.apd.wait(20), 0, self.apd_log())



class ApdAckPriorityTest(Bed):
    def marks(self, addr):
        self.start_server()
        self.start_apd()
        seen = self.probe(addr)
        control, data = seen["control"], seen["data"]
        # SYN-ACK, the ACKs of 3 MiB upload and a FIN at least.
        self.assertGreater(control.get(str(CS6), 0), 20, seen)
        self.assertEqual(set(control), {str(CS6)}, seen)
        self.assertGreater(data.get("0", 0), 500, seen)
        self.assertEqual(set(data), {"0"}, seen)
        # The status counts what was marked (read after the next round).
        time.sleep(1.5)
        with open(self.status) as f:
            st = json.load(f)
        self.assertGreaterEqual(st["ack_priority"]["marked_packets"], control[str(CS6)], st)
        self.assertEqual(st["ack_priority"]["kept_packets"], 0, st)
        self.stop_apd()

    def test_ipv4(self):
        self.marks(AP4)

    def test_ipv6(self):
        self.marks(AP6)

    def test_own_dscp_kept(self):
        """A socket's own DSCP (CS1 here) is left alone and counted."""
        self.start_server(tos=CS1 << 2)
        self.start_apd()
        seen = self.probe(AP4)
        self.assertEqual(set(seen["control"]), {str(CS1)}, seen)
        self.assertEqual(set(seen["data"]), {str(CS1)}, seen)
        time.sleep(1.5)
        with open(self.status) as f:
            st = json.load(f)
        self.assertEqual(st["ack_priority"]["marked_packets"], 0, st)
        self.assertGreaterEqual(st["ack_priority"]["kept_packets"], seen["control"][str(CS1)])
        self.stop_apd()

    def test_unit_privileges(self):
        """As the unit runs it (a user with CAP_NET_ADMIN, CAP_NET_RAW and
        CAP_BPF, ambient): the program loads and attaches, CAP_BPF is kept,
        the segments are re-marked, a stop removes it all."""
        if not shutil.which("setpriv"):
            self.skipTest("needs setpriv")
        os.chmod(self.dir, 0o777)
        self.start_server()
        # `ip netns exec` and setpriv exec into the daemon: same pid.
        self.start_apd(wrap=("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                             "--inh-caps=+net_admin,+net_raw,+bpf",
                             "--ambient-caps=+net_admin,+net_raw,+bpf"))
        with open("/proc/%d/status" % self.apd.pid) as f:
            caps = {k: int(v, 16) for k, v in
                    (line.split(":\t") for line in f if line.startswith("Cap"))}
        self.assertTrue(caps["CapEff"] & (1 << 39), caps)
        self.assertTrue(caps["CapEff"] & (1 << 12), caps)
        self.assertFalse(caps["CapEff"] & (1 << 21), caps)   # no CAP_SYS_ADMIN
        self.assertNotIn("dropped CAP_BPF", self.apd_log())
        seen = self.probe(AP4)
        self.assertEqual(set(seen["control"]), {str(CS6)}, seen)
        self.stop_apd()
        self.assertEqual(self.filters(), 0)
        self.assertFalse(self.has_clsact())

    def test_testbed_voice_leaf(self):
        """In the emulated BSS (testbed, wlanfair-testbed --ap-exec)
        the AP's re-marked ACKs take its voice leaf: one upload and one
        download for 4 s; the upload's ACKs leave as voice, the download's
        data as best effort, the download station's own ACKs unmarked."""
        import testbed  # testbed/, on the path through wftest
        if not shutil.which("iperf3"):
            self.skipTest("needs iperf3")
        d = self.dir
        cmd = " ".join([APD, "-c", self.empty, "-o", "interface=br0",
                        "-o", "stations-from=bridge-ports", "-o", "actuator=none",
                        "-o", "ack-priority=yes", "-o", "state=%s/tb-state" % d,
                        "-o", "status=%s/tb-status.json" % d, "-o", "textfile-dir="])
        cfg = testbed.Config(up=1, down=1, duration=4, capacity=10e6, cc="cubic",
                             prefix="wfav%d-" % os.getpid(), out_dir=d, name="voice",
                             ap_exec=cmd, ap_exec_ready=d + "/tb-status.json")
        s = testbed.run(cfg, log=lambda *a: None)
        ap, down_sta = s["tc"]["ap"], s["tc"]["sta2"]
        print("AP sent %d packets, %d as voice; station 2 voice %d" % (
            ap["sent_packets"], ap["voice"]["sent_packets"], down_sta["voice"]["sent_packets"]))
        self.assertEqual(s["params"]["ap_exec_exit"], 0)
        self.assertGreater(ap["voice"]["sent_packets"], 100)
        self.assertGreater(ap["sent_packets"] - ap["voice"]["sent_packets"], 300)
        self.assertEqual(down_sta["voice"]["sent_packets"], 0)
        self.assertEqual(testbed.list_namespaces(cfg.prefix), [])

    def test_stop_removes(self):
        self.start_apd()
        self.assertTrue(self.has_clsact())
        self.stop_apd()
        self.assertEqual(self.filters(), 0)
        self.assertFalse(self.has_clsact())
        self.assertFalse(os.path.exists(self.state))
        self.assertIn("ack-priority on br0: removed", self.apd_log())

    def test_clsact_kept(self):
        """A clsact qdisc that was there stays (with its own filter)."""
        self.sh(self.ap, "tc", "qdisc", "add", "dev", "br0", "clsact")
        self.sh(self.ap, "tc", "filter", "add", "dev", "br0", "egress", "prio", "7",
                "u32", "match", "u32", "0", "0", "flowid", "1:1")
        self.start_apd()
        self.stop_apd()
        self.assertEqual(self.filters(), 0)
        self.assertTrue(self.has_clsact())
        self.assertIn("u32", self.sh(self.ap, "tc", "filter", "show", "dev", "br0",
                                          "egress").stdout)

    def test_kill9_then_restore(self):
        self.start_apd()
        self.apd.kill()
        self.apd.wait()
        self.assertEqual(self.filters(), 1)
        with open(self.state) as f:
            self.assertIn("[ack-priority:br0]", f.read())
        r = self.sh(self.ap, APD, "-c", self.empty, "-o", "state=" + self.state,
                    "-o", "status=", "-o", "textfile-dir=", "--restore", check=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.filters(), 0)
        self.assertFalse(self.has_clsact())
        self.assertFalse(os.path.exists(self.state))

    def test_kill9_then_restart(self):
        """The next start removes the crashed run's filter first, then
        attaches its own: one filter, not two, and no error."""
        self.start_apd()
        self.apd.kill()
        self.apd.wait()
        self.start_apd()
        self.assertEqual(self.filters(), 1)
        self.assertIn("restored what an earlier instance changed", self.apd_log())
        self.stop_apd()
        self.assertEqual(self.filters(), 0)


def requires(names):
    if os.geteuid() != 0:
        return "needs root"
    if not APD or not os.access(APD, os.X_OK):
        return "$WLANFAIR_APD is not the built wlanfair-apd"
    return None


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        sys.exit(0)
    if len(sys.argv) >= 2 and sys.argv[1] == "--probe":
        probe(sys.argv[2], sys.argv[3])
        sys.exit(0)
    wftest.main(requires)
