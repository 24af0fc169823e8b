"""Kim & Farber, "Congestion control by bandwidth-delay tradeoff in very high-speed
networks: the case of window-based control", U. Pennsylvania MS-CIS-94-55, 1994: BLT
against TCP and Bully-Tyrant under Poisson arrivals of fixed-size files.

Spec: ``specs/blt.md`` with ``specs/corrections.md`` winning (three runs per point; a
single duplicate ACK signals loss). Models: docs/models/blt.md (BLT and Bully-Tyrant),
docs/models/priority-discard.md (the switch), docs/models/workloads.md (arrivals),
:mod:`ccsim.connmetrics` (the metrics of §8, computed from the connection table).

Network (§7.1): sources —(d1, BW_N)— S1 —(d2, BW_b)— S2 —(d3, BW_N)— destinations with
d1 = d2 = d3 = D/6, each connection on a host pair of its own (a pool of pairs taken
idle-longest-first, ``pick = "idle"``: while pairs outnumber live connections this is a
new pair per connection; the runs report any arrival that found every pair busy). The
bottleneck buffer is a byte limit of BW_b·D/3 (L1) with the priority-discard switch;
other buffers BW_N·2·d (never congested); the reverse path carries only ACKs, 40 B,
never dropped (L13). Data packets are 500 B of file data (F = 100 KB = 200 packets, as
the paper counts them; no header is added).

Workload (§7.2): Poisson arrivals of F-byte files at λ on a log grid from ≈ 5 % to ≈ 100 %
of the bottleneck's connection capacity BW_b/(8F); each run ends once the first 2200
arrivals have all completed (arrivals go on meanwhile); the first 200 are warm-up, the
next 2000 measured; three seeds per point. A run whose measured connections are not done
within 2·2200/λ + 10 s, or whose number of connections in the system keeps growing, is
reported as diverged (with the evidence) and kept out of every curve and mean.

Protocols: TCP (§6: Reno, fast retransmit on the first duplicate ACK, IW 1, cwnd in
packets, RTT samples from every ACK's timestamp, min RTO 2·D on a 1-ms clock: L6, L7);
BLT over the paper's switch (§4.1) and over the fixed one (§4.2); Bully-Tyrant (§5). TCP
and Bully-Tyrant cross the paper's switch, where equal priorities make it drop-tail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ccsim import connmetrics as cm
from ccsim import theory
from ccsim.experiments.base import Check, Data, Experiment, Run, save_figure

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd

PKT = 500  # bytes of file data per packet (and on the wire)
ACK = 40
WARMUP, MEASURED = 200, 2000
WARMUP_QUICK, MEASURED_QUICK = 100, 500

PROTOCOLS = {
    "tcp": "TCP (Reno)",
    "blt": "BLT (paper's switch)",
    "blt-fixed": "BLT (fixed switch)",
    "bt": "Bully-Tyrant",
}


@dataclass(frozen=True)
class Config:
    """One network of §7.3: access and bottleneck rates (Mb/s), D (ms), F (bytes)."""

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


def _three(group: str, bw_n: float, ratios, d_ms: float, size: int) -> list[Config]:
    return [Config(group, bw_n, bw_n * r, d_ms, size) for r in ratios]


FIFTHS = (0.2, 0.6, 1.0)
#: Every network of §7.3 (Figs. 6-31, Table 1), by group.
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
#: The λ grid, as fractions of the connection capacity (log-spaced, §7.2).
GRID = tuple(float(x) for x in np.round(np.geomspace(0.05, 1.0, 10), 4))
GRID_QUICK = (0.1, 0.3, 0.5, 0.7, 0.9)


def config(key: str) -> Config:
    for c in CONFIGS:
        if c.key == key:
            return c
    raise KeyError(
        f"no BLT configuration {key!r}; configurations: {', '.join(c.key for c in CONFIGS)}"
    )


def transport(protocol: str, cfg: Config) -> dict:
    """The connections' transport keys (§6 for TCP, §2 and §5 for BLT and BT)."""
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
    """Host pairs in the pool: enough that pairs outnumber live connections. Little's law
    with a generous response time (ten times the idle-path time, and 4 s for diverging
    TCP) sets the scale; the runs report `busy_picks` if it was not enough."""
    idle_r = cfg.d_ms / 1000 + 8 * cfg.size / (cfg.bw_b * 1e6)
    return int(min(4000, max(64, 3 * lam * max(10 * idle_r, 4.0))))


def scenario(
    protocol: str,
    cfg: Config,
    lam: float,
    seed: int = 1,
    warmup: int = WARMUP,
    measured: int = MEASURED,
    monitor: float | None = None,
    pairs: int | None = None,
) -> dict:
    """One point: ``protocol`` on network ``cfg`` at λ = ``lam`` connections/s."""
    d = cfg.d_ms / 6  # ms per hop
    n = pairs or pairs_for(cfg, lam)
    k = warmup + measured
    cap = 2 * k / lam + 10.0
    switch = "fixed" if protocol == "blt-fixed" else "paper"
    access_buf = max(PKT, round(cfg.bw_n * 1e6 * 2 * d / 1000 / 8))
    sc = {
        "name": f"blt-{cfg.key}-{protocol}",
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
