"""What the environments share: the observation features, actions, rewards and one
episode over a native session (``ccsim._ccsim.Session``).

The engine runs each interval alone (``cc = "agent"`` applies the last action on every
ACK and sums the interval's statistics in Rust); Python runs only at decision points:
this module turns a session's rows into observations and rewards and actions into
windows or rates.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from ccsim import _ccsim
from ccsim.gym.scenarios import BOTTLENECK, Ranges

__all__ = [
    "ACTIONS",
    "DEFAULT_FEATURES",
    "FEATURES",
    "Episode",
    "Reward",
    "RewardFunctionError",
    "action_space",
    "observation_space",
]

INF = math.inf
#: Bound of the features without a natural one (observations are clipped to it).
BIG = 1e9

#: Observation features: name -> (unit, low, high, meaning). All finite, never NaN.
FEATURES: dict[str, tuple[str, float, float, str]] = {
    "delivery_rate": ("Mbit/s", 0, BIG, "bytes acknowledged over the interval, per second"),
    "rtt_min": ("ms", 0, BIG, "smallest RTT sample of the interval"),
    "rtt_mean": ("ms", 0, BIG, "mean RTT sample of the interval"),
    "rtt_latest": ("ms", 0, BIG, "last RTT sample (of this or an earlier interval)"),
    "rtt_ratio": ("1", 1, BIG, "rtt_mean over the smallest RTT of the episode"),
    "rtt_gradient": ("s/s", -BIG, BIG, "change of rtt_mean since the last interval, per second"),
    "loss_fraction": ("1", 0, 1, "retransmitted over sent packets in the interval"),
    "ecn_fraction": ("1", 0, 1, "ACKs with ECN-Echo over ACKs in the interval"),
    "cwnd": ("packets", 0, BIG, "congestion window at the decision point"),
    "inflight": ("packets", 0, BIG, "bytes sent and not yet acknowledged"),
    "pacing_rate": ("Mbit/s", 0, BIG, "pacing rate in force (0: unpaced)"),
    "delivery_ratio": ("1", 0, 1, "delivery_rate over the largest of the episode"),
    "cwnd_bdp": (
        "1",
        0,
        BIG,
        "cwnd over (largest delivery rate x smallest RTT) of the episode; 1 until both are known",
    ),
    "queue_delay": ("ms", 0, BIG, "backlog of the observed queue over its rate (needs queue=)"),
}

#: The default observation: what a window controller needs, in units that do not
#: depend on the path's bandwidth or RTT.
DEFAULT_FEATURES = ("delivery_ratio", "rtt_ratio", "rtt_gradient", "loss_fraction", "cwnd_bdp")

#: Action kinds: cwnd or pacing rate, scaled (x 2**a for a in [-1, 1]) or set.
ACTIONS = ("cwnd_scale", "cwnd", "rate_scale", "rate", "discrete")


class RewardFunctionError(RuntimeError):
    """The user's reward function raised or returned a non-finite number."""


@dataclass(frozen=True)
class Reward:
    """The throughput / delay / loss trade-off (Aurora's reward, Jay et al., ICML 2019,
    §4.2, in units that do not depend on the path):

    ``throughput * T - delay * (rtt_ratio - 1) - loss * loss_fraction``

    where ``T`` is the delivery rate over the bottleneck's capacity when the
    environment knows it (drawn scenarios, or ``capacity_mbps=``), else the delivery
    rate in Mbit/s, and ``rtt_ratio - 1`` the queueing delay in units of the smallest
    RTT of the episode. A window of one BDP scores about ``throughput``.
    """

    throughput: float = 1.0
    delay: float = 1.0
    loss: float = 5.0

    def __call__(self, f: dict, info: dict) -> float:
        cap = info.get("capacity_mbps")
        t = f["delivery_rate"] / cap if cap else f["delivery_rate"]
        return (
            self.throughput * t - self.delay * (f["rtt_ratio"] - 1) - self.loss * f["loss_fraction"]
        )


def observation_space(features, history: int) -> spaces.Box:
    for name in features:
        if name not in FEATURES:
            raise ValueError(f"feature {name!r}: one of {', '.join(FEATURES)}")
    if int(history) != history or history < 1:
        raise ValueError(f"history = {history!r}: a whole number >= 1")
    low = np.array([FEATURES[n][1] for n in features] * history, dtype=np.float32)
    high = np.array([FEATURES[n][2] for n in features] * history, dtype=np.float32)
    return spaces.Box(low, high, dtype=np.float32)


