"""The BLT reproduction's figures: power, response time and throughput against λ
per group of networks (Figs. 6-29), utilization (Fig. 7), queue traces (Fig. 8), TCP's
timer sensitivity and the maximum power (Figs. 30-31).

Source: Kim & Farber, MS-CIS-94-55, 1994 (§ numbers are its sections); the modelling
decisions L1-L15 are those of docs/models/blt.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ccsim.experiments.framework import Data, save_figure

from .aggregate import _series, log_pm
from .scenarios import CONFIGS, GROUPS, PKT, PROTOCOLS


STYLE = {"tcp": ("C0", "o-"), "blt": ("C1", "s-"), "blt-fixed": ("C2", "^--"), "bt": ("C3", "d:")}


def _group_plot(d: Data, outdir: Path, group: str, figs: str) -> list[Path]:
    import matplotlib.pyplot as plt

    cfgs = [c for c in CONFIGS if c.group == group]
    fig, axes = plt.subplots(len(cfgs), 4, figsize=(17, 3.4 * len(cfgs)), squeeze=False)
    adj = group == "10kb"
    for i, cfg in enumerate(cfgs):
        for proto, label in PROTOCOLS.items():
            s = _series(d, cfg.key, proto)
            ok, bad = s[~s["diverged"]], s[s["diverged"]]
            color, mk = STYLE[proto]
            r_col, p_col = ("r_adj_s", "power_adj") if adj else ("r_s", "power")
            if len(ok):
                # R with its 90 % confidence interval over the replications.
                axes[i, 0].errorbar(
                    ok["lam"],
                    ok[r_col],
                    yerr=ok["r_ci"].fillna(0),
                    fmt=mk,
                    color=color,
                    label=label,
                    ms=4,
                    capsize=2,
                )
                axes[i, 1].plot(ok["lam"], ok["theta_pess"] * 8 / 1e6, mk, color=color, ms=4)
                axes[i, 2].plot(ok["lam"], ok[p_col], mk, color=color, ms=4)
                axes[i, 3].plot(ok["lam"], ok["jain"], mk, color=color, ms=4)
            for lam in bad["lam"]:  # divergence marked on the R axis
                axes[i, 0].annotate(
                    "×",
                    (lam, 1.0),
                    xycoords=("data", "axes fraction"),
                    color=color,
                    ha="center",
                    va="top",
                    fontsize=13,
                )
        for j, (title, log) in enumerate(
            (
                ("R' = R − D/2 (s)" if adj else "response time R (s)", True),
                ("Θ (Mb/s)", False),
                ("power Θ/R (B/s²)", True),
                ("Jain (Θ_i = F/R_i)", False),
            )
        ):
            ax = axes[i, j]
            ax.set_title(f"{title}, BW_b = {cfg.bw_b:g} Mb/s", fontsize=9)
            ax.set_yscale("log" if log else "linear")
            ax.axvline(cfg.capacity(), color="gray", ls=":", lw=1)
            ax.grid(True, alpha=0.3)
        axes[i, 0].legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("λ (connections/s); × = diverged; dotted: BW_b/(8F)")
    fig.suptitle(f"{GROUPS[group]} — paper Figs. {figs}")
    fig.tight_layout()
    return save_figure(fig, outdir, f"blt-{group}")


def _reference_extras(d: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    paths = []
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.8))
    for ax, bw in zip(axes, (30, 90, 150)):
        for proto, label in PROTOCOLS.items():
            s = _series(d, f"reference/{bw}", proto)
            color, mk = STYLE[proto]
            ax.plot(s["lam"], s["utilization"], mk, color=color, label=label, ms=4)
        ax.set_title(f"Fig. 7: bottleneck utilization, BW_b = {bw} Mb/s", fontsize=9)
        ax.set_xlabel("λ (connections/s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    paths += save_figure(fig, outdir, "fig7-utilization")
    fig, axes = plt.subplots(2, 1, figsize=(12, 5.5), sharex=True)
    for ax, proto in zip(axes, ("tcp", "blt")):
        q = d.timeseries("queue", config="reference/30", protocol=proto, variant="trace")
        q = q[(q["time_s"] >= 10) & (q["time_s"] < 14)]
        ax.plot(q["time_s"], q["bytes"] / PKT, lw=0.6, color=STYLE[proto][0])
        ax.set_ylabel("queue (packets)")
        ax.set_title(
            f"Fig. 8: queue at S1, {PROTOCOLS[proto]}, BW_b = 30 Mb/s, λ = 20 conn/s", fontsize=9
        )
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    paths += save_figure(fig, outdir, "fig8-queue-traces")
    fig, ax = plt.subplots(figsize=(8, 4))
    for variant, label, mk in (
        ("", "TCP, min RTO 2·D, 1-ms clock (L6)", "o-"),
        ("tcp-rto200ms", "TCP, min RTO 200 ms", "v--"),
        ("tcp-tick500ms", "TCP, 500-ms tick (BSD)", "x:"),
    ):
        s = _series(d, "reference/30", "tcp", variant)
        s = s[~s["diverged"]]
        ax.plot(s["lam"], s["r_s"], mk, label=label)
    b = _series(d, "reference/30", "blt")
    ax.plot(b["lam"], b["r_s"], "s-", color="C1", label="BLT")
    ax.set_yscale("log")
    ax.set_xlabel("λ (connections/s)")
    ax.set_ylabel("R (s)")
    ax.set_title("TCP's timer (L6) on the reference 30 Mb/s network", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return paths + save_figure(fig, outdir, "tcp-timer-sensitivity")


def _summary_plot(d: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    cfgs = [c for c in CONFIGS if c.size == 100_000]
    fig, ax = plt.subplots(figsize=(15, 4.5))
    x = np.arange(len(cfgs))
    for k, (proto, label) in enumerate(PROTOCOLS.items()):
        vals = []
        for c in cfgs:
            try:
                vals.append(log_pm(d, c.key, proto))
            except ValueError:
                vals.append(np.nan)
        ax.bar(x + (k - 1.5) * 0.2, vals, 0.2, label=label, color=STYLE[proto][0])
    ax.set_xticks(x, [f"{c.group}\n{c.bw_b:g}" for c in cfgs], fontsize=7)
    ax.set_ylabel("log10 P_m (B/s²)")
    ax.set_ylim(bottom=3)
    ax.set_title("Figs. 30-31: maximum power per configuration, F = 100 KB")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, outdir, "figs30-31-max-power")


FIGURES = {
    "reference": "6, 9-11",
    "gbps": "12-13",
    "d3ms": "15-16",
    "d1.8ms": "17-18",
    "slow": "19-20",
    "1mb-150": "21-22",
    "1mb-gbps": "23-24",
    "10kb": "25-27",
}


def plot(data: Data, outdir: Path) -> list[Path]:
    paths = []
    for group, figs in FIGURES.items():
        paths += _group_plot(data, outdir, group, figs)
    return paths + _reference_extras(data, outdir) + _summary_plot(data, outdir)
