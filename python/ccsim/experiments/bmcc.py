"""Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009: BMCC over BMCC, drop-tail and RED/ECN routers, its mixes with SACK
and SACK+ECN, the modified BMCC router and the SACK-compatibility heuristic.

Spec: ``specs/bmcc.md`` with ``specs/corrections.md`` winning. Model page:
docs/models/bmcc.md. The paper gives almost no numbers; the checks are the spec's §10
(analytic values, qualitative outcomes as rankings and shares), each with its tolerance.

Common settings (spec §7): dumbbell, bottleneck C = 45 Mbps both directions, access
links 10·C, every buffer one BDP of 1000-byte packets (960 B + 40 B), round-trip
propagation T = 40 ms unless stated (the bottleneck carries T/4 each way, the access
links the rest, so flows of other RTTs differ in their access delays only). Both
directions of the bottleneck have the router under test (the reverse carries the ACKs
and the reverse cross traffic); other queues are drop-tail. Bidirectional cross traffic
on two pairs of its own with RTT T: Poisson arrivals at 10 % of C per direction
(18.75 files/s), Pareto sizes with mean 30 kB and shape 1.2; BMCC over BMCC routers,
SACK elsewhere (spec B13). Every TCP flow runs with ns-2's conventions (the paper's
simulator): ns-2's RTT estimator in 10-ms ticks, initial RTO 3 s, cwnd += 1/cwnd per
ACK; SACK flows are NewReno with SACK recovery. Runs last 300 s; throughputs are
measured over [50 s, end] (spec §7, flagged there).
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

MSS, HEADER = 960, 40
PKT = MSS + HEADER  # 1000 B on the wire
C_MBPS = 45.0
T_P = 0.2  # s: the routers' measurement interval
CROSS_SHARE = 0.1  # of C, per direction
CROSS_MEAN = 30_000  # bytes
CROSS_SHAPE = 1.2

#: Bottleneck routers.
ROUTERS = {
    "bmcc": "BMCC router",
    "modified": "modified BMCC router (ARED in overload)",
    "droptail": "drop-tail",
    "red": "RED + ECN",
}

#: Flow kinds.
KINDS = {
    "bmcc": "BMCC",
    "bmcc-h": "BMCC with the SACK-compatibility heuristic",
    "sack": "SACK",
    "sack-ecn": "SACK + ECN",
}


def router_queue(router: str) -> dict:
    """The bottleneck queue of a router type (without its limit). RED is ns-2's of
    2008-09 with ECN (corrections.md: its defaults: byte mode with a 500-byte mean
    packet, automatic thresholds and weight, gentle, ``use_mark_p``)."""
    return {
        "bmcc": {"kind": "bmcc"},
        "modified": {"kind": "bmcc", "overload": "ared"},
        "droptail": {"kind": "droptail"},
        "red": {"kind": "red", "ecn": True},
    }[router]


def transport(kind: str, router: str) -> dict:
    """A flow's transport keys (ns-2 conventions, 1000-byte packets)."""
    t = {"kind": "tcp", "mss": MSS, "header": HEADER, "conventions": "ns2"}
    if kind in ("bmcc", "bmcc-h"):
        t["cc"] = {"kind": "bmcc", "sack_fallback": True} if kind == "bmcc-h" else "bmcc"
        # The modified scheme at both ends (spec §6.1): the receiver flags CE.
        t["feedback"] = {"kind": "bmcc", "on_ce": "flag" if router == "modified" else "estimate"}
    elif kind in ("sack", "sack-ecn"):
        t.update(cc="newreno", sack=True, ecn=kind == "sack-ecn")
    else:
        raise ValueError(f"unknown flow kind {kind!r}; kinds: {', '.join(KINDS)}")
    return t


