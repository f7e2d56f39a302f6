#!/usr/bin/env python3
"""Throughput inside and outside scan windows, from the harness's own data.

Inputs (all on the guest's realtime clock):
  --samples CSV   't,rx_bytes,tx_bytes' of the station interface (rate.py)
  --events FILE   'iw event -t' output (the kernel's nl80211 scan events)
  --window A,B    the traffic's start and end (unix seconds)
  --bin S         bin width (default 0.5 s)
  --journal FILE  wlanfair-scand's journal ('journalctl -o short-unix'):
                  where it says beacon loss, the guard allows scans by
                  design until it suppresses bgscan again; scans starting
                  there are excused (scans_started_unexcused), and the rest
                  of the window is what the guard held (guarded_s)
Prints one JSON object: scans that started inside the window, each scan's
[start, end], and the mean rx+tx Mbit/s of the bins that overlap a scan
window and of the bins that do not (the dip is their ratio).
"""
import argparse
import json
import re
import sys

EV = re.compile(r'^(\d+\.\d+): (\S+) \(phy #\d+\): scan (started|finished|aborted)(?::\s*([\d ]+))?')


def scans(path, ifname):
    out, cur = [], None
    for line in open(path, errors='replace'):
        m = EV.match(line)
        if not m or m.group(2) != ifname:
            continue
        t, what = float(m.group(1)), m.group(3)
        if what == 'started':
            if cur is not None:          # a start without an end: close it here
                out.append({'start': cur, 'end': t, 'outcome': 'unknown'})
            cur = t
        elif cur is not None:
            out.append({'start': cur, 'end': t, 'outcome': 'done' if what == 'finished' else 'aborted',
                        'channels': len((m.group(4) or '').split())})
            cur = None
    if cur is not None:
        out.append({'start': cur, 'end': None, 'outcome': 'running'})
    return out


JOURNAL = re.compile(r'^(\d+\.\d+) \S+ \S+: (\S+): (beacon loss: scans allowed|bgscan suppressed on)')


def excused(path, ifname, t1):
    """[(start, end)]: from each beacon loss the guard reports to its next
    suppression of bgscan (t1 if none)."""
    out, cur = [], None
    with open(path, errors='replace') as f:
        lines = f.readlines()
    for line in lines:
        m = JOURNAL.match(line)
        if not m or m.group(2).rstrip(':') != ifname:
            continue
        t = float(m.group(1))
        if m.group(3).startswith('beacon'):
            cur = t if cur is None else cur
        elif cur is not None:
            out.append((cur, t))
            cur = None
    if cur is not None:
        out.append((cur, max(t1, cur)))
    return out


def overlap_s(windows, a, b):
    return sum(max(0.0, min(we, b) - max(ws, a)) for ws, we in windows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--samples', required=True)
    ap.add_argument('--events', required=True)
    ap.add_argument('--window', required=True)
    ap.add_argument('--ifname', default='wlan1')
    ap.add_argument('--bin', type=float, default=0.5)
    ap.add_argument('--skip', type=float, default=0.0,
                    help='ignore scans starting in the first SKIP s of the window (reaction time)')
    ap.add_argument('--journal')
    a = ap.parse_args()
    t0, t1 = (float(x) for x in a.window.split(','))
    rows = []
    for line in open(a.samples):
        p = line.strip().split(',')
        if len(p) == 3 and p[0][0].isdigit():
            rows.append((float(p[0]), int(p[1]), int(p[2])))
    sc = scans(a.events, a.ifname)
    during = [s for s in sc if t0 + a.skip <= s['start'] <= t1]
    overlap = [s for s in sc if s['start'] <= t1 and (s['end'] is None or s['end'] >= t0)]
    windows = [(s['start'], s['end'] if s['end'] is not None else t1) for s in sc]
    inside, outside = [], []
    # Bins: consecutive samples inside the traffic window, rate over each.
    for (ta, ra, xa), (tb, rb, xb) in zip(rows, rows[1:]):
        if ta < t0 + 1.0 or tb > t1 or tb <= ta:   # skip slow start
            continue
        mbps = ((rb - ra) + (xb - xa)) * 8 / (tb - ta) / 1e6
        hit = any(ws < tb and we > ta for ws, we in windows)
        (inside if hit else outside).append(mbps)
    mean = lambda v: round(sum(v) / len(v), 3) if v else None
    res = {
        'window': [t0, t1], 'scans_total': len(sc),
        'scans_started_in_traffic': len(during),
        'scan_starts_in_traffic': [round(s['start'] - t0, 2) for s in during],
        'scans_per_min_in_traffic': round(len(during) * 60 / (t1 - t0 - a.skip), 2) if t1 - t0 > a.skip else None,
        # Of the scans that overlap the window; the frequencies iw lists at
        # a scan's end are what it covered.
        'scans_aborted': sum(s['outcome'] == 'aborted' for s in overlap),
        'scan_channels_max': max((s.get('channels', 0) for s in overlap), default=0),
        'scan_durations_s': [round(s['end'] - s['start'], 3) for s in sc if s['end']],
        'bins_in_scan': len(inside), 'bins_outside': len(outside),
        'mbps_in_scan': mean(inside), 'mbps_outside': mean(outside),
        'min_bin_mbps': round(min(inside + outside), 3) if inside + outside else None,
    }
    if a.journal:
        ex = excused(a.journal, a.ifname, t1)
        free = [s for s in during if not any(ws <= s['start'] <= we for ws, we in ex)]
        res['excused'] = [[round(ws - t0, 2), round(we - t0, 2)] for ws, we in ex
                          if we >= t0 + a.skip and ws <= t1]
        res['scans_started_unexcused'] = len(free)
        res['unexcused_starts'] = [round(s['start'] - t0, 2) for s in free]
        res['guarded_s'] = round(max(0.0, t1 - t0 - a.skip - overlap_s(ex, t0 + a.skip, t1)), 2)
    res['dip_ratio'] = (round(res['mbps_in_scan'] / res['mbps_outside'], 3)
                        if res['mbps_in_scan'] is not None and res['mbps_outside'] else None)
    json.dump(res, sys.stdout)
    print()


if __name__ == '__main__':
    main()
