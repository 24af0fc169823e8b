"""Fairness metrics of a set of throughputs: Jain's index and the mean deviation
(``docs/theory.md`` §4: the BLT and BUC papers' fairness measures), and the max-min fair
allocation of flows on fixed paths (§4, the ECMP experiment's reference).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence

from ._args import floats

__all__ = [
    "jain_index",
    "max_min_fair",
    "mean_deviation",
]


def jain_index(xs: Iterable[float]) -> float:
    """Jain's fairness index.

    ``J = (sum x_i)^2 / (n * sum x_i^2)``, in ``[1/n, 1]``; k equal shares and
    ``n - k`` zeros give ``k/n`` (Jain, Chiu & Hawe, DEC-TR-301, 1984;
    ``docs/theory.md`` §4).

    All-zero input returns ``nan``: the index is 0/0 there. Returning 1.0
    ("perfectly fair") would let a run in which every flow starved pass a
    fairness check, so the degenerate case is made visible instead.

    Parameters
    ----------
    xs : iterable of float
        Non-negative allocations (throughputs), at least one.

    Returns
    -------
    float
        The index, or ``nan`` if every value is zero.

    Examples
    --------
    >>> jain_index([1, 1, 0, 0])
    0.5
    >>> jain_index([3, 3, 3])
    1.0
    >>> jain_index([0, 0])
    nan
    """
    values = floats(xs)
    if any(v < 0.0 for v in values):
        raise ValueError("jain_index needs non-negative values")
    sum_sq = math.fsum(v * v for v in values)
    if sum_sq == 0.0:
        return math.nan
    total = math.fsum(values)
    return min(1.0, total * total / (len(values) * sum_sq))


def mean_deviation(xs: Iterable[float], normalized: bool = False) -> float:
    """Mean absolute deviation, the BUC paper's fairness measure.

    ``MD = (1/N) * sum |x_i - mean(x)|``; with ``normalized=True`` returns
    ``MD / mean(x)`` (``docs/theory.md`` §4; the BUC paper's own formula is
    lost, this is the standard definition). Lower is fairer.

    Parameters
    ----------
    xs : iterable of float
        Allocations, at least one.
    normalized : bool, optional
        Divide by the mean (default False). A zero mean then gives ``nan``.

    Returns
    -------
    float
        The (normalized) mean deviation.

    Examples
    --------
    >>> mean_deviation([1, 2, 3, 6])
    1.5
    >>> mean_deviation([1, 2, 3, 6], normalized=True)
    0.5
    """
    values = floats(xs)
    mean = math.fsum(values) / len(values)
    md = math.fsum(abs(v - mean) for v in values) / len(values)
    if normalized:
        return md / mean if mean != 0.0 else math.nan
    return md


def max_min_fair(
    paths: Mapping[Hashable, Sequence[Hashable]], capacity: Mapping[Hashable, float]
) -> dict[Hashable, float]:
    """The max-min fair rates of flows on fixed paths (progressive filling).

    Every flow's rate grows at the same pace until a link it crosses is full; the
    flows of a full link are frozen at their rate and the others go on growing
    (Bertsekas & Gallager, *Data Networks*, 2nd ed., §6.5.2; ``docs/theory.md`` §4).
    Each round freezes the flows of the link with the smallest fair share of its
    remaining capacity, so the rounds are at most the number of links.

    Parameters
    ----------
    paths : mapping
        Flow → the links it crosses (each link once).
    capacity : mapping
        Link → capacity (any unit; the rates come out in it). Every link of a path
        must have one.

    Returns
    -------
    dict
        Flow → its max-min fair rate. A flow with an empty path is unconstrained
        (``inf``).

    Examples
    --------
    Two links of capacity 1; flow a crosses both, b the first, c the second: each link
    is shared by two flows, so each gets 1/2. With a third flow d on the first link,
    that link is the bottleneck (1/3 each) and c takes what a leaves on the second:

    >>> max_min_fair({"a": [1, 2], "b": [1], "c": [2]}, {1: 1.0, 2: 1.0})
    {'a': 0.5, 'b': 0.5, 'c': 0.5}
    >>> r = max_min_fair({"a": [1, 2], "b": [1], "c": [2], "d": [1]}, {1: 1.0, 2: 1.0})
    >>> {f: round(x, 6) for f, x in r.items()}
    {'a': 0.333333, 'b': 0.333333, 'c': 0.666667, 'd': 0.333333}
    """
    users: dict[Hashable, list[Hashable]] = {}
    for f, p in paths.items():
        for link in p:
            if link not in capacity:
                raise ValueError(f"flow {f!r} crosses link {link!r}, which has no capacity")
            users.setdefault(link, []).append(f)
    rate = {f: math.inf for f, p in paths.items() if not p}
    remaining = {link: float(capacity[link]) for link in users}
    active = {link: len(fs) for link, fs in users.items()}
    while active:
        link = min(active, key=lambda lk: remaining[lk] / active[lk])
        share = max(0.0, remaining[link] / active[link])
        for f in users[link]:
            if f in rate:
                continue
            rate[f] = share
            for other in paths[f]:
                remaining[other] -= share
                active[other] -= 1
                if active[other] == 0:
                    del active[other]
    return {f: rate[f] for f in paths}
