#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One set of command-line conventions, and no hostile text on a terminal.

Every program built ($WLANFAIRCTL and $WLANFAIR_DAEMONS): -h/--help and
-V/--version exit 0; --check with a harmless configuration, run as a
check and not as a daemon, prints its settings (exit 0, or 1 where this
machine lacks what it probes: never 2); an unknown option exits 2 with
"(see --help)". Options that could only mean "never end" are usage
errors; a bare IPv6 destination with a port-looking suffix is refused;
-i takes interface names only. Text from reports and status files is
shown escaped (wlanfair-text.h).

Usage: test-cli-conventions.py [unittest arguments]   (exit status 0, 1)
"""

import json
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
from wftest import free_port, report  # noqa: E402

CTL = os.environ.get("WLANFAIRCTL", "wlanfairctl")
DAEMONS = {os.path.basename(p): p
           for p in os.environ.get("WLANFAIR_DAEMONS", "").split(":") if p}


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          errors="surrogateescape", **kw)


class Conventions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        # Harmless configurations: nothing to start, nothing written.
        confs = {
            "wlanfair-reportd": "[reportd]\ntextfile-dir=none\nsocket=none\n",
            "wlanfair-scand": "[scan]\ntextfile-dir=none\n",
            "wlanfair-tcpd": "[tcp]\n",
            "wlanfair-apd": "[apd]\ninterface=lo\nactuator=none\nstatus=\ntextfile-dir=none\n"
                            "state=" + os.path.join(d, "apd.state") + "\n",
        }
        cls.conf = {}
        for name, text in confs.items():
            path = os.path.join(d, name + ".conf")
            with open(path, "w") as f:
                f.write(text)
            cls.conf[name] = path

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def programs(self):
        yield "wlanfairctl", [CTL]
        for name, path in sorted(DAEMONS.items()):
            yield name, [path]

    def config_args(self, name):
        flag = "--config" if name == "wlanfair-tcpd" else "-c"
        return [flag, self.conf[name]]

    def test_help_and_version(self):
        for name, argv in self.programs():
            for opt in ("-h", "--help"):
                with self.subTest(program=name, opt=opt):
                    r = run(argv + [opt])
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertIn("Usage", r.stdout)
            for opt in ("-V", "--version"):
                with self.subTest(program=name, opt=opt):
                    r = run(argv + [opt])
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertRegex(r.stdout, r"^%s \d" % name)

    def test_unknown_option(self):
        for name, argv in self.programs():
            with self.subTest(program=name):
                r = run(argv + ["--no-such-option"])
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("(see --help)", r.stderr)
                self.assertEqual(r.stderr.count("\n"), 1, r.stderr)

    def test_check(self):
        # What each --check prints of its settings: every key of the file.
        settings = {
            "wlanfair-reportd": ["interfaces ", "interval ", "destination ", "port ", "key ",
                                 "textfile-dir ", "top-flows ", "max-datagram ", "dscp ",
                                 "hostname ", "send ", "socket "],
            "wlanfair-scand": ["mode=", "policy=", "start-pps=", "start-window=", "idle-pps=",
                               "idle-holdoff=", "roam-floor=", "roam-floor-margin=",
                               "roam-hysteresis=", "beacon-loss-holdoff=", "sample-interval=",
                               "signal-interval=", "textfile-dir="],
            "wlanfair-tcpd": ["scope=", "cc=", "thresh=", "beta=", "confirm=", "confirm-rate=",
                              "min-queue-delay=", "reduction=", "interfaces=", "cgroup=",
                              "state-dir=", "pin-dir="],
            "wlanfair-apd": ["interface=lo", "stations-from=", "controller=", "actuator=none",
                             "objective=", "directions=", "key=", "insecure-unsigned=", "bind=",
                             "port=", "weights=", "target-jain=", "floor=", "max-delay=",
                             "idle=", "tolerance=", "report-stale=", "feed-timeout=", "status=",
                             "state=", "textfile-dir=", "port-rates=", "carried-reports=",
                             "rwnd-policy=", "rwnd-capacity=", "ack-priority=",
                             "download-demand="],
        }
        for name, path in sorted(DAEMONS.items()):
            with self.subTest(program=name):
                r = run([path] + self.config_args(name) + ["--check"])
                # 1: this machine lacks what is probed (nl80211, BTF...).
                self.assertIn(r.returncode, (0, 1), r.stderr)
                if name in ("wlanfair-reportd", "wlanfair-scand"):
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                for key in settings[name]:
                    self.assertIn(key, r.stdout, key)

    def test_scand_check_config_alias(self):
        scand = DAEMONS.get("wlanfair-scand")
        if not scand:
            self.skipTest("wlanfair-scand not built")
        args = [scand] + self.config_args("wlanfair-scand")
        a = run(args + ["--check"])
        b = run(args + ["--check-config", "--sample-interval", "100"])
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(b.returncode, 0, b.stderr)
        self.assertEqual(len(a.stdout.split()), 13, a.stdout)
        self.assertIn("sample-interval=100 ", b.stdout)
        # -i names an interface everywhere else: not the sample interval.
        r = run(args + ["-i", "100", "--check"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("(see --help)", r.stderr)

    def test_never_ending_counts(self):
        for args in (["listen", "--count", "0"], ["listen", "-n", "0"],
                     ["top", "-n", "0"], ["top", "--iterations", "0"]):
            with self.subTest(args=args):
                r = run([CTL] + args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("(see --help)", r.stderr)

    def test_reportd_destination(self):
        reportd = DAEMONS.get("wlanfair-reportd")
        if not reportd:
            self.skipTest("wlanfair-reportd not built")
        args = [reportd] + self.config_args("wlanfair-reportd")
        r = run(args + ["-d", "::1:7480", "--check"])
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("[::1]:7480", r.stderr)
        self.assertIn("(see --help)", r.stderr)
        r = run(args + ["-d", "[::1]:7480", "--check"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("destination    ok: [::1]:7480", r.stdout)
        # A bare IPv6 address that cannot be read as ADDRESS:PORT stays one.
        r = run(args + ["-d", "fe80::1", "--check"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("destination    ok: [fe80::1]:7455", r.stdout)

    def test_interface_names(self):
        cases = [[CTL, "status", "--direct", "-i", "a/b"],
                 [CTL, "top", "--direct", "-n", "1", "-i", "x" * 16]]
        for name in ("wlanfair-reportd", "wlanfair-tcpd", "wlanfair-apd"):
            if name in DAEMONS:
                cases.append([DAEMONS[name]] + self.config_args(name) + ["-i", "a b", "--check"])
        for argv in cases:
            with self.subTest(argv=argv):
                r = run(argv)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn("-i: interface name", r.stderr)
                self.assertIn("(see --help)", r.stderr)


class TerminalSafety(unittest.TestCase):
    def listen_table(self, hostname):
        """The text output of `listen` given one host's reports."""
        for _ in range(5):
            port = free_port()
            p = subprocess.Popen([CTL, "listen", "--bind", "127.0.0.1", "--port", str(port),
                                  "--duration", "1.5"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                deadline = time.monotonic() + 10
                seq = 1
                while p.poll() is None and time.monotonic() < deadline:
                    c.sendto(report("%032x" % 1, seq, hostname=hostname), ("127.0.0.1", port))
                    seq += 1
                    time.sleep(0.1)
                c.close()
                out, err = p.communicate(timeout=10)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            if b"Address already in use" not in err:
                break
        self.assertEqual(p.returncode, 0, err)
        return out.decode("utf-8", "surrogateescape")

    def test_listen_hostile_hostname(self):
        for hostname, shown in (("evil\u202egnp", "evil\\u202egnp"),
                                ("a\u0085b", "a\\u0085b"),
                                ("z\u200bw", "z\\u200bw")):
            with self.subTest(hostname=ascii(hostname)):
                out = self.listen_table(hostname)
                self.assertIn(shown, out)
                self.assertNotIn(hostname, out)
                for bad in ("\u202e", "\u0085", "\u200b", "\x1b"):
                    self.assertNotIn(bad, out)

    def test_listen_wide_hostname_aligned(self):
        # Two columns per CJK character: the FROM column starts at 17.
        out = self.listen_table("\u6771\u4eac")
        rows = [line for line in out.splitlines() if line.startswith("\u6771\u4eac")]
        self.assertTrue(rows, out)
        self.assertTrue(rows[0].startswith("\u6771\u4eac" + " " * 13 + "127.0.0.1"), rows[0])

    def test_ap_status_escape_and_align(self):
        srcdir = os.environ.get("G_TEST_SRCDIR", os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(srcdir, "data", "apd-status.json")) as f:
            status = json.load(f)
        status["pid"] = os.getpid()
        status["time_us"] = int(time.time() * 1e6)
        status["stations"][0]["hostname"] = "\u6771\u4eac"          # 4 columns
        status["stations"][1]["hostname"] = "x\x1b[31m\u202ey"     # 12 columns shown
        status["stations"][1]["why"] = "because\u0085"
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(status, f)
        try:
            r = run([CTL, "ap", "status", "--status", f.name])
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        for bad in ("\x1b", "\u202e", "\u0085"):
            self.assertNotIn(bad, r.stdout)
        self.assertIn("x\\e[31m\\u202ey", r.stdout)
        self.assertIn("because\\u0085", r.stdout)
        # The SIGNAL column ends at the same terminal column on every row.
        lines = r.stdout.splitlines()
        head = [l for l in lines if l.startswith("MAC ")][0]
        end = head.index("SIGNAL") + len("SIGNAL")
        rows = [l for l in lines if l.startswith("02:00:00:00:0")]
        width = lambda t: sum(2 if "\u4e00" <= c <= "\u9fff" else 1 for c in t)
        for row in rows[:2]:
            cut = row.index(" dBm") + len(" dBm")
            self.assertEqual(width(row[:cut]), end, row)

    def test_tcp_status_escape(self):
        # A status file as wlanfair-tcpd writes it (version 1), but for
        # the strings; where it lives is --status-file.
        status = {"version": 1, "pid": os.getpid(), "updated": int(time.time()),
                  "refresh_s": 10, "scope": "wifi\x1b[2J", "cc": "ackloss_cubic",
                  "thresh": 1, "beta": 0.125, "confirm": 1, "confirm_rate": 0.5,
                  "min_queue_delay_ms": 1, "reduction": "drain\x07",
                  "registration": "\u202elink",
                  "registered": {"ackloss\x1b]0;x\x07": {}}}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(status, f)
        try:
            r = run([CTL, "tcp", "status", "--status-file", f.name])
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("daemon       running", r.stdout)
        self.assertIn("scope        wifi\\e[2J", r.stdout)
        self.assertIn("registration \\u202elink", r.stdout)
        self.assertIn("reduction    drain\\x07", r.stdout)
        self.assertIn("ackloss\\e]0;x\\x07", r.stdout)
        for bad in ("\x1b", "\x07", "\u202e"):
            self.assertNotIn(bad, r.stdout)


if __name__ == "__main__":
    wftest.main()
