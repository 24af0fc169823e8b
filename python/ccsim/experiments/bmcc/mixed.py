"""BMCC sharing with SACK: the experiments ``bmcc-mixes`` (Figs. 6-8),
``bmcc-modified`` (Figs. 9-10, the modified router), ``bmcc-gain-loss`` (Fig. 11) and
``bmcc-heuristic`` (Fig. 12, the SACK-compatibility heuristic), with their checks
(docs/models/bmcc.md, "Reproduction targets"), the explanations of failures, tables and
findings.

Source: Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009; settings and modelling decisions: docs/models/bmcc.md.
"""

from __future__ import annotations

import math

from ccsim.experiments.framework import Check, Data, Experiment

from .checks import NOTES_COMMON, PAPER, _extreme, _mean, _of_capacity, gain_loss
from .figures import _gain_plot, _heuristic_plot, _mix_plot, _modified_plot
from .run_metrics import metrics
from .scenarios import (
    KINDS,
    ROUTERS,
    _durations,
    gain_runs,
    heuristic_runs,
    mix_runs,
    modified_runs,
)


def _mix_findings(d: Data) -> list[str]:
    out = []
    for fig, router, T in (
        ("6", "droptail", 40.0),
        ("6", "droptail", 300.0),
        ("6", "red", 40.0),
        ("6", "red", 300.0),
        ("7", "bmcc", 40.0),
        ("8", "bmcc", 40.0),
    ):
        r = d.rows(fig=fig, router=router, rtt_ms=T)
        out.append(
            f"Fig. {fig}, {ROUTERS[router]}, T = {T:.0f} ms: BMCC {r['thr_bmcc'].mean():.2f} Mb/s, "
            f"SACK {r['thr_sack'].mean():.2f} Mb/s (three flows each), utilization "
            f"{r['utilization'].mean():.3f}, loss rate {r['loss_rate'].mean():.4f}, timeouts BMCC "
            f"{r['timeouts_bmcc'].mean():.0f} / SACK {r['timeouts_sack'].mean():.0f}, BMCC "
            f"retransmissions {r['retransmits_bmcc'].mean():.0f}."
        )
    return out


EXP_MIXES = Experiment(
    name="bmcc-mixes",
    title="BMCC and SACK sharing non-BMCC and BMCC bottlenecks (Figs. 6-8)",
    paper=PAPER,
    runs=mix_runs,
    metrics=metrics,
    plot=_mix_plot,
    timeseries=["flow"],
    checks=[
        Check(
            "Fig. 6(a): SACK / BMCC goodput, drop-tail, T = 40 ms",
            "BMCC grabs most; SACK windows small",
            lambda d: (
                d.one("thr_sack", fig="6", router="droptail", rtt_ms=40.0)
                / d.one("thr_bmcc", fig="6", router="droptail", rtt_ms=40.0)
            ),
            0,
            1,
            "< 1",
            "{:.3f}",
        ),
        Check(
            "Fig. 6(c): SACK + ECN / BMCC goodput, RED + ECN, T = 40 ms",
            "SACK windows small",
            lambda d: (
                d.one("thr_sack", fig="6", router="red", rtt_ms=40.0)
                / d.one("thr_bmcc", fig="6", router="red", rtt_ms=40.0)
            ),
            0,
            1,
            "< 1",
            "{:.3f}",
        ),
        Check(
            "Fig. 6(b): SACK goodput / C, drop-tail, T = 300 ms",
            "completely starved",
            _of_capacity("thr_sack", fig="6", router="droptail", rtt_ms=300.0),
            0,
            0.05,
            "< 5 %",
            "{:.3f}",
        ),
        Check(
            "Fig. 6(d): SACK + ECN goodput / C, RED + ECN, T = 300 ms",
            "completely starved",
            _of_capacity("thr_sack", fig="6", router="red", rtt_ms=300.0),
            0,
            0.05,
            "< 5 %",
            "{:.3f}",
        ),
        Check(
            "Fig. 7: BMCC goodput / C with 3 SACK flows over a BMCC router",
            "completely starved",
            _of_capacity("thr_bmcc", fig="7"),
            0,
            0.10,
            "< 5-10 %",
            "{:.3f}",
        ),
        Check(
            "Fig. 8: BMCC goodput / C with 3 SACK + ECN flows over a BMCC router",
            "completely starved",
            _of_capacity("thr_bmcc", fig="8"),
            0,
            0.10,
            "< 5-10 %",
            "{:.3f}",
        ),
        Check(
            "Figs. 7-8: SACK / BMCC goodput (ranking), the smaller of the two",
            "SACK ≫ BMCC",
            lambda d: min(d.one("thr_sack", fig=f) / d.one("thr_bmcc", fig=f) for f in ("7", "8")),
            1,
            math.inf,
            "> 1",
            "{:.1f}",
        ),
    ],
    notes=[
        *NOTES_COMMON,
        "Fig. 6's SACK flows are ECN-capable over RED + ECN (not stated in §4.1.3). Figs. 7-8: the "
        "BMCC flows start at 0 s, the SACK flows at 10, 11 and 12 s (§4.2.1).",
    ],
    findings=_mix_findings,
)


