"""BPF programs for the testbed, assembled here and attached with
rtnetlink (Python's standard library only: no clang, no libbpf, no bpffs):
two tc programs for far stations, two for lossy ones and an XDP one for
deep station queues.

  pad   on the medium's ifb (clsact egress, before the HTB): a frame from
        or to a far station's address grows by (k - 1) x (its length +
        the per-frame overhead), so that the HTB, which charges bytes,
        charges it k times a near station's frame of the same size;
  trim  on a far station's bridge port (clsact egress), where frames come
        back from the medium downstream: back to the Ethernet header plus
        the IPv4 total length. It runs ahead of the port's redirect into
        the medium and lets it run (TC_ACT_UNSPEC: next filter), so it
        must be a no-op on frames on their way into the medium (never
        padded yet). Upstream, a frame back from the medium skips the
        port's ingress classification (tc_skip_classify), so no program
        there would see it: the bridge's IPv4 check cuts it instead
        (testbed.py, Testbed._setup_far).

  lose  on the medium's ifb (clsact egress, ahead of pad): a frame from or
        to a lossy station's address draws the next number of the station's
        xorshift32 sequence (its state in an array map, seeded: the same
        seed and the same frames, the same losses); below the station's
        threshold (p x 2^32) the frame is marked to be lost (skb->mark =
        LOSS_MARK). It crosses the medium all the same: a frame lost after
        the MAC's retries took its airtime;
  drop  on a lossy station's bridge port (clsact egress): a frame back
        from the medium on its way to the station, with the mark, is
        dropped. Frames on their way into the medium never have it (the
        mark is cleared crossing into the AP's namespace, and only `lose`
        sets it). Upstream, a frame back from the medium skips the port's
        ingress classification altogether (tc_skip_classify is checked
        before clsact ingress on receive), so the AP's routing drops it:
        testbed.py adds a blackhole rule for the mark.

  orphan  on a station's bridge port (native XDP on the veth, XDP_PASS):
        the deep-queue regime.  A TCP frame the station sends is a clone
        that still holds its socket's send accounting until it is freed,
        so TCP Small Queues hold the sender back while the frame waits in
        the medium's station FIFO: the station never queues much.  veth
        hands a cloned frame to XDP as a fresh copy and frees the clone
        (veth_convert_skb_to_xdp_buff, since Linux 4.19): the frame leaves
        the sender's accounting as it leaves the station, as a frame does
        that a driver hands to firmware, and the station's FIFO fills.

The new bytes are zeros after the IP datagram (bpf_skb_change_tail), which
no IP stack reads. IPv4 only, like the testbed.

Run inside the AP namespace (the netlink socket and the interface names
are that namespace's):
    ip netns exec AP python3 testbed_bpf.py pad air 10.1.0.2=3/1 [...] --overhead 1150
    ip netns exec AP python3 testbed_bpf.py trim p2     # egress
    ip netns exec AP python3 testbed_bpf.py orphan p1 [p2 ...]
    ip netns exec AP python3 testbed_bpf.py lose air --seed 1 10.1.0.2=0.05 [...]
    ip netns exec AP python3 testbed_bpf.py drop p2     # egress
"""

import ctypes
import os
import socket
import struct
import sys
from fractions import Fraction
from typing import List, Optional, Tuple

# --- eBPF (include/uapi/linux/bpf.h) -----------------------------------------

BPF_MAP_CREATE, BPF_MAP_UPDATE_ELEM, BPF_PROG_LOAD = 0, 2, 5
BPF_MAP_TYPE_ARRAY = 2
BPF_PSEUDO_MAP_FD = 1
FUNC_MAP_LOOKUP_ELEM = 1
BPF_PROG_TYPE_SCHED_CLS = 3
BPF_PROG_TYPE_XDP = 6
XDP_PASS = 2
SYS_BPF = {"x86_64": 321, "aarch64": 280, "armv7l": 386, "riscv64": 280,
           "ppc64le": 361, "s390x": 351}
