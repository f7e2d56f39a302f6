#!/usr/bin/env python3
"""Unit tests of the testbed's pure parts (no root needed):
    python3 testbed/test_testbed.py
With WLANFAIR_TESTBED_LIVE=1 (as root, iperf3 installed) a short live run is
added that also checks nothing is left behind."""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest
from fractions import Fraction
from unittest import mock

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True          # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "testlib"))  # wftest
import wftest  # noqa: E402
import testbed  # noqa: E402
import testbed_bpf  # noqa: E402
import testbed_results as tr  # noqa: E402
import testbed_sockdiag  # noqa: E402


def load_cli():
    """The wlanfair-testbed script (no .py suffix) as a module."""
    path = os.path.join(HERE, "wlanfair-testbed")
    loader = importlib.machinery.SourceFileLoader("wlanfair_testbed", path)
    spec = importlib.util.spec_from_loader("wlanfair_testbed", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def iperf_json(intervals, error=None):
    d = {"start": {}, "intervals": [{"sum": {"start": a, "end": z, "bytes": b}}
                                    for a, z, b in intervals],
         "end": {"sum_received": {"bits_per_second": 1.0}}}
    if error:
        d["error"] = error
    return json.dumps(d)


class Parsing(unittest.TestCase):
    def test_mix(self):
        self.assertEqual(testbed.parse_mix("u2d3"), (2, 3))
        for bad in ("u0d0", "u2", "d2u1", "u-1d2", ""):
            with self.assertRaises(testbed.UsageError):
                testbed.parse_mix(bad)

    def test_rate(self):
        self.assertEqual(testbed.parse_rate("30M"), 30e6)
        self.assertEqual(testbed.parse_rate("2.5k"), 2500)
        for bad in ("0", "-1M", "M", "3X"):
            with self.assertRaises(testbed.UsageError):
                testbed.parse_rate(bad)

    def test_config(self):
        cfg = testbed.Config(up=2, down=3)
        self.assertEqual(cfg.stations, 5)
        self.assertAlmostEqual(cfg.htb_rate / 1e6, 30 * 2664 / 1514)
        self.assertEqual(testbed.Config(overhead=0).htb_rate, 30e6)
        for bad in (dict(up=3, down=3, stations=5), dict(prefix="x y"),
                    dict(prefix=""), dict(cc="a b"), dict(duration=1)):
            with self.assertRaises(testbed.UsageError):
                testbed.Config(**bad).validate()

    def test_sta_queue(self):
        self.assertEqual(testbed.Config().sta_buffer, 100)
        self.assertEqual(testbed.Config(sta_queue="deep").sta_buffer, 400)
        self.assertEqual(testbed.Config(sta_queue="deep", sta_buffer=30).sta_buffer, 30)
        with self.assertRaises(testbed.UsageError):
            testbed.Config(sta_queue="shallow").validate()
        # The medium's station FIFOs get the regime's default.
        cmds = "\n".join(testbed.medium_commands(testbed.Config(up=1, down=0, sta_queue="deep")))
        self.assertIn("limit 400", cmds)
        self.assertIn("limit 50", cmds)          # the AP's stays its own

    def test_far(self):
        self.assertEqual(testbed.parse_far("2:4"), {2: 4.0})
        self.assertEqual(testbed.parse_far("2:4, 5:2.5"), {2: 4.0, 5: 2.5})
        self.assertEqual(testbed.parse_far("1:1"), {1: 1.0})
        for bad in ("", "2", "2:", ":4", "2:4,", "2:x", "0:4", "2:0.5", "2:4,2:3",
                    "-1:4", "2:-4", "2:4:5"):
            with self.assertRaises(testbed.UsageError, msg=bad):
                testbed.parse_far(bad)

    def test_loss(self):
        self.assertEqual(testbed.parse_loss("2:0.05"), {2: 0.05})
        self.assertEqual(testbed.parse_loss("2:0.05, 5:.1"), {2: 0.05, 5: 0.1})
        for bad in ("", "2", "2:", "0:0.1", "2:0", "2:0.6", "2:-0.1", "2:0.1,2:0.2", "x:0.1"):
            with self.assertRaises(testbed.UsageError, msg=bad):
                testbed.parse_loss(bad)
        with self.assertRaises(testbed.UsageError):
            testbed.Config(up=2, down=0, loss={3: 0.1}).validate()
        with self.assertRaises(testbed.UsageError):
            testbed.Config(up=2, down=0, loss={1: 0.1}, loss_seed=-1).validate()
        cfg = testbed.Config(up=2, down=0, loss={1: 0.1})
        cfg.validate()
        self.assertIn("qdisc add dev air clsact", testbed.medium_commands(cfg))

    def test_far_config(self):
        cfg = testbed.Config(up=2, down=0, far={2: 4})
        cfg.validate()
        self.assertEqual(cfg.frame_cost, 2664)
        # One turn of a borrowing class = one frame of the costliest station.
        self.assertEqual(cfg.quantum, 4 * 2664)
        self.assertEqual(cfg.far_extra(2), 3)
        self.assertEqual(cfg.far_extra(1), 0)
        self.assertEqual(cfg.padded_stations, [2])
        self.assertEqual(testbed.Config(far={1: 2.5}).far_extra(1), Fraction(3, 2))
        self.assertEqual(testbed.Config(far={1: 1}).padded_stations, [])
        self.assertEqual(testbed.Config().quantum, 2664)
        # Beyond what tc BPF can grow a full frame to (~16 kB): refused,
        # naming the limit for this overhead; a smaller overhead allows more.
        testbed.Config(far={1: 6}).validate()
        with self.assertRaises(testbed.UsageError) as e:
            testbed.Config(far={1: 7}).validate()
        self.assertIn("1 to 6.36", str(e.exception))
        testbed.Config(far={1: 10}, overhead=0).validate()
        for bad in (dict(up=1, down=0, far={2: 4}), dict(far={0: 4}), dict(far={1: 0.5})):
            with self.assertRaises(testbed.UsageError, msg=str(bad)):
                testbed.Config(**bad).validate()
        p = testbed.params_of(testbed.Config(up=1, down=0, far={1: 4}))
        self.assertEqual(p["far"], {"1": 4})
        self.assertEqual(p["quantum_bytes"], 10656)

    def test_cli_far(self):
        cli = load_cli()
        args = cli.build_parser().parse_args(["run", "--mix", "u2d0", "--far", "2:4",
                                              "--duration", "5"])
        cfg = cli.make_config(args)
        self.assertEqual(cfg.far, {2: 4.0})
        self.assertEqual(cli.make_config(cli.build_parser().parse_args(
            ["setup", "--mix", "u1d1"])).far, {})
        for bad in (["run", "--far", "2:x"], ["run", "--mix", "u1d0", "--far", "3:4"],
                    ["setup", "--far", "1:9"]):
            with contextlib.redirect_stderr(io.StringIO()) as err, \
                    self.assertRaises((SystemExit, testbed.UsageError)) as e:
                cli.make_config(cli.build_parser().parse_args(bad))
            if isinstance(e.exception, SystemExit):
                self.assertEqual(e.exception.code, 2)
                self.assertIn("--far", err.getvalue())

    def test_far_needs_br_netfilter(self):
        """Without the bridge's IPv4 check nothing would cut a far station's
        padding upstream before the AP's ingress: such a kernel is refused
        for far stations, and only for them."""
        real_exists = os.path.exists

        def exists(path):
            return False if path.endswith(testbed.BRIDGE_NF_IPV4) else real_exists(path)
        with mock.patch.object(testbed.os, "geteuid", return_value=0), \
                mock.patch.object(testbed.shutil, "which", return_value="/bin/true"), \
                mock.patch.object(testbed.os.path, "exists", exists):
            with self.assertRaisesRegex(testbed.TestbedError, "modprobe br_netfilter"):
                testbed.check_environment(testbed.Config(up=1, down=0, far={1: 4}), False)
            testbed.check_environment(testbed.Config(up=1, down=0), False)

    def test_medium_commands(self):
        """The medium: a class per contender with a voice and a best-effort
        leaf; station frames classified by source and DS field, the AP's
        voice frames by DS field, the rest of the AP's by default."""
        cfg = testbed.Config(up=1, down=1, far={2: 4})
        lines = testbed.medium_commands(cfg)
        self.assertIn("htb default 1000", lines[0])
        self.assertIn("stab overhead 1150", lines[0])
        for cid, be, vo in (("1:2", "1:1000", "1:2000"), ("1:101", "1:1001", "1:2001"),
                            ("1:102", "1:1002", "1:2002")):
            self.assertTrue(any(f"parent 1:1 classid {cid} htb" in l for l in lines), cid)
            self.assertTrue(any(f"parent {cid} classid {be} htb" in l and "prio 1" in l
                                and "quantum 10656" in l for l in lines), be)
            self.assertTrue(any(f"parent {cid} classid {vo} htb" in l and "prio 0" in l
                                for l in lines), vo)
        self.assertIn("filter add dev air parent 1: protocol ip prio 1 u32 match ip src "
                      "10.1.0.2/32 match ip tos 0xc0 0xc0 flowid 1:2002", lines)
        self.assertIn("filter add dev air parent 1: protocol ip prio 2 u32 match ip src "
                      "10.1.0.2/32 flowid 1:1002", lines)
        self.assertIn("filter add dev air parent 1: protocol ip prio 3 u32 "
                      "match ip tos 0xc0 0xc0 flowid 1:2000", lines)
        self.assertEqual(lines[-1], "qdisc add dev air clsact")
        # Into the medium at each station's port, both ways, so that br0's
        # own root qdisc (the AP's, wlanfair-apd's) acts before the medium;
        # prio 10 leaves prio 1 to a far station's trim program.
        redirect = ("protocol all prio 10 u32 match u32 0 0 "
                    "action mirred egress redirect dev air")
        for port in ("p1", "p2"):
            self.assertIn(f"qdisc add dev {port} clsact", lines)
            for hook in ("ingress", "egress"):
                self.assertIn(f"filter add dev {port} {hook} {redirect}", lines)
        self.assertFalse([l for l in lines if "dev br0" in l])
        plain = testbed.medium_commands(testbed.Config(up=1, down=0))
        self.assertNotIn("qdisc add dev air clsact", plain)
        self.assertTrue(any("quantum 2664 burst 5328" in l for l in plain))

    def test_contender_stats(self):
        text = """class htb 1:1 root rate 52787Kbit ceil 52787Kbit burst 5318b cburst 5318b
 Sent 1000 bytes 10 pkt (dropped 0, overlimits 3 requeues 0)
class htb 1:2 parent 1:1 rate 17595Kbit ceil 52787Kbit burst 5324b cburst 5318b
 Sent 600 bytes 6 pkt (dropped 0, overlimits 1 requeues 0)
 lended: 4 borrowed: 2 giants: 0
class htb 1:1000 parent 1:2 leaf 2: prio 1 rate 17595Kbit ceil 52787Kbit
 Sent 500 bytes 5 pkt (dropped 7, overlimits 0 requeues 0)
class htb 1:2000 parent 1:2 leaf 2000: prio 0 rate 17595Kbit ceil 52787Kbit
 Sent 100 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)
class htb 1:101 parent 1:1 rate 17595Kbit ceil 52787Kbit
 Sent 400 bytes 4 pkt (dropped 0, overlimits 0 requeues 0)
class htb 1:1001 parent 1:101 leaf 101: prio 1 rate 17595Kbit ceil 52787Kbit
 Sent 400 bytes 4 pkt (dropped 0, overlimits 0 requeues 0)
class htb 1:2001 parent 1:101 leaf 2001: prio 0 rate 17595Kbit ceil 52787Kbit
 Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0)
"""
        qdiscs = [{"kind": "htb", "handle": "1:"},
                  {"kind": "pfifo", "parent": "1:1000", "drops": 7, "qlen": 3},
                  {"kind": "pfifo", "parent": "1:2000", "drops": 1, "qlen": 0},
                  {"kind": "pfifo", "parent": "1:1001", "drops": 0, "qlen": 2}]
        st = testbed.contender_stats(text, qdiscs, 1)
        self.assertEqual(st["medium"]["sent_packets"], 10)
        self.assertEqual(st["ap"]["sent_packets"], 6)
        self.assertEqual(st["ap"]["dropped"], 8)
        self.assertEqual(st["ap"]["backlog_packets"], 3)
        self.assertEqual(st["ap"]["borrowed"], 2)
        self.assertEqual(st["ap"]["voice"], {"sent_bytes": 100, "sent_packets": 1, "dropped": 1})
        self.assertEqual(st["sta1"]["sent_bytes"], 400)
        self.assertEqual(st["sta1"]["backlog_packets"], 2)
        self.assertEqual(st["sta1"]["voice"]["sent_packets"], 0)

    def test_bpf_programs(self):
        """The assembled programs: whole instructions, every jump inside the
        program, exits at the end; a far station's address in each compare
        (the verifier itself runs in the live tests)."""
        def decode(code):
            self.assertEqual(len(code) % 8, 0)
            return [struct.unpack_from("<BBhi", code, k) for k in range(0, len(code), 8)]

        lose = testbed_bpf.lose_program([("10.1.0.2", 0.1), ("10.1.0.200", 0.5)], 3)
        for code in (testbed_bpf.pad_program([("10.1.0.2", Fraction(3)),
                                              ("10.1.0.200", Fraction(3, 2))], 1150),
                     testbed_bpf.trim_program(), lose, testbed_bpf.drop_program()):
            insns = decode(code)
            self.assertEqual(insns[-1][0], 0x95)         # exit
            for n, (op, _, off, _) in enumerate(insns):
                if op & 0x07 in (0x05, 0x06) and op not in (0x85, 0x95):
                    self.assertTrue(0 <= n + 1 + off < len(insns), (n, op, off))
        pad = decode(testbed_bpf.pad_program([("10.1.0.200", Fraction(3, 2))], 1150))
        imms = {imm for op, _, _, imm in pad if op == 0x16}
        self.assertEqual(imms, {testbed_bpf._ip_imm("10.1.0.200")})
        self.assertIn((0x27, 3, 0, 3), pad)               # r3 *= 3
        self.assertIn((0x37, 3, 0, 2), pad)               # r3 /= 2
        self.assertIn((0x07, 3, 0, 1150), pad)            # r3 += overhead
        # The trim program lets the port's redirect run after it: it always
        # returns TC_ACT_UNSPEC (r0 = -1), never OK, which would end the
        # classification before the redirect.
        trim = decode(testbed_bpf.trim_program())
        self.assertEqual([imm for op, dst, _, imm in trim if op == 0xb7 and dst == 0], [-1])
        # lose: a compare per address and direction, the map's fd in the
        # one 64-bit load, the thresholds as unsigned 32-bit immediates;
        # it lets the pad program and the medium run (r0 = -1 only).
        lose = decode(lose)
        self.assertEqual(sorted(imm for op, _, _, imm in lose if op == 0x16),
                         sorted([testbed_bpf._ip_imm("10.1.0.2")] * 2 +
                                [testbed_bpf._ip_imm("10.1.0.200")] * 2))
        self.assertEqual([(dst, imm) for op, dst, _, imm in lose if op == 0x18], [(1 | 16, 3)])
        self.assertIn((0xb4, 8, 0, testbed_bpf._s32(1 << 31)), lose)
        self.assertEqual({imm for op, dst, _, imm in lose if op == 0xb7 and dst == 0}, {-1})
        # drop: TC_ACT_SHOT on the mark, else the next filter.
        drop = decode(testbed_bpf.drop_program())
        self.assertEqual({imm for op, dst, _, imm in drop if op == 0xb7 and dst == 0}, {-1, 2})
        self.assertIn((0x56, 2, 2, testbed_bpf.LOSS_MARK), drop)
        # The generator: Marsaglia's xorshift32 (its first number from 1).
        self.assertEqual(testbed_bpf.xorshift32(1), 270369)
        self.assertEqual(testbed_bpf.loss_threshold(0.5), 1 << 31)
        lost = testbed_bpf.lost_frames(1, 0, 0.1, 10000)
        self.assertAlmostEqual(sum(lost) / 10000, 0.1, delta=0.01)
        # The orphan program: XDP_PASS and nothing else.
        self.assertEqual(decode(testbed_bpf.orphan_program()),
                         [(0xb7, 0, 0, testbed_bpf.XDP_PASS), (0x95, 0, 0, 0)])
        # 10.1.0.200 is 0xc800010a little-endian: a negative immediate.
        self.assertLess(testbed_bpf._ip_imm("10.1.0.200"), 0)

    def test_prefix_matches_only_our_roles(self):
        pat = testbed.ns_pattern("wft1-")
        for ok in ("wft1-srv", "wft1-ap", "wft1-sta12"):
            self.assertTrue(pat.fullmatch(ok))
        for other in ("wft1-x", "wft12-srv", "wft1-sta", "wft1-srvx"):
            self.assertFalse(pat.fullmatch(other))


class Results(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, text):
        path = os.path.join(self.dir.name, "x.json")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_read_intervals_drops_repeats(self):
        # iperf3 repeats the last interval when interrupted.
        ivs, err, _ = tr.read_intervals(self.write(iperf_json(
            [(0, 1, 10), (1, 2, 20), (1, 2, 20)], error="interrupt")))
        self.assertEqual(ivs, [(0, 1, 10), (1, 2, 20)])
        self.assertEqual(err, "interrupt")

    def test_read_intervals_bad_files(self):
        for text in ("", "{\"start\": ", "   \n"):
            ivs, err, end = tr.read_intervals(self.write(text))
            self.assertEqual(ivs, [])
            self.assertTrue(err)
        ivs, err, _ = tr.read_intervals(os.path.join(self.dir.name, "missing"))
        self.assertTrue(err.startswith("no output"))

    def test_bins_of_samples(self):
        """Cumulative tcp_info samples -> bytes per 1-s bin, linear between
        samples; nothing before the first sample, 0 past the last."""
        cum = [(0.0, 0), (0.5, 0), (1.5, 1000), (2.5, 1000), (3.0, 3000)]
        self.assertEqual(testbed_sockdiag.bins_of(cum, 4), [500.0, 500.0, 2000.0, 0.0])
        self.assertEqual(testbed_sockdiag.bins_of([], 2), [0.0, 0.0])

    def test_connect_delay(self):
        def client(secs):
            return self.write(json.dumps({"start": {"timestamp": {"timesecs": secs}}}))
        # Connected within the launch's second, or the next: not moved.
        self.assertEqual(tr.connect_delay(client(1000), 1000.3), 0.0)
        self.assertEqual(tr.connect_delay(client(1000), 1000.9), 0.0)
        self.assertEqual(tr.connect_delay(client(1001), 1000.9), 0.0)
        # SYNs lost for 15 s: moved by 15 +- 0.5.
        self.assertAlmostEqual(tr.connect_delay(client(1015), 1000.3), 15.2)
        self.assertEqual(tr.connect_delay(self.write("{}"), 1000.3), 0.0)
        self.assertEqual(tr.connect_delay(os.path.join(self.dir.name, "missing"), 1.0), 0.0)

    def test_rebin(self):
        bins = tr.rebin([(0, 1, 100), (1, 2, 200)], 0.5, 4)
        self.assertEqual(bins, [50, 150, 100, 0])
        self.assertEqual(tr.rebin([], 0, 3), [0, 0, 0])
        # reports beyond the run are cut off, not folded in
        self.assertEqual(tr.rebin([(0, 1, 10), (1, 2, 10), (2, 3, 10)], 0, 2), [10, 10])

    def test_parse_ss(self):
        text = ("ESTAB 0 0 10.0.0.1:5201 10.1.0.6:40000\n"
                "\t ts sack cubic wscale:7,7 rto:204 bytes_sent:1000 cwnd:10\n"
                "ESTAB 0 0 10.0.0.1:5201 10.1.0.6:40002\n"
                "\t bbr wscale:7,7 bytes_sent:5\n")
        socks = tr.parse_ss(text, {"cubic", "bbr", "reno"})
        self.assertEqual([(s["peer"], s["cc"], s["bytes_sent"]) for s in socks],
                         [("10.1.0.6:40000", "cubic", 1000), ("10.1.0.6:40002", "bbr", 5)])

    def test_outputs(self):
        base = os.path.join(self.dir.name, "run")
        flows = [{"name": "up-1", "mean_bps": 8e6, "bins_bps": [8e6, 8e6]},
                 {"name": "down-1", "mean_bps": 0.0, "bins_bps": [0.0, 0.0]}]
        s = tr.write_outputs({"duration": 2}, {"flows": flows, "start_wall": 0,
                                               "tc": {}}, base)
        with open(base + ".csv") as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "start_s,end_s,flow,bits_per_s")
        self.assertEqual(lines[1:], ["0,1,up-1,8000000", "1,2,up-1,8000000",
                                     "0,1,down-1,0", "1,2,down-1,0"])
        self.assertEqual(s["starved"], ["down-1"])
        self.assertEqual(s["total_bps"], 8e6)
        with open(base + ".json") as f:
            self.assertNotIn("bins_bps", json.load(f)["flows"][0])


