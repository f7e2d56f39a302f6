#!/usr/bin/env python3
"""trafgen: a GenTraGen-like traffic generator (Python's standard library
only), for the testbed, the lab and any two hosts.

A master hands every client a traffic profile; the clients register, and
once all have registered (the registration phase, before every cycle) each
one runs its profile: request a transfer of a drawn size, transfer it,
wait a drawn idle time, repeat for `trials` transfers. The master records
each transfer: client, trial, direction, size, start, flow completion time
(FCT), throughput, and the data connection's addresses, so that other
per-flow data (wlanfair-reportd's cwnd, retransmissions, RTT per flow)
can be joined to it.

    trafgen.py master --listen 10.0.0.1:7000 --clients 4 --profile web.profile \\
        [--assign 3,4=bulk.profile] --out records.jsonl
    trafgen.py client --master 10.0.0.1:7000 --id 1
    trafgen.py check web.profile          # parse, draw 10 sizes and idles, print
    trafgen.py summary records.jsonl      # per client, per size class
    trafgen.py join records.jsonl reports.jsonl   # + wlanfair-reportd's flow data

Profile file (INI; [profile] section; # comments):

    [profile]
    name = web                 # a label in the records
    trials = 100               # transfers per cycle
    cycles = 1                 # registration + trials, this many times
    direction = download       # download (master sends), upload, or both
                               # (alternating, download first)
    size = pareto 1.2 4k 5M    # bytes: see DISTRIBUTIONS
    idle = exponential 200ms   # between a transfer's end and the next
    cc = cubic                 # data senders' TCP congestion control
                               # (optional: the system default)
    stop-after = 60s           # optional: no transfer starts after this
                               # long from the cycle's start, a running
                               # one is cut there (recorded as cut)
    seed = 1                   # optional; client k draws from seed x 1000 + k

DISTRIBUTIONS (sizes take k, M, G = 10^3, 10^6, 10^9 and Ki, Mi, Gi; times
take us, ms, s, a bare number is seconds):
    fixed V              V
    uniform A B          uniform in [A, B]
    exponential MEAN     exponential with that mean
    pareto ALPHA MIN [MAX]
                         Pareto with shape ALPHA and scale MIN, redrawn
                         above MAX (a bounded tail)
    empirical V1 V2 ...  one of the values, equally likely (a value may
                         carry a weight: V:W)

Wire protocol (one JSON object per line on the control connection; each
transfer its own data connection to the master's data port, PORT + 1 or,
with --listen IP:0, the one the profile message names): register ->
profile (the barrier: sent when every client has registered) ... done with
the client's records -> ack; a data connection opens with a request (a
4-byte length, then JSON {"client", "cycle", "trial", "dir", "size"}); a download is then that many
bytes from the master, an upload that many bytes to it and one byte back.
The FCT is measured by the client, from connect() to the last byte (a
download) or to that one byte (an upload: half an RTT more).
"""
import argparse
import configparser
import json
import math
import os
import random
import re
import socket
import socketserver
import statistics
import sys
import threading
import time
from typing import Dict, List, Optional

CHUNK = 1 << 16
DEFAULT_CLASSES = (100_000, 1_000_000)     # FCT size classes: < 100 kB, < 1 MB, larger
TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)


class ProfileError(ValueError):
    pass


# --- values and distributions -------------------------------------------------

_SIZE = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
_TIME = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6}


def parse_value(text: str, kind: str) -> float:
    units = _SIZE if kind == "size" else _TIME
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e[0-9]+)?)([A-Za-z]*)", text.strip())
    if not m or m.group(2) not in units:
        raise ProfileError(f"bad {kind} '{text}' (units: "
                           + ", ".join(u for u in units if u) + ")")
    return float(m.group(1)) * units[m.group(2)]


