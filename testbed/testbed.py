"""Emulated 802.11 BSS for wlanfair experiments (Linux network namespaces).

Long (over 1000 lines) on purpose: the model below, its set-up, its runs and
its teardown share one Testbed's state and are read together; traffic, BPF,
the AP's programs, results and sock_diag are the testbed_*.py beside it.

The model
---------
A wired server, an access point (AP) and N stations, each in a namespace:

    srv --veth-- ap [bridge br0 = the AP's radio] --veth-- sta1 .. staN

Every frame crossing the "air", in either direction, is redirected into ONE
ifb device `air` in the AP namespace, at the station's port on the bridge
(p1..pN, clsact; u32 match-all + mirred):

    downstream: br0 root qdisc -> bridge -> pN egress -> air -> pN -> staN
    upstream:   staN -> pN ingress -> air -> pN -> bridge -> br0 ingress

so br0 itself is left to the AP: a qdisc on br0's root (the AP's own
queueing, where wlanfair-apd's rate actuator shapes downloads) acts before
the medium, and br0's ingress (where its ifb for uploads is fed) sees
frames after it, as on a real AP. A frame coming back from `air` skips its
port's redirect once (ifb marks it tc_skip_classify, which the next action
run consumes). A frame from one station to another crosses the medium
twice, as relayed by a real AP; a broadcast from the AP once per station
(static neighbours: hardly any). On `air` an HTB tree plays the DCF medium:

    1:    root; a size table adds a per-frame airtime overhead
    1:1   the medium, rate = ceil = R
    1:2   the AP (everything towards the stations, i.e. the downstream data
          AND the ACKs of upstream flows)
      1:1000  best effort (default) -> pfifo, AP buffer
      1:2000  voice -> pfifo, AP buffer
    1:1NN one class per station (source IP)
      1:10NN  best effort -> pfifo, station buffer
      1:20NN  voice -> pfifo, station buffer

Each contender's class has rate R/(N+1) and ceil R: every backlogged
contender gets the same share of airtime and idle shares are borrowed, frame
by frame (quantum = one full frame). That is the DCF property behind the
problem: the AP, one contender for all downstream traffic, gets ~1/(N+1) of
the medium and its single best-effort FIFO is where upstream flows lose ACKs
and downstream flows lose data.

Access categories
-----------------
Within each contender, frames whose DS field has precedence 6 or 7 (DSCP
CS6, CS7 and the codes between; u32 `tos 0xc0/0xc0`) go to its voice leaf
(HTB prio 0), the rest to best effort (prio 1): while the voice leaf has
tokens it is served ahead of every best-effort leaf of every contender, as
EDCA's voice queue (AIFSN 2, CWmin 3) wins the next transmit opportunity
against best effort (AIFSN 3, CWmin 15), and it has its own FIFO, so a
voice frame never waits behind its contender's best-effort backlog. Those
codes are AC_VO for cfg80211_classify8021d on every kernel; EF and VA, voice
only from Linux 6.8 (RFC 8325 mapping; video before), stay best effort here,
and so does skb->priority (SO_PRIORITY), which mac80211 overwrites with the
DSCP's class anyway. Not modelled: EDCA's parameters themselves (voice
wins the next turn, with no shorter wait), TXOP limits, the video and
background categories (they are best effort here), admission control. A
voice leaf has the rate of its contender, so a contender with much voice
traffic can get up to twice its share, as EDCA lets it.

Far stations (--far STA:K)
--------------------------
A station far from the AP uses a lower PHY rate, so its frames, both ways,
take K times the airtime of a near station's frames of the same size. HTB
charges bytes, and charges every ancestor of a class the same bytes at the
ancestor's own rate, so a lower per-class rate or ceil would only cap the
station, not make its frames cost the medium more. The frames themselves
grow instead: a tc BPF program on `air` (clsact egress, before the HTB;
testbed_bpf.py, assembled and loaded with the standard library only) adds
(K - 1) x (length + overhead) zero bytes after the IP datagram of every
frame from or to a far station's address, so that with the size table's
overhead the medium is charged K x (length + overhead); after the medium
the frame is cut back to the IPv4 total length, so that neither the
station nor the AP's qdiscs and ifbs ever see the padding: downstream by a
second program on the station's bridge port (clsact egress, prio 1, ahead
of the redirect, which it lets run: TC_ACT_UNSPEC); upstream, where a
frame back from `air` skips its port's ingress classification, by the
bridge's IPv4 check (br_netfilter with bridge-nf-call-iptables, set in the
AP's namespace; a kernel without br_netfilter is refused for far
stations), before br0's ingress. A grown frame goes from `air` straight
back to its port, never through the bridge's forwarding, so every MTU
stays 1500. Every leaf's quantum is one frame of the costliest
station: HTB sends at least one packet per turn whatever its size, so with
a one-frame quantum a far station borrowing idle airtime would get K times
its share.

Measured on 6.18 (30M, overhead 1150, K = 4, 20 s, cubic and bbr alike):
alone, a far station gets 5.80 Mbit/s up and 5.72 down against 23.31 and
23.25 for a near one (1/4.0); a near and a far station uploading get 11.62
and 2.91 Mbit/s (the near one 4.0x: the medium shares airtime between
contenders; two near ones get 11.64 each); downloading, they get 4.50 and
4.62 (9.1 in total): the AP's single FIFO shares frames, not airtime, which
is the 802.11 "performance anomaly" (Heusse et al. 2003): every station
drops to the harmonic mean of the rates.

Limits: tc BPF cannot grow a frame beyond about 16 kB (SKB_MAX_ALLOC with 4
KiB pages), so K is at most 6.36 with the default overhead (a 54 vs 6
Mbit/s 802.11a/g pair is ~5.7 for full frames); a frame that cannot grow is
dropped, never charged as a near one. K applies to every frame of the
station, also to ACKs, whose fixed per-frame part does not really grow
with a lower rate. Upstream, a real DCF gives every station the same number
of transmit opportunities, so a near and a far uploader would get about the
same throughput (the anomaly again); this model, like airtime fairness,
lets the near one win. IPv4 only, like the testbed.

Lossy stations (--loss STA:P)
-----------------------------
A station whose frames are lost after the MAC's last retry: a share P of
its frames, both ways (data and ACKs), takes its airtime and is lost. A tc
BPF program on `air` (clsact egress, ahead of the far stations' pad) draws
for every frame from or to the station the next number of a xorshift32
sequence seeded from --loss-seed and the station's place, its state in an
array map, and marks the frames to lose (skb->mark); they cross the medium
like any other, and a second program on the station's bridge port (clsact
egress, after trim, ahead of the redirect) drops the marked ones as they
come back from the medium towards the station; upstream, where a frame
back from the medium skips the port's ingress classification, a
blackhole rule for the mark in the AP's routing drops them (frames from a
lossy station to another station, bridged, not routed, are not lost). The same seed and the same frames
give the same losses (the testbed's tests count them against the same
generator in Python); TCP's timing still varies from run to run, so the
frames, and with them the losses, do too. Frames going into the medium
never carry the mark: crossing into the AP's namespace clears it.

Airtime per frame (the size table)
----------------------------------
An 802.11 frame costs a fixed time besides its bytes; without it a 66-byte
ACK would cost 1/23 of a full data frame instead of about half. 802.11a/g at
54 Mbit/s (slot 9 us, SIFS 16, CWmin 15, PLCP 20 us, MAC ACK at 24 Mbit/s):
DIFS 34 + mean backoff 67.5 + PLCP 20 + SIFS 16 + MAC ACK 28 = 165.5 us per
frame, plus the MAC header's 22 bytes beyond the 14-byte Ethernet header the
kernel counts (24 MAC + 4 FCS + 8 LLC/SNAP) and symbol padding: ~171 us =
1154 bytes at 54 Mbit/s -> DEFAULT_OVERHEAD = 1150. Check, frame by frame:
a 1500-byte IP packet takes 34+67.5+248+16+28 = 393.5 us, the model's
(1514+1150) B at 54 Mbit/s 394.7 us; a 52-byte TCP ACK 181.5 us vs 180 us.
(The 100-150 us often quoted for the fixed part leaves out backoff or the
MAC ACK; 700-1000 bytes would make ACKs ~25 % too cheap.)

The capacity C (default 30 Mbit/s, about 802.11a's MAC throughput) is the
rate at which the medium carries back-to-back full frames, counted as the
1514 bytes the kernel sees. HTB counts the overhead too, so its rate is
R = C * (1514 + overhead) / 1514 (52.8 Mbit/s for 30M, near the 54 Mbit/s
PHY rate); --overhead 0 gives R = C. TCP goodput stays below C because ACKs
use airtime: one flow with delayed ACKs gets at most
C * 2*1448/(2*2664 + 1216) * 2664/1514 = 0.78 C (23.4 Mbit/s).

What it leaves out (this kernel has no netem, prio or fq)
---------------------------------------------------------
- no propagation delay: RTTs are queueing delay plus microseconds;
- no random radio loss unless asked for (--loss, below), no MAC retries,
  no rate adaptation;
- no collisions, no backoff randomness: HTB serves contenders in a fixed
  round robin, so DCF's short-term unfairness (and capture) is absent;
- HTB shares bytes (airtime, thanks to the overhead), DCF shares transmit
  opportunities (frames): a contender sending small frames (the AP sending
  ACKs) gets up to ~2.2x more frames than under DCF, so ACK loss at the AP
  is milder than on real hardware;
- an upstream frame keeps its socket reference across the veth until it
  leaves the medium (only then does it reach the AP's IP layer, which
  orphans it), so TCP Small Queues holds a station's TCP to about two frames
  in its FIFO, like a modern Linux station with a wifi driver: station FIFOs
  stay nearly empty and their size hardly matters (the paper's Linux 2.6.28
  had no TSQ and filled the station's txqueue). The server's frames are
  routed by the AP before the medium, so it gets no such backpressure, as
  behind a real AP;
- the AP buffer is one FIFO counted in packets: no A-MPDU, no per-station
  queues (mac80211's fq_codel airtime fairness would fix exactly this).

Offloads: gso_max_segs 1 on every veth, so each skb is one frame and pays the
overhead once; GRO always off on the AP side, on the receivers by --gro (the
medium releases frames one by one, so GRO seldom has anything to merge).

Names: namespaces <prefix>srv, <prefix>ap, <prefix>sta<i>; every device
lives inside them, so deleting the namespaces removes everything, and
testbeds with different prefixes coexist. Nothing global changes: the CC is
set per socket with iperf3 -C (with -R the server applies the client's
choice to its sending socket), never as a netns default, so the global
tcp_allowed_congestion_control list is not touched.
"""