def _modified_findings(d: Data) -> list[str]:
    out = []
    for T in (40.0, 300.0):
        r = d.rows(rtt_ms=T)
        out.append(
            f"T = {T:.0f} ms: BMCC {r['thr_bmcc'].mean():.2f} Mb/s, SACK + ECN {r['thr_sack'].mean():.2f} "
            f"Mb/s, Jain over the six {r['jain'].mean():.3f}, utilization {r['utilization'].mean():.3f}, "
            f"CE marks {r['ce_marks'].mean():.0f}, drops {r['drops'].mean():.0f}, BMCC MDs "
            f"{r['md'].mean():.0f}, timeouts BMCC {r['timeouts_bmcc'].mean():.0f} / SACK "
            f"{r['timeouts_sack'].mean():.0f}."
        )
    return out


EXP_MODIFIED = Experiment(
    name="bmcc-modified",
    title="3 SACK + ECN and 3 BMCC flows over the modified BMCC router (Figs. 9-10)",
    paper=PAPER,
    runs=modified_runs,
    metrics=metrics,
    plot=_modified_plot,
    timeseries=["flow"],
    checks=[
        Check(
            "Fig. 9: Jain's index over the six flows, T = 40 ms",
            "SACK and BMCC share effectively",
            _mean("jain", rtt_ms=40.0),
            0.8,
            1,
            "≳ 0.8",
            "{:.3f}",
        ),
        Check(
            "Fig. 10: BMCC / SACK goodput, T = 300 ms",
            "BMCC ≫ SACK",
            lambda d: d.one("thr_bmcc", rtt_ms=300.0) / d.one("thr_sack", rtt_ms=300.0),
            1,
            math.inf,
            "> 1 (ranking)",
            "{:.1f}",
        ),
    ],
    notes=[
        *NOTES_COMMON,
        "Modified scheme at both ends (§5.2): the router runs ARED while f ≥ 1, "
        "the receivers flag CE without moving f̂, BMCC senders back off by β(f̂) only on a flagged "
        "ACK with f̂ ≥ 1 and use AI on unflagged overload (not in the paper; "
        '`unflagged_overload = "hold"` is the alternative).',
    ],
    findings=_modified_findings,
)


def _gain_tables(d: Data) -> list[str]:
    gl = gain_loss(d)
    lines = [
        "Fig. 11: gain G of the more aggressive flow and loss L of the SACK flow of RTT T "
        "(means over replications).",
        "",
        "| T (ms) | G BMCC | G SACK 10 ms | L with BMCC | L with SACK 10 ms | (1 − L) ratio |",
        "|---|---|---|---|---|---|",
    ]
    for _, r in gl.iterrows():
        ratio = (1 - r["L_sack10"]) / (1 - r["L_bmcc"]) if r["L_bmcc"] < 1 else math.nan
        lines.append(
            f"| {r['rtt_ms']:.0f} | {r['G_bmcc']:.3f} | {r['G_sack10']:.3f} | {r['L_bmcc']:.3f} | "
            f"{r['L_sack10']:.3f} | {ratio:.2f} |"
        )
    return lines


