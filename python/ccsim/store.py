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
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import json
import math
import os
import re
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from .checksums import digest, read_checked
from .errors import (  # defined there so the CLI imports them cheaply
    CorruptResultError,
    NotAStoreError,
    StoreBusyError,
    StoreError,
    StoreLockedError,
)

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

DB_NAME = "ccsim.duckdb"
TIMESERIES_DIR = "timeseries"
LOCK_NAME = ".writer.lock"
SCHEMA_VERSION = "2"
FORMAT = "ccsim-results"
_TMP_MARK = ".tmp-"

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS store_meta (key VARCHAR NOT NULL, value VARCHAR)",
    """CREATE TABLE IF NOT EXISTS points (
        experiment VARCHAR NOT NULL,
        point_id VARCHAR NOT NULL,
        params JSON,
        scenario JSON,
        summary JSON,
        ccsim_version VARCHAR,
        seed BIGINT,
        status VARCHAR,
        wall_s DOUBLE,
        finished_at TIMESTAMP,
        engine VARCHAR
    )""",
    """CREATE TABLE IF NOT EXISTS metrics (
        experiment VARCHAR NOT NULL,
        point_id VARCHAR NOT NULL,
        name VARCHAR NOT NULL,
        value DOUBLE
    )""",
    "CREATE TABLE IF NOT EXISTS flows (experiment VARCHAR NOT NULL, point_id VARCHAR NOT NULL)",
    "CREATE TABLE IF NOT EXISTS queues (experiment VARCHAR NOT NULL, point_id VARCHAR NOT NULL)",
    """CREATE TABLE IF NOT EXISTS failures (
        experiment VARCHAR NOT NULL,
        point_id VARCHAR NOT NULL,
        params JSON,
        scenario JSON,
        ccsim_version VARCHAR,
        seed BIGINT,
        error VARCHAR,
        traceback VARCHAR,
        failed_at TIMESTAMP,
        engine VARCHAR
    )""",
    """CREATE TABLE IF NOT EXISTS files (
        experiment VARCHAR NOT NULL,
        point_id VARCHAR NOT NULL,
        name VARCHAR NOT NULL,
        path VARCHAR NOT NULL,
        bytes BIGINT,
        sha256 VARCHAR,
        status VARCHAR,
        written_at TIMESTAMP
    )""",
    # schema 1 -> 2: the engine fingerprint of each point
    "ALTER TABLE points ADD COLUMN IF NOT EXISTS engine VARCHAR",
    "ALTER TABLE failures ADD COLUMN IF NOT EXISTS engine VARCHAR",
]

_BASE_WIDE_COLUMNS = ("experiment", "point_id", "seed")


# --------------------------------------------------------------------------- helpers


def jsonable(obj: Any) -> Any:
    """Convert ``obj`` to plain JSON types.

    NumPy scalars and arrays become Python numbers and lists, tuples and sets become
    lists, non-finite floats become ``None`` and anything else unknown becomes ``str``.

    Parameters
    ----------
    obj : Any
        The value to convert.

    Returns
    -------
    Any
        A value that :func:`json.dumps` accepts with ``allow_nan=False``.

    Examples
    --------
    >>> jsonable({"a": (1, 2.0), "b": float("nan")})
    {'a': [1, 2.0], 'b': None}
    """
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted((jsonable(v) for v in obj), key=repr)
    if hasattr(obj, "tolist"):  # numpy scalar or array
        return jsonable(obj.tolist())
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    return str(obj)


def dumps(obj: Any, sort_keys: bool = True) -> str:
    """Canonical JSON text of ``obj`` (sorted keys, no spaces, UTF-8, no NaN)."""
    return json.dumps(
        jsonable(obj),
        sort_keys=sort_keys,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )


def _ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _json_pointer(key: str) -> str:
    return "/" + str(key).replace("~", "~0").replace("/", "~1")