import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Dict, List, Optional

from testbed_results import parse_ss, read_intervals, rebin, write_outputs
from testbed_sockdiag import RecvSampler
import testbed_bpf  # noqa: E402  (its LOSS_MARK)

SRV_IP = "10.0.0.1"
AP_WIRED_IP = "10.0.0.2"
WLAN_NET = "10.1.0.0/24"
AP_WLAN_IP = "10.1.0.254"
MAX_STATIONS = 200
BASE_PORT = 5201

FULL_FRAME = 1514          # bytes the kernel counts for a 1500-byte IP packet
DEFAULT_OVERHEAD = 1150    # emulated per-frame airtime, see the docstring
GRACE_S = 15.0             # time allowed after the run for iperf3 to finish

# Far stations (see the docstring): the longest frame tc BPF may make, with
# a margin (bpf_skb_change_tail stops at SKB_MAX_ALLOC, ~16 kB with 4 KiB
# pages: 15 900 bytes grew, 16 166 did not, on 6.18).
MAX_PADDED_FRAME = 15800
# Lossy stations: at most half their frames lost (beyond that TCP hardly
# moves, and a cell with such a station is not a question of fairness).
MAX_LOSS = 0.5
# The DS field of the voice access category in the model: precedence 6 and
# 7 (CS6, CS7), which cfg80211_classify8021d maps to AC_VO on every kernel
# (EF is video before 6.8; docs/reporter.md).
VOICE_TOS, VOICE_TOS_MASK = 0xc0, 0xc0
BPF_HELPER = os.path.join(os.path.dirname(os.path.realpath(__file__)), "testbed_bpf.py")

EXIT_USAGE = 2
EXIT_FAILURE = 1


class TestbedError(Exception):
    """An error to report in one line; exit_code is 1 or 2 (usage)."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILURE):
        super().__init__(message)
        self.exit_code = exit_code


class UsageError(TestbedError):
    def __init__(self, message: str):
        super().__init__(message, EXIT_USAGE)


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP; raised in the main thread."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


# --- argument parsing helpers ------------------------------------------------

_SUFFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}


def parse_rate(text: str) -> float:
    """'30M' -> 30e6 (bit/s); suffixes k/K, M, G as in wlanfairctl."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kKMG]?)(?:bit)?\s*", text)
    if not m or float(m.group(1)) <= 0:
        raise UsageError(f"bad rate '{text}' (want e.g. 30M)")
    return float(m.group(1)) * _SUFFIX[m.group(2)]


def parse_mix(text: str):
    """'u2d3' -> (2, 3)."""
    m = re.fullmatch(r"u([0-9]+)d([0-9]+)", text)
    if not m:
        raise UsageError(f"bad mix '{text}' (want uXdY, e.g. u5d5)")
    up, down = int(m.group(1)), int(m.group(2))
    if up + down == 0:
        raise UsageError("mix has no flow")
    return up, down


def _per_station(text: str, what: str, example: str, value: str) -> Dict[int, str]:
    """'STA:VALUE[,STA:VALUE...]' -> {STA: VALUE text}: the stations
    counted from 1, each once, each value matching the `value` regex."""
    out: Dict[int, str] = {}
    for part in text.split(","):
        m = re.fullmatch(r"\s*([0-9]+)\s*:\s*(" + value + r")\s*", part)
        if not m:
            raise UsageError(f"bad {what} '{part}' in '{text}' (want {example})")
        sta = int(m.group(1))
        if sta in out:
            raise UsageError(f"station {sta} given twice in '{text}'")
        if sta < 1:
            raise UsageError(f"bad station number {sta} (stations count from 1)")
        out[sta] = m.group(2)
    return out


def parse_far(text: str) -> Dict[int, float]:
    """'2:4' or '2:4,5:2.5' -> {2: 4.0, 5: 2.5}: station 2's frames cost 4
    times the airtime of a near station's (its PHY rate is a quarter)."""
    far: Dict[int, float] = {}
    for sta, v in _per_station(text, "far station", "STATION:COST, e.g. 2:4",
                               r"[0-9]+(?:\.[0-9]+)?").items():
        if float(v) < 1:
            raise UsageError(f"airtime cost {v} of station {sta} is below 1 "
                             "(1: a near station)")
        far[sta] = float(v)
    return far


def parse_loss(text: str) -> Dict[int, float]:
    """'2:0.05' or '2:0.05,5:0.1' -> {2: 0.05, 5: 0.1}: of station 2's frames,
    both ways, 5 % are lost after the medium."""
    loss: Dict[int, float] = {}
    for sta, v in _per_station(text, "lossy station", "STATION:P, e.g. 2:0.05",
                               r"[0-9]*\.?[0-9]+").items():
        if not 0 < float(v) <= MAX_LOSS:
            raise UsageError(f"loss {v} of station {sta} out of range "
                             f"(above 0, at most {MAX_LOSS:g})")
        loss[sta] = float(v)
    return loss


