"""The BLT reproduction's networks and runs: the configurations of §4.2 (Figs.
6-31, Table 1) by group, the protocols' transports, the scenario of one point (§4.1.1's
network, §4.1.3's Poisson workload), the idle-path hand calculation each configuration is
checked against, and the runs (the λ grids, seeds, TCP's timer sensitivity).

Source: Kim & Farber, MS-CIS-94-55, 1994 (§ numbers are its sections); the modelling
decisions L1-L15 are those of docs/models/blt.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ccsim import theory
from ccsim.experiments.framework import Run


PKT = 500  # bytes of file data per packet (and on the wire)
ACK = 40
#: Measured connections after a warm-up of a tenth of them (L11: 2000 after
#: 200). Files of 1 MB: 500 after 50 — BLT resends the rest of a file at every loss and
#: puts ≈ 20 times the file on the wire, so a 1-MB point costs minutes at 2000.
MEASURED = {"full": 2000, "full-1mb": 500, "quick": 300, "quick-1mb": 100}


def counts(quick: bool, cfg: Config, lam: float) -> tuple[int, int]:
    """(warm-up, measured) connections of a point: the warm-up is a tenth of the measured
    connections (L11: 200 before 2000), and at least three times Little's λ·R of the
    idle path for TCP, so that the system has filled up before the measured connections
    arrive (at 1 Gb/s and 1000 arrivals/s, 200 arrivals last 0.2 s, less than one TCP
    response time)."""
    m = MEASURED[("quick" if quick else "full") + ("-1mb" if cfg.size >= 1_000_000 else "")]
    return max(m // 10, math.ceil(3 * lam * _r_ref(cfg))), m


def _r_ref(cfg: Config) -> float:
    """A response time of the idle path for TCP: slow start, D·(1 + log2(F/packet + 1)),
    plus the file's serialization at the bottleneck."""
    return cfg.d_ms / 1000 * (1 + math.log2(cfg.size / PKT + 1)) + 8 * cfg.size / (cfg.bw_b * 1e6)


PROTOCOLS = {
    "tcp": "TCP (Reno)",
    "blt": "BLT (paper's switch)",
    "blt-fixed": "BLT (fixed switch)",
    "bt": "Bully-Tyrant",
}


@dataclass(frozen=True)
class Config:
    """One network of §4.2: access and bottleneck rates (Mb/s), D (ms), F (bytes)."""

    group: str
    bw_n: float
    bw_b: float
    d_ms: float
    size: int

    @property
    def key(self) -> str:
        return f"{self.group}/{self.bw_b:g}"

    def capacity(self) -> float:
        """The bottleneck's connection capacity BW_b / (8F), connections/s."""
        return self.bw_b * 1e6 / (8 * self.size)

    def buffer_bytes(self) -> int:
        """B = BW_b · D/3 (L1), bytes."""
        return round(self.bw_b * 1e6 * self.d_ms / 1000 / 3 / 8)


def idle_path(cfg: Config, protocol: str) -> theory.IdlePath:
    """The hand calculation of one transfer alone on ``cfg``'s path
    (:func:`ccsim.theory.idle_path_transfer`): access, bottleneck and egress hops of D/6
    each, 500-B packets, 40-B ACKs; TCP in slow start from one segment, BLT and
    Bully-Tyrant one burst."""
    d = cfg.d_ms / 6000
    hops = [(cfg.bw_n * 1e6, d), (cfg.bw_b * 1e6, d), (cfg.bw_n * 1e6, d)]
    sender = "slow-start" if protocol.startswith("tcp") else "burst"
    return theory.idle_path_transfer(cfg.size, PKT, hops, ACK, sender, init_cwnd=1)


def idle_path_fits(cfg: Config, protocol: str) -> bool:
    """Whether the transfer alone stays within the bottleneck's buffer (and, for TCP,
    within its access buffer; a burst sender paces its own first hop): then the idle-path
    calculation is the response time at very low load, with no loss to add."""
    p = idle_path(cfg, protocol).peak_waiting
    fits = p[1] * PKT <= cfg.buffer_bytes()
    if protocol.startswith("tcp"):
        fits &= p[0] * PKT <= max(PKT, round(cfg.bw_n * 1e6 * 2 * cfg.d_ms / 6000 / 8))
    return bool(fits)


def _three(group: str, bw_n: float, ratios, d_ms: float, size: int) -> list[Config]:
    return [Config(group, bw_n, bw_n * r, d_ms, size) for r in ratios]