def scenario(
    flows: list[tuple[str, float, float]],
    router: str = "bmcc",
    rate_mbps: float = C_MBPS,
    rtt_ms: float = 40.0,
    duration: float = 300.0,
    warmup: float = 50.0,
    cross: bool = True,
    seed: int = 1,
    monitor: float = 0.1,
    bdp_rtt_ms: float | None = None,
) -> dict:
    """A dumbbell with long-lived ``flows`` = [(kind, rtt_ms, start_s), ...] over
    ``router``, plus (``cross``) the bidirectional Pareto cross traffic on two pairs of
    RTT ``rtt_ms``. Buffers: one BDP at ``bdp_rtt_ms`` (default ``rtt_ms``)."""
    rtts = [r for _, r, _ in flows] + ([rtt_ms, rtt_ms] if cross else [])
    delay = min(rtts) / 4  # ms, each way on the bottleneck
    access = [(r / 2 - delay) / 2 for r in rtts]
    bdp = theory.bdp_packets(rate_mbps * 1e6, (bdp_rtt_ms or rtt_ms) / 1000, PKT)
    limit = f"{max(1, round(bdp))}pkt"
    q = dict(router_queue(router), limit=limit)
    sc = {
        "name": f"bmcc-{router}-{len(flows)}",
        "seed": seed,
        "duration": f"{duration}s",
        "warmup": f"{warmup}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": len(rtts),
            "bottleneck": {
                "rate": f"{rate_mbps}Mbps",
                "delay": f"{delay}ms",
                "queue": q,
                "reverse_queue": q,
            },
            "access": {
                "rate": f"{10 * rate_mbps}Mbps",
                "delay": [f"{a:.6f}ms" for a in access],
                "queue": {"kind": "droptail", "limit": limit},
            },
        },
        "flows": [
            {
                **{k: v for k, v in transport(kind, router).items() if k != "kind"},
                "name": f"{kind}{i}",
                "pairs": [i],
                "start": f"{start}s",
            }
            for i, (kind, _, start) in enumerate(flows)
        ],
        "monitor": {"interval": f"{monitor}s", "queues": ["R1->R2"], "flows": "all"},
    }
    if cross:
        cross_kind = "bmcc" if router in ("bmcc", "modified") else "sack"
        sc["workloads"] = [
            {
                "name": "cross",
                "pairs": [len(flows), len(flows) + 1],
                "direction": "both",
                "offered_load": f"{CROSS_SHARE * rate_mbps}Mbps",
                "size": {"dist": "pareto", "shape": CROSS_SHAPE, "mean": f"{CROSS_MEAN}B"},
                "transport": transport(cross_kind, router),
            }
        ]
    return sc


def long_flows(kinds: list[str], rtt_ms: float, starts: list[float] | None = None) -> list:
    """[(kind, rtt_ms, start_s), ...] for flows of one RTT."""
    starts = starts or [0.0] * len(kinds)
    return [(k, rtt_ms, s) for k, s in zip(kinds, starts)]


def _class(kind: str) -> str:
    return "bmcc" if kind.startswith("bmcc") else "sack"


# ----- metrics (run in the sweep workers)


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


# ----- runs


def _durations(quick: bool) -> tuple[float, float]:
    """(duration, warm-up) of the 45-Mb/s runs: 300 s measured from 50 s (spec §7), or
    100 s from 30 s in quick mode."""
    return (100.0, 30.0) if quick else (300.0, 50.0)


def _seeds(quick: bool) -> range:
    return range(1, 2 if quick else 4)


#: Fig. 1: (RTT ms, arrival s) of the three flows (spec §7: 150/200/250 ms, 100 s apart).
FIG1 = [(150.0, 0.0), (200.0, 100.0), (250.0, 200.0)]


def fig1_scenario(quick: bool = False, seed: int = 1) -> dict:
    """Fig. 1-2: three BMCC flows on a 100 Mb/s BMCC bottleneck, buffer one BDP at the
    mean RTT (200 ms, spec B16), no cross traffic (the paper's illustration, §3.4).
    Quick mode: arrivals 40 s apart, 120 s."""
    gap = 40.0 if quick else 100.0
    # Each replication moves every arrival by up to 1 s (without cross traffic the
    # seed alone changes nothing that matters).
    jitter = np.random.default_rng(seed).uniform(0.0, 1.0, len(FIG1)) if seed > 1 else [0.0] * 3
    flows = [
        ("bmcc", rtt, round(k * gap + j, 6)) for k, ((rtt, _), j) in enumerate(zip(FIG1, jitter))
    ]
    return scenario(
        flows,
        router="bmcc",
        rate_mbps=100.0,
        rtt_ms=200.0,
        duration=3 * gap,
        warmup=0.0,
        cross=False,
        seed=seed,
    )


def convergence_runs(quick: bool) -> list[Run]:
    return [Run({"fig": "1", "seed": s}, fig1_scenario(quick, s)) for s in _seeds(quick)]


