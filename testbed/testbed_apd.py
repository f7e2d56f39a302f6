"""wlanfair-apd in the emulated BSS (testbed.py): reporters, the daemon,
scheduled iperf3 flows, and the figures of a run (root only).

A `Cell` is one testbed (its own namespaces) with wlanfair-reportd in every
station namespace (each its own machine id, so that they are distinct
hosts, all signing with one key file) and, per run, wlanfair-apd in the AP
namespace on br0's ports (stations-from=bridge-ports). `Cell.run()` starts
the daemon with the given settings, launches the flows of a schedule (each
`FlowSpec` one iperf3 pair from `start` to `end` seconds after the run's
t0), polls the daemon's status file, stops everything and returns a `Run`:
per station and second the receiver's goodput (`goodput`: its sockets'
bytes_received sampled every 0.2 s on the run's clock, testbed_sockdiag's
RecvSampler, as bench/ackloss counts; iperf3's intervals only where
sock_diag fails, since they count from the connection, which lost SYNs
can delay by seconds) and the AP's view from the status file
(`status_goodput`), plus every round the bench saw (`rounds`).

The figures (pure functions, no root: `phase_figures`):

- Jain per second: Jain's index of the 1-s goodputs of the stations active
  in that second (those with a flow covering the whole phase).
- Time to Jain >= target after an event e (the start or a join/leave) with
  the next event at E: the smallest k in [e, E) such that the 1-s Jain of
  every second k, k+1, ..., E-1 is >= target; the time is k - e (0: fair
  from the first second after the event), None when even the last second
  of the phase is below target. A single late dip therefore counts: this is
  "stays fair from then on", not "first touches". The same on the Jain of
  5-s moving means of the goodputs (`converge_5s_s`), which a single noisy
  second does not break.
- Steady state: the last `steady` seconds of the phase. Steady Jain is the
  mean of the 1-s Jain over them (`jain_steady`); also Jain of the mean
  goodputs (`jain_of_means`), the trade-off index F(X, C, alpha=1) of those
  means with C = the testbed's configured capacity (computed by
  `wlanfairctl fairness --capacity C --allow-over --json`, falling back to
  the formula of src/metrics/wlanfair-fairness.c when no CLI is given), and
  the total (sum of the means).
- The throughput-fair bound of the phase: with a near station alone
  carrying C_dir (measured per direction) and station i's frames costing
  c_i near frames of airtime, equal throughput x for every active station
  fills the airtime when sum_i x c_i / C_dir(i) = 1, so
  bound = n / sum_i (c_i / C_dir(i)); with one direction that is
  n C_near / sum c_i.
- Stations limited elsewhere (`limited`: a lossy station of the testbed,
  whose TCP cannot use its share): max-min gives the air such a station
  leaves to the others, so it is left out of a second's Jain when it
  carried less than the others' mean that second (above that mean it took
  more than its share, and counts), and of the Jain of the means likewise.
  The bound becomes the max-min one: the limited stations at what they
  carried (steady means), the others sharing the rest of the airtime
  equally, `x_L + (n - L) (1 - sum_L x_L c_L / C_dir(L)) / sum_others c_i /
  C_dir(i)`; beside it `held_at_limited_bps`, the total with every station
  held at the (lowest) limited station's rate, which the cell must beat.
"""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import AbstractSet, Dict, List, Optional

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
import testbed  # noqa: E402
from testbed_results import connect_delay, read_intervals, rebin  # noqa: E402
from testbed_sockdiag import RecvSampler  # noqa: E402
from wftest import jain, tradeoff  # noqa: E402  (on the path through testbed_results)

REPORT_PORT = 7455
DEFAULT_KEY = b"wlanfair-testbed-apd-key-0123456789abcdef"


STARVED_SHARE = 0.05   # a station below 5 % of the equal share is starved

def fairness_cli(ctl: Optional[str], xs: List[float], capacity: float) -> dict:
    """{"jain", "tradeoff"} of throughputs xs (bit/s) with capacity C, from
    `wlanfairctl fairness` when ctl is given, else the same formulas here."""
    if not xs:
        return {"jain": None, "tradeoff": None}
    if ctl:
        r = subprocess.run([ctl, "fairness", "--capacity", "%.6g" % capacity, "--allow-over",
                            "--json"] + ["%.6g" % x for x in xs],
                           capture_output=True, text=True, timeout=10)
        if r.returncode == 0:
            d = json.loads(r.stdout)
            return {"jain": d["jain"], "tradeoff": d["tradeoff"], "source": "wlanfairctl"}
    return {"jain": jain(xs), "tradeoff": tradeoff(xs, capacity), "source": "formula"}