# Station queue regimes and their default station FIFO (packets).
#   tsq   a modern Linux station: a frame waiting in the station's FIFO is
#         still charged to its socket, so TCP Small Queues hold the sender
#         back and the FIFO holds a few frames whatever its size.
#   deep  a station whose frames leave the sender's accounting before they
#         wait (a firmware queue, another OS, a kernel without TSQ): native
#         XDP on the station's bridge port makes veth copy every frame and
#         free the sender's (testbed_bpf.py orphan), and the FIFO fills.
#         Measured (u1d0, 10M, cubic): RTT 7.5 ms and cwnd 24 with tsq,
#         318 ms and 220 with deep, the same goodput.
STA_QUEUES = {"tsq": 100, "deep": 400}


def parse_mcs(text: str) -> Dict[int, int]:
    """'1:0,2:7' -> {1: 0, 2: 7}: each station's MCS in the ns-3 cell."""
    return {sta: int(v) for sta, v in _per_station(text, "station MCS", "STATION:MCS, e.g. 1:0",
                                                   r"[0-9]").items()}


MEDIA = ("htb", "ns3")


def parse_onoff(text: str) -> bool:
    if text in ("on", "1", "yes", "true"):
        return True
    if text in ("off", "0", "no", "false"):
        return False
    raise UsageError(f"bad switch '{text}' (want on or off)")


@dataclass
class Config:
    """All parameters of a testbed and of a run (module API and CLI)."""
    up: int = 5                       # upstream flows (stations 1..up)
    down: int = 5                     # downstream flows (next `down` stations)
    stations: Optional[int] = None    # default: up + down
    capacity: float = 30e6            # bit/s, see the docstring
    ap_buffer: int = 50               # packets in the AP's FIFO
    sta_buffer: Optional[int] = None  # packets in each station's FIFO
    sta_queue: str = "tsq"            # "tsq" or "deep": see STA_QUEUES
    overhead: int = DEFAULT_OVERHEAD  # emulated per-frame airtime, bytes
    duration: int = 60                # seconds of traffic
    cc: Optional[str] = None          # None: the namespaces' default
    delack: bool = True               # receivers' delayed ACKs
    gro: bool = False                 # GRO on the receivers' veths
    # station -> airtime cost of its frames relative to a near station's
    far: Dict[int, float] = field(default_factory=dict)
    # station -> share of its frames (both ways) lost after the medium, and
    # the seed of the losses (testbed_bpf.py lose)
    loss: Dict[int, float] = field(default_factory=dict)
    loss_seed: int = 1
    prefix: str = field(default_factory=lambda: f"wft{os.getpid()}-")
    out_dir: str = "/tmp/wlanfair-testbed"
    name: Optional[str] = None        # output file stem
    grace: float = GRACE_S
    verbose: bool = False
    # False: stations only, their traffic from elsewhere (testbed_traffic.py)
    iperf3_flows: bool = True
    # A command run in the AP namespace during the flows, and the file that
    # says it is ready (testbed_apexec.py)
    ap_exec: Optional[str] = None
    ap_exec_ready: Optional[str] = None
    # The medium: "htb" (the model above) or "ns3", an 802.11 cell that
    # ns-3 simulates in real time (testbed_ns3.py): each station's MCS
    # there (default 7), the standard, width, A-MPDU, the simulator's run
    # number, and the program (default: found by testbed_ns3.find_program)
    medium: str = "htb"
    mcs: Dict[int, int] = field(default_factory=dict)
    ns3_standard: str = "n"
    ns3_width: int = 20
    ampdu: bool = False
    ns3_seed: int = 1
    ns3_program: Optional[str] = None

    def __post_init__(self):
        if self.stations is None:
            self.stations = self.up + self.down
        if self.sta_buffer is None:
            self.sta_buffer = STA_QUEUES.get(self.sta_queue, 100)

    @property
    def mix(self) -> str:
        return f"u{self.up}d{self.down}"

    @property
    def htb_rate(self) -> float:
        """HTB rate so that full frames plus overhead flow at `capacity`."""
        return self.capacity * (FULL_FRAME + self.overhead) / FULL_FRAME

    @property
    def frame_cost(self) -> int:
        """What a near station's full frame costs the medium, in bytes."""
        return FULL_FRAME + self.overhead

    @property
    def quantum(self) -> int:
        """HTB quantum of every leaf: one frame of the costliest station, so
        that taking turns while borrowing shares airtime, not frames (HTB
        sends at least one packet per turn whatever its size)."""
        return math.ceil(max(self.far.values(), default=1.0) * self.frame_cost)

    @property
    def padded_stations(self) -> List[int]:
        """The far stations whose frames grow (cost above 1)."""
        return sorted(i for i in self.far if self.far_extra(i) > 0)

    def far_extra(self, station: int) -> Fraction:
        """k - 1 for a far station as the exact fraction the pad program
        multiplies by (0 for a near one)."""
        k = Fraction(self.far.get(station, 1.0)).limit_denominator(1000)
        return k - 1

    def station_mcs(self) -> List[int]:
        """Each station's MCS in the ns-3 cell, station 1 first."""
        return [self.mcs.get(i, 7) for i in range(1, self.stations + 1)]

    def validate(self) -> None:
        if self.medium not in MEDIA:
            raise UsageError(f"bad medium '{self.medium}' (want " + " or ".join(MEDIA) + ")")
        if self.medium == "ns3":
            if self.far or self.loss:
                raise UsageError("--far and --loss are the htb medium's; in the ns-3 cell "
                                 "a station's MCS sets its cost (--mcs)")
            if self.stations > 16:
                raise UsageError("the ns-3 cell takes at most 16 stations")
            top = 9 if self.ns3_standard == "ac" else 7
            if self.ns3_standard not in ("n", "ac"):
                raise UsageError(f"bad 802.11 standard '{self.ns3_standard}' (want n or ac)")
            if self.ns3_width not in (20, 40) and not (self.ns3_width == 80 and
                                                        self.ns3_standard == "ac"):
                raise UsageError(f"bad channel width {self.ns3_width} (20 or 40 MHz, "
                                 "80 with 802.11ac)")
            if not 1 <= self.ns3_seed <= 1000000:
                raise UsageError(f"ns-3 seed {self.ns3_seed} out of range (1 to 1000000)")
            for sta, m in self.mcs.items():
                if not 1 <= sta <= self.stations:
                    raise UsageError(f"station {sta} (--mcs) is not one of the "
                                     f"{self.stations} stations")
                if not 0 <= m <= top:
                    raise UsageError(f"MCS {m} of station {sta} does not exist in "
                                     f"802.11{self.ns3_standard} (0 to {top})")
        elif self.mcs or self.ampdu:
            raise UsageError("--mcs and --ampdu are the ns-3 cell's (--medium ns3)")
        if self.ap_exec_ready and not self.ap_exec:
            raise UsageError("--ap-exec-ready without --ap-exec")
        if self.up < 0 or self.down < 0 or (self.up + self.down == 0 and self.iperf3_flows):
            raise UsageError("need at least one flow")
        if not 1 <= self.stations <= MAX_STATIONS:
            raise UsageError(f"stations must be 1..{MAX_STATIONS}")
        if self.stations < self.up + self.down:
            raise UsageError(f"{self.stations} stations cannot carry "
                             f"{self.mix} (one flow per station)")
        if self.sta_queue not in STA_QUEUES:
            raise UsageError(f"bad station queue '{self.sta_queue}' (want "
                             + " or ".join(STA_QUEUES) + ")")
        if not 1 <= self.ap_buffer <= 100000 or not 1 <= self.sta_buffer <= 100000:
            raise UsageError("buffers must be 1..100000 packets")
        if not 0 <= self.overhead <= 100000:
            raise UsageError("overhead must be 0..100000 bytes")
        if not 2 <= self.duration <= 86400:
            raise UsageError("duration must be 2..86400 seconds")
        if self.capacity < 1e5 or self.capacity > 10e9:
            raise UsageError("capacity must be 100k..10G")
        check_prefix(self.prefix)
        if self.cc is not None and not re.fullmatch(r"[A-Za-z0-9_.-]{1,15}", self.cc):
            raise UsageError(f"bad congestion control name '{self.cc}'")
        if self.name is not None and not re.fullmatch(r"[A-Za-z0-9_.+-]{1,100}", self.name):
            raise UsageError(f"bad run name '{self.name}'")
        for sta, p in self.loss.items():
            if not 1 <= sta <= self.stations:
                raise UsageError(f"lossy station {sta} is not one of the {self.stations} "
                                 "stations")
            if not 0 < p <= MAX_LOSS:
                raise UsageError(f"lossy station {sta}: loss {p:g} out of range (above 0, "
                                 f"at most {MAX_LOSS:g})")
        if not 0 <= self.loss_seed < 1 << 32:
            raise UsageError(f"loss seed {self.loss_seed} out of range (0 to 2^32 - 1)")
        for sta, k in self.far.items():
            if not 1 <= sta <= self.stations:
                raise UsageError(f"far station {sta} is not one of the {self.stations} "
                                 "stations")
            padded = math.ceil(k * self.frame_cost) - self.overhead
            if k < 1 or padded > MAX_PADDED_FRAME:
                limit = (MAX_PADDED_FRAME + self.overhead) / self.frame_cost
                raise UsageError(f"far station {sta}: cost {k:g} out of range (1 to "
                                 f"{math.floor(limit * 100) / 100:g} with --overhead "
                                 f"{self.overhead}: a full frame would grow to {padded} "
                                 "bytes, and tc BPF can make frames of about 16 kB only)")