def two_flow_runs(quick: bool) -> list[Run]:
    """Figs. 3-5: two BMCC flows over each router type at T = 40 and 300 ms."""
    dur, warm = _durations(quick)
    out = []
    for router in ("bmcc", "droptail", "red"):
        for T in (40.0, 300.0):
            for s in _seeds(quick):
                sc = scenario(
                    long_flows(["bmcc"] * 2, T), router, rtt_ms=T, duration=dur, warmup=warm, seed=s
                )
                out.append(Run({"router": router, "rtt_ms": T, "cross": True, "seed": s}, sc))
    # The BMCC router at 300 ms without cross traffic: what the cross traffic changes.
    for s in _seeds(quick):
        flows = long_flows(["bmcc"] * 2, 300.0)
        sc = scenario(flows, "bmcc", rtt_ms=300.0, duration=dur, warmup=warm, seed=s, cross=False)
        out.append(Run({"router": "bmcc", "rtt_ms": 300.0, "cross": False, "seed": s}, sc))
    return out


def mix_runs(quick: bool) -> list[Run]:
    """Figs. 6-8: 3 BMCC + 3 SACK(+ECN) flows. Fig. 6 over drop-tail (SACK) and RED + ECN
    (SACK + ECN) at T = 40 and 300 ms; Figs. 7, 8 over a BMCC router at 40 ms with the
    SACK flows arriving at 10, 11 and 12 s."""
    dur, warm = _durations(quick)
    out = []
    for router, sack in (("droptail", "sack"), ("red", "sack-ecn")):
        for T in (40.0, 300.0):
            for s in _seeds(quick):
                flows = long_flows(["bmcc"] * 3 + [sack] * 3, T)
                sc = scenario(flows, router, rtt_ms=T, duration=dur, warmup=warm, seed=s)
                out.append(Run({"fig": "6", "router": router, "rtt_ms": T, "seed": s}, sc))
    for fig, sack in (("7", "sack"), ("8", "sack-ecn")):
        for s in _seeds(quick):
            flows = long_flows(["bmcc"] * 3 + [sack] * 3, 40.0, [0, 0, 0, 10, 11, 12])
            sc = scenario(flows, "bmcc", duration=dur, warmup=warm, seed=s)
            out.append(Run({"fig": fig, "router": "bmcc", "rtt_ms": 40.0, "seed": s}, sc))
    return out


def modified_runs(quick: bool) -> list[Run]:
    """Figs. 9-10: 3 SACK + ECN and 3 BMCC flows over the modified BMCC router."""
    dur, warm = _durations(quick)
    return [
        Run(
            {"rtt_ms": T, "seed": s},
            scenario(
                long_flows(["bmcc"] * 3 + ["sack-ecn"] * 3, T),
                "modified",
                rtt_ms=T,
                duration=dur,
                warmup=warm,
                seed=s,
            ),
        )
        for T in (40.0, 300.0)
        for s in _seeds(quick)
    ]


#: Fig. 11's RTT grid (spec §8: not given in the paper).
GAIN_GRID = (20.0, 40.0, 60.0, 80.0, 100.0, 150.0, 200.0, 300.0)
GAIN_GRID_QUICK = (20.0, 40.0, 100.0, 300.0)
#: The three experiments of §8 (the ``case`` label): flows (kind, RTT or None for T).
GAIN_EXPERIMENTS = {
    "baseline": [("sack-ecn", None), ("sack-ecn", None)],
    "mix-bmcc": [("sack-ecn", None), ("bmcc", None)],
    "mix-rtt": [("sack-ecn", None), ("sack-ecn", 10.0)],
}


def gain_runs(quick: bool) -> list[Run]:
    """Fig. 11: BASELINE (two SACK flows of RTT T), MIX-BMCC (SACK and BMCC, both T),
    MIX-RTT (SACK of RTT T and SACK of 10 ms) over the modified BMCC router at 45 Mb/s;
    SACK flows ECN-capable (the captions of Figs. 9-10; spec §8). The buffer is one BDP
    at T; the cross traffic's pairs have RTT T."""
    dur, warm = _durations(quick)
    out = []
    for T in GAIN_GRID_QUICK if quick else GAIN_GRID:
        for exp, spec in GAIN_EXPERIMENTS.items():
            flows = [(k, rtt or T, 0.0) for k, rtt in spec]
            for s in _seeds(quick):
                sc = scenario(flows, "modified", rtt_ms=T, duration=dur, warmup=warm, seed=s)
                out.append(Run({"case": exp, "rtt_ms": T, "seed": s}, sc))
    return out


