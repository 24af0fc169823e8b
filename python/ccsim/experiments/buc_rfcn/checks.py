"""The BUC + RFCN experiments as checks: the expected results with their tolerances
(equilibria from :func:`ccsim.theory.buc_equilibrium`), the explanations of failures, the
reconstructed result tables and the findings, and the two :class:`Experiment` objects.

Source: Ziegler & Clausen, IEEE IPCCC 1997, §5 and §6. The paper's figures and tables are
lost; docs/models/buc-rfcn.md ("Expected results and tolerances") gives what its text says
they showed.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ccsim import theory
from ccsim.experiments.framework import Check, Data, Experiment

from .figures import _comparison_plot, _convergence_plot
from .run_metrics import comparison_metrics, convergence_metrics
from .scenarios import (
    ACCESS_MS,
    JITTER_REPS,
    PKT,
    SCHEMES,
    SEND_JITTER,
    SWEEP_FLOWS,
    TBU,
    comparison_runs,
    convergence_runs,
)

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd


#: Packets in the pipe of experiment 1: 2 Mbps × 64 ms of 1000-B packets = 16 (§5 fn. 11).
PIPE = theory.bdp_packets(2e6, 0.064, PKT)
#: Per-flow (queue, window) at equilibrium with 1, 2, 3 flows: (48, 64), (30, 38), (20, 25.3).
EQUILIBRIUM = {n: theory.buc_equilibrium(TBU, n, PIPE, rwnd=64) for n in (1, 2, 3)}


def _convergence_findings(d: Data) -> list[str]:
    out = []
    for run in ("paper", "reno", "geo", "measure-before", "floor"):
        rows = d.rows(run=run)
        if rows.empty:
            continue
        g = rows.iloc[0]
        out.append(
            f"{run}: FTP1 alone {g['q1_alone']:.1f} pkts; two flows {g['q2_ftp1']:.1f}/"
            f"{g['q2_ftp2']:.1f} (sum {g['sum2']:.1f}, W ≈ {g['w2_mean']:.1f}); three flows "
            f"{g['q3_ftp1']:.1f}/{g['q3_ftp2']:.1f}/{g['q3_ftp3']:.1f} (sum {g['sum3']:.1f}, "
            f"W ≈ {g['w3_mean']:.1f}); settled {g['conv_2_s']:.2f} s / {g['conv_3_s']:.2f} s "
            f"after the joins; newcomer peaks in the 3 s after its join {g['spike_2']:.0f} / "
            f"{g['spike_3']:.0f} pkts; "
            f"{g['epochs']:.0f} epochs; drops {g['drops']:.0f}; largest instantaneous "
            f"|Q − TQL| once settled {g['q2_max_dev_any']:.0f} / {g['q3_max_dev_any']:.0f} pkts"
        )
    out.append(
        "Expected (theory.buc_equilibrium; docs/models/buc-rfcn.md): queue and window per flow "
        + ", ".join(f"N = {n}: ({q:.1f}, {w:.1f})" for n, (q, w) in EQUILIBRIUM.items())
        + " packets."
    )
    return out


def _paper(metric: str):
    return lambda d: d.one(metric, run="paper")


def _jittered(d: Data) -> pd.DataFrame:
    """The replications with jittered joins."""
    return d.table[d.table["run"].astype(str).str.startswith("jitter-")]


def _worst(f):
    """Check value: the largest of ``f(rows)`` (a Series) over the jittered replications."""
    return lambda d: float(f(_jittered(d)).max())


CONVERGENCE = Experiment(
    name="buc-convergence",
    title="BUC + RFCN convergence: three FTPs joining at 0/10/20 s (Figs. 6-7)",
    paper="Ziegler & Clausen, IPCCC 1997, §5 (experiment 1); docs/models/buc-rfcn.md",
    runs=convergence_runs,
    metrics=convergence_metrics,
    plot=_convergence_plot,
    findings=_convergence_findings,
    timeseries=["component_events"],
    checks=[
        Check(
            "TQL after FTP1 joins (0 s)", "60 packets", _paper("tql_1"), 60, 60, "exact", "{:.2f}"
        ),
        Check(
            "TQL after FTP2 joins (10 s)", "30 packets", _paper("tql_2"), 30, 30, "exact", "{:.2f}"
        ),
        Check(
            "TQL after FTP3 joins (20 s)", "20 packets", _paper("tql_3"), 20, 20, "exact", "{:.2f}"
        ),
        Check(
            "TQL changes at the joins (latest change, s after 20 s)",
            "at 0/10/20 s (from the first packet, A17)",
            lambda d: d.one("tql_3_at_s", run="paper") - 20,
            0,
            0.1,
            "< 0.1 s",
            "{:.4f}",
        ),
        Check(
            "FTP1 queue while alone (5-10 s mean, packets)",
            "≈ 48 (64 − 16)",
            _paper("q1_alone"),
            EQUILIBRIUM[1][0] - 2,
            EQUILIBRIUM[1][0] + 2,
            "±2",
            "{:.1f}",
        ),
        Check(
            "BUC windows computed for FTP1 while alone",
            "0 (BUC not active)",
            _paper("buc_windows_ftp1_alone"),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Per-flow queues after FTP2 joins (15-20 s means, largest deviation from 30)",
            "≈ 30 packets",
            _paper("q2_max_dev"),
            0,
            3,
            "±3",
            "{:.2f}",
        ),
        Check(
            "Per-flow queues after FTP3 joins (30-50 s means, largest deviation from 20)",
            "≈ 20 packets",
            _paper("q3_max_dev"),
            0,
            3,
            "±3",
            "{:.2f}",
        ),
        Check(
            "Sum of queues, two flows (15-20 s mean)",
            "≈ TBU = 60",
            _paper("sum2"),
            55,
            65,
            "±5",
            "{:.1f}",
        ),
        Check(
            "Sum of queues, three flows (30-50 s mean)",
            "≈ TBU = 60",
            _paper("sum3"),
            55,
            65,
            "±5",
            "{:.1f}",
        ),
        Check(
            "Convergence after FTP2 joins (s until every queue stays within TQL ± 3)",
            "a few epochs after the spike; < 5 s",
            _paper("conv_2_s"),
            0,
            5,
            "< 5 s",
            "{:.2f}",
        ),
        Check(
            "Convergence after FTP3 joins (s)", "< 5 s", _paper("conv_3_s"), 0, 5, "< 5 s", "{:.2f}"
        ),
        Check(
            "Slow-start spike of FTP2's queue (peak in 10-13 s, packets)",
            "present (> TQL = 30)",
            _paper("spike_2"),
            35,
            math.inf,
            "> TQL + 5",
            "{:.0f}",
        ),
        Check(
            "Slow-start spike of FTP3's queue (peak in 20-23 s, packets)",
            "present (> TQL = 20)",
            _paper("spike_3"),
            25,
            math.inf,
            "> TQL + 5",
            "{:.0f}",
        ),
        Check(
            "Spike of the sum at 10 s (peak in 10-13 s, packets)",
            "present (> TBU)",
            _paper("sum_spike_2"),
            65,
            math.inf,
            "> TBU + 5",
            "{:.0f}",
        ),
        Check(
            "Spike of the sum at 20 s (peak in 20-23 s, packets)",
            "present (> TBU)",
            _paper("sum_spike_3"),
            65,
            math.inf,
            "> TBU + 5",
            "{:.0f}",
        ),
        Check(
            "BUC window with two flows (15-20 s mean, packets)",
            "≈ TQL + pipe / 2 = 38 (theory.buc_equilibrium)",
            _paper("w2_mean"),
            EQUILIBRIUM[2][1] - 2,
            EQUILIBRIUM[2][1] + 2,
            "±2",
            "{:.1f}",
        ),
        Check(
            "BUC window with three flows (30-50 s mean, packets)",
            "≈ TQL + pipe / 3 = 25.3",
            _paper("w3_mean"),
            EQUILIBRIUM[3][1] - 2,
            EQUILIBRIUM[3][1] + 2,
            "±2",
            "{:.1f}",
        ),
        Check(
            "Packets lost in experiment 1 (all queues)",
            "none",
            _paper("drops"),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
        Check(
            f"{JITTER_REPS} replications, joins moved by up to 0.5 s: largest TQL error (60/30/20)",
            "exact in every run",
            _worst(
                lambda t: (
                    (t["tql_1"] - 60).abs() + (t["tql_2"] - 30).abs() + (t["tql_3"] - 20).abs()
                )
            ),
            0,
            0,
            "exact",
            "{:.2f}",
        ),
        Check(
            "Replications: largest deviation of a flow's mean queue from TQL, two and three flows",
            "≈ TQL",
            _worst(lambda t: t[["q2_max_dev", "q3_max_dev"]].max(axis=1)),
            0,
            3,
            "±3",
            "{:.2f}",
        ),
        Check(
            "Replications: largest deviation of the sum of queues from TBU",
            "≈ 60",
            _worst(lambda t: (t[["sum2", "sum3"]] - TBU).abs().max(axis=1)),
            0,
            5,
            "±5",
            "{:.1f}",
        ),
        Check(
            "Replications: slowest convergence after a join (s)",
            "< 5 s",
            _worst(lambda t: t[["conv_2_s", "conv_3_s"]].max(axis=1)),
            0,
            5,
            "< 5 s",
            "{:.2f}",
        ),
        Check(
            "Replications: packets lost",
            "none",
            _worst(lambda t: t["drops"]),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
    ],
    notes=[
        "Topology (inferred, decision A1): s1..s3 —10 Mbps/1 ms— G —2 Mbps/30 ms— R —10 Mbps/1 "
        "ms— D; RTT_prop 64 ms, 2 Mbps × 64 ms = 16 000 B = 16 packets. The 'geo' run is the "
        "256 kbps / 250 ms one-way variant with the same product.",
        "TCP Tahoe (decision A2: the ns default of 1997) with the 1997 ns timers; 'reno' is the "
        "sensitivity run. 'measure-before' measures Q before the arriving packet (A3), "
        "'floor' rounds windows down (A7).",
        "Queues are the conversation's backlog at G's port to R, not counting the packet being "
        "sent (ns convention), recorded at every enqueue/dequeue (the component's event log); "
        "means are time averages of that step function.",
        "The pipe the paper counts (2 Mbps × 64 ms = 16 packets) leaves out serialization: the "
        "round trip without queueing is 69.82 ms (64 ms propagation, 4 ms for a data packet at "
        "2 Mbps, 0.8 ms per 10 Mbps hop, 0.03-0.16 ms per ACK hop), so 17.46 packets are in "
        "flight, the one being sent included (the queue, ns convention, does not count it). "
        "FTP1 alone therefore queues 64 − 17.46 = 46.54 packets (measured 46.5), and with the "
        "whole-packet windows BUC settles on (38, then 25) each queue is W − 17.46 / N = 29.27 "
        "and 19.18 (measured 29.2 and 19.2): below TQL by the rounding of the window, the sum "
        "2-3 packets below TBU (the paper's footnote on integer windows).",
    ],
)


#: ns-2.35 on experiment 2's FIFO setting (ccsim validate buc-fifo, 10 seeds of
#: 2000 s): mean deviation / mean TP and its 95 % half-width, without and with the
#: replications' 4-ms send jitter (ns-2 ``overhead_``); docs/notes/buc-fifo-phase-locking.md.
NS2_FIFO_MD_NORM = {"0s": (0.230, 0.015), SEND_JITTER: (0.235, 0.017)}


def _jit(d: Data, **params) -> pd.DataFrame:
    """The jittered replications with 8 flows (the rows every N = 8 check reads)."""
    return d.rows(flows=8, jitter=SEND_JITTER, **params)


def _j(d: Data, metric: str, scheme: str) -> float:
    """Mean ``metric`` of ``scheme`` over the jittered replications."""
    rows = _jit(d, scheme=scheme)
    if rows.empty:
        raise KeyError(f"no jittered run of {scheme}")
    return float(rows[metric].mean())


def _ci(d: Data, metric: str, scheme: str) -> tuple[float, float]:
    """Mean and the 95 % confidence half-width over the jittered replications."""
    return theory.confidence_interval(_jit(d, scheme=scheme)[metric], 0.95)


def _fmt_ci(d: Data, metric: str, scheme: str, fmt: str) -> str:
    m, h = _ci(d, metric, scheme)
    return fmt.format(m) + ("" if math.isnan(h) else " ± " + fmt.format(h))


def _paper_run(d: Data, scheme: str) -> pd.DataFrame:
    """The paper's run: 8 flows, every source at 0 s, no jitter."""
    return d.rows(scheme=scheme, flows=8, jitter="0s")