@unittest.skipUnless(os.environ.get("WLANFAIR_TESTBED_LIVE") == "1",
                     "set WLANFAIR_TESTBED_LIVE=1 (root, iperf3) for a live run")
class Live(unittest.TestCase):
    def test_short_run_leaves_nothing(self):
        with tempfile.TemporaryDirectory() as out:
            prefix = f"wftut{os.getpid()}-"
            cfg = testbed.Config(up=1, down=1, duration=4, prefix=prefix,
                                 out_dir=out, name="live")
            s = testbed.run(cfg, log=lambda *a: None)
            self.assertEqual([f["name"] for f in s["flows"]], ["up-1", "down-1"])
            self.assertGreater(s["total_bps"], 10e6)
            self.assertGreater(s["tc"]["ap"]["sent_packets"], 0)
            # The series comes from the receivers' tcp_info, and agrees with
            # iperf3's own count within slow start's first second.
            self.assertEqual(s["series_source"], "tcp_info")
            for f in s["flows"]:
                self.assertAlmostEqual(f["mean_bps"] / f["iperf3_mean_bps"], 1.0, delta=0.1)
            with open(os.path.join(out, "live.csv")) as f:
                self.assertEqual(len(f.read().splitlines()), 1 + 2 * 4)
            self.assertEqual(testbed.list_namespaces(prefix), [])
            links = subprocess.run(["ip", "-o", "link"], capture_output=True,
                                   text=True).stdout
            self.assertNotIn(prefix, links)