def heuristic_runs(quick: bool) -> list[Run]:
    """Fig. 12: two BMCC flows with the SACK-compatibility heuristic over drop-tail at
    40 ms; beside them, without the heuristic (Fig. 4's flows), over RED + ECN, and over
    a BMCC router (where the heuristic must not switch)."""
    dur, warm = _durations(quick)
    out = []
    for router in ("droptail", "red", "bmcc"):
        for kind in ("bmcc-h", "bmcc"):
            if router == "bmcc" and kind == "bmcc":
                continue
            for s in _seeds(quick):
                sc = scenario(
                    long_flows([kind] * 2, 40.0), router, duration=dur, warmup=warm, seed=s
                )
                out.append(Run({"router": router, "kind": kind, "seed": s}, sc))
    return out


#: The validation sweep: numbers of BMCC flows, and the RTT spread of the unequal case.
VALIDATION_N = (2, 4, 8, 16)
VALIDATION_N_QUICK = (2, 8)
UNEQUAL_RTTS = (40.0, 160.0)  # ms: the flows' RTTs spread evenly over this range


def validation_scenario(n: int, rtts: str, seed: int, duration: float, warmup: float) -> dict:
    """``n`` BMCC flows over a 45 Mb/s BMCC bottleneck without cross traffic, equal RTTs
    (40 ms) or RTTs spread evenly over 40-160 ms; starts uniform in [0, 1 s) per seed."""
    rng = np.random.default_rng(seed)
    starts = [round(float(x), 6) for x in rng.uniform(0.0, 1.0, n)]
    if rtts == "equal":
        rtt = [40.0] * n
    else:
        lo, hi = UNEQUAL_RTTS
        rtt = [lo + (hi - lo) * i / (n - 1) for i in range(n)]
    flows = [("bmcc", r, s) for r, s in zip(rtt, starts)]
    return scenario(
        flows,
        "bmcc",
        rtt_ms=40.0,
        duration=duration,
        warmup=warmup,
        cross=False,
        seed=seed,
        monitor=1.0,
        bdp_rtt_ms=float(np.mean(rtt)),
    )


def validation_runs(quick: bool) -> list[Run]:
    """N = 2…16 BMCC flows, equal and unequal RTTs, 10 seeds each (3 in quick mode).
    Measured over [200 s, 600 s] (AI at 40 ms adds 0.04 packet per RTT: convergence
    from unequal starts takes minutes; quick: [100 s, 200 s])."""
    duration, warmup = (200.0, 100.0) if quick else (600.0, 200.0)
    seeds = range(1, 4 if quick else 11)
    return [
        Run({"n": n, "rtts": rtts, "seed": s}, validation_scenario(n, rtts, s, duration, warmup))
        for n in (VALIDATION_N_QUICK if quick else VALIDATION_N)
        for rtts in ("equal", "unequal")
        for s in seeds
    ]


# ----- check helpers


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
    "Settings (spec §7, flagged there): 1000-byte packets (960 B + 40 B), 45 Mb/s "
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
    "RED + ECN is ns-2's RED of 2008-09 (corrections.md): byte mode with a 500-byte mean "
    "packet (with 1000-byte packets the probability doubles), automatic thresholds and "
    "weight, gentle, `use_mark_p` (an ECN-capable packet is marked while p_b ≤ 0.1 and "
    "dropped above), ECN on. The modified BMCC router runs ns-2's automatic Adaptive RED "
    "(max_p's floor min(0.01, 80000/C) = 0.00178 at 45 Mb/s) while f ≥ 1.",
    "Shares of the bandwidth in the starvation checks are goodputs over the measurement "
    "window as fractions of C.",
]


# ----- plots


def _cwnd_panel(ax, fl: pd.DataFrame, title: str, log: bool = False) -> None:
    """Congestion windows (packets) of every long-lived flow: BMCC solid, SACK dashed."""
    for k, (name, g) in enumerate(sorted(fl.groupby("flow"), key=lambda x: str(x[0]))):
        bmcc = str(name).startswith("bmcc")
        ax.plot(
            g["time_s"],
            g["cwnd_bytes"] / MSS,
            lw=0.7,
            ls="-" if bmcc else "--",
            color=f"C{k}",
            label=str(name),
        )
    ax.set_title(title, fontsize=9)
    ax.set_ylabel("cwnd (packets)")
    if log:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)


