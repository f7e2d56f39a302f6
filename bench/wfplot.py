"""Pictures of the benchmarks' results, drawn from the dicts they write as
JSON (bench/results/*.json), so that any picture can be redrawn from a
committed JSON file without running anything again: `bench/plot FILE.json`.

One function per picture kind; PICTURES maps a benchmark's name to its
pictures as (suffix, function): RESULT.json gives RESULT<suffix>.svg. Over
800 lines as one file: many short functions that share the style helpers
and the PICTURES table, which a split by kind would scatter.
matplotlib (Debian: python3-matplotlib) with the Agg backend, SVG with a
fixed hash salt and no date, text kept as text: drawing the same JSON
twice gives the same bytes. Every series, bar and shaded interval carries
an SVG id (matplotlib's gid) that bench/test_wfplot.py counts.

Imported by the bench scripts (their directory is on sys.path) and by
bench/plot; importing it does not need matplotlib.
"""
import math
import os
import statistics
import sys
import tempfile

SALT = "wlanfair-bench"
TARGET_JAIN = 0.97          # bench/ap-controller's convergence threshold
# One colour per congestion control across every ackloss picture.
CC_COLORS = {
    "cubic": "tab:blue", "ackloss_cubic": "tab:orange",
    "reno": "tab:green", "ackloss_reno": "tab:red", "bbr": "tab:gray",
    "ackloss_cubic-nodetect": "tab:purple", "ackloss_reno-nodetect": "tab:brown",
    "ackloss_cubic:drain": "tab:pink", "ackloss_reno:drain": "tab:olive",
}
PHASE_COLORS = {"noguard": "tab:red", "guard": "tab:blue"}


class NoMatplotlib(Exception):
    """matplotlib cannot be imported (python3-matplotlib is missing)."""


def pyplot():
    """matplotlib.pyplot on the Agg backend, with deterministic SVG output.
    Debian's python3-matplotlib also when this interpreter is not Debian's
    (pyenv, venv): its dist-packages directory is tried second."""
    try:
        import matplotlib
    except ImportError:
        deb = "/usr/lib/python3/dist-packages"
        if os.path.isdir(deb) and deb not in sys.path:
            sys.path.append(deb)
        try:
            import matplotlib
        except ImportError as e:
            raise NoMatplotlib(str(e)) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams.update({
        "svg.hashsalt": SALT,
        "svg.fonttype": "none",       # text as <text>: smaller, searchable
        "font.size": 9,
        "axes.titlesize": 9,
        "legend.fontsize": 8,
        "figure.dpi": 100,
    })
    return plt


def where(res):
    """'host kernel K, N CPUs, DATE' from what a result recorded."""
    parts = []
    m = res.get("machine") or {}
    if res.get("guest_kernel"):
        parts.append(f"lab VM {res.get('suite', '')} kernel {res['guest_kernel']}".replace("  ", " "))
    if m.get("kernel"):
        parts.append(f"kernel {m['kernel']}")
    if m.get("cpus"):
        parts.append(f"{m['cpus']} CPUs")
    if res.get("date"):
        parts.append(res["date"][:10])
    return ", ".join(parts)


def title(fig, what, res):
    w = where(res)
    fig.suptitle(what + (f"\n{w}" if w else ""), fontsize=10)


