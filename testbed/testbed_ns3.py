"""The ns-3 medium of the testbed: an 802.11 cell simulated in real time by
wlanfair-ns3cell (testbed/ns3/), between taps that stand for the stations'
radios and the AP's ports.

The program runs in a namespace of the testbed's own (PREFIX + "ns3"), so
that teardown() finds and stops it as it does every other process. The taps
are made there (persistent), opened by the program, and only then moved:
each station's into its namespace as wlan0 (its MAC set to the simulated
station's, which sends as itself), each port into the AP's namespace, where
testbed.py puts it on the bridge as it would a veth. The program's first
line on stdout says it is ready (its stations' MACs, MCS, SNR and PHY
rate); its last, after SIGTERM, the simulator's lag behind real time,
which decides whether the run counts (`lagged`).
"""
import json
import os
import select
import signal
import subprocess
import time
from typing import Dict, List, Optional

# Where meson puts the program, relative to a build directory; the
# environment can name it (WLANFAIR_NS3CELL), as the tests and benchmarks do.
PROGRAM_IN_BUILD = os.path.join("testbed", "ns3", "wlanfair-ns3cell")
READY_TIMEOUT_S = 60.0     # the cell's set-up (ns-3's libraries load slowly)
STOP_TIMEOUT_S = 10.0
# A run whose simulator fell behind real time by more than this (p99 of
# 10-ms samples) did not simulate the cell it claims: rejected, not failed.
LAG_P99_LIMIT_MS = 20.0


class Ns3Error(Exception):
    pass


def find_program(build_dir: Optional[str] = None) -> Optional[str]:
    """The built program, or None (not built: no libns3-dev)."""
    env = os.environ.get("WLANFAIR_NS3CELL")
    if env:
        return env if os.access(env, os.X_OK) else None
    if build_dir:
        p = os.path.join(build_dir, PROGRAM_IN_BUILD)
        if os.access(p, os.X_OK):
            return p
    return None


class Ns3Medium:
    """One run of the program: start() once the namespaces exist, stop()
    before they go (teardown() would kill it, losing its last line)."""

    def __init__(self, program: str, ns: str, stations: int, mcs: List[int],
                 standard: str = "n", width: int = 20, ampdu: bool = False,
                 seed: int = 1, log_path: Optional[str] = None):
        self.program, self.ns, self.n = program, ns, stations
        self.mcs, self.standard, self.width = mcs, standard, width
        self.ampdu, self.seed, self.log_path = ampdu, seed, log_path
        self.proc: Optional[subprocess.Popen] = None
        self.ready: Optional[dict] = None
        self.done: Optional[dict] = None
        self._log = None

    @staticmethod
    def sta_tap(i: int) -> str:
        return f"ns3s{i}"

    @staticmethod
    def port_tap(i: int) -> str:
        return f"ns3p{i}"

    def start(self, run) -> dict:
        """Makes the taps in self.ns, starts the program, waits for its ready
        line; returns it. `run(args)` runs a command (testbed.sh)."""
        for i in range(1, self.n + 1):
            for tap in (self.sta_tap(i), self.port_tap(i)):
                run(["ip", "-n", self.ns, "tuntap", "add", "mode", "tap", "name", tap])
        args = ["ip", "netns", "exec", self.ns, self.program,
                "--mcs", ",".join(str(m) for m in self.mcs),
                "--standard", self.standard, "--width", str(self.width),
                "--ampdu", "on" if self.ampdu else "off", "--seed", str(self.seed)]
        for i in range(1, self.n + 1):
            args += ["--sta-tap", self.sta_tap(i), "--port-tap", self.port_tap(i)]
        self._log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self._log,
                                     text=True)
        line = self._read_line(READY_TIMEOUT_S)
        if line is None:
            self.stop()
            raise Ns3Error(f"wlanfair-ns3cell did not start (exit {self.proc.returncode}"
                           + (f"; see {self.log_path})" if self.log_path else ")"))
        try:
            self.ready = json.loads(line)
        except ValueError:
            self.stop()
            raise Ns3Error(f"wlanfair-ns3cell: not a ready line: {line[:200]!r}") from None
        if self.ready.get("event") != "ready" or len(self.ready.get("stations", [])) != self.n:
            self.stop()
            raise Ns3Error(f"wlanfair-ns3cell: unexpected first line {line[:200]!r}")
        return self.ready

    def _read_line(self, timeout: float) -> Optional[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if r:
                line = self.proc.stdout.readline()
                return line.strip() or None
            if self.proc.poll() is not None:
                return None
        return None

    def station_macs(self) -> List[str]:
        return [s["mac"] for s in self.ready["stations"]]

    def phy_rates(self) -> List[int]:
        return [int(s["phy_rate_bps"]) for s in self.ready["stations"]]

    def stop(self) -> Optional[dict]:
        """SIGTERM, and its done line (None if it had died or said nothing)."""
        if self.proc is None:
            return self.done
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            line = self._read_line(STOP_TIMEOUT_S)
            if line:
                try:
                    self.done = json.loads(line)
                except ValueError:
                    pass
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        if self._log not in (None, subprocess.DEVNULL):
            self._log.close()
        self.proc = None
        return self.done


def lagged(done: Optional[dict], limit_ms: float = LAG_P99_LIMIT_MS) -> Optional[str]:
    """Why a run does not count (the simulator fell behind real time, or
    said nothing at its end), or None."""
    if not done:
        return "the simulator gave no account of its lag (it died?)"
    if done.get("lag_p99_ms", 0) > limit_ms:
        return (f"the simulator fell behind real time: lag p99 {done['lag_p99_ms']:.1f} ms, "
                f"max {done.get('lag_max_ms', 0):.1f} ms (limit p99 {limit_ms:g} ms)")
    return None


def summary(ready: Optional[dict], done: Optional[dict]) -> Dict[str, object]:
    """What a run's results record of the cell and the simulator."""
    out: Dict[str, object] = {}
    if ready:
        out.update({k: ready[k] for k in ("standard", "width_mhz", "ampdu", "seed") if k in ready})
        out["stations"] = ready.get("stations", [])
    if done:
        out["lag"] = {k: done[k] for k in done if k.startswith("lag_") or k == "sim_s"}
        out["frames"] = {k: done[k] for k in done if k.startswith("frames_")}
    out["rejected"] = lagged(done)
    return out