def check_prefix(prefix: str) -> None:
    # A letter first and no empty prefix: teardown must never match a bare
    # "srv" or "ap" namespace that is not ours.
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{0,31}", prefix):
        raise UsageError(f"bad prefix '{prefix}' (a letter, then up to 31 of A-Za-z0-9_.-)")


# --- running commands -------------------------------------------------------

_verbose = False


def sh(args: List[str], check: bool = True, input: Optional[str] = None,
       timeout: float = 30) -> subprocess.CompletedProcess:
    """Run a command quietly; on failure raise with its stderr."""
    if _verbose:
        print("+", " ".join(args), file=sys.stderr)
    try:
        p = subprocess.run(args, input=input, capture_output=True, text=True,
                           timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        if check:
            raise TestbedError(f"{' '.join(args)}: {e}") from None
        return subprocess.CompletedProcess(args, 255, "", str(e))
    if check and p.returncode != 0:
        msg = (p.stderr or p.stdout).strip().replace("\n", "; ")
        raise TestbedError(f"{' '.join(args[:6])}...: {msg}")
    return p


def nsexec(ns: str, args: List[str]) -> List[str]:
    return ["ip", "netns", "exec", ns] + args


def check_environment(cfg: Config, traffic: bool) -> None:
    """Root, tools and the congestion control; raises TestbedError (exit 1)."""
    if os.geteuid() != 0:
        raise TestbedError("must run as root (network namespaces, tc)")
    need = ["ip", "tc", "bridge", "sysctl"] + (["iperf3", "ss"] if traffic else [])
    if cfg.gro:
        need.append("ethtool")
    missing = [t for t in need if shutil.which(t) is None]
    if missing:
        hint = {"iperf3": "iperf3", "ethtool": "ethtool", "ss": "iproute2",
                "ip": "iproute2", "tc": "iproute2", "bridge": "iproute2",
                "sysctl": "procps"}
        pkgs = sorted({hint[t] for t in missing})
        raise TestbedError(f"missing tool(s): {', '.join(missing)} "
                           f"(apt-get install {' '.join(pkgs)})")
    if cfg.padded_stations:
        check_bridge_nf()
    if cfg.cc is not None:
        avail = read_sysctl("net/ipv4/tcp_available_congestion_control").split()
        if cfg.cc not in avail:
            raise TestbedError(f"congestion control '{cfg.cc}' is not available "
                               f"(available: {' '.join(avail)}); load it first")


# br_netfilter's switch: with it on, the bridge checks an IPv4 frame before
# it goes up to br0 and cuts it to the datagram's total length.
BRIDGE_NF_IPV4 = "net/bridge/bridge-nf-call-iptables"


def check_bridge_nf() -> None:
    """Upstream, nothing else cuts a far station's padding before br0's
    ingress, where wlanfair-apd shapes uploads (Testbed._setup_far)."""
    if not os.path.exists("/proc/sys/" + BRIDGE_NF_IPV4):
        raise TestbedError("far stations need the bridge's IPv4 check (br_netfilter), "
                           "which this kernel lacks: modprobe br_netfilter")


def read_sysctl(path: str) -> str:
    with open("/proc/sys/" + path) as f:
        return f.read().strip()


# --- topology ----------------------------------------------------------------

def ns_pattern(prefix: str) -> "re.Pattern":
    # Only our roles, so that a short prefix never matches someone else's netns.
    return re.compile(re.escape(prefix) + r"(srv|ap|ns3|sta[0-9]+)")


def list_namespaces(prefix: str) -> List[str]:
    out = sh(["ip", "netns", "list"], check=False).stdout
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    pat = ns_pattern(prefix)
    return [n for n in names if pat.fullmatch(n)]


def teardown(prefix: str) -> List[str]:
    """Remove every namespace of the testbed `prefix` (and so all its devices),
    killing the processes inside first: works after a crash too."""
    nss = list_namespaces(prefix)
    pids = set()
    for ns in nss:
        out = sh(["ip", "netns", "pids", ns], check=False).stdout
        pids.update(int(p) for p in out.split() if p.isdigit())
    pids.discard(os.getpid())
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 2
        while pids and time.monotonic() < deadline:
            pids = {p for p in pids if _alive(p)}
            time.sleep(0.05)
    for ns in nss:
        sh(["ip", "netns", "del", ns], check=False)
    return nss


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def medium_commands(cfg: Config) -> List[str]:
    """The `tc -batch` lines of the medium in the AP namespace: the HTB tree
    on `air`, its classifiers, and the redirects into it."""
    n = cfg.stations
    rate = cfg.htb_rate
    share = rate / (n + 1)
    # quantum = one full frame (of the costliest station): when contenders
    # borrow idle airtime they take turns frame by frame, like DCF; bursts
    # of two such frames keep the medium close to its rate at millisecond
    # scale.
    quantum = cfg.quantum
    burst = f"burst {2 * quantum} cburst {2 * quantum}"
    stab = f"stab overhead {cfg.overhead} " if cfg.overhead else ""
    lines = [
        f"qdisc add dev air root handle 1: {stab}htb default {0x1000:x}",
        f"class add dev air parent 1: classid 1:1 htb rate {rate:.0f}bit "
        f"ceil {rate:.0f}bit {burst}",
    ]
    # One class per contender (the AP, then each station), and in it the
    # two access categories: voice (prio 0, served ahead of every
    # best-effort leaf while it has tokens, like EDCA's voice queue) and
    # best effort (prio 1), each with its FIFO.
    for i in range(0, n + 1):
        cid = Testbed.sta_classid(i) if i else "1:2"
        limit = cfg.sta_buffer if i else cfg.ap_buffer
        lines.append(f"class add dev air parent 1:1 classid {cid} htb rate {share:.0f}bit "
                     f"ceil {rate:.0f}bit {burst}")
        for leaf, handle, prio in ((Testbed.be_classid(i), Testbed.be_handle(i), 1),
                                   (Testbed.vo_classid(i), Testbed.vo_handle(i), 0)):
            lines += [
                f"class add dev air parent {cid} classid {leaf} htb rate {share:.0f}bit "
                f"ceil {rate:.0f}bit prio {prio} quantum {quantum} {burst}",
                f"qdisc add dev air parent {leaf} handle {handle} pfifo limit {limit}",
            ]
    voice = f"match ip tos {VOICE_TOS:#x} {VOICE_TOS_MASK:#x}"
    for i in range(1, n + 1):
        src = f"match ip src {Testbed.sta_ip(i)}/32"
        lines += [
            f"filter add dev air parent 1: protocol ip prio 1 u32 {src} {voice} "
            f"flowid {Testbed.vo_classid(i)}",
            f"filter add dev air parent 1: protocol ip prio 2 u32 {src} "
            f"flowid {Testbed.be_classid(i)}",
        ]
    # The AP's own voice frames; the rest of its frames: the default.
    lines.append(f"filter add dev air parent 1: protocol ip prio 3 u32 {voice} "
                 f"flowid {Testbed.vo_classid(0)}")
    # Funnel both directions into the medium at each station's bridge port
    # (u32 match-all: this kernel has no matchall classifier): upstream on
    # its ingress, downstream on its egress, i.e. after br0's own root
    # qdisc (the AP's queueing, where wlanfair-apd shapes) and the bridge.
    # Frames coming back from `air` skip the redirect's action once (ifb
    # sets tc_skip_classify); prio 1 is left for a far station's trim
    # program and prio 2 for a lossy one's drop, which must run ahead of
    # the redirect.
    redirect = ("protocol all prio 10 u32 match u32 0 0 "
                "action mirred egress redirect dev air")
    for i in range(1, n + 1):
        lines += [f"qdisc add dev p{i} clsact",
                  f"filter add dev p{i} ingress {redirect}",
                  f"filter add dev p{i} egress {redirect}"]
    if cfg.padded_stations or cfg.loss:
        lines.append("qdisc add dev air clsact")   # for the pad and lose programs
    return lines


class Testbed:
    """The topology of one Config: setup(), the run, teardown()."""

    def __init__(self, cfg: Config):
        global _verbose
        cfg.validate()
        self.cfg = cfg
        _verbose = cfg.verbose
        p = cfg.prefix
        self.srv, self.ap = p + "srv", p + "ap"
        self.sta = [f"{p}sta{i}" for i in range(1, cfg.stations + 1)]
        self.partial: Optional[dict] = None  # results of an interrupted run
        self.ns3ns = p + "ns3"
        self.ns3 = None                      # testbed_ns3.Ns3Medium while it runs
        self.ns3_result: Optional[dict] = None

    @staticmethod
    def sta_ip(i: int) -> str:          # i counts from 1
        return f"10.1.0.{i}"

    @staticmethod
    def sta_classid(i: int) -> str:
        return f"1:{0x100 + i:x}"

    # The access categories of contender i (0: the AP): its best-effort and
    # voice leaves, and their FIFOs' qdisc handles.
    @staticmethod
    def be_classid(i: int) -> str:
        return f"1:{0x1000 + i:x}"

    @staticmethod
    def vo_classid(i: int) -> str:
        return f"1:{0x2000 + i:x}"

    @staticmethod
    def be_handle(i: int) -> str:
        return f"{0x100 + i:x}:" if i else "2:"

    @staticmethod
    def vo_handle(i: int) -> str:
        return f"{0x2000 + i:x}:"

    def __enter__(self):
        self.setup()
        return self

    def __exit__(self, *exc):
        self.teardown()

    def teardown(self) -> List[str]:
        self.stop_medium()
        return teardown(self.cfg.prefix)

    def stop_medium(self) -> Optional[dict]:
        """The ns-3 cell stopped (its account of real time read): what the
        results record of it; None with the htb medium."""
        if self.ns3 is not None:
            import testbed_ns3
            done = self.ns3.stop()
            self.ns3_result = testbed_ns3.summary(self.ns3.ready, done)
            self.ns3 = None
        return self.ns3_result

    def setup(self) -> None:
        """Build the whole testbed; on any failure remove what was built."""
        if list_namespaces(self.cfg.prefix):
            raise TestbedError(f"a testbed with prefix '{self.cfg.prefix}' exists "
                               f"(wlanfair-testbed teardown --prefix {self.cfg.prefix})")
        try:
            self._setup()
        except BaseException:
            self.teardown()
            raise

    def _mac(self, ns: str, dev: str) -> str:
        return json.loads(sh(["ip", "-n", ns, "-j", "link", "show", "dev", dev]).stdout)[0]["address"]

    def _setup(self) -> None:
        cfg, ap, srv = self.cfg, self.ap, self.srv
        for ns in [srv, ap] + self.sta + ([self.ns3ns] if cfg.medium == "ns3" else []):
            sh(["ip", "netns", "add", ns])
            # No IPv6: no router solicitations, DAD or MLD on the medium.
            sh(nsexec(ns, ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                           "net.ipv6.conf.default.disable_ipv6=1"]), check=False)
            sh(["ip", "-n", ns, "link", "set", "lo", "up"])
        sh(nsexec(ap, ["sysctl", "-qw", "net.ipv4.ip_forward=1"]))
        quick = [] if cfg.delack else ["quickack", "1"]

        # Wired side, unshaped.
        sh(["ip", "-n", srv, "link", "add", "eth0", "type", "veth",
            "peer", "name", "wired0", "netns", ap])
        sh(["ip", "-n", ap, "-batch", "-"], input="\n".join([
            f"addr add {AP_WIRED_IP}/24 dev wired0",
            "link set wired0 gso_max_segs 1 up",
            "link add br0 type bridge stp_state 0 mcast_snooping 0",
            # Set, so that it stays 1500 when far stations' ports grow.
            "link set br0 mtu 1500",
            f"addr add {AP_WLAN_IP}/24 dev br0",
            "link set br0 up",
            "link add air type ifb",
            "link set air up"]) + "\n")
        sh(["ip", "-n", srv, "-batch", "-"], input="\n".join([
            f"addr add {SRV_IP}/24 dev eth0",
            "link set eth0 gso_max_segs 1 up",
            " ".join(["route add", WLAN_NET, "via", AP_WIRED_IP] + quick)]) + "\n")

        # Wireless side: one veth per station, its AP end on the bridge (or
        # the ns-3 cell's taps: a station's radio and its AP port).
        if cfg.medium == "ns3":
            self._start_ns3()
        for i, ns in enumerate(self.sta, 1):
            if cfg.medium != "ns3":
                sh(["ip", "-n", ap, "link", "add", f"p{i}", "type", "veth",
                    "peer", "name", "wlan0", "netns", ns])
            sh(["ip", "-n", ap, "link", "set", f"p{i}", "gso_max_segs", "1",
                "master", "br0", "up"])
            sh(["ip", "-n", ns, "-batch", "-"], input="\n".join([
                f"addr add {self.sta_ip(i)}/24 dev wlan0",
                "link set wlan0 gso_max_segs 1 up",
                " ".join(["route add default via", AP_WLAN_IP] + quick)]) + "\n")

        # Static neighbours and FDB: ARP frames lost in a full AP FIFO would
        # otherwise make the AP drop a station's traffic for seconds, an
        # artefact of the AP being the router here.
        br_mac = self._mac(ap, "br0")
        neigh = []
        for i, ns in enumerate(self.sta, 1):
            mac = self._mac(ns, "wlan0")
            neigh.append(f"neigh replace {self.sta_ip(i)} lladdr {mac} dev br0 nud permanent")
            sh(["bridge", "-n", ap, "fdb", "replace", mac, "dev", f"p{i}",
                "master", "static"])
            sh(["ip", "-n", ns, "neigh", "replace", AP_WLAN_IP, "lladdr", br_mac,
                "dev", "wlan0", "nud", "permanent"])
        neigh.append(f"neigh replace {SRV_IP} lladdr {self._mac(srv, 'eth0')} "
                     "dev wired0 nud permanent")
        sh(["ip", "-n", ap, "-batch", "-"], input="\n".join(neigh) + "\n")
        sh(["ip", "-n", srv, "neigh", "replace", AP_WIRED_IP, "lladdr",
            self._mac(ap, "wired0"), "dev", "eth0", "nud", "permanent"])

        if shutil.which("ethtool"):
            # GRO before the medium would merge frames: never on the AP side.
            # On the receivers (srv for upstream, stations for downstream) it
            # is the experiment's choice (stretch ACKs).
            gro = "on" if cfg.gro else "off"
            sh(nsexec(ap, ["ethtool", "-K", "wired0", "gro", "off"]))
            for i in range(1, cfg.stations + 1):
                sh(nsexec(ap, ["ethtool", "-K", f"p{i}", "gro", "off"]))
                sh(nsexec(self.sta[i - 1], ["ethtool", "-K", "wlan0", "gro", gro]))
            sh(nsexec(srv, ["ethtool", "-K", "eth0", "gro", gro]))
        self._setup_medium()
        self.check_connectivity()
        # After the check: a handshake that lost its SYN twice would fail
        # it; and the generator starts with the run's own frames.
        self._setup_loss()

    def _start_ns3(self) -> None:
        """The ns-3 cell's program, then its taps moved into place: station
        i's as wlan0 with the simulated station's MAC, its port into the AP
        namespace as p{i} (testbed_ns3.py)."""
        import testbed_ns3
        cfg = self.cfg
        program = cfg.ns3_program or testbed_ns3.find_program()
        if not program:
            raise UsageError("the ns-3 medium needs wlanfair-ns3cell (built where libns3-dev "
                             "is installed; WLANFAIR_NS3CELL names it)")
        self.ns3 = testbed_ns3.Ns3Medium(
            program, self.ns3ns, cfg.stations, cfg.station_mcs(), cfg.ns3_standard,
            cfg.ns3_width, cfg.ampdu, cfg.ns3_seed,
            os.path.join(cfg.out_dir, f"{cfg.prefix}ns3.log"))
        os.makedirs(cfg.out_dir, exist_ok=True)
        try:
            self.ns3.start(lambda args: sh(args))
        except testbed_ns3.Ns3Error as e:
            raise TestbedError(str(e)) from None
        for i, (ns, mac) in enumerate(zip(self.sta, self.ns3.station_macs()), 1):
            sh(["ip", "-n", self.ns3ns, "link", "set", self.ns3.sta_tap(i), "netns", ns])
            sh(["ip", "-n", ns, "link", "set", self.ns3.sta_tap(i), "name", "wlan0",
                "address", mac, "mtu", "1500"])
            sh(["ip", "-n", self.ns3ns, "link", "set", self.ns3.port_tap(i), "netns", self.ap])
            sh(["ip", "-n", self.ap, "link", "set", self.ns3.port_tap(i), "name", f"p{i}",
                "mtu", "1500"])

    def _setup_medium(self) -> None:
        if self.cfg.medium == "ns3":
            return
        sh(["tc", "-n", self.ap, "-batch", "-"],
           input="\n".join(medium_commands(self.cfg)) + "\n")
        self._setup_far()
        if self.cfg.sta_queue == "deep":
            sh(nsexec(self.ap, [sys.executable, BPF_HELPER, "orphan",
                                *(f"p{i}" for i in range(1, self.cfg.stations + 1))]))

    def _setup_far(self) -> None:
        """Far stations: their frames, both ways, grow by (k - 1) x (length +
        overhead) before the medium (the HTB charges bytes) and shrink back
        after it (testbed_bpf.py). A grown frame goes from `air` straight
        back to the station's bridge port, so no MTU changes. Downstream it
        leaves through the port's egress, where the trim program cuts it.
        Upstream it comes back into the port's ingress with tc's
        classification skipped (the ifb sets tc_skip_classify), so no
        program there ever sees it: the bridge's IPv4 check (br_netfilter,
        switched on here in the AP's namespace, required by
        check_environment) cuts it to the datagram's length before br0's
        ingress, where wlanfair-apd's upload shaping counts bytes."""
        cfg = self.cfg
        far = cfg.padded_stations
        if not far:
            return
        check_bridge_nf()      # also for callers that skipped check_environment
        sh(nsexec(self.ap, ["sysctl", "-qw", BRIDGE_NF_IPV4.replace("/", ".") + "=1"]))
        specs = [f"{self.sta_ip(i)}={cfg.far_extra(i)}" for i in far]
        sh(nsexec(self.ap, [sys.executable, BPF_HELPER, "pad", "air", *specs,
                            "--overhead", str(cfg.overhead)]))
        for i in far:
            sh(nsexec(self.ap, [sys.executable, BPF_HELPER, "trim", f"p{i}"]))

    def _setup_loss(self) -> None:
        """Lossy stations: a seeded share of their frames, both ways, is lost
        after the medium, as after the MAC's last retry: the frame took its
        airtime (it crossed `air`, marked there) and is dropped on the
        station's bridge port on its way out of the medium (testbed_bpf.py
        lose and drop)."""
        cfg = self.cfg
        if not cfg.loss:
            return
        specs = [f"{self.sta_ip(i)}={p!r}" for i, p in sorted(cfg.loss.items())]
        sh(nsexec(self.ap, [sys.executable, BPF_HELPER, "lose", "air",
                            "--seed", str(cfg.loss_seed), *specs]))
        for i in sorted(cfg.loss):
            sh(nsexec(self.ap, [sys.executable, BPF_HELPER, "drop", f"p{i}"]))
        # Upstream, a frame back from the medium skips the port's ingress
        # classification (testbed_bpf.py): the AP's routing drops it, before
        # it reaches the server or the AP's own sockets.
        sh(["ip", "-n", self.ap, "rule", "add", "fwmark", hex(testbed_bpf.LOSS_MARK),
            "priority", "100", "blackhole"])

    def check_connectivity(self) -> None:
        """Each station reaches srv through the medium: a TCP connection to a
        closed port must be refused (an RST came back), not time out."""
        code = ("import socket,sys\ntry: socket.create_connection(('%s',9),2)\n"
                "except ConnectionRefusedError: sys.exit(0)\n"
                "except OSError as e: sys.exit(str(e))\n" % SRV_IP)
        # In the ns-3 cell the stations associate first (beacons every
        # 102.4 ms of simulated time): a few tries.
        for attempt in range(5 if self.cfg.medium == "ns3" else 1):
            procs = [(ns, subprocess.Popen(nsexec(ns, [sys.executable, "-c", code]),
                                           stderr=subprocess.PIPE, text=True))
                     for ns in self.sta]
            # communicate() for every one: it also closes the pipe.
            errs = [(ns, p.communicate()[1].strip(), p.returncode) for ns, p in procs]
            bad = [f"{ns}: {err or rc}" for ns, err, rc in errs if rc != 0]
            if not bad:
                break
            if self.cfg.medium == "ns3":
                time.sleep(1)
        if bad:
            raise TestbedError("no connectivity through the medium: " + "; ".join(bad))

    # --- statistics ---------------------------------------------------------

    def tc_stats(self) -> Dict[str, dict]:
        """Counters of the medium per contender: sent and overlimits (times HTB
        throttled the class) of its HTB class, dropped and backlog of its
        FIFOs, and its voice leaf's share ("voice"). Byte counts include the
        emulated per-frame overhead (and a far station's extra airtime)."""
        if self.cfg.medium == "ns3":
            return {}   # no HTB: the cell's counters are ns-3's (testbed_ns3.py)
        qd = json.loads(sh(["tc", "-n", self.ap, "-s", "-j", "qdisc", "show",
                            "dev", "air"]).stdout)
        # iproute2 6.1 prints HTB classes as text even with -j.
        text = sh(["tc", "-n", self.ap, "-s", "class", "show", "dev", "air"]).stdout
        return contender_stats(text, qd, self.cfg.stations)