@dataclass
class FlowSpec:
    station: int                # from 1
    direction: str              # "up" | "down"
    start: float                # s after t0
    end: float                  # s after t0
    parallel: int = 1


@dataclass
class Run:
    seconds: int
    flows: List[FlowSpec]
    macs: List[str]
    goodput: Dict[int, List[float]]          # station -> bit/s per second (its receiver)
    status_goodput: Dict[int, List[Optional[float]]]  # station -> AP's bit/s per second
    status_jain: List[Optional[float]]       # the daemon's round.jain per second
    rounds: List[dict]                       # compact rounds: t (s after t0), mode, ...
    settings: List[str]
    apd_exit: Optional[int]
    apd_log: str
    errors: List[str] = field(default_factory=list)
    # The data senders' CCs as iperf3 reported them: the system default
    # unless the Config names one (a kernel built with BBR as its default
    # gives BBR senders otherwise).
    sender_ccs: List[str] = field(default_factory=list)
    # The same flows as iperf3's receiver counted them (its 1-s intervals,
    # rebinned), and as the stations' reporters reported them to the AP
    # (the rounds' report_up/report_down, binned as status_goodput): what
    # a benchmark compares the reporter against.
    iperf_goodput: Dict[int, List[float]] = field(default_factory=dict)
    report_goodput: Dict[int, List[Optional[float]]] = field(default_factory=dict)


