#!/usr/bin/env python3
"""reporter-check.py LISTEN_JSONL IPERF_JSON AP_RECV HOST_IFACE: compare
what 'wlanfairctl listen --json' received from the station's
wlanfair-reportd with what the iperf3 receiver on the AP got. AP_RECV is
recv-sampler.py's log: every 50 ms, the bytes_received of each socket on
port 5201 in the AP's namespace, stamped on the guest's clock.

The truth is the data connection's bytes_received (the socket that got
most), interpolated in time. Each report's rates cover span_s seconds up
to sampled_us (its flow dump, on that same clock: docs/report-protocol.md);
its reported goodput times span_s is set against the bytes the receiver
got in the same span. Only spans inside the flow's middle count (EDGE s in
from its first and last data as the receiver saw them: slow start, and the
last partial period the reporter never samples because the socket is gone).
A report without sampled_us and span_s counts as unplaced, not covered.
A run of spans is also trimmed from an end whose flow dump took longer
than DUMP_BLUR (sampled_us to sampled_end_us): the sockets were read
that much after the stamp, and the bytes acknowledged meanwhile land on
the wrong side of it (a 1.3-s stall inside a dump shifted 2.6 MB of 45,
ratio 1.058, in one CI run).

Why this and not iperf3's intervals or volumes: iperf3's client intervals
count bytes written to the socket (ahead of acknowledged bytes by what the
send buffer holds) on iperf3's own time base, and a whole-transfer volume
loses a lost report's bytes; under an emulated machine's stalls either
moved the ratio by several percent, by luck (CI: 1.043 and 1.046 against
a 5 % bound). Nor time_us, the sealing time: it trails the flow dump by
nl80211 and the send path, by a varying time under emulation (two stamps
of reports sampled about 1 s apart were 0.61 to 1.86 s apart in one lab
run), and rate x (distance of two stamps) missed by 4 %. Here a lost
report only shortens the covered time, both sides use the same instants,
and the AP's samples are needed close around the ends of each run of
consecutive spans only (compare()).
Prints one JSON object; without enough data the ratio_* keys are absent
and reasons say why."""
import collections
import json
import sys

EDGE = 2.0
BRACKET = 0.2   # s: the widest gap between AP samples a run's end may fall in
MIN_COVERED_S = 8.0
CONTIGUOUS = 0.005  # s: a span starting this close to the last one's end follows it
DUMP_BLUR = 0.05    # s: a flow dump taking longer leaves its instant unsharp
SAMPLE_BLUR = 0.05  # s: the same for an AP sample (median 9-14 ms, p99 0.6 s in the lab)
FLOW_PORT = ":5201"


def load_reports(path):
    reports = []
    for line in open(path, errors="replace"):
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("event") == "report":
            reports.append(ev)
    return reports


def parse_recv_log(lines):
    """-> [(t, bytes_received of the data connection)], in time order. The
    data connection is the socket that received most; the control
    connection and samples without the data connection are left out, and
    so are samples whose dump took longer than SAMPLE_BLUR (stamped at its
    midpoint, such a sample can be a stall's length off: left out, it
    leaves a gap that received_at() does not bridge)."""
    samples = []
    for line in lines:
        try:
            rec = json.loads(line)
            if float(rec.get("d", 0)) > SAMPLE_BLUR:
                continue
            samples.append((float(rec["t"]), {k: int(v) for k, v in rec["b"].items()}))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    samples.sort(key=lambda s: s[0])
    totals = {}
    for _, cur in samples:
        for k, v in cur.items():
            totals[k] = max(totals.get(k, 0), v)
    if not totals:
        return []
    data = max(totals, key=totals.get)
    return [(t, cur[data]) for t, cur in samples if data in cur]


def received_at(series, t):
    """Bytes received by time t, linear between the two samples around it;
    None outside the series or where those samples are more than BRACKET
    apart."""
    if not series or t < series[0][0] or t > series[-1][0]:
        return None
    lo, hi = 0, len(series) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if series[mid][0] <= t:
            lo = mid
        else:
            hi = mid
    (ta, ba), (tb, bb) = series[lo], series[hi]
    if tb - ta > BRACKET:
        return None
    return ba if tb == ta else ba + (bb - ba) * (t - ta) / (tb - ta)


