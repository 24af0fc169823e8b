"""Metrics of an open-loop workload, computed from any run's connection table
(``Results.connections``): response time, system throughput, network power, fairness,
the number of connections in the system, the Little's-law check and divergence.

Definitions follow the BLT paper (H. Kim, D. J. Farber, "Congestion control by
bandwidth-delay tradeoff in very high-speed networks: the case of window-based control",
Univ. of Pennsylvania MS-CIS-94-55, 1994, §4.1.4), with the points it leaves open settled
as in docs/models/blt.md, "Modelling decisions" L8-L10:

* response time of connection k: ``R_k = T_f,k − T_i,k``, from its arrival to the ACK of
  its last byte at the sender (``response_time_s``); ``R' = R − d`` with ``d`` the one-way
  delay of the last ACK (the paper's "considering ACK overhead", L10);
* system throughput ``Θ = Σ F_k / T_total`` (bytes/s) over the measured connections, with
  ``T_total`` the time from the first arrival to the last completion among them; the
  paper's pessimistic variant divides each run's bytes by the longest ``T_total`` of its
  replications (L9);
* network power ``P = Θ^α / R̄`` (bytes/s², α = 1);
* fairness: Jain's index over ``Θ_k = F_k / R_k`` (L8);
* Little's law: the time-average number of connections in the system (all of them, while
  the measured ones arrive) against ``λ̂·R̄`` (the paper's ``Θ/θ`` with ``θ = F/R̄``,
  §4.3.1).

Measured connections are chosen by arrival order (``conn``): skip the first ``warmup``
(the system filling), keep the next ``count`` — together with a run that ends once those
have all completed (a workload's ``complete_first``), no connection of the measured set is
missing, however slow.

Example (a hand-made table: three 100-kB files):

>>> import pandas as pd
>>> c = pd.DataFrame({"conn": [0, 1, 2], "start_s": [0.0, 1.0, 2.0],
...                   "size_bytes": [100_000] * 3, "last_ack_s": [0.5, 2.0, 2.5]})
>>> c["response_time_s"] = c.last_ack_s - c.start_s
>>> m = measured(c)
>>> float(mean_response_time(m)), float(throughput(m)), round(float(power(m)), 1)
(0.6666666666666666, 120000.0, 180000.0)
>>> round(float(jain(m)), 4)
0.9259
>>> little(m)
(0.75, 0.6666666666666666)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported by the callers: the CLI starts fast
    import pandas as pd

__all__ = [
    "divergence",
    "diverged",
    "in_system",
    "jain",
    "little",
    "mean_response_time",
    "measured",
    "pessimistic_throughput",
    "power",
    "response_times",
    "throughput",
]


def measured(
    conns: pd.DataFrame, warmup: int = 0, count: int | None = None, workload: str | None = None
) -> pd.DataFrame:
    """The connections measured: in arrival order, skip ``warmup``, keep ``count`` (all
    the rest by default); of one ``workload`` if given. Unfinished connections stay in the
    result (their ``last_ack_s`` is NaN): the other functions refuse them, so a measured
    set that did not complete is never averaged silently."""
    c = conns if workload is None else conns[conns["workload"] == workload]
    c = c.sort_values("conn").iloc[warmup:]
    if count is not None:
        c = c.iloc[:count]
    return c


def _complete(c: pd.DataFrame) -> pd.DataFrame:
    if len(c) == 0:
        raise ValueError("no measured connections")
    missing = int(c["last_ack_s"].isna().sum())
    if missing:
        raise ValueError(
            f"{missing} of the {len(c)} measured connections did not complete (a diverged "
            "run, or a run stopped too early): no mean over them would be honest"
        )
    return c


def response_times(c: pd.DataFrame, one_way_s: float = 0.0) -> pd.Series:
    """``R_k`` (s) of each measured connection, or ``R'_k = R_k − one_way_s``."""
    c = _complete(c)
    return (c["last_ack_s"] - c["start_s"]) - one_way_s


def mean_response_time(c: pd.DataFrame, one_way_s: float = 0.0) -> float:
    """``R̄`` (s), or ``R̄'`` with ``one_way_s`` (the ACK's one-way delay)."""
    return float(response_times(c, one_way_s).mean())


def _span(c: pd.DataFrame) -> float:
    return float(c["last_ack_s"].max() - c["start_s"].min())


def throughput(c: pd.DataFrame) -> float:
    """``Θ = Σ F_k / T_total`` (bytes/s), ``T_total`` from the first arrival to the last
    completion of the measured connections."""
    c = _complete(c)
    return float(c["size_bytes"].sum() / _span(c))