FUNC_SKB_CHANGE_TAIL = 38
TC_ACT_UNSPEC, TC_ACT_OK, TC_ACT_SHOT = -1, 0, 2

# struct __sk_buff offsets
SKB_LEN, SKB_MARK, SKB_DATA, SKB_DATA_END = 0, 8, 76, 80

R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10 = range(11)

# skb->mark of a frame to be lost after the medium ("WF1055")
LOSS_MARK = 0x0FF1055


def insn(code: int, dst: int = 0, src: int = 0, off: int = 0, imm: int = 0) -> bytes:
    return struct.pack("<BBhi", code, dst | (src << 4), off, imm)


def mov_r(dst, src): return insn(0xbf, dst, src)            # ALU64 MOV X
def mov_i(dst, imm): return insn(0xb7, dst, imm=imm)        # ALU64 MOV K
def add_i(dst, imm): return insn(0x07, dst, imm=imm)        # ALU64 ADD K
def add_r(dst, src): return insn(0x0f, dst, src)            # ALU64 ADD X
def mul_i(dst, imm): return insn(0x27, dst, imm=imm)        # ALU64 MUL K
def div_i(dst, imm): return insn(0x37, dst, imm=imm)        # ALU64 DIV K (unsigned)
def ldx_w(dst, src, off): return insn(0x61, dst, src, off)  # u32 load
def ldx_h(dst, src, off): return insn(0x69, dst, src, off)  # u16 load
def be16(dst): return insn(0xdc, dst, imm=16)               # ALU END TO_BE 16
def jgt_r(dst, src, off): return insn(0x2d, dst, src, off)  # JMP JGT X
def jge_r(dst, src, off): return insn(0x3d, dst, src, off)  # JMP JGE X
def jne_i(dst, imm, off): return insn(0x55, dst, off=off, imm=imm)
def jeq32_i(dst, imm, off): return insn(0x16, dst, off=off, imm=imm)  # JMP32 JEQ K
def ja(off): return insn(0x05, off=off)
def call(fn): return insn(0x85, imm=fn)
def stx_w(dst, src, off): return insn(0x63, dst, src, off)  # u32 store
def mov32_r(dst, src): return insn(0xbc, dst, src)          # ALU MOV X
def mov32_i(dst, imm): return insn(0xb4, dst, imm=imm)      # ALU MOV K
def lsh32_i(dst, imm): return insn(0x64, dst, imm=imm)      # ALU LSH K
def rsh32_i(dst, imm): return insn(0x74, dst, imm=imm)      # ALU RSH K
def xor32_r(dst, src): return insn(0xac, dst, src)          # ALU XOR X
def jeq_i(dst, imm, off): return insn(0x15, dst, off=off, imm=imm)
def jne32_i(dst, imm, off): return insn(0x56, dst, off=off, imm=imm)  # JMP32 JNE K
def jge32_r(dst, src, off): return insn(0x3e, dst, src, off)  # JMP32 JGE X (unsigned)
def ld_map_fd(dst, fd):                                     # 16 bytes: two slots
    return insn(0x18, dst, BPF_PSEUDO_MAP_FD, imm=fd) + insn(0)
def exit_(): return insn(0x95)


ETH_P_IP_LE = 0x0008          # htons(ETH_P_IP) as a little-endian u16 load


def _s32(v: int) -> int:
    return v - (1 << 32) if v >= 1 << 31 else v


def _ip_imm(ip: str) -> int:
    """The u32 a little-endian load of the address bytes gives (JMP32 compares
    the low 32 bits with the sign-extended immediate, so any address works)."""
    return _s32(int.from_bytes(socket.inet_aton(ip), "little"))