#: Columns of the reconstructed result table: (metric, heading, format).
TABLE_COLUMNS = (
    ("sum_tp", "SumTP (pkts)", "{:.0f}"),
    ("lutil", "Lutil (goodput)", "{:.4f}"),
    ("busy", "link busy", "{:.5f}"),
    ("md", "MD (pkts)", "{:.1f}"),
    ("md_norm", "MD / mean", "{:.4f}"),
    ("jain", "Jain", "{:.4f}"),
    ("drops", "drops", "{:.0f}"),
    ("marks", "marks", "{:.0f}"),
    ("retransmits", "retransmissions", "{:.0f}"),
    ("mean_queue", "mean queue (pkts)", "{:.1f}"),
)


def _comparison_tables(d: Data) -> list[str]:
    """The paper's lost result tables, reconstructed: N = 8 with 95 % confidence
    intervals over the jittered replications, the paper's deterministic run, then the
    sweep over N (one jittered replication each)."""
    head = "| scheme | " + " | ".join(h for _, h, _ in TABLE_COLUMNS) + " |"
    rule = "|---|" + "---|" * len(TABLE_COLUMNS)
    reps = _jit(d)["rep"].nunique() if "jitter" in d.table else 0
    out = [
        f"N = 8 conversations, mean ± 95 % confidence half-width over {reps} replications "
        f"with a send jitter of {SEND_JITTER} (TP = packets delivered in order); the checks "
        "read this table:",
        "",
        head,
        rule,
    ]
    for s, label in SCHEMES.items():
        if _jit(d, scheme=s).empty:
            continue
        cells = [_fmt_ci(d, m, s, f) for m, _, f in TABLE_COLUMNS]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    if "jitter" in d.table and not d.rows(flows=8, jitter="0s").empty:
        out += [
            "",
            "N = 8, the paper's run (every source at 0 s, no jitter): drop-tail's shares "
            "here are set by phase locking, not by the scheme (Findings):",
            "",
            head,
            rule,
        ]
        for s, label in SCHEMES.items():
            rows = _paper_run(d, s)
            if rows.empty:
                continue
            g = rows.iloc[0]
            out.append(
                f"| {label} | " + " | ".join(f.format(g[m]) for m, _, f in TABLE_COLUMNS) + " |"
            )
    for n in SWEEP_FLOWS:
        if d.rows(flows=n).empty:
            continue
        out += ["", f"N = {n} conversations (one jittered replication):", "", head, rule]
        for s, label in SCHEMES.items():
            g = d.rows(scheme=s, flows=n).iloc[0]
            out.append(
                f"| {label} | " + " | ".join(f.format(g[m]) for m, _, f in TABLE_COLUMNS) + " |"
            )
    return out