def save(fig, path):
    """Writes the SVG atomically (a reader never sees half a picture)."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".wfplot-", suffix=".svg", dir=d)
    os.close(fd)
    try:
        fig.savefig(tmp, format="svg", metadata={"Date": None, "Creator": "bench/wfplot.py (matplotlib)"})
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    finally:
        import matplotlib.pyplot as plt
        plt.close(fig)


def bars(ax, xs, heights, width, gids, **kw):
    cont = ax.bar(xs, heights, width, **kw)
    for patch, gid in zip(cont.patches, gids):
        patch.set_gid(gid)
    return cont


def mean(vals):
    vals = [v for v in vals if v is not None]
    return statistics.mean(vals) if vals else None


# ---------------------------------------------------------------- ackloss --

def _ackloss_axes(res):
    mixes, bufs = [], []
    for t in res["table"]:
        if t["mix"] not in mixes:
            mixes.append(t["mix"])
        if t["ap_buffer"] not in bufs:
            bufs.append(t["ap_buffer"])
    ccs = [c for c in res["params"]["ccs"].split(",")
           if any(c in t["ccs"] for t in res["table"])]
    return mixes, bufs, ccs


def ackloss_jain(res, path):
    """Jain's index (whole run, mean of the repetitions, +- sd) and the
    total carried, per mix and AP buffer, one bar per CC."""
    plt = pyplot()
    mixes, bufs, ccs = _ackloss_axes(res)
    table = {(t["mix"], t["ap_buffer"]): t["ccs"] for t in res["table"]}
    fig, axes = plt.subplots(2, len(bufs), figsize=(6.5 * len(bufs), 7.5), squeeze=False,
                             sharey="row")
    w = 0.8 / len(ccs)
    for col, buf in enumerate(bufs):
        aj, at = axes[0][col], axes[1][col]
        for k, cc in enumerate(ccs):
            xs, jain, sd, tot, gids = [], [], [], [], []
            for i, mix in enumerate(mixes):
                v = table.get((mix, buf), {}).get(cc)
                if v is None:
                    continue
                xs.append(i + (k - (len(ccs) - 1) / 2) * w)
                jain.append(v["jain"])
                sd.append(v["jain_sd"] or 0)
                tot.append(v["total_mbps"])
                gids.append(f"{mix}-b{buf}-{cc}")
            if not xs:
                continue
            c = CC_COLORS.get(cc)
            bars(aj, xs, jain, w, ["bar-jain-" + g for g in gids], color=c, label=cc,
                 yerr=sd, error_kw={"elinewidth": 0.7, "capsize": 1.5})
            bars(at, xs, tot, w, ["bar-total-" + g for g in gids], color=c, label=cc)
        for a in (aj, at):
            a.set_xticks(range(len(mixes)))
            a.set_xticklabels(mixes)
            a.grid(axis="y", alpha=0.3)
        aj.set_title(f"AP buffer {buf} packets")
        aj.set_ylim(0, 1.02)
        at.set_xlabel("mix (uN dM: N upload and M download flows)")
    axes[0][0].set_ylabel("Jain's index, whole run (mean of reps, +- sd)")
    axes[1][0].set_ylabel("total carried (Mbit/s)")
    h, lab = axes[0][0].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=len(ccs), frameon=False)
    p = res["params"]
    title(fig, f"ACK-loss CC against its base CC: fairness and total per mix and AP buffer "
               f"(testbed, {p['capacity']}bit/s, {p['duration']} s x {p['reps']} reps)", res)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    save(fig, path)


def ackloss_swm(res, path):
    """The Sliding Window Method curve: Jain's index against the window
    width, mean over the windows (solid) and minimum (dotted), per CC,
    averaged over the repetitions; one panel per mix and AP buffer."""
    plt = pyplot()
    mixes, bufs, ccs = _ackloss_axes(res)
    runs = [r for r in res["runs"] if "error" not in r]
    fig, axes = plt.subplots(len(bufs), len(mixes), figsize=(2.9 * len(mixes), 3.0 * len(bufs) + 1.2),
                             squeeze=False, sharex=True, sharey=True)
    for row, buf in enumerate(bufs):
        for col, mix in enumerate(mixes):
            ax = axes[row][col]
            for cc in ccs:
                ok = [r for r in runs if r["mix"] == mix and r["ap_buffer"] == buf and r["cc"] == cc]
                if not ok:
                    continue
                ws = sorted({float(w) for r in ok for w in r["swm"]})
                key = lambda w: f"{w:g}"
                jmean = [mean(r["swm"].get(key(w), {}).get("jain_mean") for r in ok) for w in ws]
                jmin = [mean(r["swm"].get(key(w), {}).get("jain_min") for r in ok) for w in ws]
                c = CC_COLORS.get(cc)
                ax.plot(ws, jmean, color=c, lw=1.3, marker="o", ms=3, label=cc,
                        gid=f"swm-{mix}-b{buf}-{cc}-mean")
                ax.plot(ws, jmin, color=c, lw=0.9, ls=":", marker=".", ms=3,
                        gid=f"swm-{mix}-b{buf}-{cc}-min")
            ax.set_xscale("log")
            ax.set_title(f"{mix}, buffer {buf}")
            ax.grid(alpha=0.3)
            if row == len(bufs) - 1:
                ax.set_xlabel("window width (s)")
            if col == 0:
                ax.set_ylabel("Jain's index")
    ws = sorted({float(w) for r in runs for w in r["swm"]})
    for ax in axes[-1]:
        ax.set_xticks(ws)
        ax.set_xticklabels([f"{w:g}" for w in ws])
    h, lab = axes[0][0].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=len(ccs), frameon=False)
    title(fig, "Sliding Window Method: Jain's index against window width "
               "(solid: mean over the windows, dotted: minimum; mean of reps)", res)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    save(fig, path)


def ackloss_has_series(res):
    return any("series_kbps" in r for r in res.get("runs", []))


def ackloss_flows(res, path):
    """Per-flow throughput over time, base CC against ACK-loss CC, one run
    per mix (the first repetition recorded with series, smallest buffer)."""
    plt = pyplot()
    mixes, bufs, ccs = _ackloss_axes(res)
    runs = [r for r in res["runs"] if "series_kbps" in r]
    buf = min(r["ap_buffer"] for r in runs)
    cols = [c for c in ("cubic", "ackloss_cubic", "reno", "ackloss_reno") if c in ccs] or ccs
    fig, axes = plt.subplots(len(mixes), len(cols), figsize=(3.3 * len(cols), 2.1 * len(mixes) + 1.2),
                             squeeze=False, sharex=True, sharey=True)
    for row, mix in enumerate(mixes):
        for col, cc in enumerate(cols):
            ax = axes[row][col]
            ok = sorted((r for r in runs if r["mix"] == mix and r["ap_buffer"] == buf and r["cc"] == cc),
                        key=lambda r: r["rep"])
            if ok:
                r = ok[0]
                for flow, v in sorted(r["series_kbps"].items(),
                                      key=lambda kv: (kv[0].split("-")[0], int(kv[0].split("-")[-1]))):
                    ls = "-" if flow.startswith("up") else "--"
                    ax.plot([k + 0.5 for k in range(len(v))], [x / 1e3 for x in v], lw=0.8, ls=ls,
                            gid=f"flow-{mix}-{cc}-{flow}")
                ax.text(0.99, 0.97, f"Jain {r['jain']:.3f}", transform=ax.transAxes,
                        ha="right", va="top", fontsize=7)
            if row == 0:
                ax.set_title(cc)
            if col == 0:
                ax.set_ylabel(f"{mix}\nMbit/s")
            if row == len(mixes) - 1:
                ax.set_xlabel("time (s)")
            ax.grid(alpha=0.3)
    title(fig, f"Per-flow throughput over time (1-s bins; solid upload, dashed download), "
               f"AP buffer {buf}, first repetition", res)
    fig.tight_layout()
    save(fig, path)


# -------------------------------------------------------------------- swm --

def swm_cost(res, path):
    """Run time of every repetition, parsing plus one window against the
    Sliding Window Method (1, 10, 60 s); with the SWM curve when the
    result recorded it (bench/swm since the plots)."""
    plt = pyplot()
    curve = res.get("curve")
    fig, axes = plt.subplots(1, 2 if curve else 1, figsize=(10 if curve else 5.5, 4), squeeze=False)
    ax = axes[0][0]
    names = [n for n in ("baseline", "swm") if n in res["seconds_all"]]
    labels = {"baseline": "parse + 1 window", "swm": "SWM 1,10,60 s"}
    for i, n in enumerate(names):
        v = res["seconds_all"][n]
        ax.plot([i] * len(v), v, "o", ms=4, alpha=0.6, color="tab:gray", gid=f"rep-{n}")
        bars(ax, [i], [res["seconds_median"][n]], 0.5, [f"bar-median-{n}"],
             color="tab:blue" if n == "swm" else "tab:green", alpha=0.5)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([labels[n] for n in names])
    ax.set_ylabel("wall time (s); bars: median, dots: repetitions")
    ax.set_ylim(0, None)
    ax.grid(axis="y", alpha=0.3)
    s = res["series"]
    ax.set_title(f"{s['flows']} flows x {s['duration_s']} s x {s['rate_hz']} Hz; "
                 f"swm/baseline {res['ratio_swm_to_baseline']:.2f}")
    if curve:
        ac = axes[0][1]
        ws = [c["window"] for c in curve]
        ac.plot(ws, [c["jain_mean"] for c in curve], "o-", gid="curve-jain-mean", label="mean")
        ac.plot(ws, [c["jain_min"] for c in curve], "o:", gid="curve-jain-min", label="minimum")
        ac.set_xscale("log")
        ac.set_xticks(ws)
        ac.set_xticklabels([f"{w:g}" for w in ws])
        ac.set_xlabel("window width (s)")
        ac.set_ylabel("Jain's index over the windows")
        ac.set_title("SWM curve of the synthetic series (uniform random rates)")
        ac.legend()
        ac.grid(alpha=0.3)
    title(fig, "Cost of the Sliding Window Method (wlanfairctl fairness --series)", res)
    fig.tight_layout()
    save(fig, path)


# --------------------------------------------------------------- reporter --

def reporter_cost(res, path):
    """wlanfair-reportd's CPU per sample and RSS against open connections,
    beside polling ss -tin + ip -s link."""
    plt = pyplot()
    rows = sorted(res["rows"], key=lambda r: r["connections"])
    n = [r["connections"] for r in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.plot(n, [r["reporter"]["cpu_ms_per_sample"] for r in rows], "o-", color="tab:blue",
            label="wlanfair-reportd", gid="cpu-reporter")
    a1.plot(n, [r["ss_ip_polling"]["cpu_ms_per_sample"] for r in rows], "s--", color="tab:gray",
            label="ss -tin + ip -s link", gid="cpu-ss_ip")
    period_ms = res.get("period_s", 1) * 1000
    tg = [(int(k.rsplit("_", 1)[1]), v) for k, v in res.get("targets", {}).items()
          if k.startswith("cpu_percent_one_core_")]
    if tg:
        tg.sort()
        a1.plot([k for k, _ in tg], [v / 100 * period_ms for _, v in tg], "v", color="tab:red",
                label="target (% of a core at the period)", gid="cpu-target")
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel("open TCP connections")
    a1.set_ylabel(f"CPU time per sample (ms), 1 sample per {res.get('period_s', 1)} s")
    a1.legend()
    a1.grid(alpha=0.3, which="both")
    a2.plot(n, [r["reporter"]["rss_kib"] / 1024 for r in rows], "o-", color="tab:blue",
            label="RSS", gid="rss-reporter")
    a2.plot(n, [r["reporter"]["rss_anon_kib"] / 1024 for r in rows], "o:", color="tab:cyan",
            label="of it anonymous (heap, stacks)", gid="rss-anon-reporter")
    if res.get("targets", {}).get("rss_kib"):
        a2.axhline(res["targets"]["rss_kib"] / 1024, color="tab:red", ls=":", label="target",
                   gid="rss-target")
    a2.set_xscale("log")
    a2.set_ylim(0, None)
    a2.set_xlabel("open TCP connections")
    a2.set_ylabel("wlanfair-reportd memory (MiB)")
    a2.legend(loc="lower right")
    a2.grid(alpha=0.3)
    for a in (a1, a2):
        a.set_xticks(n)
        a.set_xticklabels([f"{x:,}".replace(",", " ") for x in n])
    title(fig, "Reporter cost against connections (1 s period, top 10 flows, netns veth)", res)
    fig.tight_layout()
    save(fig, path)


# ------------------------------------------------------------------- idle --

def idle_cost(res, path):
    """Wakeups per second of each daemon in each idle state, this build
    beside the baseline build when measured, against the targets; CPU
    seconds per hour and PSS beside."""
    plt = pyplot()
    rows = res["rows"]
    keys = []
    for r in rows:
        k = (r["daemon"], r["state"])
        if k not in keys:
            keys.append(k)
    builds = [b for b in ("baseline", "this") if any(r["build"] == b for r in rows)]
    colors = {"this": "tab:blue", "baseline": "tab:gray"}
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(14, 4.5))
    width = 0.8 / len(builds)
    for i, b in enumerate(builds):
        by = {(r["daemon"], r["state"]): r for r in rows if r["build"] == b}
        xs = [j + (i - (len(builds) - 1) / 2) * width for j in range(len(keys))]
        for ax, field in ((a1, "wakeups_per_s"), (a2, "cpu_s_per_hour"), (a3, "pss_kib")):
            hs = [by[k][field] / (1024 if field == "pss_kib" else 1) if k in by else 0 for k in keys]
            bars(ax, xs, hs, width, [f"{field}-{b}-{d}-{s}" for d, s in keys],
                 color=colors[b], label=f"{b} build")
    a1.plot(range(len(keys)), [next(r["target_wakeups_per_s"] for r in rows
                                    if (r["daemon"], r["state"]) == k) for k in keys],
            "v", color="tab:red", label="target (at most)", gid="target")
    labels = [f"{d.replace('wlanfair-', '')}\n{s}" for d, s in keys]
    for ax, ylabel in ((a1, "wakeups per second"), (a2, "CPU seconds per hour"),
                       (a3, "PSS (MiB)")):
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, axis="y")
    a1.legend(fontsize=8)
    title(fig, f"Idle cost of the station daemons ({res.get('seconds', '?')} s per state)", res)
    fig.tight_layout()
    save(fig, path)


# -------------------------------------------------------------- scan-dips --

def scan_dips_has_series(res):
    return any(row.get("series") for row in res.get("reps", []))


def scan_dips_bars(res, path):
    """Throughput of the bins inside and outside scan windows, per
    repetition, without and with the guard; scans per minute."""
    plt = pyplot()
    reps = res["reps"]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 1.3]})
    w = 0.2
    labels = []
    k = 0
    for phase in ("noguard", "guard"):
        for where_, hatch in (("in_scan", "//"), ("outside", "")):
            xs, hs, gids = [], [], []
            for i, row in enumerate(reps):
                v = row.get(f"{phase}_mbps_{where_}")
                if v is None:
                    a1.text(i + (k - 1.5) * w, 0.5, "no scan", rotation=90, ha="center",
                            va="bottom", fontsize=7)
                    continue
                xs.append(i + (k - 1.5) * w)
                hs.append(v)
                gids.append(f"bar-{phase}-{where_}-r{row['rep']}")
            lab = f"{'no guard' if phase == 'noguard' else 'guard'}, bins {'in a scan' if where_ == 'in_scan' else 'outside scans'}"
            if xs:
                bars(a1, xs, hs, w, gids, color=PHASE_COLORS[phase], hatch=hatch,
                     alpha=0.55 if where_ == "in_scan" else 0.9, edgecolor="k", lw=0.4, label=lab)
            labels.append(lab)
            k += 1
    a1.set_xticks(range(len(reps)))
    a1.set_xticklabels([f"rep {row['rep']}" for row in reps])
    a1.set_ylabel("download, mean of 0.5-s bins (Mbit/s)")
    a1.legend(fontsize=7, loc="lower right")
    a1.grid(axis="y", alpha=0.3)
    a1.set_title("throughput inside and outside scan windows ('no scan': none overlapped)")
    for j, phase in enumerate(("noguard", "guard")):
        bars(a2, [j], [res["mean"][phase]["scans_per_min_in_traffic"] or 0], 0.6,
             [f"bar-scans-{phase}"], color=PHASE_COLORS[phase])
        for row in reps:
            a2.plot([j], [row.get(f"{phase}_scans_per_min_in_traffic") or 0], "o", ms=3,
                    color="k", gid=f"scans-{phase}-r{row['rep']}")
    a2.set_xticks([0, 1])
    a2.set_xticklabels(["no guard", "guard"])
    a2.set_ylabel("scans started during traffic per minute")
    a2.grid(axis="y", alpha=0.3)
    a2.set_title(f"bgscan forced: {res.get('forced_bgscan')}")
    title(fig, f"Scan dips: {len(reps)} x 60 s downloads per phase, NetworkManager + wpa_supplicant "
               f"+ mac80211_hwsim", res)
    fig.tight_layout()
    save(fig, path)


def scan_dips_series(res, path):
    """Throughput over time with the scan windows shaded, without and with
    the guard, one row per repetition (recorded by bench/scan-dips since
    the plots: reps[i].series.{noguard,guard} = {bins: [[t, Mbit/s]],
    scans: [[start, end]]}, seconds from the traffic's start)."""
    plt = pyplot()
    reps = [row for row in res["reps"] if row.get("series")]
    fig, axes = plt.subplots(len(reps), 2, figsize=(11, 2.2 * len(reps) + 1.2), squeeze=False,
                             sharex=True, sharey=True)
    for i, row in enumerate(reps):
        for j, phase in enumerate(("noguard", "guard")):
            ax = axes[i][j]
            s = row["series"].get(phase)
            if not s:
                continue
            for n, (a, z) in enumerate(s["scans"]):
                ax.axvspan(a, z, color="tab:orange", alpha=0.35, lw=0,
                           gid=f"scan-{phase}-r{row['rep']}-{n}")
            ax.plot([b[0] for b in s["bins"]], [b[1] for b in s["bins"]], lw=0.9,
                    color=PHASE_COLORS[phase], gid=f"tput-{phase}-r{row['rep']}")
            ax.set_title(f"rep {row['rep']}, {'no guard' if phase == 'noguard' else 'guard'}: "
                         f"{len(s['scans'])} scans")
            ax.grid(alpha=0.3)
            if j == 0:
                ax.set_ylabel("Mbit/s (0.5 s)")
    for ax in axes[-1]:
        ax.set_xlabel("time from the download's start (s); shaded: scan windows (iw event)")
    axes[0][0].set_ylim(0, None)
    title(fig, "Scan dips: download throughput with the scans shaded", res)
    fig.tight_layout()
    save(fig, path)


# ------------------------------------------------------------- scan-guard --

def scan_guard(res, path):
    """Reaction times (each repetition) and CPU against the targets."""
    plt = pyplot()
    t = res.get("targets", {})
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(11, 3.8),
                                     gridspec_kw={"width_ratios": [1.3, 1, 1]})
    for i, (k, lab) in enumerate((("reaction_on_s", "traffic -> bgscan \"\""),
                                  ("reaction_off_s", "idle -> restored"))):
        v = res[k]["samples"]
        a1.plot([i] * len(v), v, "o", ms=4, alpha=0.6, gid=f"reaction-{k}")
        a1.plot([i - 0.2, i + 0.2], [res[k]["median"]] * 2, "k-", lw=1.5, gid=f"median-{k}")
    if t.get("reaction_on_s"):
        a1.plot([0], [t["reaction_on_s"]], "v", color="tab:red", label="target", gid="target-reaction_on")
        a1.legend(loc="upper left")
    a1.set_xticks([0, 1])
    a1.set_xticklabels(["traffic -> bgscan \"\"", "idle -> restored\n(holdoff 10 s)"])
    a1.set_ylabel("reaction time (s); dots: reps, line: median")
    a1.set_yscale("log")
    a1.grid(axis="y", alpha=0.3, which="both")
    cpu = res["cpu_percent_one_core"]
    bars(a2, [0, 1], [cpu["idle"], cpu["traffic"]], 0.6, ["bar-cpu-idle", "bar-cpu-traffic"],
         color=["tab:green", "tab:blue"])
    a2.set_ylim(0, max(cpu["idle"], cpu["traffic"], t.get("cpu_idle_percent") or 0) * 1.3)
    if t.get("cpu_idle_percent"):
        a2.axhline(t["cpu_idle_percent"], color="tab:red", ls=":", label="target (idle)", gid="target-cpu")
        a2.legend(loc="upper left")
    a2.set_xticks([0, 1])
    a2.set_xticklabels(["idle", f"{res.get('traffic_pps', '?')} packets/s"])
    a2.set_ylabel("CPU (% of one core)")
    a2.grid(axis="y", alpha=0.3)
    mem = res["memory_kib"]
    keys = [k for k in ("VmRSS", "RssAnon", "Pss") if k in mem["end"]]
    bars(a3, range(len(keys)), [mem["end"][k] / 1024 for k in keys], 0.6,
         [f"bar-mem-{k}" for k in keys], color="tab:gray")
    if t.get("rss_kib"):
        a3.axhline(t["rss_kib"] / 1024, color="tab:red", ls=":", label="target (RSS)", gid="target-rss")
        a3.legend(loc="upper right")
    a3.set_xticks(range(len(keys)))
    a3.set_xticklabels(keys)
    a3.set_ylabel("memory at the end (MiB)")
    a3.grid(axis="y", alpha=0.3)
    title(fig, f"Scan guard on mocked NetworkManager/wpa_supplicant ({res.get('reps')} reps)", res)
    fig.tight_layout()
    save(fig, path)


