"""BMCC flows alone: the experiments ``bmcc-convergence`` (Figs. 1-2: three flows
joining, the estimate f̂ against f) and ``bmcc-routers`` (Figs. 3-5: two flows over
BMCC, drop-tail and RED + ECN routers, and the laws' analytic values), with their
checks (docs/models/bmcc.md, "Reproduction targets"), the explanations of failures and
the findings.

Source: Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009; settings and modelling decisions: docs/models/bmcc.md.
"""

from __future__ import annotations

from ccsim import theory
from ccsim.experiments.framework import Check, Data, Experiment

from .checks import NOTES_COMMON, PAPER, WIRE, _extreme, _mean, _wire
from .figures import _convergence_plot, _two_flow_plot
from .run_metrics import metrics
from .scenarios import ROUTERS, T_P, convergence_runs, two_flow_runs


def _worst_join(d: Data, stat: str) -> float:
    """The slowest of the two joins (2nd and 3rd flow), worst replication."""
    return float(d.table[[f"p2_{stat}", f"p3_{stat}"]].max(axis=1).max())


def _convergence_findings(d: Data) -> list[str]:
    t = d.table
    out = []
    for k, n in ((2, "two"), (3, "three")):
        rates = ", ".join(
            f"{c.split('_')[1]} {t[c].mean() * WIRE:.1f}"
            for c in sorted(t.columns)
            if c.startswith(f"p{k}_bmcc") and c.endswith("_mbps")
        )
        out.append(
            f"With {n} flows (last half of the period, mean of {len(t)} runs, Mb/s on the wire): "
            f"{rates}; total {t[f'p{k}_total_mbps'].mean() * WIRE:.1f}; Jain {t[f'p{k}_jain'].mean():.3f}."
        )
    util = t["utilization"].mean()
    out.append(
        f"Utilization over the run {util:.3f}. A flow alone MDs by β(1) = 0.875 when its estimate "
        "reaches 1 (arrivals at γ = 98 % of C), then adds (T/t_p)² packets per RTT: the link runs "
        f"between 0.875·0.98 and 0.98 of C, on average ≈ {0.98 * (1 + 0.875) / 2:.3f} — what the runs "
        "show, below the 95 % of C targeted with γ = 0.98."
    )
    out.append(
        "Equalization comes from AI alone: MI and MD multiply every window by the same factor. "
        "AI adds 0.56, 1 and 1.56 packets per RTT (T = 150, 200, 250 ms) against a pipe of "
        "≈ 2500 packets, and MD happens only when the link refills (every ≈ 20-40 s), each time "
        "shrinking the gap between windows by 12.5 %: ≈ 9 cycles (several minutes) to go from one "
        "flow holding the link to within 70 % of equal shares. The runs' newcomers never reach "
        "70 % of their fair share within their 100-s period (§3.4's 'rapidly' is not met). "
        "VCP's own ns-2 code is slow too on this scenario (its newcomers reach 70 % after 89 "
        "and 74 s) and, given BMCC's smaller AI, as slow as BMCC: the protocol family's, not "
        "ccsim's machinery (docs/models/bmcc.md, \"Fig. 1's slow convergence\"; `ccsim "
        "validate vcp --only 'Fig. 1'`)."
    )
    out.append(
        f"Estimate tracking (Fig. 2): mean |f̂ − f| {t['tracking_gap'].mean():.3f} at the best lag "
        f"{t['tracking_lag_s'].mean():.2f} s; no packet lost ({t['drops'].sum():.0f} drops); "
        f"{t['ce_marks'].mean():.0f} CE marks (f ≥ u) per run, all in the first flow's start-up."
    )
    return out


