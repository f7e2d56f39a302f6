#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The built programs' output paths follow the rules of wlanfair-file.h.

Every file a program writes is replaced atomically where it is a regular
file (or absent) and refused, with the path named, where it is anything
else: a symbolic link, a device, a FIFO, a directory; a socket path may
replace only a stale socket and must fit sun_path; directories the user
names are never created. Runs wlanfair-reportd ($WLANFAIR_REPORTD) and
wlanfairctl ($WLANFAIRCTL) on the cases that used to destroy files:
`--socket ~/notes.txt` deleted the notes, `--plot /dev/null` as root
replaced the device, `--plot LINK` replaced the link. The device case
uses a node with /dev/null's numbers in a temporary directory (never the
host's /dev/null: a regression would replace it) and needs root, like
the bug: it skips alone otherwise.

Usage: test-cli-files.py [unittest arguments]   (exit status 0, 1; 77 skip)
"""

import os
import socket
import stat
import subprocess
import sys
import tempfile
import unittest

# The shared helpers (testlib/wftest.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                                "testlib"))
import wftest  # noqa: E402

CTL = os.environ.get("WLANFAIRCTL", "wlanfairctl")
REPORTD = os.environ.get("WLANFAIR_REPORTD")
DAEMONS = {os.path.basename(p): p
           for p in os.environ.get("WLANFAIR_DAEMONS", "").split(":") if p}
TCPD = DAEMONS.get("wlanfair-tcpd")
SCAND = DAEMONS.get("wlanfair-scand")
APD = DAEMONS.get("wlanfair-apd")
SRCDIR = os.environ.get("G_TEST_SRCDIR", os.path.dirname(os.path.abspath(__file__)))
SERIES = os.path.join(SRCDIR, "data", "fairness-series.csv")


def free_udp_port():
    """A port nobody holds now (wlanfair-apd binds one, both families)."""
    return wftest.free_port("::")


def run(argv, timeout=15):
    # A daemon that accepted a bad path runs on: the timeout is the old
    # behaviour, reported as a failure rather than a hang.
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("%s still running after %d s (path accepted?)" % (argv, timeout)) from e


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="wf-files-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def read(self, path):
        with open(path) as f:
            return f.read()

    def assert_refused(self, r, path, what):
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(path, r.stderr)
        self.assertIn(what, r.stderr)


@unittest.skipUnless(REPORTD, "WLANFAIR_REPORTD not set")
class Reportd(Files):
    def reportd(self, *args):
        return run([REPORTD, "-i", "lo", "--no-send", *args])

    def test_socket_on_a_regular_file(self):
        notes = self.write("notes.txt", "my notes\n")
        r = self.reportd("--textfile-dir", "none", "--socket", notes)
        self.assert_refused(r, notes, "not a socket")
        self.assertEqual(self.read(notes), "my notes\n")

    def test_socket_on_a_symlink(self):
        notes = self.write("notes.txt", "my notes\n")
        link = self.path("report.sock")
        os.symlink(notes, link)
        r = self.reportd("--textfile-dir", "none", "--socket", link)
        self.assert_refused(r, link, "symbolic link")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(self.read(notes), "my notes\n")

    def test_socket_in_use(self):
        path = self.path("live.sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.listen(1)
        try:
            r = self.reportd("--textfile-dir", "none", "--socket", path)
            self.assert_refused(r, path, "in use")
            self.assertTrue(stat.S_ISSOCK(os.lstat(path).st_mode))
        finally:
            s.close()

    def test_socket_path_too_long(self):
        # GLib's socket address cut it at 107 bytes without a word.
        path = os.path.join(self.dir, "s" * (120 - len(self.dir)))
        r = self.reportd("--textfile-dir", "none", "--socket", path)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("longer than a socket path", r.stderr)
        self.assertEqual(os.listdir(self.dir), [])

    def test_socket_missing_directory(self):
        path = self.path("nonexistent/report.sock")
        r = self.reportd("--textfile-dir", "none", "--socket", path)
        self.assert_refused(r, self.path("nonexistent"), "never created")
        self.assertEqual(os.listdir(self.dir), [])

    def test_textfile_dir_missing(self):
        missing = self.path("nonexistent/x")
        r = self.reportd("--socket", "none", "--textfile-dir", missing)
        self.assert_refused(r, missing, "never created")
        self.assertEqual(os.listdir(self.dir), [])

    @unittest.skipIf(os.path.exists("/nonexistent"), "/nonexistent exists here")
    def test_textfile_dir_nonexistent_root(self):
        r = self.reportd("--socket", "none", "--textfile-dir", "/nonexistent/x")
        self.assert_refused(r, "/nonexistent/x", "never created")
        self.assertFalse(os.path.exists("/nonexistent"))

    def test_textfile_on_a_fifo(self):
        fifo = self.path("wlanfair.prom")
        os.mkfifo(fifo)
        r = self.reportd("--socket", "none", "--textfile-dir", self.dir)
        self.assert_refused(r, fifo, "FIFO")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_check_names_the_paths(self):
        notes = self.write("notes.txt", "my notes\n")
        missing = self.path("nonexistent/x")
        r = run([REPORTD, "-i", "lo", "--no-send", "--check", "--socket", notes,
                 "--textfile-dir", missing])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        sock = [l for l in lines if l.startswith("socket ")]
        text = [l for l in lines if l.startswith("textfile-dir ")]
        self.assertEqual(len(sock), 1, r.stdout)
        self.assertIn("FAILED", sock[0])
        self.assertIn(notes, sock[0])
        self.assertEqual(len(text), 1, r.stdout)
        self.assertIn("FAILED", text[0])
        self.assertIn(missing, text[0])
        self.assertEqual(self.read(notes), "my notes\n")
        self.assertEqual(sorted(os.listdir(self.dir)), ["notes.txt"])

    def test_check_accepts_good_paths(self):
        r = run([REPORTD, "-i", "lo", "--no-send", "--check", "--socket",
                 self.path("report.sock"), "--textfile-dir", self.dir])
        self.assertNotIn("FAILED: " + self.dir, r.stdout)
        self.assertRegex(r.stdout, r"(?m)^socket +ok")
        self.assertRegex(r.stdout, r"(?m)^textfile-dir +ok")
        self.assertEqual(os.listdir(self.dir), [])


class Plot(Files):
    def plot(self, target):
        return run([CTL, "fairness", "--series", SERIES, "--plot", target])

    @unittest.skipUnless(os.geteuid() == 0, "root only: mknod, and a device is replaceable by root alone")
    def test_null_device_stays_a_device(self):
        # /dev/null's own numbers, in our directory: the same rule without
        # destroying the host's /dev/null when the bug comes back (as root
        # the old code renamed an SVG over it).
        dev = self.path("null")
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        before = os.lstat(dev)
        r = self.plot(dev)
        self.assert_refused(r, dev, "character device")
        after = os.lstat(dev)
        self.assertTrue(stat.S_ISCHR(after.st_mode))
        self.assertEqual(after.st_rdev, before.st_rdev)
        self.assertEqual(after.st_ino, before.st_ino)
        self.assertEqual(os.listdir(self.dir), ["null"])

    def test_symlink_refused(self):
        target = self.write("picture.svg", "keep\n")
        link = self.path("link.svg")
        os.symlink(target, link)
        r = self.plot(link)
        self.assert_refused(r, link, "symbolic link")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.readlink(link), target)
        self.assertEqual(self.read(target), "keep\n")

    def test_fifo_refused(self):
        fifo = self.path("fifo.svg")
        os.mkfifo(fifo)
        r = self.plot(fifo)
        self.assert_refused(r, fifo, "FIFO")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_missing_directory_not_created(self):
        out = self.path("nonexistent/out.svg")
        r = self.plot(out)
        self.assert_refused(r, self.path("nonexistent"), "never created")
        self.assertEqual(os.listdir(self.dir), [])



# --check alone: a run registers BPF CCs, which the old code would then
# leave behind when the test killed it.
@unittest.skipUnless(TCPD, "wlanfair-tcpd not built")
class Tcpd(Files):
    def check(self, state_dir):
        return run([TCPD, "--config", self.write("tcpd.conf", ""), "--state-dir", state_dir,
                    "--check"])

    def test_check_missing_state_dir(self):
        missing = self.path("nonexistent/x")
        r = self.check(missing)
        self.assert_refused(r, missing, "never created")
        self.assertIn("state_dir %s FAILED" % missing, r.stdout)
        self.assertEqual(sorted(os.listdir(self.dir)), ["tcpd.conf"])

    def test_check_status_file_on_a_fifo(self):
        os.mkdir(self.path("run"))
        fifo = self.path("run/tcp-status.json")
        os.mkfifo(fifo)
        r = self.check(self.path("run"))
        self.assert_refused(r, fifo, "FIFO")

    def test_check_state_file_symlink(self):
        os.mkdir(self.path("run"))
        target = self.write("elsewhere", "keep\n")
        os.symlink(target, self.path("run/tcpd.state"))
        r = self.check(self.path("run"))
        self.assert_refused(r, self.path("run/tcpd.state"), "symbolic link")

    @unittest.skipUnless(os.geteuid() == 0, "--cleanup needs root")
    def test_cleanup_does_not_create_pin_dir_parents(self):
        # Nothing is saved in the state directory and nothing pinned: the
        # clean-up has nothing to do, and must not make /nonexistent.
        os.mkdir(self.path("run"))
        r = run([TCPD, "--config", self.write("tcpd.conf", ""), "--state-dir", self.path("run"),
                 "--pin-dir", self.path("nonexistent/x"), "--cleanup"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(self.path("nonexistent")))


@unittest.skipUnless(SCAND, "wlanfair-scand not built")
class Scand(Files):
    def check(self, *args):
        return run([SCAND, "-c", self.write("scan.conf", ""), "--check", *args])

    def test_check_missing_state_dir(self):
        missing = self.path("nonexistent")
        r = self.check("--state-dir", missing)
        self.assert_refused(r, missing, "never created")
        self.assertEqual(sorted(os.listdir(self.dir)), ["scan.conf"])

    def test_check_missing_textfile_dir(self):
        os.mkdir(self.path("state"))
        missing = self.path("nonexistent/x")
        r = self.check("--state-dir", self.path("state"), "--textfile-dir", missing)
        self.assert_refused(r, missing, "never created")
        self.assertEqual(sorted(os.listdir(self.dir)), ["scan.conf", "state"])

    def test_check_state_file_on_a_directory(self):
        os.makedirs(self.path("state/bgscan.state"))
        r = self.check("--state-dir", self.path("state"))
        self.assert_refused(r, self.path("state/bgscan.state"), "directory")


@unittest.skipUnless(APD, "wlanfair-apd not built")
class Apd(Files):
    def apd(self, *args):
        # Observing on lo, no bridge ports, no BPF: nothing to restore even
        # where the old code ran on.
        return run([APD, "-c", self.write("apd.conf", "[apd]\n"), "-i", "lo",
                    "-o", "stations-from=bridge-ports", "-o", "download-demand=no",
                    "-o", "actuator=none", "-o", "state=" + self.path("state"),
                    "-o", "port=%d" % free_udp_port(), *args])

    def test_status_in_missing_directory(self):
        status = self.path("nonexistent/status.json")
        r = self.apd("-o", "status=" + status, "-o", "textfile-dir=none")
        self.assert_refused(r, self.path("nonexistent"), "never created")
        self.assertEqual(sorted(os.listdir(self.dir)), ["apd.conf"])

    def test_status_on_a_symlink(self):
        target = self.write("notes.txt", "my notes\n")
        link = self.path("status.json")
        os.symlink(target, link)
        r = self.apd("-o", "status=" + link, "-o", "textfile-dir=none")
        self.assert_refused(r, link, "symbolic link")
        self.assertEqual(self.read(target), "my notes\n")
        self.assertTrue(os.path.islink(link))

    def test_restore_leaves_what_is_not_ours(self):
        # --restore (ExecStopPost=) removes the outputs: regular files
        # alone, never a device, FIFO or link put at their paths.
        fifo = self.path("status.json")
        os.mkfifo(fifo)
        target = self.write("notes.txt", "my notes\n")
        os.mkdir(self.path("prom"))
        prom = self.path("prom/wlanfair-ap.prom")
        os.symlink(target, prom)
        r = run([APD, "-c", self.write("apd.conf", "[apd]\n"), "-o", "state=" + self.path("state"),
                 "-o", "status=" + fifo, "-o", "textfile-dir=" + self.path("prom"), "--restore"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        self.assertTrue(os.path.islink(prom))
        self.assertEqual(self.read(target), "my notes\n")

    def test_check_names_the_textfile_dir(self):
        missing = self.path("nonexistent/x")
        r = self.apd("-o", "status=" + self.path("status.json"), "-o", "textfile-dir=" + missing,
                     "--check")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"(?m)^outputs +FAILED: %s" % missing)
        self.assertEqual(sorted(os.listdir(self.dir)), ["apd.conf"])

if __name__ == "__main__":
    wftest.main()
