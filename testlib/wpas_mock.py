#!/usr/bin/python3
"""A small wpa_supplicant (fi.w1.wpa_supplicant1) for the scan guard's
integration tests: the part of the D-Bus API wlanfair-scand uses (see
nm-plugin/README.md, "wpa_supplicant D-Bus calls"), with wpa_supplicant's
own quirks, plus a test-control interface.

Run: wpas_mock.py [--address ADDRESS]   (default: $DBUS_SYSTEM_BUS_ADDRESS)
Prints "ready" on stdout once it owns fi.w1.wpa_supplicant1.

Behaviour copied from wpa_supplicant 2.10 (wpa_supplicant/dbus/):
- Network.Properties reads back every value as a string; string options
  come back quoted the way the configuration writer prints them
  (bgscan "simple:30:-70:86400" reads as "\"simple:30:-70:86400\"");
  an option never set is absent.
- Network.Properties is written with Properties.Set and an a{sv}; a string
  value is quoted by wpa_supplicant unless the key is in its dont_quote
  list; the empty string is accepted (bgscan "" stops bgscan); only the
  keys given change.
- Interface properties change with org.freedesktop.DBus.Properties
  .PropertiesChanged and the legacy fi.w1.wpa_supplicant1.Interface
  .PropertiesChanged.
- AbortScan fails when no scan runs.

Test control, interface org.wlanfair.Test.Wpas on /fi/w1/wpa_supplicant1:
  AddInterface(s ifname) -> o
  RemoveInterface(o iface)
  AddNetwork(o iface, a{ss} options) -> o       options unquoted, as over D-Bus
  RemoveNetwork(o network)
  SetCurrentNetwork(o iface, o network)          "/" for none
  SetState(o iface, s state)                     "completed", "disconnected", ...
  SetSignal(o iface, i dbm)                      SignalPoll rssi and BSS Signal
  SetSignalPollFails(o iface, b fails)
  StartScan(o iface, u duration_ms)              Scanning true, then false + ScanDone;
                                                 during a scan: it ends duration_ms
                                                 from now (no new Scanning signal)
  Restart(u gap_ms)                              drop the name and every object,
                                                 take the name back after gap_ms
  Writes() -> a(ssssd)                           every Network.Properties write:
                                                 (network, key, value as sent,
                                                 caller, CLOCK_MONOTONIC s)
  ClearWrites()
  Calls() -> a(sss)                              (method, object, caller) of every
                                                 non-property method call
  Bgscan(o network) -> (b set, s value)          unquoted stored value
  WriteModes(as modes)                           how the coming Network.Properties
                                                 Sets are handled, one mode each:
                                                 "normal"; "late" (held: applied and
                                                 answered just before the next call
                                                 is handled, as a busy wpa_supplicant
                                                 does after the caller's timeout);
                                                 "lost" (never applied nor answered);
                                                 "unanswered" (applied, no answer);
                                                 "twice" (applied, answered twice);
                                                 "refused" (an error, not applied);
                                                 "stop" (held, then Stop() as if by
                                                 the caller of WriteModes)
  Stop()                                         as SIGSTOP: every call of anyone but
                                                 the caller of Stop is held, in order
  Resume()                                       handles the held calls in order
  Held() -> a(ss)                                (method, object) of the held calls

The calls a wpa_supplicant handles (Properties Get/GetAll/Set, SignalPoll,
AbortScan) go through Mock.call(), one at a time in arrival order, as the
real one's single thread takes its D-Bus messages: a held call is handled
before any call that arrived after it. A restart answers the held calls
with the bus's NoReply, as a process that exits leaves them.
"""
import argparse
import sys
import time

import dbus
import dbus.lowlevel
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "fi.w1.wpa_supplicant1"
ROOT = "/fi/w1/wpa_supplicant1"
IFACE_MAIN = "fi.w1.wpa_supplicant1"
IFACE_IF = "fi.w1.wpa_supplicant1.Interface"
IFACE_NET = "fi.w1.wpa_supplicant1.Network"
IFACE_BSS = "fi.w1.wpa_supplicant1.BSS"
IFACE_CTL = "org.wlanfair.Test.Wpas"
PROPS = dbus.PROPERTIES_IFACE
# wpa_supplicant/dbus/dbus_new_handlers.c
DONT_QUOTE = {"key_mgmt", "proto", "pairwise", "auth_alg", "group", "eap",
              "bssid", "scan_freq", "freq_list", "scan_ssid", "bssid_hint",
              "bssid_ignore", "bssid_accept", "bssid_blacklist",
              "bssid_whitelist", "group_mgmt", "ignore_broadcast_ssid",
              "priority", "mode", "frequency", "disabled", "ieee80211w"}


