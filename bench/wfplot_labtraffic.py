"""The picture of bench/lab-traffic (bench/wfplot.py registers it): the
lab's traffic scenario (trafgen over mac80211_hwsim, the AP shaped),
flow completion times per size class of the web mix and the published
measurement's per-client throughput per transfer, one colour per CC."""
from wfplot import CC_COLORS, bars, pyplot, save, title
from wfplot_traffic import published_panel

STATS = ("median", "p90", "p99")


def _ccs(res):
    return [c for c in res["params"]["ccs"].split(",") if any(r["cc"] == c for r in res["runs"])]


def lab_traffic(res, path):
    """bench/lab-traffic: the web mix's FCT per size class (median, p90,
    p99; log scale) and the published measurement's per-client
    per-transfer throughput (mean +- sd), per CC."""
    plt = pyplot()
    runs = [dict(r, summary=res["summaries"][r["phase"]]) for r in res["runs"]]
    ccs = _ccs(res)
    p = res["params"]
    web = {r["cc"]: r for r in runs if r["scenario"] == "web"}
    pub = [r for r in runs if r["scenario"].startswith("published")]
    panels = (1 if web else 0) + (1 if pub else 0)
    fig, axes = plt.subplots(1, max(1, panels), figsize=(6.2 * max(1, panels), 4.4), squeeze=False)
    col = 0
    if web:
        ax = axes[0][col]
        col += 1
        classes = []
        for r in web.values():
            classes += [k for k in r["summary"]["fct_s"] if k not in classes]
        w = 0.8 / (len(ccs) * len(STATS))
        for i, cc in enumerate(ccs):
            r = web.get(cc)
            if not r:
                continue
            for j, st in enumerate(STATS):
                xs, hs, gids = [], [], []
                for x, k in enumerate(classes):
                    v = r["summary"]["fct_s"].get(k)
                    if v and v.get(st) is not None:
                        xs.append(x + ((i * len(STATS) + j) - (len(ccs) * len(STATS) - 1) / 2) * w)
                        hs.append(v[st] * 1e3)
                        gids.append(f"bar-fct-{k}-{st}-{cc}")
                bars(ax, xs, hs, w, gids, color=CC_COLORS.get(cc), alpha=(1.0, 0.7, 0.4)[j],
                     label=f"{cc} {st}")
        ax.set_xticks(range(len(classes)),
                      [f"{k}B\n(n " + ", ".join(str(web[c]["summary"]["fct_s"].get(k, {}).get("n", 0))
                                                for c in ccs if c in web) + ")" for k in classes])
        ax.set_yscale("log")
        ax.set_ylabel("flow completion time (ms, log)")
        t = res.get("fct_target") or {}
        ratio = (f"; <100k p90 ackloss_cubic/cubic {t['ratio']:.2f}" if t.get("ratio") is not None else "")
        ax.set_title(f"web mix: 2 web clients beside 2 bulk uploads, {p['web_seconds']} s{ratio}",
                     fontsize=8)
        ax.legend(fontsize=6, ncol=2)
        ax.grid(axis="y", alpha=0.3)
    if pub:
        published_panel(axes[0][col], pub, ccs, f"{p['trials']} x 1 MB per client, 4 clients")
    title(fig, f"Traffic profiles in the Wi-Fi lab (mac80211_hwsim, 4 stations; the AP's Wi-Fi and "
               f"wired egress shaped to {p['rate']}, {p['queue']}-packet FIFO)", res)
    fig.tight_layout()
    save(fig, path)