def _ipv4_head() -> List[bytes]:
    """r6 = ctx; r2 = data; out (the last two insns) unless 34 bytes
    (Ethernet + IPv4 header) are there and the frame is IPv4."""
    return [mov_r(R6, R1), ldx_w(R2, R1, SKB_DATA), ldx_w(R3, R1, SKB_DATA_END),
            mov_r(R4, R2), add_i(R4, 34)]


def _by_address(ips: List[str], blocks: List[List[bytes]], out: List[bytes],
                tail: Optional[List[bytes]] = None) -> bytes:
    """A program that runs blocks[k] for an IPv4 frame from or to ips[k]
    and `out` for any other frame; with a `tail`, each block goes on to it
    (a block's own jumps stay inside it; only the tail may hold a 64-bit
    load: jumps count instructions, and these count entries)."""
    body = [None, ldx_h(R4, R2, 12), None,
            ldx_w(R4, R2, 26),                       # saddr
            ldx_w(R5, R2, 30)]                       # daddr
    compare_at = len(body)
    body += [None] * (2 * len(ips))                 # jeq32 saddr / daddr per station
    out_at = len(body)
    body += out
    starts, to_tail = [], []
    for block in blocks:
        starts.append(len(body))
        body += block
        if tail is not None:
            to_tail.append(len(body))
            body.append(None)
    if tail is not None:
        for at in to_tail:
            body[at] = ja(len(body) - at - 1)
        body += tail
    body[0] = jgt_r(R4, R3, out_at - 1)
    body[2] = jne_i(R4, ETH_P_IP_LE, out_at - 3)
    for n, ip in enumerate(ips):
        for m, reg in enumerate((R4, R5)):
            at = compare_at + 2 * n + m
            body[at] = jeq32_i(reg, _ip_imm(ip), starts[n] - at - 1)
    return b"".join(_ipv4_head() + body)


def pad_program(stations: List[Tuple[str, Fraction]], overhead: int) -> bytes:
    """stations: (IPv4 address, k - 1) pairs; k - 1 > 0 as a fraction."""
    pads = [[ldx_w(R2, R6, SKB_LEN), mov_r(R3, R2), add_i(R3, overhead),
             mul_i(R3, extra.numerator), div_i(R3, extra.denominator),
             add_r(R2, R3), mov_r(R1, R6), mov_i(R3, 0), call(FUNC_SKB_CHANGE_TAIL),
             # Could not grow it (beyond what the kernel allows tc BPF):
             # drop it rather than charge it as a near station's frame.
             jne_i(R0, 0, 2), mov_i(R0, TC_ACT_OK), exit_(),
             mov_i(R0, TC_ACT_SHOT), exit_()]
            for _, extra in stations]
    return _by_address([ip for ip, _ in stations], pads, [mov_i(R0, TC_ACT_OK), exit_()])


def trim_program() -> bytes:
    """Cut a frame longer than Ethernet header + IPv4 total length to it;
    always TC_ACT_UNSPEC, so that the filters after it (the redirect into
    the medium) still run."""
    body = [None, ldx_h(R4, R2, 12), None,
            ldx_h(R2, R2, 16), be16(R2), add_i(R2, 14),
            ldx_w(R3, R6, SKB_LEN), None,
            mov_r(R1, R6), mov_i(R3, 0), call(FUNC_SKB_CHANGE_TAIL)]
    out = len(body)
    body += [mov_i(R0, TC_ACT_UNSPEC), exit_()]
    body[0] = jgt_r(R4, R3, out - 1)
    body[2] = jne_i(R4, ETH_P_IP_LE, out - 3)
    body[7] = jge_r(R2, R3, out - 8)
    return b"".join(_ipv4_head() + body)


def xorshift32(x: int) -> int:
    """One step of the `lose` program's generator (Marsaglia's 13/17/5)."""
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    return x


