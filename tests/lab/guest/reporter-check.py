#!/usr/bin/env python3
"""reporter-check.py LISTEN_JSONL IPERF_JSON T0 HOST_IFACE: compare what
'wlanfairctl listen --json' received from the station's wlanfair-reportd
with iperf3's own figures over the same seconds. T0 = unix time just
before iperf3 started. Prints one JSON object."""
import json
import sys

listen_path, iperf_path, t0, ifname = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
reports = []
for line in open(listen_path, errors="replace"):
    try:
        ev = json.loads(line)
    except ValueError:
        continue
    if ev.get("event") == "report":
        reports.append(ev)

ip = json.load(open(iperf_path))
# iperf3 intervals: [start, end) seconds after its start, sender bits/s.
ivals = [(i["sum"]["start"], i["sum"]["end"], i["sum"]["bits_per_second"]) for i in ip["intervals"]]
t_start = ip["start"]["timestamp"]["timesecs"]  # whole seconds: only a sanity bound
dur = ivals[-1][1] if ivals else 0

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
# Reports whose whole interval lies inside iperf3's seconds 2 .. dur-1
# (past slow start, before the end), against iperf3's intervals there.
lo, hi = t0 + 2.0, t0 + dur - 1.0
inside = [(t, iv, itf) for t, iv, itf, _ in wifi if iv and t - iv >= lo and t <= hi]
rep = [itf.get("goodput_tx_bps") for _, _, itf in inside if itf.get("goodput_tx_bps") is not None]
flows = []
for t, iv, itf, body in wifi:
    if iv and t - iv >= lo and t <= hi:
        flows.append(sum(f.get("goodput_tx_bps", 0) for f in body.get("flows", [])
                         if f.get("dst", "").endswith(":5201")))
ref = [bps for s, e, bps in ivals if s >= 2.0 and e <= dur - 1.0]
mean = lambda v: sum(v) / len(v) if v else None
res.update({"reports_in_window": len(rep), "iperf_intervals_in_window": len(ref),
            "reported_goodput_mbps": mean(rep) and mean(rep) / 1e6,
            "reported_flow_goodput_mbps": mean(flows) and mean(flows) / 1e6,
            "iperf_mbps": mean(ref) and mean(ref) / 1e6})
if res["reported_goodput_mbps"] and res["iperf_mbps"]:
    res["ratio_iface"] = round(res["reported_goodput_mbps"] / res["iperf_mbps"], 4)
if res["reported_flow_goodput_mbps"] and res["iperf_mbps"]:
    res["ratio_flow"] = round(res["reported_flow_goodput_mbps"] / res["iperf_mbps"], 4)
print(json.dumps(res))
