#!/usr/bin/env python3
"""The benchmarks' pictures (bench/wfplot.py, bench/plot): every committed
bench/results/*.json is drawn into a temporary directory and each SVG is
read back against the JSON it came from: one element (SVG id) per series,
bar and shaded interval the JSON holds, as many markers as measured
points, bar heights in proportion to the values; drawing again gives the
same bytes; the SVGs committed beside the JSON hold the same elements (not
stale), and no committed SVG lacks its JSON. The pictures a JSON holds
only from newer bench runs (ackloss per-flow series, scan-dips series,
swm curve) are drawn from the committed JSON with such data added.

Exit 77 (skip) without python3-matplotlib.
"""
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True          # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")
sys.path.insert(0, HERE)                # wfplot: beside this test, in bench/
sys.path.insert(0, os.path.join(TOP, "testlib"))
import wfplot  # noqa: E402
import wftest  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"


def ids(path):
    """{id: <g> element} of the SVG's groups with an id we set."""
    root = ET.parse(path).getroot()
    return {g.get("id"): g for g in root.iter(SVG + "g") if g.get("id")}


def with_prefix(groups, prefix):
    return sorted(k for k in groups if k.startswith(prefix))


def markers(g):
    return len(list(g.iter(SVG + "use")))


def vertices(g):
    p = g.find(SVG + "path")
    nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", p.get("d"))]
    return list(zip(nums[0::2], nums[1::2]))


def bar_height(g):
    ys = [y for _, y in vertices(g)]
    return max(ys) - min(ys)