def loss_seed(seed: int, index: int) -> int:
    """The first state of the index-th lossy station's generator: a
    splitmix32 step of (seed, index), never 0 (xorshift's fixed point)."""
    z = (seed * 0x9E3779B9 + (index + 1) * 0x85EBCA6B) & 0xFFFFFFFF
    z = ((z ^ (z >> 16)) * 0x7FEB352D) & 0xFFFFFFFF
    z = ((z ^ (z >> 15)) * 0x846CA68B) & 0xFFFFFFFF
    z ^= z >> 16
    return z or 1


def loss_threshold(p: float) -> int:
    """A frame is lost when the generator's next number is below this."""
    return min(int(round(p * (1 << 32))), (1 << 32) - 1)


def lost_frames(seed: int, index: int, p: float, frames: int) -> List[bool]:
    """Which of the index-th lossy station's next `frames` frames `lose`
    marks (the tests' reference)."""
    x, t, out = loss_seed(seed, index), loss_threshold(p), []
    for _ in range(frames):
        x = xorshift32(x)
        out.append(x < t)
    return out


def lose_program(stations: List[Tuple[str, float]], map_fd: int) -> bytes:
    """stations: (IPv4 address, loss probability); the index-th one's state
    is the map's index-th u32."""
    # r7: the station's index (the map's key), r8: its threshold.
    which = [[mov_i(R7, k), mov32_i(R8, _s32(loss_threshold(p)))]
             for k, (_, p) in enumerate(stations)]
    xorshift = [mov32_r(R2, R1), lsh32_i(R2, 13), xor32_r(R1, R2),
                mov32_r(R2, R1), rsh32_i(R2, 17), xor32_r(R1, R2),
                mov32_r(R2, R1), lsh32_i(R2, 5), xor32_r(R1, R2)]
    mark = [mov32_i(R1, LOSS_MARK), stx_w(R6, R1, SKB_MARK)]
    after_null = [ldx_w(R1, R0, 0), *xorshift, stx_w(R0, R1, 0),
                  jge32_r(R1, R8, len(mark)), *mark]
    tail = [stx_w(R10, R7, -4), ld_map_fd(R1, map_fd), mov_r(R2, R10), add_i(R2, -4),
            call(FUNC_MAP_LOOKUP_ELEM), jeq_i(R0, 0, len(after_null)), *after_null,
            mov_i(R0, TC_ACT_UNSPEC), exit_()]
    return _by_address([ip for ip, _ in stations], which,
                       [mov_i(R0, TC_ACT_UNSPEC), exit_()], tail)


def drop_program() -> bytes:
    """TC_ACT_SHOT for a frame `lose` marked, TC_ACT_UNSPEC (next filter:
    the redirect into the medium) for any other."""
    return b"".join([ldx_w(R2, R1, SKB_MARK), jne32_i(R2, LOSS_MARK, 2),
                     mov_i(R0, TC_ACT_SHOT), exit_(),
                     mov_i(R0, TC_ACT_UNSPEC), exit_()])


def orphan_program() -> bytes:
    return mov_i(R0, XDP_PASS) + exit_()


def _bpf_nr() -> int:
    nr = SYS_BPF.get(os.uname().machine)
    if nr is None:
        raise OSError(f"bpf(): unknown syscall number on {os.uname().machine}")
    return nr


def _bpf(cmd: int, attr, what: str) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    r = libc.syscall(ctypes.c_long(_bpf_nr()), ctypes.c_int(cmd), attr,
                     ctypes.c_uint(len(attr)))
    if r < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return r


def array_map(values: List[int], name: str) -> int:
    """An array map of u32 values (index -> value), its fd."""
    attr = ctypes.create_string_buffer(72)
    struct.pack_into("<IIIII", attr, 0, BPF_MAP_TYPE_ARRAY, 4, 4, len(values), 0)
    struct.pack_into("<16s", attr, 28, name.encode()[:15])   # map_name
    fd = _bpf(BPF_MAP_CREATE, attr, f"BPF_MAP_CREATE {name}")
    for i, v in enumerate(values):
        key, val = ctypes.c_uint32(i), ctypes.c_uint32(v)
        upd = ctypes.create_string_buffer(32)
        struct.pack_into("<IIQQQ", upd, 0, fd, 0, ctypes.addressof(key),
                         ctypes.addressof(val), 0)
        _bpf(BPF_MAP_UPDATE_ELEM, upd, f"BPF_MAP_UPDATE_ELEM {name}[{i}]")
    return fd


