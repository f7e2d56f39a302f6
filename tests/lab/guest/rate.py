#!/usr/bin/env python3
"""rate.py IFACE PERIOD SECONDS: print 't,rx_bytes,tx_bytes' every PERIOD s
for SECONDS s (realtime clock, the same one 'iw event -t' stamps with)."""
import sys
import time

ifname, period, total = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
base = f'/sys/class/net/{ifname}/statistics/'
end = time.time() + total
nxt = time.time()
print('t,rx_bytes,tx_bytes', flush=True)
while time.time() < end:
    try:
        rx = int(open(base + 'rx_bytes').read())
        tx = int(open(base + 'tx_bytes').read())
        print(f'{time.time():.3f},{rx},{tx}', flush=True)
    except OSError:
        pass
    nxt += period
    time.sleep(max(0.0, nxt - time.time()))
