"""The picture of bench/ackloss-sweep: a Jain map per capacity and CC
(bench/wfplot.py registers it; split out to keep that file one page of
picture kinds per benchmark family)."""
from wfplot import CC_COLORS, pyplot, save, title  # noqa: F401  (CC_COLORS: legend order)


def _axes(res):
    rows, bufs, caps = [], [], []
    for t in res["table"]:
        row = (t["mix"], t["delack"])
        if row not in rows:
            rows.append(row)
        if t["ap_buffer"] not in bufs:
            bufs.append(t["ap_buffer"])
        if t["capacity"] not in caps:
            caps.append(t["capacity"])
    ccs = [c for c in res["params"]["ccs"].split(",") if any(c in t["ccs"] for t in res["table"])]
    return rows, bufs, caps, ccs


def cell_gid(t, cc):
    return f"cell-{t['capacity']}-b{t['ap_buffer']}-{t['mix']}-delack{t['delack']}-{cc}"


def ackloss_sweep(res, path):
    """One panel per capacity (rows) and CC (columns): a square per mix and
    delayed-ACK setting (y) and AP buffer (x), coloured by Jain's index of
    the flows' means (mean of the repetitions), with the value written in;
    'S<n>': n starved flows; '<k>s': a flow delivered nothing for k s in a
    row (3 or more: RTO backoffs)."""
    plt = pyplot()
    from matplotlib.patches import Rectangle
    import matplotlib
    cmap = matplotlib.colormaps["RdYlGn"]
    rows, bufs, caps, ccs = _axes(res)
    table = {(t["capacity"], t["ap_buffer"], t["mix"], t["delack"]): t for t in res["table"]}
    fig, axes = plt.subplots(len(caps), len(ccs), squeeze=False,
                             figsize=(max(9.0, 2.2 + 0.75 * len(bufs) * len(ccs)),
                                      1.4 + (0.7 + 0.3 * len(rows)) * len(caps)))
    for r, cap in enumerate(caps):
        for c, cc in enumerate(ccs):
            ax = axes[r][c]
            for y, (mix, d) in enumerate(rows):
                for x, buf in enumerate(bufs):
                    t = table.get((cap, buf, mix, d))
                    v = t and t["ccs"].get(cc)
                    if not v:
                        continue
                    j = v["jain"]
                    # 0.5 and below are all red: the scale is for the
                    # range that matters (the targets are 0.8 and 0.9).
                    rect = Rectangle((x, y), 1, 1, facecolor=cmap(max(0.0, (j - 0.5) / 0.5)),
                                     edgecolor="white", linewidth=0.5)
                    rect.set_gid(cell_gid(t, cc))
                    ax.add_patch(rect)
                    mark = (f" S{v['starved']}" if v["starved"] else "") + \
                           (f" {v['longest_stall_s']}s" if v["longest_stall_s"] >= 3 else "")
                    ax.text(x + 0.5, y + 0.5, f"{j:.2f}{mark}", ha="center", va="center",
                            fontsize=6)
            ax.set_xlim(0, len(bufs))
            ax.set_ylim(len(rows), 0)
            ax.set_xticks([x + 0.5 for x in range(len(bufs))], [str(b) for b in bufs])
            ax.set_yticks([y + 0.5 for y in range(len(rows))],
                          [f"{m} {'dack' if d == 'on' else 'qack'}" for m, d in rows] if c == 0 else [])
            ax.tick_params(length=0, labelsize=7)
            ax.set_title(f"{cc}, {cap}bit/s", color=CC_COLORS.get(cc, "black"))
            if r == len(caps) - 1:
                ax.set_xlabel("AP buffer (packets)")
    p = res["params"]
    title(fig, f"Jain's index per cell, {res['regime']} station queues"
               + (", AP ack-priority" if p.get("ack_priority") else "")
               + f" ({p['duration']} s x {p['reps']}; S: starved flows, Ns: longest stall; "
               "dack/qack: delayed/quick ACKs)", res)
    fig.tight_layout()
    save(fig, path)
