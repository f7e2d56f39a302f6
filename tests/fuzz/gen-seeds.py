#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the binary seeds of two fuzz targets (run it from anywhere; it
rewrites the files it owns and nothing else):

  corpus-carried/*.bin      frames for fuzz-carried.c: 2 bytes ethertype,
                            2 bytes of wire length beyond the capture, then
                            the frame from the network header on
  corpus-rwnd-policy/*.bin  inputs for fuzz-rwnd-policy.c: a policy name,
                            a newline, capacity and other load (doubles),
                            then flows (4 doubles, active, station, MSS)
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = 7455
REPORT = b'{"v":1,"host":"sta1","seq":1}'


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def udp(payload, dport=PORT, sport=40000, length=None):
    return struct.pack("!HHHH", sport, dport, length or 8 + len(payload), 0) + payload


def ipv4(l4, proto=17, options=b"", flags_frag=0x4000, total=None):
    ihl = 5 + len(options) // 4
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, total or 4 * ihl + len(l4), 1, flags_frag,
                      64, proto, 0, bytes([192, 0, 2, 10]), bytes([192, 0, 2, 1])) + options
    hdr = hdr[:10] + struct.pack("!H", checksum(hdr)) + hdr[12:]
    return hdr + l4


def ipv6(l4, nh=17, plen=None, ext=b""):
    src = bytes.fromhex("20010db8000000000000000000000010")
    dst = bytes.fromhex("20010db8000000000000000000000001")
    return struct.pack("!IHBB", 6 << 28, plen if plen is not None else len(ext) + len(l4),
                       nh, 64) + src + dst + ext + l4


def frame(ethertype, pkt, extra=0):
    return struct.pack("!HH", ethertype, extra) + pkt


def carried():
    u = udp(REPORT)
    vlan = struct.pack("!HH", 0x0064, 0x0800)  # VID 100, then IPv4
    return {
        "ipv4-report": frame(0x0800, ipv4(u)),
        # Record route (7) padded by an end-of-options: IHL 7.
        "ipv4-options": frame(0x0800, ipv4(u, options=bytes([7, 7, 4, 0, 0, 0, 0, 0]))),
        "ipv4-first-fragment": frame(0x0800, ipv4(u, flags_frag=0x2000)),
        "ipv4-later-fragment": frame(0x0800, ipv4(REPORT[8:], flags_frag=0x0003)),
        "ipv4-tcp": frame(0x0800, ipv4(b"\0" * 20, proto=6)),
        "ipv4-other-port": frame(0x0800, ipv4(udp(REPORT, dport=53))),
        "ipv4-padded": frame(0x0800, ipv4(u) + b"\0" * 6),  # Ethernet pads to 60
        "ipv4-truncated": frame(0x0800, ipv4(udp(REPORT * 20))[:120], extra=480),
        "ipv4-udp-length-lies": frame(0x0800, ipv4(udp(REPORT, length=4000))),
        "ipv4-total-too-long": frame(0x0800, ipv4(u, total=1500)),
        "ipv6-report": frame(0x86DD, ipv6(u)),
        # Hop-by-hop (0) with PadN: not followed, "other".
        "ipv6-hop-by-hop": frame(0x86DD, ipv6(u, nh=0, ext=bytes([17, 0, 1, 4, 0, 0, 0, 0]))),
        # A fragment header (44): not followed either.
        "ipv6-fragment": frame(0x86DD, ipv6(u, nh=44, ext=bytes([17, 0, 0, 1, 0, 0, 0, 1]))),
        "ipv6-jumbo": frame(0x86DD, ipv6(u, plen=0)),
        "ipv6-truncated": frame(0x86DD, ipv6(udp(REPORT * 20))[:100], extra=600),
        "vlan-ipv4": frame(0x8100, vlan + ipv4(u)),
        "qinq-ipv4": frame(0x88A8, struct.pack("!HH", 0x00C8, 0x8100) + vlan + ipv4(u)),
        "arp": frame(0x0806, bytes(28)),
        "short": frame(0x0800, b"\x45\x00"),
    }


def flows(policy, capacity, other, rows):
    out = policy.encode() + b"\n" + struct.pack("<dd", capacity, other)
    for rtt, base, standing, station_bps, active, station, mss in rows:
        out += struct.pack("<ddddBBI", rtt, base, standing, station_bps, active, station, mss)
    return out


def rwnd():
    two = [(0.020, 0.010, 0.015, 5e6, 1, 0, 1460), (0.200, 0.050, 0.100, 5e6, 1, 1, 1448)]
    odd = [(float("nan"), -1, float("inf"), float("nan"), 1, 0, 0),
           (1e-300, 1e-300, 0, 1e300, 1, 0, 0xFFFFFFFF), (0, 0, 0, 0, 0, 2, 536)]
    return {
        "station": flows("station", 0, 0, two),
        "equal": flows("equal", 19e6, 1e6, two),
        "rtt-fair": flows("rtt-fair", 19e6, 0, two),
        "rtt-fair-idle": flows("rtt-fair", 19e6, 0, [(r[0], r[1], r[2], r[3], 0, r[5], r[6])
                                                     for r in two]),
        "equal-odd-values": flows("equal", float("inf"), float("nan"), odd),
        "station-odd-values": flows("station", 0, 0, odd),
        "other-above-capacity": flows("rtt-fair", 1e6, 5e6, two),
        "no-flows": flows("equal", 19e6, 0, []),
        "unknown-policy": b"rtt_fair\n" + bytes(16),
        "name-only": b"station",
    }


for sub, seeds in (("corpus-carried", carried()), ("corpus-rwnd-policy", rwnd())):
    os.makedirs(os.path.join(HERE, sub), exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(HERE, sub, name + ".bin"), "wb") as f:
            f.write(data)
