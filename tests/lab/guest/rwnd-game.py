#!/usr/bin/env python3
"""rwnd-game.py - the rwnd scenario's game stream: small UDP datagrams
sent every INTERVAL seconds, as a game server sends its state updates.

    rwnd-game.py send ADDR PORT SECONDS [INTERVAL] [SIZE]
    rwnd-game.py recv PORT SECONDS OUTFILE

Each datagram carries its sequence number and the sender's
CLOCK_MONOTONIC (ns); the receiver writes "seq sent_ns received_ns" per
datagram. Every network namespace of the VM reads the same monotonic
clock, so received - sent is the one-way delay. The sender keeps to an
absolute schedule (t0 + k x INTERVAL), so a late wake-up does not shift
every later datagram; how late it woke up is in the sent time, and the
delay does not count it.
"""
import socket
import struct
import sys
import time

FMT = "!IQ"


def send(addr, port, seconds, interval=0.05, size=120):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    pad = b"\0" * max(0, size - struct.calcsize(FMT))
    t0 = time.monotonic()
    k = 0
    while True:
        due = t0 + k * interval
        if due - t0 > seconds:
            break
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        s.sendto(struct.pack(FMT, k, time.monotonic_ns()) + pad, (addr, port))
        k += 1
    print("sent %d" % k, flush=True)


def recv(port, seconds, outfile):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    end = time.monotonic() + seconds
    with open(outfile, "w") as out:
        print("ready", flush=True)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            s.settimeout(left)
            try:
                data = s.recv(2048)
            except socket.timeout:
                break
            now = time.monotonic_ns()
            if len(data) < struct.calcsize(FMT):
                continue
            seq, sent = struct.unpack_from(FMT, data)
            out.write("%d %d %d\n" % (seq, sent, now))


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]),
             *(float(x) for x in sys.argv[5:6]), *(int(x) for x in sys.argv[6:7]))
    elif len(sys.argv) == 5 and sys.argv[1] == "recv":
        recv(int(sys.argv[2]), float(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(__doc__)