FIFTHS = (0.2, 0.6, 1.0)
#: Every network of §4.2 (Figs. 6-31, Table 1), by group.
CONFIGS = [
    *_three("reference", 150, FIFTHS, 30, 100_000),
    *_three("gbps", 1000, FIFTHS, 30, 100_000),
    *_three("d3ms", 150, FIFTHS, 3, 100_000),
    *_three("d1.8ms", 150, FIFTHS, 1.8, 100_000),
    *_three("slow", 15, FIFTHS, 30, 100_000),
    *_three("1mb-150", 150, FIFTHS, 30, 1_000_000),
    *_three("1mb-gbps", 1000, FIFTHS, 30, 1_000_000),
    *_three("10kb", 150, FIFTHS, 30, 10_000),
]
GROUPS = {
    "reference": "BW_N 150 Mb/s, D 30 ms, F 100 KB (Figs. 6-11)",
    "gbps": "BW_N 1 Gb/s, D 30 ms, F 100 KB (Figs. 12-13, Table 1)",
    "d3ms": "BW_N 150 Mb/s, D 3 ms (Figs. 15-16)",
    "d1.8ms": "BW_N 150 Mb/s, D 1.8 ms (Figs. 17-18)",
    "slow": "BW_N 15 Mb/s, D 30 ms (Figs. 19-20)",
    "1mb-150": "F 1 MB, BW_N 150 Mb/s (Figs. 21-22)",
    "1mb-gbps": "F 1 MB, BW_N 1 Gb/s (Figs. 23-24)",
    "10kb": "F 10 KB, BW_N 150 Mb/s (Figs. 25-27)",
}
#: The λ grid, as fractions of the connection capacity (log-spaced, L11).
GRID = tuple(float(x) for x in np.round(np.geomspace(0.05, 1.0, 8), 4))
GRID_QUICK = (0.15, 0.4, 0.65, 0.9)
#: The idle-path runs: λ at 0.5 % of capacity (a transfer overlaps another with
#: probability ≈ λ·R, under 1 %), this many measured transfers (quick, full).
IDLE_FRAC = 0.005
IDLE_MEASURED = {True: 30, False: 100}


def config(key: str) -> Config:
    for c in CONFIGS:
        if c.key == key:
            return c
    raise KeyError(
        f"no BLT configuration {key!r}; configurations: {', '.join(c.key for c in CONFIGS)}"
    )


def transport(protocol: str, cfg: Config) -> dict:
    """The connections' transport keys (§4 for TCP, §3.3 and §4.2.6 for BLT and BT)."""
    if protocol not in PROTOCOLS:
        raise KeyError(
            f"no BLT-study protocol {protocol!r}; protocols: {', '.join(PROTOCOLS)} "
            "(the switch variant comes with the protocol: 'blt' crosses the paper's switch, "
            "'blt-fixed' the fixed one)"
        )
    d = cfg.d_ms / 1000
    timer = {"min_rto": f"{2 * d}s", "init_rto": "1s", "max_rto": "60s"}
    if protocol == "tcp":
        return {
            "kind": "tcp",
            "cc": "reno",
            "mss": PKT,
            "header": 0,
            "ack_size": ACK,
            "init_cwnd": 1,
            "dupthresh": 1,
            "byte_counting": False,
            "rtt_samples": "timestamps",
            "rtt_tick": "1ms",
            "clock_granularity": "1ms",
            **timer,
        }
    kind = "bully-tyrant" if protocol == "bt" else "blt"
    return {"kind": kind, "mss": PKT, "header": 0, "ack_size": ACK, **timer}


def pairs_for(cfg: Config, lam: float) -> int:
    """Host pairs in the pool, which is also the number of live connections at which a
    run is stopped as diverged (``max_alive``): ten times Little's λ·R with a response time
    of the idle path for TCP (slow start: D·(1 + log2(F/packet + 1)) plus the file's
    serialization), plus 50. A stable point near capacity stays well below (the runs
    report any arrival that found every pair busy)."""
    return int(min(4000, math.ceil(10 * lam * _r_ref(cfg)) + 50))


def scenario(
    protocol: str,
    cfg: Config,
    lam: float,
    seed: int = 1,
    warmup: int = 200,
    measured: int = 2000,
    monitor: float | None = None,
    pairs: int | None = None,
) -> dict:
    """One point: ``protocol`` on network ``cfg`` at λ = ``lam`` connections/s."""
    d = cfg.d_ms / 6  # ms per hop
    n = pairs or pairs_for(cfg, lam)
    k = warmup + measured
    cap = 2 * k / lam + 10.0  # a stable system is done long before
    switch = "fixed" if protocol == "blt-fixed" else "paper"
    access_buf = max(PKT, round(cfg.bw_n * 1e6 * 2 * d / 1000 / 8))
    sc = {
        "name": f"blt-{cfg.key}-{protocol}",
        # metrics() reads the measured set from here.
        "description": f"warmup={warmup} measured={measured}",
        "seed": seed,
        "duration": f"{cap:.6f}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": n,
            "bottleneck": {
                "rate": f"{cfg.bw_b:g}Mbps",
                "delay": f"{d:.6f}ms",
                "queue": {
                    "kind": "prio_discard",
                    "variant": switch,
                    "limit": f"{cfg.buffer_bytes()}B",
                },
                "reverse_queue": {"kind": "droptail", "limit": "inf"},
            },
            "access": {
                "rate": f"{cfg.bw_n:g}Mbps",
                "delay": f"{d:.6f}ms",
                "queue": {"kind": "droptail", "limit": f"{access_buf}B"},
            },
        },
        "workloads": [
            {
                "name": protocol,
                "pairs": "all",
                "pick": "idle",
                "arrival_rate": lam,
                "size": f"{cfg.size}B",
                "complete_first": k,
                # Every pair busy: the system diverges (nothing more to measure).
                "max_alive": n,
                "transport": transport(protocol, cfg),
            }
        ],
    }
    # Receivers' access links carry data forward and ACKs back: infinite buffers back.
    sc["topology"]["receiver_access"] = {
        "rate": f"{cfg.bw_n:g}Mbps",
        "delay": f"{d:.6f}ms",
        "queue": {"kind": "droptail", "limit": f"{access_buf}B"},
    }
    if monitor:
        sc["monitor"] = {"interval": f"{monitor}s", "queues": ["R1->R2"], "flows": []}
    return sc