@unittest.skipUnless(os.environ.get("WLANFAIR_TESTBED_LIVE") == "1" and os.geteuid() == 0,
                     "set WLANFAIR_TESTBED_LIVE=1 (root, iperf3) for a live run")
class ApExecLive(unittest.TestCase):
    """--ap-exec: a program of the AP's during the flows, in the AP's
    namespace; one that fails makes the run fail and leaves nothing."""

    def setUp(self):
        if not shutil.which("iperf3"):
            self.skipTest("iperf3 is not installed")

    def test_runs_in_the_ap_namespace(self):
        with tempfile.TemporaryDirectory() as out:
            ready = os.path.join(out, "ready")
            seen = os.path.join(out, "netns")
            prefix = f"wftx{os.getpid()}-"
            cfg = testbed.Config(up=1, down=0, duration=2, capacity=10e6, prefix=prefix,
                                 out_dir=out, name="x",
                                 ap_exec=f"sh -c 'ip netns identify > {seen}; touch {ready}; "
                                         "exec sleep 600'",
                                 ap_exec_ready=ready)
            s = testbed.run(cfg, log=lambda *a: None)
            with open(seen) as f:
                self.assertEqual(f.read().strip(), prefix + "ap")
            self.assertEqual(s["params"]["ap_exec_exit"], -signal.SIGTERM)
            self.assertEqual(testbed.list_namespaces(prefix), [])

    def test_failing_program_fails_the_run(self):
        with tempfile.TemporaryDirectory() as out:
            prefix = f"wfty{os.getpid()}-"
            cfg = testbed.Config(up=1, down=0, duration=2, prefix=prefix, out_dir=out,
                                 name="y", ap_exec="sh -c 'exit 3'",
                                 ap_exec_ready=os.path.join(out, "never"))
            with self.assertRaisesRegex(testbed.UsageError, "exited 3 at its start"):
                testbed.run(cfg, log=lambda *a: None)
            self.assertEqual(testbed.list_namespaces(prefix), [])


