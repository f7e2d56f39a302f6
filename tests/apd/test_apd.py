#!/usr/bin/env python3
"""wlanfair-apd in the emulated BSS of testbed/ (root only).

Each case builds its own testbed (namespaces <prefix>srv, ap, sta1..N with
a prefix of its own), runs the built wlanfair-reportd in every station
namespace (signed with a key file, one machine id per station, so that the
stations are distinct hosts), iperf3 flows through the emulated medium,
and the built wlanfair-apd in the AP namespace with interface=br0,
stations-from=bridge-ports: every port of the AP's bridge is a station,
and the rate actuator shapes on br0's root (downloads, ahead of the
medium) and on an IFB fed from br0's ingress (uploads).

Exits 77 (skip) without root, iperf3, or the built programs
($WLANFAIR_APD, $WLANFAIR_REPORTD, $WF_REPORT_SEND). One case per process:
    test_apd.py ApdTest.test_controlled_upload
Figures (the Jain index and totals each case measured) are printed; the
thresholds are explained at the top of the class and in
testbed/README.md.
"""
import collections
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.dont_write_bytecode = True          # no __pycache__ in the source tree
# The shared helpers (testlib/wftest.py; it puts testbed/ on the path too).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))), "testlib"))
import wftest  # noqa: E402
from wftest import jain  # noqa: E402
import testbed  # noqa: E402
from testbed_results import read_intervals, rebin  # noqa: E402

APD = os.environ.get("WLANFAIR_APD", "")
REPORTD = os.environ.get("WLANFAIR_REPORTD", "")
SEND = os.environ.get("WF_REPORT_SEND", "")
KEY = b"apd-integration-key-0123456789abcdef"
WRONG_KEY = b"not-the-apd-key-0123456789abcdef"
REPORT_PORT = 7455
FAR_COST = 4         # the far station's frames cost 4 near frames of airtime

# Controlled cases: WARM_S of uncontrolled traffic (the cell's airtime, the
# uncontrolled figures), then the controller; it has CONVERGE_S to make the
# stations fair, then the figures are taken over CHECK_S.
WARM_S = 5
CONVERGE_S = 10
CHECK_S = 5
TARGET_JAIN = 0.97   # what the brief asks of the controlled cell
TOTAL_OF_BOUND = 0.95
PER_SECOND_JAIN = 0.90
MAX_DECISION_LINES = 6   # per station over CONVERGE_S + CHECK_S rounds


