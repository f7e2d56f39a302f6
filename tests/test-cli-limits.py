#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every file the built programs read is bounded, and configuration text
GKeyFile would take silently is refused.

Runs wlanfairctl ($WLANFAIRCTL) and the daemons ($WLANFAIR_DAEMONS, ':'
separated; each with --config FILE --check) on what used to run away or
pass: `fairness --series /dev/zero` read without limit (2.4 GB RSS in
10 s), a FIFO whose writer never ends, a 1 GB (sparse) file as series,
status or configuration; a tcp status file with fields missing printed
values that were not in it, with a GLib-CRITICAL; a non-UTF-8 value in
tcp.conf gave three GLib-CRITICALs and exit 0. Now each ends within
seconds, under 64 MiB, with one line naming the path and the limit (or
the file, line and key), exit 1 for data (2 for configuration), nothing
on stdout. The limits are the man pages' (FILES).

Every program runs with G_DEBUG=fatal-warnings (criticals too): no
input may reach a GLib warning or critical.

Usage: test-cli-limits.py [unittest arguments]   (exit status 0, 1)
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

# The shared helpers (testlib/wftest.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                                "testlib"))
import wftest  # noqa: E402

CTL = os.environ.get("WLANFAIRCTL", "wlanfairctl")
DAEMONS = {os.path.basename(p): p
           for p in os.environ.get("WLANFAIR_DAEMONS", "").split(":") if p}
ENV = dict(os.environ, G_DEBUG="fatal-warnings,fatal-criticals")

SERIES_MAX = 32 * 1024 * 1024
STATUS_MAX = 4 * 1024 * 1024
CONFIG_MAX = 1024 * 1024
# What any of these may take: a few seconds, 64 MiB.
SECONDS = 10
RSS_KIB = 64 * 1024

# Runs argv in a child of its own and reports that child's peak RSS alone
# (RUSAGE_CHILDREN of a process that has no other child).
MEASURE = r"""
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], capture_output=True, timeout=%d)
sys.stderr.buffer.write(r.stderr)
sys.stdout.write("%%d %%d\n" %% (r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
""" % (SECONDS * 3)


def run(argv, timeout=SECONDS * 3):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=ENV)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("%s still running after %d s (input unbounded?)"
                             % (argv, timeout)) from e


def sparse(path, size=1 << 30):
    with open(path, "wb") as f:
        f.truncate(size)
    return path


