"""The BMCC reproductions' settings (docs/models/bmcc.md, "Experiment settings"), the
scenario builder (a dumbbell with
long-lived flows over the router under test and the bidirectional Pareto cross traffic)
and the runs of each experiment: Fig. 1's three flows, the two-flow router comparison,
the mixes with SACK, the modified router, Fig. 11's RTT grid, the heuristic and the
N-flow validation sweep.

Source: Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009; settings and modelling decisions: docs/models/bmcc.md.
"""

from __future__ import annotations

import numpy as np

from ccsim import theory
from ccsim.experiments.framework import Run


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
    2008-09 with ECN (its defaults: byte mode with a 500-byte mean packet, automatic
    thresholds and weight, gentle, ``use_mark_p``; docs/models/bmcc.md, "Modelling
    decisions")."""
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
        # The modified scheme at both ends (§5.2): the receiver flags CE.
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


def _durations(quick: bool) -> tuple[float, float]:
    """(duration, warm-up) of the 45-Mb/s runs: 300 s measured from 50 s (not stated in
    the paper), or
    100 s from 30 s in quick mode."""
    return (100.0, 30.0) if quick else (300.0, 50.0)


def _seeds(quick: bool) -> range:
    return range(1, 2 if quick else 4)


#: Fig. 1: (RTT ms, arrival s) of the three flows (§3.4: 150/200/250 ms, 100 s apart).
FIG1 = [(150.0, 0.0), (200.0, 100.0), (250.0, 200.0)]


def fig1_scenario(quick: bool = False, seed: int = 1) -> dict:
    """Fig. 1-2: three BMCC flows on a 100 Mb/s BMCC bottleneck, buffer one BDP at the
    mean RTT (200 ms; docs/models/bmcc.md, "Experiment settings"), no cross traffic (the
    paper's illustration, §3.4).
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


#: Fig. 11's RTT grid (not given in the paper).
GAIN_GRID = (20.0, 40.0, 60.0, 80.0, 100.0, 150.0, 200.0, 300.0)
GAIN_GRID_QUICK = (20.0, 40.0, 100.0, 300.0)
#: The three experiments of §5.2 (the ``case`` label): flows (kind, RTT or None for T).
GAIN_EXPERIMENTS = {
    "baseline": [("sack-ecn", None), ("sack-ecn", None)],
    "mix-bmcc": [("sack-ecn", None), ("bmcc", None)],
    "mix-rtt": [("sack-ecn", None), ("sack-ecn", 10.0)],
}


def gain_runs(quick: bool) -> list[Run]:
    """Fig. 11: BASELINE (two SACK flows of RTT T), MIX-BMCC (SACK and BMCC, both T),
    MIX-RTT (SACK of RTT T and SACK of 10 ms) over the modified BMCC router at 45 Mb/s;
    SACK flows ECN-capable (the captions of Figs. 9-10). The buffer is one BDP
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