def _phase_locking(d: Data) -> str:
    """The paper's deterministic FIFO run against the jittered replications, with ns-2."""
    p = _paper_run(d, "droptail")
    j = _jit(d, scheme="droptail")
    if p.empty or j.empty:
        return ""
    m, h = theory.confidence_interval(j["md_norm"], 0.95)
    ns0, ns0h = NS2_FIFO_MD_NORM["0s"]
    nsj, nsjh = NS2_FIFO_MD_NORM[SEND_JITTER]
    return (
        "Phase locking (Floyd & Jacobson 1992). With every source started at 0 s and "
        "nothing random, which flow loses a packet at the full drop-tail buffer is decided "
        "by exact timing: nearly every drop falls on a packet that reaches the gateway at "
        "the same instant as another flow's (integer-millisecond delays, 4-ms service "
        "times), and which of the two takes the last slot is the simulator's tie-break. "
        f"So FIFO's shares in the paper's run (MD / mean {p['md_norm'].iloc[0]:.3f} here) "
        "describe how the simulator locks, not the scheme: ns-2.35 locks differently on "
        f"the same setting ({ns0:.3f} ± {ns0h:.3f} over 10 clock phases, ccsim 0.459 ± "
        "0.033 on the same seeds). With the ties removed by access delays longer by up to "
        "50 µs they lock alike (per-seed correlation 0.93), but the shares then range from "
        "0.10 to 0.49 with the offsets. A random send jitter of up to one bottleneck "
        f"service time (4 ms; ns-2's overhead_) breaks the locking: ccsim {m:.3f}"
        + ("" if math.isnan(h) else f" ± {h:.3f}")
        + f" over {len(j)} replications here, ns-2.35 {nsj:.3f} ± {nsjh:.3f} (10 seeds of "
        "2000 s). Drop-tail fairness is therefore compared on the jittered replications; "
        "the paper's run is reported, not checked (docs/notes/buc-fifo-phase-locking.md)."
    )