def contender_stats(class_text: str, qdiscs: List[dict], stations: int) -> Dict[str, dict]:
    """`tc -s class show` text and `tc -s -j qdisc show` JSON of the medium
    -> {"medium": ..., "ap": ..., "sta1": ...} (see Testbed.tc_stats)."""
    fifos = {q.get("parent"): q for q in qdiscs if q.get("parent")}
    classes = {}
    for block in re.split(r"\n(?=class )", class_text.strip()):
        m = re.match(r"class htb (\S+)", block)
        c = re.search(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+), "
                      r"overlimits (\d+)", block)
        if not m or not c:
            continue
        entry = {"class": m.group(1), "sent_bytes": int(c.group(1)),
                 "sent_packets": int(c.group(2)), "dropped": int(c.group(3)),
                 "overlimits": int(c.group(4))}
        b = re.search(r"lended: (\d+) borrowed: (\d+)", block)
        if b:
            entry["lended"], entry["borrowed"] = int(b.group(1)), int(b.group(2))
        classes[m.group(1)] = entry
    stats = {}
    if "1:1" in classes:
        stats["medium"] = dict(classes["1:1"], backlog_packets=0)
    for i in range(0, stations + 1):
        cid = Testbed.sta_classid(i) if i else "1:2"
        if cid not in classes:
            continue
        entry = dict(classes[cid], dropped=0, backlog_packets=0)
        for leaf in (Testbed.be_classid(i), Testbed.vo_classid(i)):
            fifo = fifos.get(leaf, {})
            entry["dropped"] += int(fifo.get("drops", classes.get(leaf, {}).get("dropped", 0)))
            entry["backlog_packets"] += int(fifo.get("qlen", 0))
        vo = classes.get(Testbed.vo_classid(i), {})
        entry["voice"] = {"sent_bytes": vo.get("sent_bytes", 0),
                          "sent_packets": vo.get("sent_packets", 0),
                          "dropped": int(fifos.get(Testbed.vo_classid(i), {}).get("drops", 0))}
        stats[f"sta{i}" if i else "ap"] = entry
    return stats


