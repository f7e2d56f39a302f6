#!/usr/bin/env python3
"""recv-sampler.py NETNS PORT OUT: every 50 ms, the bytes_received (tcp_info)
of the TCP sockets (IPv4 and IPv6) on local PORT in network namespace
NETNS, kept in memory and written to OUT as JSON lines when SIGTERM ends
it:
    {"t": <unix time of the dump>, "d": <seconds it took>,
     "b": {"<socket cookie>": bytes, ...}}
One process and one sock_diag socket for the whole run (testbed_sockdiag,
copied beside it): t is the dump's midpoint on the guest's clock, d how
long it took ('ss' per sample gave 43-94 samples in a run where this
gives 230-540). Two emulated VMs side by side: d had a median of 9-14 ms,
a 99th percentile of 0.6 s and a maximum of 2.4 s in two runs, so the
check leaves out the slow ones. Nothing is written while sampling: with a line per
sample on the lab's 9p share, the loop's gaps fell around the reports'
instants in one run. Gaps of 0.2-1.3 s remain with two emulated VMs
side by side, even at real-time priority; reporter-check.py trims runs
of spans at them."""
import json
import os
import signal
import socket
import sys
import time

from testbed_sockdiag import dump_tcp, socket_in_netns

PERIOD_S = 0.05


class Stop(Exception):
    pass


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    ns, port, out = argv[1], int(argv[2]), argv[3]
    sock = socket_in_netns(ns)
    lines = []
    # Real-time, so that the samples keep their pace beside iperf3 and the
    # daemons (about 1 ms of work in 50); without it, still samples.
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except OSError as e:
        print(f"recv-sampler: no SCHED_FIFO ({e}): normal priority", file=sys.stderr)

    def stop(*_):
        raise Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        nxt = time.monotonic()
        while True:
            a = time.time()
            # Both families: iperf3 -s listens on :: and takes IPv4 clients there.
            got = {str(cookie): b for family in (socket.AF_INET, socket.AF_INET6)
                   for cookie, lport, _, _, b in dump_tcp(sock, family) if lport == port}
            b = time.time()
            lines.append(json.dumps({"t": round((a + b) / 2, 6), "d": round(b - a, 6), "b": got}))
            nxt += PERIOD_S
            time.sleep(max(0.0, nxt - time.monotonic()))
    except Stop:
        pass
    finally:
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv)