def _comparison_findings(d: Data) -> list[str]:
    out = []
    f = _jit(d, scheme="droptail")
    if not f.empty:
        shares = [f[f"tp_{i + 1}"].mean() / f["sum_tp"].mean() * len(ACCESS_MS) for i in range(8)]
        out.append(
            "FIFO's unfairness with the send jitter favours the longer paths here: per-flow "
            "TP / fair share by access delay "
            + ", ".join(f"{ms} ms {x:.2f}" for ms, x in zip(ACCESS_MS, shares))
            + " (ns-2.35 gives the same pattern: docs/notes/buc-fifo-phase-locking.md)."
        )
    lock = _phase_locking(d)
    if lock:
        out.append(lock)
    sweep = _sweep_finding(d)
    if sweep:
        out.append(sweep)
    b = d.rows(scheme="buc", flows=8)
    if not b.empty and "last_drop_s" in b:
        out.append(
            f"BUC's drops all happen in the initial slow starts: the last at "
            f"{b['last_drop_s'].max():.2f} s at the latest (8 flows ramp up at once into 300 "
            "packets before any window is computed)."
        )
    return out


def _goodput_why(d: Data) -> str:
    """FIFO's link is busier than RED's but carries Tahoe's go-back-N duplicates."""
    x = {
        s: {m: _j(d, m, s) for m in ("sum_tp", "busy", "lutil", "retransmits", "drops")}
        for s in ("droptail", "red")
    }
    dup = {s: v["retransmits"] - v["drops"] for s, v in x.items()}
    return (
        f"FIFO's link is busier than RED's (busy fraction {x['droptail']['busy']:.5f} against "
        f"{x['red']['busy']:.5f}), but less of what it carries is new data: FIFO resends "
        f"{x['droptail']['retransmits']:.0f} segments for {x['droptail']['drops']:.0f} drops, "
        f"RED {x['red']['retransmits']:.0f} for {x['red']['drops']:.0f} (means over the "
        f"jittered replications), so about {dup['droptail']:.0f} of FIFO's transmissions and "
        f"{dup['red']:.0f} of RED's are duplicates of packets the receiver holds: Tahoe goes "
        "back N after a loss, and FIFO's losses come in bursts. The paper's argument for FIFO "
        "over RED (RED's low queue lets the link idle) is about the busy fraction, where the "
        "ranking holds."
    )