class Dist:
    """A distribution from a profile line; draw(rng) gives one value."""

    def __init__(self, spec: str, kind: str):
        self.spec, self.kind = spec.strip(), kind
        words = self.spec.split()
        if not words:
            raise ProfileError(f"empty {kind} distribution")
        self.name, args = words[0], words[1:]
        want = {"fixed": (1, 1), "uniform": (2, 2), "exponential": (1, 1),
                "pareto": (2, 3), "empirical": (1, 10**6)}
        if self.name not in want:
            raise ProfileError(f"unknown distribution '{self.name}' (want "
                               + ", ".join(want) + ")")
        lo, hi = want[self.name]
        if not lo <= len(args) <= hi:
            raise ProfileError(f"'{self.spec}': {self.name} takes {lo}"
                               + (f" to {hi}" if hi != lo and hi < 100 else
                                  " or more" if hi > lo else "") + " values")
        if self.name == "pareto":
            self.alpha = float(args[0])
            if not self.alpha > 0:
                raise ProfileError(f"'{self.spec}': the shape must be above 0")
            self.args = [parse_value(a, kind) for a in args[1:]]
            if self.args[0] <= 0 or (len(self.args) > 1 and self.args[1] <= self.args[0]):
                raise ProfileError(f"'{self.spec}': want 0 < MIN < MAX")
        elif self.name == "empirical":
            self.values, self.weights = [], []
            for a in args:
                v, _, w = a.partition(":")
                self.values.append(parse_value(v, kind))
                self.weights.append(float(w) if w else 1.0)
            if any(w <= 0 for w in self.weights):
                raise ProfileError(f"'{self.spec}': weights must be above 0")
        else:
            self.args = [parse_value(a, kind) for a in args]
            if self.name == "uniform" and self.args[1] < self.args[0]:
                raise ProfileError(f"'{self.spec}': want A <= B")
            if self.name == "exponential" and self.args[0] <= 0:
                raise ProfileError(f"'{self.spec}': the mean must be above 0")

    def draw(self, rng: random.Random) -> float:
        if self.name == "fixed":
            return self.args[0]
        if self.name == "uniform":
            return rng.uniform(*self.args)
        if self.name == "exponential":
            return rng.expovariate(1.0 / self.args[0])
        if self.name == "pareto":
            while True:
                v = self.args[0] * rng.paretovariate(self.alpha)
                if len(self.args) == 1 or v <= self.args[1]:
                    return v
        return rng.choices(self.values, self.weights)[0]


# --- profiles -----------------------------------------------------------------

KEYS = {"name", "trials", "cycles", "direction", "size", "idle", "cc", "stop-after", "seed"}


def parse_profile(text: str, source: str = "profile") -> dict:
    """The profile's [profile] section as a dict with defaults filled in;
    ProfileError names the bad key."""
    cp = configparser.ConfigParser(inline_comment_prefixes=("#",), interpolation=None)
    try:
        cp.read_string(text, source=source)
    except configparser.Error as e:
        raise ProfileError(f"{source}: {e}") from None
    if not cp.has_section("profile"):
        raise ProfileError(f"{source}: no [profile] section")
    extra = set(cp.sections()) - {"profile"}
    if extra:
        raise ProfileError(f"{source}: unknown section(s) " + ", ".join(sorted(extra)))
    sec = cp["profile"]
    unknown = set(sec) - KEYS
    if unknown:
        raise ProfileError(f"{source}: unknown key(s) " + ", ".join(sorted(unknown)))

    def integer(key, default, lo, hi):
        try:
            v = int(sec.get(key, str(default)))
        except ValueError:
            raise ProfileError(f"{source}: {key} must be an integer") from None
        if not lo <= v <= hi:
            raise ProfileError(f"{source}: {key} must be {lo}..{hi}")
        return v

    p = {"name": sec.get("name", os.path.splitext(os.path.basename(source))[0]),
         "trials": integer("trials", 1, 1, 10**6),
         "cycles": integer("cycles", 1, 1, 10**4),
         "direction": sec.get("direction", "download"),
         "size": sec.get("size", "fixed 1M"),
         "idle": sec.get("idle", "fixed 0"),
         "cc": sec.get("cc") or None,
         "stop_after_s": parse_value(sec["stop-after"], "time") if "stop-after" in sec else None,
         "seed": integer("seed", 1, 0, 2**31)}
    if p["direction"] not in ("download", "upload", "both"):
        raise ProfileError(f"{source}: direction must be download, upload or both")
    Dist(p["size"], "size")
    Dist(p["idle"], "time")
    if p["cc"] is not None and not re.fullmatch(r"[A-Za-z0-9_.-]{1,15}", p["cc"]):
        raise ProfileError(f"{source}: bad cc '{p['cc']}'")
    return p