# ----------------------------------------------------------- ackloss-cost --

def ackloss_cost(res, path):
    """Throughput and CPU per GB of one flow over veth, cubic against
    ackloss_cubic, GSO on and off: every repetition and the median."""
    plt = pyplot()
    modes = [m for m in ("gso_on", "gso_off") if m in res["results"]]
    ccs = ("cubic", "ackloss_cubic")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for a, key, lab in ((axes[0], "gbit_s", "throughput (Gbit/s)"),
                        (axes[1], "cpu_s_per_gb", "CPU (s per GB, whole machine)")):
        for i, m in enumerate(modes):
            for k, cc in enumerate(ccs):
                r = res["results"][m][cc]
                x = i + (k - 0.5) * 0.4
                bars(a, [x], [r[key + "_median"]], 0.36, [f"bar-{key}-{m}-{cc}"],
                     color=CC_COLORS[cc], alpha=0.6, label=cc if i == 0 else None)
                a.plot([x] * len(r[key]), r[key], "o", ms=3, color="k", alpha=0.6,
                       gid=f"reps-{key}-{m}-{cc}")
        a.set_xticks(range(len(modes)))
        a.set_xticklabels([m.replace("_", " ").upper() for m in modes])
        a.set_ylabel(lab + "; bars: median")
        a.grid(axis="y", alpha=0.3)
        a.legend(loc="upper right")
    title(fig, f"ACK-loss CC cost: one flow over a veth pair, {res.get('reps')} x "
               f"{res.get('seconds')} s per CC", res)
    fig.tight_layout()
    save(fig, path)


