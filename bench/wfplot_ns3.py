"""The picture of bench/ns3-cell (wfplot.PICTURES): per A-MPDU setting, each
station's goodput in the model (ns-3's own TCP), uncontrolled, and under
wlanfair-apd with each objective; Jain and the total against the fair
bound above each group; and the stations' reporters against iperf3 (the
mean of each station in each run, one point each)."""
from wfplot import bars, pyplot, save, title

MODES = [("model", "model (ns-3 TCP)"), ("uncontrolled", "uncontrolled"),
         ("throughput", "apd: throughput"), ("airtime", "apd: airtime")]
COLORS = {"1": "#d62728", "2": "#1f77b4"}


def ns3_cell(res, path):
    plt = pyplot()
    cells = res["cells"]
    fig, axes = plt.subplots(1, len(cells) + 1, figsize=(5 * len(cells) + 4, 4), squeeze=False)
    reporter(axes[0][-1], cells)
    for ax, cell in zip(axes[0], cells):
        mcs = cell["mcs"]
        for k, (mode, label) in enumerate(MODES):
            if mode == "model":
                vals = cell["model"]["pair_bps"]
                note = ""
            else:
                run = cell["runs"].get(mode)
                if not run:
                    continue
                vals = run["station_bps"]
                note = f"J {run['jain_steady']:.2f}\n{run['total_of_bound']:.2f}x"
            for j, sta in enumerate(sorted(vals)):
                bars(ax, [k + (j - 0.5) * 0.38], [vals[sta] / 1e6], 0.36,
                     [f"ns3-{'on' if cell['ampdu'] else 'off'}-{mode}-{sta}"],
                     color=COLORS.get(sta, "grey"),
                     label=f"MCS {mcs[sta]}" if k == 0 else None)
            if note:
                ax.annotate(note, (k, max(v for v in vals.values()) / 1e6), ha="center",
                            va="bottom", fontsize=7)
        ax.set_xticks(range(len(MODES)))
        ax.set_xticklabels([m[1] for m in MODES], rotation=15, fontsize=7)
        ax.set_ylabel("goodput, Mbit/s (last 10 s)")
        ax.set_title(f"A-MPDU {'on' if cell['ampdu'] else 'off'}"
                     + (f"  REJECTED: {cell['rejected']}" if cell.get("rejected") else ""))
        ax.legend(fontsize=7)
        ax.margins(y=0.2)
    title(fig, "ns-3 802.11n cell (real time): MCS 0 and MCS 7 uploading", res)
    fig.tight_layout()
    save(fig, path)


def reporter(ax, cells):
    top = 0.0
    for cell in cells:
        for mode, run in sorted(cell["runs"].items()):
            for sta, v in sorted(run.get("reporter", {}).items()):
                if not v.get("seconds"):
                    continue
                x, y = v["iperf3_bps"] / 1e6, v["report_bps"] / 1e6
                top = max(top, x, y)
                ax.plot([x], [y], "o" if cell["ampdu"] else "s", ms=5,
                        color=COLORS.get(sta, "grey"), alpha=0.8,
                        gid=f"ns3-report-{'on' if cell['ampdu'] else 'off'}-{mode}-{sta}")
    ax.plot([0, top * 1.05], [0, top * 1.05], color="grey", lw=0.8, ls="--", gid="ns3-report-even")
    ax.set_xlabel("iperf3's receiver, Mbit/s")
    ax.set_ylabel("wlanfair-reportd, Mbit/s")
    ax.set_title("reporter against iperf3 (squares: A-MPDU off)", fontsize=9)
