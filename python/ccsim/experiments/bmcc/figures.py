"""The BMCC experiments' figures: throughput of the joining flows (Fig. 1), the
estimate against the load factor (Fig. 2), congestion windows over time (Figs. 3-10,
12), gain and loss against the RTT (Fig. 11) and the N-flow validation.

Source: Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009; settings and modelling decisions: docs/models/bmcc.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ccsim.experiments.framework import Data, save_figure

from .checks import gain_loss
from .run_metrics import _throughput_bins
from .scenarios import FIG1, MSS, PKT, ROUTERS

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd


def _cwnd_panel(ax, fl: pd.DataFrame, title: str, log: bool = False) -> None:
    """Congestion windows (packets) of every long-lived flow: BMCC solid, SACK dashed."""
    for k, (name, g) in enumerate(sorted(fl.groupby("flow"), key=lambda x: str(x[0]))):
        bmcc = str(name).startswith("bmcc")
        ax.plot(
            g["time_s"],
            g["cwnd_bytes"] / MSS,
            lw=0.7,
            ls="-" if bmcc else "--",
            color=f"C{k}",
            label=str(name),
        )
    ax.set_title(title, fontsize=9)
    ax.set_ylabel("cwnd (packets)")
    if log:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)


def _convergence_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fl = data.timeseries("flow", seed=1)
    qd = data.timeseries("qdisc", seed=1)
    bins = _throughput_bins(fl)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for k, name in enumerate(sorted(bins.columns)):
        rtt = FIG1[k][0]
        ax.plot(bins.index, bins[name] * PKT / MSS, lw=0.9, label=f"{name} (RTT {rtt:.0f} ms)")
    ax.plot(bins.index, bins.sum(axis=1) * PKT / MSS, lw=0.9, color="k", alpha=0.5, label="total")
    ax.axhline(100, ls=":", color="gray", lw=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput on the wire (Mb/s, 1-s bins)")
    ax.set_title("Fig. 1: three BMCC flows on a 100 Mb/s BMCC bottleneck")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    paths = save_figure(fig, outdir, "fig1-throughput")
    fig, ax = plt.subplots(figsize=(10, 4.5))
    lf = qd[qd["name"] == "load_factor"]
    ax.plot(lf["time_s"], lf["value"], lw=0.8, color="k", label="bottleneck load factor f")
    for k, (name, g) in enumerate(sorted(fl.groupby("flow"), key=lambda x: str(x[0]))):
        ax.plot(g["time_s"], g["cc_state"], lw=0.6, color=f"C{k}", label=f"{name}: estimate f̂")
    ax.set_ylim(0, 1.6)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("load factor")
    ax.set_title("Fig. 2: the bottleneck's load factor and the flows' estimates (echoed in ACKs)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return paths + save_figure(fig, outdir, "fig2-load-factor")


def _two_flow_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(15, 7), sharex=True)
    for j, (router, fig_no) in enumerate((("bmcc", "3"), ("droptail", "4"), ("red", "5"))):
        for i, T in enumerate((40.0, 300.0)):
            fl = data.timeseries("flow", router=router, rtt_ms=T, cross=True, seed=1)
            _cwnd_panel(
                axes[i, j], fl, f"Fig. {fig_no}: {ROUTERS[router]}, T = {T:.0f} ms", log=T > 100
            )
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.suptitle("Two BMCC flows over a BMCC, a drop-tail and a RED + ECN bottleneck")
    fig.tight_layout()
    return save_figure(fig, outdir, "figs3-5-two-bmcc-flows")


def _mix_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 7), sharex=True)
    for (router, T, label), ax in zip(
        (
            ("droptail", 40.0, "(a)"),
            ("droptail", 300.0, "(b)"),
            ("red", 40.0, "(c)"),
            ("red", 300.0, "(d)"),
        ),
        axes.flat,
    ):
        fl = data.timeseries("flow", fig="6", router=router, rtt_ms=T, seed=1)
        _cwnd_panel(ax, fl, f"Fig. 6{label}: T = {T:.0f} ms, {ROUTERS[router]}", log=True)
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.suptitle("Fig. 6: 3 BMCC (solid) and 3 SACK (dashed) flows over a non-BMCC bottleneck")
    fig.tight_layout()
    paths = save_figure(fig, outdir, "fig6-mix-non-bmcc")
    fig, axes = plt.subplots(1, 2, figsize=(13, 4), sharey=True)
    for fig_no, ax in zip(("7", "8"), axes):
        sack = "SACK" if fig_no == "7" else "SACK + ECN"
        fl = data.timeseries("flow", fig=fig_no, seed=1)
        _cwnd_panel(ax, fl, f"Fig. {fig_no}: 3 {sack} + 3 BMCC over a BMCC router, T = 40 ms")
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    return paths + save_figure(fig, outdir, "figs7-8-mix-bmcc-router")


def _modified_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 4))
    for (T, fig_no), ax in zip(((40.0, "9"), (300.0, "10")), axes):
        fl = data.timeseries("flow", rtt_ms=T, seed=1)
        _cwnd_panel(ax, fl, f"Fig. {fig_no}: 3 SACK+ECN + 3 BMCC, modified router, T = {T:.0f} ms")
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    return save_figure(fig, outdir, "figs9-10-modified-router")


def _gain_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    gl = gain_loss(data)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for tag, label, mk in (("bmcc", "BMCC (RTT T)", "o-"), ("sack10", "SACK (RTT 10 ms)", "s--")):
        axes[0].plot(gl["rtt_ms"], gl[f"G_{tag}"], mk, label=label)
        axes[1].plot(gl["rtt_ms"], gl[f"L_{tag}"], mk, label=f"SACK (RTT T) against {label}")
    axes[0].set_title("Fig. 11(a): gain G of the more aggressive flow")
    axes[1].set_title("Fig. 11(b): loss L of the SACK flow of RTT T")
    for ax in axes:
        ax.axhline(1.0, color="gray", ls=":", lw=1)
        ax.set_xlabel("T (ms)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, outdir, "fig11-gain-loss")


def _heuristic_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4), sharey=True)
    for (router, kind, title), ax in zip(
        (
            ("droptail", "bmcc-h", "Fig. 12: with the heuristic, drop-tail"),
            ("droptail", "bmcc", "Fig. 4: without it, drop-tail"),
            ("red", "bmcc-h", "with the heuristic, RED + ECN"),
        ),
        axes,
    ):
        fl = data.timeseries("flow", router=router, kind=kind, seed=1)
        _cwnd_panel(ax, fl, f"{title}, T = 40 ms")
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    return save_figure(fig, outdir, "fig12-heuristic")


def _validation_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    t = data.table
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for rtts, mk in (("equal", "o-"), ("unequal", "s--")):
        g = t[t["rtts"] == rtts].groupby("n")
        for ax, metric, label in zip(
            axes,
            ("utilization", "jain", "mean_queue_pkts"),
            ("utilization", "Jain's index", "mean queue (packets)"),
        ):
            ax.errorbar(
                g[metric].mean().index,
                g[metric].mean(),
                yerr=g[metric].std(),
                fmt=mk,
                capsize=3,
                label=f"{rtts} RTTs",
            )
            ax.set_xlabel("BMCC flows")
            ax.set_title(label)
            ax.set_xscale("log", base=2)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
    axes[0].axhline(0.98, ls=":", color="gray", lw=1)
    fig.suptitle("N BMCC flows over a 45 Mb/s BMCC bottleneck (mean ± sd over seeds)")
    fig.tight_layout()
    return save_figure(fig, outdir, "validation-n-flows")
