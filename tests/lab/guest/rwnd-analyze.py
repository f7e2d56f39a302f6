#!/usr/bin/env python3
"""rwnd-analyze.py - one phase of the rwnd scenario, as JSON on stdout.

    rwnd-analyze.py FROM TO GAME_FILE IPERF_JSON...

Per download (iperf3 -R -J, the client's = the receiver's intervals):
the mean goodput over the intervals from FROM to TO s (the first seconds
are slow start and the window's first rounds: warm-up); the total and
Jain's index of them. The game stream (rwnd-game.py recv's file: seq,
sent, received, ns of the shared monotonic clock), the datagrams sent
from FROM to TO s after its first one: inter-arrival times at the
receiver (p50, p95, max), the jitter |inter-arrival - interval| (p95),
the one-way delay (p50, p95, max), its variation (PDV, RFC 5481: delay
- the lowest delay, p95: what a jitter buffer must hold) and the
datagrams lost.
"""
import json
import sys

INTERVAL_S = 0.05


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def goodput(path, t0, t1):
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return None
    ivs = [i["sum"] for i in d.get("intervals", [])
           if i["sum"]["start"] >= t0 - 0.05 and i["sum"]["end"] <= t1 + 0.05]
    secs = sum(i["seconds"] for i in ivs)
    return sum(i["bytes"] * 8 for i in ivs) / secs / 1e6 if secs > 0 else None


def game(path, t0, t1):
    rows = []
    try:
        for line in open(path):
            f = line.split()
            if len(f) == 3:
                rows.append(tuple(int(x) for x in f))
    except OSError:
        pass
    if not rows:
        return {"game_received": 0}
    first = min(r[1] for r in rows)
    seqs = [r[0] for r in rows]
    lo_seq, hi_seq = min(seqs), max(seqs)
    win = [r for r in rows if t0 <= (r[1] - first) / 1e9 <= t1]
    win.sort(key=lambda r: r[2])
    ia = [(b[2] - a[2]) / 1e6 for a, b in zip(win, win[1:])]
    delay = [(r[2] - r[1]) / 1e6 for r in win]
    jit = [abs(x - INTERVAL_S * 1e3) for x in ia]
    got = set(seqs)
    # (by schedule: a datagram never received has no sent time)
    expected = [s for s in range(lo_seq, hi_seq + 1)
                if t0 + INTERVAL_S / 2 <= s * INTERVAL_S <= t1 - INTERVAL_S / 2]
    r3 = lambda x: None if x is None else round(x, 2)  # noqa: E731
    return {
        "game_received": len(win),
        "game_lost": len([s for s in expected if s not in got]),
        "game_ia_p50_ms": r3(pct(ia, 50)), "game_ia_p95_ms": r3(pct(ia, 95)),
        "game_ia_max_ms": r3(max(ia) if ia else None),
        "game_jitter_p95_ms": r3(pct(jit, 95)),
        "game_delay_p50_ms": r3(pct(delay, 50)), "game_delay_p95_ms": r3(pct(delay, 95)),
        "game_delay_max_ms": r3(max(delay) if delay else None),
        "game_pdv_p95_ms": r3(pct([x - min(delay) for x in delay], 95) if delay else None),
    }


def main():
    t0, t1, gfile, files = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4:]
    rates = [goodput(f, t0, t1) for f in files]
    r = {"from_s": t0, "to_s": t1, "flow_mbps": [None if x is None else round(x, 3) for x in rates]}
    if all(x is not None for x in rates) and sum(rates) > 0:
        r["total_mbps"] = round(sum(rates), 3)
        r["jain"] = round(sum(rates) ** 2 / (len(rates) * sum(x * x for x in rates)), 4)
    else:
        r["total_mbps"] = r["jain"] = None
    r.update(game(gfile, t0, t1))
    json.dump(r, sys.stdout)
    print()


if __name__ == "__main__":
    main()
