"""Traffic profiles in the testbed: trafgen's master in the server's
namespace, one trafgen client per station (trafgen.py), instead of one
iperf3 flow per station. Downloads are sent by the master, uploads by the
stations, each data connection with the profile's (or --cc's) CC.

    s = testbed_traffic.run(cfg, "web.profile", {3: "bulk.profile"}, log=print)
    s["summary"]["fct_s"]["<100k"]["p90"]
"""
import json
import os
import subprocess
import sys
import time
from typing import Dict, Optional

import trafgen
from testbed import (SRV_IP, Config, Interrupted, Testbed, TestbedError, check_environment,
                     ignore_signals, install_signal_handlers, nsexec, params_of,
                     restore_signal_handlers, sh)

TRAFGEN = os.path.join(os.path.dirname(os.path.realpath(__file__)), "trafgen.py")
PORT = 7000                     # control; data on 7001


def _wait_port(ns: str, port: int, master: subprocess.Popen, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if master.poll() is not None:
            raise TestbedError(f"trafgen master exited ({master.returncode})")
        out = sh(nsexec(ns, ["ss", "-Hltn"]), check=False).stdout
        if f"{SRV_IP}:{port + 1}" in out and f"{SRV_IP}:{port}" in out:
            return
        time.sleep(0.05)
    raise TestbedError("trafgen master not listening")


def run(cfg: Config, profile: str, assign: Dict[int, str], timeout: float,
        log=print, name: Optional[str] = None) -> dict:
    """Set up cfg.stations stations, run the profiles until every client is
    done (at most `timeout` s), write <out>/<name>.jsonl (the records) and
    <name>.json (parameters, summary, tc counters), tear down."""
    cfg.iperf3_flows = False
    cfg.validate()
    check_environment(cfg, traffic=False)
    # Profiles are read here too: a bad one fails before any namespace exists.
    for path in [profile, *assign.values()]:
        trafgen.check_cc(cfg.cc or trafgen.load_profile(path)["cc"])
    name = name or cfg.name or f"traffic-{cfg.cc or 'default'}-" + time.strftime("%Y%m%d-%H%M%S")
    os.makedirs(cfg.out_dir, exist_ok=True)
    base = os.path.join(cfg.out_dir, name)
    tb = Testbed(cfg)
    old = install_signal_handlers()
    procs = []
    logs = []
    try:
        log(f"setting up {cfg.stations} stations, prefix {cfg.prefix} ...")
        tb.setup()
        groups: Dict[str, list] = {}
        for sta, path in assign.items():
            groups.setdefault(path, []).append(str(sta))
        cmd = [sys.executable, TRAFGEN, "master", "--listen", f"{SRV_IP}:{PORT}",
               "--clients", str(cfg.stations), "--profile", profile, "--out", base + ".jsonl"]
        for path, ids in groups.items():
            cmd += ["--assign", ",".join(ids) + "=" + path]
        if cfg.cc:
            cmd += ["--cc", cfg.cc]
        err = open(base + ".master.log", "w")
        logs.append(err)
        master = subprocess.Popen(nsexec(tb.srv, cmd), stdout=err, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
        procs.append(master)
        _wait_port(tb.srv, PORT, master)
        t0 = time.monotonic()
        log(f"running {cfg.stations} trafgen clients (at most {timeout:g} s) ...")
        for i in range(1, cfg.stations + 1):
            f = open(f"{base}.client{i}.log", "w")
            logs.append(f)
            procs.append(subprocess.Popen(
                nsexec(tb.sta[i - 1], [sys.executable, TRAFGEN, "client",
                                       "--master", f"{SRV_IP}:{PORT}", "--id", str(i)]),
                stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True))
        deadline = t0 + timeout
        while master.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        timed_out = master.poll() is None
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        wall = time.monotonic() - t0
        records = trafgen.read_records(base + ".jsonl") if os.path.exists(base + ".jsonl") else []
        summary = {
            "tool": "wlanfair-testbed traffic", "format": 1,
            "params": dict(params_of(cfg), profile=profile,
                           assign={str(k): v for k, v in sorted(assign.items())},
                           timeout_s=timeout),
            "wall_s": round(wall, 2), "timed_out": timed_out,
            "master_exit": master.returncode, "client_exits": [p.returncode for p in procs[1:]],
            "summary": trafgen.summarize(records),
            "tc": tb.tc_stats(),
            "files": {"records": base + ".jsonl", "json": base + ".json"},
        }
        with open(base + ".json", "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
        return summary
    except Interrupted:
        ignore_signals()
        for p in procs:
            if p.poll() is None:
                p.kill()
        raise
    finally:
        ignore_signals()
        for f in logs:
            f.close()
        tb.teardown()
        restore_signal_handlers(old)