def prog_load(code: bytes, name: str, prog_type: int = BPF_PROG_TYPE_SCHED_CLS) -> int:
    """BPF_PROG_LOAD; the verifier's log in the error."""
    nr = _bpf_nr()
    libc = ctypes.CDLL(None, use_errno=True)
    insns = ctypes.create_string_buffer(code, len(code))
    license = ctypes.create_string_buffer(b"GPL")
    log = ctypes.create_string_buffer(65536)
    attr = ctypes.create_string_buffer(128)
    struct.pack_into("<IIQQIIQII16s", attr, 0, prog_type, len(code) // 8,
                     ctypes.addressof(insns), ctypes.addressof(license), 1, len(log),
                     ctypes.addressof(log), 0, 0, name.encode()[:15])
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(nr), ctypes.c_int(BPF_PROG_LOAD), attr, ctypes.c_uint(128))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"BPF_PROG_LOAD {name}: {os.strerror(err)}: "
                           f"{log.value.decode(errors='replace').strip()[-2000:]}")
    return fd


# --- rtnetlink: a cls_bpf filter in direct-action mode on a clsact hook ------

RTM_NEWTFILTER = 44
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 1, 4, 0x200, 0x400
NLMSG_ERROR = 2
TCA_KIND, TCA_OPTIONS = 1, 2
TCA_BPF_FD, TCA_BPF_NAME, TCA_BPF_FLAGS = 6, 7, 8
TCA_BPF_FLAG_ACT_DIRECT = 1
NLA_F_NESTED = 0x8000
TC_H_CLSACT_INGRESS, TC_H_CLSACT_EGRESS = 0xFFFFFFF2, 0xFFFFFFF3
ETH_P_ALL = 3


def _attr(kind: int, data: bytes) -> bytes:
    a = struct.pack("<HH", 4 + len(data), kind) + data
    return a + b"\0" * (-len(a) % 4)


def _rtnl(msg: bytes, what: str) -> None:
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as s:
        s.settimeout(5)
        s.send(msg)
        reply = s.recv(65536)
    _, kind, _, _, _ = struct.unpack_from("<IHHII", reply)
    if kind != NLMSG_ERROR:
        raise OSError(f"{what}: unexpected netlink reply {kind}")
    err = -struct.unpack_from("<i", reply, 16)[0]
    if err:
        raise OSError(err, f"{what}: {os.strerror(err)}")


def tc_attach(dev: str, fd: int, name: str, egress: bool, prio: int) -> None:
    """`tc filter add dev DEV {egress|ingress} prio PRIO bpf da fd FD` (the
    device needs a clsact qdisc)."""
    ifindex = socket.if_nametoindex(dev)
    opts = (_attr(TCA_BPF_FD, struct.pack("<I", fd)) +
            _attr(TCA_BPF_NAME, name.encode() + b"\0") +
            _attr(TCA_BPF_FLAGS, struct.pack("<I", TCA_BPF_FLAG_ACT_DIRECT)))
    payload = (struct.pack("<BBHiIII", socket.AF_UNSPEC, 0, 0, ifindex, 1,
                           TC_H_CLSACT_EGRESS if egress else TC_H_CLSACT_INGRESS,
                           (prio << 16) | socket.htons(ETH_P_ALL)) +
               _attr(TCA_KIND, b"bpf\0") + _attr(TCA_OPTIONS | NLA_F_NESTED, opts))
    msg = struct.pack("<IHHII", 16 + len(payload), RTM_NEWTFILTER,
                      NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE, 1, 0) + payload
    _rtnl(msg, f"tc filter bpf on {dev}")


