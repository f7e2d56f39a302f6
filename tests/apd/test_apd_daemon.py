#!/usr/bin/env python3
"""wlanfair-apd as a program, without root or a network namespace: its
command line and exit codes, --restore, and a run in observe and
fail-open mode (status file, textfile, journal lines, clean stop). The
AP side in a namespace with stations is test_apd.py beside it."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import unittest

# The shared helpers (testlib/wftest.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))), "testlib"))
import wftest  # noqa: E402

APD = os.environ.get("WLANFAIR_APD", "build/apd/wlanfair-apd")


def free_udp_port():
    """A port nobody holds now; the daemon binds it (both families) at once after."""
    return wftest.free_port("::")


class ApdDaemonTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="wf-apd-")
        self.dir = self.tmp.name
        self.status = os.path.join(self.dir, "run", "status.json")
        self.state = os.path.join(self.dir, "run", "state")
        # Named directories are never created (wlanfair-file.h).
        os.mkdir(os.path.join(self.dir, "run"))
        self.prom = os.path.join(self.dir, "prom")
        os.mkdir(self.prom)
        self.conf = os.path.join(self.dir, "apd.conf")
        with open(self.conf, "w") as f:
            f.write("[apd]\n")
        self.proc = None

    def tearDown(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
        self.tmp.cleanup()

    def base(self, *extra):
        # An interface with no bridge ports: zero stations, no privilege.
        # download-demand off: as root its program would go on the
        # machine's lo, which the cases running beside this one share
        # (test_cap_bpf_dropped_unless_rwnd turns it on, later -o wins).
        return [APD, "-c", self.conf, "-i", "lo", "-o", "stations-from=bridge-ports",
                "-o", "status=" + self.status, "-o", "state=" + self.state,
                "-o", "textfile-dir=" + self.prom, "-o", "download-demand=no", *extra]

    def run_apd(self, *args):
        # Never the machine's own /etc/wlanfair/apd.conf.
        if "-c" not in args:
            args = ("-c", self.conf, *args)
        return subprocess.run([APD, *args], capture_output=True, text=True, timeout=30)

    def wait_for(self, cond, what, timeout=10.0):
        def running():
            if self.proc and self.proc.poll() is not None:
                self.fail("wlanfair-apd exited %d while waiting for %s: %s" %
                          (self.proc.returncode, what, self.proc.stderr.read()))
        wftest.wait_for(what, cond, timeout, check=running)

    def start(self, *extra):
        self.proc = subprocess.Popen(self.base("-o", "port=%d" % free_udp_port(), *extra),
                                     stderr=subprocess.PIPE, text=True)
        self.wait_for(lambda: os.path.exists(self.status), "status file")
        self.wait_for(lambda: os.path.exists(os.path.join(self.prom, "wlanfair-ap.prom")),
                      "textfile")
        with open(self.status) as f:
            return json.load(f)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=20)
        return self.proc.returncode, err

    # -- command line --------------------------------------------------

    def test_bad_configuration_exits_2(self):
        cases = [
            (["-o", "interface=wlan0", "-o", "colour=blue"], "unknown setting 'colour'"),
            (["-o", "interface=wlan0", "-o", "floor=fast"], "floor 'fast'"),
            (["-o", "interface"], "is not KEY=VALUE"),
            (["-c", "/nonexistent/apd.conf"], "/nonexistent/apd.conf"),
            (["-c", self.conf], "no interface"),
            (["-c", self.conf, "-i", "wlan0", "-o", "port-rates=p1=30M"], "bridge-ports"),
            (["-i", "wlan0", "-o", "rwnd-policy=fair"],
             "rwnd-policy 'fair' must be station, equal or rtt-fair"),
            (["-c", self.conf, "-i", "wlan0", "-o", "rwnd-policy=equal"], "actuator=rwnd only"),
            (["-i", "wlan0", "--actuator", "tc"], "actuator 'tc' must be one of"),
            # --actuator is applied before the checks that tie keys to it.
            (["-c", self.conf, "-i", "wlan0", "-o", "rwnd-policy=equal", "-o", "rwnd-capacity=19M",
              "--actuator", "rate"], "actuator=rwnd only"),
            (["--check", "--restore", "-i", "wlan0"], "exclude each other"),
            (["stray"], "unexpected argument"),
        ]
        for args, says in cases:
            with self.subTest(args=args):
                r = self.run_apd(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(says, r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_key_errors_exit_2(self):
        key = os.path.join(self.dir, "key")
        with open(key, "wb") as f:
            f.write(os.urandom(32))
        os.chmod(key, 0o644)
        r = self.run_apd(*self.base("-o", "key=" + key, "--check")[1:])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("chmod 600", r.stderr)
        r = self.run_apd(*self.base("-o", "key=" + key + ".missing", "--check")[1:])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("key.missing", r.stderr)

    def test_key_credential(self):
        """apd.key from $CREDENTIALS_DIRECTORY: 0400 and 0440 (systemd 257's
        LoadCredential=) are taken; group write or others' read are not;
        a key= file keeps the 0600 rule."""
        cred = os.path.join(self.dir, "creds")
        os.mkdir(cred)
        key = os.path.join(cred, "apd.key")
        with open(key, "wb") as f:
            f.write(os.urandom(32))
        env = dict(os.environ, CREDENTIALS_DIRECTORY=cred)
        argv = self.base("-o", "actuator=none", "--check")
        for mode, taken in ((0o400, True), (0o440, True), (0o460, False), (0o444, False)):
            with self.subTest(mode=oct(mode)):
                os.chmod(key, mode)
                r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
                if taken:
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    self.assertRegex(r.stdout, r"key +ok: .*apd\.key")
                else:
                    self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                    self.assertIn("must not be accessible", r.stderr)
        os.chmod(key, 0o440)
        r = self.run_apd(*self.base("-o", "key=" + key, "--check")[1:])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("must not be accessible", r.stderr)

    def test_check(self):
        r = self.run_apd(*self.base("-o", "actuator=none", "--check")[1:])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"stations +ok: ports of bridge lo: 0 stations")
        self.assertRegex(r.stdout, r"key +none: the daemon observes only")
        # Not a wireless interface: nl80211 says why (or that it is absent).
        r = self.run_apd("-c", self.conf, "-i", "lo", "-o", "state=" + self.state, "--check")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertRegex(r.stdout, r"stations +FAILED: .*(nl80211 not available|not a wireless)")

    def test_restore(self):
        # Nothing recorded: nothing to do, success.
        r = self.run_apd("-o", "state=" + self.state, "--restore")
        self.assertEqual(r.returncode, 0, r.stderr)
        # A record that names no actuator cannot be undone: said, exit 1.
        os.makedirs(os.path.dirname(self.state), exist_ok=True)
        with open(self.state, "w") as f:
            f.write("[teleport:wlan0]\nx=1\n")
        r = self.run_apd("-o", "state=" + self.state, "--restore")
        self.assertEqual(r.returncode, 1)
        self.assertIn("names no known actuator or cell program", r.stderr)
        # A corrupt file: named, exit 1, left for a person to read.
        with open(self.state, "w") as f:
            f.write("not a key file [[[\n")
        r = self.run_apd("-o", "state=" + self.state, "--restore")
        self.assertEqual(r.returncode, 1)
        self.assertIn(self.state, r.stderr)
        self.assertTrue(os.path.exists(self.state))

    def test_restore_removes_stale_outputs(self):
        # What a crashed run left beside its state: its status file and its
        # textfile would look current to wlanfairctl and to Prometheus.
        os.makedirs(os.path.dirname(self.status), exist_ok=True)
        prom = os.path.join(self.prom, "wlanfair-ap.prom")
        other = os.path.join(self.prom, "node.prom")
        for path in (self.status, prom, other):
            with open(path, "w") as f:
                f.write("stale\n")
        r = self.run_apd("-o", "state=" + self.state, "-o", "status=" + self.status,
                         "-o", "textfile-dir=" + self.prom, "--restore")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(self.status))
        self.assertFalse(os.path.exists(prom))
        self.assertTrue(os.path.exists(other))     # nobody else's file

    # -- a run -----------------------------------------------------------

    def test_observe_without_key(self):
        st = self.start()
        self.assertEqual(st["version"], 1)
        self.assertEqual(st["mode"], "observe")
        self.assertIn("no key", st["mode_reason"])
        self.assertEqual(st["interface"], "lo")
        self.assertEqual(st["stations"], [])
        self.assertEqual(os.stat(self.status).st_mode & 0o777, 0o644)
        with open(os.path.join(self.prom, "wlanfair-ap.prom")) as f:
            prom = f.read()
        self.assertIn('wlanfair_ap_mode{mode="observe"} 1', prom)
        self.assertIn("wlanfair_ap_stations 0", prom)
        # Rounds go on: the counter grows.
        first = st["rounds"]
        def later():
            with open(self.status) as f:
                return json.load(f)["rounds"] > first
        self.wait_for(later, "a later round", timeout=5)
        rc, err = self.stop()
        self.assertEqual(rc, 0, err)
        self.assertIn("started on lo", err)
        self.assertFalse(os.path.exists(self.status))
        self.assertFalse(os.path.exists(os.path.join(self.prom, "wlanfair-ap.prom")))
        # Nothing was changed, so nothing is recorded.
        self.assertFalse(os.path.exists(self.state))

    def test_insecure_unsigned_fails_open_until_a_report(self):
        st = self.start("-o", "insecure-unsigned=yes")
        self.assertEqual(st["mode"], "fail-open")
        self.assertEqual(st["mode_reason"], "waiting for a first trusted report")
        rc, err = self.stop()
        self.assertEqual(rc, 0, err)
        self.assertIn("insecure-unsigned=yes", err)
        self.assertIn("configure key= instead", err)

    def test_actuator_none_observes_with_key(self):
        key = os.path.join(self.dir, "key")
        with open(key, "wb") as f:
            f.write(os.urandom(32))
        os.chmod(key, 0o600)
        st = self.start("-o", "key=" + key, "-o", "actuator=none")
        self.assertEqual(st["mode"], "observe")
        self.assertEqual(st["mode_reason"], "actuator=none")
        self.assertEqual(self.stop()[0], 0)

    def test_malformed_report_counted(self):
        port = free_udp_port()
        self.proc = subprocess.Popen(self.base("-o", "port=%d" % port), stderr=subprocess.PIPE,
                                     text=True)
        self.wait_for(lambda: os.path.exists(self.status), "status file")
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _ in range(3):
                s.sendto(b'{"wlanfair_report": 1, "seq": ', ("127.0.0.1", port))
        def counted():
            with open(self.status) as f:
                return json.load(f)["reports"]["rejected"]["json"] == 3
        self.wait_for(counted, "three malformed reports counted")
        # Sent over lo to this host: addressed, never also carried.
        with open(self.status) as f:
            reports = json.load(f)["reports"]
        self.assertEqual(reports["accepted_by_path"], {"addressed": 0, "carried": 0})
        self.assertEqual(self.stop()[0], 0)

    def test_carried_without_cap_net_raw(self):
        """Without CAP_NET_RAW carried reports are off, said in one line;
        carried-reports=yes then refuses to start."""
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root and setpriv (to drop CAP_NET_RAW)")
        drop = ["setpriv", "--bounding-set=-net_raw"]
        self.proc = subprocess.Popen(drop + self.base("-o", "port=%d" % free_udp_port()),
                                     stderr=subprocess.PIPE, text=True)
        self.wait_for(lambda: os.path.exists(self.status), "status file")
        with open(self.status) as f:
            carried = json.load(f)["reports"]["carried"]
        self.assertFalse(carried["enabled"])
        self.assertIn("needs CAP_NET_RAW", carried["note"])
        with open(os.path.join(self.prom, "wlanfair-ap.prom")) as f:
            self.assertIn("wlanfair_ap_carried_reports_enabled 0", f.read())
        rc, err = self.stop()
        self.assertEqual(rc, 0, err)
        self.assertEqual(err.count("carried reports: off (needs CAP_NET_RAW): "), 1, err)
        r = subprocess.run(drop + self.base("-o", "port=%d" % free_udp_port(),
                                            "-o", "carried-reports=yes"),
                           capture_output=True, text=True, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("carried-reports=yes", r.stderr)
        self.assertIn("needs CAP_NET_RAW", r.stderr)

    def test_cap_bpf_dropped_unless_rwnd(self):
        """Run as the unit runs it (a user with CAP_NET_ADMIN, CAP_NET_RAW
        and CAP_BPF as ambient capabilities): CAP_BPF leaves every set
        right after the configuration is read, said in one line, unless
        actuator=rwnd or download-demand (on by default), which then load
        their programs with exactly those capabilities."""
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root and setpriv (to run as the unit does)")
        with open("/proc/sys/kernel/cap_last_cap") as f:
            if int(f.read()) < 39:
                self.skipTest("a kernel without CAP_BPF")
        os.chmod(self.dir, 0o777)
        os.chmod(self.prom, 0o777)
        os.chmod(os.path.dirname(self.state), 0o777)
        unit = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "--inh-caps=+net_admin,+net_raw,+bpf",
                "--ambient-caps=+net_admin,+net_raw,+bpf"]
        cap_bpf, cap_net_admin = 1 << 39, 1 << 12
        # download-demand=auto counts only where the daemon may act: with
        # actuator=none it observes, with insecure-unsigned=yes it may.
        for actuator, demand, kept in (("none", "no", False), ("rwnd", "no", True),
                                       ("none", "auto", False), ("rate", "auto", True)):
            with self.subTest(actuator=actuator, demand=demand):
                self.proc = subprocess.Popen(
                    unit + self.base("-o", "port=%d" % free_udp_port(),
                                     "-o", "download-demand=" + demand,
                                     "-o", "insecure-unsigned=yes",
                                     "--actuator", actuator),
                    stderr=subprocess.PIPE, text=True)
                try:
                    self.wait_for(lambda: os.path.exists(self.status), "status file")
                except AssertionError as e:
                    if "must be one of" in str(e):
                        self.skipTest("built without rwnd")
                    raise
                with open("/proc/%d/status" % self.proc.pid) as f:
                    caps = {k: int(v, 16) for k, v in
                            (line.split(":\t") for line in f if line.startswith("Cap"))}
                for which in ("CapEff", "CapPrm", "CapInh", "CapAmb"):
                    self.assertEqual(bool(caps[which] & cap_bpf), kept, (which, caps))
                self.assertTrue(caps["CapEff"] & cap_net_admin, caps)
                rc, err = self.stop()
                self.assertEqual(rc, 0, err)
                self.assertEqual(err.count("dropped CAP_BPF (actuator %s does not need it)"
                                           % actuator), 0 if kept else 1, err)
                if demand == "auto":
                    self.assertEqual("download-demand on lo: counting" in err, kept, err)
                self.assertFalse(os.path.exists(self.status))


if __name__ == "__main__":
    wftest.main()