class Error(dbus.DBusException):
    def __init__(self, name, msg):
        super().__init__(msg, name=name)


def invalid_args(msg):
    return Error("org.freedesktop.DBus.Error.InvalidArgs", msg)


class PropObject(dbus.service.Object):
    """org.freedesktop.DBus.Properties over a dict per interface."""

    def __init__(self, mock, path):
        self.mock = mock
        self.path = path
        self.props = {}
        super().__init__(mock.bus, path)

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v", sender_keyword="sender",
                         async_callbacks=("ok", "err"))
    def Get(self, iface, name, sender=None, ok=None, err=None):
        def run():
            try:
                return (self.get_prop(iface, name),)
            except KeyError:
                raise invalid_args("no property %s.%s" % (iface, name))
        self.mock.call("Get", self.path, run, ok, err, sender)

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}", sender_keyword="sender",
                         async_callbacks=("ok", "err"))
    def GetAll(self, iface, sender=None, ok=None, err=None):
        def run():
            return (dbus.Dictionary({k: self.get_prop(iface, k) for k in self.prop_names(iface)},
                                    signature="sv"),)
        self.mock.call("GetAll", self.path, run, ok, err, sender)

    def prop_names(self, iface):
        return list(self.props.get(iface, {}))

    @dbus.service.method(PROPS, in_signature="ssv", out_signature="", sender_keyword="sender",
                         async_callbacks=("ok", "err"))
    def Set(self, iface, name, value, sender=None, ok=None, err=None):
        def run():
            self.set_prop(iface, name, value, sender)
            return ()
        self.mock.call("Set", self.path, run, ok, err, sender,
                       is_write=iface == IFACE_NET and name == "Properties")

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, iface, changed, invalidated):
        pass

    def get_prop(self, iface, name):
        return self.props[iface][name]

    def set_prop(self, iface, name, value, sender):
        raise Error("org.freedesktop.DBus.Error.PropertyReadOnly", "read-only property")

    def update(self, iface, **changed):
        changed = {k: v for k, v in changed.items() if self.props[iface].get(k) != v}
        if not changed:
            return
        self.props[iface].update(changed)
        self.PropertiesChanged(iface, dbus.Dictionary(changed, signature="sv"),
                               dbus.Array([], signature="s"))
        self.legacy_changed(iface, changed)

    def legacy_changed(self, iface, changed):
        pass


class Network(PropObject):
    def __init__(self, mock, iface, path, options):
        super().__init__(mock, path)
        self.iface = iface
        self.options = {}  # key -> configuration text (quoted where wpa_s quotes)
        for k, v in options.items():
            self.options[k] = self.config_text(k, v)
        self.props[IFACE_NET] = {"Enabled": dbus.Boolean(True)}

    @staticmethod
    def config_text(key, value):
        if isinstance(value, (dbus.String, str)):
            return str(value) if key in DONT_QUOTE else '"%s"' % value
        if isinstance(value, (dbus.Int32, dbus.UInt32, int)):
            return str(int(value))
        if isinstance(value, (dbus.Array, dbus.ByteArray, bytes)):
            if len(value) == 0:
                raise invalid_args("invalid message format")  # as wpa_s: empty ay refused
            return "".join("%02x" % int(b) for b in bytes(value))
        raise invalid_args("invalid message format")

    def get_prop(self, iface, name):
        if iface == IFACE_NET and name == "Properties":
            return dbus.Dictionary({k: dbus.String(v) for k, v in self.options.items()},
                                   signature="sv")
        return super().get_prop(iface, name)

    def prop_names(self, iface):
        return super().prop_names(iface) + (["Properties"] if iface == IFACE_NET else [])

    def set_prop(self, iface, name, value, sender):
        if iface != IFACE_NET or name != "Properties":
            return super().set_prop(iface, name, value, sender)
        if not isinstance(value, dbus.Dictionary):
            raise invalid_args("invalid message format")
        new = {}
        for k, v in value.items():
            new[str(k)] = self.config_text(str(k), v)
        for k, v in value.items():
            self.mock.writes.append((self.path, str(k), str(v) if isinstance(v, (str, dbus.String)) else repr(v),
                                     sender or "", time.monotonic()))
        self.options.update(new)
        self.PropertiesChanged(IFACE_NET, dbus.Dictionary(
            {"Properties": self.get_prop(IFACE_NET, "Properties")}, signature="sv"),
            dbus.Array([], signature="s"))