class Limits(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="wf-limits-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return self.path(name)

    def assert_one_error(self, r, status, *parts):
        self.assertEqual(r.returncode, status, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertNotIn("CRITICAL", r.stderr)
        self.assertNotIn("WARNING", r.stderr)
        for p in parts:
            self.assertIn(p, r.stderr)

    def assert_bounded(self, argv, status, *parts):
        """argv fails with status and one line holding parts, in time and
        memory."""
        t0 = time.monotonic()
        try:
            m = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True,
                               text=True, timeout=SECONDS * 4, env=ENV)
        except subprocess.TimeoutExpired as e:
            raise AssertionError("%s: no end (input unbounded?)" % argv) from e
        elapsed = time.monotonic() - t0
        self.assertEqual(m.stdout.count("\n"), 1, m.stderr)
        rc, rss = (int(x) for x in m.stdout.split())
        self.assertEqual(rc, status, m.stderr)
        self.assertEqual(m.stderr.count("\n"), 1, m.stderr)
        self.assertNotIn("CRITICAL", m.stderr)
        for p in parts:
            self.assertIn(p, m.stderr)
        self.assertLess(elapsed, SECONDS, argv)
        self.assertLess(rss, RSS_KIB, "%s: peak RSS %d KiB" % (argv, rss))

    # ---- wlanfairctl fairness --series --------------------------------------

    def test_series_dev_zero(self):
        self.assert_bounded([CTL, "fairness", "--series", "/dev/zero", "--window", "2"], 1,
                            "/dev/zero: larger than %d bytes (the limit for a series)"
                            % SERIES_MAX)

    def test_series_stdin_dev_zero(self):
        # "-": standard input, read with the same limit.
        self.assert_bounded(["sh", "-c", 'exec "$0" fairness --series - --window 2 < /dev/zero',
                             CTL], 1,
                            "<stdin>: larger than %d bytes (the limit for a series)" % SERIES_MAX)

    def test_series_sparse_1g(self):
        path = sparse(self.path("big.csv"))
        self.assert_bounded([CTL, "fairness", "--series", path, "--window", "2"], 1,
                            "%s: larger than %d bytes" % (path, SERIES_MAX))

    def test_series_fifo_endless(self):
        fifo = self.path("series.fifo")
        os.mkfifo(fifo)
        # A writer that never ends (the shell opens the FIFO, then yes
        # writes rows to it until killed).
        writer = subprocess.Popen(["sh", "-c", 'exec yes 0,1,a,1000 > "$0"', fifo],
                                  start_new_session=True)
        try:
            self.assert_bounded([CTL, "fairness", "--series", fifo, "--window", "2"], 1,
                                "%s: larger than %d bytes" % (fifo, SERIES_MAX))
        finally:
            os.killpg(writer.pid, signal.SIGKILL)
            writer.wait()

    def test_series_fifo_without_writer(self):
        # Read as empty at once, not waited on.
        fifo = self.path("series.fifo")
        os.mkfifo(fifo)
        t0 = time.monotonic()
        r = run([CTL, "fairness", "--series", fifo, "--window", "2"])
        self.assert_one_error(r, 1, fifo)
        self.assertLess(time.monotonic() - t0, SECONDS)

    def test_series_of_a_day_loads(self):
        # A day at 1 s, two flows: far under the limit, and it loads.
        rows = ["start_s,end_s,flow,bits_per_s"]
        for t in range(86400):
            rows.append("%d,%d,up,%d" % (t, t + 1, 1000000 + t % 7))
            rows.append("%d,%d,down,%d" % (t, t + 1, 2000000 + t % 5))
        path = self.write("day.csv", "\n".join(rows) + "\n")
        r = run([CTL, "fairness", "--json", "--series", path, "--window", "60"],
                timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["series"]["samples"], 172800)

    # ---- status files ------------------------------------------------------

    def tcp_status(self, drop=(), **extra):
        o = {"version": 1, "pid": os.getpid(), "updated": int(time.time()),
             "refresh_s": 10, "scope": "wifi", "cc": "ackloss_cubic", "thresh": 2,
             "beta": 0.125, "confirm": 1, "confirm_rate": 0.5, "min_queue_delay_ms": 1,
             "reduction": "drain", "registration": "struct_ops link",
             "registered": {"ackloss_cubic": {k: 7 for k in (
                 "acks", "ack_losses", "halvings", "suppressed_data_loss",
                 "suppressed_reorder", "suppressed_unconfirmed", "suppressed_fallback",
                 "suppressed_no_queue")}}}
        for k in drop:
            del o[k]
        o.update(extra)
        return self.write("tcp-status.json", json.dumps(o))

    def test_tcp_status_valid(self):
        path = self.tcp_status()
        for j in ([], ["--json"]):
            r = run([CTL, "tcp", "status", *j, "--status-file", path])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("ackloss_cubic", r.stdout)

    def test_tcp_status_field_missing(self):
        # It printed "parameters thresh 0, beta 0" and a GLib-CRITICAL.
        for drop, extra, field in ((("thresh", "beta"), {}, "'thresh' is missing"),
                                   (("registered",), {}, "'registered' is missing"),
                                   ((), {"beta": "x"}, "'beta' is not a number"),
                                   ((), {"registered": {"ackloss_cubic": {"acks": 1}}},
                                    "'registered.ackloss_cubic.ack_losses' is missing")):
            path = self.tcp_status(drop, **extra)
            for j in ([], ["--json"]):
                with self.subTest(drop=drop, extra=extra, json=j):
                    r = run([CTL, "tcp", "status", *j, "--status-file", path])
                    self.assert_one_error(r, 1, path, "field " + field)

    def test_tcp_status_unbounded(self):
        big = sparse(self.path("big.json"))
        for path in ("/dev/zero", big):
            self.assert_bounded([CTL, "tcp", "status", "--status-file", path], 1,
                                "%s: larger than %d bytes (the limit for a status file)"
                                % (path, STATUS_MAX))

    def test_ap_status_unbounded(self):
        big = sparse(self.path("big.json"))
        for path in ("/dev/zero", big):
            r = run([CTL, "ap", "status", "--status", path])
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(r.stdout, "")
            self.assertNotIn("CRITICAL", r.stderr)
            self.assertIn("%s: larger than %d bytes (the limit for a status file)"
                          % (path, STATUS_MAX), r.stderr)

    # ---- the daemons' configuration files -----------------------------------

    CONFIGS = {
        # program: (section, a key, a valid value, its interface key or None)
        "wlanfair-tcpd": ("tcp", "thresh", "2", "interfaces"),
        "wlanfair-reportd": ("reportd", "port", "7455", "interfaces"),
        "wlanfair-scand": ("scan", "mode", "auto", None),
        "wlanfair-apd": ("apd", "stations-from", "nl80211", "interface"),
    }

    def daemon_cases(self, section, key, value, ifkey):
        cases = [
            (b"[%s]\n%s=a\xffb\n" % (section.encode(), key.encode()),
             ":2: [%s] %s: the value is not valid UTF-8" % (section, key)),
            ("[%s]\n%s=%s\n%s=%s\n" % (section, key, value, key, value),
             ":3: [%s] %s: duplicate key (set it once)" % (section, key)),
            ("[%s]\n%s[de]=%s\n" % (section, key, value),
             ":2: [%s] %s[de]: localized keys are not supported" % (section, key)),
            ("[%s]\n[other]\n%s=%s\n" % (section, key, value),
             ":3: key '%s' in unknown section [other] (only [%s] is read)" % (key, section)),
        ]
        if ifkey:
            cases += [
                ("[%s]\n%s=wl/an0\n" % (section, ifkey),
                 ": %s: interface name 'wl/an0' holds a character" % ifkey),
                ("[%s]\n%s=wlan0123456789012\n" % (section, ifkey),
                 ": %s: interface name 'wlan0123456789012' is longer than 15 bytes" % ifkey),
            ]
        return cases

    def test_daemon_configs(self):
        if not DAEMONS:
            self.skipTest("no daemons built ($WLANFAIR_DAEMONS)")
        for name, (section, key, value, ifkey) in self.CONFIGS.items():
            if name not in DAEMONS:
                continue
            for i, (text, message) in enumerate(self.daemon_cases(section, key, value, ifkey)):
                path = self.write("%s-%d.conf" % (name, i), text)
                with self.subTest(program=name, case=message):
                    r = run([DAEMONS[name], "--config", path, "--check"])
                    self.assert_one_error(r, 2, path + message)

    def test_daemon_configs_unbounded(self):
        if not DAEMONS:
            self.skipTest("no daemons built ($WLANFAIR_DAEMONS)")
        big = sparse(self.path("big.conf"))
        for name in self.CONFIGS:
            if name not in DAEMONS:
                continue
            for path in ("/dev/zero", big):
                with self.subTest(program=name, path=path):
                    self.assert_bounded([DAEMONS[name], "--config", path, "--check"], 2,
                                        "%s: larger than %d bytes (the limit for a "
                                        "configuration file)" % (path, CONFIG_MAX))


if __name__ == "__main__":
    wftest.main()
