#!/usr/bin/env python3
"""apd-analyze.py PHASE NEAR.json FAR.json [SKIP]: one phase of the apd
scenario -> JSON on stdout.

NEAR.json and FAR.json are 'iperf3 -c ... -J --get-server-output' of the
two uploads, started together.  Per-second goodput is the SERVER's
(receiver's) interval bytes: what arrived, not what the sender queued.
Interval i of both runs covers the same second within the few ms between
the two clients' starts.

Output: per-second Mbit/s of both, Jain's index per second and of 10 s
windows (of the two stations' mean goodput in the window), the phase's
mean goodputs and their Jain (after SKIP s of slow start, default 3), the
Jain of the last 20 s, and the time to converge: for a threshold J, the
first second t such that the windows ending at t and at each of the 5 s
after it all have Jain >= J.  None when that never happens.

Why 10 s windows and a 5 s hold (measured, lab runs of 2026-11-25): one
second of one upload under emulation varies by +-30 %, so 1 s Jain says
little; 5 s windows of a converged share+delay run still dip to 0.93
(its integral delay step moves with that noise), 10 s windows stay above
0.969.  pi cannot converge before its first period ends (20 s) plus a
window of data after its first delay, share does within 10-15 s.
"""
import json
import sys

WIN = 10     # s, the window of goodput means whose Jain is taken
HOLD = 5     # s, how long the windowed Jain must stay at or above J
LAST = 20    # s, the final window of a phase


def jain(xs):
    s = sum(xs)
    q = sum(x * x for x in xs)
    return (s * s) / (len(xs) * q) if q > 0 else None


def series(path):
    d = json.load(open(path))
    srv = d.get('server_output_json') or {}
    ivs = srv.get('intervals') or d.get('intervals') or []
    out = []
    for iv in ivs:
        s = iv['sum']
        # whole seconds only: the last, partial interval is dropped
        if s.get('seconds', 0) >= 0.9:
            out.append(s['bytes'] * 8 / s['seconds'] / 1e6)
    err = d.get('error')
    return out, err, d


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def converge(near, far, thr):
    n = min(len(near), len(far))
    wj = {}
    for t in range(WIN, n + 1):
        wj[t] = jain([mean(near[t - WIN:t]), mean(far[t - WIN:t])])
    for t in range(WIN, n + 1):
        ts = [u for u in range(t, min(t + HOLD, n) + 1)]
        if t + HOLD > n:
            return None   # not enough run left to see it hold
        if all(wj[u] is not None and wj[u] >= thr for u in ts):
            return t
    return None


def main():
    phase, near_p, far_p = sys.argv[1:4]
    skip = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    near, near_err, nd = series(near_p)
    far, far_err, fd = series(far_p)
    n = min(len(near), len(far))
    near, far = near[:n], far[:n]
    r = {'phase': phase, 'seconds': n,
         'near_mbps': [round(x, 3) for x in near],
         'far_mbps': [round(x, 3) for x in far],
         'jain_per_s': [round(jain([a, b]), 4) if jain([a, b]) is not None else None
                        for a, b in zip(near, far)],
         'errors': [e for e in (near_err, far_err) if e]}
    body_n, body_f = near[skip:], far[skip:]
    if body_n and body_f:
        mn, mf = mean(body_n), mean(body_f)
        r.update(near_mean_mbps=round(mn, 3), far_mean_mbps=round(mf, 3),
                 total_mean_mbps=round(mn + mf, 3),
                 jain=round(jain([mn, mf]), 4))
    if n >= LAST:
        ln, lf = mean(near[-LAST:]), mean(far[-LAST:])
        r.update(last20_near_mbps=round(ln, 3), last20_far_mbps=round(lf, 3),
                 jain_last20=round(jain([ln, lf]), 4))
    r['windowed_jain'] = [round(jain([mean(near[t - WIN:t]), mean(far[t - WIN:t])]), 4)
                          for t in range(WIN, n + 1)]
    if r['windowed_jain']:
        r['jain_best_window'] = max(r['windowed_jain'])
    for thr in (0.9, 0.95, 0.97):
        r[f't_converge_{int(thr * 100)}_s'] = converge(near, far, thr)
    for who, d in (('near', nd), ('far', fd)):
        try:
            r[f'{who}_cc'] = d['end']['sender_tcp_congestion']
            r[f'{who}_retransmits'] = d['end']['sum_sent']['retransmits']
            r[f'{who}_mean_rtt_ms'] = round(d['end']['streams'][0]['sender']['mean_rtt'] / 1000, 1)
        except (KeyError, IndexError, TypeError):
            pass
    json.dump(r, sys.stdout)
    print()


if __name__ == '__main__':
    main()