def _red_ecn_why(d: Data) -> str:
    """RED + ECN idles the link as RED does: same average queue, same halvings."""
    busy = {s: _fmt_ci(d, "busy", s, "{:.5f}") for s in ("red", "red-ecn")}
    x = {s: {m: _j(d, m, s) for m in ("drops", "marks", "retransmits")} for s in ("red", "red-ecn")}
    return (
        f"RED + ECN's busy fraction ({busy['red-ecn']}) is RED's ({busy['red']}) within the "
        "confidence intervals, not between RED's and FIFO's. ECN turns RED's early drops "
        f"into marks ({x['red-ecn']['marks']:.0f} marks and {x['red-ecn']['drops']:.0f} "
        f"forced drops, against {x['red']['drops']:.0f} drops without ECN) and saves the "
        f"retransmissions ({x['red-ecn']['retransmits']:.0f} against "
        f"{x['red']['retransmits']:.0f}), but each mark still halves a window at RED's "
        "same low average queue, so the link idles about as often. The paper does not state "
        "this ordering; it was only expected."
    )


def _sweep_finding(d: Data) -> str:
    """FIFO against RED over N (one jittered replication each)."""
    parts = []
    for n in (*SWEEP_FLOWS[:2], 8, *SWEEP_FLOWS[2:]):
        rows = {s: d.rows(scheme=s, flows=n, jitter=SEND_JITTER) for s in ("droptail", "red")}
        if any(r.empty for r in rows.values()):
            continue
        tp = rows["droptail"]["sum_tp"].mean() - rows["red"]["sum_tp"].mean()
        busy = rows["droptail"]["busy"].mean() - rows["red"]["busy"].mean()
        parts.append(f"N = {n}: goodput {tp:+.0f} packets, busy fraction {busy:+.1e}")
    if len(parts) < 2:
        return ""
    return (
        "FIFO − RED over the number of conversations (jittered runs; N = 8 the mean of the "
        "replications): " + "; ".join(parts) + ". On goodput the ranking depends on the mix; "
        "on the busy fraction FIFO is ahead or level."
    )