@unittest.skipUnless(os.environ.get("WLANFAIR_TESTBED_LIVE") == "1" and os.geteuid() == 0,
                     "set WLANFAIR_TESTBED_LIVE=1 (root, iperf3) for a live run")
class FarLive(unittest.TestCase):
    """The far-station model on the kernel: its frames cost k times a near
    station's airtime, in both directions."""

    def setUp(self):
        if not shutil.which("iperf3"):
            self.skipTest("iperf3 is not installed")

    def run_mix(self, out, up, down, far, name):
        cfg = testbed.Config(up=up, down=down, duration=5, far=far, cc="cubic",
                             prefix=f"wftf{os.getpid()}-", out_dir=out, name=name)
        s = testbed.run(cfg, log=lambda *a: None)
        self.assertEqual(testbed.list_namespaces(cfg.prefix), [])
        return {f["name"]: f["mean_bps"] for f in s["flows"]}

    def test_far_costs_k_times(self):
        with tempfile.TemporaryDirectory() as out:
            near = self.run_mix(out, 1, 1, {}, "near")
            far = self.run_mix(out, 1, 1, {1: 4, 2: 4}, "far")
            both = self.run_mix(out, 2, 0, {2: 4}, "nearfar")
        print(f"\nnear {near}, far {far}, near+far uploading {both}")
        # Every frame of both stations costs 4 times as much: each flow gets
        # a quarter (slow start in 5 s costs a few percent at most).
        for flow in ("up-1", "down-1"):
            self.assertAlmostEqual(far[flow] / near[flow], 0.25, delta=0.06, msg=flow)
        # Both uploading: the near station wins by the cost ratio (the
        # contenders share airtime).
        self.assertGreater(both["up-1"] / both["up-2"], 3.0)

    def test_upload_real_length_at_ap_ingress(self):
        """Upstream, br0's ingress, where wlanfair-apd shapes uploads, sees a
        far station's frames at their real length, not grown by the medium's
        padding (K = 4: about five times the bytes): what it passes (mirrored
        to an ifb that counts them) is what the server receives."""
        cfg = testbed.Config(up=1, down=0, far={1: 4}, prefix=f"wftg{os.getpid()}-")
        testbed.check_environment(cfg, traffic=True)
        with testbed.Testbed(cfg) as tb:
            def ns(name, *args):
                return subprocess.run(testbed.nsexec(name, list(args)), check=True,
                                      capture_output=True, text=True).stdout

            def rx_bytes(name, dev):
                return int(ns(name, "cat", f"/sys/class/net/{dev}/statistics/rx_bytes"))
            ns(tb.ap, "ip", "link", "add", "cnt", "type", "ifb")
            ns(tb.ap, "ip", "link", "set", "cnt", "up")
            ns(tb.ap, "tc", "qdisc", "add", "dev", "br0", "clsact")
            ns(tb.ap, "tc", "filter", "add", "dev", "br0", "ingress", "protocol", "ip",
               "u32", "match", "u32", "0", "0", "action", "mirred", "egress", "mirror",
               "dev", "cnt")
            server = subprocess.Popen(testbed.nsexec(tb.srv, ["iperf3", "-s", "-1", "-B",
                                                              testbed.SRV_IP]),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wftest.wait_for("the iperf3 server listening",
                                lambda: ":5201 " in ns(tb.srv, "ss", "-Hltn"), timeout=5)
                ap0, srv0 = rx_bytes(tb.ap, "cnt"), rx_bytes(tb.srv, "eth0")
                ns(tb.sta[0], "iperf3", "-c", testbed.SRV_IP, "-t", "3")
                ap1, srv1 = rx_bytes(tb.ap, "cnt"), rx_bytes(tb.srv, "eth0")
            finally:
                server.kill()
                server.wait()
        print(f"\nbr0 ingress {ap1 - ap0} bytes, server {srv1 - srv0} bytes")
        self.assertGreater(srv1 - srv0, 500_000)
        # The same frames with the same Ethernet headers; the server's count
        # also has its few ARP frames (1.000 measured; padded: ~5).
        self.assertAlmostEqual((ap1 - ap0) / (srv1 - srv0), 1.0, delta=0.02)



# Run in a station's or the server's namespace: send N numbered datagrams,
# or receive them until 1 s of silence and print the numbers as JSON.
UDP_SEND = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for k in range(int(sys.argv[2])):
    s.sendto(k.to_bytes(4, "big"), (sys.argv[1], 9000))
    time.sleep(0.002)
"""
UDP_RECV = """
import json, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9000))
s.settimeout(5)
got = []
try:
    while True:
        got.append(int.from_bytes(s.recv(64)[:4], "big"))
        s.settimeout(1)