# --- rtnetlink: native XDP on a link (`ip link set DEV xdpdrv fd FD`) ---------

RTM_SETLINK = 19
IFLA_XDP, IFLA_XDP_FD, IFLA_XDP_FLAGS = 43, 1, 3
XDP_FLAGS_DRV_MODE = 1 << 2


def xdp_attach(dev: str, fd: int) -> None:
    ifindex = socket.if_nametoindex(dev)
    xdp = (_attr(IFLA_XDP_FD, struct.pack("<i", fd)) +
           _attr(IFLA_XDP_FLAGS, struct.pack("<I", XDP_FLAGS_DRV_MODE)))
    payload = (struct.pack("<BBHiII", socket.AF_UNSPEC, 0, 0, ifindex, 0, 0) +
               _attr(IFLA_XDP | NLA_F_NESTED, xdp))
    msg = struct.pack("<IHHII", 16 + len(payload), RTM_SETLINK,
                      NLM_F_REQUEST | NLM_F_ACK, 1, 0) + payload
    _rtnl(msg, f"xdp on {dev}")


# --- command line (run in the AP namespace) ----------------------------------

def parse_station(text: str) -> Tuple[str, Fraction]:
    ip, _, extra = text.partition("=")
    socket.inet_aton(ip)
    f = Fraction(extra)
    if f <= 0:
        raise ValueError(f"bad extra cost '{text}'")
    return ip, f


def parse_lossy(text: str) -> Tuple[str, float]:
    ip, _, p = text.partition("=")
    socket.inet_aton(ip)
    f = float(p)
    if not 0 <= f < 1:
        raise ValueError(f"bad loss probability '{text}' (0 to below 1)")
    return ip, f


def _take_option(argv: List[str], name: str, default: int) -> Tuple[List[str], int]:
    if name not in argv:
        return argv, default
    i = argv.index(name)
    return argv[:i] + argv[i + 2:], int(argv[i + 1])


def main(argv: List[str]) -> int:
    try:
        if len(argv) >= 3 and argv[0] == "pad":
            argv, overhead = _take_option(argv, "--overhead", 0)
            stations = [parse_station(a) for a in argv[2:]]
            fd = prog_load(pad_program(stations, overhead), "wft_pad")
            # Prio 2: after lose, which marks and lets it run.
            tc_attach(argv[1], fd, "wft_pad", egress=True, prio=2)
        elif len(argv) >= 3 and argv[0] == "lose":
            argv, seed = _take_option(argv, "--seed", 1)
            lossy = [parse_lossy(a) for a in argv[2:]]
            states = [loss_seed(seed, k) for k in range(len(lossy))]
            map_fd = array_map(states, "wft_loss")
            fd = prog_load(lose_program(lossy, map_fd), "wft_lose")
            tc_attach(argv[1], fd, "wft_lose", egress=True, prio=1)
        elif len(argv) == 2 and argv[0] == "drop":
            # Prio 2: after a far station's trim, ahead of the redirect.
            fd = prog_load(drop_program(), "wft_drop")
            tc_attach(argv[1], fd, "wft_drop", egress=True, prio=2)
        elif len(argv) == 2 and argv[0] == "trim":
            # Prio 1: ahead of the redirect into the medium (testbed.py).
            fd = prog_load(trim_program(), "wft_trim")
            tc_attach(argv[1], fd, "wft_trim", egress=True, prio=1)
        elif len(argv) >= 2 and argv[0] == "orphan":
            fd = prog_load(orphan_program(), "wft_orphan", BPF_PROG_TYPE_XDP)
            for dev in argv[1:]:
                xdp_attach(dev, fd)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (OSError, ValueError) as e:
        print(f"testbed_bpf: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