#: TCP's timer sensitivity (L6): (label, transport overrides) on the reference 30 Mb/s.
TCP_TIMERS = {
    "tcp-rto200ms": {"min_rto": "0.2s"},
    "tcp-tick500ms": {"rtt_estimator": "ns2", "rtt_tick": "500ms", "min_rto": "0.2s"},
}


def _configs(quick: bool) -> list[Config]:
    """Every network in both modes (quick: fewer λ, one seed, fewer connections)."""
    return CONFIGS


def _seeds(quick: bool, cfg: Config) -> range:
    """Three replications (L11); one in quick mode and for 1-MB files (whose
    points cost minutes: see MEASURED)."""
    return range(1, 2 if quick or cfg.size >= 1_000_000 else 4)


def _point(
    protocol: str,
    cfg: Config,
    frac: float,
    seed: int,
    quick: bool,
    measured: int | None = None,
    **extra,
) -> Run:
    lam = round(frac * cfg.capacity(), 6)
    warm, meas = counts(quick, cfg, lam)
    if measured is not None:
        warm, meas = max(measured // 10, 1), measured
    sc = scenario(protocol, cfg, lam, seed, warm, meas)
    params = {
        "config": cfg.key,
        "group": cfg.group,
        "bw_b": cfg.bw_b,
        "protocol": protocol,
        "frac": frac,
        "lam": lam,
        "variant": "",
        "seed": seed,
        **extra,
    }
    return Run(params, sc)


def runs(quick: bool) -> list[Run]:
    """Every configuration × protocol × λ × seed; TCP's timer sensitivity and the pool
    check on the reference 30 Mb/s network."""
    out = []
    for cfg in _configs(quick):
        for protocol in PROTOCOLS:
            for frac in GRID_QUICK if quick else GRID:
                for s in _seeds(quick, cfg):
                    out.append(_point(protocol, cfg, frac, s, quick))
    ref = config("reference/30")
    for label, keys in TCP_TIMERS.items():
        for frac in GRID_QUICK if quick else GRID:
            for s in _seeds(quick, ref):
                r = _point("tcp", ref, frac, s, quick, variant=label)
                r.scenario["workloads"][0]["transport"].update(keys)
                out.append(r)
    # L1's sensitivity: a buffer of BW_b·D (three times L1's BW_b·D/3) holds a whole
    # 100-KB burst at 30 Mb/s (160 packets wait), so BLT's idle path loses nothing.
    for protocol in ("tcp", "blt"):
        for frac in GRID_QUICK if quick else GRID:
            for s in _seeds(quick, ref):
                r = _point(protocol, ref, frac, s, quick, variant="buffer-x3")
                r.scenario["topology"]["bottleneck"]["queue"]["limit"] = (
                    f"{3 * ref.buffer_bytes()}B"
                )
                out.append(r)
    # The pool of pairs against "a new pair per connection": four times as many pairs.
    for protocol in ("tcp", "blt"):
        for s in _seeds(quick, ref):
            out.append(_point(protocol, ref, 0.4, s, quick, variant="pool-x1"))
            r = _point(protocol, ref, 0.4, s, quick, variant="pool-x4")
            r.scenario["topology"]["pairs"] *= 4
            r.scenario["workloads"][0]["max_alive"] *= 4
            out.append(r)
    # The idle path: every protocol on every network at 0.5 % of capacity, where transfers
    # almost never overlap, against theory.idle_path_transfer.
    for cfg in _configs(quick):
        for protocol in PROTOCOLS:
            out.append(
                _point(protocol, cfg, IDLE_FRAC, 1, quick, IDLE_MEASURED[quick], variant="idle")
            )
    # Fig. 8: queue traces at the same λ (the paper's 20 conn/s on 30 Mb/s).
    for protocol in ("tcp", "blt"):
        r = _point(protocol, ref, 0.5333, 1, quick, variant="trace")
        r.scenario["monitor"] = {"interval": "1ms", "queues": ["R1->R2"], "flows": []}
        out.append(r)
    return out
