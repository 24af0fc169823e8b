"""The BUC + RFCN experiments' figures: the per-conversation queues converging
(Fig. 7, paper §5) and the four schemes side by side (Fig. 8, paper §6).

Source: Ziegler & Clausen, IEEE IPCCC 1997; both figures are lost, and
docs/models/buc-rfcn.md ("Expected results and tolerances") gives what the text says
they showed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ccsim.experiments.framework import Data, save_figure

from .run_metrics import _queues
from .scenarios import ACCESS_MS, SCHEMES, SEND_JITTER, TBU, VARIANTS


def _convergence_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    paths = []
    for run in ("paper", "geo"):
        ev = data.timeseries("component_events", run=run)
        duration = 50.0
        grid, q = _queues(ev, duration)
        fig, (ax, axw) = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
        # The sum first, so that FTP1's queue (equal to it while alone) stays visible.
        ax.plot(grid, sum(q.values()), lw=2.0, color="k", alpha=0.35, label="sum of queues")
        for f, v in q.items():
            ax.plot(grid, v, lw=0.8, label=f"{f} queue")
        tql = ev[ev["name"] == "tql"]
        t = [*tql["time_s"], duration]
        ax.step(
            t,
            [*tql["value"], tql["value"].iloc[-1]],
            where="post",
            ls="--",
            color="gray",
            label="TQL = TBU / N",
        )
        ax.axhline(TBU, ls=":", color="gray", label="TBU")
        ax.set_ylabel("packets")
        ax.set_title("per-conversation queues at the BUC gateway (the paper's Fig. 7)")
        win = ev[ev["name"] == "window"]
        for f, g in win.groupby("flow"):
            axw.step(g["time_s"], g["value"], where="post", lw=0.8, label=f"{f} W_cur")
        axw.set_ylabel("BUC window (packets)")
        axw.set_xlabel("time (s)")
        for a in (ax, axw):
            a.grid(True, alpha=0.3)
            a.legend(fontsize=7, ncol=3)
        rate, delay = VARIANTS[data.rows(run=run)["variant"].iloc[0]]
        fig.suptitle(f"BUC convergence, three FTPs joining at 0/10/20 s ({rate}, {delay} one way)")
        paths += save_figure(fig, outdir, f"fig7-convergence-{run}")
    return paths


def _comparison_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(SCHEMES), 1, figsize=(11, 9), sharex=True, sharey=True)
    for ax, (s, label) in zip(axes, SCHEMES.items()):
        q = data.timeseries("queue", scheme=s, rep=1, flows=8)
        ax.plot(q["time_s"], q["packets"], lw=0.5)
        ax.set_title(label, fontsize=9)
        ax.set_ylabel("queue (pkts)")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(0, 100)
    fig.suptitle("Queue at gateway 1, first 100 s (the paper's Fig. 8 traces)")
    paths = save_figure(fig, outdir, "fig8-queues")

    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.2
    x = np.arange(len(ACCESS_MS))
    for k, (s, label) in enumerate(SCHEMES.items()):
        rows = data.rows(scheme=s, flows=8, jitter=SEND_JITTER)  # as the checks
        tp = [rows[f"tp_{i + 1}"].mean() for i in range(len(ACCESS_MS))]
        ax.bar(x + (k - 1.5) * width, tp, width, label=label)
    ax.set_xticks(x, [f"ftp{i + 1}\n{d} ms" for i, d in enumerate(ACCESS_MS)])
    ax.set_ylabel("throughput TP (packets)")
    ax.set_title(
        f"Per-conversation throughput by scheme, replications with {SEND_JITTER} send jitter "
        "(access delay under each flow)"
    )
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    paths += save_figure(fig, outdir, "fig8-throughput")
    return paths