class Bss(PropObject):
    def __init__(self, mock, path, signal):
        super().__init__(mock, path)
        self.props[IFACE_BSS] = {
            "Signal": dbus.Int16(signal),
            "SSID": dbus.ByteArray(b"wfc-test"),
            "BSSID": dbus.ByteArray(bytes.fromhex("020000000001")),
            "Frequency": dbus.UInt16(2412),
        }


class Interface(PropObject):
    def __init__(self, mock, path, ifname):
        super().__init__(mock, path)
        self.ifname = ifname
        self.networks = {}
        self.signal = -50
        self.poll_fails = False
        self.scan_timer = 0
        self.bss = Bss(mock, path + "/BSSs/0", self.signal)
        self.props[IFACE_IF] = {
            "Ifname": dbus.String(ifname),
            "Driver": dbus.String("nl80211"),
            "State": dbus.String("disconnected"),
            "Scanning": dbus.Boolean(False),
            "CurrentNetwork": dbus.ObjectPath("/"),
            "CurrentBSS": dbus.ObjectPath("/"),
            "Networks": dbus.Array([], signature="o"),
            "BSSs": dbus.Array([dbus.ObjectPath(self.bss.path)], signature="o"),
        }

    def legacy_changed(self, iface, changed):
        # fi.w1.wpa_supplicant1.Interface.PropertiesChanged(a{sv}): the name
        # clashes with the standard signal's Python method, so by hand.
        if iface == IFACE_IF:
            msg = dbus.lowlevel.SignalMessage(self.path, IFACE_IF, "PropertiesChanged")
            msg.append(dbus.Dictionary(changed, signature="sv"), signature="a{sv}")
            self.mock.bus.send_message(msg)

    @dbus.service.signal(IFACE_IF, signature="oa{sv}")
    def NetworkAdded(self, path, props):
        pass

    @dbus.service.signal(IFACE_IF, signature="o")
    def NetworkRemoved(self, path):
        pass

    @dbus.service.signal(IFACE_IF, signature="o")
    def NetworkSelected(self, path):
        pass

    @dbus.service.signal(IFACE_IF, signature="b")
    def ScanDone(self, success):
        pass

    def _call(self, method, sender):
        self.mock.calls.append((method, self.path, sender or ""))

    @dbus.service.method(IFACE_IF, in_signature="", out_signature="a{sv}", sender_keyword="sender",
                         async_callbacks=("ok", "err"))
    def SignalPoll(self, sender=None, ok=None, err=None):
        def run():
            self._call("SignalPoll", sender)
            if self.poll_fails or self.props[IFACE_IF]["State"] != "completed":
                raise Error("fi.w1.wpa_supplicant1.UnknownError", "Failed to read signal")
            return (dbus.Dictionary({"rssi": dbus.Int32(self.signal),
                                     "linkspeed": dbus.Int32(144),
                                     "noise": dbus.Int32(-92),
                                     "frequency": dbus.UInt32(2412)}, signature="sv"),)
        self.mock.call("SignalPoll", self.path, run, ok, err, sender)

    @dbus.service.method(IFACE_IF, in_signature="", out_signature="", sender_keyword="sender",
                         async_callbacks=("ok", "err"))
    def AbortScan(self, sender=None, ok=None, err=None):
        def run():
            self._call("AbortScan", sender)
            if not self.props[IFACE_IF]["Scanning"]:
                raise Error("fi.w1.wpa_supplicant1.Interface.ScanError",
                            "Abort failed or no scan in progress")
            self.end_scan(False)
            return ()
        self.mock.call("AbortScan", self.path, run, ok, err, sender)

    @dbus.service.method(IFACE_IF, in_signature="a{sv}", out_signature="", sender_keyword="sender")
    def Scan(self, args, sender=None):
        self._call("Scan", sender)
        self.start_scan(200)

    # Recorded only: the guard must never call these.
    @dbus.service.method(IFACE_IF, in_signature="", out_signature="", sender_keyword="sender")
    def Disconnect(self, sender=None):
        self._call("Disconnect", sender)

    @dbus.service.method(IFACE_IF, in_signature="", out_signature="", sender_keyword="sender")
    def Reassociate(self, sender=None):
        self._call("Reassociate", sender)

    @dbus.service.method(IFACE_IF, in_signature="", out_signature="", sender_keyword="sender")
    def Reconnect(self, sender=None):
        self._call("Reconnect", sender)

    @dbus.service.method(IFACE_IF, in_signature="o", out_signature="", sender_keyword="sender")
    def RemoveNetwork(self, path, sender=None):
        self._call("RemoveNetwork", sender)
        self.remove_network(path)

    @dbus.service.method(IFACE_IF, in_signature="o", out_signature="", sender_keyword="sender")
    def SelectNetwork(self, path, sender=None):
        self._call("SelectNetwork", sender)

    def add_network(self, options):
        # wpa_config_add_network(): highest id + 1, so a removed last
        # network's id (and D-Bus path) is used again.
        ids = [int(p.rsplit("/", 1)[1]) for p in self.networks]
        path = "%s/Networks/%d" % (self.path, max(ids) + 1 if ids else 0)
        net = Network(self.mock, self, path, options)
        self.networks[path] = net
        self.update(IFACE_IF, Networks=dbus.Array([dbus.ObjectPath(p) for p in self.networks],
                                                  signature="o"))
        self.NetworkAdded(dbus.ObjectPath(path), dbus.Dictionary({}, signature="sv"))
        return path

    def remove_network(self, path):
        net = self.networks.pop(str(path), None)
        if not net:
            raise invalid_args("no network %s" % path)
        if self.props[IFACE_IF]["CurrentNetwork"] == path:
            self.update(IFACE_IF, CurrentNetwork=dbus.ObjectPath("/"), CurrentBSS=dbus.ObjectPath("/"),
                        State=dbus.String("disconnected"))
        self.update(IFACE_IF, Networks=dbus.Array([dbus.ObjectPath(p) for p in self.networks],
                                                  signature="o"))
        self.NetworkRemoved(dbus.ObjectPath(path))
        net.remove_from_connection()

    def start_scan(self, ms):
        self.update(IFACE_IF, Scanning=dbus.Boolean(True))
        if self.scan_timer:
            GLib.source_remove(self.scan_timer)
        self.scan_timer = GLib.timeout_add(ms, lambda: self.end_scan(True) and False)

    def end_scan(self, success):
        if self.scan_timer:
            GLib.source_remove(self.scan_timer)
            self.scan_timer = 0
        self.update(IFACE_IF, Scanning=dbus.Boolean(False))
        self.ScanDone(dbus.Boolean(success))
        return True

    def drop(self):
        for net in list(self.networks.values()):
            net.remove_from_connection()
        self.networks.clear()
        self.bss.remove_from_connection()
        if self.scan_timer:
            GLib.source_remove(self.scan_timer)
        self.remove_from_connection()