EXP_CONVERGENCE = Experiment(
    name="bmcc-convergence",
    title="BMCC: convergence of three flows and the estimate f̂ against f (Figs. 1-2)",
    paper=PAPER,
    runs=convergence_runs,
    metrics=metrics,
    plot=_convergence_plot,
    timeseries=["flow", "qdisc"],
    checks=[
        Check(
            "Fig. 1: aggregate throughput with three flows (last half of the period, wire)",
            "≈ 100 Mb/s (≥ 95 with γ = 0.98)",
            _wire("p3_total_mbps"),
            95 * 0.97,
            103,
            "≥ 95 ± 3 %",
            "{:.1f}",
            why=lambda d: _convergence_findings(d)[2],
        ),
        Check(
            "Fig. 1: aggregate throughput with two flows (last half of the period, wire)",
            "≈ 100 Mb/s",
            _wire("p2_total_mbps"),
            95 * 0.97,
            103,
            "≥ 95 ± 3 %",
            "{:.1f}",
            why=lambda d: _convergence_findings(d)[2],
        ),
        Check(
            "Fig. 1: time for a newcomer to reach 70 % of its fair share (s; slowest join, worst run)",
            "quickly",
            lambda d: _worst_join(d, "to_70pct_s"),
            0,
            20,
            "≤ 20 s",
            "{:.1f}",
            why=lambda d: _convergence_findings(d)[3],
        ),
        Check(
            "Fig. 1: Jain's index of the three flows (last half of the period)",
            "fair (≥ 0.95 within tens of seconds)",
            _mean("p3_jain"),
            0.95,
            1,
            "≥ 0.95",
            "{:.3f}",
            why=lambda d: _convergence_findings(d)[1] + "\n\n" + _convergence_findings(d)[3],
        ),
        Check(
            "Fig. 1: Jain's index of the two flows (last half of the period)",
            "fair (≈ 50 Mb/s each)",
            _mean("p2_jain"),
            0.95,
            1,
            "≥ 0.95",
            "{:.3f}",
            why=lambda d: _convergence_findings(d)[0] + "\n\n" + _convergence_findings(d)[3],
        ),
        Check(
            "Fig. 2: lag at which f̂ best follows f (s)",
            "small lag",
            _mean("tracking_lag_s"),
            0,
            3 * T_P,
            "≤ 3 t_p",
            "{:.2f}",
        ),
        Check(
            "Fig. 2: mean |f̂ − f| at that lag (f capped at u)",
            "f̂ tracks f closely",
            _mean("tracking_gap"),
            0,
            0.1,
            "≤ 0.1",
            "{:.3f}",
        ),
        Check(
            "Packets lost (no loss over a BMCC router, §4.1 and Fig. 3)",
            "none",
            lambda d: float(d.table["drops"].sum()),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
    ],
    notes=[
        "Fig. 1's scenario (§3.4): 100 Mb/s BMCC bottleneck, flows of RTT 150, 200 and 250 ms "
        "(access delays differ) arriving at 0, 100 and 200 s, buffer one BDP at the mean RTT "
        "(200 ms: 2500 packets), no cross traffic (§3.4 is the protocol's illustration), "
        "300 s. Replications move each arrival by up to 1 s. Quick mode: arrivals 40 s apart.",
        "The text's '≈ 50 Mb/s each' is read as the two-flow period; with three flows the "
        "fair share is 33 Mb/s.",
        *NOTES_COMMON[1:2],
    ],
    findings=_convergence_findings,
)


def _routers_findings(d: Data) -> list[str]:
    out = []
    for router in ("bmcc", "droptail", "red"):
        for T in (40.0, 300.0):
            r = d.rows(router=router, rtt_ms=T, cross=True)
            out.append(
                f"{ROUTERS[router]}, T = {T:.0f} ms: utilization {r['utilization'].mean():.3f}, "
                f"goodput of the two flows {r['total_mbps'].mean():.1f} Mb/s, loss rate "
                f"{r['loss_rate'].mean():.4f}, CE marks {r['ce_marks'].mean():.0f}, timeouts "
                f"{r['timeouts'].mean():.0f}, mean window {r['mean_cwnd_bmcc_pkts'].mean():.0f} packets "
                f"(max {r['max_cwnd_bmcc_pkts'].max():.0f}), MDs {r['md'].mean():.0f}, loss halvings "
                f"{r['loss_halvings'].mean():.0f}."
            )
    out.append(
        "At 300 ms over drop-tail and RED + ECN the windows reach 10⁴ packets and stall flat for "
        "tens of seconds (Fig. 4(b)): f̂ stays at 0.15, so MI multiplies the window by "
        "2.983^{SRTT/t_p} per RTT — up to ×26 with the queue's 0.3 s in the SRTT — and a single "
        "RTT overshoots the 1688-packet buffer by thousands of packets. SACK repairs each hole "
        "once; a lost retransmission waits for the timer, which the earlier timeouts have backed "
        "off to tens of seconds, while new data fills the SACK scoreboard: the link stays busy "
        "(utilization ≈ 0.97) but in-order goodput stops."
    )
    cross = d.rows(router="bmcc", rtt_ms=300.0, cross=True)
    alone = d.rows(router="bmcc", rtt_ms=300.0, cross=False)
    out.append(
        "Over a BMCC router at 300 ms the reverse cross traffic's ACK compression makes the "
        f"per-interval load factor swing between {cross['load_factor_min'].mean():.2f} and "
        f"{cross['load_factor_max'].mean():.2f} (means of the runs' extremes after the warm-up; "
        f"without cross traffic {alone['load_factor_min'].mean():.2f}-"
        f"{alone['load_factor_max'].mean():.2f}); a flow that reads a low f̂ multiplies its "
        "window by up to ×7 per RTT, and CE marks, drops at the access links and timeouts follow "
        f"(timeouts {cross['timeouts'].mean():.0f} per run). Without cross traffic the two flows "
        f"get {alone['thr_0'].mean():.1f} and {alone['thr_1'].mean():.1f} Mb/s, utilization "
        f"{alone['utilization'].mean():.3f}, {alone['drops'].mean():.0f} drops, "
        f"{alone['timeouts'].mean():.0f} timeouts, Jain {alone['jain'].mean():.3f}."
    )
    w = d.table
    out.append(
        f"Cross traffic realised over the runs: {w['cross_rate_min'].min():.2f}-{w['cross_rate_max'].max():.2f} "
        f"arrivals/s per direction (requested {w['cross_rate_requested'].mean():.2f}); offered load "
        f"{w['cross_load_mbps'].mean():.2f} Mb/s against 4.5 requested (Pareto with shape 1.2: the "
        "realised mean size converges slowly, usually from below)."
    )
    return out


EXP_ROUTERS = Experiment(
    name="bmcc-routers",
    title="BMCC over BMCC, drop-tail and RED + ECN routers (Figs. 3-5), and the laws' values",
    paper=PAPER,
    runs=two_flow_runs,
    metrics=metrics,
    plot=_two_flow_plot,
    timeseries=["flow", "qdisc"],
    checks=[
        Check(
            "MI factor per t_p at f̂ = η₀ (eq. 3; the engine's law, cc/bmcc/tests.rs)",
            "1 + 0.35·0.85/0.15 = 2.983 ('factor of 3')",
            lambda d: theory.bmcc_mi_factor(0.15, T_P),
            2.9833,
            2.9834,
            "exact (analytic)",
            "{:.4f}",
        ),
        Check(
            "β at f̂ = 1 (eq. 6)",
            "β_max = 0.875",
            lambda d: theory.bmcc_md_factor(1.0),
            0.875,
            0.875,
            "exact (analytic)",
            "{:.4f}",
        ),
        Check(
            "β at f̂ = u = 1.2 (eq. 6)",
            "β_min = 0.65",
            lambda d: theory.bmcc_md_factor(1.2),
            0.65,
            0.65,
            "exact (analytic)",
            "{:.4f}",
        ),
        Check(
            "MD on an ACK of a `11` packet over RED + ECN (unmodified design): smallest factor",
            "β(u) = 0.65",
            _extreme("ce_md_factor_min", min, router="red"),
            0.65,
            0.65,
            "exact",
            "{:.4f}",
        ),
        Check(
            "MD on an ACK of a `11` packet over RED + ECN: largest factor, all runs",
            "β(u) = 0.65",
            _extreme("ce_md_factor_max", max, router="red"),
            0.65,
            0.65,
            "exact",
            "{:.4f}",
        ),
        Check(
            "MD on loss (drop-tail runs): smallest window ratio of a halving",
            "0.5",
            _extreme("loss_factor_min", min, router="droptail"),
            0.5,
            0.5,
            "exact",
            "{:.4f}",
        ),
        Check(
            "MD over a BMCC router: smallest factor applied (β's range, all runs)",
            "≥ β_min = 0.65",
            _extreme("md_factor_min", min, router="bmcc"),
            0.65,
            0.875,
            "in [0.65, 0.875]",
            "{:.4f}",
        ),
        Check(
            "MD over a BMCC router: largest factor applied (all runs)",
            "≤ β_max = 0.875",
            _extreme("md_factor_max", max, router="bmcc"),
            0.65,
            0.875,
            "in [0.65, 0.875]",
            "{:.4f}",
        ),
        Check(
            "BDP at 45 Mb/s, 40 ms (the runs' buffer, packets)",
            "225",
            _mean("buffer_pkts", rtt_ms=40.0),
            225,
            225,
            "exact",
            "{:.0f}",
        ),
        Check(
            "BDP at 45 Mb/s, 300 ms (packets)",
            "≈ 1688 ('about 1700', '≈ 8×')",
            _mean("buffer_pkts", rtt_ms=300.0),
            1688,
            1688,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Cross traffic: realised arrivals per direction, lowest of all runs (files/s)",
            "18.75 (4.5 Mb/s of 30-kB files)",
            _extreme("cross_rate_min", min),
            18.75 * 0.98,
            18.75 * 1.02,
            "±2 %",
            "{:.2f}",
        ),
        Check(
            "Cross traffic: realised arrivals per direction, highest of all runs (files/s)",
            "18.75",
            _extreme("cross_rate_max", max),
            18.75 * 0.98,
            18.75 * 1.02,
            "±2 %",
            "{:.2f}",
        ),
        Check(
            "Fig. 3: window variation over a BMCC router, T = 40 ms (coefficient of variation)",
            "little variation",
            _mean("cwnd_cv_bmcc", router="bmcc", rtt_ms=40.0),
            0,
            0.25,
            "≤ 0.25",
            "{:.3f}",
        ),
        Check(
            "Fig. 4: MI growth per t_p over drop-tail, T = 40 ms (first increase, fitted)",
            "≈ 3 (3^{T/t_p} per RTT)",
            _mean("mi_growth_per_tp", router="droptail", rtt_ms=40.0),
            2.983 * 0.9,
            2.983 * 1.1,
            "±10 %",
            "{:.3f}",
        ),
        Check(
            "Fig. 4: MI growth per t_p over drop-tail, T = 300 ms",
            "≈ 3",
            _mean("mi_growth_per_tp", router="droptail", rtt_ms=300.0),
            2.983 * 0.9,
            2.983 * 1.1,
            "±10 %",
            "{:.3f}",
        ),
        Check(
            "Fig. 4: ADPM marks over drop-tail (f̂ stays at 0.15: footnote 1)",
            "none",
            lambda d: float(d.rows(router="droptail")["adpm_marks"].sum()),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
        Check(
            "Fig. 5: mean window over RED + ECN / over drop-tail, T = 40 ms",
            "lower than Fig. 4",
            lambda d: (
                d.one("mean_cwnd_bmcc_pkts", router="red", rtt_ms=40.0)
                / d.one("mean_cwnd_bmcc_pkts", router="droptail", rtt_ms=40.0)
            ),
            0,
            1,
            "< 1",
            "{:.3f}",
        ),
        Check(
            "Fig. 5: the same at T = 300 ms",
            "lower than Fig. 4",
            lambda d: (
                d.one("mean_cwnd_bmcc_pkts", router="red", rtt_ms=300.0)
                / d.one("mean_cwnd_bmcc_pkts", router="droptail", rtt_ms=300.0)
            ),
            0,
            1,
            "< 1",
            "{:.3f}",
        ),
    ],
    notes=NOTES_COMMON,
    findings=_routers_findings,
)