except socket.timeout:
    pass
print(json.dumps(got))
"""


@unittest.skipUnless(os.environ.get("WLANFAIR_TESTBED_LIVE") == "1" and os.geteuid() == 0,
                     "set WLANFAIR_TESTBED_LIVE=1 (root) for a live run")
class LossLive(unittest.TestCase):
    """Lossy stations on the kernel: a station's frames, both ways, are
    lost after the medium exactly where the seeded generator says, and
    nobody else's."""

    N = 300

    def transfer(self, src_ns, dst_ns, dst_ip):
        recv = subprocess.Popen(["ip", "netns", "exec", dst_ns, sys.executable, "-c", UDP_RECV],
                                stdout=subprocess.PIPE, text=True)
        try:
            time.sleep(0.3)
            subprocess.run(["ip", "netns", "exec", src_ns, sys.executable, "-c", UDP_SEND,
                            dst_ip, str(self.N)], check=True, timeout=30)
            out, _ = recv.communicate(timeout=30)
        finally:
            recv.kill()
        got = set(json.loads(out))
        return [k not in got for k in range(self.N)]

    def matches(self, lost, reference):
        """The offset into the generator's sequence where `lost` is found
        (a few frames of the station's own, an IGMP report, may come
        first), or None."""
        for off in range(0, 9):
            if reference[off:off + len(lost)] == lost:
                return off
        return None

    def test_seeded_loss_both_ways(self):
        p, seed = 0.2, 7
        cfg = testbed.Config(up=2, down=0, duration=2, loss={1: p}, loss_seed=seed,
                             prefix=f"wftl{os.getpid()}-", iperf3_flows=False)
        reference = testbed_bpf.lost_frames(seed, 0, p, 3 * self.N)
        with testbed.Testbed(cfg) as tb:
            down = self.transfer(tb.srv, tb.sta[0], tb.sta_ip(1))
            other = self.transfer(tb.srv, tb.sta[1], tb.sta_ip(2))
            up = self.transfer(tb.sta[0], tb.srv, testbed.SRV_IP)
        self.assertEqual(testbed.list_namespaces(cfg.prefix), [])
        print(f"\nlost of {self.N}: station 1 down {sum(down)}, up {sum(up)}; "
              f"station 2 down {sum(other)}")
        self.assertEqual(sum(other), 0)
        off_down = self.matches(down, reference)
        self.assertIsNotNone(off_down, "downstream losses are not the generator's")
        rest = reference[off_down + self.N:]
        self.assertIsNotNone(self.matches(up, rest), "upstream losses are not the generator's")
        # 0.2 of 300 frames, each way: the generator's own count.
        self.assertGreater(sum(down), 30)
        self.assertGreater(sum(up), 30)

    def test_other_seed_other_losses(self):
        self.assertNotEqual(testbed_bpf.lost_frames(7, 0, 0.2, 100),
                            testbed_bpf.lost_frames(8, 0, 0.2, 100))
        self.assertNotEqual(testbed_bpf.lost_frames(7, 0, 0.2, 100),
                            testbed_bpf.lost_frames(7, 1, 0.2, 100))