# ---------------------------------------------------------- ap-controller --

def ap_controller_dynamic(res, path):
    """Per-station goodput and Jain's index over time, uncontrolled
    (actuator=none) against controlled (share + rate), dynamic stations."""
    plt = pyplot()
    runs = res["dynamic"]["runs"]
    phase = res["dynamic"].get("phase_s") or res["params"]["phase"]
    far = set(str(s) for s in res["dynamic"].get("far", []))
    fig, axes = plt.subplots(2, 2, figsize=(12, 6.5), sharex=True,
                             gridspec_kw={"height_ratios": [3, 1.4]})
    colors = ["tab:blue", "tab:red", "tab:green", "tab:gray", "tab:purple", "tab:brown"]
    ymax = max(max(v) for m in runs.values() for v in m["goodput_bps"].values()) / 1e6 * 1.08
    for col, mode in enumerate(("uncontrolled", "controlled")):
        r = runs[mode]
        ax, aj = axes[0][col], axes[1][col]
        for n, (i, v) in enumerate(sorted(r["goodput_bps"].items(), key=lambda kv: int(kv[0]))):
            ax.plot([k + 0.5 for k in range(len(v))], [x / 1e6 for x in v], color=colors[n % 6],
                    lw=1.2, label=f"sta{i} ({'far' if i in far else 'near'})",
                    gid=f"goodput-{mode}-sta{i}")
        j = r["jain_1s"]
        aj.plot([k + 0.5 for k in range(len(j)) if j[k] is not None], [x for x in j if x is not None],
                color="k", lw=1.1, label="Jain (iperf3, 1 s)", gid=f"jain-{mode}")
        sj = r.get("status_jain") or []
        aj.plot([k + 0.5 for k in range(len(sj)) if sj[k] is not None],
                [x for x in sj if x is not None], color="tab:orange", lw=0.9, ls="--",
                label="Jain (wlanfair-apd round)", gid=f"apd-jain-{mode}")
        aj.axhline(TARGET_JAIN, color="tab:purple", lw=0.8, ls=":", label=f"{TARGET_JAIN}")
        for p in r["phases"]:
            for a in (ax, aj):
                a.axvline(p["start_s"], color="0.6", lw=0.6)
            conv = "never" if p["converge_s"] is None else f"{p['converge_s']} s"
            ax.text(p["start_s"] + 1, ymax * 0.97, f"Jain {p['jain_steady']:.2f}\nconv {conv}",
                    va="top", fontsize=8)
        ax.set_title("uncontrolled (actuator=none)" if mode == "uncontrolled"
                     else "controlled (controller=share, actuator=rate)")
        ax.set_ylim(0, ymax)
        aj.set_ylim(0.4, 1.02)
        aj.set_xlabel(f"time (s); phases of {phase} s: 1+2 | 3 joins | 1 leaves | 1 rejoins")
        ax.grid(alpha=0.3)
        aj.grid(alpha=0.3)
    axes[0][0].set_ylabel("upload goodput (Mbit/s)")
    axes[1][0].set_ylabel("Jain (active stations)")
    axes[0][1].legend(loc="center right")
    axes[1][1].legend(loc="lower right", fontsize=7, ncol=3)
    title(fig, f"wlanfair-apd, dynamic stations (emulated BSS, {res['params']['capacity']}bit/s, "
               f"far frames cost {res['params']['far_cost']:g}x, "
               f"{res['params'].get('cc') or 'the system default CC'})", res)
    fig.tight_layout()
    save(fig, path)