class BenchPlots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="bench-plots-")
        cls.dir = cls.tmp.name
        cls.results = {}
        for path in sorted(glob.glob(os.path.join(RESULTS, "*.json"))):
            with open(path) as f:
                cls.results[os.path.basename(path)[:-5]] = json.load(f)
        cls.drawn = {}
        for name, res in cls.results.items():
            cls.drawn[name] = wfplot.draw(res, os.path.join(cls.dir, name + ".json"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def svg(self, name):
        return ids(os.path.join(self.dir, name + ".svg"))

    def draw_variant(self, name, res):
        d = tempfile.mkdtemp(dir=self.dir)
        return {os.path.basename(p)[:-4]: ids(p) for p in wfplot.draw(res, os.path.join(d, name + ".json"))}

    def test_every_result_has_pictures(self):
        self.assertGreaterEqual(len(self.results), 9)
        for name, paths in self.drawn.items():
            self.assertTrue(paths, name)
            for p in paths:
                self.assertTrue(os.path.basename(p).startswith(name), p)
                root = ET.parse(p).getroot()
                self.assertEqual(root.tag, SVG + "svg", p)
                texts = " ".join(t.text or "" for t in root.iter(SVG + "text"))
                res = self.results[name]
                kernel = res.get("guest_kernel") or res["machine"]["kernel"]
                self.assertIn(kernel, texts, f"{p}: the title says where")
                with open(p) as f:
                    self.assertNotIn("<dc:date>", f.read(), p)

    def test_deterministic(self):
        for name, res in self.results.items():
            d = tempfile.mkdtemp(dir=self.dir)
            again = wfplot.draw(res, os.path.join(d, name + ".json"))
            self.assertEqual([os.path.basename(p) for p in again],
                             [os.path.basename(p) for p in self.drawn[name]])
            for a, b in zip(self.drawn[name], again):
                with open(a, "rb") as fa, open(b, "rb") as fb:
                    self.assertEqual(fa.read(), fb.read(), f"{os.path.basename(a)} differs when redrawn")

    def test_committed_svgs_match_json(self):
        expected = set()
        for name, paths in self.drawn.items():
            for p in paths:
                base = os.path.basename(p)
                expected.add(base)
                committed = os.path.join(RESULTS, base)
                self.assertTrue(os.path.exists(committed), f"bench/results/{base} missing: bench/plot "
                                f"bench/results/{name}.json")
                self.assertEqual(sorted(ids(committed)), sorted(ids(p)),
                                 f"bench/results/{base} is stale: bench/plot bench/results/{name}.json")
        for p in glob.glob(os.path.join(RESULTS, "*.svg")):
            self.assertIn(os.path.basename(p), expected, f"{p}: no JSON draws it")

    def test_plot_cli(self):
        out = os.path.join(self.dir, "cli", "r.svg")
        os.makedirs(os.path.dirname(out))
        r = subprocess.run([sys.executable, os.path.join(TOP, "bench", "plot"),
                            os.path.join(RESULTS, "ap-controller.json"), "-o", out],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(os.path.dirname(out))), ["r-dynamic.svg", "r-static.svg"])
        bad = os.path.join(self.dir, "cli", "bad.json")
        with open(bad, "w") as f:
            json.dump({"benchmark": "reporter"}, f)
        r = subprocess.run([sys.executable, os.path.join(TOP, "bench", "plot"), bad],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot draw bad.svg", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    # ------------------------------------------------------ per benchmark --

    def test_ackloss(self):
        res = self.results["ackloss"]
        g = self.svg("ackloss")
        want = sorted(f"bar-jain-{t['mix']}-b{t['ap_buffer']}-{cc}" for t in res["table"] for cc in t["ccs"])
        self.assertEqual(with_prefix(g, "bar-jain-"), want)
        self.assertEqual(len(with_prefix(g, "bar-total-")), len(want))
        # Heights in proportion to the Jain values (one y scale, from 0).
        scale = [bar_height(g[f"bar-jain-{t['mix']}-b{t['ap_buffer']}-{cc}"]) / v["jain"]
                 for t in res["table"] for cc, v in t["ccs"].items()]
        self.assertLess(max(scale) / min(scale), 1.001)
        tot = [bar_height(g[f"bar-total-{t['mix']}-b{t['ap_buffer']}-{cc}"]) / v["total_mbps"]
               for t in res["table"] for cc, v in t["ccs"].items()]
        self.assertLess(max(tot) / min(tot), 1.001)
        s = self.svg("ackloss-swm")
        combos = {(r["mix"], r["ap_buffer"], r["cc"]) for r in res["runs"] if "error" not in r}
        self.assertEqual(with_prefix(s, "swm-"),
                         sorted(f"swm-{m}-b{b}-{c}-{k}" for m, b, c in combos for k in ("mean", "min")))
        windows = {w for r in res["runs"] if "error" not in r for w in r["swm"]}
        for k in with_prefix(s, "swm-"):
            self.assertEqual(markers(s[k]), len(windows), k)
        has_series = any("series_kbps" in r for r in res["runs"])
        self.assertEqual(os.path.exists(os.path.join(self.dir, "ackloss-flows.svg")), has_series)

    def test_ackloss_flows_from_series(self):
        res = copy.deepcopy(self.results["ackloss"])
        for r in res["runs"]:
            if r.get("rep") == 1 and "error" not in r:
                r["series_kbps"] = {f: [round(v / 1000 * (1 + 0.1 * (k % 3))) for k in range(60)]
                                    for f, v in r["flows_bps"].items()}
        pics = self.draw_variant("ackloss", res)
        f = pics["ackloss-flows"]
        buf = min(r["ap_buffer"] for r in res["runs"])
        cols = ("cubic", "ackloss_cubic", "reno", "ackloss_reno")
        want = sorted(f"flow-{r['mix']}-{r['cc']}-{fl}" for r in res["runs"]
                      if r.get("rep") == 1 and r["ap_buffer"] == buf and r["cc"] in cols
                      for fl in r["flows_bps"])
        self.assertEqual(with_prefix(f, "flow-"), want)
        for k in want:
            self.assertGreaterEqual(len(vertices(f[k])), 2, k)

    def test_swm(self):
        res = self.results["swm"]
        g = self.svg("swm")
        for n, v in res["seconds_all"].items():
            self.assertEqual(markers(g[f"rep-{n}"]), len(v))
        self.assertIn("bar-median-swm", g)
        self.assertEqual(bool(with_prefix(g, "curve-")), "curve" in res)
        res = copy.deepcopy(res)
        res["curve"] = [{"window": w, "count": 1, "jain_min": 0.5 + w / 200, "jain_mean": 0.8 + w / 400}
                        for w in (1.0, 10.0, 60.0)]
        c = self.draw_variant("swm", res)["swm"]
        self.assertEqual(markers(c["curve-jain-mean"]), 3)
        self.assertEqual(markers(c["curve-jain-min"]), 3)

    def test_reporter(self):
        res = self.results["reporter"]
        g = self.svg("reporter")
        for k in ("cpu-reporter", "cpu-ss_ip", "rss-reporter", "rss-anon-reporter"):
            self.assertEqual(markers(g[k]), len(res["rows"]), k)
        self.assertEqual(markers(g["cpu-target"]), 2)      # targets at 1 000 and 10 000
        self.assertIn("rss-target", g)

    def test_idle(self):
        res = self.results["idle"]
        g = self.svg("idle")
        # Every row's three bars, heights in proportion to the figures.
        for field in ("wakeups_per_s", "cpu_s_per_hour", "pss_kib"):
            scale = None
            for r in res["rows"]:
                gid = f"{field}-{r['build']}-{r['daemon']}-{r['state']}"
                self.assertIn(gid, g)
                if r[field] and r[field] > 0:
                    s = bar_height(g[gid]) / r[field]
                    if scale is None:
                        scale = s
                    self.assertAlmostEqual(s / scale, 1, delta=0.02, msg=gid)
        self.assertEqual(markers(g["target"]), len({(r["daemon"], r["state"]) for r in res["rows"]}))

    def scan_dips(self, name):
        res = self.results[name]
        g = self.svg(name)
        want = sorted(f"bar-{p}-{w}-r{row['rep']}" for row in res["reps"] for p in ("noguard", "guard")
                      for w in ("in_scan", "outside") if row[f"{p}_mbps_{w}"] is not None)
        self.assertEqual(sorted(with_prefix(g, "bar-noguard-") + with_prefix(g, "bar-guard-")), want)
        self.assertEqual(len(with_prefix(g, "scans-")), 2 * len(res["reps"]))
        # With series (bench/scan-dips since the plots): a span per scan.
        res = copy.deepcopy(res)
        for row in res["reps"]:
            row["series"] = {p: {"bins": [[k / 2 + 0.25, 30.0 - (k % 7)] for k in range(119)],
                                 "scans": [[5.0 * i + 1, 5.0 * i + 2.5] for i in range(row["rep"] + (p == "noguard"))]}
                             for p in ("noguard", "guard")}
        s = self.draw_variant(name, res)[name + "-series"]
        for row in res["reps"]:
            for p in ("noguard", "guard"):
                n = len(row["series"][p]["scans"])
                self.assertEqual(len(with_prefix(s, f"scan-{p}-r{row['rep']}-")), n)
                self.assertIn(f"tput-{p}-r{row['rep']}", s)

    def test_scan_dips(self):
        self.scan_dips("scan-dips")

    def test_scan_dips_trixie(self):
        self.scan_dips("scan-dips-trixie")

    def test_scan_guard(self):
        res = self.results["scan-guard"]
        g = self.svg("scan-guard")
        for k in ("reaction_on_s", "reaction_off_s"):
            self.assertEqual(markers(g[f"reaction-{k}"]), len(res[k]["samples"]))
        self.assertEqual(with_prefix(g, "bar-cpu-"), ["bar-cpu-idle", "bar-cpu-traffic"])
        self.assertIn("target-rss", g)

    def test_ackloss_cost(self):
        res = self.results["ackloss-cost"]
        g = self.svg("ackloss-cost")
        self.assertEqual(len(with_prefix(g, "bar-")), 2 * 2 * len(res["results"]))
        for m, v in res["results"].items():
            for cc in ("cubic", "ackloss_cubic"):
                self.assertEqual(markers(g[f"reps-gbit_s-{m}-{cc}"]), len(v[cc]["gbit_s"]))

    def test_ap_controller(self):
        res = self.results["ap-controller"]
        d = self.svg("ap-controller-dynamic")
        for mode, r in res["dynamic"]["runs"].items():
            self.assertEqual(with_prefix(d, f"goodput-{mode}-"),
                             sorted(f"goodput-{mode}-sta{i}" for i in r["goodput_bps"]))
            self.assertIn(f"jain-{mode}", d)
        s = self.svg("ap-controller-static")
        static = [t["scenario"] for t in res["table"] if not t["scenario"].startswith("dynamic")]
        self.assertEqual(len(with_prefix(s, "bar-jain-")), 2 * len(static))
        self.assertEqual(len(with_prefix(s, "bar-bound-")), 2 * len(static))
        scale = [bar_height(s[f"bar-bound-{m}-{t['scenario']}"]) / t[m]["total_of_bound"]
                 for t in res["table"] if t["scenario"] in static for m in ("uncontrolled", "controlled")]
        self.assertLess(max(scale) / min(scale), 1.001)
        if any("meets" in t["controlled"] for t in res["table"]):
            # The time to fairness, controlled runs only.
            self.assertEqual(len(with_prefix(s, "bar-time-")), len(static))

    def test_rwnd(self):
        res = self.results["rwnd"]
        g = self.svg("rwnd")
        modes = list(res["summary"])
        self.assertEqual(len(with_prefix(g, "bar-")) - len(with_prefix(g, "bar-game-")), 3 * len(modes))
        scale = [bar_height(g[f"bar-{m}-{rtt}ms"]) / res["summary"][m]["rates_bps"][k]["median"]
                 for m in modes for k, rtt in enumerate((30, 50, 100))]
        self.assertLess(max(scale) / min(scale), 1.001)
        self.assertEqual(len(with_prefix(g, "bar-game-")), 4 * len(modes))
        for m in modes:
            self.assertIn(f"total-{m}", g)
        self.assertEqual(with_prefix(g, "published-"), ["published-equal", "published-rtt-fair"])

    def test_metrics_series(self):
        res = self.results["metrics-series"]
        g = self.svg("metrics-series")
        self.assertEqual(len(with_prefix(g, "bar-reporter-sta")), len(res["reporters"]))
        self.assertEqual(len(with_prefix(g, "bar-apd-")), 3)
        self.assertEqual(len(with_prefix(g, "bar-scan-guard-")), len(res["scan_guard"]["bed"]))

    def test_ackloss_sweep(self):
        for name in (n for n in self.results if n.startswith("ackloss-sweep-")):
            res = self.results[name]
            g = self.svg(name)
            want = sorted(f"cell-{t['capacity']}-b{t['ap_buffer']}-{t['mix']}-delack{t['delack']}-{cc}"
                          for t in res["table"] for cc in t["ccs"])
            self.assertEqual(with_prefix(g, "cell-"), want, name)
            root = ET.parse(os.path.join(self.dir, name + ".svg")).getroot()
            texts = [t.text or "" for t in root.iter(SVG + "text")]
            for t in res["table"]:
                for v in t["ccs"].values():
                    self.assertTrue(any(x.startswith(f"{v['jain']:.2f}") for x in texts), (name, v))
            # The colour says Jain: cells of different Jain differ in colour.
            fills = {}
            for t in res["table"]:
                for cc, v in t["ccs"].items():
                    gid = f"cell-{t['capacity']}-b{t['ap_buffer']}-{t['mix']}-delack{t['delack']}-{cc}"
                    fills.setdefault(round(min(1, max(0.5, v["jain"])), 2), set()).add(
                        re.search(r"fill: ?(#[0-9a-f]{6})", g[gid].find(SVG + "path").get("style")).group(1))
            lows, highs = fills.get(0.5, set()), fills.get(1.0, set())
            if lows and highs:
                self.assertFalse(lows & highs, name)

    def test_traffic(self):
        res = self.results["traffic"]
        g = self.svg("traffic")
        web = [r for r in res["runs"] if r["scenario"] == "web"]
        want = sorted(f"bar-fct-{k}-{st}-{r['cc']}" for r in web for k in r["summary"]["fct_s"]
                      for st in ("median", "p90", "p99"))
        self.assertEqual(with_prefix(g, "bar-fct-"), want)
        pub = [r for r in res["runs"] if r["scenario"].startswith("published")]
        keys = {f"bar-pub-{r['scenario']}-{c}-{r['cc']}": v["mean_bps"]
                for r in pub for c, v in r["summary"]["clients"].items()}
        self.assertEqual(with_prefix(g, "bar-pub-"), sorted(keys))
        scale = [bar_height(g[k]) / v for k, v in keys.items()]
        self.assertLess(max(scale) / min(scale), 1.001)

    def test_lab_traffic(self):
        # bench/lab-traffic: lab-traffic.json, -trixie.json (if any)
        for name in (n for n in self.results if n.startswith("lab-traffic")):
            res = self.results[name]
            g = self.svg(name)
            summ = res["summaries"]
            web = [r for r in res["runs"] if r["scenario"] == "web"]
            want = sorted(f"bar-fct-{k}-{st}-{r['cc']}" for r in web for k, v in summ[r["phase"]]["fct_s"].items()
                          for st in ("median", "p90", "p99") if v[st] is not None)
            self.assertEqual(with_prefix(g, "bar-fct-"), want, name)
            pub = [r for r in res["runs"] if r["scenario"].startswith("published")]
            keys = {f"bar-pub-{r['scenario']}-{c}-{r['cc']}": v["mean_bps"]
                    for r in pub for c, v in summ[r["phase"]]["clients"].items()}
            self.assertEqual(with_prefix(g, "bar-pub-"), sorted(keys), name)
            scale = [bar_height(g[k]) / v for k, v in keys.items() if v]
            if scale:
                self.assertLess(max(scale) / min(scale), 1.001, name)

    def test_scan_onoff(self):
        res = self.results["scan-onoff"]
        g = self.svg("scan-onoff")
        want = sorted(f"transfer-{r['holdoff_s']:g}-{k}" for r in res["rows"]
                      for k in range(len(r["transfer_s"])))
        self.assertEqual(with_prefix(g, "transfer-"), want)
        for r in res["rows"]:
            h = f"{r['holdoff_s']:g}"
            self.assertIn(f"bar-writes-{h}", g)
            # one shaded span per stretch of allowed scans: restores + 1
            self.assertEqual(len(with_prefix(g, f"allowed-{h}-")), r["restores"] + 1, h)
        scale = [bar_height(g[f"bar-writes-{r['holdoff_s']:g}"]) / r["writes_per_min"]
                 for r in res["rows"] if r["writes_per_min"]]
        self.assertLess(max(scale) / min(scale), 1.001)

    def test_scan_onoff_lab(self):
        # bench/scan-onoff-lab: scan-onoff-lab.json, -trixie.json (if any)
        for name in (n for n in self.results if n.startswith("scan-onoff-lab")):
            res = self.results[name]
            g = self.svg(name)
            for r in res["rows"]:
                ph = r["phase"]
                self.assertEqual(len(with_prefix(g, f"transfer-{ph}-")), len(r["transfer_s"]), (name, ph))
                self.assertEqual(len(with_prefix(g, f"scan-{ph}-")), len(r["scans_s"]), (name, ph))
                # one shaded span per stretch of allowed scans: from the
                # start (allowed) and from each restore
                spans = 1 + sum(1 for _, v in r["writes_s"] if v != "")
                self.assertEqual(len(with_prefix(g, f"allowed-{ph}-")), spans, (name, ph))
                self.assertIn(f"bar-transitions-{ph}", g)
                self.assertIn(f"bar-scans-{ph}", g)
            scale = [bar_height(g[f"bar-transitions-{r['phase']}"]) / r["transitions_per_min"]
                     for r in res["rows"] if r["transitions_per_min"]]
            if scale:
                self.assertLess(max(scale) / min(scale), 1.001, name)


def requires(names):
    try:
        wfplot.pyplot()
    except wfplot.NoMatplotlib as e:
        return f"python3-matplotlib is missing ({e})"
    return None


if __name__ == "__main__":
    wftest.main(requires)