def _less(metric: str, a: str, b: str):
    """Check value: mean ``metric`` of scheme ``b`` minus that of scheme ``a``."""
    return lambda d: _j(d, metric, b) - _j(d, metric, a)


def _ranking_fairness(d: Data) -> float:
    """Margin of 'BUC lowest MD, FIFO highest': min over the other schemes."""
    md = {s: _j(d, "md", s) for s in SCHEMES}
    return min(
        min(md[s] for s in SCHEMES if s != "buc") - md["buc"],
        md["droptail"] - max(md[s] for s in SCHEMES if s != "droptail"),
    )


def _busy_margin(a: str, b: str):
    """Check value: link busy fraction of scheme ``a`` minus that of scheme ``b``."""
    return lambda d: _j(d, "busy", a) - _j(d, "busy", b)


def _red_ecn_between(d: Data) -> float:
    """Where RED+ECN's busy fraction lies: 0 at RED, 1 at FIFO."""
    b = {s: _j(d, "busy", s) for s in SCHEMES}
    return (b["red-ecn"] - b["red"]) / (b["droptail"] - b["red"])


COMPARISON = Experiment(
    name="buc-comparison",
    title="BUC + RFCN vs FIFO drop-tail vs RED vs RED + ECN (Fig. 8 and the lost tables)",
    paper="Ziegler & Clausen, IPCCC 1997, §6 (experiment 2); docs/models/buc-rfcn.md",
    runs=comparison_runs,
    metrics=comparison_metrics,
    plot=_comparison_plot,
    findings=_comparison_findings,
    tables=_comparison_tables,
    timeseries=["queue"],
    checks=[
        Check(
            "Fairness ranking: BUC lowest mean deviation, FIFO highest (margin, packets)",
            "BUC best, RED/RED+ECN acceptable, FIFO worst",
            _ranking_fairness,
            0,
            math.inf,
            "ranking holds (> 0)",
            "{:.1f}",
        ),
        Check(
            f"FIFO mean deviation / mean TP, replications with {SEND_JITTER} send jitter",
            "worst of the four; ns-2.35 on this setting: "
            f"{NS2_FIFO_MD_NORM[SEND_JITTER][0]:.3f} ± {NS2_FIFO_MD_NORM[SEND_JITTER][1]:.3f}",
            lambda d: _j(d, "md_norm", "droptail"),
            0.15,
            0.32,
            "0.15-0.32 (ns-2.35 ± the spread of 3-5 replications)",
            "{:.3f}",
            why=_phase_locking,
        ),
        Check(
            "BUC mean deviation / mean TP",
            "lowest (FQ: near 0)",
            lambda d: _j(d, "md_norm", "buc"),
            0,
            0.01,
            "< 1 %",
            "{:.5f}",
        ),
        Check(
            "RED mean deviation / mean TP",
            "'acceptable'",
            lambda d: _j(d, "md_norm", "red"),
            0,
            0.15,
            "< 15 %",
            "{:.4f}",
        ),
        Check(
            "RED + ECN mean deviation / mean TP",
            "'acceptable'",
            lambda d: _j(d, "md_norm", "red-ecn"),
            0,
            0.15,
            "< 15 %",
            "{:.4f}",
        ),
        Check(
            "Utilization ranking, BUC ≥ FIFO: link busy fraction BUC − FIFO",
            "BUC ≥ FIFO",
            _busy_margin("buc", "droptail"),
            -1e-4,
            math.inf,
            "≥ −0.0001 (equal within 0.01 %)",
            "{:.2e}",
        ),
        Check(
            "Utilization ranking, FIFO > RED: link busy fraction FIFO − RED",
            "FIFO > RED (RED's low average queue lets the link idle)",
            _busy_margin("droptail", "red"),
            1e-12,
            math.inf,
            "> 0",
            "{:.2e}",
        ),
        Check(
            "Throughput ranking on goodput: FIFO − RED (SumTP, packets)",
            "FIFO > RED",
            _less("sum_tp", "red", "droptail"),
            1e-9,
            math.inf,
            "> 0",
            "{:.0f}",
            why=_goodput_why,
        ),
        Check(
            "BUC ≥ FIFO on goodput (SumTP difference, packets)",
            "BUC ≥ FIFO",
            _less("sum_tp", "droptail", "buc"),
            0,
            math.inf,
            "≥ 0",
            "{:.0f}",
        ),
        Check(
            "BUC link utilization (goodput Lutil)",
            "≈ 100 %",
            lambda d: _j(d, "lutil", "buc"),
            0.99,
            1.0,
            "≥ 99 %",
            "{:.4f}",
        ),
        Check(
            "RED + ECN between RED and FIFO (busy fraction; 0 = RED, 1 = FIFO)",
            "(not stated; expected)",
            _red_ecn_between,
            0,
            1,
            "0-1",
            "{:.2f}",
            why=_red_ecn_why,
        ),
        Check(
            "BUC total queue (mean after 10 s, packets)",
            "≈ TBU = 60",
            lambda d: _j(d, "mean_queue", "buc"),
            50,
            70,
            "±10",
            "{:.1f}",
        ),
        Check(
            "BUC drops after the initial slow starts (last drop, s)",
            "none or very few",
            lambda d: d.rows(scheme="buc", flows=8)["last_drop_s"].max(),
            0,
            10,
            "all before 10 s",
            "{:.2f}",
        ),
        Check(
            "FIFO: the 300-packet buffer fills repeatedly (episodes after 10 s)",
            "repeatedly fills, periodic drops",
            lambda d: d.rows(scheme="droptail", flows=8)["fills"].min(),
            3,
            math.inf,
            "≥ 3 episodes",
            "{:.0f}",
        ),
        Check(
            "FIFO drops",
            "periodic drops",
            lambda d: _j(d, "drops", "droptail"),
            1,
            math.inf,
            "> 0",
            "{:.0f}",
        ),
    ],
    notes=[
        "Topology (inferred, decision A1): 8 FTPs with access links 10 Mbps and one-way delays "
        "1, 3, 5, 8, 12, 18, 25, 35 ms → G1 —2 Mbps/30 ms— G2 → receivers (10 Mbps/1 ms). "
        "Buffer 300 packets at G1 for every scheme; receiver window 300 packets; TCP Tahoe, "
        "ECN-capable for RED + ECN only.",
        "RED: w_q 0.002, min_th 40, max_th 80 packets, max_p = 1/linterm = 0.02 ('maxp = 50', "
        "ns's linterm_), ns wait_ spreading, not gentle, queue in bytes with mean_pktsize "
        "1000 B, forced drop when avg ≥ max_th (also with ECN).",
        "Every source starts at 0 s as in the paper. The paper's run (no randomness but the "
        "seed's TCP clock phases) is reported in its own table; the replications add a send "
        f"jitter (each window-driven burst waits a random time uniform in [0, {SEND_JITTER}), "
        "ns-2's overhead_) with seeds 1..R, and every N = 8 check reads their means: with "
        "drop-tail the paper's deterministic run measures phase locking (Findings).",
        "Metrics (decision A14): TP = packets delivered in order over the run; Lutil = SumTP · "
        "1000 B · 8 / (2 Mbps · T); MD = mean |TP_i − SumTP/N|; the link busy fraction is the "
        "port's utilization including retransmissions.",
        "On goodput, FIFO loses to RED with 8 flows: after FIFO's burst losses Tahoe goes "
        "back N and resends packets the receiver already holds, so FIFO's busy link carries "
        "duplicates; the paper's argument (RED lets the link idle) is about link utilization, "
        "where BUC ≥ FIFO > RED holds. The sweep over N is in the Findings.",
    ],
)
