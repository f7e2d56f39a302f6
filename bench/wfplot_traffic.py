"""The picture of bench/traffic (bench/wfplot.py registers it): flow
completion times per size class of the web mix, and the published
measurement's per-client throughput per transfer, one colour per CC."""
from wfplot import CC_COLORS, bars, pyplot, save, title


def traffic(res, path):
    plt = pyplot()
    runs = res["runs"]
    ccs = [c for c in res["params"]["ccs"].split(",") if any(r["cc"] == c for r in runs)]
    web = {r["cc"]: r for r in runs if r["scenario"] == "web"}
    pub = [r for r in runs if r["scenario"].startswith("published")]
    panels = (1 if web else 0) + (1 if pub else 0)
    fig, axes = plt.subplots(1, max(1, panels), figsize=(6.2 * max(1, panels), 4.2), squeeze=False)
    col = 0
    if web:
        ax = axes[0][col]
        col += 1
        classes = []
        for r in web.values():
            classes += [k for k in r["summary"]["fct_s"] if k not in classes]
        stats = ("median", "p90", "p99")
        w = 0.8 / (len(ccs) * len(stats))
        for i, cc in enumerate(ccs):
            r = web.get(cc)
            if not r:
                continue
            for j, st in enumerate(stats):
                xs, hs, gids = [], [], []
                for x, k in enumerate(classes):
                    v = r["summary"]["fct_s"].get(k)
                    if v:
                        xs.append(x + ((i * len(stats) + j) - (len(ccs) * len(stats) - 1) / 2) * w)
                        hs.append(v[st] * 1e3)
                        gids.append(f"bar-fct-{k}-{st}-{cc}")
                bars(ax, xs, hs, w, gids, color=CC_COLORS.get(cc), alpha=(1.0, 0.7, 0.4)[j],
                     label=f"{cc} {st}")
        ax.set_xticks(range(len(classes)), [f"{k}B (n {web[ccs[0]]['summary']['fct_s'].get(k, {}).get('n', 0)})"
                                             if ccs[0] in web else k for k in classes])
        ax.set_yscale("log")
        ax.set_ylabel("flow completion time (ms, log)")
        ax.set_title(f"web mix: 8 web clients beside 2 bulk uploads, "
                     f"{res['params']['web_seconds']} s")
        ax.legend(fontsize=6, ncol=2)
        ax.grid(axis="y", alpha=0.3)
    if pub:
        published_panel(axes[0][col], pub, ccs, f"{res['params']['trials']} x 1 MB per client")
    p = res["params"]
    title(fig, f"Traffic profiles in the testbed ({p['capacity']}bit/s, AP buffer {p['ap_buffer']}, "
               f"{p['sta_queue']} station queues)", res)
    fig.tight_layout()
    save(fig, path)


def published_panel(ax, pub, ccs, heading):
    """The published measurement's per-client per-transfer throughput
    (mean +- sd) per CC, Jain between clients in the title; heading
    starts it (how many transfers, how many clients)."""
    names = []
    for r in pub:
        if r["scenario"] not in names:
            names.append(r["scenario"])
    clients = sorted({c for r in pub for c in r["summary"]["clients"]}, key=int)
    groups = [(n, c) for n in names for c in clients]
    w = 0.8 / len(ccs)
    for i, cc in enumerate(ccs):
        xs, hs, sd, gids = [], [], [], []
        for x, (n, c) in enumerate(groups):
            r = next((r for r in pub if r["scenario"] == n and r["cc"] == cc), None)
            v = r and r["summary"]["clients"].get(c)
            if v:
                xs.append(x + (i - (len(ccs) - 1) / 2) * w)
                hs.append(v["mean_bps"] / 1e6)
                sd.append(v["var_bps2"] ** 0.5 / 1e6)
                gids.append(f"bar-pub-{n}-{c}-{cc}")
        bars(ax, xs, hs, w, gids, color=CC_COLORS.get(cc), label=cc, yerr=sd,
             error_kw={"elinewidth": 0.7, "capsize": 1.5})
    ax.set_xticks(range(len(groups)), [f"{n.split('-')[1][:2]} c{c}" for n, c in groups],
                  fontsize=7)
    ax.set_ylabel("per-transfer throughput, mean +- sd (Mbit/s)")
    jains = "\n".join(
        f"{n.split('-')[1]}s: " + ", ".join(f"{r['cc']} {r['summary']['jain_clients']:.3f}"
                                          for r in pub if r["scenario"] == n
                                          and r["summary"]["jain_clients"] is not None)
        for n in names)
    ax.set_title(f"{heading} (do: download, up: upload); "
                 f"Jain between clients:\n{jains}", fontsize=7)
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)



def allowed_spans(row):
    """[(a, b)] seconds from the phase's start where bgscan was not "":
    from the start (or a restore) to a suppression, from the guard's
    writes (row["writes_s"]: [(t, value)])."""
    t, allowed, spans = 0.0, True, []
    for wt, value in row["writes_s"]:
        now = value != ""
        if allowed and not now:
            spans.append((t, wt))
        if now and not allowed:
            t = wt
        allowed = now
    if allowed:
        spans.append((t, row["seconds"]))
    return spans

def scan_onoff(res, path):
    """bench/scan-onoff: per idle hold-off, a timeline (transfers as bars,
    the time scans were allowed shaded) and the counts beside it."""
    plt = pyplot()
    rows = res["rows"]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 1.6 + 0.9 * len(rows)),
                                 gridspec_kw={"width_ratios": [3, 1]})
    for y, r in enumerate(rows):
        h = r["holdoff_s"]
        for k, (a, b) in enumerate(allowed_spans(r)):
            p = ax.axvspan(a, b, ymin=(len(rows) - 1 - y + 0.1) / len(rows),
                           ymax=(len(rows) - y - 0.1) / len(rows), color="tab:red", alpha=0.18, lw=0)
            p.set_gid(f"allowed-{h:g}-{k}")
        for k, (s, d) in enumerate(zip(r["transfer_starts_s"], r["transfer_s"])):
            b = ax.barh(len(rows) - 1 - y, d, left=s, height=0.45, color="tab:blue")
            b.patches[0].set_gid(f"transfer-{h:g}-{k}")
    ax.set_yticks(range(len(rows)), [f"hold-off {r['holdoff_s']:g} s" for r in reversed(rows)])
    ax.set_xlabel("time (s); blue: transfers, red: scans allowed (bgscan not \"\")")
    ax.set_title("on/off transfers (gaps 4-16 s) and the scan guard", fontsize=9)
    xs = range(len(rows))
    w = 0.38
    bars(bx, [x - w / 2 for x in xs], [r["writes_per_min"] for r in rows], w,
         [f"bar-writes-{r['holdoff_s']:g}" for r in rows], color="tab:gray", label="bgscan writes/min")
    bars(bx, [x + w / 2 for x in xs], [r["starts_allowed"] for r in rows], w,
         [f"bar-starts-{r['holdoff_s']:g}" for r in rows], color="tab:red",
         label="transfer starts, scans allowed")
    bx.set_xticks(list(xs), [f"{r['holdoff_s']:g} s" for r in rows])
    bx.set_xlabel("idle hold-off")
    bx.legend(fontsize=7)
    bx.grid(axis="y", alpha=0.3)
    title(fig, f"Scan guard under on/off traffic ({len(rows[0]['transfer_s']) if rows else 0} transfers "
               f"of {res['params']['size']}B at {res['params']['rate']}, mocked NetworkManager)", res)
    fig.tight_layout()
    save(fig, path)
