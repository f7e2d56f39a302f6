#!/usr/bin/env python3
"""trafgen.py: profiles, distributions (fixed seeds), plans, the summary,
and master + clients over loopback (real TCP, no root). With
WLANFAIR_TESTBED_LIVE=1 as root: profiles through the testbed's medium
(TrafficLive)."""
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True          # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "testlib"))  # wftest
import wftest  # noqa: E402
import trafgen  # noqa: E402

TRAFGEN = os.path.join(HERE, "trafgen.py")


class Profiles(unittest.TestCase):
    def test_values(self):
        self.assertEqual(trafgen.parse_value("1M", "size"), 1e6)
        self.assertEqual(trafgen.parse_value("4Ki", "size"), 4096)
        self.assertEqual(trafgen.parse_value("200ms", "time"), 0.2)
        self.assertEqual(trafgen.parse_value("2", "time"), 2.0)
        for bad in ("1MB", "-1", "k", ""):
            with self.assertRaises(trafgen.ProfileError):
                trafgen.parse_value(bad, "size")

    def test_defaults_and_errors(self):
        p = trafgen.parse_profile("[profile]\n", "x.profile")
        self.assertEqual((p["name"], p["trials"], p["direction"], p["size"], p["cc"]),
                         ("x", 1, "download", "fixed 1M", None))
        for text, word in (("", "no [profile]"), ("[profile]\nsizes = fixed 1\n", "sizes"),
                           ("[profile]\ntrials = 0\n", "trials"),
                           ("[profile]\ntrials = many\n", "integer"),
                           ("[profile]\ndirection = sideways\n", "direction"),
                           ("[profile]\nsize = normal 1 2\n", "unknown distribution"),
                           ("[profile]\nsize = uniform 5 1\n", "A <= B"),
                           ("[profile]\nsize = pareto 0 1k\n", "shape"),
                           ("[profile]\nsize = pareto 1.2 1M 1k\n", "MIN < MAX"),
                           ("[profile]\nsize = fixed 1 2\n", "takes 1"),
                           ("[profile]\nidle = exponential 0\n", "mean"),
                           ("[profile]\nsize = empirical 1k:0\n", "weights"),
                           ("[profile]\ncc = a b\n", "bad cc"),
                           ("[profile]\n[other]\n", "unknown section"),
                           ("[profile\n", "x.profile")):
            with self.assertRaises(trafgen.ProfileError, msg=text) as e:
                trafgen.parse_profile(text, "x.profile")
            self.assertIn(word, str(e.exception), text)

    def test_example_profiles_parse(self):
        """The documented examples in profiles/ stay valid."""
        d = os.path.join(HERE, "profiles")
        names = sorted(f for f in os.listdir(d) if f.endswith(".profile"))
        self.assertIn("web.profile", names)
        for f in names:
            p = trafgen.load_profile(os.path.join(d, f))
            self.assertEqual(p["name"], f[:-len(".profile")])
            self.assertTrue(trafgen.plan(p, 1, 0))

    def test_distributions_seeded(self):
        rng = random.Random(1)
        exp = trafgen.Dist("exponential 50k", "size")
        xs = [exp.draw(rng) for _ in range(20000)]
        self.assertAlmostEqual(statistics.mean(xs) / 50e3, 1.0, delta=0.03)
        par = trafgen.Dist("pareto 1.2 4k 1M", "size")
        ys = [par.draw(rng) for _ in range(20000)]
        self.assertGreaterEqual(min(ys), 4e3)
        self.assertLessEqual(max(ys), 1e6)
        # Heavy tail: the median near MIN x 2^(1/alpha), the mean far above.
        self.assertAlmostEqual(statistics.median(ys) / (4e3 * 2 ** (1 / 1.2)), 1.0, delta=0.05)
        self.assertGreater(statistics.mean(ys), 2 * statistics.median(ys))
        emp = trafgen.Dist("empirical 1k:3 1M:1", "size")
        zs = [emp.draw(rng) for _ in range(8000)]
        self.assertEqual(set(zs), {1e3, 1e6})
        self.assertAlmostEqual(zs.count(1e3) / len(zs), 0.75, delta=0.02)
        uni = trafgen.Dist("uniform 10ms 20ms", "time")
        self.assertTrue(all(0.01 <= uni.draw(rng) <= 0.02 for _ in range(1000)))

    def test_plan_is_deterministic_per_client(self):
        p = trafgen.parse_profile("[profile]\ntrials = 50\ndirection = both\n"
                                  "size = pareto 1.2 4k 5M\nidle = exponential 100ms\nseed = 7\n")
        a, b = trafgen.plan(p, 1, 0), trafgen.plan(p, 1, 0)
        self.assertEqual(a, b)
        self.assertNotEqual(a, trafgen.plan(p, 2, 0))
        self.assertNotEqual(a, trafgen.plan(p, 1, 1))
        self.assertEqual([t["dir"] for t in a[:4]], ["download", "upload"] * 2)
        self.assertEqual(len(a), 50)

    def test_summary(self):
        recs = [{"client": 1, "size": 10_000, "fct_s": f, "bps": 8e4 / f, "complete": True}
                for f in (0.01, 0.02, 0.03, 0.04, 0.05)]
        recs += [{"client": 2, "size": 2_000_000, "fct_s": 1.0, "bps": 16e6, "complete": True},
                 {"client": 2, "size": 2_000_000, "fct_s": 9.0, "bytes": 5, "complete": False,
                  "cut": True, "bps": 1}]
        s = trafgen.summarize(recs)
        self.assertEqual((s["transfers"], s["complete"], s["cut"]), (7, 6, 1))
        self.assertEqual(list(s["fct_s"]), ["<100k", ">=1M"])
        self.assertAlmostEqual(s["fct_s"]["<100k"]["median"], 0.03)
        self.assertAlmostEqual(s["fct_s"]["<100k"]["p90"], 0.046)
        self.assertEqual(s["clients"]["2"]["complete"], 1)
        m1 = statistics.mean(8e4 / f for f in (0.01, 0.02, 0.03, 0.04, 0.05))
        self.assertAlmostEqual(s["clients"]["1"]["mean_bps"], m1)
        self.assertAlmostEqual(s["jain_clients"], (m1 + 16e6) ** 2 / (2 * (m1 ** 2 + 16e6 ** 2)))
        self.assertEqual(trafgen.size_class(150_000), "100k-1M")

    def test_parse_assign(self):
        self.assertEqual(trafgen.parse_assign("3,4=bulk.profile"), ([3, 4], "bulk.profile"))
        for bad in ("3,4", "=x.profile", "a=x.profile", "3,=x.profile"):
            with self.assertRaises(ValueError, msg=bad):
                trafgen.parse_assign(bad)

    def test_join_reports(self):
        recs = [{"client": 1, "trial": 0, "start_wall": 100.0, "fct_s": 2.0,
                 "local": "10.1.0.1:40000", "remote": "10.0.0.1:7001"},
                {"client": 1, "trial": 1, "start_wall": 200.0, "fct_s": 0.1,
                 "local": "10.1.0.1:40002", "remote": "10.0.0.1:7001"}]
        flow = lambda src, dst, cwnd, rtt, rt: {"src": src, "dst": dst, "cwnd": cwnd,
                                               "rtt_us": rtt, "total_retrans": rt}
        reports = [
            {"time_us": 99_000_000, "interval_s": 1.0,
             "flows": [flow("10.1.0.1:40000", "10.0.0.1:7001", 5, 900, 0)]},     # before
            {"time_us": 101_000_000, "interval_s": 1.0,
             "flows": [flow("10.1.0.1:40000", "10.0.0.1:7001", 10, 1000, 1),
                       flow("10.1.0.1:40001", "10.0.0.1:7001", 99, 1, 9)]},       # another flow
            {"time_us": 102_500_000, "interval_s": 1.0,                          # the master's side
             "flows": [flow("10.0.0.1:7001", "10.1.0.1:40000", 20, 3000, 2)]},
            {"time_us": 104_000_000, "interval_s": 1.0,
             "flows": [flow("10.1.0.1:40000", "10.0.0.1:7001", 50, 1, 7)]}]      # after
        joined = trafgen.join_reports(recs, reports)
        self.assertEqual(joined[0]["reporter"], {"samples": 2, "cwnd_max": 20,
                                                 "rtt_us_mean": 2000, "total_retrans_max": 2})
        self.assertNotIn("reporter", joined[1])
        self.assertNotIn("reporter", recs[0])        # the input is left alone


