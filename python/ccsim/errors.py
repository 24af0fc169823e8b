"""ccsim's Python-side exceptions, in a module that imports nothing heavy (so the CLI can
catch them without importing pandas or DuckDB first). Re-exported by ``ccsim.store`` and
``ccsim.sweep``, where they are raised."""

from __future__ import annotations

__all__ = [
    "CorruptResultError",
    "NotAStoreError",
    "StoreBusyError",
    "StoreError",
    "StoreLockedError",
    "SweepError",
]


class StoreError(RuntimeError):
    """A results directory cannot be used (the message says why, in one line)."""


class StoreBusyError(StoreError):
    """The DuckDB file stayed locked by another process for longer than the timeout."""


class StoreLockedError(StoreError):
    """Another sweep is already writing to this results directory."""


class NotAStoreError(StoreError):
    """The directory holds files and is not a ccsim results store: it is left alone."""


class CorruptResultError(StoreError):
    """A file ccsim recorded (with its size and checksum) is missing or altered."""


class SweepError(RuntimeError):
    """A sweep could not be set up or run (not: a point failed, see ``failures``)."""
