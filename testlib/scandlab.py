"""The scan guard's test bed, shared by tests/integration/test_scand.py and
the benchmarks (bench/scan-guard, idle, scan-onoff, metrics-series): a private system bus (python-dbusmock), NetworkManager
(dbusmock's networkmanager template, plus Update2 on settings
connections), wpa_supplicant (wpas_mock.py), and a veth pair in two
network namespaces standing in for the Wi-Fi link: wlanfair-scand runs in
the "station" namespace, where the veth end carries the name the mocked
wpa_supplicant interface and NetworkManager device report; a UDP blaster
in the "peer" namespace makes traffic.

Every namespace and veth is named wfc<pid>...; close() removes them.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import dbus
import dbusmock
from dbusmock import DBusTestCase
from dbusmock.templates.networkmanager import DeviceState

from wftest import run, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
WPAS_MOCK = os.path.join(HERE, "wpas_mock.py")
PY = "/usr/bin/python3"  # the Debian interpreter: dbus, gi, dbusmock

NM = "org.freedesktop.NetworkManager"
NM_SETTINGS = "/org/freedesktop/NetworkManager/Settings"
NM_SETTINGS_IFACE = "org.freedesktop.NetworkManager.Settings"
NM_CSETTINGS_IFACE = "org.freedesktop.NetworkManager.Settings.Connection"
NM_TEST_IFACE = "org.wlanfair.Test.NM"
WPAS = "fi.w1.wpa_supplicant1"
WPAS_ROOT = "/fi/w1/wpa_supplicant1"
WPAS_CTL = "org.wlanfair.Test.Wpas"
WPAS_NET = "fi.w1.wpa_supplicant1.Network"
GUARD = "org.wlanfair.ScanGuard1"
GUARD_PATH = "/org/wlanfair/ScanGuard1"
GUARD_DEV = "org.wlanfair.ScanGuard1.Device"

# Update2 as NetworkManager implements it: the new settings replace the
# old ones (the template's Update merges, which cannot remove a user.data
# key); flags are kept for the test to check.
UPDATE2_CODE = """
self.settings = args[0]
self.props.setdefault('%s', {})['Update2Flags'] = args[1]
self.props['%s']['Update2Count'] = self.props['%s'].get('Update2Count', 0) + 1
self.EmitSignal('%s', 'Updated', '', [])
ret = dbus.Dictionary({}, signature='sv')
""" % (NM_TEST_IFACE, NM_TEST_IFACE, NM_TEST_IFACE, NM_CSETTINGS_IFACE)


def env_tool(var, name):
    return os.environ.get(var) or shutil.which(name) or name


SCAND = env_tool("WLANFAIR_SCAND", "wlanfair-scand")
CTL = env_tool("WLANFAIRCTL", "wlanfairctl")

BLASTER = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dst = (sys.argv[1], 9); pps = float(sys.argv[2]); buf = b"x" * int(sys.argv[3])
print("ready", flush=True)
t = time.monotonic()
while True:
    s.sendto(buf, dst)
    t += 1.0 / pps
    d = t - time.monotonic()
    if d > 0:
        time.sleep(d)
"""

HOLDER = """
import dbus, sys, time
bus = dbus.bus.BusConnection(sys.argv[1])
g = dbus.Interface(bus.get_object("org.wlanfair.ScanGuard1", "/org/wlanfair/ScanGuard1"),
                   "org.wlanfair.ScanGuard1")
print(int(g.Hold(sys.argv[2])), bus.get_unique_name(), flush=True)
sys.stdin.read()
"""


class Bus:
    """A private system bus; DBUS_SYSTEM_BUS_ADDRESS points at it."""

    def __init__(self):
        DBusTestCase.start_system_bus()
        self.address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
        self.conn = dbus.bus.BusConnection(self.address)

    def close(self):
        # dbusmock 0.28 (Debian 12) forgets its data directory before it
        # would remove it: /tmp kept a dbusmock_data_* per test.
        datadir = getattr(DBusTestCase, "_DBusTestCase__datadir", None)
        DBusTestCase.tearDownClass()
        if datadir:
            shutil.rmtree(datadir, ignore_errors=True)