class Loopback(unittest.TestCase):
    """Master and clients as processes over 127.0.0.1."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="trafgen-")
        self.addCleanup(shutil.rmtree, self.dir)

    def profile(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_all(self, n, profile, assign=(), delays=None):
        out = os.path.join(self.dir, "rec.jsonl")
        # Port 0: the kernel picks both ports, the master prints them.
        cmd = [sys.executable, TRAFGEN, "master", "--listen", "127.0.0.1:0",
               "--clients", str(n), "--profile", profile, "--out", out, "--register-timeout", "20"]
        for a in assign:
            cmd += ["--assign", a]
        master = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = master.stdout.readline()
        m = re.match(r"trafgen master on 127\.0\.0\.1:(\d+) \(data (\d+)\)", first)
        self.assertTrue(m, first)
        port = int(m.group(1))
        clients, started = [], {}
        for i in range(1, n + 1):
            time.sleep((delays or {}).get(i, 0))
            started[i] = time.time()
            clients.append(subprocess.Popen([sys.executable, TRAFGEN, "client", "--master",
                                             f"127.0.0.1:{port}", "--id", str(i)],
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        for c in clients:
            c.communicate(timeout=60)
            self.assertEqual(c.returncode, 0)
        log = first + master.communicate(timeout=60)[0]
        self.assertEqual(master.returncode, 0, log)
        return trafgen.read_records(out), started

    def test_transfers_both_ways_recorded(self):
        prof = self.profile("p", "[profile]\ntrials = 6\ndirection = both\n"
                                 "size = empirical 1k 300k\nidle = fixed 5ms\n")
        bulk = self.profile("b", "[profile]\nname = bulk\ntrials = 2\ndirection = upload\n"
                                 "size = fixed 2M\n")
        recs, _ = self.run_all(3, prof, ["3=" + bulk])
        self.assertEqual(len(recs), 6 + 6 + 2)
        self.assertTrue(all(r["complete"] and r["bytes"] == r["size"] for r in recs))
        p = trafgen.load_profile(prof)
        for c in (1, 2):
            mine = [r for r in recs if r["client"] == c]
            self.assertEqual([(r["dir"], r["size"]) for r in mine],
                             [(t["dir"], t["size"]) for t in trafgen.plan(p, c, 0)])
        self.assertEqual({(r["profile"], r["dir"], r["size"]) for r in recs if r["client"] == 3},
                         {("bulk", "upload", 2_000_000)})
        # The data connection's addresses, for joining per-flow data.
        self.assertTrue(all(r["remote"].endswith(str(int(r["remote"].split(":")[1])))
                            and r["local"].startswith("127.0.0.1:") for r in recs))
        self.assertEqual(len({r["local"] for r in recs}), len(recs))

    def test_profiles_with_fewer_cycles(self):
        """Client 2's profile has one cycle, client 1's two: the second
        barrier waits for client 1 alone, no timeout, no error."""
        two = self.profile("two", "[profile]\ntrials = 1\nsize = fixed 1k\ncycles = 2\n")
        one = self.profile("one", "[profile]\ntrials = 1\nsize = fixed 1k\n")
        t = time.monotonic()
        recs, _ = self.run_all(2, two, ["2=" + one])
        self.assertLess(time.monotonic() - t, 15)
        self.assertEqual(sorted((r["client"], r["cycle"]) for r in recs), [(1, 0), (1, 1), (2, 0)])

    def test_registration_is_a_barrier(self):
        """No client starts before the last one registered."""
        prof = self.profile("p", "[profile]\ntrials = 2\nsize = fixed 10k\ncycles = 2\n")
        recs, started = self.run_all(2, prof, delays={2: 1.0})
        self.assertEqual(len(recs), 2 * 2 * 2)
        first = min(r["start_wall"] for r in recs if r["cycle"] == 0)
        self.assertGreaterEqual(first, started[2])

    def test_stop_after_cuts(self):
        prof = self.profile("p", "[profile]\ntrials = 1000\nsize = fixed 10k\n"
                                 "idle = fixed 50ms\nstop-after = 1s\n")
        t = time.monotonic()
        recs, _ = self.run_all(1, prof)
        self.assertLess(time.monotonic() - t, 10)
        self.assertTrue(3 <= len(recs) <= 25, len(recs))

    def test_cut_upload_counts_what_arrived(self):
        """A bulk upload cut by stop-after: bytes is what the peer acked,
        above 0 and below the size, and the record says cut."""
        prof = self.profile("p", "[profile]\ntrials = 1\ndirection = upload\n"
                                 "size = fixed 100G\nstop-after = 1s\n")
        recs, _ = self.run_all(1, prof)
        self.assertEqual(len(recs), 1)
        r = recs[0]
        self.assertTrue(r["cut"])
        self.assertFalse(r["complete"])
        self.assertTrue(0 < r["bytes"] < r["size"], r)
        self.assertEqual(trafgen.summarize(recs)["clients"]["1"]["bytes"], r["bytes"])

    def test_missing_client_ends_with_error(self):
        """A client that never comes: the others run after the registration
        timeout, the master ends with their records and exit status 1."""
        prof = self.profile("p", "[profile]\ntrials = 2\nsize = fixed 10k\n")
        out = os.path.join(self.dir, "rec.jsonl")
        master = subprocess.Popen([sys.executable, TRAFGEN, "master", "--listen", "127.0.0.1:0",
                                   "--clients", "2", "--profile", prof, "--out", out,
                                   "--register-timeout", "4"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        port = re.match(r"trafgen master on 127\.0\.0\.1:(\d+)", master.stdout.readline()).group(1)
        c = subprocess.run([sys.executable, TRAFGEN, "client", "--master", f"127.0.0.1:{port}",
                            "--id", "1"], capture_output=True, text=True, timeout=30)
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        log = master.communicate(timeout=30)[0]
        self.assertEqual(master.returncode, 1)
        self.assertIn("1 of 2 clients registered", log)
        self.assertEqual(len(trafgen.read_records(out)), 2)

    def test_unknown_cc_refused(self):
        prof = self.profile("p", "[profile]\ncc = nosuchcc\n")
        r = subprocess.run([sys.executable, TRAFGEN, "master", "--listen", "127.0.0.1:0",
                            "--clients", "1", "--profile", prof, "--out", "/dev/null"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("congestion control 'nosuchcc'", r.stderr)
        self.assertIn("available:", r.stderr)

    def test_bad_profile_exit_2(self):
        bad = self.profile("bad", "[profile]\nsize = zipf 1\n")
        r = subprocess.run([sys.executable, TRAFGEN, "master", "--listen", "127.0.0.1:1",
                            "--clients", "1", "--profile", bad, "--out", "/dev/null"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown distribution 'zipf'", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


@unittest.skipUnless(os.environ.get("WLANFAIR_TESTBED_LIVE") == "1" and os.geteuid() == 0,
                     "set WLANFAIR_TESTBED_LIVE=1 (root) for a live run")
class TrafficLive(unittest.TestCase):
    """Profiles through the testbed's medium: every transfer done at the
    medium's rate, no client shut out, and the summary holds what the
    records say."""

    def test_profiles_through_the_medium(self):
        import testbed
        import testbed_traffic
        with tempfile.TemporaryDirectory() as out:
            prof = os.path.join(out, "pub.profile")
            with open(prof, "w") as f:
                f.write("[profile]\ntrials = 4\nsize = fixed 1M\n")
            cfg = testbed.Config(up=0, down=0, stations=4, capacity=10e6, cc="cubic",
                                 prefix=f"wftg{os.getpid()}-", out_dir=out, name="live")
            s = testbed_traffic.run(cfg, prof, {}, timeout=60, log=lambda *a: None)
            self.assertEqual(testbed.list_namespaces(cfg.prefix), [])
            recs = trafgen.read_records(os.path.join(out, "live.jsonl"))
        m = s["summary"]
        print(f"\n4 x 4 x 1 MB at 10M: {s['wall_s']} s, Jain {m['jain_clients']:.3f}, "
              f"client means {[round(v['mean_bps'] / 1e6, 2) for v in m['clients'].values()]}")
        self.assertFalse(s["timed_out"])
        self.assertEqual((m["transfers"], m["complete"]), (16, 16))
        self.assertEqual(len(recs), 16)
        # The medium carries them: 16 MB at its ~7.7 Mbit/s of goodput take
        # ~17 s (measured 18.2-18.6), where no medium would take 2.
        total_bps = 16e6 * 8 / s["wall_s"]
        self.assertTrue(5e6 < total_bps < 8.5e6, total_bps)
        # A client's per-transfer throughput depends on how many others were
        # transferring at the time (one alone gets the whole medium), so the
        # means differ (1.98-2.69 Mbit/s in one run); none is shut out.
        means = [v["mean_bps"] for v in m["clients"].values()]
        avg = sum(means) / len(means)
        for x in means:
            self.assertTrue(0.5 * avg < x < 2 * avg, means)


if __name__ == "__main__":
    wftest.main()