class Ns3Config(unittest.TestCase):
    """The ns-3 medium's options: checked before anything is built."""

    def test_mcs_parsing(self):
        self.assertEqual(testbed.parse_mcs("1:0,2:7"), {1: 0, 2: 7})
        for bad in ("1:", "x:1", "1:12", "1:0,1:3"):
            with self.assertRaises(testbed.UsageError, msg=bad):
                testbed.parse_mcs(bad)

    def test_validate(self):
        ok = testbed.Config(up=2, down=0, medium="ns3", mcs={1: 0, 2: 7})
        ok.validate()
        self.assertEqual(ok.station_mcs(), [0, 7])
        self.assertEqual(testbed.Config(up=2, down=0, medium="ns3").station_mcs(), [7, 7])
        for kw, why in ((dict(medium="air"), "bad medium"),
                        (dict(medium="ns3", far={2: 4}), "--far and --loss"),
                        (dict(medium="ns3", loss={1: 0.1}), "--far and --loss"),
                        (dict(medium="ns3", mcs={3: 1}), "station 3"),
                        (dict(medium="ns3", mcs={1: 8}), "MCS 8"),
                        (dict(medium="ns3", ns3_standard="ax"), "standard"),
                        (dict(medium="ns3", ns3_width=80), "width"),
                        (dict(mcs={1: 0}), "ns-3 cell's"),
                        (dict(ampdu=True), "ns-3 cell's")):
            with self.assertRaisesRegex(testbed.UsageError, why, msg=str(kw)):
                testbed.Config(up=2, down=0, **kw).validate()
        testbed.Config(up=2, down=0, medium="ns3", ns3_standard="ac", ns3_width=80,
                       mcs={1: 9}).validate()

    def test_lag_verdict(self):
        import testbed_ns3
        self.assertIsNone(testbed_ns3.lagged({"lag_p99_ms": 3.0, "lag_max_ms": 30}))
        self.assertIn("fell behind", testbed_ns3.lagged({"lag_p99_ms": 45.0, "lag_max_ms": 900}))
        self.assertIn("no account", testbed_ns3.lagged(None))


