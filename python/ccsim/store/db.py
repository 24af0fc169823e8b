"""Opening the store's DuckDB file: one short connection at a time, retried while
another process holds the file's lock (DuckDB lets one process open a database for
writing and no other open it meanwhile; see "Concurrency" in :mod:`ccsim.store`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb

from ..errors import StoreBusyError

__all__ = ["connect", "is_lock_error"]


def is_lock_error(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return isinstance(exc, duckdb.IOException) and "lock" in msg


@contextlib.contextmanager
def connect(
    path: Path, *, read_only: bool, timeout: float = 600.0, notify=None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open ``path``, retrying while another process holds the file lock."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    warned = False
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            break
        except duckdb.Error as exc:
            if not is_lock_error(exc):
                raise
            if time.monotonic() >= deadline:
                raise StoreBusyError(
                    f"{path} stayed locked by another process for {timeout:.0f} s: {exc}"
                ) from exc
            if notify is not None and not warned and time.monotonic() > deadline - timeout + 5:
                notify(f"waiting for the lock on {path} (held by another process)")
                warned = True
            time.sleep(delay)
            delay = min(delay * 2, 0.25)
    try:
        yield con
    finally:
        con.close()
