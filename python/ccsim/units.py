"""Parsing of the unit strings used in scenarios, for Python-side arithmetic.

The engine parses the same forms (``crates/ccsim-core/src/units.rs``); these
helpers exist so experiments can compute with them (e.g. a BDP in packets).
Decimal prefixes: 1 KB = 1000 B, 1 Mbps = 10**6 bit/s (``specs/baseline.md`` §0).
"""

from __future__ import annotations

import re

_NUM = r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*"
_TIME = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
_RATE = {"bps": 1, "kbps": 1e3, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12}
_SIZE = {"": 1, "B": 1, "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024, "MiB": 2**20}


def _parse(text: str, table: dict, what: str) -> float:
    m = re.fullmatch(_NUM + r"([A-Za-z]*)\s*", str(text))
    if not m or m.group(2) not in table:
        raise ValueError(f"{text!r} is not a {what} (units: {', '.join(k for k in table if k)})")
    return float(m.group(1)) * table[m.group(2)]


def parse_time_s(text: str) -> float:
    """``"40ms"`` -> 0.04 (seconds)."""
    return _parse(text, _TIME, "time")


def parse_rate_bps(text: str | float) -> float:
    """``"45Mbps"`` -> 45e6 (bit/s); numbers are bit/s."""
    if isinstance(text, (int, float)):
        return float(text)
    return _parse(text, _RATE, "rate")


def parse_size_bytes(text: str | int) -> float:
    """``"300KB"`` -> 300000 (bytes); numbers are bytes."""
    if isinstance(text, (int, float)):
        return float(text)
    return _parse(text, _SIZE, "size")
