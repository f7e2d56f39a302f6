"""Results of wlanfair-testbed runs: iperf3 JSON to a per-flow series on a
common clock, the CSV series (input of `wlanfairctl fairness --series`) and
the JSON summary. Pure functions, no root needed (unit-testable)."""

import json
import math
import os
import re
import sys
import time
from typing import List

# Jain's index: the one copy the tests, benchmarks and testbed share
# (testlib/wftest.py, as src/metrics computes it).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                                "testlib"))
from wftest import jain  # noqa: E402,F401  (testbed_results.jain for its users)


def read_intervals(path: str):
    """(intervals [(start, end, bytes)], error or None, iperf3 end summary) of
    one iperf3 --json file; a missing or cut JSON is an error, not a crash."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        return [], f"no output: {e.strerror}", {}
    if not text.strip():
        return [], "no output (iperf3 killed or never started)", {}
    try:
        d = json.loads(text)
    except ValueError:
        return [], "unparsable JSON output (iperf3 killed while writing?)", {}
    out, last_end = [], 0.0
    for iv in d.get("intervals", []):
        s = iv.get("sum", {})
        try:
            a, z, b = float(s["start"]), float(s["end"]), float(s["bytes"])
        except (KeyError, TypeError, ValueError):
            continue
        # iperf3 repeats the last interval when interrupted; keep the series
        # free of overlaps (wlanfairctl rejects them).
        if z <= a or a < last_end - 1e-6:
            continue
        out.append((a, z, b))
        last_end = z
    return out, d.get("error"), d.get("end", {})


def connect_delay(client_path: str, launched_wall: float) -> float:
    """Seconds from a client's launch (wall clock) to its connection, from
    iperf3's start.timestamp (taken on connect, whole seconds): 0 unless
    it is clearly late. iperf3's intervals count from the connection, so
    a flow whose SYNs were lost (retries after 1, 3, 7, 15 s) placed at
    its launch would show its last seconds, alone in the cell after the
    others ended, as the run's last (a bench run: 23 Mbit/s for a station
    the AP was sending 1.1). Off by up to half a second when it applies;
    a delay under a second (one SYN retry at most) is left as it was."""
    try:
        with open(client_path) as f:
            secs = float(json.load(f)["start"]["timestamp"]["timesecs"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0
    delay = secs + 0.5 - launched_wall
    return delay if delay >= 1.0 else 0.0


def rebin(intervals, offset: float, duration: int) -> List[float]:
    """Bytes per 1-s bin of the common clock: interval (a, z) of a flow that
    started `offset` s after the run start is spread over the bins it
    overlaps, in proportion. Bins nobody reported stay 0 (starved flow)."""
    bins = [0.0] * duration
    for a, z, b in intervals:
        a, z = a + offset, z + offset
        k = max(0, int(math.floor(a)))
        while k < duration and k < z:
            ov = min(z, k + 1) - max(a, k)
            if ov > 0:
                bins[k] += b * ov / (z - a)
            k += 1
    return bins


def parse_ss(text: str, ccs) -> List[dict]:
    """`ss -tinH` -> [{local, peer, cc, bytes_sent}]; `ccs`: known CC names
    (the info line may start with options such as 'ts sack')."""
    socks, cur = [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            f = line.split()
            cur = {"local": f[-2], "peer": f[-1], "cc": None, "bytes_sent": 0}
            socks.append(cur)
        elif cur is not None:
            f = line.split()
            cur["cc"] = next((w for w in f if w in ccs), cur["cc"])
            m = re.search(r"bytes_sent:(\d+)", line)
            cur["bytes_sent"] = int(m.group(1)) if m else 0
    return socks


# --- outputs -----------------------------------------------------------------

def write_outputs(params: dict, results: dict, base: str) -> dict:
    """`base`.csv (the series for wlanfairctl fairness --series) and
    `base`.json (parameters, per-flow means, tc counters, host load);
    returns the summary written to the JSON."""
    with open(base + ".csv", "w") as f:
        f.write("start_s,end_s,flow,bits_per_s\n")
        for fl in results["flows"]:
            for k, bps in enumerate(fl["bins_bps"]):
                f.write(f"{k},{k + 1},{fl['name']},{bps:.0f}\n")
    means = [fl["mean_bps"] for fl in results["flows"]]
    total = sum(means)
    fair = total / len(means) if means else 0
    summary = {
        "tool": "wlanfair-testbed", "format": 1,
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z",
                                    time.localtime(results["start_wall"])),
        "params": params,
        "interrupted": results.get("interrupted"),
        "seconds": results.get("seconds"),          # length of the series
        "total_bps": total,
        "jain_of_means": jain(means),
        # "starved": below a tenth of the equal share of what was carried.
        "starved": [fl["name"] for fl in results["flows"] if fl["mean_bps"] < 0.1 * fair],
        "flows": [{k: v for k, v in fl.items() if k != "bins_bps"}
                  for fl in results["flows"]],
        "tc": results["tc"],
        "cc_observed_at_s": results.get("cc_observed_at_s"),
        "host": results.get("host"),
        "series_source": results.get("series_source"),
        "sampler_error": results.get("sampler_error"),
        "files": {"csv": base + ".csv", "json": base + ".json", "raw": base + ".raw"},
    }
    if results.get("ns3") is not None:
        # the ns-3 cell: its stations' MCS and rates, the simulator's lag
        summary["ns3"] = results["ns3"]
    with open(base + ".json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    return summary
