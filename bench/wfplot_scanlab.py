"""The picture of bench/scan-onoff-lab (bench/wfplot.py registers it): per
phase (no guard, each idle hold-off) a timeline of the on/off transfers,
the real scans ('iw event') and the time the guard allowed scans; beside
it the suppress/restore transitions per minute and the scans that started
during transfers per minute of transfer time."""
from wfplot import bars, pyplot, save, title
from wfplot_traffic import allowed_spans


def label(row):
    return "no guard" if row["holdoff_s"] is None else f"hold-off {row['holdoff_s']:g} s"


def scan_onoff_lab(res, path):
    plt = pyplot()
    rows = res["rows"]
    n = max(1, len(rows))
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 1.8 + 1.0 * n), gridspec_kw={"width_ratios": [3, 1.2]})
    for i, r in enumerate(rows):
        y = n - 1 - i
        ph = r["phase"]
        for k, (a, b) in enumerate(allowed_spans(r)):
            p = ax.axvspan(a, b, ymin=(y + 0.08) / n, ymax=(y + 0.92) / n, color="tab:red", alpha=0.13, lw=0)
            p.set_gid(f"allowed-{ph}-{k}")
        for k, (s, d) in enumerate(zip(r["transfer_starts_s"], r["transfer_s"])):
            b = ax.barh(y + 0.15, d, left=s, height=0.3, color="tab:blue")
            b.patches[0].set_gid(f"transfer-{ph}-{k}")
        for k, (s, e, outcome) in enumerate(r["scans_s"]):
            b = ax.barh(y - 0.2, max(0.0, e - s), left=s, height=0.22,
                        color="tab:orange" if outcome != "aborted" else "k")
            b.patches[0].set_gid(f"scan-{ph}-{k}")
    ax.set_yticks(range(n), [label(r) for r in reversed(rows)])
    ax.set_ylim(-0.5, n - 0.5)
    ax.set_xlabel("time (s); blue: transfers, orange: scans (iw event; black: aborted), "
                  "red: scans allowed (bgscan not \"\")")
    ax.set_title(f"{res['params']['trials']} downloads of {res['params']['size']}B per phase, "
                 f"the same seeded gaps; bgscan forced: {res.get('forced_bgscan')}", fontsize=9)
    xs = range(len(rows))
    w = 0.38
    bars(bx, [x - w / 2 for x in xs], [r["transitions_per_min"] or 0 for r in rows], w,
         [f"bar-transitions-{r['phase']}" for r in rows], color="tab:gray",
         label="bgscan writes (suppress + restore) per min")
    bars(bx, [x + w / 2 for x in xs], [r["scans_in_transfers_per_transfer_min"] or 0 for r in rows], w,
         [f"bar-scans-{r['phase']}" for r in rows], color="tab:orange",
         label="scans started in transfers per min of transfer")
    for x, r in zip(xs, rows):
        bx.annotate(f"{r['transfers_with_scan_start']}/{r['transfers']}", (x + w / 2,
                    r["scans_in_transfers_per_transfer_min"] or 0), ha="center", va="bottom", fontsize=7)
    bx.set_xticks(list(xs), ["none" if r["holdoff_s"] is None else f"{r['holdoff_s']:g} s" for r in rows])
    bx.set_xlabel("idle hold-off (n/N: transfers with a scan start)")
    top = max([r["transitions_per_min"] or 0 for r in rows] +
              [r["scans_in_transfers_per_transfer_min"] or 0 for r in rows] + [1])
    bx.set_ylim(0, top * 1.5)              # room for the legend above the bars
    bx.legend(fontsize=7, loc="upper right")
    bx.grid(axis="y", alpha=0.3)
    title(fig, "Scan guard under on/off traffic, real scans: NetworkManager + wpa_supplicant + "
               "mac80211_hwsim in the lab VM", res)
    fig.tight_layout()
    save(fig, path)