# --- traffic -----------------------------------------------------------------

@dataclass
class Flow:
    name: str            # up-K / down-K
    direction: str       # "up" (station sends) or "down"
    station: int
    port: int
    server: object = None
    client: object = None
    launched: float = 0.0        # time.monotonic() of the client's launch
    ended: Optional[float] = None  # when the client exited by itself
    stopped: bool = False          # still running at the deadline


def make_flows(cfg: Config) -> List[Flow]:
    flows = [Flow(f"up-{k}", "up", k, BASE_PORT + k - 1) for k in range(1, cfg.up + 1)]
    flows += [Flow(f"down-{k}", "down", cfg.up + k, BASE_PORT + cfg.up + k - 1)
              for k in range(1, cfg.down + 1)]
    return flows


def observe_cc(tb: Testbed, flows: List[Flow]) -> Dict[str, Optional[str]]:
    """The CC of each flow's data sender, read with ss in the sender's
    namespace (the busiest of the flow's sockets: the other one is iperf3's
    control connection)."""
    cache: Dict[str, List[dict]] = {}
    ccs = set(read_sysctl("net/ipv4/tcp_available_congestion_control").split())
    result = {}
    for fl in flows:
        ns = tb.sta[fl.station - 1] if fl.direction == "up" else tb.srv
        if ns not in cache:
            cache[ns] = parse_ss(sh(nsexec(ns, ["ss", "-tinH"]), check=False).stdout, ccs)
        key = f"{SRV_IP}:{fl.port}"
        mine = [s for s in cache[ns]
                if (s["peer"] if fl.direction == "up" else s["local"]) == key]
        best = max(mine, key=lambda s: s["bytes_sent"], default=None)
        # A starved data socket may have sent less than the control socket:
        # better no answer than the control socket's CC.
        result[fl.name] = best["cc"] if best and best["bytes_sent"] >= 65536 else None
    return result


