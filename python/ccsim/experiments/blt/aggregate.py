"""The BLT runs aggregated over replications: one row per (configuration,
protocol, λ), the stable series, maximum power P_m and its logarithm, the λ where a
protocol diverges, the speed-up over TCP and the idle-path ratios (the paper's §4.1.4
metrics and its results of §4.2-§4.3).

Source: Kim & Farber, MS-CIS-94-55, 1994 (§ numbers are its sections); the modelling
decisions L1-L15 are those of docs/models/blt.md.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ccsim import theory
from ccsim.experiments.framework import Data

from .scenarios import PKT, config, idle_path, idle_path_fits

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd


def speedup(d: Data, lam_max: float = 20.0, variant: str = "") -> float:
    """The smallest R_TCP / R_BLT on the reference 30-Mb/s network over the λ ≤ ``lam_max``
    where both are stable (the paper's claim covers its TCP curve, which ends at ≈ 20
    conn/s where its TCP diverged)."""
    both = _stable_pairs(d, "reference/30", "tcp", "blt", variant)
    both = both[both["lam"] <= lam_max]
    if both.empty:
        return math.nan
    return float((both["r_s_tcp"] / both["r_s_blt"]).min())


def points(d: Data) -> pd.DataFrame:
    """One row per (configuration, protocol, variant, λ): replications, whether any
    diverged, and over the replications: R̄ with its 90 % confidence half-width, Θ (mean
    and the paper's pessimistic Θ: mean bytes over the longest span), the power
    Θ_pessimistic / R̄ (the paper's P), Jain, utilization, Little's two sides."""
    import pandas as pd

    cached = getattr(d, "_blt_points", None)
    if cached is not None:
        return cached
    rows = []
    keys = ["config", "group", "bw_b", "protocol", "variant", "frac", "lam"]
    for key, g in d.table.groupby(keys, sort=True):
        row = dict(zip(keys, key))
        row["runs"] = len(g)
        row["diverged"] = bool(g["diverged"].max() > 0)
        row["utilization"] = float(g["utilization"].mean())
        if not row["diverged"] and "r_s" in g:
            r, h = (
                theory.confidence_interval(g["r_s"], 0.9)
                if len(g) > 1
                else (g["r_s"].mean(), math.nan)
            )
            theta_p = float(g["bytes"].mean() / g["span_s"].max())
            row.update(
                r_s=float(r),
                r_ci=float(h),
                r50_s=float(g["r50_s"].mean()),
                r90_s=float(g["r90_s"].mean()),
                r_adj_s=float(g["r_adj_s"].mean()),
                theta=float(g["theta_Bps"].mean()),
                theta_pess=theta_p,
                power=theta_p / float(r),
                power_adj=theta_p / float(g["r_adj_s"].mean()),
                jain=float(g["jain"].mean()),
                little_n=float(g["little_n"].mean()),
                little_lambda_r=float(g["little_lambda_r"].mean()),
                little_window_s=float(g["little_window_s"].mean()),
                retransmits=float(g["retransmits"].mean()),
                timeouts=float(g["timeouts"].mean()),
            )
        rows.append(row)
    d._blt_points = pd.DataFrame(rows)  # every check reads it: computed once per report
    return d._blt_points


def _series(d: Data, cfg: str, protocol: str, variant: str = "") -> pd.DataFrame:
    """The points of one curve, by λ; a curve with no runs is an error naming it."""
    p = points(d)
    s = p[(p["config"] == cfg) & (p["protocol"] == protocol) & (p["variant"] == variant)]
    if s.empty:
        v = f" (variant {variant!r})" if variant else ""
        raise KeyError(f"no runs of {protocol!r} on {cfg!r}{v} in these results")
    return s.sort_values("lam")


def _stable_pairs(d: Data, cfg: str, a: str, b: str, variant: str = "") -> pd.DataFrame:
    """The λ at which protocols ``a`` and ``b`` are both stable on ``cfg``: one row per λ,
    each curve's columns suffixed with its protocol (``r_s_tcp``, ``r_s_blt``, ...)."""
    both = _series(d, cfg, a, variant).merge(
        _series(d, cfg, b, variant), on="lam", suffixes=(f"_{a}", f"_{b}")
    )
    return both[~both[f"diverged_{a}"] & ~both[f"diverged_{b}"]]


def max_power(d: Data, cfg: str, protocol: str, adj: bool = False, variant: str = "") -> pd.Series:
    """The point of largest power (the paper's P_m) among the non-diverged points."""
    s = _series(d, cfg, protocol, variant)
    s = s[~s["diverged"]]
    if s.empty:
        raise ValueError(f"{protocol} diverged at every λ on {cfg}")
    return s.loc[s["power_adj" if adj else "power"].idxmax()]


def log_pm(d: Data, cfg: str, protocol: str, adj: bool = False, variant: str = "") -> float:
    return math.log10(max_power(d, cfg, protocol, adj, variant)["power_adj" if adj else "power"])


def divergence_lambda(d: Data, cfg: str, protocol: str, variant: str = "") -> float:
    """The smallest λ of the grid at which the protocol diverged (inf if none)."""
    s = _series(d, cfg, protocol, variant)
    bad = s[s["diverged"]]
    return float(bad["lam"].min()) if len(bad) else math.inf


def idle_ratios(d: Data) -> pd.DataFrame:
    """Every protocol's R̄ at 0.5 % of each network's capacity (the ``idle`` runs) over its
    idle-path calculation, with whether the file alone fits the buffers
    (:func:`idle_path_fits`)."""
    import pandas as pd

    rows = []
    p = points(d)
    p = p[(p["variant"] == "idle") & ~p["diverged"]]
    for (cfg_key, protocol), g in p.groupby(["config", "protocol"], sort=True):
        low = g.iloc[0]
        cfg = config(cfg_key)
        calc = idle_path(cfg, protocol)
        rows.append(
            {
                "config": cfg_key,
                "protocol": protocol,
                "frac": float(low["frac"]),
                "r_s": float(low["r_s"]),
                "r50_s": float(low["r50_s"]),
                "idle_s": calc.response_s,
                "ratio": float(low["r_s"]) / calc.response_s,
                "median_ratio": float(low["r50_s"]) / calc.response_s,
                "fits": idle_path_fits(cfg, protocol),
                "peak_pkts": calc.peak_waiting[1],
                "buffer_pkts": cfg.buffer_bytes() / PKT,
                "retransmits": float(low["retransmits"]),
            }
        )
    return pd.DataFrame(rows)