class Cell:
    """One testbed with a reporter per station; runs of wlanfair-apd."""

    def __init__(self, cfg: testbed.Config, apd: str, reportd: str, workdir: str,
                 key: bytes = DEFAULT_KEY, log=print, textfile_dir: Optional[str] = None):
        """textfile_dir: None (default) runs every daemon with its Prometheus
        textfile off; a directory: each reporter writes DIR/sta<i>/wlanfair.prom
        and wlanfair-apd DIR/ap/wlanfair-ap.prom (bench/metrics-series)."""
        self.cfg, self.apd, self.reportd, self.log = cfg, apd, reportd, log
        self.textfile_dir = textfile_dir
        os.makedirs(workdir, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix="cell-", dir=workdir)
        self.key = os.path.join(self.dir, "report.key")
        fd = os.open(self.key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, key + b"\n")
        os.close(fd)
        self.empty_conf = os.path.join(self.dir, "empty.conf")
        open(self.empty_conf, "w").close()
        self.status_path = os.path.join(self.dir, "status.json")
        self.state_path = os.path.join(self.dir, "state")
        self.tb = testbed.Testbed(cfg)
        self.procs: List[subprocess.Popen] = []
        self.reporters: List[subprocess.Popen] = []
        self.macs: List[str] = []
        self.nruns = 0

    # --- life cycle ------------------------------------------------------------

    def __enter__(self):
        self.setup()
        return self

    def __exit__(self, *exc):
        self.teardown()

    def setup(self):
        self.tb.setup()
        self.macs = [self.tb._mac(ns, "wlan0") for ns in self.tb.sta]

    def teardown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.procs = []
        self.tb.teardown()

    def spawn(self, ns: str, args: List[str], log: Optional[str] = None) -> subprocess.Popen:
        out = open(log, "w") if log else subprocess.DEVNULL
        env = {k: v for k, v in os.environ.items() if k != "CREDENTIALS_DIRECTORY"}
        try:
            p = subprocess.Popen(testbed.nsexec(ns, args), stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=subprocess.STDOUT if log else
                                 subprocess.DEVNULL, env=env)
        finally:
            if log:
                out.close()
        self.procs.append(p)
        return p

    @staticmethod
    def stop(p: subprocess.Popen, sig=signal.SIGTERM, timeout: float = 10) -> int:
        if p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        return p.returncode

    # --- reporters and the daemon ------------------------------------------------

    def start_reporters(self, key: bool = True):
        """wlanfair-reportd in every station namespace, each with its own
        machine id, reporting every second to the AP's br0 address."""
        self.reporters = []
        for i, ns in enumerate(self.tb.sta, 1):
            mid = os.path.join(self.dir, "machine-id-%d" % i)
            with open(mid, "w") as f:
                f.write("%032x\n" % (0x5b00 + i))
            args = [self.reportd, "--config", self.empty_conf, "--machine-id", mid,
                    "-i", "wlan0", "--destination", "%s:%d" % (testbed.AP_WLAN_IP, REPORT_PORT),
                    "--socket", "none", "--textfile-dir", self.textfile_of("sta%d" % i)]
            if key:
                args += ["--key", self.key]
            self.reporters.append(self.spawn(ns, args, os.path.join(self.dir, "reportd-%d.log" % i)))

    def textfile_of(self, name: str) -> str:
        """The textfile directory of one daemon ("none" without textfile_dir)."""
        if not self.textfile_dir:
            return "none"
        d = os.path.join(self.textfile_dir, name)
        os.makedirs(d, exist_ok=True)
        return d

    def stop_reporters(self):
        for p in self.reporters:
            self.stop(p)
        self.reporters = []

    def port_rates(self) -> str:
        """port-rates= for the daemon: what nl80211 would give a real AP,
        capacity for a near port, capacity / K for a far one; in the ns-3
        cell, the PHY rate of each station's MCS."""
        if self.cfg.medium == "ns3" and self.tb.ns3 is not None:
            return ",".join("p%d=%d" % (i, r) for i, r in enumerate(self.tb.ns3.phy_rates(), 1))
        return ",".join("p%d=%d" % (i, round(self.cfg.capacity / self.cfg.far.get(i, 1.0)))
                        for i in range(1, self.cfg.stations + 1))

    def start_apd(self, settings: List[str], log: str, key: bool = True) -> subprocess.Popen:
        try:
            os.unlink(self.status_path)
        except FileNotFoundError:
            pass
        args = [self.apd, "-c", self.empty_conf, "-o", "interface=br0",
                "-o", "stations-from=bridge-ports", "-o", "status=" + self.status_path,
                "-o", "state=" + self.state_path, "-o", "textfile-dir=" + self.textfile_of("ap")]
        if key:
            args += ["-o", "key=" + self.key]
        for s in settings:
            args += ["-o", s]
        return self.spawn(self.tb.ap, args, log)

    def status(self) -> Optional[dict]:
        try:
            with open(self.status_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    # --- a run -------------------------------------------------------------------

    def run(self, flows: List[FlowSpec], seconds: int, settings: List[str],
            name: str, apd_lead: float = 1.0, poll_step: float = 0.2) -> Run:
        """The daemon with `settings` (-o KEY=VALUE), then the flows of the
        schedule over `seconds` from t0 (the daemon starts apd_lead s before
        t0, once its status file exists); returns the Run."""
        self.nruns += 1
        rdir = os.path.join(self.dir, name)
        os.makedirs(rdir, exist_ok=True)
        apd_log = os.path.join(rdir, "apd.log")
        apd = self.start_apd(settings, apd_log)
        deadline = time.monotonic() + 10
        while self.status() is None:
            if apd.poll() is not None or time.monotonic() > deadline:
                self.stop(apd)
                with open(apd_log, errors="replace") as f:
                    raise testbed.TestbedError("wlanfair-apd did not start (exit %s): %s"
                                               % (apd.returncode, f.read()[-2000:]))
            time.sleep(0.1)
        time.sleep(apd_lead)

        # One one-off iperf3 server per flow, all listening before t0.
        specs = []
        for n, f in enumerate(flows):
            port = testbed.BASE_PORT + n
            stem = os.path.join(rdir, "iperf-%d-sta%d-%s" % (n, f.station, f.direction))
            srv = self.spawn(self.tb.srv, ["iperf3", "-s", "-1", "-B", testbed.SRV_IP,
                                           "-p", str(port), "--json"], stem + ".server.json")
            specs.append({"flow": f, "port": port, "stem": stem, "server": srv,
                          "client": None, "launched": None})
        testbed.wait_listening(self.tb, [s["port"] for s in specs])
        sampler, sampler_error = None, None
        try:
            sampler = RecvSampler({s["stem"]: testbed.receiver(self.tb, s["flow"].direction,
                                                               s["flow"].station, s["port"])
                                   for s in specs})
        except OSError as e:
            sampler_error = "sock_diag: %s (goodput from iperf3's intervals)" % e
        t0 = time.monotonic()
        wall0 = time.time()
        rounds, last_round = [], None
        pending = sorted(specs, key=lambda s: s["flow"].start)
        end = t0 + seconds
        if sampler:
            sampler.start(t0)
        try:
            while True:
                now = time.monotonic()
                while pending and t0 + pending[0]["flow"].start <= now:
                    s = pending.pop(0)
                    f = s["flow"]
                    # The last phase's flows get one more second: the run's
                    # last bin is whole.
                    dur = f.end - f.start + (1 if f.end >= seconds else 0)
                    args = ["iperf3", "-c", testbed.SRV_IP, "-p", str(s["port"]),
                            "-t", "%g" % dur, "-i", "1", "--json"]  # no connect timeout: testbed.run_traffic
                    if f.direction == "down":
                        args.append("-R")
                    if self.cfg.cc:
                        args += ["-C", self.cfg.cc]
                    if f.parallel > 1:
                        args += ["-P", str(f.parallel)]
                    s["launched"] = time.monotonic() - t0
                    s["launched_wall"] = time.time()
                    s["client"] = self.spawn(self.tb.sta[f.station - 1], args,
                                             s["stem"] + ".client.json")
                st = self.status()
                if st and st.get("rounds") != last_round:
                    last_round = st.get("rounds")
                    rounds.append(compact_round(st, wall0, self.macs))
                if apd.poll() is not None:
                    raise testbed.TestbedError("wlanfair-apd exited %s during the run"
                                               % apd.returncode)
                if now >= end and not pending:
                    break
                time.sleep(min(poll_step, max(0.01, end - now)))
            # Wait for the flows to end (they run at most 1 s past the end).
            deadline = time.monotonic() + 15
            for s in specs:
                for p in (s["client"], s["server"]):
                    if p is None:
                        continue
                    try:
                        p.wait(max(0.1, deadline - time.monotonic()))
                    except subprocess.TimeoutExpired:
                        p.terminate()
                        try:
                            p.wait(3)
                        except subprocess.TimeoutExpired:
                            p.kill()
                            p.wait()
        finally:
            if sampler:
                sampler.stop()
            for s in specs:
                for p in (s["client"], s["server"]):
                    if p is not None and p.poll() is None:
                        p.kill()
                        p.wait()
            code = self.stop(apd)
        time.sleep(1.0)      # let the restored qdiscs drain before the next run

        goodput: Dict[int, List[float]] = {}
        errors = []
        if sampler and sampler.error:
            sampler_error = "sock_diag: %s (goodput from iperf3's intervals)" % sampler.error
        sampled = sampler is not None and sampler_error is None and len(sampler.samples) >= 2
        if sampler_error:
            errors.append(sampler_error)
        sender_ccs = set()
        iperf: Dict[int, List[float]] = {}
        for s in specs:
            f = s["flow"]
            recv = "server" if f.direction == "up" else "client"
            ivs, err, end = read_intervals(s["stem"] + ".%s.json" % recv)
            if recv != "client":     # the client's JSON names the sender's CC
                _, _, end = read_intervals(s["stem"] + ".client.json")
            if end.get("sender_tcp_congestion"):
                sender_ccs.add(end["sender_tcp_congestion"])
            if err:
                errors.append("iperf3 %s of station %d at %g s: %s" % (recv, f.station, f.start, err))
            ibins = [0.0] * seconds
            if s["launched"] is not None:
                late = connect_delay(s["stem"] + ".client.json", s["launched_wall"])
                if late and not sampled:
                    errors.append("iperf3 client of station %d connected %.1f s after its launch "
                                  "(its series moved by that)" % (f.station, late))
                ibins = rebin(ivs, s["launched"] + late, seconds)
            bins = sampler.bins(s["stem"], seconds) if sampled else ibins
            iacc = iperf.setdefault(f.station, [0.0] * seconds)
            for k, b in enumerate(ibins):
                iacc[k] += b * 8
            acc = goodput.setdefault(f.station, [0.0] * seconds)
            for k, b in enumerate(bins):
                acc[k] += b * 8
        dirs = {f.station: f.direction for f in flows}
        sg, sj = status_series(rounds, seconds, dirs)
        rg, _ = status_series(rounds, seconds, {i: "report_" + d for i, d in dirs.items()})
        with open(apd_log, errors="replace") as f:
            log_text = f.read()
        with open(os.path.join(rdir, "rounds.json"), "w") as f:
            json.dump(rounds, f)
        return Run(seconds, flows, list(self.macs), goodput, sg, sj, rounds, settings, code,
                   log_text, errors, sorted(sender_ccs), iperf, rg)


def compact_round(st: dict, wall0: float, macs: List[str]) -> dict:
    """What the bench keeps of one status file: the round's time (s after
    t0, from time_us), mode, round figures and per station (by number) the
    AP's goodput, share, setting and why."""
    per = {}
    for s in st.get("stations", []):
        try:
            i = macs.index(s["mac"]) + 1
        except ValueError:
            continue
        per[i] = {"down": s.get("ap_down_bps"), "up": s.get("ap_up_bps"),
                  "share": s.get("share_bps"), "counted": s.get("counted"),
                  "reporting": s.get("reporting"), "trusted": s.get("trusted"),
                  "setting": s.get("setting"), "why": s.get("why"),
                  "report_down": s.get("report_down_bps"), "report_up": s.get("report_up_bps"),
                  "app_limited": s.get("app_limited"), "satisfied": s.get("satisfied")}
    r = st.get("round", {})
    return {"t": st.get("time_us", 0) / 1e6 - wall0, "rounds": st.get("rounds"),
            "mode": st.get("mode"), "mode_reason": st.get("mode_reason"),
            "jain": r.get("jain"), "total": r.get("total_bps"), "bound": r.get("bound_bps"),
            "capacity": r.get("capacity_bps"), "level": r.get("level_bps"),
            "tradeoff": r.get("tradeoff"), "counted": r.get("counted"), "stations": per}


def status_series(rounds: List[dict], seconds: int, dirs: Dict[int, str]):
    """Per station the AP's goodput in its flow's direction per 1-s bin (a
    round written at t measures the period before it: bin floor(t - 0.5)),
    and round.jain per bin; None where no round fell."""
    sg = {i: [None] * seconds for i in dirs}
    sj: List[Optional[float]] = [None] * seconds
    for r in rounds:
        k = int(math.floor(r["t"] - 0.5))
        if not 0 <= k < seconds:
            continue
        sj[k] = r["jain"]
        for i, d in dirs.items():
            st = r["stations"].get(i)
            if st is not None and st.get(d) is not None:
                sg[i][k] = st[d]
    return sg, sj


def phases_of(flows: List[FlowSpec], seconds: int):
    """[(start, end, active stations)]: the schedule cut at every start and
    end; a station is active in a phase when one of its flows covers it."""
    cuts = sorted({0, seconds} | {int(f.start) for f in flows} | {int(f.end) for f in flows
                                                                  if f.end < seconds})
    out = []
    for a, z in zip(cuts, cuts[1:]):
        act = sorted({f.station for f in flows if f.start <= a and f.end >= z})
        out.append((a, z, act))
    return out


def maxmin_members(x: Dict[int, float], limited: AbstractSet[int] = frozenset()) -> List[int]:
    """The stations of x that max-min fairness gives the same share: every
    one but a station limited elsewhere that carried less than the mean of
    the others (the air it left is theirs)."""
    others = [i for i in x if i not in limited]
    if not others:
        return sorted(x)
    mean = sum(x[i] for i in others) / len(others)
    return sorted(others + [i for i in x if i in limited and x[i] > mean])


def jain_per_second(goodput: Dict[int, List[float]], flows: List[FlowSpec], seconds: int,
                    smooth: int = 1, limited: AbstractSet[int] = frozenset()
                    ) -> List[Optional[float]]:
    """Jain per second over the stations active in that second's phase
    (limited stations as maxmin_members says); smooth > 1: of the moving
    means of the last `smooth` seconds (within the phase)."""
    out: List[Optional[float]] = [None] * seconds
    for a, z, act in phases_of(flows, seconds):
        for k in range(a, z):
            lo = max(a, k - smooth + 1)
            x = {i: sum(goodput[i][lo:k + 1]) / (k + 1 - lo) for i in act}
            xs = [x[i] for i in maxmin_members(x, limited)]
            out[k] = jain(xs) if xs else None
    return out


def maxmin_bound(means: Dict[int, float], limited: AbstractSet[int], costs: Dict[int, float],
                 c_near: Dict[str, float], dirs: Dict[int, str]) -> Optional[float]:
    """The best total at max-min fairness with the limited stations at what
    they carried: the others share the airtime left equally."""
    lim = [i for i in means if i in limited]
    others = [i for i in means if i not in limited]
    left = 1.0 - sum(means[i] * costs.get(i, 1.0) / c_near[dirs[i]] for i in lim)
    inv = sum(costs.get(i, 1.0) / c_near[dirs[i]] for i in others)
    if not others:
        return sum(means.values())
    if inv <= 0:
        return None
    return sum(means[i] for i in lim) + len(others) * max(left, 0.0) / inv


def time_to(per_s: List[Optional[float]], a: int, z: int, target: float) -> Optional[int]:
    """Smallest k - a, k in [a, z), with per_s[k..z-1] all >= target; None if none."""
    best = None
    for k in range(z - 1, a - 1, -1):
        if per_s[k] is None or per_s[k] < target:
            break
        best = k - a
    return best


def phase_figures(run: Run, costs: Dict[int, float], c_near: Dict[str, float],
                  capacity: float, steady: int, target: float = 0.97,
                  ctl: Optional[str] = None,
                  limited: AbstractSet[int] = frozenset()) -> List[dict]:
    """The figures of every phase of a run (see the module docstring)."""
    per1 = jain_per_second(run.goodput, run.flows, run.seconds, limited=limited)
    per5 = jain_per_second(run.goodput, run.flows, run.seconds, smooth=5, limited=limited)
    dirs = {f.station: f.direction for f in run.flows}
    out = []
    for a, z, act in phases_of(run.flows, run.seconds):
        lo = max(a, z - steady)
        means = {i: sum(run.goodput[i][lo:z]) / (z - lo) for i in act}
        xs = [means[i] for i in act]
        fair = fairness_cli(ctl, xs, capacity)
        inv = sum(costs.get(i, 1.0) / c_near[dirs[i]] for i in act)
        bound = len(act) / inv if inv > 0 else None
        total = sum(xs)
        lim = {}
        if any(i in limited for i in act):
            fair["jain"] = jain([means[i] for i in maxmin_members(means, limited)])
            bound = maxmin_bound(means, limited, costs, c_near, dirs)
            low = min(means[i] for i in act if i in limited)
            lim = {"limited_bps": {str(i): means[i] for i in act if i in limited},
                   "held_at_limited_bps": len(act) * low,
                   "total_vs_held": total / (len(act) * low) if low > 0 else None}
        rounds = [r for r in run.rounds if lo <= r["t"] - 0.5 < z]
        sj = [r["jain"] for r in rounds if r.get("jain") is not None]
        last = rounds[-1] if rounds else None
        sg = {i: [v for v in run.status_goodput[i][lo:z] if v is not None] for i in act}
        out.append({
            "start_s": a, "end_s": z, "stations": act,
            "converge_s": time_to(per1, a, z, target),
            "converge_5s_s": time_to(per5, a, z, target),
            "jain_steady": (sum(per1[lo:z]) / (z - lo)),
            "jain_of_means": fair["jain"], "tradeoff": fair["tradeoff"],
            "fairness_source": fair.get("source"),
            "total_bps": total, "bound_bps": bound,
            "total_of_bound": total / bound if bound else None,
            "station_bps": {str(i): means[i] for i in act},
            # As bench/acklosslib.py: below 5 % of the equal share.
            "starved": sorted(i for i in act if means[i] < STARVED_SHARE * total / len(act)),
            "status": {
                "jain_mean": sum(sj) / len(sj) if sj else None,
                "station_bps": {str(i): (sum(v) / len(v) if v else None) for i, v in sg.items()},
                "modes": sorted({r["mode"] for r in rounds}),
                "limited": sorted({i for r in rounds for i, s in r["stations"].items()
                                   if (s.get("setting") or {}).get("limited")}),
                "last_round": last,
            },
            **lim,
        })
    return out


def netem_available() -> bool:
    """Whether sch_netem can be used (a throw-away namespace's lo)."""
    ns = "wfnetem%d" % os.getpid()
    if testbed.sh(["ip", "netns", "add", ns], check=False).returncode != 0:
        return False
    try:
        r = testbed.sh(["tc", "-n", ns, "qdisc", "add", "dev", "lo", "root", "netem",
                        "delay", "1ms"], check=False)
        return r.returncode == 0
    finally:
        testbed.sh(["ip", "netns", "del", ns], check=False)


def which_or(path: str, name: str) -> Optional[str]:
    return path if path and os.access(path, os.X_OK) else shutil.which(name)