class Root(PropObject):
    def __init__(self, mock):
        super().__init__(mock, ROOT)
        self.props[IFACE_MAIN] = {
            "Interfaces": dbus.Array([], signature="o"),
            "DebugLevel": dbus.String("info"),
            "Capabilities": dbus.Array(["ap", "scan"], signature="s"),
            "EapMethods": dbus.Array([], signature="s"),
        }

    @dbus.service.signal(IFACE_MAIN, signature="oa{sv}")
    def InterfaceAdded(self, path, props):
        pass

    @dbus.service.signal(IFACE_MAIN, signature="o")
    def InterfaceRemoved(self, path):
        pass

    @dbus.service.method(IFACE_MAIN, in_signature="s", out_signature="o")
    def GetInterface(self, ifname):
        for path, i in self.mock.ifaces.items():
            if i.ifname == ifname:
                return dbus.ObjectPath(path)
        raise Error("fi.w1.wpa_supplicant1.InterfaceUnknown", "wpa_supplicant knows nothing about this interface.")

    def _iface(self, path):
        i = self.mock.ifaces.get(str(path))
        if not i:
            raise invalid_args("no interface %s" % path)
        return i

    def _publish_ifaces(self):
        self.update(IFACE_MAIN, Interfaces=dbus.Array([dbus.ObjectPath(p) for p in self.mock.ifaces],
                                                      signature="o"))

    # ---- test control ----
    @dbus.service.method(IFACE_CTL, in_signature="s", out_signature="o")
    def AddInterface(self, ifname):
        path = "%s/Interfaces/%d" % (ROOT, self.mock.next_iface)
        self.mock.next_iface += 1
        self.mock.ifaces[path] = Interface(self.mock, path, str(ifname))
        self._publish_ifaces()
        self.InterfaceAdded(dbus.ObjectPath(path), dbus.Dictionary({}, signature="sv"))
        return dbus.ObjectPath(path)

    @dbus.service.method(IFACE_CTL, in_signature="o", out_signature="")
    def RemoveInterface(self, path):
        i = self._iface(path)
        del self.mock.ifaces[str(path)]
        self._publish_ifaces()
        self.InterfaceRemoved(dbus.ObjectPath(path))
        i.drop()

    @dbus.service.method(IFACE_CTL, in_signature="oa{ss}", out_signature="o")
    def AddNetwork(self, iface, options):
        return dbus.ObjectPath(self._iface(iface).add_network(dict(options)))

    @dbus.service.method(IFACE_CTL, in_signature="o", out_signature="")
    def RemoveNetwork(self, network):
        for i in self.mock.ifaces.values():
            if str(network) in i.networks:
                i.remove_network(network)
                return
        raise invalid_args("no network %s" % network)

    @dbus.service.method(IFACE_CTL, in_signature="oo", out_signature="")
    def SetCurrentNetwork(self, iface, network):
        i = self._iface(iface)
        if network != "/" and str(network) not in i.networks:
            raise invalid_args("no network %s" % network)
        bss = "/" if network == "/" else i.bss.path
        i.update(IFACE_IF, CurrentNetwork=dbus.ObjectPath(network), CurrentBSS=dbus.ObjectPath(bss))
        if network != "/":
            i.NetworkSelected(dbus.ObjectPath(network))

    @dbus.service.method(IFACE_CTL, in_signature="oo", out_signature="")
    def SetCurrentNetworkUnannounced(self, iface, network):
        """CurrentNetwork changes and no PropertiesChanged says so: the
        lost notification seen with the real wpa_supplicant in the lab."""
        i = self._iface(iface)
        i.props[IFACE_IF]["CurrentNetwork"] = dbus.ObjectPath(network)
        i.props[IFACE_IF]["CurrentBSS"] = dbus.ObjectPath(i.bss.path)

    @dbus.service.method(IFACE_CTL, in_signature="os", out_signature="")
    def SetState(self, iface, state):
        self._iface(iface).update(IFACE_IF, State=dbus.String(state))

    @dbus.service.method(IFACE_CTL, in_signature="oi", out_signature="")
    def SetSignal(self, iface, dbm):
        i = self._iface(iface)
        i.signal = int(dbm)
        i.bss.update(IFACE_BSS, Signal=dbus.Int16(dbm))

    @dbus.service.method(IFACE_CTL, in_signature="ob", out_signature="")
    def SetSignalPollFails(self, iface, fails):
        self._iface(iface).poll_fails = bool(fails)

    @dbus.service.method(IFACE_CTL, in_signature="ou", out_signature="")
    def StartScan(self, iface, ms):
        self._iface(iface).start_scan(int(ms))

    @dbus.service.method(IFACE_CTL, in_signature="u", out_signature="")
    def Restart(self, gap_ms):
        # Reply first: the caller must not see its own call fail.
        GLib.idle_add(self.mock.restart, int(gap_ms))

    @dbus.service.method(IFACE_CTL, in_signature="as", out_signature="", sender_keyword="sender")
    def WriteModes(self, modes, sender=None):
        for m in modes:
            if m not in WRITE_MODES:
                raise invalid_args("unknown write mode %r" % m)
        self.mock.write_modes.extend(str(m) for m in modes)
        self.mock.controller = sender

    @dbus.service.method(IFACE_CTL, in_signature="", out_signature="", sender_keyword="sender")
    def Stop(self, sender=None):
        self.mock.stopped_by = sender

    @dbus.service.method(IFACE_CTL, in_signature="", out_signature="")
    def Resume(self):
        self.mock.stopped_by = None
        self.mock.flush()

    @dbus.service.method(IFACE_CTL, in_signature="", out_signature="a(ss)")
    def Held(self):
        return dbus.Array([(h[0], h[1]) for h in self.mock.held], signature="(ss)")

    @dbus.service.method(IFACE_CTL, in_signature="", out_signature="a(ssssd)")
    def Writes(self):
        return dbus.Array(self.mock.writes, signature="(ssssd)")

    @dbus.service.method(IFACE_CTL, in_signature="", out_signature="")
    def ClearWrites(self):
        self.mock.writes.clear()

    @dbus.service.method(IFACE_CTL, in_signature="", out_signature="a(sss)")
    def Calls(self):
        return dbus.Array(self.mock.calls, signature="(sss)")

    @dbus.service.method(IFACE_CTL, in_signature="o", out_signature="bs")
    def Bgscan(self, network):
        for i in self.mock.ifaces.values():
            net = i.networks.get(str(network))
            if net:
                text = net.options.get("bgscan")
                if text is None:
                    return (False, "")
                return (True, text[1:-1] if text.startswith('"') else text)
        raise invalid_args("no network %s" % network)


