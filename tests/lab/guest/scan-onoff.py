#!/usr/bin/env python3
"""One phase of the scan scenario's on/off mode (SCAN_PHASES=onoff): real
scans against trafgen's transfers and the guard's bgscan writes.

Inputs (all on the guest's realtime clock):
  --records JSONL  trafgen master's records (start_wall: the station's
                   time.time() at connect(), fct_s)
  --events FILE    'iw event -t' output (the kernel's nl80211 scan events)
  --journal FILE   'journalctl -o short-unix -u wlanfair-scand' (the
                   guard's "bgscan suppressed/restored" lines; empty or
                   missing: no guard in this phase)
  --window A,B     the phase's start and end (unix seconds)
  --holdoff S      the guard's idle hold-off of this phase (none: no guard)
Prints one JSON object: per-minute transition rate (suppress + restore
writes), scans started in the phase and during transfers, transfers during
which a scan started or ran, the transfer seconds spent inside scans and
with scans allowed (bgscan not ""), aborted scans, FCTs; and the phase's
timeline (seconds from A) for the picture.
"""
import argparse
import importlib.util
import json
import os
import re
import statistics
import sys

WRITE = re.compile(r'^(\d+\.\d+) \S+ \S+: (\S+): bgscan (suppressed|restored) on \S+: "(.*)" -> "(.*)" \((.*)\)\s*$')
BEACON = re.compile(r'^(\d+\.\d+) .*: beacon loss: scans allowed')