class ApdTest(unittest.TestCase):
    """The daemon against the emulated medium: fairness, restore, fail-open,
    forged reports, observe-only mode."""

    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root (network namespaces, tc)")
        for tool in ("iperf3", "tc", "ip"):
            if shutil.which(tool) is None:
                self.skipTest("%s is not installed" % tool)
        for var, path in (("WLANFAIR_APD", APD), ("WLANFAIR_REPORTD", REPORTD),
                          ("WF_REPORT_SEND", SEND)):
            if not path or not os.access(path, os.X_OK):
                self.skipTest("$%s: no built program (%r)" % (var, path))
        self.tmp = tempfile.mkdtemp(prefix="wfapd-")
        self.key = self.secret("report.key", KEY)
        self.procs = []
        self.reporters = []
        self.apd_proc = None
        self.apd_logs = []
        self.tb = None
        self.status_path = os.path.join(self.tmp, "status.json")
        self.state_path = os.path.join(self.tmp, "state")
        self.empty_conf = os.path.join(self.tmp, "empty.conf")
        with open(self.empty_conf, "w") as f:
            f.write("")
        self.rounds = []     # status files seen, one per round: (monotonic, status)

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if self.tb:
            self.tb.teardown()
        for path in self.apd_logs:
            with open(path, errors="replace") as f:
                lines = f.read().splitlines()
            print("--- %s (last 40 lines)" % os.path.basename(path))
            print("\n".join(lines[-40:]))
        shutil.rmtree(self.tmp, ignore_errors=True)

    # --- the cell ------------------------------------------------------------

    def secret(self, name, data):
        path = os.path.join(self.tmp, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, data + b"\n")
        os.close(fd)
        return path

    def build(self, stations=2, far=None):
        cfg = testbed.Config(up=stations, down=0, far=far or {}, duration=60,
                             prefix="wfapd%d-" % os.getpid())
        self.tb = testbed.Testbed(cfg)
        self.tb.setup()
        self.macs = [self.tb._mac(ns, "wlan0") for ns in self.tb.sta]
        return self.tb

    def spawn(self, ns, args, log=None):
        out = open(log, "w") if log else subprocess.DEVNULL
        # No key but the one given (wlanfair-apd reads
        # $CREDENTIALS_DIRECTORY/apd.key when key= is unset).
        env = {k: v for k, v in os.environ.items() if k != "CREDENTIALS_DIRECTORY"}
        try:
            p = subprocess.Popen(testbed.nsexec(ns, args), stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=subprocess.STDOUT if log else
                                 subprocess.DEVNULL, env=env)
        finally:
            if log:
                out.close()
        self.procs.append(p)
        return p

    def stop(self, p, sig=signal.SIGTERM, timeout=10):
        """Signal p and wait for it; its exit status."""
        if p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                raise AssertionError("%s did not exit within %d s of signal %d"
                                     % (p.args[3:4], timeout, sig))
        return p.returncode

    def start_reporters(self, key=True):
        """wlanfair-reportd on every station: reports each second to the
        AP's br0 address, signed (key) or not."""
        self.reporters = []
        for i, ns in enumerate(self.tb.sta, 1):
            mid = os.path.join(self.tmp, "machine-id-%d" % i)
            with open(mid, "w") as f:
                f.write("%032x\n" % (0x5a00 + i))
            args = [REPORTD, "--config", self.empty_conf, "--machine-id", mid,
                    "-i", "wlan0", "--destination",
                    "%s:%d" % (testbed.AP_WLAN_IP, REPORT_PORT),
                    "--socket", "none", "--textfile-dir", "none"]
            if key:
                args += ["--key", self.key]
            self.reporters.append(self.spawn(ns, args, os.path.join(self.tmp,
                                                                    "reportd-%d.log" % i)))

    def stop_reporters(self):
        for p in self.reporters:
            self.stop(p)

    def start_apd(self, *settings, key=True, name="apd"):
        """wlanfair-apd in the AP namespace on br0's ports; settings are
        extra KEY=VALUE (-o)."""
        args = [APD, "-c", self.empty_conf, "-o", "interface=br0",
                "-o", "stations-from=bridge-ports", "-o", "status=" + self.status_path,
                "-o", "state=" + self.state_path, "-o", "textfile-dir=none"]
        if key:
            args += ["-o", "key=" + self.key]
        for s in settings:
            args += ["-o", s]
        log = os.path.join(self.tmp, "%s-%d.log" % (name, len(self.apd_logs)))
        self.apd_logs.append(log)
        self.apd_proc = self.spawn(self.tb.ap, args, log)
        return self.apd_proc

    def apd_log(self):
        with open(self.apd_logs[-1], errors="replace") as f:
            return f.read()

    def restore(self):
        r = subprocess.run(testbed.nsexec(self.tb.ap, [
            APD, "-c", self.empty_conf, "-o", "state=" + self.state_path, "--restore"]),
            capture_output=True, text=True, timeout=30)
        return r

    # --- traffic ---------------------------------------------------------------

    def start_traffic(self, flows, seconds):
        """flows: (station, 'up' | 'down', parallel streams). One iperf3
        pair per entry; returns them with the common start time t0."""
        tb = self.tb
        out = []
        for n, (station, direction, parallel) in enumerate(flows):
            port = testbed.BASE_PORT + n
            stem = os.path.join(self.tmp, "iperf-%d" % n)
            srv = self.spawn(tb.srv, ["iperf3", "-s", "-1", "-B", testbed.SRV_IP,
                                      "-p", str(port), "--json"], stem + ".server.json")
            out.append({"station": station, "direction": direction, "parallel": parallel,
                        "port": port, "stem": stem, "server": srv})
        testbed.wait_listening(tb, [f["port"] for f in out])
        t0 = time.monotonic()
        for f in out:
            args = ["iperf3", "-c", testbed.SRV_IP, "-p", str(f["port"]), "-t", str(seconds),
                    "-i", "1", "--json", "--connect-timeout", "5000", "-C", "cubic"]
            if f["direction"] == "down":
                args.append("-R")
            if f["parallel"] > 1:
                args += ["-P", str(f["parallel"])]
            f["launched"] = time.monotonic()
            f["client"] = self.spawn(tb.sta[f["station"] - 1], args, f["stem"] + ".client.json")
        return out, t0

    def series(self, flows, t0, seconds):
        """Waits for the flows to end; per station the receiver's goodput in
        1-s bins from t0 (bit/s)."""
        deadline = time.monotonic() + seconds + 15
        for f in flows:
            for p in (f["client"], f["server"]):
                try:
                    p.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        per_sta = {}
        for f in flows:
            recv = "server" if f["direction"] == "up" else "client"
            ivs, err, _ = read_intervals(f["stem"] + ".%s.json" % recv)
            self.assertFalse(err, "iperf3 %s of station %d: %s" % (recv, f["station"], err))
            bins = rebin(ivs, f["launched"] - t0, seconds)
            acc = per_sta.setdefault(f["station"], [0.0] * seconds)
            for k, b in enumerate(bins):
                acc[k] += b * 8
        return [per_sta[s] for s in sorted(per_sta)]

    # --- the daemon's status, tc -----------------------------------------------

    def status(self):
        try:
            with open(self.status_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def poll(self, until=None, timeout=10.0, step=0.2):
        """Reads the status file every step until until(status) is true (the
        status returned) or timeout (None). Every new round is kept in
        self.rounds. The daemon must keep running."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.status()
            if s and (not self.rounds or self.rounds[-1][1].get("rounds") != s.get("rounds")):
                self.rounds.append((time.monotonic(), s))
            if until and s and until(s):
                return s
            if self.apd_proc is not None and self.apd_proc.poll() is not None:
                raise AssertionError("wlanfair-apd exited %d:\n%s"
                                     % (self.apd_proc.returncode, self.apd_log()[-3000:]))
            if time.monotonic() >= deadline:
                return None
            time.sleep(step)

    def station(self, status, i):
        """Station i's (from 1) entry of a status."""
        mac = self.macs[i - 1]
        for s in status.get("stations", []):
            if s["mac"] == mac:
                return s
        return None

    @staticmethod
    def limited(status):
        return [s["mac"] for s in status.get("stations", [])
                if s.get("setting", {}).get("limited")]

    def snapshot(self):
        """What wlanfair-apd may change in the AP namespace: every qdisc
        (tc -j), every link (ip -j: names, kinds of qdisc, MTU, queue
        length...), without counters."""
        qd = json.loads(testbed.sh(["tc", "-n", self.tb.ap, "-j", "qdisc", "show"]).stdout)
        links = json.loads(testbed.sh(["ip", "-n", self.tb.ap, "-j", "link", "show"]).stdout)
        # download-demand (on wherever the daemon may act) counts at br0's
        # egress in every mode, fail-open too: its clsact holds back
        # nothing. Once its filter is gone a clsact left behind counts.
        egress = testbed.sh(["tc", "-n", self.tb.ap, "filter", "show", "dev", "br0", "egress"],
                            check=False).stdout
        if "handle 0xfa3" in egress:
            qd = [q for q in qd if not (q.get("dev") == "br0" and q.get("kind") == "clsact")]
        return {"qdiscs": sorted(qd, key=lambda q: json.dumps(q, sort_keys=True)),
                "links": sorted(links, key=lambda l: l["ifname"])}

    def assertSnapshotEqual(self, before, after, what):
        if before != after:
            def lines(snap):
                return ([json.dumps(q, sort_keys=True) for q in snap["qdiscs"]] +
                        [json.dumps(l, sort_keys=True) for l in snap["links"]])
            b, a = set(lines(before)), set(lines(after))
            self.fail("%s: the AP's qdiscs/links differ from before\n  gone: %s\n  new: %s"
                      % (what, sorted(b - a), sorted(a - b)))

    def shaped(self):
        """br0's root is wlanfair-apd's HTB, its IFB exists, and a station
        has a class of its own (besides the default one) on one of them."""
        snap = self.snapshot()
        root = [q for q in snap["qdiscs"] if q.get("dev") == "br0" and q.get("root")]
        ifb = [l["ifname"] for l in snap["links"] if l["ifname"].startswith("wfifb")]
        if not (root and root[0]["kind"] == "htb" and ifb):
            return False
        # iproute2 6.1 prints HTB classes as text even with -j.
        classes = sum(testbed.sh(["tc", "-n", self.tb.ap, "class", "show", "dev", dev]
                                 ).stdout.count("class htb") for dev in ("br0", ifb[0]))
        return classes > 2

    def wait_limited(self, timeout=15.0):
        """Until the daemon controls and holds back a station (its caps are
        in tc)."""
        s = self.poll(lambda s: s.get("mode") == "control" and self.limited(s), timeout)
        self.assertIsNotNone(s, "no station limited within %g s; last status: %s\n%s"
                             % (timeout, json.dumps(self.status())[:2000], self.apd_log()[-3000:]))
        self.assertTrue(self.shaped(), self.snapshot())
        return s

    # --- the cases ----------------------------------------------------------------

    def test_uncontrolled(self):
        """actuator=none: the daemon observes. A near and a far station
        (frames 4x costlier) both uploading: the medium shares airtime, so
        the near one gets ~4x the far one's throughput (Jain ~0.74), by the
        daemon's figures and by iperf3's; nothing in tc changes."""
        self.build(far={2: FAR_COST})
        before = self.snapshot()
        self.start_reporters()
        seconds = 10
        flows, t0 = self.start_traffic([(1, "up", 1), (2, "up", 1)], seconds)
        self.start_apd("actuator=none")
        self.poll(timeout=seconds - 0.5)
        x = self.series(flows, t0, seconds)
        self.assertSnapshotEqual(before, self.snapshot(), "actuator=none")
        self.assertEqual(self.stop(self.apd_proc), 0)
        late = [s for t, s in self.rounds if t - t0 >= 3]
        self.assertGreaterEqual(len(late), 4, self.rounds)
        for s in late:
            self.assertEqual(s["mode"], "observe", s)
            self.assertEqual(self.limited(s), [], s)
        status_jain = [s["round"]["jain"] for s in late]
        means = [sum(v[3:]) / len(v[3:]) for v in x]
        print("uncontrolled: iperf3 %.2f / %.2f Mbit/s (Jain %.3f); status round.jain %s"
              % (means[0] / 1e6, means[1] / 1e6, jain(means),
                 " ".join("%.3f" % j for j in status_jain)))
        self.assertLess(jain(means), 0.8, means)
        self.assertGreater(means[0], 3 * means[1], means)
        self.assertLess(max(status_jain), 0.8, status_jain)

    def controlled(self, flows, far, airtime_cost, what):
        """WARM_S uncontrolled, then the daemon (share, rate). Returns the
        per-station series and figures; asserts Jain >= TARGET_JAIN over
        the CHECK_S after CONVERGE_S, and the total against the
        throughput-fair bound: N / sum(c_i) x the airtime the cell used
        uncontrolled (sum x_i c_i), the costs c_i being the testbed's own."""
        self.build(far=far)
        self.start_reporters()
        seconds = WARM_S + CONVERGE_S + CHECK_S + 1
        tf, t0 = self.start_traffic(flows, seconds)
        time.sleep(max(0.0, t0 + WARM_S - time.monotonic()))
        t_apd = time.monotonic()
        # What nl80211 would tell a real AP: each station's PHY rate, the
        # capacity over its airtime cost.
        cfg = self.tb.cfg
        rates = ",".join("p%d=%.0f" % (i, cfg.capacity / airtime_cost.get(i, 1.0))
                         for i in range(1, cfg.stations + 1))
        self.start_apd("port-rates=" + rates)
        self.poll(timeout=t0 + seconds - time.monotonic())
        x = self.series(tf, t0, seconds)
        self.assertEqual(self.stop(self.apd_proc), 0)

        n = len(x)
        cost = [airtime_cost.get(i + 1, 1.0) for i in range(n)]
        warm = range(1, WARM_S)
        start = int(math.ceil(t_apd - t0 + CONVERGE_S))
        window = range(start, min(start + CHECK_S, seconds))
        unc = [sum(x[i][k] for k in warm) / len(warm) for i in range(n)]
        airtime = sum(u * c for u, c in zip(unc, cost))
        bound = n / sum(cost) * airtime
        mean = [sum(x[i][k] for k in window) / len(window) for i in range(n)]
        per_s = [jain([x[i][k] for i in range(n)]) for k in range(seconds)]
        # Time to converge: from the controller's start to the first second
        # from which every 1-s Jain stays at or above the target.
        conv = None
        for k in range(int(t_apd - t0), seconds):
            if all(j >= TARGET_JAIN for j in per_s[k:seconds - 1]):
                conv = k + 1 - (t_apd - t0)
                break
        status_j = [(round(t - t_apd, 1), s["round"]["jain"]) for t, s in self.rounds]
        print("%s: uncontrolled %s Mbit/s (Jain %.3f, total %.2f); bound %.2f; controlled "
              "[%d, %d) s after the start: %s Mbit/s, Jain %.4f, total %.2f = %.3f x bound; "
              "per-second Jain %s; converged (1-s Jain >= %.2f from then on) %s s after the "
              "start; status round.jain %s"
              % (what, " / ".join("%.2f" % (u / 1e6) for u in unc), jain(unc), sum(unc) / 1e6,
                 bound / 1e6, window[0] - (t_apd - t0), window[-1] + 1 - (t_apd - t0),
                 " / ".join("%.2f" % (m / 1e6) for m in mean), jain(mean), sum(mean) / 1e6,
                 sum(mean) / bound, " ".join("%.3f" % j for j in per_s), TARGET_JAIN,
                 "%.1f" % conv if conv is not None else "never",
                 " ".join("%g:%.3f" % tj for tj in status_j)))
        # The daemon's rounds: what it measured per station and its cap.
        key = "ap_up_bps" if flows[0][1] == "up" else "ap_down_bps"
        cap = "rate_up_bps" if flows[0][1] == "up" else "rate_down_bps"
        for t, st in self.rounds:
            cells = []
            for i in range(1, n + 1):
                e = self.station(st, i) or {}
                c = e.get("setting", {}).get(cap, 0) if e.get("setting", {}).get("limited") else 0
                cells.append("sta%d %5.2f cap %5.2f" % (i, e.get(key, 0) / 1e6, c / 1e6))
            print("  round %3d at %5.1f s: %s, level %.2f, %s" % (
                st["rounds"], t - t_apd, st["mode"], st["round"]["level_bps"] / 1e6,
                "; ".join(cells)))
        # The journal tells when a station's limit starts, ends or moves by
        # a quarter, not every round: a held station's reason flips round by
        # round as its goodput crosses its share, and logging each flip was
        # a line per station per second (20 a second with 20 stations).
        said = collections.Counter(
            m.group(1) for m in re.finditer(r"station (\S+)[^:]*: (?:would be )?(?:limited|not limited)",
                                            self.apd_log()))
        print("journal lines per station: %s" % dict(said))
        self.assertLessEqual(max(said.values(), default=0), MAX_DECISION_LINES, dict(said))
        modes = {s["mode"] for t, s in self.rounds if t - t_apd > 3}
        self.assertEqual(modes, {"control"}, self.rounds[-1][1] if self.rounds else None)
        self.assertLess(jain(unc), 0.9, "the uncontrolled cell was already fair: %s" % unc)
        self.assertGreaterEqual(jain(mean), TARGET_JAIN, mean)
        # 1-s bins alias with the daemon's 1-s rounds: measured down to 0.930
        # (uploads, 12 runs), while the 5-s means were at 0.9988 or more.
        self.assertGreaterEqual(min(per_s[k] for k in window), PER_SECOND_JAIN,
                                [per_s[k] for k in window])
        self.assertGreaterEqual(sum(mean), TOTAL_OF_BOUND * bound,
                                "total %.2f Mbit/s is %.3f x the throughput-fair bound %.2f"
                                % (sum(mean) / 1e6, sum(mean) / bound, bound / 1e6))
        return x

    def test_controlled_upload(self):
        """A near and a far (4x) station uploading: airtime sharing gives
        the near one ~4x more; the daemon (told the ports' PHY rates, as
        nl80211 tells a real AP) holds the near one's uploads back on the
        IFB fed from br0's ingress until both get the same. The best
        throughput-fair total is 2/(1+4) of the airtime the cell used."""
        self.controlled([(1, "up", 1), (2, "up", 1)], {2: FAR_COST}, {2: FAR_COST},
                        "upload, near + far")

    def test_controlled_download(self):
        """Two near stations downloading, one with 4 TCP flows, one with 1:
        the AP's single FIFO shares frames per flow, ~4:1. The daemon caps
        the first on br0's root (ahead of the medium) until both get the
        same; with equal costs the throughput-fair bound is what the
        uncontrolled cell carried."""
        self.controlled([(1, "down", 4), (2, "down", 1)], None, {},
                        "download, 4 flows vs 1")

    def controlled_then(self, admin_root=None):
        """A near and a far station uploading, the daemon holding the near
        one back; returns the snapshot of the AP from before the daemon
        (after the admin's root qdisc, if any) and the traffic."""
        self.build(far={2: FAR_COST})
        if admin_root:
            testbed.sh(["tc", "-n", self.tb.ap, "qdisc", "add", "dev", "br0", "root"]
                       + admin_root)
        before = self.snapshot()
        self.start_reporters()
        flows, t0 = self.start_traffic([(1, "up", 1), (2, "up", 1)], 30)
        self.start_apd()
        self.wait_limited()
        return before, flows

    ADMIN_TBF = ["handle", "7:", "tbf", "rate", "1gbit", "burst", "256kb", "latency", "50ms"]

    def check_stop(self, admin_root):
        before, _ = self.controlled_then(admin_root)
        self.assertEqual(self.stop(self.apd_proc), 0, self.apd_log())
        self.assertFalse(os.path.exists(self.status_path), "status file left behind")
        self.assertSnapshotEqual(before, self.snapshot(), "after SIGTERM")

    def test_stop_restores(self):
        """SIGTERM while stations are held back: br0's root (noqueue), no
        ingress qdisc, no IFB: exactly what was there before."""
        self.check_stop(None)

    def test_stop_restores_admin_tbf(self):
        """The same over an administrator's tbf root on br0: put back with
        its handle and parameters."""
        self.check_stop(self.ADMIN_TBF)

    def test_kill9_then_restore(self):
        """kill -9 leaves the limits in tc; `wlanfair-apd --restore` (as
        ExecStopPost=) takes them back to what was there, the admin's tbf
        root included; a second --restore has nothing to do (exit 0)."""
        before, _ = self.controlled_then(self.ADMIN_TBF)
        self.stop(self.apd_proc, signal.SIGKILL)
        self.assertTrue(self.shaped(), "kill -9 should have left the limits in place")
        r = self.restore()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertSnapshotEqual(before, self.snapshot(), "after kill -9 and --restore")
        r = self.restore()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertSnapshotEqual(before, self.snapshot(), "after a second --restore")

    def test_kill9_then_restart(self):
        """kill -9, then a new daemon on the same state file: it undoes the
        dead one's changes first, controls again, and a SIGTERM leaves what
        was there before the first one."""
        before, _ = self.controlled_then(None)
        self.stop(self.apd_proc, signal.SIGKILL)
        self.assertTrue(self.shaped(), "kill -9 should have left the limits in place")
        self.rounds = []
        os.unlink(self.status_path)
        self.start_apd(name="apd-restarted")
        self.wait_limited()
        self.assertIn("records changes of an earlier run", self.apd_log())
        self.assertEqual(self.stop(self.apd_proc), 0, self.apd_log())
        self.assertSnapshotEqual(before, self.snapshot(), "after kill -9, restart, SIGTERM")

    FEED_TIMEOUT_S = 3
    REPORT_STALE_S = 3     # the daemon's default

    def test_reports_stopped_fail_open(self):
        """The reporters stop: once no trusted report came for feed-timeout
        (after they went stale), the daemon goes fail-open and lifts every
        limit (br0 as before: no HTB, no IFB); when reports come back, it
        controls again."""
        self.build(far={2: FAR_COST})
        before = self.snapshot()
        self.start_reporters()
        self.start_traffic([(1, "up", 1), (2, "up", 1)], 40)
        self.start_apd("feed-timeout=%d" % self.FEED_TIMEOUT_S)
        self.wait_limited()
        t_stop = time.monotonic()
        self.stop_reporters()
        limit = self.FEED_TIMEOUT_S + self.REPORT_STALE_S + 3
        s = self.poll(lambda s: s["mode"] == "fail-open", limit)
        t_open = time.monotonic() - t_stop
        self.assertIsNotNone(s, "still %s %g s after the reports stopped"
                             % (self.status()["mode"], limit))
        self.assertEqual(self.limited(s), [], s)
        self.assertSnapshotEqual(before, self.snapshot(), "fail-open")
        # Stays open while no report comes.
        self.poll(timeout=2)
        self.assertEqual(self.status()["mode"], "fail-open")
        self.assertSnapshotEqual(before, self.snapshot(), "fail-open, 2 s later")
        t_resume = time.monotonic()
        self.start_reporters()
        self.wait_limited()
        print("reports stopped: fail-open after %.1f s (feed-timeout %d s, report-stale %d s); "
              "limits back %.1f s after the reports resumed"
              % (t_open, self.FEED_TIMEOUT_S, self.REPORT_STALE_S, time.monotonic() - t_resume))
        self.assertEqual(self.stop(self.apd_proc), 0)
        self.assertSnapshotEqual(before, self.snapshot(), "after SIGTERM")

    def test_forged_reports_change_nothing(self):
        """Reports sealed with another key, from the held-back station's
        own address, claiming that its flows are application-limited (which,
        believed, would lift its cap): every one rejected (bad-mac), the
        station still held back, its report still the trusted one."""
        self.build(far={2: FAR_COST})
        self.start_reporters()
        self.start_traffic([(1, "up", 1), (2, "up", 1)], 30)
        self.start_apd()
        self.wait_limited()
        self.poll(timeout=3)       # settled caps
        s0 = self.status()
        held = self.limited(s0)
        rejected0 = sum(s0["reports"]["rejected"].values())
        bad_mac0 = s0["reports"]["rejected"]["bad-mac"]
        wrong = self.secret("wrong.key", WRONG_KEY)
        body = {"interfaces": [{"name": "wlan0", "ifindex": 2, "wifi": True, "up": True,
                                "rx_bps": 1e5, "tx_bps": 1e5, "goodput_rx_bps": 1e4,
                                "goodput_tx_bps": 1e4}],
                "flows": [{"local": "%s:40000" % testbed.Testbed.sta_ip(i),
                           "remote": "%s:%d" % (testbed.SRV_IP, testbed.BASE_PORT + i - 1),
                           "goodput_tx_bps": 1e4, "goodput_rx_bps": 0, "app_limited": True}
                          for i in (1, 2)],
                "flows_total": 2}
        count = 15
        sender = self.spawn(self.tb.sta[0], [SEND, "--key", wrong, "--host", "5a" * 16,
                                             "--body", json.dumps(body), "--count", str(count),
                                             "--period", "0.2", testbed.AP_WLAN_IP,
                                             str(REPORT_PORT)],
                            os.path.join(self.tmp, "send.log"))
        t_send = time.monotonic()
        deadline = t_send + count * 0.2 + 3
        while time.monotonic() < deadline:
            s = self.poll(timeout=0.5)
            s = self.status()
            self.assertEqual(sorted(self.limited(s)), sorted(held),
                             "the forged reports changed who is held back: %s" % s)
        self.assertEqual(sender.wait(10), 0)
        s = self.status()
        rejected = sum(s["reports"]["rejected"].values()) - rejected0
        bad_mac = s["reports"]["rejected"]["bad-mac"] - bad_mac0
        accepted = s["reports"]["accepted"] - s0["reports"]["accepted"]
        print("forged reports: %d sent, %d rejected (bad-mac %d), %d accepted meanwhile (the "
              "reporters'); held back before %s, after %s"
              % (count, rejected, bad_mac, accepted, held, self.limited(s)))
        # Every forged report that arrived was rejected for its MAC, none
        # for anything else. Not all of them arrive: they leave a station
        # whose uploads are held back, through its capped IFB class (a
        # pfifo it shares with its TCP upload), where some are dropped.
        self.assertEqual(rejected, bad_mac, s["reports"])
        self.assertGreaterEqual(bad_mac, count // 2, s["reports"])
        self.assertLessEqual(bad_mac, count, s["reports"])
        for i in (1, 2):
            st = self.station(s, i)
            self.assertTrue(st["reporting"] and st["trusted"], st)
        self.assertEqual(s["mode"], "control")
        self.assertEqual(self.stop(self.apd_proc), 0)

    def test_no_key_observes(self):
        """No key and not insecure-unsigned: the daemon takes the unsigned
        reports, computes its decisions (the log says what it would do) and
        applies none: mode observe, tc as before throughout."""
        self.build(far={2: FAR_COST})
        before = self.snapshot()
        self.start_reporters(key=False)
        self.start_traffic([(1, "up", 1), (2, "up", 1)], 12)
        self.start_apd(key=False)
        t_end = time.monotonic() + 8
        while time.monotonic() < t_end:
            self.poll(timeout=1)
            self.assertSnapshotEqual(before, self.snapshot(), "observing")
        late = [s for t, s in self.rounds[2:]]
        self.assertGreaterEqual(len(late), 4)
        for s in late:
            self.assertEqual(s["mode"], "observe", s)
            self.assertIn("key", s["mode_reason"])
            self.assertEqual(self.limited(s), [], s)
        self.assertIn("would be limited", self.apd_log())
        self.assertEqual(self.stop(self.apd_proc), 0)
        self.assertSnapshotEqual(before, self.snapshot(), "after SIGTERM")


if __name__ == "__main__":
    wftest.main()