def _loss_ratio(d: Data) -> float:
    """(1 − L) with the 10-ms SACK competitor over (1 − L) with BMCC, summed over T."""
    gl = gain_loss(d)
    return float((1 - gl["L_sack10"]).sum() / (1 - gl["L_bmcc"]).sum())


def _gain_findings(d: Data) -> list[str]:
    gl = gain_loss(d)
    small = gl[gl["rtt_ms"] <= 80]
    large = gl[gl["rtt_ms"] >= 150]
    out = [
        "G_BMCC stays below G_SACK10ms at every T, as the paper says. The loss ratio does not "
        "hold across the range: for T ≤ 80 ms the SACK flow loses little or even gains against "
        f"BMCC (L with BMCC {small['L_bmcc'].min():.2f}-{small['L_bmcc'].max():.2f}: BMCC's AI adds "
        "only (T/t_p)² = 0.01-0.16 packet per RTT, SACK one), so (1 − L) with the 10-ms flow is "
        "an order of magnitude larger or more, or the ratio is undefined; for T ≥ 150 ms BMCC "
        f"takes most of the link (L with BMCC {large['L_bmcc'].min():.2f}-{large['L_bmcc'].max():.2f}, "
        "the effect of Fig. 10: MI by (1 + ξ)^{T/t_p} per RTT reclaims spare capacity in a few "
        "RTTs, α = (T/t_p)² is 0.56-2.25 packets per RTT), and the ratio falls to about 1. Summed "
        "over the grid the long RTTs dominate.",
    ]
    for T in (40.0, 300.0):
        r = d.rows(case="mix-bmcc", rtt_ms=T)
        out.append(
            f"MIX-BMCC at T = {T:.0f} ms: SACK {r['thr_0'].mean():.2f} Mb/s, BMCC {r['thr_1'].mean():.2f} "
            f"Mb/s, utilization {r['utilization'].mean():.3f}, timeouts SACK {r['timeouts_sack'].mean():.0f} "
            f"/ BMCC {r['timeouts_bmcc'].mean():.0f}, CE marks {r['ce_marks'].mean():.0f}."
        )
    return out


EXP_GAIN = Experiment(
    name="bmcc-gain-loss",
    title="Gain and loss of BMCC and of a short-RTT SACK flow against SACK (Fig. 11)",
    paper=PAPER,
    runs=gain_runs,
    metrics=metrics,
    plot=_gain_plot,
    checks=[
        Check(
            "Fig. 11(a): largest G_BMCC − G_SACK10ms over T",
            "G_BMCC < G_SACK10ms for all T",
            lambda d: float((gain_loss(d)["G_bmcc"] - gain_loss(d)["G_sack10"]).max()),
            -math.inf,
            0,
            "< 0 at every T",
            "{:.3f}",
        ),
        Check(
            "Fig. 11(b): Σ(1 − L) with the 10-ms SACK / Σ(1 − L) with BMCC, over T",
            "≈ 10 ('an order of magnitude')",
            _loss_ratio,
            10 / 3,
            30,
            "within a factor 3 of 10",
            "{:.2f}",
            why=lambda d: _gain_findings(d)[0],
        ),
    ],
    notes=[
        *NOTES_COMMON,
        "§5.2: BASELINE = two SACK + ECN flows of RTT T; MIX-BMCC = one SACK + ECN and one "
        "BMCC flow, both RTT T; MIX-RTT = SACK + ECN of RTT T and SACK + ECN of RTT 10 ms; all over "
        "the modified BMCC router; G = Thr(B)_mix / Thr(B)_baseline, L = Thr(A)_mix / "
        "Thr(A)_baseline, A = the SACK flow of RTT T (flow 1 of the baseline), B = the other "
        "(flow 2). T grid 20-300 ms (quick: 20, 40, 100, 300). The buffer is one BDP at T; "
        "the 10-ms flow's access links are shorter.",
    ],
    tables=_gain_tables,
    findings=_gain_findings,
)