def load_profile(path: str) -> dict:
    try:
        with open(path) as f:
            return parse_profile(f.read(), path)
    except OSError as e:
        raise ProfileError(f"{path}: {e.strerror}") from None


def plan(profile: dict, client: int, cycle: int) -> List[dict]:
    """The transfers a client makes in a cycle: [{trial, dir, size, idle_s}],
    drawn from the client's own seeded generator (the same profile, client
    and cycle always give the same plan)."""
    rng = random.Random(profile["seed"] * 1000 + client + 7919 * cycle)
    size, idle = Dist(profile["size"], "size"), Dist(profile["idle"], "time")
    out = []
    for k in range(profile["trials"]):
        d = profile["direction"]
        if d == "both":
            d = "download" if k % 2 == 0 else "upload"
        out.append({"trial": k, "dir": d, "size": max(1, int(round(size.draw(rng)))),
                    "idle_s": max(0.0, idle.draw(rng))})
    return out


# --- I/O helpers ----------------------------------------------------------------

def send_line(sock: socket.socket, obj: dict) -> None:
    sock.sendall((json.dumps(obj) + "\n").encode())


def recv_line(f) -> dict:
    line = f.readline()
    if not line:
        raise ConnectionError("connection closed")
    return json.loads(line)


def send_request(sock: socket.socket, obj: dict) -> None:
    """A data connection's request: length-prefixed, so that the reader
    takes exactly it and not the upload's first bytes."""
    b = json.dumps(obj).encode()
    sock.sendall(len(b).to_bytes(4, "big") + b)


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        b = sock.recv(n - len(buf))
        if not b:
            raise ConnectionError("connection closed")
        buf += b
    return buf


def recv_request(sock: socket.socket) -> dict:
    n = int.from_bytes(recv_exact(sock, 4), "big")
    if n > 4096:
        raise ValueError("request too long")
    return json.loads(recv_exact(sock, n))


def set_cc(sock: socket.socket, cc: Optional[str]) -> None:
    if cc:
        sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())


def check_cc(cc: Optional[str]) -> None:
    """A CC this host cannot set fails here, once, not as failed transfers."""
    if cc:
        with socket.socket() as s:
            try:
                set_cc(s, cc)
            except OSError as e:
                raise ProfileError(f"congestion control '{cc}': {e.strerror} (available: "
                                   + open("/proc/sys/net/ipv4/tcp_available_congestion_control")
                                   .read().strip() + ")") from None


def addr(text: str):
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"want HOST:PORT, not '{text}'")
    return host, int(port)


_ZEROS = bytes(CHUNK)


def send_bytes(sock: socket.socket, n: int, deadline: Optional[float]) -> bool:
    """False when the deadline cut it."""
    while n > 0:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            sock.settimeout(left)
        try:
            k = sock.send(_ZEROS[:min(n, CHUNK)])
        except socket.timeout:
            return False
        n -= k
    return True