def _convergence_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fl = data.timeseries("flow", seed=1)
    qd = data.timeseries("qdisc", seed=1)
    bins = _throughput_bins(fl)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for k, name in enumerate(sorted(bins.columns)):
        rtt = FIG1[k][0]
        ax.plot(bins.index, bins[name] * PKT / MSS, lw=0.9, label=f"{name} (RTT {rtt:.0f} ms)")
    ax.plot(bins.index, bins.sum(axis=1) * PKT / MSS, lw=0.9, color="k", alpha=0.5, label="total")
    ax.axhline(100, ls=":", color="gray", lw=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput on the wire (Mb/s, 1-s bins)")
    ax.set_title("Fig. 1: three BMCC flows on a 100 Mb/s BMCC bottleneck")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    paths = save_figure(fig, outdir, "fig1-throughput")
    fig, ax = plt.subplots(figsize=(10, 4.5))
    lf = qd[qd["name"] == "load_factor"]
    ax.plot(lf["time_s"], lf["value"], lw=0.8, color="k", label="bottleneck load factor f")
    for k, (name, g) in enumerate(sorted(fl.groupby("flow"), key=lambda x: str(x[0]))):
        ax.plot(g["time_s"], g["cc_state"], lw=0.6, color=f"C{k}", label=f"{name}: estimate f̂")
    ax.set_ylim(0, 1.6)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("load factor")
    ax.set_title("Fig. 2: the bottleneck's load factor and the flows' estimates (echoed in ACKs)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return paths + save_figure(fig, outdir, "fig2-load-factor")


def _two_flow_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(15, 7), sharex=True)
    for j, (router, fig_no) in enumerate((("bmcc", "3"), ("droptail", "4"), ("red", "5"))):
        for i, T in enumerate((40.0, 300.0)):
            fl = data.timeseries("flow", router=router, rtt_ms=T, cross=True, seed=1)
            _cwnd_panel(
                axes[i, j], fl, f"Fig. {fig_no}: {ROUTERS[router]}, T = {T:.0f} ms", log=T > 100
            )
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.suptitle("Two BMCC flows over a BMCC, a drop-tail and a RED + ECN bottleneck")
    fig.tight_layout()
    return save_figure(fig, outdir, "figs3-5-two-bmcc-flows")


def _mix_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 7), sharex=True)
    for (router, T, label), ax in zip(
        (
            ("droptail", 40.0, "(a)"),
            ("droptail", 300.0, "(b)"),
            ("red", 40.0, "(c)"),
            ("red", 300.0, "(d)"),
        ),
        axes.flat,
    ):
        fl = data.timeseries("flow", fig="6", router=router, rtt_ms=T, seed=1)
        _cwnd_panel(ax, fl, f"Fig. 6{label}: T = {T:.0f} ms, {ROUTERS[router]}", log=True)
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.suptitle("Fig. 6: 3 BMCC (solid) and 3 SACK (dashed) flows over a non-BMCC bottleneck")
    fig.tight_layout()
    paths = save_figure(fig, outdir, "fig6-mix-non-bmcc")
    fig, axes = plt.subplots(1, 2, figsize=(13, 4), sharey=True)
    for fig_no, ax in zip(("7", "8"), axes):
        sack = "SACK" if fig_no == "7" else "SACK + ECN"
        fl = data.timeseries("flow", fig=fig_no, seed=1)
        _cwnd_panel(ax, fl, f"Fig. {fig_no}: 3 {sack} + 3 BMCC over a BMCC router, T = 40 ms")
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    return paths + save_figure(fig, outdir, "figs7-8-mix-bmcc-router")


def _modified_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 4))
    for (T, fig_no), ax in zip(((40.0, "9"), (300.0, "10")), axes):
        fl = data.timeseries("flow", rtt_ms=T, seed=1)
        _cwnd_panel(ax, fl, f"Fig. {fig_no}: 3 SACK+ECN + 3 BMCC, modified router, T = {T:.0f} ms")
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    return save_figure(fig, outdir, "figs9-10-modified-router")


