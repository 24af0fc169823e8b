"""Fairness metrics of a set of throughputs: Jain's index and the mean deviation
(``docs/theory.md`` §4: the BLT and BUC papers' fairness measures).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ._args import floats

__all__ = [
    "jain_index",
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