def ns3_program():
    import testbed_ns3
    return testbed_ns3.find_program(os.environ.get("WLANFAIR_BUILD_DIR"))


@unittest.skipUnless(os.environ.get("WLANFAIR_TESTBED_LIVE") == "1" and os.geteuid() == 0,
                     "set WLANFAIR_TESTBED_LIVE=1 (root, iperf3) for a live run")
class Ns3Live(unittest.TestCase):
    """The performance anomaly on ns-3's 802.11n MAC, real TCP through the
    simulated cell: an MCS 0 and an MCS 7 station uploading. Without
    A-MPDU each gets about the slow one's rate (per-frame fairness); with
    it, the fast one gets many times the slow one's (per-opportunity). A
    run whose simulator fell behind real time is a skip, with why."""

    def setUp(self):
        if not ns3_program():
            self.skipTest("wlanfair-ns3cell is not built (libns3-dev, libgsl-dev)")
        if not shutil.which("iperf3"):
            self.skipTest("iperf3 is not installed")

    def cell(self, ampdu):
        with tempfile.TemporaryDirectory() as out:
            prefix = f"wfn{os.getpid() % 100000}-"
            cfg = testbed.Config(up=2, down=0, duration=12, prefix=prefix, out_dir=out,
                                 name="ns3", medium="ns3", mcs={1: 0, 2: 7}, ampdu=ampdu,
                                 cc="cubic", ns3_seed=2, ns3_program=ns3_program())
            try:
                s = testbed.run(cfg, log=lambda *a: None)
            except testbed.TestbedError:
                # Debian's ns-3.37 aborts now and then with A-MPDU ("Invalid
                # WifiPhy state", docs/ns3-cell.md): the model's crash, not
                # ours, is a skip that says so; anything else fails.
                log = os.path.join(out, f"{prefix}ns3.log")
                text = open(log, errors="replace").read() if os.path.exists(log) else ""
                if "terminate called" in text or "msg=" in text:
                    self.skipTest("ns-3 died: " + text.strip().splitlines()[0][:200])
                raise
            self.assertEqual(testbed.list_namespaces(prefix), [])
        why = s["ns3"]["rejected"]
        if why:
            self.skipTest(why)
        slow, fast = (f["mean_bps"] for f in s["flows"])
        print(f"\nA-MPDU {'on' if ampdu else 'off'}: MCS0 {slow / 1e6:.2f}, MCS7 "
              f"{fast / 1e6:.2f} Mbit/s; lag p99 {s['ns3']['lag']['lag_p99_ms']} ms")
        return slow, fast

    def test_anomaly_without_ampdu(self):
        # Measured, seed 2, 18 runs: MCS 7 over MCS 0 1.03-1.8, MCS 7 at
        # 3.9-5.8 Mbit/s, where alone it carries 24.5 (the model,
        # docs/ns3-cell.md): the slow station drags it to its own rate.
        # A check of < 2.0 sat within 0.2 of the spread.
        slow, fast = self.cell(False)
        self.assertGreater(slow, 1e6)
        self.assertLess(fast / slow, 2.5)
        self.assertLess(fast, 10e6)

    def test_per_opportunity_with_ampdu(self):
        # Measured, seed 2, 10 runs: MCS 7 over MCS 0 1.75-16 (2 under 3:
        # 4.35 / 7.61 in a CI run), the cell 12.0-34 Mbit/s in all; without
        # A-MPDU 1.1-1.8 and 7.4-9.5. The ratio is a fact to print, not a
        # check (a check of > 2.5 failed that CI run); aggregation shows in
        # what the cell carries, and the fast station still gets more.
        slow, fast = self.cell(True)
        self.assertGreater(slow, 0.5e6)
        self.assertGreater(fast, 1.2 * slow)
        self.assertGreater(slow + fast, 10.5e6)