def _cpu_times():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    # host total, host idle + iowait (jiffies), our reaped children's CPU (s)
    return sum(v), v[3] + v[4], ru.ru_utime + ru.ru_stime


def _softnet_drops() -> int:
    # Drops in the per-CPU backlog that veth feeds: losses outside the model.
    with open("/proc/net/softnet_stat") as f:
        return sum(int(line.split()[1], 16) for line in f if line.strip())


def _stop(procs, grace: float = 3.0) -> list:
    """Stop what still runs; returns those that had to be stopped."""
    live = [p for p in procs if p and p.poll() is None]
    for p in live:
        p.terminate()                    # iperf3 writes its JSON so far
    deadline = time.monotonic() + grace
    for p in live:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return live


def run_traffic(tb: Testbed, raw_dir: str) -> dict:
    """One iperf3 pair per flow; returns the run's results (see collect).
    On Interrupted the processes are stopped and the exception carries on
    after the partial results are stored in `tb.partial`."""
    cfg = tb.cfg
    flows = make_flows(cfg)
    os.makedirs(raw_dir, exist_ok=True)
    cc = ["-C", cfg.cc] if cfg.cc else []
    files = []

    def spawn(ns, args, stem):
        out = open(os.path.join(raw_dir, stem + ".json"), "w")
        err = open(os.path.join(raw_dir, stem + ".err"), "w")
        files.extend([out, err])
        # Own session: a Ctrl-C on the terminal reaches us, not iperf3; we
        # stop iperf3 with SIGTERM so that it still writes its JSON.
        return subprocess.Popen(nsexec(ns, args), stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True)

    interrupted = None
    cpu0, drops0 = _cpu_times(), _softnet_drops()
    t0 = time.monotonic()
    wall0 = time.time()
    observed: Dict[str, Optional[str]] = {}
    sampler = None
    try:
        for fl in flows:
            fl.server = spawn(tb.srv, ["iperf3", "-s", "-1", "-B", SRV_IP,
                                       "-p", str(fl.port), "--json"], f"{fl.name}.server")
        wait_listening(tb, [fl.port for fl in flows])
        sampler = recv_sampler(tb, flows)
        t0, wall0 = time.monotonic(), time.time()
        sampler.start(t0)
        cpu0, drops0 = _cpu_times(), _softnet_drops()
        # No --connect-timeout: a handshake waits for the kernel's SYN
        # retries (1, 3, 7, 15 s ...), as an application's would. With
        # iperf3's 5 s, three lost SYNs or SYN-ACKs behind a full AP FIFO
        # ended a flow for good (docs/ackloss.md: 14 of 23 "never
        # connected" in 20-station runs). The run's deadline still stops
        # a client that never connects.
        for fl in flows:
            fl.launched = time.monotonic()
            fl.client = spawn(tb.sta[fl.station - 1],
                              ["iperf3", "-c", SRV_IP, "-p", str(fl.port),
                               "-t", str(cfg.duration), "-i", "1", "--json"]
                              + (["-R"] if fl.direction == "down" else []) + cc,
                              f"{fl.name}.client")
        probe_at = t0 + cfg.duration / 2
        deadline = t0 + cfg.duration + cfg.grace
        procs = [p for fl in flows for p in (fl.server, fl.client)]
        while time.monotonic() < deadline:
            for fl in flows:
                if fl.ended is None and fl.client.poll() is not None:
                    fl.ended = time.monotonic()
            if all(p.poll() is not None for p in procs):
                break
            if probe_at and time.monotonic() >= probe_at:
                observed = observe_cc(tb, flows)
                probe_at = None
            time.sleep(0.1)
    except Interrupted as e:
        interrupted = e
    finally:
        stopped = _stop([p for fl in flows for p in (fl.server, fl.client)])
        if sampler:
            sampler.stop()
        for fl in flows:
            fl.stopped = interrupted is None and (fl.server in stopped or fl.client in stopped)
        for f in files:
            f.close()
    t1 = time.monotonic()
    cpu1, drops1 = _cpu_times(), _softnet_drops()
    # An interrupted run's series ends where the interruption came.
    seconds = cfg.duration if not interrupted else max(1, min(cfg.duration, int(t1 - t0)))
    results = collect(tb, flows, raw_dir, t0, wall0, observed, seconds, sampler)
    busy = 1 - (cpu1[1] - cpu0[1]) / max(1, cpu1[0] - cpu0[0])
    # Host-wide (softirq work of the medium included, other users too) and
    # the CPU time of the iperf3 processes themselves.
    results["host"] = {"cpu_busy_percent": round(100 * busy, 1),
                       "cpus": os.cpu_count(),
                       "iperf3_cpu_s": round(cpu1[2] - cpu0[2], 2),
                       "softnet_backlog_drops": drops1 - drops0,
                       "wall_s": round(t1 - t0, 2)}
    results["interrupted"] = interrupted.args[0] if interrupted else None
    if interrupted:
        tb.partial = results
        raise interrupted
    return results


