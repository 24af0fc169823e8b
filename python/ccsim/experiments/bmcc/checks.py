"""What the BMCC experiments' checks share: check values over the replications,
confidence-interval text, the notes every report carries, the paper's label, the
goodput-to-wire factor and Fig. 11's gain and loss table (§5.2; docs/models/bmcc.md,
"Experiment settings" and "Reproduction targets").

Source: Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009; settings and modelling decisions: docs/models/bmcc.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ccsim import theory
from ccsim.experiments.framework import Data

from .scenarios import C_MBPS, MSS, PKT

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd


def _mean(metric: str, **params):
    """Check value: the mean of ``metric`` over the replications matching ``params``."""
    return lambda d: d.one(metric, **params)


def _extreme(metric: str, pick=max, **params):
    """Check value: the largest (or ``pick``) of ``metric`` over the matching runs."""
    return lambda d: float(pick(d.rows(**params)[metric]))


def _of_capacity(metric: str, **params):
    """Check value: a goodput (Mb/s, mean over replications) as a fraction of C."""
    return lambda d: d.one(metric, **params) / C_MBPS


def _ci_text(d: Data, metric: str, fmt: str = "{:.3g}", **params) -> str:
    vals = d.rows(**params)[metric].dropna()
    if len(vals) < 2:
        return fmt.format(vals.mean()) if len(vals) else "n/a"
    m, h = theory.confidence_interval(vals, 0.9)
    return f"{fmt.format(m)} ± {fmt.format(h)}"


NOTES_COMMON = [
    "Settings (the paper's §4, read as docs/models/bmcc.md says): 1000-byte packets (960 B + 40 B), 45 Mb/s "
    "bottleneck, access links 450 Mb/s, every buffer one BDP (225 packets at 40 ms, "
    "1688 at 300 ms), both directions of the bottleneck with the router under test, "
    "bidirectional Pareto cross traffic (mean 30 kB, shape 1.2, 10 % of C each way, on "
    "two pairs of their own with RTT T; BMCC over BMCC routers, SACK elsewhere), "
    "runs of 300 s measured over [50 s, 300 s] (quick: 100 s over [30 s, 100 s]), three "
    "replications (seeds: cross traffic, IP ids, timer phases); ns-2 conventions for "
    "every TCP (ns-2's RTT estimator in 10-ms ticks, initial RTO 3 s, cwnd += 1/cwnd per "
    "ACK, retransmissions ECN-capable as ns-2's one-way TCP sends them).",
    "BMCC as in docs/models/bmcc.md: γ = 0.98, κ₁ = 0.75, κ₂ = 0.35, t_p = 200 ms, the "
    "queue average's time constant 8·t_p, bit-reversed IP-id hash, VCP's MD freeze "
    "(MD, freeze t_p, AI for one RTT), T = SRTT, initial window 2 with f̂ = 0.15, halving "
    "once per RTT on loss with SACK recovery.",
    "RED + ECN is ns-2's RED of 2008-09, when BMCC was simulated: byte mode with a 500-byte mean "
    "packet (with 1000-byte packets the probability doubles), automatic thresholds and "
    "weight, gentle, `use_mark_p` (an ECN-capable packet is marked while p_b ≤ 0.1 and "
    "dropped above), ECN on. The modified BMCC router runs ns-2's automatic Adaptive RED "
    "(max_p's floor min(0.01, 80000/C) = 0.00178 at 45 Mb/s) while f ≥ 1.",
    "Shares of the bandwidth in the starvation checks are goodputs over the measurement "
    "window as fractions of C.",
]


def gain_loss(d: Data) -> pd.DataFrame:
    """Fig. 11 (§5.2): per T, G and L of the BMCC flow and of the 10-ms SACK flow
    against a SACK flow of RTT T, from the means over replications; flow 0 is always
    the SACK flow of RTT T (A), flow 1 the more aggressive one (B)."""
    import pandas as pd

    rows = []
    for T in sorted(d.table["rtt_ms"].unique()):
        base_a = d.one("thr_0", case="baseline", rtt_ms=T)
        base_b = d.one("thr_1", case="baseline", rtt_ms=T)
        row = {"rtt_ms": T}
        for case, tag in (("mix-bmcc", "bmcc"), ("mix-rtt", "sack10")):
            row[f"G_{tag}"] = d.one("thr_1", case=case, rtt_ms=T) / base_b
            row[f"L_{tag}"] = d.one("thr_0", case=case, rtt_ms=T) / base_a
        rows.append(row)
    return pd.DataFrame(rows)


PAPER = "Qazi, Znati & Andrew, PFLDNeT 2009; settings and targets: docs/models/bmcc.md"
WIRE = PKT / MSS  # goodput → throughput on the wire


def _wire(metric: str, **params):
    return lambda d: d.one(metric, **params) * WIRE