def action_space(kind: str, cwnd_bounds, rate_bounds_mbps, multipliers) -> spaces.Space:
    if kind in ("cwnd_scale", "rate_scale"):
        return spaces.Box(-1.0, 1.0, (1,), dtype=np.float32)
    if kind == "cwnd":
        return spaces.Box(*map(float, cwnd_bounds), (1,), dtype=np.float32)
    if kind == "rate":
        return spaces.Box(*map(float, rate_bounds_mbps), (1,), dtype=np.float32)
    if kind == "discrete":
        return spaces.Discrete(len(multipliers))
    raise ValueError(f"action = {kind!r}: one of {', '.join(ACTIONS)}")


def check_action(space: spaces.Space, action, who: str = "") -> float | int:
    """The action as a number, or a ValueError naming it and the space."""
    where = f" (agent {who})" if who else ""
    if isinstance(space, spaces.Discrete):
        ok = isinstance(action, (int, np.integer)) or (
            isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
        )
        if ok and space.contains(np.int64(action)):
            return int(action)
        raise ValueError(f"action {action!r}{where} is outside the action space {space}")
    try:
        a = np.asarray(action, dtype=np.float64).reshape(space.shape)
    except (TypeError, ValueError):
        raise ValueError(f"action {action!r}{where} is not of the action space {space}") from None
    x = float(a[0])
    if not (math.isfinite(x) and space.low[0] <= x <= space.high[0]):
        raise ValueError(f"action {action!r}{where} is outside the action space {space}")
    return x


def _fn_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__qualname__


class Tracker:
    """One agent's episode-long memory: smallest RTT, largest delivery rate, the last
    rtt_mean, the history of feature vectors, the window or rate in force."""

    def __init__(self, features, history: int, mss: int):
        self.features, self.history, self.mss = tuple(features), history, mss
        self.min_rtt = INF
        self.max_rate = 0.0
        self.prev_rtt = None
        self.stack: list[np.ndarray] = []
        self.target = None  # cwnd (packets) or rate (Mbit/s) in force

    def update(self, row: dict) -> dict:
        rtt_mean, rtt_min = row["rtt_mean"], row["rtt_min"]
        if rtt_min > 0:
            self.min_rtt = min(self.min_rtt, rtt_min)
        self.max_rate = max(self.max_rate, row["delivery_rate"])
        base = self.min_rtt if self.min_rtt < INF else 0.0
        grad = 0.0
        if self.prev_rtt is not None and row["interval"] > 0 and rtt_mean > 0:
            grad = (rtt_mean - self.prev_rtt) / row["interval"]
        if rtt_mean > 0:
            self.prev_rtt = rtt_mean
        bdp = self.max_rate * base
        f = {
            "delivery_rate": row["delivery_rate"] * 8e-6,
            "rtt_min": rtt_min * 1e3,
            "rtt_mean": rtt_mean * 1e3,
            "rtt_latest": row["rtt_latest"] * 1e3,
            "rtt_ratio": max(1.0, rtt_mean / base) if base > 0 and rtt_mean > 0 else 1.0,
            "rtt_gradient": grad,
            "loss_fraction": row["loss_fraction"],
            "ecn_fraction": row["ecn_fraction"],
            "cwnd": row["cwnd"] / self.mss,
            "inflight": row["inflight"] / self.mss,
            "pacing_rate": row["pacing_rate"] * 8e-6,
            "delivery_ratio": row["delivery_rate"] / self.max_rate if self.max_rate > 0 else 0.0,
            "cwnd_bdp": row["cwnd"] / bdp if bdp > 0 else 1.0,
            "queue_delay": row.get("queue_delay", 0.0) * 1e3,
        }
        v = np.array([f[n] for n in self.features], dtype=np.float32)
        self.stack = (self.stack or [v] * self.history)[1:] + [v]
        return f

    def observation(self) -> np.ndarray:
        return np.concatenate(self.stack)