def flow_window(series):
    """[first data + EDGE, last data - EDGE] of the data connection."""
    start = next((t for t, b in series if b > 0), None)
    final = series[-1][1] if series else 0
    end = next((t for t, b in series if b >= final), None)
    if start is None or end is None or end - start <= 2 * EDGE:
        return None
    return start + EDGE, end - EDGE


def flow_bps(body):
    return sum(f.get("goodput_tx_bps", 0) for f in body.get("flows", [])
               if f.get("dst", "").endswith(FLOW_PORT))


def dump_blur(body):
    """Seconds the report's flow dump took (0 without sampled_end_us:
    reporters before it)."""
    if "sampled_end_us" not in body or "sampled_us" not in body:
        return 0.0
    return max(body["sampled_end_us"] - body["sampled_us"], 0) / 1e6


def compare(wifi, series, window):
    """wifi: [(body, interface entry)]. Sums over the reports whose span
    lies inside window: reported bytes (interface, flow) and received.
    Spans that follow each other (no report lost between) form a run,
    and the receiver's bytes over a run are R(its end) - R(its start):
    the samples inside it cancel out. So only a run's two ends need AP
    samples close around them; a run is trimmed from an end that falls
    in a gap of those samples (the transfer comes in bursts under
    emulation, up to 60 Mbit/s for half a second after a near stop, and a
    line across a long gap missed by megabytes), or whose flow dump took
    longer than DUMP_BLUR (the reporter's side of the same instant)."""
    lo, hi = window
    out = {"spans": 0, "covered_s": 0.0, "iface_bytes": 0.0, "flow_bytes": 0.0,
           "truth_bytes": 0.0, "reports_missing": 0, "unplaced": 0, "unbracketed": 0,
           "blurred": 0}
    for boot in {b["boot"] for b, _ in wifi}:
        seqs = sorted({b["seq"] for b, _ in wifi if b["boot"] == boot})
        out["reports_missing"] += seqs[-1] - seqs[0] + 1 - len(seqs)
    # A span starts at the previous report's dump: its blur, where that
    # report arrived (a lost one's is unknown, taken as sharp).
    blur = {(b["boot"], b["seq"]): dump_blur(b) for b, _ in wifi}
    spans = []
    for body, itf in wifi:
        if "sampled_us" not in body or "span_s" not in body:
            out["unplaced"] += 1
            continue
        tb = body["sampled_us"] / 1e6
        ta = tb - body["span_s"]
        if lo <= ta < tb <= hi:
            spans.append((ta, tb, itf.get("goodput_tx_bps", 0), flow_bps(body),
                          blur.get((body["boot"], body["seq"] - 1), 0.0), dump_blur(body)))
    spans.sort()
    runs = []
    for sp in spans:
        if runs and abs(sp[0] - runs[-1][-1][1]) < CONTIGUOUS:
            runs[-1].append(sp)
        else:
            runs.append([sp])
    for run in runs:
        while run:
            if received_at(series, run[0][0]) is None:
                out["unbracketed"] += 1
            elif run[0][4] > DUMP_BLUR:
                out["blurred"] += 1
            else:
                break
            run.pop(0)
        while run:
            if received_at(series, run[-1][1]) is None:
                out["unbracketed"] += 1
            elif run[-1][5] > DUMP_BLUR:
                out["blurred"] += 1
            else:
                break
            run.pop()
        if not run:
            continue
        out["truth_bytes"] += received_at(series, run[-1][1]) - received_at(series, run[0][0])
        for ta, tb, iface_bps, fl_bps, _, _ in run:
            out["spans"] += 1
            out["covered_s"] += tb - ta
            out["iface_bytes"] += iface_bps * (tb - ta) / 8
            out["flow_bytes"] += fl_bps * (tb - ta) / 8
    return out


