#!/usr/bin/env python3
"""testlib/wftest.py on itself: jain() and tradeoff() agree with the C
(src/metrics, through the built `wlanfairctl fairness --json`, $WLANFAIRCTL),
all-zero throughputs included; wait_for() and main() keep their promises
(main() on small test files written here, run as meson runs them)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.dont_write_bytecode = True          # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import wftest  # noqa: E402

CTL = os.environ.get("WLANFAIRCTL", "wlanfairctl")


def c_fairness(xs, capacity):
    r = subprocess.run([CTL, "fairness", "--json", "--capacity", repr(capacity), "--allow-over"]
                       + [repr(x) for x in xs], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise AssertionError("wlanfairctl fairness %s: %s" % (xs, r.stderr))
    return json.loads(r.stdout)


class Fairness(unittest.TestCase):
    CASES = [[1.0, 1.0], [10e6, 2.5e6], [0.0, 0.0, 0.0], [5.0], [0.0, 3.0],
             [1e13, 1e-3, 7.5e6, 2e6], [30e6, 30e6]]

    def test_as_the_c(self):
        if shutil.which(CTL) is None:
            self.skipTest("no built wlanfairctl ($WLANFAIRCTL)")
        for xs in self.CASES:
            with self.subTest(xs=xs):
                c = c_fairness(xs, 30e6)
                self.assertAlmostEqual(wftest.jain(xs), c["jain"], places=9)
                self.assertAlmostEqual(wftest.tradeoff(xs, 30e6), c["tradeoff"], places=9)

    def test_by_hand(self):
        self.assertEqual(wftest.jain([0.0, 0.0]), 1.0)          # as wf_fairness_jain()
        self.assertAlmostEqual(wftest.jain([1.0, 3.0]), 16 / 20)
        # F([10, 2.5] Mbit/s, C = 30 Mbit/s) = 0.5^1 / (2 (1/9 + 1/144) - 1 + 2)
        self.assertAlmostEqual(wftest.tradeoff([10e6, 2.5e6], 30e6), 0.297029702970297)
        for f in (wftest.jain, lambda xs: wftest.tradeoff(xs, 1.0)):
            with self.assertRaises(ValueError):
                f([])


class WaitFor(unittest.TestCase):
    def test_value_and_until(self):
        n = iter(range(100))
        self.assertEqual(wftest.wait_for("three", lambda: next(n), until=lambda v: v >= 3,
                                         interval=0), 3)

    def test_timeout_names_what_and_last(self):
        with self.assertRaises(AssertionError) as cm:
            wftest.wait_for("the moon", lambda: 0, timeout=0.1, interval=0.01,
                            detail=lambda: " [log]")
        self.assertIn("the moon", str(cm.exception))
        self.assertIn("last: 0", str(cm.exception))
        self.assertTrue(str(cm.exception).endswith(" [log]"))

    def test_ignore_and_check(self):
        calls = []

        def flaky():
            calls.append(1)
            if len(calls) < 3:
                raise KeyError("not yet")
            return "up"
        self.assertEqual(wftest.wait_for("up", flaky, interval=0, ignore=(KeyError,)), "up")

        def died():
            raise AssertionError("the daemon exited")
        with self.assertRaisesRegex(AssertionError, "the daemon exited"):
            wftest.wait_for("never", lambda: None, timeout=30, interval=0, check=died)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("iperf3"),
                     "needs root (network namespaces) and iperf3")
class Iperf3Server(unittest.TestCase):
    """iperf3_server() returns with the server listening, fails at once
    when it cannot listen; stop_procs() leaves none behind."""

    def test_listens_fails_stops(self):
        net = wftest.VethNet("wfti", "10.237.0.1", "10.237.0.2")
        procs = []
        try:
            p = wftest.iperf3_server(net.server, net.saddr, 5990, procs)
            self.assertIsNone(p.poll())
            self.assertIn(":5990 ", net.ns(net.server, "ss", "-Hltn").stdout)
            # Not an address of the namespace: bind fails, iperf3 exits.
            with self.assertRaisesRegex(AssertionError, "port 5991 exited"):
                wftest.iperf3_server(net.server, "10.237.9.9", 5991, procs)
            self.assertEqual(len(procs), 2)
        finally:
            wftest.stop_procs(procs)
            net.close()
        self.assertEqual(procs, [])
        self.assertIsNotNone(p.returncode)


class Main(unittest.TestCase):
    """main() as meson sees it: exit 0, 1, 77 (SKIP)."""

    BODY = textwrap.dedent('''
        import os, sys, unittest
        sys.path.insert(0, {lib!r})
        import wftest

        class A(unittest.TestCase):
            def test_pass(self):
                pass

            def test_skip(self):
                self.skipTest("no")

            def test_fail(self):
                self.fail("failed")

        if __name__ == "__main__":
            wftest.main(lambda names: os.environ.get("WHY"))
        ''')

    def run_file(self, *names, why=None):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.py")
            with open(path, "w") as f:
                f.write(self.BODY.format(lib=HERE))
            env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
            env.pop("WHY", None)
            if why:
                env["WHY"] = why
            return subprocess.run([sys.executable, path, *names], capture_output=True,
                                  text=True, env=env, timeout=30)

    def test_status(self):
        self.assertEqual(self.run_file("A.test_pass").returncode, 0)
        self.assertEqual(self.run_file("A.test_pass", "A.test_skip").returncode, 0)
        self.assertEqual(self.run_file("A.test_skip").returncode, wftest.SKIP)
        self.assertEqual(self.run_file("A.test_fail").returncode, 1)
        self.assertEqual(self.run_file().returncode, 1)          # every case: one fails
        r = self.run_file("A.test_pass", why="needs a unicorn")
        self.assertEqual(r.returncode, wftest.SKIP)
        self.assertIn("SKIP: needs a unicorn", r.stdout)

    def test_list(self):
        r = self.run_file("--list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ["A.test_fail", "A.test_pass", "A.test_skip"])

    def test_unknown_option(self):
        """An option is not taken for a case's name (unittest's traceback
        for a module attribute '-v'): a usage line, exit 2, nothing run."""
        r = self.run_file("A.test_pass", "-v")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown option -v", r.stderr)
        self.assertIn("usage:", r.stderr)
        self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    wftest.main()