class Lab:
    def __init__(self, with_netns=True, nm=True):
        self.p = "wfc%d" % (os.getpid() % 10000000)
        self.tmp = tempfile.mkdtemp(prefix=self.p + "-")
        self.procs = []
        self.daemon = None
        self.daemon_log = None
        self.blaster = None
        self.station = self.peer = None
        self.ifname = self.p + "s"
        self.peer_if = self.p + "p"
        self.addr, self.peer_addr = "10.232.0.1", "10.232.0.2"
        self.bus = None
        self.nm = self.nm_proc = None
        self.wpas_proc = None
        try:
            self.bus = Bus()
            self.conn = self.bus.conn
            if with_netns:
                self._netns()
            if nm:
                self._nm()
            self.start_wpas()
        except BaseException:
            self.close()
            raise

    # ---- network namespaces ----
    def _netns(self):
        self.station, self.peer = self.p + "-sta", self.p + "-peer"
        run("ip", "netns", "add", self.station)
        run("ip", "netns", "add", self.peer)
        run("ip", "link", "add", self.ifname, "netns", self.station, "type", "veth",
            "peer", "name", self.peer_if, "netns", self.peer)
        for ns, dev, addr in ((self.station, self.ifname, self.addr),
                              (self.peer, self.peer_if, self.peer_addr)):
            # No IPv6 chatter (DAD, router solicitations) in the counters.
            run("ip", "netns", "exec", ns, "sysctl", "-qw",
                "net.ipv6.conf.%s.disable_ipv6=1" % dev)
            run("ip", "-n", ns, "addr", "add", addr + "/24", "dev", dev)
            run("ip", "-n", ns, "link", "set", dev, "up")
            run("ip", "-n", ns, "link", "set", "lo", "up")

    def ifindex(self):
        out = run("ip", "-n", self.station, "-o", "link", "show", self.ifname).stdout
        return int(out.split(":", 1)[0])

    # ---- NetworkManager (dbusmock template) ----
    def _nm(self):
        self.nm_proc, self.nm = DBusTestCase.spawn_server_template(
            "networkmanager", {}, stdout=subprocess.DEVNULL, system_bus=True)
        self.procs.append(self.nm_proc)
        self.nm_mock = dbus.Interface(self.nm, dbusmock.MOCK_IFACE)
        self.settings = dbus.Interface(self.conn.get_object(NM, NM_SETTINGS), NM_SETTINGS_IFACE)

    def restart_nm(self):
        """A new NetworkManager (mock) on the bus, after the old one ended:
        no devices or profiles until the test adds them again."""
        if self.nm_proc.poll() is None:
            self.nm_proc.terminate()
            self.nm_proc.wait(10)
        self._nm()

    def nm_device(self, ifname=None, state=DeviceState.ACTIVATED):
        return self.nm_mock.AddWiFiDevice(self.p, ifname or self.ifname, state)

    def nm_profile(self, name, user_data=None, ssid="wfc-test"):
        """A saved Wi-Fi profile (with user.data) that supports Update2."""
        s = {
            "connection": {"id": name, "type": "802-11-wireless",
                           "uuid": str(__import__("uuid").uuid4())},
            "802-11-wireless": {"ssid": dbus.ByteArray(ssid.encode()), "mode": "infrastructure"},
            "ipv4": {"method": "auto"},
            "ipv6": {"method": "auto"},
        }
        if user_data:
            s["user"] = {"data": dbus.Dictionary(user_data, signature="ss")}
        path = self.settings.AddConnection(dbus.Dictionary(s, signature="sa{sv}"))
        obj = self.conn.get_object(NM, path)
        obj.AddMethod(NM_CSETTINGS_IFACE, "Update2", "a{sa{sv}}ua{sv}", "a{sv}", UPDATE2_CODE,
                      dbus_interface=dbusmock.MOCK_IFACE)
        return str(path)

    def nm_activate(self, device, profile, name="0"):
        return self.nm_mock.AddActiveConnection([device], profile, "/", name, dbus.UInt32(2))

    def nm_settings_of(self, profile):
        return self.conn.get_object(NM, profile).GetSettings(dbus_interface=NM_CSETTINGS_IFACE)

    def nm_user_data(self, profile):
        s = self.nm_settings_of(profile)
        return {str(k): str(v) for k, v in s.get("user", {}).get("data", {}).items()}

    def nm_update2(self, profile):
        obj = self.conn.get_object(NM, profile)
        try:
            return (int(obj.Get(NM_TEST_IFACE, "Update2Count", dbus_interface=dbus.PROPERTIES_IFACE)),
                    int(obj.Get(NM_TEST_IFACE, "Update2Flags", dbus_interface=dbus.PROPERTIES_IFACE)))
        except dbus.DBusException:
            return (0, None)

    # ---- wpa_supplicant (wpas_mock.py) ----
    def start_wpas(self):
        p = subprocess.Popen([PY, WPAS_MOCK, "--address", self.bus.address],
                             stdout=subprocess.PIPE, text=True)
        self.procs.append(p)
        if p.stdout.readline().strip() != "ready":
            raise AssertionError("wpas_mock.py did not start")
        self.wpas_proc = p
        self.wpas = dbus.Interface(self.conn.get_object(WPAS, WPAS_ROOT), WPAS_CTL)

    def stop_wpas(self):
        self.wpas_proc.terminate()
        self.wpas_proc.wait(10)

    def restart_wpas(self, gap_ms):
        """wpa_supplicant drops off the bus with every object and takes its
        name back GAP_MS later; returns once it has (a wait for that
        condition, not a sleep: under load the mock may take longer)."""
        # Bound to the mock's unique name, which outlives the restart.
        root = self.conn.get_object(WPAS, WPAS_ROOT)

        def interfaces():
            return root.Get(WPAS, "Interfaces", dbus_interface=dbus.PROPERTIES_IFACE)

        if not interfaces():
            raise AssertionError("restart_wpas: no interface to tell the restart by")
        self.wpas.Restart(gap_ms)
        self.wait_for("the wpa_supplicant mock to drop its objects", lambda: not interfaces())
        self.wait_for("the wpa_supplicant mock back on the bus", lambda: self.conn.name_has_owner(WPAS))

    def connect(self, bgscan="simple:17:-61:999", ssid="wfc-test", iface=None):
        """The station connected: an interface (if none given), a network
        with BGSCAN as NetworkManager would add it, current and completed."""
        iface = iface or self.wpas.AddInterface(self.ifname)
        opts = {"ssid": ssid, "key_mgmt": "WPA-PSK", "scan_ssid": "1"}
        if bgscan is not None:
            opts["bgscan"] = bgscan
        net = self.wpas.AddNetwork(iface, opts)
        self.wpas.SetCurrentNetwork(iface, net)
        self.wpas.SetState(iface, "completed")
        return str(iface), str(net)

    def bgscan(self, net):
        present, value = self.wpas.Bgscan(net)
        return str(value) if present else None

    def writes(self, key="bgscan"):
        return [(str(n), str(v), float(t)) for n, k, v, _, t in self.wpas.Writes() if k == key]

    # ---- the daemon ----
    def write_config(self, **keys):
        path = os.path.join(self.tmp, "scan.conf")
        with open(path, "w") as f:
            f.write("[scan]\n")
            for k, v in keys.items():
                f.write("%s=%s\n" % (k.replace("_", "-"), v))
        os.makedirs(path + ".d", exist_ok=True)
        return path

    def start_daemon(self, config=None, args=(), wait_device=True, verbose=True):
        config = config or self.write_config()
        state = os.path.join(self.tmp, "state")
        os.makedirs(state, exist_ok=True)
        # Never the host's node_exporter directory.
        os.makedirs(self.textfile_dir(), exist_ok=True)
        argv = [SCAND, "--bus", self.bus.address, "--config", config,
                "--state-dir", state, "--textfile-dir", self.textfile_dir(),
                *(["--verbose"] if verbose else []), *args]
        if self.station:
            argv = ["ip", "netns", "exec", self.station] + argv
        self.daemon_log = open(os.path.join(self.tmp, "scand-%d.log" % len(self.procs)), "w+")
        p = subprocess.Popen(argv, stdout=self.daemon_log, stderr=subprocess.STDOUT)
        self.procs.append(p)
        self.daemon = p
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if p.poll() is not None:
                raise AssertionError("wlanfair-scand exited %d: %s" % (p.returncode, self.log()))
            if self.conn.name_has_owner(GUARD):
                if not wait_device or self.device_path():
                    return p
            time.sleep(0.05)
        raise AssertionError("wlanfair-scand did not come up within 15 s: " + self.log())

    def stop_daemon(self, sig=signal.SIGTERM, timeout=15):
        p = self.daemon
        p.send_signal(sig)
        p.wait(timeout)
        return p.returncode

    def log(self):
        if not self.daemon_log:
            return ""
        self.daemon_log.flush()
        with open(self.daemon_log.name) as f:
            return f.read()

    def state_dir(self):
        return os.path.join(self.tmp, "state")

    def textfile_dir(self):
        return os.path.join(self.tmp, "metrics")

    def state_entries(self):
        """{network: saved value} of the state file ({} if absent)."""
        import configparser
        kf = configparser.ConfigParser(interpolation=None, delimiters=("=",))
        kf.optionxform = str
        kf.read(os.path.join(self.state_dir(), "bgscan.state"))
        return {net: kf[net]["saved"] for net in kf.sections()}

    def held(self):
        """(method, object) of the calls the wpa_supplicant mock holds."""
        return [(str(m), str(o)) for m, o in self.wpas.Held()]

    def restore(self, config=None):
        """wlanfair-scand --restore on this lab's bus and state."""
        argv = [SCAND, "--restore", "--bus", self.bus.address,
                "--config", config or self.write_config(),
                "--state-dir", self.state_dir(), "--textfile-dir", self.textfile_dir()]
        if self.station:
            argv = ["ip", "netns", "exec", self.station] + argv
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)

    def textfile(self):
        """{(name, labels): value} of wlanfair-scan.prom, None if absent."""
        try:
            with open(os.path.join(self.textfile_dir(), "wlanfair-scan.prom")) as f:
                text = f.read()
        except FileNotFoundError:
            return None
        samples = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                key, value = line.rsplit(" ", 1)
                samples[key] = float(value)
        return samples

    def guard(self):
        return self.conn.get_object(GUARD, GUARD_PATH)

    def guard_prop(self, name):
        return self.guard().Get(GUARD, name, dbus_interface=dbus.PROPERTIES_IFACE)

    def device_path(self):
        try:
            devs = self.guard_prop("Devices")
        except dbus.DBusException:
            return None
        return str(devs[0]) if devs else None

    def device(self):
        path = self.device_path()
        if not path:
            return {}
        props = self.conn.get_object(GUARD, path).GetAll(GUARD_DEV, dbus_interface=dbus.PROPERTIES_IFACE)
        return {str(k): v for k, v in props.items()}

    def status_json(self):
        r = run(CTL, "scan", "status", "--json")
        return json.loads(r.stdout)

    # ---- traffic ----
    def traffic(self, pps=300, size=200):
        """UDP from the peer to the station (rx at the station; the ICMP
        port-unreachable answers are tx, rate-limited by the kernel)."""
        self.stop_traffic()
        p = subprocess.Popen(["ip", "netns", "exec", self.peer, PY, "-c", BLASTER,
                              self.addr, str(pps), str(size)],
                             stdout=subprocess.PIPE, text=True)
        self.procs.append(p)
        if p.stdout.readline().strip() != "ready":
            raise AssertionError("traffic generator did not start")
        self.blaster = p
        return time.monotonic()

    def stop_traffic(self):
        """Stops the generator; returns the CLOCK_MONOTONIC time taken just
        before the kill: it sent until then, so the daemon cannot have
        seen the link idle any earlier (taken after the kill and wait, it
        would move later whenever this process is slow to run)."""
        t = time.monotonic()
        if self.blaster and self.blaster.poll() is None:
            self.blaster.kill()
            self.blaster.wait()
        self.blaster = None
        return t

    def holder(self, reason):
        """A separate bus client that takes a hold and keeps it until killed."""
        p = subprocess.Popen([PY, "-c", HOLDER, self.bus.address, reason],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.procs.append(p)
        cookie, name = p.stdout.readline().split()
        return p, int(cookie), name

    # ---- waiting ----
    def wait_for(self, what, fn, timeout=10, interval=0.05):
        """wftest.wait_for with D-Bus errors as "not yet" and the daemon's log."""
        return wait_for(what, fn, timeout, interval, ignore=(dbus.DBusException,),
                        detail=lambda: "\n--- daemon log ---\n" + self.log())

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.kill()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    pass
            for f in (p.stdin, p.stdout):
                if f:
                    f.close()
        if self.daemon_log:
            self.daemon_log.close()
        for ns in (self.station, self.peer):
            if ns:
                run("ip", "netns", "del", ns, check=False)
        if self.bus:
            self.bus.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def have_dbusmock():
    try:
        import dbusmock.templates.networkmanager  # noqa: F401
        import gi  # noqa: F401
        return True
    except ImportError:
        return False




if __name__ == "__main__":
    sys.exit("a module: see tests/integration/test_scand.py")