WRITE_MODES = ("normal", "late", "lost", "unanswered", "twice", "refused", "stop")


class Mock:
    def __init__(self, bus):
        self.bus = bus
        self.writes = []
        self.calls = []
        self.ifaces = {}
        self.next_iface = 0
        self.write_modes = []   # for the coming Network.Properties Sets
        self.stopped_by = None  # Stop()'s caller: everyone else's calls are held
        self.controller = None  # WriteModes()'s caller
        self.held = []          # (method, object, run, ok, err), in arrival order
        self.root = Root(self)

    def call(self, method, path, run, ok, err, sender, is_write=False):
        """Handles one call as wpa_supplicant's single thread would: after
        every call held before it."""
        if self.stopped_by is not None:
            if sender != self.stopped_by:
                self.held.append((method, path, run, ok, err))
            else:  # the test's own look beside the stopped process
                self.finish(run, ok, err)
            return
        self.flush()
        mode = self.write_modes.pop(0) if is_write and self.write_modes else "normal"
        if mode in ("late", "stop"):
            self.held.append((method, path, run, ok, err))
            if mode == "stop":
                self.stopped_by = self.controller
        elif mode == "lost":
            pass
        elif mode == "refused":
            err(Error("fi.w1.wpa_supplicant1.UnknownError", "wpa_supplicant refused (mock)"))
        else:
            self.finish(run, ok, err, mode)

    @staticmethod
    def finish(run, ok, err, mode="normal"):
        try:
            result = run()
        except dbus.DBusException as e:
            err(e)
            return
        if mode == "unanswered":
            return
        ok(*result)
        if mode == "twice":
            ok(*result)

    def flush(self):
        held, self.held = self.held, []
        for _, _, run, ok, err in held:
            self.finish(run, ok, err)

    def restart(self, gap_ms):
        # The process is gone: the bus answers its callers' pending calls.
        held, self.held = self.held, []
        self.stopped_by = None
        for _, _, _, _, err in held:
            err(Error("org.freedesktop.DBus.Error.NoReply",
                      "Message recipient disconnected from message bus without replying"))
        self.bus.release_name(NAME)
        for i in list(self.ifaces.values()):
            i.drop()
        self.ifaces.clear()
        self.root.props[IFACE_MAIN]["Interfaces"] = dbus.Array([], signature="o")
        # A new process numbers its objects from 0 again.
        self.next_iface = 0
        GLib.timeout_add(max(gap_ms, 1), self.reacquire)
        return False

    def reacquire(self):
        self.bus.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--address", help="bus address (default: $DBUS_SYSTEM_BUS_ADDRESS)")
    args = ap.parse_args()
    DBusGMainLoop(set_as_default=True)
    if args.address:
        bus = dbus.bus.BusConnection(args.address)
    else:
        bus = dbus.SystemBus()
    Mock(bus)
    if bus.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE) != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        sys.exit("wpas_mock: %s is taken" % NAME)
    print("ready", flush=True)
    loop = GLib.MainLoop()
    # Ends with the bus (dbus-python raises on disconnect) or a signal.
    bus.call_on_disconnection(lambda *_: loop.quit())
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, loop.quit)
    loop.run()


if __name__ == "__main__":
    main()
