"""Plots of one run or several: what ``ccsim plot``, ``ccsim run --plot``,
``Results.plot()`` and ``ccsim compare --plot`` draw.

Panels (each drawn when the run has its data):

``queue``
    Queue length over time (packets) for the sampled queues (``[monitor]``).
``cwnd``
    Congestion window and slow-start threshold over time (KB) per TCP flow.
``throughput``
    Per-flow throughput over time (Mbit/s): delivered bytes between samples.
``rtt``
    Smoothed RTT over time (ms) per TCP flow.
``drops``
    Drops (by reason) and ECN marks: over time per link when the run has a
    packet trace (``[trace]``), else per queue over the measurement window.

Time series need ``[monitor] interval = ...``; a run without them gets the
``drops`` panel only. Flows beyond the first ``MAX_LINES`` are left out of the
line plots (the title says how many are shown).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ccsim.columns import RunTables

__all__ = ["PANELS", "figure", "save", "overlay", "available", "sweep_plot"]

PANELS = ("queue", "cwnd", "throughput", "rtt", "drops")
MAX_LINES = 10
_INF_BYTES = 2**60  # ssthresh at or above this is "infinite" (not drawn)


def _mpl():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "svg", "pdf") and not _interactive():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _interactive() -> bool:
    import sys

    return "ipykernel" in sys.modules


def _ts(r: RunTables, name: str):
    df = r.timeseries.get(name)
    return df if df is not None and len(df) else None


def _tcp_flows(r: RunTables) -> list[str]:
    f = r.flows
    return list(f.loc[f["kind"] == "tcp", "name"])


def available(r: RunTables) -> list[str]:
    """The panels ``r`` has data for."""
    out = []
    q, f = _ts(r, "queue"), _ts(r, "flow")
    if q is not None:
        out.append("queue")
    if f is not None:
        tcp = set(_tcp_flows(r))
        if tcp & set(f["flow"]):
            out += ["cwnd"]
        out.append("throughput")
        if tcp & set(f["flow"]):
            out.append("rtt")
    out.append("drops")
    return out


def _shown(names: Sequence[str]) -> tuple[list[str], str]:
    names = list(dict.fromkeys(names))
    if len(names) <= MAX_LINES:
        return names, ""
    return names[:MAX_LINES], f" (first {MAX_LINES} of {len(names)})"


def _style(ax, ylabel: str, integer: bool = False, xlabel: str = "time (s)") -> None:
    from matplotlib.ticker import MaxNLocator, ScalarFormatter

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    fmt = ScalarFormatter(useOffset=False)
    fmt.set_scientific(False)
    ax.yaxis.set_major_formatter(fmt)
    if integer:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)


def _legend(ax) -> None:
    h, labels = ax.get_legend_handles_labels()
    if labels:
        ax.legend(fontsize=7, ncol=2 if len(labels) > 5 else 1)


def _throughput(df):
    """Per-flow throughput between samples (Mbit/s), indexed like ``df``."""
    df = df.sort_values(["flow", "time_s"])
    d_bytes = df.groupby("flow", sort=False)["delivered_bytes"].diff()
    d_t = df.groupby("flow", sort=False)["time_s"].diff()
    return df.assign(mbps=d_bytes * 8 / d_t / 1e6).dropna(subset=["mbps"])


def _draw(panel: str, ax, runs: list[tuple[str, RunTables]]) -> bool:
    """Draws ``panel`` for each run (label prefix = its name when several)."""
    multi = len(runs) > 1
    drew = False
    note = ""
    for name, r in runs:
        pre = f"{name}: " if multi else ""
        if panel == "queue":
            q = _ts(r, "queue")
            if q is None:
                continue
            qs, note = _shown(q["queue"])
            for qn in qs:
                d = q[q["queue"] == qn]
                ax.plot(d["time_s"], d["packets"], label=f"{pre}{qn}", lw=0.8)
                drew = True
            _style(ax, "queue length (packets)", integer=True)
            ax.set_title("queue length" + note)
        elif panel in ("cwnd", "rtt"):
            f = _ts(r, "flow")
            if f is None:
                continue
            names, note = _shown([n for n in f["flow"].unique() if n in set(_tcp_flows(r))])
            for fn in names:
                d = f[f["flow"] == fn]
                if panel == "cwnd":
                    (ln,) = ax.plot(
                        d["time_s"], d["cwnd_bytes"] / 1e3, label=f"{pre}{fn} cwnd", lw=0.8
                    )
                    ss = d["ssthresh_bytes"].where(d["ssthresh_bytes"] < _INF_BYTES)
                    if ss.notna().any():
                        ax.plot(
                            d["time_s"],
                            ss / 1e3,
                            ls="--",
                            lw=0.8,
                            color=ln.get_color(),
                            label=f"{pre}{fn} ssthresh",
                        )
                else:
                    ax.plot(d["time_s"], d["srtt_s"] * 1e3, label=f"{pre}{fn}", lw=0.8)
                drew = True
            if panel == "cwnd":
                _style(ax, "window (KB)")
                ax.set_title("congestion window (solid) and ssthresh (dashed)" + note)
            else:
                _style(ax, "smoothed RTT (ms)")
                ax.set_title("round-trip time" + note)
        elif panel == "throughput":
            f = _ts(r, "flow")
            if f is None:
                continue
            t = _throughput(f)
            names, note = _shown(list(f["flow"].unique()))
            for fn in names:
                d = t[t["flow"] == fn]
                ax.plot(d["time_s"], d["mbps"], label=f"{pre}{fn}", lw=0.8)
                drew = True
            _style(ax, "throughput (Mbit/s)")
            ax.set_title("per-flow throughput (delivered bytes per sample interval)" + note)
        elif panel == "drops":
            drew |= _draw_drops(ax, r, pre, multi)
    if drew and panel != "drops":
        _legend(ax)
    return drew


def _draw_drops(ax, r: RunTables, pre: str, multi: bool) -> bool:
    tr = r.trace
    if tr is not None and len(tr) and not multi:
        ev = tr[tr["event"].isin(["drop", "mark"])]
        if not len(ev):
            return False
        for (link, kind), d in ev.groupby(["link", "event"], observed=True):
            ax.step(d["time_s"], range(1, len(d) + 1), where="post", label=f"{link} {kind}s")
        _style(ax, "cumulative count (packets)", integer=True)
        ax.set_title("drops and ECN marks over time (packet trace)")
        _legend(ax)
        return True
    q = r.queues
    cols = [c for c in q.columns if c.startswith("drops_")] + ["marks"]
    q = q[(q["drops"] > 0) | (q["marks"] > 0)]
    if not len(q):
        if not ax.has_data():
            ax.text(0.5, 0.5, "no drops or marks", ha="center", va="center", transform=ax.transAxes)
            ax.set_title("drops and ECN marks per queue")
            ax.set_xticks([])
            _style(ax, "packets", integer=True, xlabel="queue")
        return True
    cols = [c for c in cols if q[c].sum() > 0]
    import numpy as np

    x = np.arange(len(q))
    width = 0.8 / len(cols)
    for k, c in enumerate(cols):
        label = c.replace("drops_", "drops: ") if c != "marks" else "ECN marks"
        ax.bar(x + k * width, q[c], width, label=pre + label)
    ax.set_xticks(x + 0.4 - width / 2, [pre + n for n in q["queue"]], fontsize=7)
    _style(ax, "packets", integer=True, xlabel="queue")
    warm = r.summary.get("warmup_s", 0) or 0
    ax.set_title(f"drops and ECN marks per queue (after warm-up, {warm:g} s)")
    _legend(ax)
    return True


def figure(r: RunTables, what: Sequence[str] | None = None):
    """One figure with a panel per item of ``what`` (default: every available one)."""
    return _figure([("", r)], what or available(r))


def _figure(runs, panels):
    plt = _mpl()
    panels = [p for p in panels if p in PANELS]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.8 * len(panels)), squeeze=False)
    for p, ax in zip(panels, axes[:, 0]):
        if not _draw(p, ax, runs):
            ax.set_title(f"{p}: no data")
    fig.tight_layout()
    return fig


def save(
    r: RunTables, out: str | Path, fmt: str = "png", what: Sequence[str] | None = None
) -> list[Path]:
    """Write one file per panel, ``<out>/<panel>.<fmt>`` (``png`` or ``svg``)."""
    return _save([("", r)], out, fmt, what or available(r), prefix="")


def overlay(
    runs: Sequence[tuple[str, RunTables]], out: str | Path, fmt: str = "png", what=None
) -> list[Path]:
    """Overlay the time series of several runs, one file per panel
    (``<out>/compare-<panel>.<fmt>``); lines are labelled ``<run name>: <series>``."""
    panels = what or [p for p in PANELS if p != "drops" and all(p in available(r) for _, r in runs)]
    return _save(list(runs), out, fmt, panels, prefix="compare-")


def _save(runs, out, fmt, panels, prefix) -> list[Path]:
    if fmt not in ("png", "svg"):
        raise ValueError(f"plot format: got {fmt!r}, expected 'png' or 'svg'")
    plt = _mpl()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for p in panels:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        if _draw(p, ax, runs):
            fig.tight_layout()
            path = out / f"{prefix}{p}.{fmt}"
            fig.savefig(path, dpi=120)
            paths.append(path)
        plt.close(fig)
    return paths


def sweep_plot(df, x: str, y: str, out: str | Path, fmt: str = "png", level: float = 0.95) -> Path:
    """A sweep's metric ``y`` against its parameter ``x`` (``ccsim plot STORE --x --y``):
    the mean over replications with its ``level`` confidence interval (Student t), one
    line per combination of the other parameters; ``<out>/<y>-vs-<x>.<fmt>``. ``df`` is
    a store's wide metrics table (``open_results(d).metrics``)."""
    import numpy as np

    from ccsim.theory import confidence_interval

    if fmt not in ("png", "svg"):
        raise ValueError(f"plot format: got {fmt!r}, expected 'png' or 'svg'")
    done = df[df["status"] == "done"] if "status" in df.columns else df
    others = [c for c in df.attrs.get("ccsim_params", []) if c not in (x, "seed")]
    others = [c for c in others if c in done.columns and done[c].nunique() > 1]
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(7, 4))
    groups = done.groupby(others, dropna=False) if others else [((), done)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        xs, means, hws = [], [], []
        for xv, gx in sorted(g.groupby(x), key=lambda kv: _natural(kv[0])):
            vals = [float(v) for v in gx[y] if v == v]
            if not vals:
                continue
            m, hw = confidence_interval(vals, level) if len(vals) > 1 else (vals[0], float("nan"))
            xs.append(xv)
            means.append(m)
            hws.append(0.0 if hw != hw else hw)
        label = ", ".join(f"{c}={v}" for c, v in zip(others, key)) or None
        pos = xs if all(isinstance(v, (int, float, np.number)) for v in xs) else range(len(xs))
        ax.errorbar(list(pos), means, yerr=hws, marker="o", capsize=3, label=label)
        if pos is not xs:
            ax.set_xticks(list(pos), [str(v) for v in xs])
    _style(ax, y, xlabel=x)
    if others:
        _legend(ax)
    ax.set_title(f"{y} against {x} (mean, {level:.0%} interval over replications)", fontsize=9)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{_safe(y)}-vs-{_safe(x)}.{fmt}"
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _natural(v):
    """Sort key: numbers by value, text with its digit runs as numbers ("20pkt" < "100pkt")."""
    import re

    if isinstance(v, (int, float)):
        return (0, float(v), "")
    parts = re.split(r"(\d+(?:\.\d+)?)", str(v))
    return (1, 0.0, tuple((0, float(t), "") if i % 2 else (1, 0.0, t) for i, t in enumerate(parts)))


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