@unittest.skipUnless(os.environ.get("WLANFAIR_TESTBED_LIVE") == "1" and os.geteuid() == 0,
                     "set WLANFAIR_TESTBED_LIVE=1 (root, iperf3) for a live run")
class DeepQueueLive(unittest.TestCase):
    """The deep-queue regime on the kernel: with TCP Small Queues a lone
    uploader keeps its frames out of the station's FIFO; once veth's XDP
    copy takes them off its socket's accounting, the FIFO fills and the
    sender's own RTT grows by the queue (10 Mbit/s: 1.2 ms a frame)."""

    def setUp(self):
        if not shutil.which("iperf3"):
            self.skipTest("iperf3 is not installed")

    def upload(self, out, queue):
        cfg = testbed.Config(up=1, down=0, duration=4, capacity=10e6, sta_queue=queue,
                             cc="cubic", prefix=f"wftq{os.getpid()}-", out_dir=out, name=queue)
        s = testbed.run(cfg, log=lambda *a: None)
        self.assertEqual(testbed.list_namespaces(cfg.prefix), [])
        self.assertEqual(s["params"]["sta_queue"], queue)
        flow = s["flows"][0]
        self.assertIsNotNone(flow["sender_rtt_ms"], flow["errors"])
        return flow["sender_rtt_ms"]["mean"], flow["mean_bps"]

    def test_deep_queue_fills(self):
        with tempfile.TemporaryDirectory() as out:
            tsq_rtt, tsq_bps = self.upload(out, "tsq")
            deep_rtt, deep_bps = self.upload(out, "deep")
        print(f"\nsender RTT tsq {tsq_rtt:.1f} ms ({tsq_bps / 1e6:.2f} Mbit/s), "
              f"deep {deep_rtt:.1f} ms ({deep_bps / 1e6:.2f} Mbit/s)")
        # Measured 7.5 against 190-320 ms; one frame is 1.2 ms on the medium.
        self.assertLess(tsq_rtt, 30)
        self.assertGreater(deep_rtt, 80)
        # The same medium carries both: only where the frames wait differs.
        self.assertAlmostEqual(deep_bps / tsq_bps, 1.0, delta=0.15)


if __name__ == "__main__":
    wftest.main()