def ap_controller_static(res, path):
    """Steady-state Jain, the time to Jain >= 0.97 (where the run has the
    10-s target: lossy cells) and total against the bound (throughput-fair;
    max-min in a lossy cell) per static and lossy scenario, uncontrolled
    against controlled (and both with ack-priority, "+ack", when the run
    compared them)."""
    plt = pyplot()
    rows = [t for t in res["table"] if not t["scenario"].startswith("dynamic")]
    with_time = any("meets" in t.get("controlled", {}) for t in rows)
    if with_time:
        fig, (a1, a3, a2) = plt.subplots(1, 3, figsize=(15, 4.6))
    else:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.3))
    modes = [(m, c) for m, c in (("uncontrolled", "tab:gray"), ("controlled", "tab:blue"),
                                 ("uncontrolled+ack", "tab:olive"),
                                 ("controlled+ack", "tab:green")) if m in rows[0]]
    w = 0.76 / len(modes)
    for k, (mode, c) in enumerate(modes):
        xs = [i + (k - (len(modes) - 1) / 2) * w for i in range(len(rows))]
        bars(a1, xs, [r[mode]["jain_steady"] for r in rows], w,
             [f"bar-jain-{mode}-{r['scenario']}" for r in rows], color=c, label=mode)
        bars(a2, xs, [r[mode]["total_of_bound"] for r in rows], w,
             [f"bar-bound-{mode}-{r['scenario']}" for r in rows], color=c, label=mode)
        if with_time and mode.startswith("controlled"):
            # Never fair: the whole run, hatched.
            run_s = res["params"]["duration"]
            conv = [r[mode]["converge_s"] for r in rows]
            cont = bars(a3, xs, [run_s if v is None else v for v in conv], w,
                        [f"bar-time-{mode}-{r['scenario']}" for r in rows], color=c)
            for patch, v in zip(cont.patches, conv):
                if v is None:
                    patch.set_hatch("//")
                    patch.set_alpha(0.4)
    a1.axhline(TARGET_JAIN, color="tab:purple", ls=":", lw=1, label=f"{TARGET_JAIN}")
    if with_time:
        a3.axhline(10, color="tab:red", ls=":", lw=1, label="10 s")
        a3.set_ylabel(f"controlled: s to 1-s Jain >= {TARGET_JAIN} for good")
    a2.axhline(1.0, color="k", ls=":", lw=1)
    prm = res["params"]
    a1.set_ylabel(f"steady-state Jain (last {prm.get('steady', 10)} s)")
    a2.set_ylabel("total / bound (throughput-fair; lossy: max-min)" if with_time
                  else "total / throughput-fair bound")
    # Down to the lowest bar: a starved cell's 0.3 is the point of the figure.
    lowest = min(r[m]["jain_steady"] for r in rows for m, _ in modes
                 if r[m].get("jain_steady") is not None)
    a1.set_ylim(max(0.0, min(0.4, math.floor((lowest - 0.05) * 10) / 10)), 1.02)
    for a in (a1, a2) + ((a3,) if with_time else ()):
        a.set_xticks(range(len(rows)))
        a.set_xticklabels([r["scenario"] for r in rows], rotation=45, ha="right")
        a.grid(axis="y", alpha=0.3)
    # Below the axes, not over the bars.
    handles, labels = a1.get_legend_handles_labels()
    if with_time:
        h3, l3 = a3.get_legend_handles_labels()
        handles, labels = handles + h3, labels + l3
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    where = ("every station near" if prm["far_cost"] == 1
             else f"half far, K = {prm['far_cost']:g}")
    regime = prm.get("sta_queue", "tsq")
    # Results from before --cc ran the machine's default CC (BBR here).
    cc = prm.get("cc") or "the system's default CC"
    title(fig, f"wlanfair-apd, static stations ({where}; {regime} station queues"
               + (f", AP buffer {prm['buffer']}" if "buffer" in prm else "")
               + f"; {cc}), {prm['capacity']}bit/s, {prm['duration']} s per run", res)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    save(fig, path)