def wait_listening(tb: Testbed, ports: List[int], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    want = {f"{SRV_IP}:{p}" for p in ports}
    while True:
        out = sh(nsexec(tb.srv, ["ss", "-Hltn"]), check=False).stdout
        have = {line.split()[3] for line in out.splitlines() if len(line.split()) > 3}
        if want <= have:
            return
        if time.monotonic() > deadline:
            raise TestbedError(f"iperf3 servers not listening on {sorted(want - have)}")
        time.sleep(0.05)


def sender_rtt_ms(end: dict) -> Optional[dict]:
    """{mean, max} of the sender's smoothed RTT from iperf3's end summary
    (microseconds there), None where that side was not the sender."""
    try:
        snd = end["streams"][0]["sender"]
        return {"mean": snd["mean_rtt"] / 1000, "max": snd["max_rtt"] / 1000}
    except (KeyError, IndexError, TypeError):
        return None


def receiver(tb: "Testbed", direction: str, station: int, port: int):
    """(namespace, match) of a flow's receiving sockets for RecvSampler:
    srv's on an upload's port from its station, a downloading station's to
    the flow's port."""
    if direction == "up":
        ip = tb.sta_ip(station)
        return (tb.srv, lambda lp, rp, rip: lp == port and rip == ip)
    return (tb.sta[station - 1], lambda lp, rp, rip: rp == port)


def recv_sampler(tb: "Testbed", flows: List[Flow]) -> RecvSampler:
    """The receivers' byte counts (receiver() of each flow)."""
    spec = {fl.name: receiver(tb, fl.direction, fl.station, fl.port) for fl in flows}
    try:
        return RecvSampler(spec)
    except OSError as e:
        raise TestbedError(f"cannot read the receivers' sockets (sock_diag): {e}") from None


def collect(tb: Testbed, flows: List[Flow], raw_dir: str, t0: float, wall0: float,
            observed: Dict[str, Optional[str]], seconds: int,
            sampler: Optional[RecvSampler] = None) -> dict:
    """Per-flow results over the first `seconds` of the run (the receiver's
    view: tcp_info samples on the run's clock; iperf3's intervals, placed
    at the client's launch, where there are none), tc counters of the
    medium."""
    cfg = tb.cfg
    sampled = sampler is not None and sampler.error is None and len(sampler.samples) >= 2
    out = []
    for fl in flows:
        raw = {role: read_intervals(os.path.join(raw_dir, f"{fl.name}.{role}.json"))
               for role in ("client", "server")}
        recv = "server" if fl.direction == "up" else "client"
        ivs, _, end = raw[recv]
        offset = fl.launched - t0 if fl.launched else 0.0
        bins = sampler.bins(fl.name, seconds) if sampled else rebin(ivs, offset, seconds)
        errors = [f"{role}: {raw[role][1]}" for role in ("client", "server") if raw[role][1]]
        if fl.stopped:
            errors.append(f"stopped by the testbed {cfg.grace:g} s after the run")
        summed = end.get("sum_received") or {}
        out.append({
            "name": fl.name, "direction": fl.direction, "station": fl.station,
            "port": fl.port, "start_offset_s": round(offset, 4),
            "mean_bps": sum(bins) * 8 / seconds,
            "iperf3_mean_bps": summed.get("bits_per_second"),
            "intervals_reported": len(ivs),
            "client_exit": fl.client.returncode if fl.client else None,
            "client_runtime_s": round(fl.ended - fl.launched, 3) if fl.ended else None,
            # The data sender's CC as ss saw it mid-run, and as iperf3 reports
            # it (the client's JSON has it in both directions).
            "sender_cc": observed.get(fl.name),
            "iperf3_sender_cc": raw["client"][2].get("sender_tcp_congestion"),
            # The data sender's own RTT (iperf3's tcp_info means, in ms): how
            # much queue its frames met, the deep station queue's signature.
            "sender_rtt_ms": sender_rtt_ms(raw["client" if fl.direction == "up" else "server"][2]),
            "errors": errors,
            "bins_bps": [b * 8 for b in bins],
        })
    return {"flows": out, "start_wall": wall0, "tc": tb.tc_stats(), "seconds": seconds,
            "series_source": "tcp_info" if sampled else "iperf3",
            "sampler_error": sampler.error if sampler else None,
            "cc_observed_at_s": round(cfg.duration / 2, 1) if observed else None}


# --- signals and the whole run ----------------------------------------------

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def install_signal_handlers() -> dict:
    """SIGINT/SIGTERM/SIGHUP raise Interrupted so that `finally` blocks run
    (by default SIGTERM and SIGHUP kill Python without cleanup). Returns the
    previous handlers for restore_signal_handlers()."""
    def handler(signum, frame):
        raise Interrupted(signum)
    old = {s: signal.getsignal(s) for s in _SIGNALS}
    for s in _SIGNALS:
        signal.signal(s, handler)
    return old


def ignore_signals() -> None:
    """During cleanup a second Ctrl-C must not leave half a testbed."""
    for s in _SIGNALS:
        signal.signal(s, signal.SIG_IGN)


def restore_signal_handlers(old: dict) -> None:
    for s, h in old.items():
        signal.signal(s, h if h is not None else signal.SIG_DFL)


def params_of(cfg: Config) -> dict:
    """The parameters recorded in a run's summary."""
    p = asdict(cfg)
    del p["verbose"], p["iperf3_flows"]
    p.update(mix=cfg.mix, htb_rate_bps=round(cfg.htb_rate),
             share_rate_bps=round(cfg.htb_rate / (cfg.stations + 1)),
             frame_cost_bytes=cfg.frame_cost, quantum_bytes=cfg.quantum,
             far={str(k): v for k, v in sorted(cfg.far.items())},
             loss={str(k): v for k, v in sorted(cfg.loss.items())},
             netns_default_cc=read_sysctl("net/ipv4/tcp_congestion_control"))
    return p


def run(cfg: Config, log=print) -> dict:
    """Set up, run the traffic, write the outputs, tear down. Returns the
    summary; on Interrupted writes the partial results, tears down and
    re-raises."""
    cfg.validate()
    check_environment(cfg, traffic=True)
    name = cfg.name or (f"{cfg.mix}-{cfg.cc or 'default'}-b{cfg.ap_buffer}-"
                        + time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(cfg.out_dir, exist_ok=True)
    base = os.path.join(cfg.out_dir, name)
    tb = Testbed(cfg)
    old = install_signal_handlers()
    ap_exec = None
    try:
        log(f"setting up {cfg.stations} stations, prefix {cfg.prefix} ...")
        tb.setup()
        if cfg.ap_exec:
            import testbed_apexec
            ap_exec = testbed_apexec.ApExec(cfg.prefix + "ap", cfg.ap_exec, cfg.ap_exec_ready,
                                            base + "-ap-exec.log")
            try:
                ap_exec.start()
            except testbed_apexec.ApExecError as e:
                raise UsageError(str(e)) from None
        log(f"running {cfg.mix} for {cfg.duration} s ...")
        results = run_traffic(tb, base + ".raw")
        if cfg.medium == "ns3":
            results["ns3"] = tb.stop_medium()
        params = params_of(cfg)
        if ap_exec:
            if not ap_exec.alive():
                raise UsageError(f"--ap-exec ended during the flows (exit "
                                 f"{ap_exec.p.returncode}; see {base}-ap-exec.log)")
            params["ap_exec_exit"] = ap_exec.stop()
        return write_outputs(params, results, base)
    except Interrupted:
        ignore_signals()
        if tb.partial is not None:
            write_outputs(params_of(cfg), tb.partial, base)
            log(f"interrupted: partial results in {base}.csv, {base}.json")
        raise
    finally:
        ignore_signals()
        if ap_exec:
            ap_exec.stop()
        tb.teardown()
        restore_signal_handlers(old)
