"""Persistent store for sweep results: one DuckDB file plus Parquet time series.

A results directory looks like this::

    <results_dir>/
        ccsim.duckdb                          tables and views, see below
        timeseries/<point_id>/<name>.parquet  time series kept for a point
        .writer.lock                          advisory lock held by the one writing sweep

Tables in ``ccsim.duckdb`` (``experiment`` is a free label so that several
experiments share one store; a point is identified by ``(experiment, point_id)``):

``points``
    One row per finished point: ``experiment, point_id, params JSON, scenario JSON,
    summary JSON, ccsim_version, seed, status, wall_s, finished_at, engine`` (the
    engine fingerprint of the code that computed it, :func:`ccsim.fingerprint`). A
    point is done if and only if its row exists (and its files are intact, below).
``metrics``
    Long form ``experiment, point_id, name, value DOUBLE``.
``metrics_wide`` (view)
    ``experiment, point_id, seed``, one column per parameter, one per metric.
``flows``, ``queues``
    The :class:`ccsim.Results` tables of every point, with ``experiment, point_id``
    columns in front. Columns are added as new ones appear.
``files``
    Every file ccsim wrote into the directory: ``experiment, point_id, name, path``
    (relative), ``bytes, sha256, status`` (``writing`` until the point's row is
    committed, then ``done``), ``written_at``. Clean-up only ever removes files listed
    here; readers verify size and checksum.
``failures``
    Points that failed the last time they were tried: ``experiment, point_id, params,
    scenario, ccsim_version, seed, error, traceback, failed_at, engine``. A failed point
    is not done: the next run of the sweep tries it again (and removes the row on
    success).
``store_meta``
    ``key, value`` pairs (``schema_version``, ``format = ccsim-results``).

Crash safety. Before time series are written their names are recorded in ``files``
as ``writing``; each file is written under a temporary name, flushed and renamed into
place with :func:`os.replace`; only then is the point's row (with its metrics, flows,
queues and the files' checksums) inserted, in one transaction. A process killed at any
moment therefore leaves either a complete point or files marked ``writing``, which
:meth:`Store.open_for_writing` removes. Nothing else in the directory is ever deleted,
and a directory that is neither empty nor a ccsim store is refused.

Integrity. Before a sweep skips a done point it checks the point's files (present,
same size, same SHA-256); a point with a missing, truncated or altered file is no
longer done and is computed again. :meth:`ResultsStore.timeseries` verifies the
checksum of what it reads, so a flipped bit is an error, not different data.

Concurrency. DuckDB lets one process hold a database file open for writing, and no
other process may open it at all meanwhile. The writer therefore opens the file only
for the moment of a write, and readers (:func:`open_results`) only for the moment of a
query; both retry while the other holds the lock. Keep your own
``duckdb.connect(path, read_only=True)`` sessions short while a sweep is running.

Modules: :mod:`~ccsim.store.schema` (the layout, the tables, the wide view and the JSON
encoding), :mod:`~ccsim.store.db` (connections retried on the lock),
:mod:`~ccsim.store.writer` (:class:`Store`) and :mod:`~ccsim.store.queries`
(:class:`ResultsStore`, :func:`open_results`); every name is importable from
``ccsim.store`` itself.
"""

from __future__ import annotations

from ..checksums import read_checked  # noqa: F401 (re-exported)
from ..errors import (  # defined there so the CLI imports them cheaply
    CorruptResultError,
    NotAStoreError,
    StoreBusyError,
    StoreError,
    StoreLockedError,
)
from .queries import ResultsStore, open_results
from .schema import (  # noqa: F401 (re-exported: the layout's names and the JSON encoding)
    DB_NAME,
    FORMAT,
    LOCK_NAME,
    SCHEMA_VERSION,
    TIMESERIES_DIR,
    dumps,
    jsonable,
)
from .writer import Store

__all__ = [
    "DB_NAME",
    "CorruptResultError",
    "NotAStoreError",
    "ResultsStore",
    "Store",
    "StoreBusyError",
    "StoreError",
    "StoreLockedError",
    "open_results",
]