# --------------------------------------------------------- metrics-series --

def metrics_series(res, path):
    """Series per Prometheus textfile: each reporter, the AP controller
    (last read, most at once, distinct over the run), the scan guard."""
    plt = pyplot()
    names, vals, gids, colors = [], [], [], []
    for sta, r in sorted(res["reporters"].items(), key=lambda kv: int(kv[0][3:]) if kv[0][3:].isdigit() else 0):
        names.append(f"reporter {sta}\n({r['direction']}, -P {r['parallel']})")
        vals.append(r["series_last"])
        gids.append(f"bar-reporter-{sta}")
        colors.append("tab:blue")
    if res.get("reporter_wifi_unit"):
        names.append("reporter, Wi-Fi\n(unit test)")
        vals.append(res["reporter_wifi_unit"]["series"])
        gids.append("bar-reporter-wifi")
        colors.append("tab:cyan")
    apd = res.get("apd")
    if apd:
        for k, lab in (("series_last", "last"), ("series_max", "most"), ("series_seen", "seen")):
            names.append(f"AP controller\n({lab})")
            vals.append(apd[k])
            gids.append(f"bar-apd-{k}")
            colors.append("tab:orange")
    bed = (res.get("scan_guard") or {}).get("bed") or {}
    for k in ("idle", "holding"):
        if k in bed:
            names.append(f"scan guard\n({k})")
            vals.append(bed[k]["series"])
            gids.append(f"bar-scan-guard-{k}")
            colors.append("tab:green")
    fig, ax = plt.subplots(figsize=(12, 4.2))
    bars(ax, range(len(vals)), vals, 0.7, gids, color=colors)
    for i, v in enumerate(vals):
        ax.text(i, v, str(v), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(vals)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("series in the textfile")
    ax.grid(axis="y", alpha=0.3)
    st = (res.get("testbed") or {}).get("stations")
    title(fig, f"Prometheus series per textfile ({st} stations, {res['params']['seconds']} s "
               f"of traffic, AP controller share + rate)", res)
    fig.tight_layout()
    save(fig, path)


# ----------------------------------------------------------------- registry --

# ------------------------------------------------------------------- rwnd --

def rwnd(res, path):
    """bench/rwnd: per-flow Mbit/s per mode (median, min-max) with the
    published totals marked; the game stream's inter-arrival and one-way
    delay percentiles per mode (medians over the repetitions)."""
    plt = pyplot()
    summ = res["summary"]
    modes = [m for m in ("uncontrolled", "equal", "rtt-fair") if m in summ]
    rtts = (30, 50, 100)
    pub = res.get("published") or {}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    w = 0.25
    for k, rtt in enumerate(rtts):
        xs = [i + (k - 1) * w for i in range(len(modes))]
        r = [summ[m]["rates_bps"][k] for m in modes]
        ys = [v["median"] / 1e6 for v in r]
        err = [[y - v["min"] / 1e6 for y, v in zip(ys, r)], [v["max"] / 1e6 - y for y, v in zip(ys, r)]]
        bars(ax1, xs, ys, w, [f"bar-{m}-{rtt}ms" for m in modes], yerr=err, capsize=3,
             label=f"{rtt} ms RTT")
    for i, m in enumerate(modes):
        tot = summ[m]["total_bps"]["median"] / 1e6
        ax1.plot([i - 1.5 * w, i + 1.5 * w], [tot / 3] * 2, color="k", lw=0.8, ls=":",
                 gid=f"total-{m}")
        ax1.annotate(f"total {tot:.1f}", (i, max(v["max"] for v in summ[m]["rates_bps"]) / 1e6 + 0.4),
                     ha="center", fontsize=8)
    for m, key, colour, text in (("equal", "equal_total_bps_below", "#aa3377", "published: equal total < %.0f"),
                                 ("rtt-fair", "rtt_fair_total_bps", "#228833", "published: rtt-fair ~%.0f")):
        if m in modes and pub.get(key):
            i = modes.index(m)
            ax1.plot([i - 0.45, i + 0.45], [pub[key] / 3e6] * 2, color=colour, lw=1.5, ls="--",
                     gid=f"published-{m}", label=(text % (pub[key] / 1e6)) + " (/ 3 per flow)")
    ax1.set_xticks(range(len(modes)), modes)
    ax1.set_ylabel("Mbit/s per flow (median, min-max)")
    cap = res.get("params", {}).get("capacity")
    ax1.set_title("three TCP downloads behind one bottleneck (dotted: our total / 3)"
                  + (f"; rwnd-capacity {float(cap) / 1e6:g} Mbit/s" if cap else ""))
    top = max(v["max"] for m in modes for v in summ[m]["rates_bps"]) / 1e6
    ax1.set_ylim(0, top * 1.45)
    ax1.legend(fontsize=7, loc="upper center", ncol=2)
    stats = (("ia_ms_p50", "inter-arrival p50"), ("ia_ms_p99", "inter-arrival p99"),
             ("owd_ms_p50", "one-way delay p50"), ("owd_ms_p99", "one-way delay p99"))
    w2 = 0.8 / len(stats)
    for k, (key, label) in enumerate(stats):
        xs = [i + (k - (len(stats) - 1) / 2) * w2 for i in range(len(modes))]
        ys = [summ[m]["game"][key]["median"] for m in modes]
        bars(ax2, xs, ys, w2, [f"bar-game-{m}-{key}" for m in modes], label=label)
    ax2.axhline(pub.get("game_interarrival_ms", 50), color="k", lw=0.6, ls="--",
                label="send spacing (published inter-arrival ~50 ms)")
    ax2.set_xticks(range(len(modes)), modes)
    ax2.set_ylabel("ms (median over repetitions)")
    ax2.set_title("UDP game stream, one datagram per 50 ms")
    ax2.legend(fontsize=7)
    title(fig, "rwnd (SAP-LAW): uncontrolled, equal windows, RTT-fair windows", res)
    fig.tight_layout()
    save(fig, path)


def _elsewhere(module, name):
    """A picture drawn in another bench/ module, which imports this one:
    imported when drawn, not here."""
    def draw(res, path):
        import importlib
        getattr(importlib.import_module(module), name)(res, path)
    return draw


ackloss_sweep = _elsewhere("wfplot_sweep", "ackloss_sweep")
traffic = _elsewhere("wfplot_traffic", "traffic")
scan_onoff = _elsewhere("wfplot_traffic", "scan_onoff")


# benchmark -> [(suffix, function, condition)]: RESULT.json gives
# RESULT<suffix>.svg for every entry whose condition holds.
PICTURES = {
    "ackloss": [("", ackloss_jain, None), ("-swm", ackloss_swm, None),
                ("-flows", ackloss_flows, ackloss_has_series)],
    "swm": [("", swm_cost, None)],
    "reporter": [("", reporter_cost, None)],
    "idle": [("", idle_cost, None)],
    "scan-dips": [("", scan_dips_bars, None), ("-series", scan_dips_series, scan_dips_has_series)],
    "scan-guard": [("", scan_guard, None)],
    "ackloss-cost": [("", ackloss_cost, None)],
    "ap-controller": [("-dynamic", ap_controller_dynamic, lambda r: bool(r.get("dynamic"))),
                      ("-static", ap_controller_static,
                       lambda r: any(not t["scenario"].startswith("dynamic") for t in r["table"]))],
    "metrics-series": [("", metrics_series, None)],
    "rwnd": [("", rwnd, None)],
    "ackloss-sweep": [("", ackloss_sweep, None)],
    "traffic": [("", traffic, None)],
    "scan-onoff": [("", scan_onoff, None)],
    "lab-traffic": [("", _elsewhere("wfplot_labtraffic", "lab_traffic"), None)],
    "scan-onoff-lab": [("", _elsewhere("wfplot_scanlab", "scan_onoff_lab"), None)],
    "ns3-cell": [("", _elsewhere("wfplot_ns3", "ns3_cell"), None)],
}


def benchmark_of(res):
    """The benchmark a result came from: its 'benchmark' key, else the first
    word of its command (bench/scan-dips records no 'benchmark')."""
    if res.get("benchmark"):
        return res["benchmark"]
    cmd = (res.get("command") or "").split()
    return os.path.basename(cmd[0]) if cmd else None


def pictures(res, json_path, out=None):
    """[(svg path, function)] for a result read from (or written to)
    json_path; out: another path whose stem names the pictures."""
    kind = benchmark_of(res)
    if kind not in PICTURES:
        raise ValueError(f"no pictures for benchmark {kind!r}")
    base = os.path.splitext(out or json_path)[0]
    return [(base + suffix + ".svg", fn) for suffix, fn, cond in PICTURES[kind]
            if cond is None or cond(res)]


def draw(res, json_path, out=None):
    """Draws every picture of a result; returns the paths written. Raises
    NoMatplotlib when python3-matplotlib is missing."""
    done = []
    for path, fn in pictures(res, json_path, out):
        fn(res, path)
        done.append(path)
    return done


def shown(path):
    """path relative to the working directory when below it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def after_results(prog, res, json_path, no_plot=False):
    """For a bench script, after it wrote its table and JSON: the pictures
    beside the JSON, or one line saying why not (then exit status 1)."""
    if no_plot:
        return
    try:
        paths = draw(res, json_path)
    except NoMatplotlib:
        sys.exit(f"{prog}: no picture: python3-matplotlib is missing (apt-get install "
                 f"python3-matplotlib, then bench/plot {shown(json_path)}); "
                 f"table and JSON are written")
    print(f"{prog}: pictures " + ", ".join(shown(p) for p in paths))