def _heuristic_findings(d: Data) -> list[str]:
    out = []
    for router, kind in (
        ("droptail", "bmcc-h"),
        ("droptail", "bmcc"),
        ("red", "bmcc-h"),
        ("red", "bmcc"),
        ("bmcc", "bmcc-h"),
    ):
        r = d.rows(router=router, kind=kind)
        out.append(
            f"{KINDS[kind]} over {ROUTERS[router]}: goodput {r['total_mbps'].mean():.1f} Mb/s, drops "
            f"{r['drops'].mean():.0f}, timeouts {r['timeouts'].mean():.0f}, switches to SACK mode "
            f"{r['to_sack_mode'].mean():.0f} (back to BMCC {r['to_bmcc_mode'].mean():.0f}), time in "
            f"SACK mode {r['sack_mode_s'].mean():.1f} flow-seconds, mean window "
            f"{r['mean_cwnd_bmcc_pkts'].mean():.0f} packets."
        )
    out.append(
        "Over RED + ECN (not in the paper) the heuristic flaps: the original receiver turns a CE "
        "into f̂ = u, so the mark that switches a flow to SACK mode (f̂ below 1 before it) also "
        "reports f̂ > 1, which switches it back at the next ACK. The modified receiver's flag "
        '(on_ce = "flag") keeps f̂ and would not flap.'
    )
    return out


def _sack_time_fraction(d: Data) -> float:
    """The largest share of the two flows' time spent in SACK mode over a BMCC router."""
    r = d.rows(router="bmcc", kind="bmcc-h")
    return float((r["sack_mode_s"] / (2 * _durations(d.quick)[0])).max())


EXP_HEURISTIC = Experiment(
    name="bmcc-heuristic",
    title="BMCC with the SACK-compatibility heuristic over a non-BMCC bottleneck (Fig. 12)",
    paper=PAPER,
    runs=heuristic_runs,
    metrics=metrics,
    plot=_heuristic_plot,
    timeseries=["flow"],
    checks=[
        Check(
            "Fig. 12: time until both flows switch to SACK mode over drop-tail (s, worst run)",
            "detects the condition quickly",
            _extreme("first_sack_mode_s", max, router="droptail", kind="bmcc-h"),
            0,
            2,
            "≤ 2 s",
            "{:.2f}",
        ),
        Check(
            "Fig. 12: drops with the heuristic / without (Fig. 4), drop-tail",
            "no MIMD cycles of Fig. 4",
            lambda d: (
                d.one("drops", router="droptail", kind="bmcc-h")
                / d.one("drops", router="droptail", kind="bmcc")
            ),
            0,
            0.1,
            "< 0.1",
            "{:.4f}",
        ),
        Check(
            "Fig. 12: flows back in BMCC mode at the end over drop-tail",
            "behaves like SACK (stays switched)",
            lambda d: float(d.rows(router="droptail", kind="bmcc-h")["to_bmcc_mode"].sum()),
            0,
            0,
            "none",
            "{:.0f}",
        ),
        Check(
            "Over a BMCC router: largest fraction of time in SACK mode (all runs)",
            "(not in the paper) the heuristic keeps BMCC",
            _sack_time_fraction,
            0,
            0.05,
            "< 5 %",
            "{:.4f}",
        ),
    ],
    notes=[
        *NOTES_COMMON,
        "Heuristic (§5.3): a loss, or a CE while f̂ < 1, switches to SACK mode without reducing the "
        "window for that signal; f̂ > 1 switches back. The rows over RED + ECN and over a BMCC "
        "router are ccsim's additions.",
    ],
    findings=_heuristic_findings,
)
