"""Argument checks shared by the :mod:`ccsim.theory` modules: each raises
:class:`ValueError` naming the argument and the value (negative sizes, ``n < 1``, NaN)."""

from __future__ import annotations

import math
from collections.abc import Iterable


def check_nonneg(name: str, value: float) -> float:
    value = float(value)
    if not value >= 0.0:  # also rejects NaN
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


def check_pos(name: str, value: float) -> float:
    value = float(value)
    if not value > 0.0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return value


def check_flows(n: float) -> float:
    n = float(n)
    if not n >= 1.0:
        raise ValueError(f"n (number of flows) must be >= 1, got {n!r}")
    return n


def floats(xs: Iterable[float], name: str = "xs") -> list[float]:
    values = [float(x) for x in xs]
    if not values:
        raise ValueError(f"{name} must not be empty")
    if any(math.isnan(v) for v in values):
        raise ValueError(f"{name} must not contain NaN")
    return values
