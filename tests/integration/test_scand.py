#!/usr/bin/python3
"""wlanfair-scand and wlanfairctl scan against a private system bus with
python-dbusmock's NetworkManager and a wpa_supplicant mock
(testlib/wpas_mock.py), traffic on a veth in a network namespace
(testlib/scandlab.py). The Scand* cases need root (namespaces) and exit 77
(skip) without it; the Cli* cases need only python3-dbusmock. One file for
the daemon (long: each case is its own meson test). Run one case
per process:
    /usr/bin/python3 test_scand.py ScandTest.test_traffic_suppresses_idle_restores
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest

# The shared helpers and the scan guard's bed (testlib/: wftest, scandlab).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))), "testlib"))
import wftest  # noqa: E402

try:
    import dbus
    import scandlab
    from scandlab import run
    HAVE_DBUSMOCK = scandlab.have_dbusmock()
except ImportError:
    HAVE_DBUSMOCK = False

ORIG = "simple:17:-61:999"  # not NetworkManager's default: nothing may assume it
# Short timings so a case runs in seconds; the defaults are measured by
# bench/scan-guard.
FAST = dict(idle_holdoff=2)
# How long a wait for something the daemon does at once may take: it acts
# within a sample or two (0.25-0.5 s), but CI runs the ASan build on a
# loaded 2-core machine. The cases never assert a latency with it: where
# the timing is the point, they compare the mock's timestamps of the
# writes, or the timing is made unambiguous (see
# test_link_down_lifts_suppression).
PROMPT = 10


class Base(unittest.TestCase):
    netns = True

    def setUp(self):
        if not HAVE_DBUSMOCK:
            self.skipTest("python3-dbusmock (or python3-dbus/gi) missing")
        if self.netns and os.geteuid() != 0:
            self.skipTest("needs root (network namespaces)")
        if self.netns and not os.path.exists(scandlab.SCAND):
            self.skipTest("wlanfair-scand not built (WLANFAIR_SCAND)")
        self.lab = scandlab.Lab(with_netns=self.netns)

    def tearDown(self):
        self.lab.close()

    def ctl(self, *args, check=None, **kw):
        r = subprocess.run([scandlab.CTL, "scan", *args], capture_output=True, text=True, **kw)
        if check is not None:
            self.assertEqual(r.returncode, check, "wlanfairctl scan %s: %s%s"
                             % (" ".join(args), r.stdout, r.stderr))
        return r


class ScandTest(Base):
    def up(self, bgscan=ORIG, config=None, user_data=None, **conf):
        """NM device + active profile, wpa_supplicant network, the daemon."""
        lab = self.lab
        self.dev = lab.nm_device()
        self.profile = lab.nm_profile("wfc-home", user_data)
        lab.nm_activate(self.dev, self.profile)
        self.iface, self.net = lab.connect(bgscan=bgscan)
        keys = dict(FAST)
        keys.update(conf)
        lab.start_daemon(config or lab.write_config(**keys))
        return self.net

    def wait_bgscan(self, net, value, timeout=10, what=None):
        return self.lab.wait_for(what or "bgscan of %s = %r" % (net, value),
                                 lambda: self.lab.bgscan(net) == value, timeout)

    def wait_confirmed(self, net):
        """bgscan "" on net, and the guard's own read-back answered: a case
        that stops wpa_supplicant after this stops it in the restore, never
        between the write and its read-back (a loaded machine lost that
        race: the read-back timed out, the suppression stayed unconfirmed)."""
        self.wait_bgscan(net, "")
        self.lab.wait_for("the guard's suppression of %s confirmed" % net,
                          lambda: "bgscan suppressed on %s:" % net in self.lab.log(), PROMPT)

    def wait_dev(self, what, pred, timeout=10):
        def check():
            d = self.lab.device()
            return d if pred(d) else None
        return self.lab.wait_for(what, check, timeout)

    def test_traffic_suppresses_idle_restores(self):
        lab = self.lab
        net = self.up()
        # Idle at start: untouched.
        time.sleep(1.0)
        self.assertEqual(lab.bgscan(net), ORIG)
        self.assertEqual(lab.writes(), [])
        t0 = lab.traffic()
        self.wait_bgscan(net, "", timeout=PROMPT)
        t_off = lab.writes()[0][2]
        dev = self.wait_dev("Suppressing/traffic", lambda d: d.get("Suppressing")
                            and d.get("Reason") == "traffic")
        self.assertEqual(str(dev["SavedBgscan"]), ORIG)
        self.assertEqual(str(dev["CurrentBgscan"]), "")
        self.assertEqual(str(dev["Interface"]), lab.ifname)
        self.assertEqual(str(dev["Connection"]), "wfc-home")
        self.assertTrue(lab.device_path().endswith("/Device/%d" % lab.ifindex()))
        # The status the CLI prints agrees with the properties.
        # (Rates are published at most once a second.)
        st = lab.wait_for("status --json with the traffic rate",
                          lambda: (lambda s: s if s["devices"][0].get("rx_pps", 0)
                                   + s["devices"][0].get("tx_pps", 0) > 20 else None)(lab.status_json()),
                          timeout=PROMPT)
        d = st["devices"][0]
        self.assertTrue(d["suppressing"])
        self.assertEqual((d["reason"], d["saved_bgscan"], d["current_bgscan"]),
                         ("traffic", ORIG, ""))
        self.assertGreater(d["rx_pps"] + d["tx_pps"], 20)
        self.assertEqual(d["interface"], lab.ifname)
        text = self.ctl("status", check=0).stdout
        self.assertIn("suppressing scans (traffic)", text)
        self.assertIn('"%s"' % ORIG, text)
        # Idle: the exact original comes back after the hold-off, not before.
        # Not a sleep and a look (a slow test process would look late): the
        # mock stamps each write, and t_stop is taken before the traffic
        # stopped, so the restore must come at least the hold-off after it.
        t_stop = lab.stop_traffic()
        self.wait_bgscan(net, ORIG, timeout=10)
        t_on = lab.writes()[-1][2]
        self.assertGreaterEqual(t_on - t_stop, FAST["idle_holdoff"], "restored before the hold-off")
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])
        self.wait_dev("not suppressing/idle", lambda d: not d.get("Suppressing")
                      and d.get("Reason") == "idle")
        print("traffic->off %.3f s, idle->restored %.3f s" % (t_off - t0, t_on - t_stop))
        # The guard touched bgscan only, and never disconnected anything.
        calls = [str(c[0]) for c in lab.wpas.Calls()]
        for bad in ("Disconnect", "Reassociate", "Reconnect", "RemoveNetwork", "Scan", "SelectNetwork"):
            self.assertNotIn(bad, calls)
        self.assertEqual({str(w[1]) for w in lab.wpas.Writes()}, {"bgscan"})

    def test_textfile_metrics(self):
        lab = self.lab
        net = self.up()
        dev = '{device="%s"}' % lab.ifname
        held = "wlanfair_scan_guard_held_seconds_total" + dev
        started = "wlanfair_scan_guard_hold_started_timestamp_seconds" + dev
        m = lab.wait_for("textfile, not holding", lambda: lab.textfile(), PROMPT)
        self.assertEqual(m["wlanfair_scan_guard_holding" + dev], 0)
        self.assertEqual(m["wlanfair_scan_guard_holds_total" + dev], 0)
        self.assertEqual(m['wlanfair_scan_guard_info{device="%s",mode="auto",policy="observe"}'
                           % lab.ifname], 1)
        self.assertEqual(m["wlanfair_scan_guard_dbus_holds"], 0)
        self.assertNotIn(started, m)
        t0 = time.time()
        lab.traffic()
        self.wait_bgscan(net, "", timeout=PROMPT)
        m = lab.wait_for("textfile: holding", lambda: (lambda m: m if m and m.get(
            "wlanfair_scan_guard_holding" + dev) == 1 else None)(lab.textfile()), PROMPT)
        self.assertEqual(m["wlanfair_scan_guard_holds_total" + dev], 1)
        self.assertGreaterEqual(m[started], t0 - 1)
        self.assertLessEqual(m[started], time.time())
        lab.stop_traffic()
        self.wait_bgscan(net, ORIG, timeout=10)
        m = lab.wait_for("textfile: released", lambda: (lambda m: m if m and m.get(
            "wlanfair_scan_guard_holding" + dev) == 0 else None)(lab.textfile()), PROMPT)
        self.assertEqual(m["wlanfair_scan_guard_holds_total" + dev], 1)
        self.assertGreaterEqual(m[held], FAST["idle_holdoff"])
        self.assertNotIn(started, m)
        if shutil.which("promtool"):
            path = os.path.join(lab.textfile_dir(), "wlanfair-scan.prom")
            with open(path) as f:
                r = subprocess.run(["promtool", "check", "metrics"], stdin=f,
                                   capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ""))
        # A stopped guard holds nothing: no file.
        self.assertEqual(lab.stop_daemon(signal.SIGTERM), 0, lab.log())
        self.assertIsNone(lab.textfile())
        # A crashed one leaves "holding"; --restore (ExecStopPost) removes it.
        lab.start_daemon(lab.write_config(**FAST))
        lab.traffic()
        self.wait_bgscan(net, "", timeout=PROMPT)
        lab.wait_for("textfile: holding again", lambda: (lambda m: m if m and m.get(
            "wlanfair_scan_guard_holding" + dev) == 1 else None)(lab.textfile()), PROMPT)
        lab.stop_daemon(signal.SIGKILL)
        self.assertEqual(lab.textfile()["wlanfair_scan_guard_holding" + dev], 1)
        r = subprocess.run(["ip", "netns", "exec", lab.station, scandlab.SCAND, "--restore",
                            "--bus", lab.bus.address, "--config", lab.write_config(**FAST),
                            "--state-dir", lab.state_dir(), "--textfile-dir", lab.textfile_dir()],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIsNone(lab.textfile())
        self.assertEqual(lab.bgscan(net), ORIG)

    def test_reapplied_after_new_current_network(self):
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_confirmed(net)
        # NetworkManager re-activates: the network is removed and a new one
        # added (same id, so the same D-Bus path), with another bgscan.
        lab.wpas.SetState(self.iface, "disconnected")
        lab.wpas.RemoveNetwork(net)
        other = "simple:30:-65:300"
        net2 = lab.wpas.AddNetwork(self.iface, {"ssid": "wfc-test", "key_mgmt": "WPA-PSK",
                                                "bgscan": other})
        lab.wpas.SetCurrentNetwork(self.iface, net2)
        lab.wpas.SetState(self.iface, "completed")
        self.assertEqual(lab.bgscan(net2), other)
        self.wait_bgscan(net2, "", what="the new network suppressed too")
        dev = self.wait_dev("SavedBgscan of the new network",
                            lambda d: str(d.get("SavedBgscan")) == other)
        self.assertTrue(dev["Suppressing"])
        # And a third network at a new path (roam to another profile).
        net3 = lab.wpas.AddNetwork(self.iface, {"ssid": "wfc-other", "key_mgmt": "WPA-PSK",
                                                "bgscan": "simple:30:-70:86400"})
        lab.wpas.SetCurrentNetwork(self.iface, net3)
        self.wait_bgscan(net3, "", what="the roamed-to network suppressed")
        lab.stop_traffic()
        self.wait_bgscan(net3, "simple:30:-70:86400", timeout=10)
        # The one left behind is not left without its bgscan either.
        self.wait_bgscan(net2, other, timeout=PROMPT)

    def test_reapplied_after_interface_recreated(self):
        """What a NetworkManager restart does: wpa_supplicant's interface
        object is removed with its network and a new one is created, which
        starts disconnected and connects a moment later."""
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_confirmed(net)
        lab.wpas.SetState(self.iface, "disconnected")
        lab.wpas.RemoveInterface(self.iface)
        iface2 = lab.wpas.AddInterface(lab.ifname)
        lab.wpas.SetState(iface2, "disconnected")
        time.sleep(1.0)
        # As in the lab: the new current network is never announced, only
        # the state; the guard must find it all the same.
        net2 = str(lab.wpas.AddNetwork(iface2, {"ssid": "wfc-test", "key_mgmt": "WPA-PSK",
                                                "bgscan": ORIG}))
        lab.wpas.SetCurrentNetworkUnannounced(iface2, net2)
        lab.wpas.SetState(iface2, "completed")
        self.wait_bgscan(net2, "", what="the new interface's network suppressed")
        dev = self.wait_dev("Suppressing/traffic on the new network",
                            lambda d: d.get("Suppressing") and d.get("Reason") == "traffic")
        self.assertEqual(str(dev["SavedBgscan"]), ORIG)
        lab.stop_traffic()
        self.wait_bgscan(net2, ORIG, timeout=15)

    def test_restored_on_sigterm(self):
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_bgscan(net, "")
        self.assertEqual(lab.stop_daemon(signal.SIGTERM), 0, lab.log())
        # Restored before exit, while traffic still flows.
        self.assertEqual(lab.bgscan(net), ORIG)
        self.assertEqual(lab.writes()[-1][1], ORIG)
        self.assertFalse(lab.conn.name_has_owner(scandlab.GUARD))
        self.assertEqual(self.ctl("status").returncode, 1)

    def test_restored_after_kill9_and_restart(self):
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_bgscan(net, "")
        lab.stop_daemon(signal.SIGKILL)
        lab.stop_traffic()
        time.sleep(0.5)
        self.assertEqual(lab.bgscan(net), "", "nobody restores without the daemon")
        self.assertTrue(os.listdir(lab.state_dir()), "no state file left by the crashed daemon")
        lab.start_daemon(lab.write_config(**FAST))
        self.wait_bgscan(net, ORIG, timeout=10, what="restored from the state file")
        self.assertEqual(lab.writes()[-1][1], ORIG)
        self.assertEqual(lab.stop_daemon(), 0)
        self.assertEqual(lab.bgscan(net), ORIG)

    def test_restored_after_wpa_supplicant_restart(self):
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_confirmed(net)
        # wpa_supplicant drops off the bus (its networks die with it) and
        # comes back; NetworkManager adds the interface and network again.
        lab.restart_wpas(500)
        iface, net = lab.connect(bgscan=ORIG)
        self.wait_bgscan(net, "", what="re-applied after the restart")
        dev = self.wait_dev("saved value of the new network", lambda d: str(d.get("SavedBgscan")) == ORIG)
        self.assertTrue(dev["Suppressing"])
        lab.stop_traffic()
        self.wait_bgscan(net, ORIG, timeout=10)
        self.assertIsNone(lab.daemon.poll(), "the daemon died with wpa_supplicant")

    # A slow wpa_supplicant: the mock decides when a write is applied and
    # answered (WriteModes, Stop/Resume), so that no case depends on the
    # machine's speed. The guard's D-Bus timeout is 2 s; every case ends
    # with the network's bgscan exactly as before, or suppressed while
    # traffic flows, and the state file saying so.

    def assert_put_back(self, net):
        self.wait_bgscan(net, ORIG, timeout=PROMPT, what="the original bgscan back")
        self.lab.wait_for("the state file empty", lambda: self.lab.state_entries() == {}, PROMPT)
        self.assertIsNone(self.lab.daemon.poll(), "the daemon died")

    def test_late_suppress_kept_and_restored(self):
        lab = self.lab
        net = self.up()
        # The "" lands after the guard's timeout, before its read-back.
        lab.wpas.WriteModes(["late"])
        lab.traffic()
        self.wait_bgscan(net, "", timeout=PROMPT)
        dev = self.wait_dev("suppressing with the saved value",
                            lambda d: d.get("Suppressing") and str(d.get("SavedBgscan")) == ORIG)
        self.assertEqual(str(dev["Reason"]), "traffic")
        self.assertEqual(lab.state_entries(), {net: ORIG})
        lab.stop_traffic()
        self.assert_put_back(net)
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])

    def test_lost_suppress_retried(self):
        lab = self.lab
        net = self.up()
        # Neither applied nor answered: the read-back shows the original,
        # so nothing is recorded as ours, and the guard tries again.
        lab.wpas.WriteModes(["lost"])
        lab.traffic()
        lab.wait_for("the guard's read-back after the lost write",
                     lambda: "cannot set bgscan" in lab.log(), PROMPT)
        self.assertEqual(lab.bgscan(net), ORIG)
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed on the retry")
        self.assertEqual(lab.state_entries(), {net: ORIG})
        lab.stop_traffic()
        self.assert_put_back(net)
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])

    def test_refused_and_twice_answered_writes(self):
        lab = self.lab
        net = self.up()
        lab.wpas.WriteModes(["refused", "twice", "twice"])
        lab.traffic()
        self.wait_dev("Reason error", lambda d: str(d.get("Reason")) == "error")
        self.assertEqual(lab.state_entries(), {})
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed on the retry")
        lab.stop_traffic()
        self.assert_put_back(net)
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])

    def test_unanswered_restore_confirmed_by_read(self):
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_bgscan(net, "")
        # The restore is applied, its answer never comes.
        lab.wpas.WriteModes(["unanswered"])
        lab.stop_traffic()
        self.wait_dev("not suppressing", lambda d: not d.get("Suppressing"), timeout=PROMPT)
        self.assert_put_back(net)
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])

    def test_stopped_wpa_supplicant_during_suppress(self):
        lab = self.lab
        net = self.up()
        # As SIGSTOP right after the guard's first read: the write and the
        # read-back both go unanswered, so the guard cannot know; the saved
        # value must stay recorded.
        lab.wpas.WriteModes(["stop"])
        lab.traffic()

        def calls_after_write():
            held = lab.held()
            return len(held) - held.index(("Set", net)) - 1 if ("Set", net) in held else 0
        # Its calls are synchronous: a second call after the write means
        # that the first one (the read-back) timed out too.
        lab.wait_for("two calls after the held write", lambda: calls_after_write() >= 2, 3 * PROMPT)
        self.assertEqual(lab.state_entries(), {net: ORIG})
        self.assertEqual(lab.bgscan(net), ORIG)
        self.assertIn(("Set", net), lab.held())
        # Continued: the held "" lands, in order, then the guard's reads.
        lab.wpas.Resume()
        self.assertEqual(lab.bgscan(net), "")
        lab.wait_for("the guard's read finds the late write",
                     lambda: "answered late" in lab.log(), PROMPT)
        self.assertTrue(self.lab.device().get("Suppressing"))
        lab.stop_traffic()
        self.assert_put_back(net)
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])

    def test_stopped_wpa_supplicant_during_restore(self):
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_confirmed(net)
        lab.wpas.Stop()
        lab.stop_traffic()
        lab.wait_for("a restore attempt held", lambda: ("Get", net) in lab.held(), 3 * PROMPT)
        lab.wait_for("the guard gave up on it", lambda: "cannot read bgscan of" in lab.log(), PROMPT)
        self.assertEqual(lab.state_entries(), {net: ORIG})
        lab.wpas.Resume()
        self.assert_put_back(net)
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])

    def test_kill9_between_write_and_answer_then_restore(self):
        lab = self.lab
        net = self.up()
        lab.wpas.WriteModes(["stop"])
        lab.traffic()
        lab.wait_for("the guard's write held", lambda: ("Set", net) in lab.held(), PROMPT)
        lab.stop_daemon(signal.SIGKILL)
        lab.stop_traffic()
        self.assertEqual(lab.state_entries(), {net: ORIG}, "recorded before the write")
        # wpa_supplicant still stopped: --restore cannot know, keeps the entry.
        r = lab.restore(lab.write_config(**FAST))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(lab.state_entries(), {net: ORIG})
        # Continued: the dead guard's "" lands; --restore now puts it back.
        lab.wpas.Resume()
        self.assertEqual(lab.bgscan(net), "")
        r = lab.restore(lab.write_config(**FAST))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(lab.bgscan(net), ORIG)
        self.assertEqual(lab.state_entries(), {})
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])

    def test_restore_during_wpa_supplicant_restart(self):
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_confirmed(net)
        lab.wpas.Stop()
        lab.stop_traffic()
        lab.wait_for("a restore attempt held", lambda: ("Get", net) in lab.held(), 3 * PROMPT)
        # It restarts instead of answering: the networks die with it, and
        # NetworkManager adds the network again with its own bgscan.
        lab.restart_wpas(200)
        lab.wpas.ClearWrites()
        iface, net = lab.connect(bgscan=ORIG)
        lab.wait_for("the state file empty", lambda: lab.state_entries() == {}, 3 * PROMPT)
        self.wait_dev("the new network, idle", lambda d: not d.get("Suppressing")
                      and str(d.get("CurrentBgscan")) == ORIG, timeout=PROMPT)
        self.assertEqual(lab.bgscan(net), ORIG)
        self.assertEqual(lab.writes(), [], "nothing written to the new network")
        lab.traffic()
        self.wait_bgscan(net, "", what="suppressed again on the new network")
        lab.stop_traffic()
        self.assert_put_back(net)

    def test_networkmanager_restart_during_hold(self):
        lab = self.lab
        net = self.up()
        proc, cookie, owner = lab.holder("video call")
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed by the hold")
        self.wait_dev("the profile's connection", lambda d: str(d.get("Connection")) == "wfc-home")
        # NetworkManager goes away: the guard falls back to the global
        # configuration, the hold still holds, nothing is written.
        lab.nm_proc.terminate()
        lab.nm_proc.wait(10)
        lab.wait_for("NetworkManager off the bus", lambda: not lab.conn.name_has_owner(scandlab.NM))
        dev = self.wait_dev("no connection without NetworkManager",
                            lambda d: str(d.get("Connection")) == "")
        self.assertTrue(dev["Suppressing"])
        self.assertEqual(str(dev["Reason"]), "hold")
        self.assertEqual(lab.bgscan(net), "")
        # Back, with the same device and profile: the profile is found again.
        lab.restart_nm()
        self.dev = lab.nm_device()
        lab.nm_activate(self.dev, lab.nm_profile("wfc-home"))
        dev = self.wait_dev("the profile again", lambda d: str(d.get("Connection")) == "wfc-home")
        self.assertTrue(dev["Suppressing"])
        self.assertEqual(lab.bgscan(net), "")
        self.assertEqual([v for _, v, _ in lab.writes()], [""])
        proc.kill()
        proc.wait()
        self.assert_put_back(net)
        self.assertEqual([v for _, v, _ in lab.writes()], ["", ORIG])
        self.assertIsNone(lab.daemon.poll(), "the daemon died with NetworkManager")

    def test_roam_floor_lifts_suppression(self):
        lab = self.lab
        # Threshold -61, above NetworkManager's highest (-65): floor
        # -65 - 3 = -68, resume at -64.
        net = self.up()
        lab.traffic()
        self.wait_bgscan(net, "")
        dev = self.wait_dev("signal and floor", lambda d: int(d.get("SignalDbm", 0)) == -50)
        self.assertEqual(int(dev["RoamFloorDbm"]), -68)
        lab.wpas.SetSignal(self.iface, -72)
        self.wait_bgscan(net, ORIG, timeout=PROMPT, what="bgscan back under the roam floor")
        dev = self.wait_dev("Reason roam-floor", lambda d: d.get("Reason") == "roam-floor")
        self.assertFalse(dev["Suppressing"])
        self.assertIsNone(lab.blaster.poll(), "traffic kept flowing")
        self.assertIn("roam", lab.log().lower())
        # Between floor and floor + hysteresis: stays lifted.
        lab.wpas.SetSignal(self.iface, -66)
        time.sleep(2.5)
        self.assertEqual(lab.bgscan(net), ORIG)
        # Well above: suppressed again.
        lab.wpas.SetSignal(self.iface, -50)
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed again above the floor")

    def test_link_down_lifts_suppression(self):
        lab = self.lab
        # A hold-off far longer than any wait here: without carrier the
        # traffic stops too, and a restore for idleness (after 2 s with
        # FAST) must not pass for a restore for the link. Then "at once"
        # needs no tight deadline: any restore within PROMPT is the link's.
        net = self.up(idle_holdoff=60)
        lab.traffic()
        self.wait_bgscan(net, "", timeout=PROMPT)
        # wpa_supplicant leaves COMPLETED (e.g. a roam in progress): bgscan
        # back at once, even while traffic flows.
        lab.wpas.SetState(self.iface, "associating")
        self.wait_bgscan(net, ORIG, timeout=PROMPT, what="restored when the link is not completed")
        self.wait_dev("Reason link-down", lambda d: d.get("Reason") == "link-down"
                      and not d.get("Suppressing"))
        lab.wpas.SetState(self.iface, "completed")
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed again once completed")
        # No carrier on the interface: the same.
        run("ip", "-n", lab.station, "link", "set", lab.ifname, "down")
        self.wait_bgscan(net, ORIG, timeout=PROMPT, what="restored without carrier")
        self.wait_dev("Reason link-down (carrier)", lambda d: d.get("Reason") == "link-down")
        run("ip", "-n", lab.station, "link", "set", lab.ifname, "up")
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed again with carrier")

    def test_signal_from_bss_when_signal_poll_fails(self):
        lab = self.lab
        net = self.up()
        # While suppressing the signal is polled every second (when idle
        # much less often).
        lab.traffic()
        self.wait_bgscan(net, "")
        self.wait_dev("SignalDbm from SignalPoll", lambda d: int(d.get("SignalDbm", 0)) == -50)
        lab.wpas.SetSignalPollFails(self.iface, True)
        lab.wpas.SetSignal(self.iface, -67)  # now only the BSS's Signal says so
        self.wait_dev("SignalDbm from the BSS", lambda d: int(d.get("SignalDbm", 0)) == -67, PROMPT)
        self.assertEqual(lab.status_json()["devices"][0]["signal_dbm"], -67)

    def test_scans_counted_in_status(self):
        lab = self.lab
        net = self.up()
        lab.traffic()
        self.wait_bgscan(net, "")
        # Without nl80211 (no cfg80211 here) scans are seen through
        # wpa_supplicant's Scanning property: kind "unknown". The scan
        # lasts until the daemon has seen it start, then 300 ms more: its
        # duration is at least 300 ms however late the daemon hears of the
        # start or the end (a fixed 300 ms scan measured less whenever the
        # start reached it late).
        lab.wpas.StartScan(self.iface, 600000)
        self.wait_dev("the scan seen starting",
                      lambda d: int(d.get("ScansSeen", {}).get("unknown", 0)) == 1, PROMPT)
        lab.wpas.StartScan(self.iface, 300)  # during a scan: it ends 300 ms from now
        dev = self.wait_dev("the scan recorded", lambda d: len(d.get("RecentScans", [])) == 1, PROMPT)
        t, kind, outcome, ms = dev["RecentScans"][0]
        self.assertEqual((str(kind), str(outcome)), ("unknown", "done"))
        self.assertGreaterEqual(int(ms), 300)
        self.assertEqual(int(dev["ScansSeen"]["unknown"]), 1)
        self.assertEqual(int(dev["ScansDuringTraffic"]["unknown"]), 1)
        d = lab.status_json()["devices"][0]
        self.assertEqual([(r["kind"], r["outcome"]) for r in d["recent_scans"]], [("unknown", "done")])
        self.assertEqual(d["scans_seen"]["unknown"], 1)
        self.assertEqual(d["scans_during_traffic"]["unknown"], 1)
        text = self.ctl("status", check=0).stdout
        self.assertRegex(text, r"recent scans:\n.*unknown +done +\d+ ms")
        # observe (the default) never aborts.
        self.assertNotIn("AbortScan", [str(c[0]) for c in lab.wpas.Calls()])

    def test_hold_without_traffic_and_auto_release(self):
        lab = self.lab
        net = self.up()
        proc, cookie, owner = lab.holder("video call")
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed by the hold")
        dev = self.wait_dev("Reason hold", lambda d: d.get("Reason") == "hold")
        self.assertTrue(dev["Suppressing"])
        holds = [(int(c), str(o), str(r)) for c, o, r, _ in lab.guard_prop("Holds")]
        self.assertEqual(holds, [(cookie, owner, "video call")])
        st = lab.status_json()
        self.assertEqual([(h["cookie"], h["owner"], h["reason"]) for h in st["holds"]],
                         [(cookie, owner, "video call")])
        self.assertEqual(st["devices"][0]["reason"], "hold")
        # The holder dies without Release: the hold goes with its bus name.
        proc.kill()
        proc.wait()
        lab.wait_for("Holds empty", lambda: len(lab.guard_prop("Holds")) == 0, PROMPT)
        self.wait_bgscan(net, ORIG, timeout=10, what="restored after the holder left")

    def test_status_escapes_hostile_hold_reason(self):
        # A hold's reason is any bus client's text: `scan status` shows it
        # escaped (ESC would recolour the terminal, U+202E reverse the
        # line), --json carries it as it is.
        lab = self.lab
        self.up()
        reason = "call\x1b[31m red\u202eeman"
        lab.holder(reason)
        lab.wait_for("hold taken", lambda: len(lab.guard_prop("Holds")) == 1, PROMPT)
        text = self.ctl("status", check=0).stdout
        self.assertNotIn("\x1b", text)
        self.assertNotIn("\u202e", text)
        self.assertIn("call\\e[31m red\\u202eeman", text)
        self.assertEqual([h["reason"] for h in lab.status_json()["holds"]], [reason])

    def test_hold_command(self):
        lab = self.lab
        net = self.up()
        # The command sees the hold while it runs, then its status is ours.
        # It waits for the suppression (the hold is taken before it starts,
        # the write follows within a sample), with a deadline, not a sleep.
        script = ("import json,subprocess,sys,time\n"
                  "deadline = time.monotonic() + %d\n"
                  "while True:\n"
                  "    s = json.loads(subprocess.run([sys.argv[1], 'scan', 'status', '--json'],\n"
                  "                                  capture_output=True, text=True).stdout)\n"
                  "    if s['devices'][0]['current_bgscan'] == '' or time.monotonic() > deadline:\n"
                  "        break\n"
                  "    time.sleep(0.1)\n"
                  "print(json.dumps([s['holds'], s['devices'][0]['current_bgscan']]))\n"
                  "sys.exit(7)\n" % PROMPT)
        r = self.ctl("hold", "--reason", "wfc test", "--", scandlab.PY, "-c", script,
                     scandlab.CTL, timeout=30)
        self.assertEqual(r.returncode, 7, r.stderr)
        holds, current = json.loads(r.stdout)
        self.assertEqual([h["reason"] for h in holds], ["wfc test"])
        self.assertEqual(current, "")
        self.assertEqual(len(lab.guard_prop("Holds")), 0, "hold not released at exit")
        self.wait_bgscan(net, ORIG, timeout=10)
        # SIGTERM to wlanfairctl reaches the command; the hold is released.
        p = subprocess.Popen([scandlab.CTL, "scan", "hold", "--", "sleep", "30"])
        lab.wait_for("hold taken", lambda: len(lab.guard_prop("Holds")) == 1, PROMPT)
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(10), 128 + signal.SIGTERM)
        lab.wait_for("hold released", lambda: len(lab.guard_prop("Holds")) == 0, PROMPT)

    def test_hold_follows_guard_restart(self):
        """An upgrade restarts the guard under a running `scan hold`: the
        hold goes with the old guard (its bgscan restored), wlanfairctl
        says it is lost, and takes it again, same reason, from the new one."""
        lab = self.lab
        net = self.up()
        err_path = os.path.join(lab.tmp, "hold.err")
        with open(err_path, "w") as err:
            p = subprocess.Popen([scandlab.CTL, "scan", "hold", "--reason", "upgrade test", "--",
                                  "sleep", "60"], stderr=err)
        self.addCleanup(lambda: p.poll() is None and p.kill())

        def said():
            with open(err_path) as f:
                return f.read()
        lab.wait_for("hold taken", lambda: len(lab.guard_prop("Holds")) == 1, PROMPT)
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed by the hold")
        self.assertEqual(lab.stop_daemon(), 0)
        self.assertEqual(lab.bgscan(net), ORIG, "the stopping guard restores bgscan")
        lab.wait_for("the loss said", lambda: re.search(r"hold \d+ lost", said()), PROMPT)
        self.assertIsNone(p.poll(), "the command keeps running without the guard")
        lab.start_daemon()
        lab.wait_for("the hold taken again",
                     lambda: [h["reason"] for h in lab.status_json()["holds"]] == ["upgrade test"],
                     PROMPT)
        self.wait_bgscan(net, "", timeout=PROMPT, what="suppressed by the hold again")
        self.assertIn("scans held again", said())
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(10), 128 + signal.SIGTERM)
        lab.wait_for("hold released", lambda: len(lab.guard_prop("Holds")) == 0, PROMPT)
        self.wait_bgscan(net, ORIG, timeout=10)

    def test_profile_mode_off_beats_global(self):
        lab = self.lab
        net = self.up(mode="always", user_data={"wlanfair.scan.mode": "off"})
        dev = self.wait_dev("Mode off", lambda d: d.get("Mode") == "off")
        self.assertFalse(dev["Suppressing"])
        self.assertEqual(str(dev["Reason"]), "mode-off")
        lab.traffic()
        time.sleep(2.0)
        self.assertEqual(lab.bgscan(net), ORIG)
        self.assertEqual(lab.writes(), [])
        # The profile changes while connected (wlanfairctl scan unset): the
        # global mode=always applies at once.
        self.ctl("unset", "wfc-home", "mode", check=0)
        self.wait_bgscan(net, "", timeout=PROMPT, what="global mode=always after unset")
        self.wait_dev("Mode always", lambda d: d.get("Mode") == "always"
                      and d.get("Reason") == "mode-always")
        # And back to off through the CLI: restored.
        self.ctl("set", "wfc-home", "mode", "off", check=0)
        self.wait_bgscan(net, ORIG, timeout=PROMPT, what="mode=off from the profile again")

    def test_invalid_profile_value_warns_and_uses_global(self):
        lab = self.lab
        net = self.up(mode="always", user_data={"wlanfair.scan.mode": "sometimes"})
        self.wait_bgscan(net, "", timeout=PROMPT, what="global mode=always despite the bad profile value")
        dev = self.wait_dev("Mode always", lambda d: d.get("Mode") == "always")
        self.assertEqual(str(dev["Reason"]), "mode-always")
        log = lab.log()
        self.assertRegex(log, r"(?i)warn")
        self.assertIn("wlanfair.scan.mode", log)
        self.assertIn("sometimes", log)
        # The CLI shows the stored value and warns about it.
        r = self.ctl("get", "wfc-home", check=0)
        self.assertIn("wlanfair.scan.mode=sometimes", r.stdout)
        self.assertRegex(r.stderr, r"mode.*'sometimes'.*auto.*off.*always")

class CliTest(Base):
    """wlanfairctl scan set/get/unset/hold against dbusmock's
    NetworkManager; no namespaces, no root."""
    netns = False

    def setUp(self):
        super().setUp()
        self.profile = self.lab.nm_profile("Home Wi-Fi", {"other.key": "keep"})

    def test_set_get_unset(self):
        lab, p = self.lab, self.profile
        self.ctl("set", "Home Wi-Fi", "mode", "off", check=0)
        self.assertEqual(lab.nm_user_data(p), {"other.key": "keep", "wlanfair.scan.mode": "off"})
        count, flags = lab.nm_update2(p)
        self.assertEqual((count, flags), (1, 1), "one Update2 with NM_SETTINGS_UPDATE2_FLAG_TO_DISK")
        # The rest of the profile survives the round trip.
        s = lab.nm_settings_of(p)
        self.assertEqual(bytes(s["802-11-wireless"]["ssid"]), b"wfc-test")
        self.assertEqual(str(s["connection"]["id"]), "Home Wi-Fi")
        uuid = str(s["connection"]["uuid"])
        # Full key, by UUID and by D-Bus path.
        self.ctl("set", uuid, "wlanfair.scan.idle-holdoff", "30", check=0)
        self.ctl("set", p, "roam-floor", "-75", check=0)
        self.assertEqual(self.ctl("get", "Home Wi-Fi", check=0).stdout,
                         "wlanfair.scan.mode=off\nwlanfair.scan.idle-holdoff=30\n"
                         "wlanfair.scan.roam-floor=-75\n")
        self.assertEqual(self.ctl("get", "Home Wi-Fi", "mode", check=0).stdout, "off\n")
        j = json.loads(self.ctl("get", "--json", uuid, check=0).stdout)
        self.assertEqual(j, {"connection": "Home Wi-Fi", "uuid": uuid,
                             "keys": {"mode": "off", "idle-holdoff": "30", "roam-floor": "-75"}})
        self.ctl("unset", "Home Wi-Fi", "mode", check=0)
        self.assertEqual(lab.nm_user_data(p), {"other.key": "keep", "wlanfair.scan.idle-holdoff": "30",
                                               "wlanfair.scan.roam-floor": "-75"})
        r = self.ctl("get", "Home Wi-Fi", "mode", check=1)
        self.assertIn("not set", r.stderr)
        # A key the daemon does not know (hand-edited keyfile): shown, warned.
        lab.conn.get_object(scandlab.NM, p).Update2(
            dbus.Dictionary({**lab.nm_settings_of(p), "user": {"data": dbus.Dictionary(
                {"wlanfair.scan.moed": "off", "wlanfair.scan.idle-holdoff": "30"}, signature="ss")}},
                signature="sa{sv}"), dbus.UInt32(0), dbus.Dictionary({}, signature="sv"),
            dbus_interface=scandlab.NM_CSETTINGS_IFACE)
        r = self.ctl("get", "Home Wi-Fi", check=0)
        self.assertIn("wlanfair.scan.moed=off", r.stdout)
        self.assertIn("wlanfair.scan.idle-holdoff=30", r.stdout)
        self.assertIn("not a scan guard key", r.stderr)
        # Unset of a key that is not set: nothing written, success.
        before = lab.nm_update2(p)[0]
        self.ctl("unset", "Home Wi-Fi", "mode", check=0)
        self.assertEqual(lab.nm_update2(p)[0], before)

    def test_invalid_rejected(self):
        lab, p = self.lab, self.profile
        r = self.ctl("set", "Home Wi-Fi", "mode", "bogus", check=2)
        self.assertRegex(r.stderr, r"mode.*'bogus'.*auto.*off.*always")
        r = self.ctl("set", "Home Wi-Fi", "policy", "abort", check=2)
        self.assertRegex(r.stderr, r"policy.*observe.*strict")
        r = self.ctl("set", "Home Wi-Fi", "roam-floor", "-10", check=2)
        self.assertIn("-100 to -20", r.stderr)
        r = self.ctl("set", "Home Wi-Fi", "idle-holdoff", "ten", check=2)
        self.assertIn("0 to 3600", r.stderr)
        r = self.ctl("set", "Home Wi-Fi", "colour", "blue", check=2)
        self.assertIn("unknown key", r.stderr)
        self.assertIn("mode", r.stderr)
        self.ctl("set", "Home Wi-Fi", "mode", check=2)
        self.assertEqual(lab.nm_update2(p), (0, None), "nothing may be written")
        self.assertEqual(lab.nm_user_data(p), {"other.key": "keep"})
        r = self.ctl("set", "No Such Wi-Fi", "mode", "off", check=1)
        self.assertIn("no connection profile", r.stderr)
        lab.nm_profile("Home Wi-Fi")
        r = self.ctl("set", "Home Wi-Fi", "mode", "off", check=1)
        self.assertIn("give the UUID", r.stderr)

    def test_status_without_daemon(self):
        r = self.ctl("status", check=1)
        self.assertIn("not running", r.stderr)
        r = self.ctl("status", "--json", check=1)
        self.assertEqual(r.stdout, "")

    # Waits (up to 20 s, not a fixed 2 s: a loaded machine may pass the
    # signal on late) for a SIGINT, then 1 s more for a second one that
    # must not come; exits 40 + the count.
    COUNT_SIGINT = ("import signal, sys, time\n"
                    "n = [0]\n"
                    "signal.signal(signal.SIGINT, lambda *a: n.__setitem__(0, n[0] + 1))\n"
                    "print('ready', flush=True)\n"
                    "deadline = time.monotonic() + 20\n"
                    "while n[0] == 0 and time.monotonic() < deadline:\n"
                    "    time.sleep(0.05)\n"
                    "time.sleep(1)\n"
                    "sys.exit(40 + n[0])\n")

    def test_hold_signals(self):
        import pty
        import select
        # kill -INT to wlanfairctl: passed on once.
        p = subprocess.Popen([scandlab.CTL, "scan", "hold", "--", scandlab.PY, "-c", self.COUNT_SIGINT],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.assertEqual(p.stdout.readline().strip(), "ready")
        p.send_signal(signal.SIGINT)
        self.assertEqual(p.wait(30), 41)
        p.stdout.close()
        # Ctrl-C on a terminal reaches the whole foreground group: the
        # command must get it once, not once more from wlanfairctl.
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(scandlab.CTL, [scandlab.CTL, "scan", "hold", "--", scandlab.PY, "-c",
                                    self.COUNT_SIGINT])
        buf = b""
        try:
            while b"ready" not in buf:
                r, _, _ = select.select([fd], [], [], 10)
                self.assertTrue(r, "no 'ready' on the terminal: %r" % buf)
                buf += os.read(fd, 1024)
            os.write(fd, b"\x03")
            _, status = os.waitpid(pid, 0)
        finally:
            os.close(fd)
        self.assertEqual(os.waitstatus_to_exitcode(status), 41)

    def test_hold_without_daemon(self):
        r = self.ctl("hold", "--", "sh", "-c", "exit 5", check=5)
        self.assertIn("not running", r.stderr)
        r = self.ctl("hold", "--require", "--", "sh", "-c", "exit 5", check=1)
        self.assertIn("not running", r.stderr)
        self.ctl("hold", check=2)
        self.ctl("hold", "--", "/nonexistent/wfc", check=127)


if __name__ == "__main__":
    # One case per process (meson); a skip is exit 77.
    wftest.main()