def load_scans():
    """scans() of scan-dips.py beside this file: the same reading of 'iw
    event -t' as the scenario's other figures."""
    spec = importlib.util.spec_from_file_location(
        "scan_dips", os.path.join(os.path.dirname(os.path.abspath(__file__)), "scan-dips.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.scans


def writes_of(path, ifname):
    """[(t, value written)] of the guard's bgscan writes, and beacon-loss times."""
    out, beacons = [], []
    try:
        f = open(path, errors="replace")
    except OSError:
        return out, beacons
    with f:
        for line in f:
            m = WRITE.match(line)
            if m and m.group(2) == ifname:
                out.append((float(m.group(1)), m.group(5)))
                continue
            m = BEACON.match(line)
            if m:
                beacons.append(float(m.group(1)))
    return out, beacons


def allowed_intervals(writes, t0, t1):
    """[(a, b)] within [t0, t1] where bgscan was not "" (scans allowed):
    allowed before the first write (the phase starts idle, bgscan forced)."""
    out, state, since = [], True, t0
    for t, value in writes:
        now = value != ""
        if t < t0:
            state = now
            continue
        if t > t1:
            break
        if state and not now:
            out.append((since, t))
        if now and not state:
            since = t
        state = now
    if state:
        out.append((since, t1))
    return out


def overlap(a, b, intervals):
    return sum(max(0.0, min(b, z) - max(a, s)) for s, z in intervals)


def r3(x):
    return None if x is None else round(x, 3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("--journal", default="")
    ap.add_argument("--window", required=True)
    ap.add_argument("--holdoff", default="none")
    ap.add_argument("--ifname", default="wlan1")
    a = ap.parse_args()
    t0, t1 = (float(x) for x in a.window.split(","))
    minutes = (t1 - t0) / 60
    recs = []
    with open(a.records) as f:
        for line in f:
            if line.strip():
                recs.append(json.loads(line))
    recs.sort(key=lambda r: r["start_wall"])
    tr = [(r["start_wall"], r["start_wall"] + r["fct_s"]) for r in recs]
    sc = load_scans()(a.events, a.ifname)
    sc = [s for s in sc if s["start"] <= t1 and (s["end"] is None or s["end"] >= t0)]
    started = [s for s in sc if t0 <= s["start"] <= t1]
    win = [(s["start"], s["end"] if s["end"] is not None else t1) for s in sc]
    writes, beacons = writes_of(a.journal, a.ifname) if a.journal else ([], [])
    inw = [(t, v) for t, v in writes if t0 <= t <= t1]
    allowed = allowed_intervals(writes, t0, t1)

    per = []
    for (s, e), r in zip(tr, recs):
        starts_in = [x for x in started if s <= x["start"] <= e]
        per.append({
            "scan_started": len(starts_in),
            "in_scan_s": overlap(s, e, win),
            "allowed_s": overlap(s, e, allowed),
            "start_allowed": overlap(s, s + 1e-3, allowed) > 0,
        })
    transfer_s = sum(e - s for s, e in tr)
    in_tr = sum(p["scan_started"] for p in per)
    fct = [r["fct_s"] for r in recs]
    hit = [r["fct_s"] for r, p in zip(recs, per) if p["in_scan_s"] > 0]
    clean = [r["fct_s"] for r, p in zip(recs, per) if p["in_scan_s"] == 0]
    gaps = [b[0] - a_[1] for a_, b in zip(tr, tr[1:])]
    h = None if a.holdoff in ("", "none") else float(a.holdoff)
    # the guard's delays: a suppression after the latest transfer start, a
    # restore after the latest transfer end (the hold-off plus detection)
    react = [t - max(s for s, _ in tr if s <= t) for t, v in inw if v == "" and any(s <= t for s, _ in tr)]
    restore = [t - max(e for _, e in tr if e <= t) for t, v in inw if v != "" and any(e <= t for _, e in tr)]
    res = {
        "holdoff_s": h, "window": [t0, t1], "seconds": round(t1 - t0, 2),
        "transfers": len(recs), "complete": sum(bool(r.get("complete")) for r in recs),
        "transfer_total_s": round(transfer_s, 3),
        "gaps_s": [round(g, 3) for g in gaps],
        "gaps_over_holdoff": None if h is None else sum(1 for g in gaps if g > h),
        # the guard's writes (its journal): suppress ("") and restore
        "suppressions": sum(1 for _, v in inw if v == ""),
        "restores": sum(1 for _, v in inw if v != ""),
        "transitions": len(inw),
        "transitions_per_min": r3(len(inw) / minutes) if minutes > 0 else None,
        "beacon_losses": sum(1 for t in beacons if t0 <= t <= t1),
        "suppress_after_start_s": [round(x, 3) for x in react],
        "restore_after_end_s": [round(x, 3) for x in restore],
        "restore_after_end_median_s": r3(statistics.median(restore)) if restore else None,
        # real scans ('iw event')
        "scans_started": len(started),
        "scans_per_min": r3(len(started) / minutes) if minutes > 0 else None,
        "scans_aborted": sum(1 for s in started if s["outcome"] == "aborted"),
        "scan_durations_s": [round(s["end"] - s["start"], 3) for s in started if s["end"]],
        "scans_started_in_transfers": in_tr,
        "scans_in_transfers_per_transfer_min": r3(in_tr * 60 / transfer_s) if transfer_s > 0 else None,
        "transfers_with_scan_start": sum(1 for p in per if p["scan_started"]),
        "transfers_overlapping_scan": sum(1 for p in per if p["in_scan_s"] > 0),
        "transfer_s_in_scan": r3(sum(p["in_scan_s"] for p in per)),
        "starts_allowed": sum(1 for p in per if p["start_allowed"]),
        "transfer_s_allowed": r3(sum(p["allowed_s"] for p in per)),
        "fct_median_s": r3(statistics.median(fct)) if fct else None,
        "fct_mean_s": r3(statistics.mean(fct)) if fct else None,
        "fct_mean_overlapping_scan_s": r3(statistics.mean(hit)) if hit else None,
        "fct_mean_clear_s": r3(statistics.mean(clean)) if clean else None,
        # the timeline, seconds from the phase's start
        "transfer_starts_s": [round(s - t0, 3) for s, _ in tr],
        "transfer_s": [round(e - s, 3) for s, e in tr],
        "scans_s": [[round(s["start"] - t0, 3), round((s["end"] if s["end"] is not None else t1) - t0, 3),
                     s["outcome"]] for s in sc],
        "writes_s": [[round(t - t0, 3), v] for t, v in inw],
    }
    json.dump(res, sys.stdout)
    print()


if __name__ == "__main__":
    main()
