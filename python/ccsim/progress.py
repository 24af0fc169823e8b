"""The one progress bar of ccsim: a line on stderr with count, percentage and ETA.

Used by ``ccsim run`` (simulated seconds) and by sweeps (points). On a terminal it
redraws one line in place; elsewhere (logs, CI) it prints a line every few seconds.
With ``delay`` it stays silent for short tasks.
"""

from __future__ import annotations

import math
import sys
import time

__all__ = ["ProgressBar", "fmt_duration"]


def _amounts(done: float, total: float) -> str:
    """``done/total`` in plain decimals, as many as ``total`` needs (``500/100000``, not
    ``500/1e+05``; ``0.25/2.5``)."""
    digits = 0 if total >= 100 else 1 if total >= 1 else 3
    return f"{done:.{digits}f}/{total:.{digits}f}"


def fmt_duration(seconds: float) -> str:
    """``75`` -> ``"1:15"``, ``3725`` -> ``"1:02:05"``, unknown -> ``"?"``."""
    if not math.isfinite(seconds):
        return "?"
    seconds = round(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class ProgressBar:
    """Progress with ETA on ``stream`` (stderr).

    Parameters
    ----------
    label : str
        Shown first (``"sweep"``, ``"simulating"``).
    total : float, optional
        Amount of work; may instead be passed to each :meth:`update`.
    unit : str
        Appended to the counts (``"s"`` for simulated seconds).
    delay : float
        Draw nothing until this many wall seconds have passed.
    enabled : bool
        False: silent.
    """

    def __init__(
        self,
        label: str = "",
        total: float = 0,
        unit: str = "",
        delay: float = 0.0,
        enabled: bool = True,
        stream=None,
        width: int = 24,
    ):
        self.label = label
        self.total = total
        self.unit = unit
        self.delay = delay
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.width = width
        self.start = time.monotonic()
        self.done: float = 0
        self.failed = 0
        self._last = 0.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._drawn = False
        self._shown: tuple | None = None

    def message(self, text: str) -> None:
        """Print a line of text without breaking the bar."""
        if self._drawn and self._tty:
            self.stream.write("\n")
            self._drawn = False
        self.stream.write(text + "\n")
        self.stream.flush()

    def update(
        self, done: float, total: float | None = None, failed: int = 0, force: bool = False
    ) -> None:
        """``done`` (and ``failed``) of ``total``; redraws at most a few times a second."""
        self.done, self.failed = done, failed
        if total is not None:
            self.total = total
        if not self.enabled or self.total <= 0:
            return
        done += failed
        now = time.monotonic()
        elapsed = now - self.start
        if not force and elapsed < self.delay:
            return
        interval = 0.2 if self._tty else 5.0
        if not force and now - self._last < interval and done < self.total:
            return
        if (done, failed) == self._shown and not self._tty:
            return
        self._shown = (done, failed)
        self._last = now
        frac = min(done / self.total, 1.0)
        eta = elapsed / frac * (1 - frac) if frac > 0 else math.inf
        filled = int(self.width * frac)
        bar = "#" * filled + "." * (self.width - filled)
        fail = f" ({failed} failed)" if failed else ""
        count = (
            _amounts(done, self.total)
            if isinstance(done, float) or isinstance(self.total, float)
            else f"{done}/{self.total}"
        )
        line = (
            f"{self.label} {count}{self.unit} [{bar}] {100 * frac:3.0f}%{fail}"
            f"  elapsed {fmt_duration(elapsed)}  ETA {fmt_duration(eta)}"
        )
        if self._tty:
            self.stream.write("\r" + line + "\x1b[K")
            self._drawn = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state (if anything was drawn) and end the line."""
        if self.enabled and (self._shown is not None or self.delay == 0):
            self.update(self.done, failed=self.failed, force=True)
        if self._tty and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
