"""What bench/ackloss and bench/ackloss-sweep share: building the tools,
registering the ACK-loss CCs with wlanfair-tcpd, one testbed run and its
fairness figures (wlanfairctl fairness over the run's series)."""
import json
import os
import signal
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, "build-bench")
TESTBED = os.path.join(TOP, "testbed", "wlanfair-testbed")
BASE = {"ackloss_cubic": "cubic", "ackloss_reno": "reno"}
# The same BPF programs registered with the detector off (thresh 1000: no
# round ever counts 1000 lost ACKs): the struct_ops pass-through baseline.
# They run in a second phase, under a second registration.
NODETECT = {"ackloss_cubic-nodetect": "ackloss_cubic", "ackloss_reno-nodetect": "ackloss_reno"}
STARVED_SHARE = 0.05        # a flow below 5 % of the equal share is starved

# The Python tests and benchmarks share (testlib/); it puts testbed/ on the path.
sys.path.insert(0, os.path.join(TOP, "testlib"))
import wftest  # noqa: E402
from wftest import jain  # noqa: E402


def build(*extra):
    """(wlanfairctl, wlanfair-tcpd) of a release build in build-bench/, with
    the `extra` targets (path/name:type) too."""
    b = wftest.bench_build(BUILD, [wftest.CTL_TARGET, wftest.TCPD_TARGET, *extra])
    return (os.path.join(b, "src", "cli", "wlanfairctl"),
            os.path.join(b, "tcp", "wlanfair-tcpd"))


def start_tcpd(tcpd, state, *extra):
    """Registers the ackloss CCs for the testbed's iperf3 -C (scope wifi
    with no interface: registered, given to nobody by default)."""
    os.makedirs(state, exist_ok=True)
    log = open(os.path.join(state, "tcpd.log"), "a")
    p = subprocess.Popen([tcpd, "--scope", "wifi", "--interface", "none0",
                          "--state-dir", state, *extra], stderr=log, stdout=log)
    status = os.path.join(state, "tcp-status.json")
    for _ in range(200):
        if p.poll() is not None:
            with open(log.name) as f:
                sys.exit("wlanfair-tcpd failed: " + f.read()[-2000:])
        if os.path.exists(status):
            return p
        time.sleep(0.1)
    p.kill()
    sys.exit("wlanfair-tcpd did not start")


def tcpd_counters(state):
    """{CC: detector counters} as the loader reads them now: it rewrites
    its status file on SIGUSR1 (a loader that does not say refresh_s in
    it only every second, or when they change)."""
    path = os.path.join(state, "tcp-status.json")
    with open(path) as f:
        st = json.load(f)
    if "refresh_s" not in st:
        return st["registered"]
    inode = os.stat(path).st_ino
    os.kill(st["pid"], signal.SIGUSR1)
    deadline = time.monotonic() + 5
    while os.stat(path).st_ino == inode and time.monotonic() < deadline:
        time.sleep(0.01)
    with open(path) as f:
        return json.load(f)["registered"]


def stop_tcpd(p):
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)


def read_series_kbps(path):
    """The testbed's series CSV (start_s,end_s,flow,bits_per_s; 1-s bins)
    -> {flow: [kbit/s per bin]}, rounded."""
    series = {}
    with open(path) as f:
        next(f)
        for line in f:
            a, _, flow, bps = line.rstrip("\n").split(",")
            v = series.setdefault(flow, [])
            k = int(float(a))
            v.extend([0] * (k + 1 - len(v)))
            v[k] = round(float(bps) / 1000)
    return series


def longest_stall_s(kbps):
    """The longest run of 1-s bins with nothing delivered (an RTO backoff
    shows as one), leaving out the first second (the handshake)."""
    best = cur = 0
    for v in kbps[1:]:
        cur = cur + 1 if v == 0 else 0
        best = max(best, cur)
    return best


def testbed_run(name, out, cc, testbed_args):
    """One `wlanfair-testbed run`: its summary, or {"error": ...}."""
    cmd = [TESTBED, "run", "--cc", NODETECT.get(cc, cc), "--out", out, "--name", name,
           *testbed_args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": (r.stderr or r.stdout).strip()[-500:]}
    with open(os.path.join(out, name + ".json")) as f:
        return json.load(f)


def fairness(ctl, csv, windows, capacity):
    """wlanfairctl fairness --json over a run's series."""
    return json.loads(subprocess.run(
        [ctl, "fairness", "--series", csv, "--window", ",".join(map(str, windows)),
         "--capacity", capacity, "--allow-over", "--json"],
        check=True, capture_output=True, text=True).stdout)


def direction_parts(flows_bps, series=None, tail_s=0):
    """What a cell's Jain is made of: Jain within the uploads and within
    the downloads, and the mean upload over the mean download (1 where the
    two directions are even); with tail_s, Jain of the flows' means over
    the last tail_s whole seconds of the series (after slow start and the
    first rounds of backing off)."""
    up = [v for n, v in flows_bps.items() if n.startswith("up")]
    down = [v for n, v in flows_bps.items() if n.startswith("down")]
    out = {"jain_up": jain(up), "jain_down": jain(down)}
    if up and down and sum(down) > 0:
        out["up_over_down"] = (sum(up) / len(up)) / (sum(down) / len(down))
    if series and tail_s > 0:
        # The last bin may be partial: left out.
        tails = {n: v[-tail_s - 1:-1] for n, v in series.items() if n in flows_bps}
        if tails and all(len(v) == tail_s for v in tails.values()):
            out["jain_tail"] = jain([sum(v) / tail_s for v in tails.values()])
            out["tail_s"] = tail_s
    return out


NOTHING_BPS = 1000          # below: only iperf3's control connection got through


def never_delivered(summary, raw_dir):
    """Flows that delivered nothing in the whole run, and why as far as
    iperf3's client saw it: "never connected" (no data socket listed: the
    handshake never got through) or "connected" (its first window never
    did). These starve before any CC has a window to act on."""
    out = {}
    for f in summary["flows"]:
        if f["mean_bps"] >= NOTHING_BPS:
            continue
        try:
            with open(os.path.join(raw_dir, f["name"] + ".client.json")) as fh:
                connected = (json.load(fh).get("start") or {}).get("connected")
        except (OSError, ValueError):
            connected = None
        out[f["name"]] = ("unknown" if connected is None else
                          "connected" if connected else "never connected")
    return out


def flow_figures(summary, csv):
    """Per-flow means, total, starved flows and each flow's longest stall
    (from the run's series CSV)."""
    flows = {f["name"]: f["mean_bps"] for f in summary["flows"]}
    total = sum(flows.values())
    share = total / len(flows) if flows else 0
    series = read_series_kbps(csv)
    stalls = {n: longest_stall_s(series.get(n, [])) for n in flows}
    return {"flows_bps": flows, "total_bps": total,
            "starved": sorted(n for n, v in flows.items() if v < STARVED_SHARE * share),
            "longest_stall_s": stalls}