def bytes_acked(sock: socket.socket) -> int:
    """tcpi_bytes_acked: what the peer has of an upload cut short (what
    was handed to the socket overstates it by the send buffer)."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
        return int.from_bytes(info[120:128], "little") if len(info) >= 128 else 0
    except OSError:
        return 0


def recv_bytes(sock: socket.socket, n: int, deadline: Optional[float]) -> int:
    """Bytes received until n, EOF or the deadline."""
    got = 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            sock.settimeout(left)
        try:
            b = sock.recv(min(CHUNK, n - got))
        except socket.timeout:
            break
        if not b:
            break
        got += len(b)
    return got


# --- master -------------------------------------------------------------------

class Master:
    def __init__(self, listen, n_clients: int, profiles: Dict[int, dict], default: dict,
                 out_path: str, register_timeout: float = 60.0, log=None):
        """listen: (IP, PORT); the data port is PORT + 1 (PORT 0: both
        chosen by the kernel)."""
        self.listen, self.n = listen, n_clients
        self.port_given, self.data_port = listen[1] != 0, None
        self.profiles, self.default = profiles, default
        self.out_path, self.register_timeout = out_path, register_timeout
        self.log = log or (lambda msg: print(msg, flush=True))
        self.lock = threading.Condition()
        self.registered: Dict[int, int] = {}      # cycle -> clients registered
        self.released: Dict[int, bool] = {}
        self.finished = 0
        self.records: List[dict] = []
        self.errors: List[str] = []

    def profile_of(self, client: int) -> dict:
        return self.profiles.get(client, self.default)

    def expected(self, cycle: int) -> int:
        """Clients 1..n whose profile has this cycle (profiles may differ
        in cycles: the barrier waits for those that run it)."""
        return sum(1 for i in range(1, self.n + 1) if self.profile_of(i)["cycles"] > cycle)

    # the control connection: registration barrier per cycle, records back
    def control(self, conn: socket.socket) -> None:
        f = conn.makefile("r")
        client = None
        try:
            hello = recv_line(f)
            client = int(hello["client"])
            prof = self.profile_of(client)
            for cycle in range(prof["cycles"]):
                if cycle:
                    if recv_line(f).get("op") != "register":
                        raise ValueError("expected register")
                with self.lock:
                    self.registered[cycle] = self.registered.get(cycle, 0) + 1
                    if self.registered[cycle] >= self.expected(cycle):
                        self.released[cycle] = True
                        self.lock.notify_all()
                    end = time.monotonic() + self.register_timeout
                    while not self.released.get(cycle):
                        if not self.lock.wait(max(0.0, end - time.monotonic())) and \
                                not self.released.get(cycle):
                            self.released[cycle] = True      # go with who came
                            self.errors.append(f"cycle {cycle}: {self.registered[cycle]} of "
                                               f"{self.expected(cycle)} clients registered in "
                                               f"{self.register_timeout:g} s")
                            self.lock.notify_all()
                send_line(conn, {"op": "profile", "cycle": cycle, "profile": prof,
                                 "data_port": self.data_port})
                done = recv_line(f)
                with self.lock:
                    self.records.extend(done.get("records", []))
                send_line(conn, {"op": "ack"})
        except (OSError, ValueError, KeyError, ConnectionError) as e:
            with self.lock:
                self.errors.append(f"client {client}: {e}")
        finally:
            with self.lock:
                self.finished += 1
                self.lock.notify_all()
            conn.close()

    # a data connection: one transfer
    def data(self, conn: socket.socket) -> None:
        try:
            req = recv_request(conn)
            prof = self.profile_of(int(req["client"]))
            n = int(req["size"])
            if req["dir"] == "download":
                set_cc(conn, prof["cc"])
                send_bytes(conn, n, None)
                conn.shutdown(socket.SHUT_WR)
                conn.recv(1)                   # the client closes
            elif recv_bytes(conn, n, None) == n:
                conn.sendall(b"k")
        except (OSError, ValueError, KeyError):
            pass
        finally:
            conn.close()

    def serve(self) -> int:
        master = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                if self.server.server_address[1] != master.data_port:
                    master.control(self.request)
                else:
                    master.data(self.request)

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True
            request_queue_size = 256

        ctl = Server(self.listen, Handler)
        # Port 0: both ports chosen by the kernel (tests); the clients
        # learn the data port with their profile.
        self.listen = ctl.server_address
        dat = Server((self.listen[0], self.listen[1] + 1 if self.port_given else 0), Handler)
        self.data_port = dat.server_address[1]
        for s in (ctl, dat):
            threading.Thread(target=s.serve_forever, daemon=True).start()
        self.log(f"trafgen master on {self.listen[0]}:{self.listen[1]} (data "
                 f"{self.data_port}), {self.n} clients")
        end = time.monotonic() + self.register_timeout
        try:
            with self.lock:
                while self.finished < self.n:
                    # Clients that never came: once the first registration
                    # timed out, those that did register are all there is.
                    if not self.released.get(0) and time.monotonic() > end:
                        self.released[0] = True
                        self.errors.append(f"cycle 0: {self.registered.get(0, 0)} of {self.n} "
                                           f"clients registered in {self.register_timeout:g} s")
                        self.lock.notify_all()
                    if self.released.get(0) and self.finished >= self.registered.get(0, 0) \
                            and self.registered.get(0, 0) < self.n:
                        break
                    self.lock.wait(0.2)
        except KeyboardInterrupt:
            self.errors.append("interrupted")
        finally:
            ctl.shutdown()
            dat.shutdown()
        self.records.sort(key=lambda r: (r["client"], r["cycle"], r["trial"]))
        with open(self.out_path, "w") as f:
            for r in self.records:
                f.write(json.dumps(r) + "\n")
        for e in self.errors:
            self.log(f"trafgen master: {e}")
        self.log(f"trafgen master: {len(self.records)} transfers in {self.out_path}")
        return 1 if self.errors else 0


# --- client -------------------------------------------------------------------

def transfer(master, data_port: int, client: int, cycle: int, t: dict, cc: Optional[str],
             deadline: Optional[float]) -> dict:
    t0 = time.monotonic()
    # start_mono: CLOCK_MONOTONIC, the clock other tools of the host stamp
    # events with (the scan guard's bgscan writes in bench/scan-onoff).
    rec = {"client": client, "cycle": cycle, "trial": t["trial"], "dir": t["dir"],
           "size": t["size"], "start_wall": time.time(), "start_mono": round(t0, 6)}
    got, error = 0, None
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if t["dir"] == "upload":
            set_cc(s, cc)
        s.settimeout(None if deadline is None else max(0.1, deadline - t0))
        s.connect((master[0], data_port))
        s.settimeout(None)
        rec["local"], rec["remote"] = "%s:%d" % s.getsockname(), "%s:%d" % s.getpeername()
        send_request(s, {"client": client, "cycle": cycle, "trial": t["trial"],
                         "dir": t["dir"], "size": t["size"]})
        if t["dir"] == "download":
            got = recv_bytes(s, t["size"], deadline)
        elif send_bytes(s, t["size"], deadline) and recv_bytes(s, 1, deadline) == 1:
            got = t["size"]
        else:
            got = min(t["size"], bytes_acked(s))
    except OSError as e:
        error = str(e)
    finally:
        s.close()
    fct = time.monotonic() - t0
    rec.update(fct_s=round(fct, 6), bytes=got, complete=got == t["size"] and error is None,
               bps=round(got * 8 / fct) if fct > 0 else None)
    if error:
        rec["error"] = error
    elif got < t["size"]:
        rec["cut"] = True
    return rec


def run_client(master, client: int, log=print) -> int:
    ctl = socket.create_connection(master, timeout=30)
    ctl.settimeout(None)
    f = ctl.makefile("r")
    cycles, failed = None, 0
    cycle = 0
    while cycles is None or cycle < cycles:
        send_line(ctl, {"op": "register", "client": client})
        msg = recv_line(f)
        prof = msg["profile"]
        cycles = prof["cycles"]
        start = time.monotonic()
        deadline = start + prof["stop_after_s"] if prof["stop_after_s"] else None
        records = []
        for t in plan(prof, client, cycle):
            if deadline is not None and time.monotonic() >= deadline:
                break
            r = transfer(master, msg["data_port"], client, cycle, t, prof["cc"], deadline)
            r["profile"] = prof["name"]
            r["t_s"] = round(time.monotonic() - start - r["fct_s"], 6)   # start in the cycle
            records.append(r)
            failed += "error" in r
            if deadline is not None and time.monotonic() + t["idle_s"] >= deadline:
                break
            time.sleep(t["idle_s"])
        send_line(ctl, {"op": "done", "records": records})
        recv_line(f)
        cycle += 1
    ctl.close()
    log(f"trafgen client {client}: done, {failed} transfer(s) failed")
    return 1 if failed else 0


# --- analysis -------------------------------------------------------------------

def quantile(xs: List[float], q: float) -> Optional[float]:
    """The q-quantile, linear between order statistics (numpy's default)."""
    if not xs:
        return None
    xs = sorted(xs)
    pos = (len(xs) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def size_class(size: int, bounds=DEFAULT_CLASSES) -> str:
    lo = 0
    for b in bounds:
        if size < b:
            return f"{fmt_size(lo)}-{fmt_size(b)}" if lo else f"<{fmt_size(b)}"
        lo = b
    return f">={fmt_size(lo)}"


def fmt_size(n: float) -> str:
    for unit, v in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= v:
            return f"{n / v:g}{unit}"
    return f"{n:g}"


def summarize(records: List[dict], bounds=DEFAULT_CLASSES) -> dict:
    """Per client: transfers, per-transfer throughput mean and variance;
    between clients: Jain's index of those means and max/min; per size
    class: FCT median, p90, p99 (complete transfers only)."""
    ok = [r for r in records if r.get("complete")]
    clients = {}
    for c in sorted({r["client"] for r in records}):
        mine = [r["bps"] for r in ok if r["client"] == c]
        clients[str(c)] = {
            "transfers": sum(1 for r in records if r["client"] == c),
            "complete": len(mine),
            "bytes": sum(r.get("bytes", 0) for r in records if r["client"] == c),
            "mean_bps": statistics.mean(mine) if mine else 0.0,
            "var_bps2": statistics.variance(mine) if len(mine) > 1 else 0.0,
        }
    means = [v["mean_bps"] for v in clients.values()]
    sq = sum(m * m for m in means)
    classes = {}
    for r in ok:
        classes.setdefault(size_class(r["size"], bounds), []).append(r["fct_s"])
    order = [size_class(b - 1, bounds) for b in bounds] + [size_class(bounds[-1], bounds)]
    return {
        "transfers": len(records), "complete": len(ok),
        "failed": sum(1 for r in records if "error" in r),
        "cut": sum(1 for r in records if r.get("cut")),
        "clients": clients,
        "jain_clients": (sum(means) ** 2 / (len(means) * sq)) if sq else None,
        "max_over_min": (max(means) / min(means)) if means and min(means) > 0 else None,
        "fct_s": {k: {"n": len(classes[k]), "median": quantile(classes[k], 0.5),
                      "p90": quantile(classes[k], 0.9), "p99": quantile(classes[k], 0.99)}
                  for k in order if k in classes},
    }


def join_reports(records: List[dict], reports: List[dict]) -> List[dict]:
    """Adds to each record what wlanfair-reportd's reports say of its data
    connection: the flows whose src and dst are the record's local and
    remote address (the client's side) or the other way round (the
    master's), in reports stamped from the transfer's start to its end
    plus one report interval: samples, the largest cwnd, the mean RTT
    (us) and the most retransmissions (tcpi_total_retrans) seen."""
    index: Dict[tuple, List[tuple]] = {}
    for rep_ in reports:
        t = rep_.get("time_us", 0) / 1e6
        iv = rep_.get("interval_s", 1.0)
        for f in rep_.get("flows", []):
            index.setdefault((f.get("src"), f.get("dst")), []).append((t, iv, f))
    out = []
    for r in records:
        r = dict(r)
        a, z = r["start_wall"], r["start_wall"] + r["fct_s"]
        seen = [f for key in ((r.get("local"), r.get("remote")), (r.get("remote"), r.get("local")))
                for t, iv, f in index.get(key, []) if a <= t <= z + iv]
        if seen:
            rtts = [f["rtt_us"] for f in seen if "rtt_us" in f]
            r["reporter"] = {
                "samples": len(seen),
                "cwnd_max": max((f["cwnd"] for f in seen if "cwnd" in f), default=None),
                "rtt_us_mean": statistics.mean(rtts) if rtts else None,
                "total_retrans_max": max((f["total_retrans"] for f in seen
                                          if "total_retrans" in f), default=None),
            }
        out.append(r)
    return out


def read_records(path: str) -> List[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


# --- command line ---------------------------------------------------------------

def parse_assign(text: str):
    """'3,4=bulk.profile' -> ([3, 4], 'bulk.profile')."""
    ids, _, path = text.partition("=")
    try:
        clients = [int(i) for i in ids.split(",")]
    except ValueError:
        clients = []
    if not path or not clients:
        raise ValueError(f"--assign wants IDS=FILE (e.g. 3,4=bulk.profile), not '{text}'")
    return clients, path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="trafgen.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("master", help="hand out profiles, serve the transfers, record them")
    m.add_argument("--listen", required=True, metavar="IP:PORT",
                   help="control port; data on PORT+1 (PORT 0: both chosen, printed)")
    m.add_argument("--clients", type=int, required=True, metavar="N")
    m.add_argument("--profile", required=True, metavar="FILE", help="every client's profile")
    m.add_argument("--assign", action="append", default=[], metavar="IDS=FILE",
                   help="another profile for these clients, e.g. 3,4=bulk.profile")
    m.add_argument("--cc", help="override every profile's cc")
    m.add_argument("--out", required=True, metavar="RECORDS.jsonl")
    m.add_argument("--register-timeout", type=float, default=60.0, metavar="S")
    c = sub.add_parser("client", help="register, run the profile the master hands out")
    c.add_argument("--master", required=True, metavar="IP:PORT")
    c.add_argument("--id", type=int, required=True)
    k = sub.add_parser("check", help="parse a profile and draw from it")
    k.add_argument("profile")
    k.add_argument("--client", type=int, default=1)
    s = sub.add_parser("summary", help="per client and per size class, as JSON")
    s.add_argument("records")
    j = sub.add_parser("join", help="add wlanfair-reportd's per-flow data to the records")
    j.add_argument("records")
    j.add_argument("reports", help="reports, one JSON object per line (e.g. "
                   "wlanfairctl listen --json, or a reporter's --destination sink)")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "master":
            if a.clients < 1:
                ap.error("--clients must be at least 1")
            default = load_profile(a.profile)
            profiles = {}
            for spec in a.assign:
                ids, path = parse_assign(spec)
                prof = load_profile(path)
                for i in ids:
                    profiles[i] = prof
            if a.cc:
                for p in [default, *profiles.values()]:
                    p["cc"] = a.cc
            for p in [default, *profiles.values()]:
                check_cc(p["cc"])
            return Master(addr(a.listen), a.clients, profiles, default, a.out,
                          a.register_timeout).serve()
        if a.cmd == "client":
            return run_client(addr(a.master), a.id)
        if a.cmd == "check":
            prof = load_profile(a.profile)
            print(json.dumps(prof, indent=1))
            for t in plan(prof, a.client, 0)[:10]:
                print(f"trial {t['trial']}: {t['dir']} {t['size']} bytes, then {t['idle_s']:.3f} s idle")
            return 0
        if a.cmd == "join":
            for r in join_reports(read_records(a.records), read_records(a.reports)):
                print(json.dumps(r))
            return 0
        print(json.dumps(summarize(read_records(a.records)), indent=1))
        return 0
    except (ProfileError, ValueError) as e:
        print(f"trafgen: {e}", file=sys.stderr)
        return 2
    except (OSError, ConnectionError) as e:
        print(f"trafgen: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
