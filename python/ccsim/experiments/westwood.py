"""Mascolo & Vacirca, "Congestion control and sizing router buffers in the Internet"
(IEEE CDC-ECC 2005): NewReno vs Westwood+ link utilization as a function of the buffer.

Model page: docs/models/westwood.md, whose "Modelling decisions" W1-W12 are cited below
by label (corrected equations in :mod:`ccsim.theory`, docs/theory.md §1).
Setup (the paper's §V, Fig. 2): dumbbell, drop-tail bottleneck, 1000-byte packets on the
wire (MSS 960 + 40 B header), 40-byte ACKs, no delayed ACKs, receiver window unlimited,
IW 2, min RTO 200 ms (W5, W10), exact RTT measurement (W12).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ccsim import theory
from ccsim.experiments.framework import Check, Data, Experiment, Run, save_figure

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd

PROTOCOLS = {"newreno": "NewReno", "westwood": "Westwood+"}
#: The paper's protocols plus ccsim's extra series: NewReno with SACK (RFC 6675).
SERIES = {**PROTOCOLS, "newreno-sack": "NewReno + SACK"}


#: Plot styles per series.
MARKERS = {"newreno": "o-", "westwood": "s-", "newreno-sack": "^--"}


def tcp_keys(protocol: str) -> dict:
    """Flow keys of a series: its congestion control, and SACK for the extra one."""
    if protocol == "newreno-sack":
        return {"cc": "newreno", "sack": True}
    return {"cc": protocol}


MSS, HEADER = 960, 40
PKT = MSS + HEADER


def single_flow(
    protocol: str, rtt_ms: float, b: float, duration: str, warmup: str, monitor: bool = False
) -> dict:
    """One flow, C = 40 Mbps, two-way propagation exactly ``rtt_ms`` (W6)."""
    access_ms = 1.0
    s = {
        "name": "westwood-single-flow",
        "seed": 1,
        "duration": duration,
        "warmup": warmup,
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "bottleneck": {
                "rate": "40Mbps",
                "delay": f"{rtt_ms / 2 - 2 * access_ms}ms",
                "queue": {"kind": "droptail", "limit": f"{b}bdp"},
            },
            "access": {"rate": "1Gbps", "delay": f"{access_ms}ms"},
        },
        "flows": [
            {"pairs": "all", **tcp_keys(protocol), "mss": MSS, "header": HEADER, "min_rto": "200ms"}
        ],
    }
    if monitor:
        s["monitor"] = {"interval": "10ms", "queues": ["R1->R2"], "flows": "all"}
    return s


def many_flows(
    protocol: str, rtt_ms: float, b: float, seed: int, duration: str, warmup: str
) -> dict:
    """200 flows, C = 200 Mbps, access delays uniform in (0, 10 ms), starts in [0, 10 s]
    (the paper's §V; W11); the buffer axis is relative to C·RTT with RTT = 2 × bottleneck delay."""
    return {
        "name": "westwood-200-flows",
        "seed": seed,
        "duration": duration,
        "warmup": warmup,
        "topology": {
            "kind": "dumbbell",
            "pairs": 200,
            "bdp_rtt": f"{rtt_ms}ms",
            "bottleneck": {
                "rate": "200Mbps",
                "delay": f"{rtt_ms / 2}ms",
                "queue": {"kind": "droptail", "limit": f"{b}bdp"},
            },
            "access": {
                "rate": "2Gbps",
                "delay": {"uniform": ["0ms", "10ms"]},
                "queue": {"kind": "droptail", "limit": "inf"},
            },
        },
        "flows": [
            {
                "pairs": "all",
                **tcp_keys(protocol),
                "mss": MSS,
                "header": HEADER,
                "min_rto": "200ms",
                "start": {"uniform": ["0s", "10s"]},
            }
        ],
    }


# ----- metrics (run in the sweep workers; module-level so they pickle)


def utilization_metrics(r) -> dict:
    q = r.queue("R1->R2")
    f = r.flows
    return {
        "utilization": float(q["utilization"]),
        "drops": int(q["drops"]),
        "mean_queue_pkts": float(q["mean_len_pkts"]),
        "timeouts": int(f["timeouts"].sum()),
        "goodput_bps": float(f["goodput_bps"].sum()),
    }


def empty_stretches(ts: pd.DataFrame, min_s: float = 2.0, level: int = 1) -> list[float]:
    """Durations (≥ ``min_s``) of the maximal intervals over which the sampled queue
    stays at or below ``level`` packets. ``level = 1``: with an ACK-clocked sender on a
    1 Gbps access link, the two back-to-back packets of a window increase leave one
    packet waiting for one service time; the queue is otherwise empty (Fig. 5(d))."""
    t = ts["time_s"].to_numpy()
    empty = ts["packets"].to_numpy() <= level
    out, start = [], None
    for ti, e in zip(t, empty):
        if e and start is None:
            start = ti
        elif not e and start is not None:
            out.append(ti - start)
            start = None
    return [d for d in out if d >= min_s]


def trace_metrics(r) -> dict:
    m = utilization_metrics(r)
    warm = r.summary["warmup_s"]
    f = r.timeseries["flow"]
    f = f[f["time_s"] >= warm]
    cwnd = (f["cwnd_bytes"] / MSS).to_numpy()
    rec = f["in_recovery"].to_numpy()
    # Loss episodes are the fast-recovery periods. Upper end of the saw-tooth: the
    # window in the sample before recovery starts (inflation is excluded); lower end:
    # the window in the first sample after recovery (= the new ssthresh).
    enter = np.flatnonzero((rec[1:] == 1) & (rec[:-1] == 0)) + 1
    leave = np.flatnonzero((rec[1:] == 0) & (rec[:-1] == 1)) + 1
    m["losses"] = len(enter)
    m["cwnd_max_pkts"] = float(np.median(cwnd[enter - 1])) if len(enter) else float("nan")
    m["cwnd_after_loss_pkts"] = float(np.median(cwnd[leave])) if len(leave) else float("nan")
    q = r.timeseries["queue"]
    q = q[q["time_s"] >= warm]
    st = empty_stretches(q)
    m["empty_stretch_s"] = float(np.median(st)) if st else 0.0
    m["empty_stretches"] = len(st)
    return m


# ----- runs


def fig4_runs(quick: bool) -> list[Run]:
    grid = (
        [0.05, 0.1, 0.3, 0.5, 1.0]
        if quick
        else [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    )
    dur, warm = ("300s", "50s") if quick else ("1000s", "50s")
    return [
        Run({"protocol": p, "rtt_ms": rtt, "b": b}, single_flow(p, rtt, b, dur, warm))
        for rtt in (50, 100)
        for p in SERIES
        for b in grid
    ]


def fig5_runs(quick: bool) -> list[Run]:
    dur = "150s" if quick else "250s"
    return [
        Run({"protocol": p, "b": b}, single_flow(p, 100, b, dur, "50s", monitor=True))
        for b in (1.0, 0.1)
        for p in PROTOCOLS
    ]


def fig8_runs(quick: bool) -> list[Run]:
    grid = [0.02, 0.05, 0.2] if quick else [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
    seeds = [1] if quick else [1, 2, 3]
    timing = (
        {100: ("50s", "25s"), 300: ("90s", "60s")}
        if quick
        else {100: ("120s", "30s"), 300: ("200s", "60s")}
    )
    return [
        Run(
            {"protocol": p, "rtt_ms": rtt, "b": b, "seed": s},
            many_flows(p, rtt, b, s, *timing[rtt]),
        )
        for rtt in (100, 300)
        for p in SERIES
        for b in grid
        for s in seeds
    ]


# ----- plots


def _style(ax, xlabel, ylabel):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def plot_fig4(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    bs = np.linspace(0.01, 1.0, 100)
    for ax, rtt in zip(axes, (50, 100)):
        for p, label in SERIES.items():
            d = data.rows(protocol=p, rtt_ms=rtt).sort_values("b")
            ax.plot(d["b"], d["utilization"] * 100, MARKERS[p], label=f"{label} (ccsim)")
        ax.plot(
            bs,
            [theory.fluid_utilization_newreno(b) * 100 for b in bs],
            "k--",
            lw=1,
            label="NewReno fluid model",
        )
        ax.plot(
            bs,
            [theory.util_bound_reno(b, 1) * 100 for b in bs],
            ":",
            color="gray",
            label="bound (9), n = 1",
        )
        ax.axhline(
            theory.util_bound_westwood(1) * 100,
            ls="-.",
            color="gray",
            lw=1,
            label="bound (10), n = 1",
        )
        ax.set_title(f"Fig. 4: C = 40 Mbps, RTT = {rtt} ms")
        ax.set_ylim(0, 102)
        _style(ax, "buffer B / BDP", "bottleneck utilization (%)")
    return save_figure(fig, outdir, "fig4-utilization-vs-buffer")


FIG5_FROM_S = 50.0  # the traces' checks are taken after the warm-up: so is the plot


def plot_fig5(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharex=True)
    for col, b in enumerate((1.0, 0.1)):
        top = [0.0, 0.0]
        for p, label in PROTOCOLS.items():
            f = data.timeseries("flow", protocol=p, b=b)
            q = data.timeseries("queue", protocol=p, b=b)
            f = f[f["time_s"] >= FIG5_FROM_S]
            q = q[q["time_s"] >= FIG5_FROM_S]
            axes[0, col].plot(f["time_s"], f["cwnd_bytes"] / MSS, lw=0.8, label=label)
            axes[1, col].plot(q["time_s"], q["packets"], lw=0.8, label=label)
            # y scale from the bulk of the trace: a few 10 ms samples of window
            # inflation must not flatten the sawtooth the figure is about
            top[0] = max(top[0], float((f["cwnd_bytes"] / MSS).quantile(0.999)))
            top[1] = max(top[1], float(q["packets"].max()))
        tag = "BDP" if b == 1.0 else "0.1·BDP"
        axes[0, col].set_title(f"Fig. 5({'a' if b == 1.0 else 'b'}): cwnd, B = {tag}")
        axes[1, col].set_title(f"Fig. 5({'c' if b == 1.0 else 'd'}): queue, B = {tag}")
        axes[0, col].set_ylim(0, top[0] * 1.1)
        axes[1, col].set_ylim(0, max(top[1], 1) * 1.1)
        axes[1, col].set_xlim(left=FIG5_FROM_S)
        _style(axes[0, col], "", "cwnd (packets)")
        _style(axes[1, col], f"time (s), after the {FIG5_FROM_S:g} s warm-up", "queue (packets)")
    fig.tight_layout()
    return save_figure(fig, outdir, "fig5-cwnd-and-queue-traces")


def plot_fig8(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    bs = np.logspace(-2, 0, 100)
    for ax, rtt in zip(axes, (100, 300)):
        for p, label in SERIES.items():
            d = data.rows(protocol=p, rtt_ms=rtt)
            g = d.groupby("b")["utilization"]
            seeds = int(g.size().max()) if len(d) else 0
            ci = g.apply(lambda v: theory.confidence_interval(list(v))[1] if len(v) > 1 else 0.0)
            what = f"mean ± 95 % CI over {seeds} seeds" if seeds > 1 else "one seed"
            ax.errorbar(
                g.mean().index,
                g.mean() * 100,
                yerr=ci * 100 if seeds > 1 else None,
                fmt=MARKERS[p],
                capsize=3,
                label=f"{label} (ccsim, {what})",
            )
        ax.plot(
            bs, [theory.util_bound_reno(b, 200) * 100 for b in bs], "k:", label="bound (9), n = 200"
        )
        ax.axhline(
            theory.util_bound_westwood(200) * 100,
            ls="-.",
            color="gray",
            label="bound (10), n = 200",
        )
        ax.set_xscale("log")
        ax.set_ylim(0, 102)
        ax.set_title(f"Fig. 8: 200 flows, 200 Mbit/s, RTT {rtt} ms")
        _style(ax, "buffer B / BDP", "bottleneck utilization (%)")
    fig.tight_layout()
    return save_figure(fig, outdir, "fig8-200-flows")


# ----- findings (ccsim's extra series; not the paper's claims)


def fig4_findings(data: Data) -> list[str]:
    d = data.table
    nr = d[d["protocol"] == "newreno"].set_index(["rtt_ms", "b"])["utilization"]
    sk = d[d["protocol"] == "newreno-sack"].set_index(["rtt_ms", "b"])["utilization"]
    gap = (sk - nr).abs().max() * 100
    return [
        f"NewReno + SACK (RFC 6675) follows NewReno's curve within {gap:.2f} points: a single "
        "flow over drop-tail loses one packet per congestion event in steady state, which "
        "NewReno and SACK repair alike; SACK changes only the start-up transient."
    ]


def fig8_findings(data: Data) -> list[str]:
    out = []
    for rtt in (100, 300):
        row = []
        for p in ("newreno", "newreno-sack"):
            d = data.rows(protocol=p, rtt_ms=rtt)
            d = d[d["b"] >= 0.05]
            if d.empty:
                continue
            worst = d.groupby("b")[["utilization", "timeouts"]].mean()
            b = worst["utilization"].idxmin()
            row.append(
                f"{SERIES[p]} {worst.loc[b, 'utilization']:.1%} at B = {b:g} BDP "
                f"({worst.loc[b, 'timeouts']:.0f} timeouts per run)"
            )
        out.append(f"RTT {rtt} ms, lowest utilization for B ≥ 0.05 BDP: " + "; ".join(row) + ".")
    out.append(
        "Why SACK does better here: with 200 flows and small buffers a drop-tail overflow "
        "takes several packets from one window; NewReno repairs one per RTT, and under the "
        "Impatient timer a recovery of several losses ends in a timeout, while RFC 6675 "
        "retransmits every hole once three segments above it are SACKed, within about one RTT "
        "(tests/tcp_fidelity.rs). Fewer flows sit out a timeout at once (the timeout counts "
        "above), so the link idles less. The paper's ns-2 NewReno had no SACK; this series is "
        "ccsim's addition."
    )
    return out


# ----- checks (the paper's §V statements, each with its tolerance)


def _fluid_gap(data: Data) -> float:
    d = data.rows(protocol="newreno")
    return max(
        abs(r.utilization - theory.fluid_utilization_newreno(r.b)) * 100 for r in d.itertuples()
    )


def _min_util(data: Data, protocol: str, bmin: float) -> float:
    d = data.rows(protocol=protocol)
    return float(d[d["b"] >= bmin].groupby(["rtt_ms", "b"])["utilization"].mean().min())


PCT = "{:.1%}"

FIG4 = Experiment(
    name="westwood-fig4",
    title="Westwood+ vs NewReno, single flow: utilization vs buffer (Fig. 4)",
    paper="Mascolo & Vacirca 2005, §V and Fig. 4; docs/models/westwood.md",
    runs=fig4_runs,
    metrics=utilization_metrics,
    plot=plot_fig4,
    findings=fig4_findings,
    checks=[
        Check(
            "NewReno, B = 0.1 BDP, RTT 100 ms: utilization",
            "below 82 % (fluid 81.8 %)",
            lambda d: d.one("utilization", protocol="newreno", rtt_ms=100, b=0.1),
            0.78,
            0.83,
            "78-83 %",
            PCT,
        ),
        Check(
            "NewReno, B = 0.1 BDP, RTT 50 ms: utilization",
            "below 82 % (same shape)",
            lambda d: d.one("utilization", protocol="newreno", rtt_ms=50, b=0.1),
            0.78,
            0.83,
            "78-83 %",
            PCT,
        ),
        Check(
            "NewReno, B = BDP: utilization (min over RTTs)",
            "≈ 100 %",
            lambda d: min(
                d.one("utilization", protocol="newreno", rtt_ms=r, b=1.0) for r in (50, 100)
            ),
            0.98,
            1.0,
            "≥ 98 %",
            PCT,
        ),
        Check(
            "Westwood+, B = 0.1 BDP: utilization (min over RTTs)",
            "≈ 100 % (flat in B)",
            lambda d: min(
                d.one("utilization", protocol="westwood", rtt_ms=r, b=0.1) for r in (50, 100)
            ),
            0.95,
            1.0,
            "≥ 95 %",
            PCT,
        ),
        Check(
            "Westwood+, B ≥ 0.3 BDP: lowest utilization",
            "≈ 100 %",
            lambda d: _min_util(d, "westwood", 0.3),
            0.97,
            1.0,
            "≥ 97 %",
            PCT,
        ),
        Check(
            "NewReno vs fluid model (docs/theory.md §1.2): largest gap over the grid",
            "same curve",
            _fluid_gap,
            0,
            3.0,
            "≤ 3 points",
            "{:.2f} pts",
        ),
    ],
    notes=[
        "W1-W12 are the modelling decisions of docs/models/westwood.md.",
        "Two-way propagation delay is exactly the RTT (1 ms access links, bottleneck delay RTT/2 − 2 ms; W6).",
        "1000-byte packets on the wire (960 B MSS + 40 B header), no delayed ACKs, IW 2 (W5, W10).",
        "Reno's timeout rule uses ssthresh = max(2, FlightSize/2), not the paper's typo ssthresh = 1 (W4).",
        "Westwood+ filter: per-RTT samples, α = 0.9, dupacks count one segment (W1); exact RTT_min (W12).",
        "Utilization is measured after a 50 s warm-up (slow start excluded).",
    ],
)

FIG5 = Experiment(
    name="westwood-fig5",
    title="Westwood+ vs NewReno, single flow: cwnd and queue traces (Fig. 5)",
    paper="Mascolo & Vacirca 2005, §V and Fig. 5; docs/models/westwood.md",
    runs=fig5_runs,
    metrics=trace_metrics,
    plot=plot_fig5,
    timeseries=["flow", "queue"],
    checks=[
        Check(
            "NewReno, B = 0.1 BDP: cwnd upper end (packets)",
            "1.1·BDP = 550",
            lambda d: d.one("cwnd_max_pkts", protocol="newreno", b=0.1),
            522.5,
            577.5,
            "±5 %",
            "{:.0f}",
        ),
        Check(
            "NewReno, B = 0.1 BDP: cwnd after a loss (packets)",
            "0.55·BDP = 275",
            lambda d: d.one("cwnd_after_loss_pkts", protocol="newreno", b=0.1),
            261.25,
            288.75,
            "±5 %",
            "{:.0f}",
        ),
        Check(
            "Westwood+, B = 0.1 BDP: cwnd upper end (packets)",
            "1.1·BDP = 550",
            lambda d: d.one("cwnd_max_pkts", protocol="westwood", b=0.1),
            522.5,
            577.5,
            "±5 %",
            "{:.0f}",
        ),
        Check(
            "Westwood+, B = 0.1 BDP: cwnd after a loss (packets)",
            "≈ BDP = 500",
            lambda d: d.one("cwnd_after_loss_pkts", protocol="westwood", b=0.1),
            450,
            550,
            "±10 %",
            "{:.0f}",
        ),
        Check(
            "NewReno, B = 0.1 BDP: queue-empty stretches (median, s; ≤ 1 packet)",
            "roughly 20 s",
            lambda d: d.one("empty_stretch_s", protocol="newreno", b=0.1),
            18,
            25,
            "18-25 s",
            "{:.1f}",
        ),
        Check(
            "Westwood+, B = 0.1 BDP: queue-empty stretches ≥ 2 s",
            "queue touches zero only momentarily",
            lambda d: d.one("empty_stretches", protocol="westwood", b=0.1),
            0,
            0,
            "none",
            "{:.0f}",
        ),
        Check(
            "B = BDP: NewReno cwnd after a loss (packets)",
            "between BDP and 2·BDP: ≈ 500",
            lambda d: d.one("cwnd_after_loss_pkts", protocol="newreno", b=1.0),
            450,
            550,
            "±10 %",
            "{:.0f}",
        ),
        Check(
            "B = BDP: Westwood+ / NewReno utilization",
            "traces essentially identical",
            lambda d: (
                d.one("utilization", protocol="westwood", b=1.0)
                / d.one("utilization", protocol="newreno", b=1.0)
            ),
            0.99,
            1.01,
            "±1 %",
            "{:.4f}",
        ),
    ],
    notes=[
        "C = 40 Mbps, RTT 100 ms (BDP = 500 packets of 1000 B); traces sampled every 10 ms after 50 s."
    ],
)

FIG8 = Experiment(
    name="westwood-fig8",
    title="Westwood+ vs NewReno, 200 flows: utilization vs buffer (Fig. 8)",
    paper="Mascolo & Vacirca 2005, §IV–V and Fig. 8; docs/models/westwood.md, docs/theory.md §1",
    runs=fig8_runs,
    metrics=utilization_metrics,
    plot=plot_fig8,
    findings=fig8_findings,
    checks=[
        Check(
            "NewReno, n = 200, B ≥ 0.05 BDP: lowest utilization",
            "high, nearly flat in B",
            lambda d: _min_util(d, "newreno", 0.05),
            0.95,
            1.0,
            "≥ 95 % (bound 92 %)",
            PCT,
            why=lambda d: (
                " ".join(fig8_findings(d)[:2])
                + " ns-2.35's NewReno on this scenario, with its own conventions, gives 95.0 % at RTT "
                "100 ms (10 seeds) and 94.9 % at RTT 300 ms (docs/validation.md, the Fig. 8 rows), with "
                "as many timeouts: the paper's ≥ 95 % is at the edge of what NewReno gives here, and a "
                "single seed (quick mode) falls either side of it."
            ),
        ),
        Check(
            "Westwood+, n = 200, B ≥ 0.05 BDP: lowest utilization",
            "high, nearly flat in B",
            lambda d: _min_util(d, "westwood", 0.05),
            0.95,
            1.0,
            "≥ 95 %",
            PCT,
            why=lambda d: (
                "after a loss Westwood+ keeps cwnd at BWE·RTT_min instead of halving, "
                "which with 200 flows and a 0.05-BDP buffer keeps the queue full, and it times out "
                "about 2.5 times as often as NewReno (full mode: 5053 against 2002 timeouts in 140 s). "
                "The protocol's, over NewReno's recovery without SACK, not ccsim's: with SACK ccsim, "
                "ns-3's TcpWestwoodPlus and ns-2's TCP-Linux westwood all give >= 98 % here, and "
                "restarting the timer on every partial ACK (Slow-but-Steady) gives 99.8 % "
                "(`ccsim validate westwood`; docs/notes/westwood-200-flows.md)."
            ),
        ),
        Check(
            "Bound (9), n = 200, B = 0.05 BDP",
            "≥ 92 % (docs/theory.md §1.1 table: 0.920)",
            lambda d: theory.util_bound_reno(0.05, 200),
            0.9195,
            0.9205,
            "0.920 ± 0.0005",
            "{:.4f}",
        ),
        Check(
            "Bound (10), n = 200",
            "≈ 1",
            lambda d: theory.util_bound_westwood(200),
            0.9999,
            1.0,
            "analytic",
            "{:.6f}",
        ),
    ],
    notes=[
        "W1-W12 are the modelling decisions of docs/models/westwood.md.",
        "Access delays uniform in (0, 10 ms) on both sides; starts uniform in [0, 10 s] (W11).",
        "BDP = C × RTT with RTT = 2 × bottleneck delay (2500 / 7500 packets), as in the paper's text.",
        "Warm-up 30 s (RTT 100 ms) / 60 s (RTT 300 ms); mean and 95 % CI over seeds in full mode.",
        "NewReno (full mode, 3 seeds): lowest utilization for B ≥ 0.05 BDP 94.97 % (RTT 100 ms), "
        "95.1 % at RTT 300 ms; before the loss-recovery fix of issue 8 (a timeout during fast "
        "recovery took ssthresh from the inflated FlightSize) it was 92.8 %. ns-2.35 itself, on "
        "the same scenario with its own conventions, gives 95.0 % at RTT 100 ms (10 seeds) and "
        "94.9 % at RTT 300 ms (3 seeds), ccsim with ns-2's conventions 95.0 % and 94.4 % "
        "(docs/validation.md): the paper's \"≥ 95 %\" sits at the edge of what ns-2's NewReno "
        "gives here, and the NewReno row misses it by 0.03 point. Many flows are in timeout at "
        "once in both simulators (RTT 100 ms, B = 0.05 BDP: 2232 timeouts per run in ns-2, 2173 "
        "in ccsim).",
        "Westwood+ (full mode): lowest 93.5 % at RTT 300 ms, B = 0.05 BDP (94.2 % before issue 8's "
        "TCP changes). After a loss it keeps "
        "cwnd at BWE·RTT_min instead of halving, which with 200 flows and a 375-packet buffer keeps "
        "the queue full, and it times out 2.5 times as often as NewReno (5053 against 2002 "
        "timeouts in 140 s). Stock ns-2.35 has no Westwood+; `ccsim validate westwood` compares it "
        "with ns-3's TcpWestwoodPlus and ns-2's TCP-Linux (Linux's own module): with SACK all "
        "three give >= 98 % here (ccsim 99.6 %), and without SACK the same ccsim Westwood+ "
        "with the retransmission timer restarted on every partial ACK gives 99.8 %: the "
        "shortfall is NewReno's Impatient timer under Westwood+'s multiple losses per "
        "window, the protocol's, not the simulator's (docs/notes/westwood-200-flows.md). "
        "The paper's start times and receiver window are not given (W10, W11).",
    ],
)

EXPERIMENTS = [FIG4, FIG5, FIG8]

__all__ = [
    "EXPERIMENTS",
    "FIG4",
    "FIG5",
    "FIG8",
    "empty_stretches",
    "many_flows",
    "math",
    "single_flow",
]
