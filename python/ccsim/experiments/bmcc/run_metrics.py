"""What the sweep workers measure in one BMCC run: per-flow goodputs and shares,
Jain's index, the windows, MI growth, decreases and loss halvings, how closely the
estimate f̂ tracks the load factor f, the phases of Fig. 1 and the cross traffic
realised (docs/models/bmcc.md, "Reproduction targets").

Source: Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009; settings and modelling decisions: docs/models/bmcc.md.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ccsim import theory

from .scenarios import MSS, PKT, T_P, _class

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd


def _throughput_bins(fl: pd.DataFrame, width: float = 1.0) -> pd.DataFrame:
    """Per-flow goodput (Mb/s) in bins of ``width`` seconds, from the delivered bytes."""
    import pandas as pd

    out = {}
    for name, g in fl.groupby("flow"):
        t = g["time_s"].to_numpy()
        d = g["delivered_bytes"].to_numpy(dtype=float)
        edges = np.arange(0.0, t[-1] + 1e-9, width)
        at = np.interp(edges, t, d)
        out[name] = pd.Series(np.diff(at) * 8 / width / 1e6, index=edges[1:])
    return pd.DataFrame(out)


def _mi_growth(fl: pd.DataFrame, flow: str) -> float:
    """Window growth per t_p of ``flow`` during its first increase phase (from 4 packets
    to the first reduction): exp(slope · t_p) of a least-squares fit of log cwnd."""
    g = fl[fl["flow"] == flow]
    w = g["cwnd_bytes"].to_numpy(dtype=float) / MSS
    t = g["time_s"].to_numpy()
    drop = np.nonzero(np.diff(w) < 0)[0]
    end = drop[0] + 1 if len(drop) else len(w)
    m = (w[:end] >= 4) & (w[:end] <= 0.5 * w[:end].max())
    if m.sum() < 3:
        return math.nan
    slope = np.polyfit(t[:end][m], np.log(w[:end][m]), 1)[0]
    return float(math.exp(slope * T_P))


def _tracking(r, t0: float) -> tuple[float, float]:
    """Fig. 2: the mean absolute gap between each BMCC flow's echoed estimate and the
    bottleneck's load factor (capped at u), from ``t0`` or 2 s after the flow's start,
    at the best lag (s, in [0, 2 s])."""
    fl, qd = r.timeseries["flow"], r.timeseries["qdisc"]
    lf = qd[(qd["queue"] == "R1->R2") & (qd["name"] == "load_factor")]
    tf, vf = lf["time_s"].to_numpy(), lf["value"].to_numpy()
    if len(tf) == 0:
        return (math.nan, math.nan)  # not a BMCC router
    starts = dict(zip(r.flows["name"], r.flows["start_s"]))
    series = []
    for name, g in fl.groupby("flow"):
        if not str(name).startswith("bmcc"):
            continue
        g = g[(g["time_s"] >= max(t0, starts[name] + 2.0)) & g["cc_state"].notna()]
        series.append((g["time_s"].to_numpy(), g["cc_state"].to_numpy()))
    best = (math.inf, math.nan)
    for lag in np.arange(0.0, 2.0001, 0.1):
        gaps = [np.abs(v - np.minimum(np.interp(t - lag, tf, vf), 1.2)) for t, v in series]
        if gaps:
            gap = float(np.concatenate(gaps).mean())
            if gap < best[0]:
                best = (gap, float(lag))
    return best


def metrics(r) -> dict:
    q = r.queue("R1->R2")
    flows = r.flows
    kinds = [str(n).rstrip("0123456789") for n in flows["name"]]
    g = flows["goodput_bps"].to_numpy(dtype=float) / 1e6
    m = {
        "utilization": float(q["utilization"]),
        "drops": float(q["drops"]),
        "loss_rate": float(q["loss_rate"]),
        "ce_marks": float(q["marks"]),
        "adpm_marks": float(q["marks_adpm"]),
        "mean_queue_pkts": float(q["mean_len_pkts"]),
        "max_queue_pkts": float(q["max_len_pkts"]),
        "total_mbps": float(g.sum()),
        "jain": theory.jain_index(g) if g.sum() > 0 else math.nan,
        "retransmits": float(flows["retransmits"].sum()),
        "timeouts": float(flows["timeouts"].sum()),
    }
    for i, x in enumerate(g):
        m[f"thr_{i}"] = float(x)
    for c in ("bmcc", "sack"):
        sel = [x for x, k in zip(g, kinds) if _class(k) == c]
        m[f"thr_{c}"] = float(sum(sel))
        m[f"share_{c}"] = float(sum(sel) / g.sum()) if sel and g.sum() > 0 else math.nan
        m[f"jain_{c}"] = theory.jain_index(sel) if sel and sum(sel) > 0 else math.nan
        rows = [i for i, k in enumerate(kinds) if _class(k) == c]
        m[f"timeouts_{c}"] = float(flows["timeouts"].iloc[rows].sum()) if rows else math.nan
        m[f"retransmits_{c}"] = float(flows["retransmits"].iloc[rows].sum()) if rows else math.nan
    cc = r.summary.get("cc", {})
    bm = [cc[n] for n in flows["name"] if n in cc]
    for k in ("md", "loss_halvings", "ce_halvings", "to_sack_mode", "to_bmcc_mode", "sack_mode_s"):
        m[k] = float(sum(s.get(k) or 0.0 for s in bm)) if bm else math.nan
    for k, pick in (
        ("md_factor_min", min),
        ("md_factor_max", max),
        ("ce_md_factor_min", min),
        ("ce_md_factor_max", max),
    ):
        vals = [s[k] for s in bm if s.get(k) is not None]
        m[k] = float(pick(vals)) if vals else math.nan
    for k, pick in (("loss_factor_min", min), ("loss_factor_max", max)):
        vals = [s[k] for s in bm if s.get(k) is not None]
        m[k] = float(pick(vals)) if vals else math.nan
    m["buffer_pkts"] = float(str(q["limit"]).removesuffix("pkt"))
    firsts = [s.get("first_sack_mode_s") for s in bm]
    m["first_sack_mode_s"] = (
        float(max(x for x in firsts if x is not None))
        if firsts and all(x is not None for x in firsts)
        else math.nan
    )
    if len(r.workloads):
        w = r.workloads
        m["cross_rate_min"] = float(w["rate_realised"].min())
        m["cross_rate_max"] = float(w["rate_realised"].max())
        m["cross_rate_requested"] = float(w["rate_requested"].mean())
        m["cross_load_mbps"] = float(w["load_realised_bps"].mean() / 1e6)
    fl = r.timeseries.get("flow")
    if fl is not None and len(fl):
        first_bmcc = next((n for n in flows["name"] if str(n).startswith("bmcc")), None)
        m["mi_growth_per_tp"] = _mi_growth(fl, first_bmcc) if first_bmcc else math.nan
        m["mean_cwnd_bmcc_pkts"] = float(
            fl[fl["flow"].astype(str).str.startswith("bmcc")]["cwnd_bytes"].mean() / MSS
        )
        m["max_cwnd_bmcc_pkts"] = float(
            fl[fl["flow"].astype(str).str.startswith("bmcc")]["cwnd_bytes"].max() / MSS
        )
        warm = float(r.summary["warmup_s"])
        sel = fl[fl["time_s"] >= warm]
        # Window variation of the BMCC flows (Fig. 3): coefficient of variation.
        cv = [
            float(s.std() / s.mean())
            for n, s in sel.groupby("flow")["cwnd_bytes"]
            if str(n).startswith("bmcc") and s.mean() > 0
        ]
        m["cwnd_cv_bmcc"] = float(np.mean(cv)) if cv else math.nan
        if "qdisc" in r.timeseries and first_bmcc:
            m["tracking_gap"], m["tracking_lag_s"] = _tracking(r, max(warm, 10.0))
    qd = r.timeseries.get("qdisc")
    if qd is not None and len(qd):
        lf = qd[(qd["name"] == "load_factor") & (qd["time_s"] >= float(r.summary["warmup_s"]))]
        if len(lf):
            m["load_factor_min"] = float(lf["value"].min())
            m["load_factor_max"] = float(lf["value"].max())
    starts = sorted(set(float(x) for x in flows["start_s"]))
    if len(starts) > 1 and fl is not None and len(fl):
        m.update(_phases(r, starts))
    return m


def _phases(r, starts: list[float]) -> dict:
    """Fig. 1: per period between arrivals, the aggregate and per-flow goodput over its
    last half, Jain's index there, the newcomer's time to 70 % of its fair share and the
    time until Jain's index of the active flows stays at 0.95 or more (1-s bins)."""
    bins = _throughput_bins(r.timeseries["flow"])
    end = float(r.summary["duration_s"])
    cap = float(r.queue("R1->R2")["rate_bps"]) / 1e6 * MSS / PKT  # goodput capacity
    names = list(r.flows.sort_values("start_s")["name"])
    out = {}
    bounds = [*starts, end]
    for k in range(len(starts)):
        a, b = bounds[k], bounds[k + 1]
        active = names[: k + 1]
        per = bins.loc[(bins.index > a) & (bins.index <= b), active]
        late = per[per.index > (a + b) / 2]
        out[f"p{k + 1}_total_mbps"] = float(late.sum(axis=1).mean())
        out[f"p{k + 1}_jain"] = (
            theory.jain_index(late.mean()) if late.values.sum() > 0 else math.nan
        )
        for f in active:
            out[f"p{k + 1}_{f}_mbps"] = float(late[f].mean())
        fair = cap / (k + 1)
        reach = per.index[per[names[k]] >= 0.7 * fair]
        out[f"p{k + 1}_to_70pct_s"] = float(reach[0] - a) if len(reach) else math.inf
        if k > 0:
            j = per.apply(lambda row: theory.jain_index(row) if row.sum() > 0 else 0.0, axis=1)
            bad = j.index[j < 0.95]
            out[f"p{k + 1}_to_fair_s"] = float(bad[-1] - a) if len(bad) else 0.0
            if len(bad) and bad[-1] >= b - 1.0:
                out[f"p{k + 1}_to_fair_s"] = math.inf
    return out
