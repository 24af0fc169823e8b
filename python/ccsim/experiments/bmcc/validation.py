"""Beyond the paper: ``bmcc-validation``, N = 2-16 BMCC flows over a BMCC
bottleneck with equal and unequal RTTs, its checks and findings.

Source: Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009; settings and modelling decisions: docs/models/bmcc.md.
"""

from __future__ import annotations

from ccsim.experiments.framework import Check, Data, Experiment

from .checks import NOTES_COMMON, _ci_text, _extreme
from .figures import _validation_plot
from .run_metrics import metrics
from .scenarios import UNEQUAL_RTTS, validation_runs


def _validation_findings(d: Data) -> list[str]:
    t = d.table
    out = []
    for rtts in ("equal", "unequal"):
        for n in sorted(t["n"].unique()):
            r = d.rows(n=n, rtts=rtts)
            ratio = r.apply(
                lambda x: (
                    max(x[f"thr_{i}"] for i in range(int(n)))
                    / max(min(x[f"thr_{i}"] for i in range(int(n))), 1e-9)
                ),
                axis=1,
            )
            out.append(
                f"N = {n}, {rtts} RTTs ({len(r)} seeds): utilization {_ci_text(d, 'utilization', n=n, rtts=rtts)}, "
                f"Jain {_ci_text(d, 'jain', '{:.4f}', n=n, rtts=rtts)} (worst {r['jain'].min():.4f}), "
                f"mean queue {r['mean_queue_pkts'].mean():.2f} packets (max "
                f"{r['max_queue_pkts'].max():.0f}), drops {r['drops'].sum():.0f}, largest/smallest "
                f"goodput {ratio.mean():.2f}."
            )
    unequal = t[t["rtts"] == "unequal"]
    if len(unequal):
        n = int(unequal["n"].max())
        r = unequal[unequal["n"] == n]
        thr = [r[f"thr_{i}"].mean() for i in range(n)]
        lo, hi = UNEQUAL_RTTS
        out.append(
            f"RTT unfairness, N = {n}, RTTs {lo:.0f}-{hi:.0f} ms: goodput of the shortest-RTT flow "
            f"{thr[0]:.2f} Mb/s, of the longest {thr[-1]:.2f} Mb/s (ratio {thr[0] / max(thr[-1], 1e-9):.2f} "
            f"for an RTT ratio {hi / lo:.0f}; AI's α ∝ T² aims at equal rates)."
        )
    return out


EXP_VALIDATION = Experiment(
    name="bmcc-validation",
    title="Beyond the paper: N = 2-16 BMCC flows over a BMCC bottleneck, equal and unequal RTTs",
    paper="Qazi, Znati & Andrew, PFLDNeT 2009, §3, §4.1 (behaviour over a BMCC router); issue 22",
    runs=validation_runs,
    metrics=metrics,
    plot=_validation_plot,
    checks=[
        Check(
            "Equal RTTs: mean utilization, every N",
            "near γ = 0.98",
            lambda d: float(d.rows(rtts="equal").groupby("n")["utilization"].mean().min()),
            0.85,
            0.98,
            "0.85-0.98 (MD by 0.875 below γ)",
            "{:.3f}",
        ),
        Check(
            "Equal RTTs: Jain's index, worst run",
            "≥ 0.99",
            _extreme("jain", min, rtts="equal"),
            0.99,
            1,
            "≥ 0.99",
            "{:.4f}",
        ),
        Check(
            "Equal RTTs: mean standing queue, worst run (packets)",
            "a few packets",
            _extreme("mean_queue_pkts", max, rtts="equal"),
            0,
            5,
            "≤ 5",
            "{:.2f}",
        ),
        Check(
            "Packets lost, all runs",
            "none",
            lambda d: float(d.table["drops"].sum()),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
    ],
    notes=[
        "No cross traffic; 45 Mb/s BMCC bottleneck; buffer one BDP at the flows' mean RTT; flows "
        "start uniformly in [0, 1 s) (seeded); 600 s measured over [200 s, 600 s] (quick: 200 s over "
        "[100 s, 200 s]); 10 seeds per point (quick: 3). Unequal RTTs are spread evenly over 40-160 ms.",
        *NOTES_COMMON[1:2],
    ],
    findings=_validation_findings,
)
