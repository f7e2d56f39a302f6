"""BPF programs for the testbed, assembled here and attached with
rtnetlink (Python's standard library only: no clang, no libbpf, no bpffs):
two tc programs for far stations and an XDP one for deep station queues.

  pad   on the medium's ifb (clsact egress, before the HTB): a frame from
        or to a far station's address grows by (k - 1) x (its length +
        the per-frame overhead), so that the HTB, which charges bytes,
        charges it k times a near station's frame of the same size;
  trim  on a far station's bridge port, where frames come back from the
        medium (clsact egress: downstream; clsact ingress: upstream, so
        that the AP's own qdiscs and ifbs on the bridge count the real
        length): back to the Ethernet header plus the IPv4 total length.
        It runs ahead of the port's redirect into the medium and lets it
        run (TC_ACT_UNSPEC: next filter), so it must be a no-op on frames
        on their way into the medium (never padded yet).

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
    ip netns exec AP python3 testbed_bpf.py trim p2     # egress and ingress
    ip netns exec AP python3 testbed_bpf.py orphan p1 [p2 ...]
"""

import ctypes
import os
import socket
import struct
import sys
from fractions import Fraction
from typing import List, Tuple

# --- eBPF (include/uapi/linux/bpf.h) -----------------------------------------

BPF_PROG_LOAD = 5
BPF_PROG_TYPE_SCHED_CLS = 3
BPF_PROG_TYPE_XDP = 6
XDP_PASS = 2
SYS_BPF = {"x86_64": 321, "aarch64": 280, "armv7l": 386, "riscv64": 280,
           "ppc64le": 361, "s390x": 351}
FUNC_SKB_CHANGE_TAIL = 38
TC_ACT_UNSPEC, TC_ACT_OK, TC_ACT_SHOT = -1, 0, 2

# struct __sk_buff offsets
SKB_LEN, SKB_DATA, SKB_DATA_END = 0, 76, 80

R0, R1, R2, R3, R4, R5, R6 = range(7)


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


def pad_program(stations: List[Tuple[str, Fraction]], overhead: int) -> bytes:
    """stations: (IPv4 address, k - 1) pairs; k - 1 > 0 as a fraction."""
    tests, pads = [], []
    for ip, extra in stations:
        tests.append((ip, len(pads)))
        pads.append(extra)
    head = _ipv4_head()
    # body, with the two jumps to `out` patched once its place is known
    body = [None, ldx_h(R4, R2, 12), None,
            ldx_w(R4, R2, 26),                       # saddr
            ldx_w(R5, R2, 30)]                       # daddr
    compare_at = len(body)
    body += [None] * (2 * len(tests))               # jeq32 saddr / daddr per station
    out = len(body)
    body += [mov_i(R0, TC_ACT_OK), exit_()]
    pad_at = []
    for extra in pads:
        pad_at.append(len(body))
        body += [ldx_w(R2, R6, SKB_LEN), mov_r(R3, R2), add_i(R3, overhead),
                 mul_i(R3, extra.numerator), div_i(R3, extra.denominator),
                 add_r(R2, R3), mov_r(R1, R6), mov_i(R3, 0), call(FUNC_SKB_CHANGE_TAIL),
                 # Could not grow it (beyond what the kernel allows tc BPF):
                 # drop it rather than charge it as a near station's frame.
                 jne_i(R0, 0, 2), mov_i(R0, TC_ACT_OK), exit_(),
                 mov_i(R0, TC_ACT_SHOT), exit_()]
    body[0] = jgt_r(R4, R3, out - 1)
    body[2] = jne_i(R4, ETH_P_IP_LE, out - 3)
    for n, (ip, which) in enumerate(tests):
        for m, reg in enumerate((R4, R5)):
            at = compare_at + 2 * n + m
            body[at] = jeq32_i(reg, _ip_imm(ip), pad_at[which] - at - 1)
    return b"".join(head + body)


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


def orphan_program() -> bytes:
    return mov_i(R0, XDP_PASS) + exit_()


def prog_load(code: bytes, name: str, prog_type: int = BPF_PROG_TYPE_SCHED_CLS) -> int:
    """BPF_PROG_LOAD; the verifier's log in the error."""
    nr = SYS_BPF.get(os.uname().machine)
    if nr is None:
        raise OSError(f"bpf(): unknown syscall number on {os.uname().machine}")
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


def main(argv: List[str]) -> int:
    try:
        if len(argv) >= 3 and argv[0] == "pad":
            overhead = 0
            if "--overhead" in argv:
                i = argv.index("--overhead")
                overhead = int(argv[i + 1])
                argv = argv[:i] + argv[i + 2:]
            stations = [parse_station(a) for a in argv[2:]]
            fd = prog_load(pad_program(stations, overhead), "wft_pad")
            tc_attach(argv[1], fd, "wft_pad", egress=True, prio=1)
        elif len(argv) == 2 and argv[0] == "trim":
            # Prio 1: ahead of the redirect into the medium (testbed.py).
            fd = prog_load(trim_program(), "wft_trim")
            tc_attach(argv[1], fd, "wft_trim", egress=True, prio=1)
            tc_attach(argv[1], fd, "wft_trim", egress=False, prio=1)
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