def check(reports, ip, recv_lines, ifname):
    res = {"reports": len(reports), "hosts": sorted({r["host"] for r in reports}),
           "from": sorted({r["from"].rsplit(":", 1)[0] for r in reports}), "reasons": []}
    wifi = []
    for r in reports:
        body = r["report"]
        for itf in body.get("interfaces", []):
            if itf.get("name") == ifname:
                wifi.append((body, itf))
    res["wifi_reports"] = len(wifi)
    if wifi:
        # The station's rates as most reports give them: what a report
        # says is the station's last frame, and after the upload (or now
        # and then during it) that is a management or null frame at a
        # legacy rate (1 Mbit/s, no MCS): the last report alone once read
        # so in CI, 4 of its 61 reports did.
        stations = [itf.get("station", {}) for _, itf in wifi]

        def tx_key(s):
            r = s.get("tx_rate", {})
            return (r.get("mcs"), r.get("bitrate_kbps"))
        common = collections.Counter(tx_key(s) for s in stations).most_common(1)[0][0]
        st = [s for s in stations if tx_key(s) == common][-1]
        res["tx_reports_without_mcs"] = sum(s.get("tx_rate", {}).get("mcs") is None
                                            for s in stations)
        res["signal_dbm"] = st.get("signal_dbm")
        res["tx_mcs"] = st.get("tx_rate", {}).get("mcs")
        res["tx_bitrate_kbps"] = st.get("tx_rate", {}).get("bitrate_kbps")
        res["rx_mcs"] = st.get("rx_rate", {}).get("mcs")
        res["ssid"] = st.get("ssid")

    series = parse_recv_log(recv_lines)
    res["truth_samples"] = len(series)
    iperf_bytes = ip.get("end", {}).get("sum_received", {}).get("bytes")
    iperf_secs = ip.get("end", {}).get("sum_received", {}).get("seconds")
    if iperf_bytes and iperf_secs:
        res["iperf_transfer_mbps"] = iperf_bytes * 8 / iperf_secs / 1e6
        if series:
            # How much of what iperf3 counted the AP's samples saw.
            res["truth_vs_iperf3"] = round(series[-1][1] / iperf_bytes, 4)
    window = flow_window(series)
    if window is None:
        res["reasons"].append("no data connection on port 5201 in the AP's samples, "
                              "or its transfer too short for the middle window")
        return res
    res["window_s"] = round(window[1] - window[0], 2)
    c = compare(wifi, series, window)
    res.update({"spans_in_window": c["spans"], "covered_s": round(c["covered_s"], 2),
                "reports_missing": c["reports_missing"], "reports_unplaced": c["unplaced"],
                "spans_unbracketed": c["unbracketed"], "spans_blurred": c["blurred"]})
    if c["covered_s"]:
        res["reported_goodput_mbps"] = c["iface_bytes"] * 8 / c["covered_s"] / 1e6
        res["reported_flow_goodput_mbps"] = c["flow_bytes"] * 8 / c["covered_s"] / 1e6
        res["received_mbps"] = c["truth_bytes"] * 8 / c["covered_s"] / 1e6
    res["flows_dropped_max"] = max((b.get("flows_dropped", 0) for b, _ in wifi), default=None)
    # Too little covered (lost reports, a stalled daemon) is a failure of
    # its own, not something a ratio may hide. The ratio's error comes
    # from the runs' ends only, so MIN_COVERED_S of spans give it to
    # about 1 %: as much as the whole window would.
    if c["covered_s"] < MIN_COVERED_S:
        res["reasons"].append("reports cover %.1f s of the %.1f s window, under %g s"
                              % (c["covered_s"], window[1] - window[0], MIN_COVERED_S))
    elif c["truth_bytes"] <= 0:
        res["reasons"].append("the receiver got nothing in the covered spans")
    else:
        res["ratio_iface"] = round(c["iface_bytes"] / c["truth_bytes"], 4)
        res["ratio_flow"] = round(c["flow_bytes"] / c["truth_bytes"], 4)
    return res


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    listen_path, iperf_path, recv_path, ifname = argv[1:]
    try:
        ip = json.load(open(iperf_path))
    except (OSError, ValueError):
        ip = {}
    print(json.dumps(check(load_reports(listen_path), ip, open(recv_path, errors="replace"), ifname)))


if __name__ == "__main__":
    main(sys.argv)