def _is_lock_error(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return isinstance(exc, duckdb.IOException) and "lock" in msg


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)


def _value_type(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "BIGINT"
    if isinstance(value, float):
        return "DOUBLE"
    if isinstance(value, str):
        return "VARCHAR"
    return "JSON"


def _merge_type(old: str | None, new: str | None) -> str | None:
    if old is None or old == new:
        return new or old
    if new is None:
        return old
    if {old, new} == {"BIGINT", "DOUBLE"}:
        return "DOUBLE"
    return "VARCHAR"


@contextlib.contextmanager
def _connect(
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
            if not _is_lock_error(exc):
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


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _tmp_pattern(final: Path) -> re.Pattern:
    """Temporary names :meth:`Store.write_timeseries` uses for ``final``."""
    return re.compile(re.escape(f".{final.name}{_TMP_MARK}") + r"[0-9a-f]{8}")


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _safe_name(name: str) -> str:
    safe = "".join(c if (c.isalnum() or c in "-_.") else "_" for c in str(name))
    return safe.lstrip(".") or "_"


# --------------------------------------------------------------------------- writer


class Store:
    """Writer side of a results directory; used by :func:`ccsim.sweep.run_sweep`.

    Only one process may write at a time: :meth:`open_for_writing` takes an advisory
    lock file and raises :class:`StoreLockedError` if another sweep holds it.

    Parameters
    ----------
    results_dir : str or os.PathLike
        The results directory (created if missing).
    lock_timeout : float
        Seconds to keep retrying while a reader holds the DuckDB file.
    notify : callable, optional
        Called with a one-line message when a write has to wait for a reader.
    """

    def __init__(self, results_dir, *, lock_timeout: float = 600.0, notify=None):
        self.dir = Path(results_dir)
        self.db_path = self.dir / DB_NAME
        self.ts_dir = self.dir / TIMESERIES_DIR
        self.lock_timeout = lock_timeout
        self.notify = notify
        self._lock_fd: int | None = None
        self._param_types: dict[str, str | None] = {}
        self._metric_names: list[str] = []
        self._table_cols: dict[str, set[str]] = {}

    # -- lifecycle -----------------------------------------------------------------

    def open_for_writing(self) -> Store:
        """Take the writer lock, create the schema and remove leftovers of crashes.

        Raises
        ------
        NotAStoreError
            The directory holds files but no ccsim store: nothing in it is touched.
        StoreLockedError
            Another sweep is writing to the directory.
        StoreError
            The directory cannot be created or written (a file, read-only, ...).

        Returns
        -------
        Store
            ``self``, so that ``with Store(d).open_for_writing() as st:`` works.
        """
        self._check_directory()
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            self._acquire_lock()
        except OSError as exc:
            raise StoreError(
                f"cannot write to the results directory {self.dir}: {exc.strerror}"
            ) from None
        try:
            with self.connect() as con:
                tables = {r[0] for r in con.execute("SHOW TABLES").fetchall()}
                if tables and "store_meta" not in tables:
                    raise NotAStoreError(
                        f"{self.db_path} is a DuckDB file that ccsim did not create; "
                        "use another results directory"
                    )
                for stmt in _SCHEMA:
                    con.execute(stmt)
                con.execute("DELETE FROM store_meta WHERE key IN ('schema_version', 'format')")
                con.execute(
                    "INSERT INTO store_meta VALUES ('schema_version', ?), ('format', ?)",
                    [SCHEMA_VERSION, FORMAT],
                )
                self._load_names(con)
                self._rebuild_wide_view(con)
                orphans = con.execute(
                    "SELECT DISTINCT path FROM files WHERE status = 'writing' AND path NOT IN "
                    "(SELECT path FROM files WHERE status = 'done')"
                ).fetchall()
                self._clean_orphans([self.dir / p for (p,) in orphans])
                con.execute("DELETE FROM files WHERE status = 'writing'")
        except duckdb.Error as exc:
            self.close()
            if _is_lock_error(exc):
                raise
            raise StoreError(f"cannot open {self.db_path}: {exc}") from None
        except BaseException:
            self.close()
            raise
        return self

    def _check_directory(self) -> None:
        """Refuse a file, or a non-empty directory that is not a ccsim store."""
        if self.dir.is_symlink() and not self.dir.exists():
            raise StoreError(f"{self.dir} is a broken symbolic link")
        if self.dir.exists() and not self.dir.is_dir():
            raise StoreError(f"{self.dir} is a file, not a results directory")
        if not self.dir.is_dir() or self.db_path.exists():
            return
        try:
            others = sorted(e.name for e in self.dir.iterdir() if e.name != LOCK_NAME)
        except OSError as exc:
            raise StoreError(f"cannot read the results directory {self.dir}: {exc.strerror}")
        if others:
            shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
            raise NotAStoreError(
                f"{self.dir} is not a ccsim results store (no {DB_NAME}) and is not empty "
                f"({shown}); give a new or empty directory, ccsim leaves this one alone"
            )

    def close(self) -> None:
        """Release the writer lock."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _acquire_lock(self) -> None:
        path = self.dir / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no advisory lock
            self._lock_fd = fd
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise StoreLockedError(
                f"another sweep (pid {holder}) is writing to {self.dir}; "
                "wait for it to finish or use another results_dir"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock_fd = fd

    def connect(self, read_only: bool = False):
        """Context manager yielding a short-lived DuckDB connection (retries on lock)."""
        return _connect(
            self.db_path, read_only=read_only, timeout=self.lock_timeout, notify=self.notify
        )

    def _clean_orphans(self, paths: list[Path]) -> None:
        """Remove files recorded as ``writing`` (a writer died before recording the
        point), their temporary siblings, and point folders left empty."""
        for final in paths:
            _unlink_quietly(final)
            folder = final.parent
            if folder.is_dir() and not folder.is_symlink():
                tmp = _tmp_pattern(final)
                for f in folder.iterdir():
                    if tmp.fullmatch(f.name):
                        _unlink_quietly(f)
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only if empty

    # -- queries ---------------------------------------------------------------------

    def done_ids(self, experiment: str) -> set[str]:
        """Point ids that have a row in ``points`` for ``experiment``."""
        with self.connect() as con:
            rows = con.execute(
                "SELECT point_id FROM points WHERE experiment = ?", [experiment]
            ).fetchall()
        return {r[0] for r in rows}

    # -- writes ------------------------------------------------------------------------

    def timeseries_path(self, point_id: str, name: str) -> str:
        """Where the time series ``name`` of ``point_id`` goes, relative to the directory."""
        return f"{TIMESERIES_DIR}/{_safe_name(point_id)}/{_safe_name(name)}.parquet"

    def begin_files(self, entries: list[tuple[str, str, str]]) -> None:
        """Record ``(experiment, point_id, name)`` time series as being written, so that
        a crash before the point is recorded leaves files that clean-up knows are ours.
        """
        if not entries:
            return
        rows = [
            (exp, pid, name, self.timeseries_path(pid, name), None, None, "writing", _now())
            for exp, pid, name in entries
        ]
        with self.connect() as con:
            con.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def write_timeseries(self, point_id: str, tables: Mapping[str, Any]) -> list[dict]:
        """Write ``tables`` as ``timeseries/<point_id>/<name>.parquet`` atomically each.

        Each file is written under a temporary name, flushed to disk and renamed into
        place, so a reader never sees a partial file; it never follows a symbolic link.
        Call :meth:`begin_files` first.

        Returns
        -------
        list of dict
            ``name, path, bytes, sha256`` of each file, for :meth:`record_points`.
        """
        if not tables:
            return []
        import pyarrow as pa
        import pyarrow.parquet as pq

        written = []
        for name, df in tables.items():
            rel = self.timeseries_path(point_id, name)
            final = self.dir / rel
            final.parent.mkdir(parents=True, exist_ok=True)
            if not isinstance(df, pa.Table):
                df = pa.Table.from_pandas(pd.DataFrame(df), preserve_index=False)
            sink = io.BytesIO()
            pq.write_table(df, sink)
            data = sink.getvalue()
            tmp = final.parent / f".{final.name}{_TMP_MARK}{uuid.uuid4().hex[:8]}"
            try:
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                fd = os.open(tmp, flags, 0o644)
                try:
                    os.write(fd, data)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(tmp, final)
            finally:
                _unlink_quietly(tmp)
            written.append({"name": name, "path": rel, "bytes": len(data), "sha256": digest(data)})
        return written

    def damaged_points(self, experiment: str, point_ids: set[str]) -> dict[str, str]:
        """Done points among ``point_ids`` whose recorded files are missing, truncated
        or altered, with the reason (checks size and SHA-256 of every file)."""
        if not point_ids:
            return {}
        with self.connect() as con:
            rows = con.execute(
                "SELECT point_id, name, path, bytes, sha256 FROM files "
                "WHERE experiment = ? AND status = 'done'",
                [experiment],
            ).fetchall()
        bad: dict[str, str] = {}
        for pid, name, rel, size, sha in rows:
            if pid in point_ids and pid not in bad:
                _, why = read_checked(self.dir / rel, size, sha)
                if why:
                    bad[pid] = f"time series {name!r} {why}"
        return bad

    def forget_points(self, experiment: str, point_ids: list[str]) -> None:
        """Make points not done (one transaction) and remove the files recorded for them
        that no other point uses."""
        if not point_ids:
            return
        marks = ", ".join("?" for _ in point_ids)
        where = f"WHERE experiment = ? AND point_id IN ({marks})"
        args = [experiment, *point_ids]
        with self.connect() as con:
            paths = [r[0] for r in con.execute(f"SELECT path FROM files {where}", args).fetchall()]
            con.execute("BEGIN TRANSACTION")
            try:
                for table in ("points", "metrics", "flows", "queues", "files"):
                    con.execute(f"DELETE FROM {table} {where}", args)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            used = {r[0] for r in con.execute("SELECT path FROM files").fetchall()}
        for rel in set(paths) - used:
            _unlink_quietly(self.dir / rel)

    def record_points(self, records: list[dict]) -> list[tuple[dict, BaseException]]:
        """Insert finished points, one transaction each, over one connection.

        Parameters
        ----------
        records : list of dict
            Each with keys ``experiment, point_id, params, scenario, summary,
            ccsim_version, engine, seed, wall_s, metrics`` (dict name -> float or None)
            and optionally ``flows``, ``queues`` (DataFrames or pyarrow Tables) and
            ``files`` (what :meth:`write_timeseries` returned: the time series must
            already be written).

        Returns
        -------
        list of (dict, Exception)
            The records whose transaction failed (rolled back) and why; the caller
            decides what to do with them (:func:`run_sweep` records them as failures).
        """
        errors: list[tuple[dict, BaseException]] = []
        if not records:
            return errors
        with self.connect() as con:
            for rec in records:
                try:
                    self._insert_point(con, rec)
                except Exception as exc:  # noqa: BLE001 - reported per point by the caller
                    errors.append((rec, exc))
        return errors

    def record_failures(self, records: list[dict]) -> None:
        """Insert (or replace) rows of ``failures``.

        Parameters
        ----------
        records : list of dict
            Each with keys ``experiment, point_id, params, scenario, ccsim_version,
            engine, seed, error`` and optionally ``traceback``.
        """
        if not records:
            return
        with self.connect() as con:
            for rec in records:
                con.execute("BEGIN TRANSACTION")
                try:
                    con.execute(
                        "DELETE FROM failures WHERE experiment = ? AND point_id = ?",
                        [rec["experiment"], rec["point_id"]],
                    )
                    con.execute(
                        "INSERT INTO failures (experiment, point_id, params, scenario, "
                        "ccsim_version, seed, error, traceback, failed_at, engine) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            rec["experiment"],
                            rec["point_id"],
                            dumps(rec.get("params") or {}, sort_keys=False),
                            dumps(rec.get("scenario")),
                            rec.get("ccsim_version"),
                            rec.get("seed"),
                            rec.get("error"),
                            rec.get("traceback"),
                            _now(),
                            rec.get("engine"),
                        ],
                    )
                    con.execute("COMMIT")
                except BaseException:
                    con.execute("ROLLBACK")
                    raise

    def _insert_point(self, con: duckdb.DuckDBPyConnection, rec: dict) -> None:
        exp, pid = rec["experiment"], rec["point_id"]
        params = jsonable(rec.get("params") or {})
        metrics = rec.get("metrics") or {}
        con.execute("BEGIN TRANSACTION")
        try:
            key = [exp, pid]
            where = "WHERE experiment = ? AND point_id = ?"
            if con.execute(f"SELECT count(*) FROM points {where}", key).fetchone()[0]:
                for table in ("points", "metrics", "flows", "queues"):
                    con.execute(f"DELETE FROM {table} {where}", key)
            con.execute(f"DELETE FROM failures {where}", key)
            con.execute(f"DELETE FROM files {where}", key)
            now = _now()
            con.execute(
                "INSERT INTO points (experiment, point_id, params, scenario, summary, "
                "ccsim_version, seed, status, wall_s, finished_at, engine) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'done', ?, ?, ?)",
                [
                    exp,
                    pid,
                    dumps(params, sort_keys=False),
                    dumps(rec.get("scenario")),
                    dumps(rec.get("summary")),
                    rec.get("ccsim_version"),
                    rec.get("seed"),
                    rec.get("wall_s"),
                    now,
                    rec.get("engine"),
                ],
            )
            files = rec.get("files") or []
            if files:
                con.executemany(
                    "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, 'done', ?)",
                    [(exp, pid, f["name"], f["path"], f["bytes"], f["sha256"], now) for f in files],
                )
            if metrics:
                rows = ", ".join(["(?, ?, ?, ?::DOUBLE)"] * len(metrics))
                args = [x for k, v in metrics.items() for x in (exp, pid, str(k), v)]
                con.execute(f"INSERT INTO metrics VALUES {rows}", args)
            for table in ("flows", "queues"):
                frame = rec.get(table)
                if frame is not None and len(frame.columns) and len(frame):
                    self._insert_frame(con, table, exp, pid, frame)
            if self._note_names(params, metrics):
                self._rebuild_wide_view(con)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            # the caches may list names or columns that were rolled back: reload them
            with contextlib.suppress(Exception):
                self._load_names(con)
            raise

    def _insert_frame(self, con, table: str, exp: str, pid: str, frame: Any) -> None:
        import pyarrow as pa

        if not isinstance(frame, pa.Table):
            frame = pa.Table.from_pandas(pd.DataFrame(frame), preserve_index=False)
        names = [str(c) for c in frame.column_names]
        names = [f"{c}_" if c in ("experiment", "point_id") else c for c in names]
        frame = frame.rename_columns(names)
        have = self._table_cols.setdefault(table, set())
        view = f"__ccsim_{table}_{uuid.uuid4().hex[:8]}"
        con.register(view, frame)
        try:
            types = dict.fromkeys(names)
            if not set(names) <= have:
                types = {
                    r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {view}").fetchall()
                }
            cols = []
            for name in names:
                if name not in have:
                    if types[name].strip('"').upper() == "NULL":
                        continue  # all values missing: no type to give the column yet
                    con.execute(f"ALTER TABLE {table} ADD COLUMN {_ident(name)} {types[name]}")
                    have.add(name)
                cols.append(_ident(name))
            select = ", ".join(["? AS experiment", "? AS point_id", *cols])
            con.execute(f"INSERT INTO {table} BY NAME SELECT {select} FROM {view}", [exp, pid])
        finally:
            con.unregister(view)

    # -- the wide view -------------------------------------------------------------------

    def _load_names(self, con) -> None:
        self._table_cols = {}
        for table, column in con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main'"
        ).fetchall():
            self._table_cols.setdefault(table, set()).add(column)
        self._param_types = {}
        for (params,) in con.execute("SELECT params FROM points ORDER BY finished_at").fetchall():
            for k, v in json.loads(params or "{}").items():
                self._param_types[k] = _merge_type(self._param_types.get(k), _value_type(v))
        self._metric_names = [
            r[0] for r in con.execute("SELECT DISTINCT name FROM metrics ORDER BY name").fetchall()
        ]

    def _note_names(self, params: Mapping[str, Any], metrics: Mapping[str, Any]) -> bool:
        changed = False
        for k, v in params.items():
            old = self._param_types.get(k, "missing")
            new = _merge_type(None if old == "missing" else old, _value_type(v))
            if old == "missing" or new != old:
                self._param_types[k] = new
                changed = True
        for name in metrics:
            if name not in self._metric_names:
                self._metric_names.append(str(name))
                changed = True
        return changed

    def _rebuild_wide_view(self, con) -> None:
        used = set(_BASE_WIDE_COLUMNS)
        cols = ["p.experiment", "p.point_id", "p.seed"]
        for key, typ in self._param_types.items():
            if key in used:
                continue
            used.add(key)
            ptr = _literal(_json_pointer(key))
            if typ == "JSON":
                expr = f"json_extract(p.params, {ptr})"
            elif typ in (None, "VARCHAR"):
                expr = f"json_extract_string(p.params, {ptr})"
            else:
                expr = f"TRY_CAST(json_extract_string(p.params, {ptr}) AS {typ})"
            cols.append(f"{expr} AS {_ident(key)}")
        pivots = []
        for name in self._metric_names:
            col = name if name not in used else f"metric.{name}"
            used.add(col)
            pivots.append(f"max(value) FILTER (WHERE name = {_literal(name)}) AS {_ident(col)}")
            cols.append(f"m.{_ident(col)}")
        sql = f"CREATE OR REPLACE VIEW metrics_wide AS SELECT {', '.join(cols)} FROM points p"
        if pivots:
            sql += (
                f" LEFT JOIN (SELECT experiment, point_id, {', '.join(pivots)} FROM metrics "
                "GROUP BY experiment, point_id) m "
                "ON p.experiment = m.experiment AND p.point_id = m.point_id"
            )
        con.execute(sql)

    def metric_columns(self) -> dict[str, str]:
        """Map metric name -> column name in ``metrics_wide``."""
        used = set(_BASE_WIDE_COLUMNS) | set(self._param_types)
        out = {}
        for name in self._metric_names:
            out[name] = name if name not in used else f"metric.{name}"
        return out


# --------------------------------------------------------------------------- reader


class ResultsStore:
    """Read-only access to a results directory; returned by :func:`open_results`.

    Every property runs one short read-only query (the DuckDB file is not kept open),
    so a sweep may go on writing meanwhile.

    Parameters
    ----------
    results_dir : str or os.PathLike
        A directory written by :func:`ccsim.sweep.run_sweep`.
    experiment : str, optional
        Only show this experiment's points.
    timeout : float
        Seconds to keep retrying while a writer holds the DuckDB file.
    """

    def __init__(self, results_dir, experiment: str | None = None, *, timeout: float = 60.0):
        self.dir = Path(results_dir)
        self.path = self.dir / DB_NAME
        if not self.path.exists():
            raise FileNotFoundError(f"no ccsim results store at {self.path}")
        self.experiment = experiment
        self.timeout = timeout

    def __repr__(self) -> str:
        exp = f", experiment={self.experiment!r}" if self.experiment else ""
        return f"ResultsStore({str(self.dir)!r}{exp})"

    def _repr_html_(self) -> str:
        """Jupyter: the store, its experiments and the first rows of ``metrics``."""
        import html

        m = self.metrics
        exps = ", ".join(html.escape(e) for e in self.experiments) or "none"
        head = m.head(20).to_html(index=False, float_format=lambda x: f"{x:.6g}", border=0)
        more = f"<p>… {len(m) - 20} more rows</p>" if len(m) > 20 else ""
        return (
            f"<div><b>ccsim results store</b> {html.escape(str(self.dir))}<br>"
            f"experiments: {exps}; points: {len(m)}"
            f"<details open><summary>metrics</summary>{head}{more}</details></div>"
        )

    def sql(self, query: str, params: list | None = None) -> pd.DataFrame:
        """Run a read-only SQL query against the store.

        Parameters
        ----------
        query : str
            Any DuckDB SQL; the tables and views are described in :mod:`ccsim.store`.
        params : list, optional
            Values for ``?`` placeholders.

        Returns
        -------
        pandas.DataFrame
        """
        with _connect(self.path, read_only=True, timeout=self.timeout) as con:
            return con.execute(query, params or []).df()

    def _where(self) -> tuple[str, list]:
        if self.experiment is None:
            return "", []
        return " WHERE experiment = ?", [self.experiment]

    @property
    def experiments(self) -> list[str]:
        """Experiment labels present in the store."""
        df = self.sql("SELECT DISTINCT experiment FROM points ORDER BY experiment")
        return list(df["experiment"])

    @property
    def points(self) -> pd.DataFrame:
        """The ``points`` table; ``params``, ``scenario`` and ``summary`` as dicts."""
        where, args = self._where()
        df = self.sql(f"SELECT * FROM points{where} ORDER BY finished_at", args)
        for col in ("params", "scenario", "summary"):
            df[col] = [json.loads(v) if isinstance(v, str) else v for v in df[col]]
        return df

    @property
    def failures(self) -> pd.DataFrame:
        """The ``failures`` table (points that failed the last time they were tried)."""
        where, args = self._where()
        return self.sql(f"SELECT * FROM failures{where} ORDER BY failed_at", args)

    @property
    def metrics(self) -> pd.DataFrame:
        """Wide table: ``experiment, point_id, seed``, parameter and metric columns.

        Columns that are empty for the selected experiment are left out. The lists of
        parameter and metric columns are in ``df.attrs["ccsim_params"]`` and
        ``df.attrs["ccsim_metrics"]`` (used by :func:`ccsim.sweep.aggregate`).
        """
        where, args = self._where()
        with _connect(self.path, read_only=True, timeout=self.timeout) as con:
            df = con.execute(f"SELECT * FROM metrics_wide{where}", args).df()
            metric_names = {
                r[0]
                for r in con.execute(f"SELECT DISTINCT name FROM metrics{where}", args).fetchall()
            }
            param_keys: list[str] = []
            for (p,) in con.execute(f"SELECT params FROM points{where}", args).fetchall():
                for k in json.loads(p or "{}"):
                    if k not in param_keys:
                        param_keys.append(k)
        params = [c for c in param_keys if c in df.columns and c not in _BASE_WIDE_COLUMNS]
        metric_cols = [
            c
            for c in df.columns
            if c not in _BASE_WIDE_COLUMNS
            and c not in params
            and (c in metric_names or c.removeprefix("metric.") in metric_names)
        ]
        df = df[list(_BASE_WIDE_COLUMNS) + params + metric_cols]
        df.attrs["ccsim_params"] = params
        df.attrs["ccsim_metrics"] = metric_cols
        return df

    def _table(self, table: str) -> pd.DataFrame:
        where, args = self._where()
        df = self.sql(f"SELECT * FROM {table}{where}", args)
        return df.dropna(axis=1, how="all") if self.experiment is not None else df

    @property
    def flows(self) -> pd.DataFrame:
        """All points' flow tables with ``experiment, point_id`` columns."""
        return self._table("flows")

    @property
    def queues(self) -> pd.DataFrame:
        """All points' queue tables with ``experiment, point_id`` columns."""
        return self._table("queues")

    def _recorded_files(self, point_id: str) -> dict[str, tuple[str, int, str]] | None:
        """``name -> (path, bytes, sha256)`` of the point's recorded time series, or
        ``None`` for a store written before files were recorded (schema 1)."""
        where, args = self._where()
        where = (where + " AND" if where else " WHERE") + " point_id = ? AND status = 'done'"
        try:
            rows = self.sql(
                f"SELECT name, path, bytes, sha256 FROM files{where}", [*args, point_id]
            )
        except duckdb.CatalogException:
            return None
        return {r.name: (r.path, r.bytes, r.sha256) for r in rows.itertuples(index=False)}

    def timeseries_names(self, point_id: str) -> list[str]:
        """Names of the time series kept for ``point_id``."""
        recorded = self._recorded_files(point_id)
        if recorded is not None:
            return sorted(recorded)
        folder = self.dir / TIMESERIES_DIR / point_id
        if not folder.is_dir():
            return []
        return sorted(
            f.name[: -len(".parquet")]
            for f in folder.iterdir()
            if f.name.endswith(".parquet") and _TMP_MARK not in f.name
        )

    def timeseries(self, point_id: str, name: str) -> pd.DataFrame:
        """Read one kept time series of one point, verifying its checksum.

        Parameters
        ----------
        point_id : str
            The point's id.
        name : str
            The series name, e.g. ``"queue"`` or ``"flow"``.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        KeyError
            If the point has no such series (it was not kept, or the point is not done).
        CorruptResultError
            If the file is missing or differs from what was written (size or SHA-256);
            running the sweep again computes the point again.
        """
        recorded = self._recorded_files(point_id)
        if recorded is None:  # schema-1 store: no checksums to verify
            path = self.dir / TIMESERIES_DIR / point_id / f"{_safe_name(name)}.parquet"
            entry = (str(path.relative_to(self.dir)), None, None) if path.exists() else None
        else:
            entry = recorded.get(name)
        if entry is None:
            have = sorted(recorded) if recorded is not None else self.timeseries_names(point_id)
            raise KeyError(
                f"no time series {name!r} for point {point_id!r}; kept: {have or 'none'} "
                "(run the sweep with keep_timeseries=True or a list of names)"
            )
        rel, size, sha = entry
        data, why = read_checked(self.dir / rel, size, sha)
        if why:
            raise CorruptResultError(
                f"{self.dir / rel}: time series {name!r} of point {point_id!r} is {why}; "
                "run the sweep again to compute the point again"
            )
        return pd.read_parquet(io.BytesIO(data))


def open_results(results_dir="./ccsim-results", experiment: str | None = None) -> ResultsStore:
    """Open a results directory for reading.

    Parameters
    ----------
    results_dir : str or os.PathLike
        The ``results_dir`` given to :func:`ccsim.sweep.run_sweep`.
    experiment : str, optional
        Restrict every table to this experiment label.

    Returns
    -------
    ResultsStore
        With ``.points``, ``.metrics``, ``.flows``, ``.queues``, ``.failures``,
        ``.timeseries(point_id, name)`` and ``.sql(query)``.

    Examples
    --------
    >>> res = open_results("ccsim-results")  # doctest: +SKIP
    >>> res.sql("SELECT experiment, count(*) AS n FROM points GROUP BY ALL")  # doctest: +SKIP
    """
    return ResultsStore(results_dir, experiment)
