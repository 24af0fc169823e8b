"""The writer of a results directory, :class:`Store`: the writer lock, the schema,
crash clean-up, atomic time-series files and one transaction per point (see "Crash
safety" and "Integrity" in :mod:`ccsim.store`). Used by :func:`ccsim.sweep.run_sweep`
through :class:`ccsim.recorder.Recorder`."""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import json
import os
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from ..checksums import digest, read_checked
from ..errors import NotAStoreError, StoreError, StoreLockedError
from .db import connect, is_lock_error
from .schema import (
    BASE_WIDE_COLUMNS,
    DB_NAME,
    FORMAT,
    LOCK_NAME,
    SCHEMA,
    SCHEMA_VERSION,
    TIMESERIES_DIR,
    TMP_MARK,
    dumps,
    ident,
    jsonable,
    merge_type,
    safe_name,
    value_type,
    wide_view_sql,
)

__all__ = ["Store"]


def interrupted_query(e: BaseException) -> bool:
    """Ctrl-C that arrived while DuckDB was executing a statement of the store: DuckDB
    handles SIGINT itself during a query, rolls the statement back and raises its own
    error (``duckdb.InterruptException``, or a ``RuntimeError`` "Query interrupted" in
    some versions) instead of Python's ``KeyboardInterrupt``."""
    return isinstance(e, duckdb.InterruptException) or (
        isinstance(e, RuntimeError) and "interrupted" in str(e).lower()
    )


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)


def tmp_pattern(final: Path) -> re.Pattern:
    """Temporary names :meth:`Store.write_timeseries` uses for ``final``."""
    return re.compile(re.escape(f".{final.name}{TMP_MARK}") + r"[0-9a-f]{8}")


def unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


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
                for stmt in SCHEMA:
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
            if is_lock_error(exc):
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
        return connect(
            self.db_path, read_only=read_only, timeout=self.lock_timeout, notify=self.notify
        )

    def _clean_orphans(self, paths: list[Path]) -> None:
        """Remove files recorded as ``writing`` (a writer died before recording the
        point), their temporary siblings, and point folders left empty."""
        for final in paths:
            unlink_quietly(final)
            folder = final.parent
            if folder.is_dir() and not folder.is_symlink():
                tmp = tmp_pattern(final)
                for f in folder.iterdir():
                    if tmp.fullmatch(f.name):
                        unlink_quietly(f)
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
        return f"{TIMESERIES_DIR}/{safe_name(point_id)}/{safe_name(name)}.parquet"

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
            tmp = final.parent / f".{final.name}{TMP_MARK}{uuid.uuid4().hex[:8]}"
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
                unlink_quietly(tmp)
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
            unlink_quietly(self.dir / rel)

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
                    if interrupted_query(exc):
                        # Ctrl-C: this point's transaction is rolled back and runs
                        # again on resume; the ones before it are stored.
                        raise KeyboardInterrupt from exc
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
                    con.execute(f"ALTER TABLE {table} ADD COLUMN {ident(name)} {types[name]}")
                    have.add(name)
                cols.append(ident(name))
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
                self._param_types[k] = merge_type(self._param_types.get(k), value_type(v))
        self._metric_names = [
            r[0] for r in con.execute("SELECT DISTINCT name FROM metrics ORDER BY name").fetchall()
        ]

    def _note_names(self, params: Mapping[str, Any], metrics: Mapping[str, Any]) -> bool:
        changed = False
        for k, v in params.items():
            old = self._param_types.get(k, "missing")
            new = merge_type(None if old == "missing" else old, value_type(v))
            if old == "missing" or new != old:
                self._param_types[k] = new
                changed = True
        for name in metrics:
            if name not in self._metric_names:
                self._metric_names.append(str(name))
                changed = True
        return changed

    def _rebuild_wide_view(self, con) -> None:
        con.execute(wide_view_sql(self._param_types, self._metric_names))

    def metric_columns(self) -> dict[str, str]:
        """Map metric name -> column name in ``metrics_wide``."""
        used = set(BASE_WIDE_COLUMNS) | set(self._param_types)
        out = {}
        for name in self._metric_names:
            out[name] = name if name not in used else f"metric.{name}"
        return out