def gain_loss(d: Data) -> pd.DataFrame:
    """Fig. 11 (spec §8): per T, G and L of the BMCC flow and of the 10-ms SACK flow
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


def _gain_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    gl = gain_loss(data)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for tag, label, mk in (("bmcc", "BMCC (RTT T)", "o-"), ("sack10", "SACK (RTT 10 ms)", "s--")):
        axes[0].plot(gl["rtt_ms"], gl[f"G_{tag}"], mk, label=label)
        axes[1].plot(gl["rtt_ms"], gl[f"L_{tag}"], mk, label=f"SACK (RTT T) against {label}")
    axes[0].set_title("Fig. 11(a): gain G of the more aggressive flow")
    axes[1].set_title("Fig. 11(b): loss L of the SACK flow of RTT T")
    for ax in axes:
        ax.axhline(1.0, color="gray", ls=":", lw=1)
        ax.set_xlabel("T (ms)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, outdir, "fig11-gain-loss")


def _heuristic_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4), sharey=True)
    for (router, kind, title), ax in zip(
        (
            ("droptail", "bmcc-h", "Fig. 12: with the heuristic, drop-tail"),
            ("droptail", "bmcc", "Fig. 4: without it, drop-tail"),
            ("red", "bmcc-h", "with the heuristic, RED + ECN"),
        ),
        axes,
    ):
        fl = data.timeseries("flow", router=router, kind=kind, seed=1)
        _cwnd_panel(ax, fl, f"{title}, T = 40 ms")
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    return save_figure(fig, outdir, "fig12-heuristic")


def _validation_plot(data: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    t = data.table
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for rtts, mk in (("equal", "o-"), ("unequal", "s--")):
        g = t[t["rtts"] == rtts].groupby("n")
        for ax, metric, label in zip(
            axes,
            ("utilization", "jain", "mean_queue_pkts"),
            ("utilization", "Jain's index", "mean queue (packets)"),
        ):
            ax.errorbar(
                g[metric].mean().index,
                g[metric].mean(),
                yerr=g[metric].std(),
                fmt=mk,
                capsize=3,
                label=f"{rtts} RTTs",
            )
            ax.set_xlabel("BMCC flows")
            ax.set_title(label)
            ax.set_xscale("log", base=2)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
    axes[0].axhline(0.98, ls=":", color="gray", lw=1)
    fig.suptitle("N BMCC flows over a 45 Mb/s BMCC bottleneck (mean ± sd over seeds)")
    fig.tight_layout()
    return save_figure(fig, outdir, "validation-n-flows")


# ----- experiments

PAPER = "Qazi, Znati & Andrew, PFLDNeT 2009; spec bmcc.md §7, §10"
WIRE = PKT / MSS  # goodput → throughput on the wire


def _wire(metric: str, **params):
    return lambda d: d.one(metric, **params) * WIRE


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
        "show, below the 95 % of C the spec expects from γ = 0.98."
    )
    out.append(
        "Equalization comes from AI alone: MI and MD multiply every window by the same factor. "
        "AI adds 0.56, 1 and 1.56 packets per RTT (T = 150, 200, 250 ms) against a pipe of "
        "≈ 2500 packets, and MD happens only when the link refills (every ≈ 20-40 s), each time "
        "shrinking the gap between windows by 12.5 %: ≈ 9 cycles (several minutes) to go from one "
        "flow holding the link to within 70 % of equal shares. The runs' newcomers never reach "
        "70 % of their fair share within their 100-s period (the spec's 'quickly' is not met)."
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
            "Packets lost (no loss over a BMCC router, spec §5)",
            "none",
            lambda d: float(d.table["drops"].sum()),
            0,
            0,
            "exact",
            "{:.0f}",
        ),
    ],
    notes=[
        "Fig. 1's scenario (spec §7): 100 Mb/s BMCC bottleneck, flows of RTT 150, 200 and 250 ms "
        "(access delays differ) arriving at 0, 100 and 200 s, buffer one BDP at the mean RTT "
        "(200 ms, B16: 2500 packets), no cross traffic (§3.4 is the protocol's illustration), "
        "300 s. Replications move each arrival by up to 1 s. Quick mode: arrivals 40 s apart.",
        "The text's '≈ 50 Mb/s each' is read as the two-flow period (B15); with three flows the "
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
            "MI factor per t_p at f̂ = η₀ (eq. 3; the engine's law, cc/bmcc.rs tests)",
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
        "Fig. 6's SACK flows are ECN-capable over RED + ECN (spec §7, flagged). Figs. 7-8: the "
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
        "Modified scheme at both ends (§5.2, B10-B12): the router runs ARED while f ≥ 1, "
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
        "Spec §8: BASELINE = two SACK + ECN flows of RTT T; MIX-BMCC = one SACK + ECN and one "
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
    paper="spec bmcc.md §4-5 (expected behaviour over a BMCC router); issue 22",
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

EXPERIMENTS = [
    EXP_CONVERGENCE,
    EXP_ROUTERS,
    EXP_MIXES,
    EXP_MODIFIED,
    EXP_GAIN,
    EXP_HEURISTIC,
    EXP_VALIDATION,
]
