#!/usr/bin/env python3
"""reporter-check.py LISTEN_JSONL IPERF_JSON T0 T1 HOST_IFACE: compare what
'wlanfairctl listen --json' received from the station's wlanfair-reportd
with iperf3's own figures. T0, T1 = unix time just before iperf3 started
and just after it ended.

The check is of rates over the middle of the transfer: the reports whose
whole interval lies in [T0 + EDGE, T0 + duration - EDGE] (goodput weighted
by interval) against iperf3's per-second intervals over the same offsets.
Volumes over the whole transfer (also printed, as volume_ratio_*) cannot be
held to 5 %: the flow's last partial period is never sampled (the socket is
gone by the next dump: up to 1 s of 30, more when the emulated machine
stalls), an upload's bytes still queued at the close are sent from an
orphaned socket sock_diag does not attribute, and a report lost on the way
(UDP, beside a saturating upload) takes its interval's bytes with it; the
first two grow with the CC's queue, so the volume ratio moved with the CC
under test. A rate over the covered time has none of these: a lost report
shortens the covered time, it does not bias the rate.
Prints one JSON object."""
import json
import sys

listen_path, iperf_path, t0, t1, ifname = (sys.argv[1], sys.argv[2], float(sys.argv[3]),
                                          float(sys.argv[4]), sys.argv[5])
reports = []
for line in open(listen_path, errors="replace"):
    try:
        ev = json.loads(line)
    except ValueError:
        continue
    if ev.get("event") == "report":
        reports.append(ev)

ip = json.load(open(iperf_path))

res = {"reports": len(reports), "hosts": sorted({r["host"] for r in reports}),
       "from": sorted({r["from"].rsplit(":", 1)[0] for r in reports})}
wifi = []
for r in reports:
    body = r["report"]
    for itf in body.get("interfaces", []):
        if itf.get("name") == ifname:
            wifi.append((body["time_us"] / 1e6, body.get("interval_s"), itf, body))
res["wifi_reports"] = len(wifi)
if wifi:
    last = wifi[-1][2]
    st = last.get("station", {})
    res["signal_dbm"] = st.get("signal_dbm")
    res["tx_mcs"] = st.get("tx_rate", {}).get("mcs")
    res["tx_bitrate_kbps"] = st.get("tx_rate", {}).get("bitrate_kbps")
    res["rx_mcs"] = st.get("rx_rate", {}).get("mcs")
    res["ssid"] = st.get("ssid")
EDGE = 2.0
ip_end = ip["end"]
iperf_bytes = ip_end["sum_received"]["bytes"]
secs = ip_end["sum_received"]["seconds"]
sent_secs = ip_end.get("sum_sent", {}).get("seconds") or secs


def flow_bps(body):
    return sum(f.get("goodput_tx_bps", 0) for f in body.get("flows", [])
               if f.get("dst", "").endswith(":5201"))


# Whole-transfer volumes (informational, see above).
lo, hi = t0, t1 + 2.0
inside = [(t, iv, itf, body) for t, iv, itf, body in wifi if iv and t > lo and t - iv < hi]
iface_bytes = sum(itf.get("goodput_tx_bps", 0) * iv / 8 for t, iv, itf, _ in inside)
flow_bytes = sum(flow_bps(body) * iv / 8 for t, iv, _, body in inside)
missing = 0
for boot in {b["boot"] for _, _, _, b in inside}:
    seqs = sorted({b["seq"] for _, _, _, b in inside if b["boot"] == boot})
    missing += seqs[-1] - seqs[0] + 1 - len(seqs)
res["reports_missing"] = missing

# Rates over the middle of the transfer.
mlo, mhi = t0 + EDGE, t0 + sent_secs - EDGE
mid = [(t, iv, itf, body) for t, iv, itf, body in wifi if iv and t - iv >= mlo and t <= mhi]
mid_secs = sum(iv for _, iv, _, _ in mid)
rep_iface_bps = sum(itf.get("goodput_tx_bps", 0) * iv for _, iv, itf, _ in mid) / mid_secs if mid_secs else 0
rep_flow_bps = sum(flow_bps(body) * iv for _, iv, _, body in mid) / mid_secs if mid_secs else 0
ivs = [i["sum"] for i in ip.get("intervals", [])
       if i["sum"]["start"] >= EDGE and i["sum"]["end"] <= sent_secs - EDGE]
ip_mid_secs = sum(i["seconds"] for i in ivs)
ip_mid_bps = sum(i["bytes"] * 8 for i in ivs) / ip_mid_secs if ip_mid_secs else 0

res.update({"reports_in_window": len(mid),
            "reports_in_transfer": len(inside),
            "covered_s": round(mid_secs, 2),
            "iperf_intervals_in_window": len(ivs),
            "flows_dropped_max": max((b.get("flows_dropped", 0) for _, _, _, b in inside), default=None),
            "reported_goodput_mbps": rep_iface_bps / 1e6,
            "reported_flow_goodput_mbps": rep_flow_bps / 1e6,
            "iperf_mbps": ip_mid_bps / 1e6,
            "iperf_transfer_mbps": iperf_bytes * 8 / secs / 1e6 if secs else None})
if iperf_bytes:
    res["volume_ratio_iface"] = round(iface_bytes / iperf_bytes, 4)
    res["volume_ratio_flow"] = round(flow_bytes / iperf_bytes, 4)
# Half the window uncovered (lost reports, a stalled daemon) is a failure
# of its own, not something a rate may hide.
if ip_mid_bps and mid_secs >= (sent_secs - 2 * EDGE) / 2:
    res["ratio_iface"] = round(rep_iface_bps / ip_mid_bps, 4)
    res["ratio_flow"] = round(rep_flow_bps / ip_mid_bps, 4)
print(json.dumps(res))
