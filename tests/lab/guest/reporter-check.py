#!/usr/bin/env python3
"""reporter-check.py LISTEN_JSONL IPERF_JSON T0 T1 HOST_IFACE: compare what
'wlanfairctl listen --json' received from the station's wlanfair-reportd
with iperf3's own figures. T0, T1 = unix time just before iperf3 started
and just after it ended. The comparison is of volumes: the bytes the
reports account for (goodput x interval, summed over every report whose
interval overlaps [T0, T1 + 2 s]) against the bytes iperf3 delivered, so
that neither the emulated machine's stalls (a report's interval may hold
1.3 s of traffic or 0.7 s) nor the offset between the two clocks' seconds
matter. What remains is the flow's last partial interval, which no sample
sees (the socket is gone by the next dump): up to one period, so the
transfer must be long against the period (30 s against 1 s: <= 3.3 %).
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
# Volumes over the transfer, reports against iperf3.
lo, hi = t0, t1 + 2.0
inside = [(t, iv, itf, body) for t, iv, itf, body in wifi if iv and t > lo and t - iv < hi]
iface_bytes = sum(itf.get("goodput_tx_bps", 0) * iv / 8 for t, iv, itf, _ in inside)
flow_bytes = sum(sum(f.get("goodput_tx_bps", 0) for f in body.get("flows", [])
                     if f.get("dst", "").endswith(":5201")) * iv / 8
                 for t, iv, _, body in inside)
# A report lost on the way (UDP) takes its interval's bytes with it.
missing = 0
for boot in {b["boot"] for _, _, _, b in inside}:
    seqs = sorted({b["seq"] for _, _, _, b in inside if b["boot"] == boot})
    missing += seqs[-1] - seqs[0] + 1 - len(seqs)
res["reports_missing"] = missing
iperf_bytes = ip["end"]["sum_received"]["bytes"]
secs = ip["end"]["sum_received"]["seconds"]
res.update({"reports_in_window": len(inside),
            "flows_dropped_max": max((b.get("flows_dropped", 0) for _, _, _, b in inside), default=None),
            "reported_goodput_mbps": iface_bytes * 8 / secs / 1e6 if secs else None,
            "reported_flow_goodput_mbps": flow_bytes * 8 / secs / 1e6 if secs else None,
            "iperf_mbps": iperf_bytes * 8 / secs / 1e6 if secs else None})
if iperf_bytes:
    res["ratio_iface"] = round(iface_bytes / iperf_bytes, 4)
    res["ratio_flow"] = round(flow_bytes / iperf_bytes, 4)
print(json.dumps(res))