class Episode:
    """One episode: a native session, its agents' trackers and the settings of the
    environment that made it."""

    def __init__(self, env, rng: np.random.Generator):
        s = env.settings
        if isinstance(s.scenario, Ranges):
            values = s.scenario.values(rng)
            scenario = s.scenario.scenario(values)
            self.capacity = values["bandwidth_mbps"]
        else:
            scenario = dict(s.scenario, seed=int(rng.integers(1, 2**31)))
            values = {"seed": scenario["seed"]}
            self.capacity = s.capacity_mbps
        self.values = values
        decide = {"interval_s": s.interval_s} if s.decision == "interval" else {}
        if s.decision == "rtt":
            decide = {"rtt_bounds_s": tuple(s.rtt_bounds_s), "initial_s": s.initial_interval_s}
        self.session = _ccsim.Session(
            json.dumps(scenario), queues=[s.queue] if s.queue else [], **decide
        )
        self.fields = self.session.fields
        self.names = self.session.agents
        if s.agents is not None and len(self.names) != s.agents:
            self.session.close()
            raise ValueError(
                f"the scenario has {len(self.names)} flows with cc = 'agent' "
                f"({', '.join(self.names)}); this environment drives {s.agents}"
                + (": use MultiAgentCongestionEnv" if s.agents == 1 else "")
            )
        self.trackers = [Tracker(s.features, s.history, s.mss) for _ in self.names]
        self.feats: list[dict] = [{} for _ in self.names]
        self.rows: list[dict] = [{} for _ in self.names]
        self.settings = s
        self.advance()

    def advance(self) -> list[int]:
        due = self.session.advance()
        flat = np.frombuffer(self.session.rows(), dtype="<f8").reshape(len(self.names), -1)
        for i in due:
            row = dict(zip(self.fields, flat[i].tolist()))
            if self.settings.queue:
                row["queue_delay"] = row[f"queue_delay:{self.settings.queue}"]
            self.rows[i] = row
            self.feats[i] = self.trackers[i].update(row)
        return due

    def info(self, i: int, full: bool = True) -> dict:
        """What a step tells besides the observation: the time; with ``full`` also
        the bottleneck's capacity (if known), the session's row and every feature
        (what a reward function gets)."""
        if not full:
            return {"time": self.session.now}
        return {
            "time": self.session.now,
            "capacity_mbps": self.capacity,
            "row": self.rows[i],
            "features": self.feats[i],
        }

    def reward(self, i: int) -> float:
        fn = self.settings.reward
        try:
            r = float(fn(self.feats[i], self.info(i)))
        except Exception as e:
            raise RewardFunctionError(
                f"the reward function {_fn_name(fn)} raised {type(e).__name__}: {e}"
            ) from e
        if not math.isfinite(r):
            raise RewardFunctionError(f"the reward function {_fn_name(fn)} returned {r!r}")
        return r

    def act(self, i: int, a) -> None:
        s, t = self.settings, self.trackers[i]
        lo, hi = s.cwnd_bounds if s.action in ("cwnd_scale", "cwnd", "discrete") else s.rate_bounds
        if t.target is None:
            row = self.rows[i]
            if s.action in ("rate_scale", "rate"):
                rtt = row["rtt_latest"] or 0.1
                t.target = row["cwnd"] * 8e-6 / rtt
            else:
                t.target = row["cwnd"] / s.mss
        if s.action in ("cwnd_scale", "rate_scale"):
            t.target = t.target * 2.0**a
        elif s.action == "discrete":
            t.target = t.target * s.multipliers[a]
        else:
            t.target = a
        t.target = min(max(t.target, lo), hi)
        if s.action in ("rate_scale", "rate"):
            self.session.set_rate(i, t.target * 1e6 / 8)
        else:
            self.session.set_cwnd(i, t.target * s.mss)

    def close(self) -> None:
        self.session.close()


@dataclass
class Settings:
    """An environment's settings, checked once (see :class:`CongestionEnv`)."""

    scenario: Ranges | dict
    decision: str
    interval_s: float
    rtt_bounds_s: tuple[float, float]
    features: tuple[str, ...]
    history: int
    action: str
    cwnd_bounds: tuple[float, float]
    rate_bounds: tuple[float, float]
    multipliers: tuple[float, ...]
    reward: Callable
    queue: str | None
    capacity_mbps: float | None
    mss: int
    agents: int | None
    full_info: bool = False
    initial_interval_s: float = 0.1

    def check(self) -> None:
        if self.decision not in ("interval", "rtt"):
            raise ValueError(f"decision = {self.decision!r}: 'interval' or 'rtt'")
        if not isinstance(self.scenario, (Ranges, dict)):
            raise ValueError(f"scenario = {self.scenario!r}: a ccsim.gym.Ranges or a dict")
        if isinstance(self.scenario, Ranges) and self.queue is None:
            self.queue = BOTTLENECK
        if "queue_delay" in self.features and not self.queue:
            raise ValueError("feature 'queue_delay' needs queue= (the name of a link)")
        for name, (lo, hi) in (
            ("cwnd_bounds", self.cwnd_bounds),
            ("rate_bounds_mbps", self.rate_bounds),
        ):
            if not (0 < lo <= hi < INF):
                raise ValueError(f"{name} = {(lo, hi)!r}: 0 < low <= high, finite")
        if not self.multipliers or not all(m > 0 and math.isfinite(m) for m in self.multipliers):
            raise ValueError(f"multipliers = {self.multipliers!r}: finite numbers > 0")
        if not callable(self.reward):
            raise ValueError(f"reward = {self.reward!r}: a ccsim.gym.Reward or a callable")
