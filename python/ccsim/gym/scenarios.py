"""Scenarios drawn per episode from ranges, with the episode's random generator.

:class:`Ranges` describes a dumbbell the way the RL congestion-control papers train
(Aurora draws bandwidth, latency, queue size and loss per episode; Orca adds competing
flows): each ``reset(seed=...)`` draws one scenario from the ranges with the
environment's ``np_random``, so an episode is reproducible from its seed. A fixed
scenario (a dict) can be given instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Ranges", "BOTTLENECK"]

#: The bottleneck link of the drawn dumbbell (its queue delay can be observed).
BOTTLENECK = "R1->R2"


def _pair(name: str, v, lo: float = 0.0) -> tuple[float, float]:
    a, b = (v, v) if isinstance(v, (int, float)) else tuple(v)
    if not (math.isfinite(a) and math.isfinite(b) and lo <= a <= b):
        raise ValueError(f"Ranges.{name} = {v!r}: a number or (low, high) with {lo} <= low <= high")
    return float(a), float(b)


@dataclass(frozen=True)
class Ranges:
    """Ranges of a dumbbell scenario, one drawn per episode.

    Bandwidth is drawn log-uniformly, the others uniformly; a number instead of a
    pair fixes the value.

    Attributes
    ----------
    bandwidth_mbps
        Bottleneck rate (Mbit/s).
    rtt_ms
        Base round-trip time (ms): access links 1 ms each way, the bottleneck the rest.
    buffer_bdp
        Drop-tail buffer in bandwidth-delay products (at least 4 packets).
    loss
        Random loss probability on the bottleneck.
    competitors
        Number of competing flows (integer range, inclusive), each running a
        congestion control drawn from ``competitor_cc``.
    duration_s
        Episode length in simulated seconds.
    agents
        Number of controlled flows (``cc = "agent"``), one per dumbbell pair.
    mss
        Segment size (bytes) of every flow.
    """

    bandwidth_mbps: tuple[float, float] | float = (5.0, 50.0)
    rtt_ms: tuple[float, float] | float = (10.0, 100.0)
    buffer_bdp: tuple[float, float] | float = (0.5, 2.0)
    loss: tuple[float, float] | float = 0.0
    competitors: tuple[int, int] | int = (0, 1)
    competitor_cc: tuple[str, ...] = ("cubic",)
    duration_s: float = 10.0
    agents: int = 1
    mss: int = 1460
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        _pair("bandwidth_mbps", self.bandwidth_mbps, 1e-3)
        _pair("rtt_ms", self.rtt_ms, 4.0)
        _pair("buffer_bdp", self.buffer_bdp, 0.0)
        lo, hi = _pair("loss", self.loss, 0.0)
        if hi >= 1:
            raise ValueError(f"Ranges.loss = {self.loss!r}: probabilities below 1")
        c = _pair("competitors", self.competitors, 0)
        if c != (int(c[0]), int(c[1])):
            raise ValueError(f"Ranges.competitors = {self.competitors!r}: whole numbers")
        if not (self.duration_s > 0 and math.isfinite(self.duration_s)):
            raise ValueError(f"Ranges.duration_s = {self.duration_s!r}: a number of seconds > 0")
        if int(self.agents) != self.agents or self.agents < 1:
            raise ValueError(f"Ranges.agents = {self.agents!r}: a whole number >= 1")
        if not self.competitor_cc:
            raise ValueError("Ranges.competitor_cc: at least one congestion control name")

    def draw(self, rng: np.random.Generator) -> dict:
        """One scenario (a dict for ``ccsim.run`` or a session) drawn with ``rng``:
        ``scenario(values(rng))``."""
        return self.scenario(self.values(rng))

    def values(self, rng: np.random.Generator) -> dict:
        """The drawn values: bandwidth, RTT, buffer, loss, competitors and a seed."""
        b = _pair("bandwidth_mbps", self.bandwidth_mbps, 1e-3)
        rtt = _pair("rtt_ms", self.rtt_ms)
        buf = _pair("buffer_bdp", self.buffer_bdp)
        loss = _pair("loss", self.loss)
        comp = _pair("competitors", self.competitors)
        ccs = list(self.competitor_cc)
        n = int(rng.integers(int(comp[0]), int(comp[1]) + 1))
        return {
            "bandwidth_mbps": float(math.exp(rng.uniform(math.log(b[0]), math.log(b[1])))),
            "rtt_ms": float(rng.uniform(*rtt)),
            "buffer_bdp": float(rng.uniform(*buf)),
            "loss": float(rng.uniform(*loss)),
            "competitors": [ccs[int(rng.integers(len(ccs)))] for _ in range(n)],
            "seed": int(rng.integers(1, 2**31)),
        }

    def scenario(self, v: dict) -> dict:
        """The dumbbell scenario of drawn values ``v`` (see :meth:`values`)."""
        rate_bps = v["bandwidth_mbps"] * 1e6
        bdp_pkts = rate_bps * v["rtt_ms"] / 1e3 / 8 / (self.mss + 40)
        limit = max(4, round(v["buffer_bdp"] * bdp_pkts))
        one_way_ms = v["rtt_ms"] / 2 - 2  # minus the two 1-ms access links
        bottleneck = {
            "rate": f"{rate_bps:.0f}bps",
            "delay": f"{one_way_ms * 1e3:.0f}us",
            "queue": {"kind": "droptail", "limit": f"{limit}pkt"},
        }
        if v["loss"] > 0:
            bottleneck["loss"] = v["loss"]
        n_agents = int(self.agents)
        flows = [
            {"name": f"agent{i}", "pairs": [i], "cc": "agent", "mss": self.mss}
            for i in range(n_agents)
        ]
        flows += [
            {"name": f"competitor{j}", "pairs": [n_agents + j], "cc": cc, "mss": self.mss}
            for j, cc in enumerate(v["competitors"])
        ]
        return {
            "seed": v["seed"],
            "duration": f"{self.duration_s}s",
            "topology": {
                "kind": "dumbbell",
                "pairs": n_agents + len(v["competitors"]),
                "bottleneck": bottleneck,
                "access": {"rate": f"{max(10 * rate_bps, 1e8):.0f}bps", "delay": "1ms"},
            },
            "flows": flows,
            **self.extra,
        }