def pessimistic_throughput(runs: list[pd.DataFrame]) -> float:
    """The paper's Θ over replications (L9): the mean of the runs' bytes divided by the
    longest ``T_total`` among them."""
    runs = [_complete(c) for c in runs]
    return float(np.mean([c["size_bytes"].sum() for c in runs]) / max(_span(c) for c in runs))


def power(c: pd.DataFrame, alpha: float = 1.0, one_way_s: float = 0.0) -> float:
    """Network power ``Θ^α / R̄`` (bytes/s² for α = 1)."""
    return throughput(c) ** alpha / mean_response_time(c, one_way_s)


def jain(c: pd.DataFrame) -> float:
    """Jain's index over per-connection throughputs ``Θ_k = F_k / R_k`` (L8)."""
    from ccsim.theory import jain_index

    return jain_index((_complete(c)["size_bytes"] / response_times(c)).to_numpy())


def little(c: pd.DataFrame, conns: pd.DataFrame | None = None) -> tuple[float, float]:
    """Little's law over the measured arrivals' window [first arrival, last arrival]:
    (the time-average number of connections in the system there, integrated exactly over
    every connection of ``conns`` — the whole table, default ``c`` — and ``λ̂·R̄``, with λ̂
    the measured arrivals' rate over that window). For a stationary run they agree to
    within the sampling error; a large gap says the run was not stationary."""
    c = _complete(c)
    every = c if conns is None else conns
    t0, t1 = float(c["start_s"].min()), float(c["start_s"].max())
    if not t1 > t0:
        raise ValueError("Little's law needs measured arrivals spread over time")
    start = every["start_s"].to_numpy()
    end = every["last_ack_s"].fillna(np.inf).to_numpy()
    inside = np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0.0, None)
    rate = (len(c) - 1) / (t1 - t0)
    return float(inside.sum() / (t1 - t0)), float(rate * mean_response_time(c))


def in_system(conns: pd.DataFrame, times) -> np.ndarray:
    """Connections in the system (arrived, not completed) at each of ``times`` (s), from
    the whole table (unfinished connections count until the end)."""
    t = np.asarray(times, dtype=float)
    start = np.sort(conns["start_s"].to_numpy())
    done = np.sort(conns["last_ack_s"].fillna(np.inf).to_numpy())
    return np.searchsorted(start, t, side="right") - np.searchsorted(done, t, side="right")


def divergence(
    conns: pd.DataFrame, end_s: float, warmup: int, count: int, growth: float = 2.0
) -> dict:
    """The evidence on whether a run diverged, as numbers: measured connections unfinished
    at ``end_s``, measured connections that never arrived (the run stopped before its
    ``warmup + count`` arrivals, e.g. when every host pair was busy), connections in the
    system averaged over the run's second and last quarters and at the end, and the
    verdict ``diverged`` (1.0 or 0.0): some measured connection unfinished or missing, or
    the number in the system grown more than ``growth`` times (and by more than ten
    connections) from the second quarter to the last."""
    m = measured(conns, warmup, count)
    q = np.linspace(0.25 * end_s, end_s, 61)
    n = in_system(conns, q)
    early, late = float(n[:20].mean()), float(n[-20:].mean())
    unfinished = float(m["last_ack_s"].isna().sum())
    missing = float(max(count - len(m), 0))
    grows = late > growth * max(early, 1.0) and late - early > 10
    return {
        "diverged": float(unfinished > 0 or missing > 0 or grows),
        "unfinished": unfinished,
        "never_arrived": missing,
        "in_system_q2": early,
        "in_system_q4": late,
        "in_system_end": float(n[-1]),
    }


def diverged(
    conns: pd.DataFrame, end_s: float, warmup: int, count: int, growth: float = 2.0
) -> tuple[bool, str]:
    """:func:`divergence` as a verdict and a sentence of evidence."""
    e = divergence(conns, end_s, warmup, count, growth)
    m = int(count - e["never_arrived"])
    gone = f", {e['never_arrived']:.0f} never arrived" if e["never_arrived"] else ""
    why = (
        f"{e['unfinished']:.0f} of {m} measured connections unfinished at {end_s:.1f} s{gone}; "
        f"in the system: {e['in_system_q2']:.1f} (second quarter) → {e['in_system_q4']:.1f} "
        f"(last quarter), {e['in_system_end']:.0f} at the end"
    )
    return bool(e["diverged"]), why
