"""A small progress bar on stderr (no dependency), shown only for long tasks."""

from __future__ import annotations

import sys
import time

__all__ = ["ProgressBar"]


def _fmt(s: float) -> str:
    if s != s or s == float("inf"):
        return "--:--"
    s = int(s)
    return (
        f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
        if s >= 3600
        else f"{s // 60:02d}:{s % 60:02d}"
    )


class ProgressBar:
    """Progress with ETA, drawn on stderr after ``delay`` seconds of wall time.

    ``update(done, total)`` may be called often; it redraws at most 10 times a
    second. ``unit`` labels the counts (``"s"`` for simulated seconds,
    ``"runs"`` for sweep points).
    """

    def __init__(
        self, label: str = "", unit: str = "", delay: float = 1.0, stream=None, enabled=True
    ):
        self.label = label
        self.unit = unit
        self.delay = delay
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.t0 = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def update(self, done: float, total: float) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        el = now - self.t0
        if el < self.delay or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        frac = min(done / total, 1.0) if total > 0 else 1.0
        eta = el * (1 - frac) / frac if frac > 0 else float("inf")
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        num = (
            f"{done:.4g}/{total:.4g}{self.unit}"
            if isinstance(done, float)
            else f"{done}/{total}{self.unit}"
        )
        self.stream.write(
            f"\r{self.label} [{bar}] {frac * 100:5.1f}% {num} elapsed {_fmt(el)} eta {_fmt(eta)} "
        )
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
