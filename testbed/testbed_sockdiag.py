"""What each flow's receiver got, on the run's own clock: tcp_info's
bytes_received of the receivers' sockets, dumped with sock_diag in each
receiver's network namespace every SAMPLE_S (Python's standard library
only; no process per sample).

Why not iperf3's intervals: they count from the flow's own data start,
which a deep queue delays by seconds (its handshake and control messages
wait behind other frames or are lost in a full AP FIFO), so flows' "first
second" were different seconds, and a 20-s window of 20 flows summed to
more than the medium carries (measured: 13.7 Mbit/s at 10M, deep queues).
"""
import ctypes
import os
import socket
import struct
import threading
import time
from typing import Dict, List, Tuple

CLONE_NEWNET = 0x40000000
NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
INET_DIAG_INFO = 2
TCPI_BYTES_RECEIVED = 128       # offset of tcpi_bytes_received (u64)
SAMPLE_S = 0.2

_libc = ctypes.CDLL(None, use_errno=True)


def socket_in_netns(ns: str) -> socket.socket:
    """A sock_diag socket of namespace `ns` (/run/netns/NS): this thread
    enters it, opens the socket, which stays there, and comes back."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
        try:
            if _libc.setns(target, CLONE_NEWNET) != 0:
                e = ctypes.get_errno()
                raise OSError(e, f"setns {ns}: {os.strerror(e)}")
            try:
                return socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG)
            finally:
                if _libc.setns(own, CLONE_NEWNET) != 0:
                    # This thread would create every later socket there.
                    os._exit(70)
        finally:
            os.close(target)
    finally:
        os.close(own)


def dump_tcp(sock: socket.socket,
             family: int = socket.AF_INET) -> List[Tuple[int, int, int, str, int]]:
    """[(cookie, local port, remote port, remote address, bytes_received)]
    of the namespace's TCP sockets of family (AF_INET, AF_INET6: where a
    server listening on :: accepts IPv4 clients) that have tcp_info."""
    req = struct.pack("<BBBBI", family, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1),
                      0, 0xffffffff) + bytes(48)
    sock.send(struct.pack("<IHHII", 16 + len(req), SOCK_DIAG_BY_FAMILY,
                          NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + req)
    out = []
    while True:
        data = sock.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            length, kind = struct.unpack_from("<IH", data, off)
            if kind == NLMSG_DONE:
                return out
            if kind == NLMSG_ERROR:
                err = -struct.unpack_from("<i", data, off + 16)[0]
                raise OSError(err, f"sock_diag: {os.strerror(err)}")
            m = off + 16
            sport, dport = struct.unpack_from(">HH", data, m + 4)
            dst = (socket.inet_ntoa(data[m + 24:m + 28]) if family == socket.AF_INET
                   else socket.inet_ntop(socket.AF_INET6, data[m + 24:m + 40]))
            cookie = struct.unpack_from("<Q", data, m + 44)[0]
            a = m + 72
            while a + 4 <= off + length:
                alen, atype = struct.unpack_from("<HH", data, a)
                if alen < 4:
                    break
                if atype == INET_DIAG_INFO and alen - 4 >= TCPI_BYTES_RECEIVED + 8:
                    got = struct.unpack_from("<Q", data, a + 4 + TCPI_BYTES_RECEIVED)[0]
                    out.append((cookie, sport, dport, dst, got))
                a += (alen + 3) & ~3
            off += (length + 3) & ~3
        if not data:
            return out


class RecvSampler:
    """Samples, every SAMPLE_S from start(), the bytes each flow's receiver
    got. A flow is (namespace, match): match(local port, remote port,
    remote IPv4) picks its sockets (iperf3's control connection counts
    too: a few hundred bytes). A socket's last value is kept once it is
    gone, so a flow's total never goes back."""

    def __init__(self, flows: Dict[str, Tuple[str, object]]):
        self.flows = flows
        self.socks = {}
        try:
            for ns, _ in flows.values():
                if ns not in self.socks:
                    self.socks[ns] = socket_in_netns(ns)
        except OSError:
            for s in self.socks.values():
                s.close()
            raise
        self.seen: Dict[Tuple[str, int], Tuple[str, int]] = {}   # (ns, cookie) -> (flow, bytes)
        self.samples: List[Tuple[float, Dict[str, int]]] = []
        self.error = None
        self._stop = threading.Event()
        self._thread = None
        self.t0 = 0.0

    def sample(self) -> None:
        t = time.monotonic() - self.t0
        for ns, s in self.socks.items():
            for cookie, lport, rport, rip, got in dump_tcp(s):
                for name, (fns, match) in self.flows.items():
                    if fns == ns and match(lport, rport, rip):
                        self.seen[(ns, cookie)] = (name, got)
                        break
        totals = {name: 0 for name in self.flows}
        for name, got in self.seen.values():
            totals[name] += got
        self.samples.append((t, totals))

    def _loop(self) -> None:
        k = 0
        try:
            while not self._stop.is_set():
                self.sample()
                k += 1
                self._stop.wait(max(0.0, self.t0 + k * SAMPLE_S - time.monotonic()))
        except OSError as e:
            self.error = str(e)

    def start(self, t0: float) -> None:
        self.t0 = t0
        self._thread = threading.Thread(target=self._loop, name="recv-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()
        for s in self.socks.values():
            s.close()

    def bins(self, name: str, seconds: int) -> List[float]:
        """Bytes per 1-s bin of the run's clock, from the cumulative samples
        (linear between two samples); bins past the last sample stay 0."""
        return bins_of([(t, v[name]) for t, v in self.samples], seconds)


def bins_of(cum: List[Tuple[float, int]], seconds: int) -> List[float]:
    """[(t, cumulative bytes)] (t rising) -> bytes per 1-s bin [k, k+1)."""
    def at(x):
        if not cum or x <= cum[0][0]:
            return cum[0][1] if cum and x >= cum[0][0] else 0
        for (ta, va), (tb, vb) in zip(cum, cum[1:]):
            if ta <= x <= tb:
                return va + (vb - va) * (x - ta) / (tb - ta) if tb > ta else vb
        return None                    # past the last sample
    out = []
    for k in range(seconds):
        a, b = at(k), at(k + 1)
        out.append(0.0 if a is None or b is None else max(0.0, b - a))
    return out
