"""Reading a results directory: :class:`ResultsStore` (returned by
:func:`open_results`), whose every table is one short read-only query, so a sweep may go
on writing meanwhile; time series are verified against their recorded checksums."""

from __future__ import annotations

import io
import json
from pathlib import Path

import duckdb
import pandas as pd

from ..checksums import read_checked
from ..errors import CorruptResultError
from .db import connect
from .schema import BASE_WIDE_COLUMNS, DB_NAME, TIMESERIES_DIR, TMP_MARK, safe_name

__all__ = ["ResultsStore", "open_results"]


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
        with connect(self.path, read_only=True, timeout=self.timeout) as con:
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
        with connect(self.path, read_only=True, timeout=self.timeout) as con:
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
        params = [c for c in param_keys if c in df.columns and c not in BASE_WIDE_COLUMNS]
        metric_cols = [
            c
            for c in df.columns
            if c not in BASE_WIDE_COLUMNS
            and c not in params
            and (c in metric_names or c.removeprefix("metric.") in metric_names)
        ]
        df = df[list(BASE_WIDE_COLUMNS) + params + metric_cols]
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
            if f.name.endswith(".parquet") and TMP_MARK not in f.name
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
            path = self.dir / TIMESERIES_DIR / point_id / f"{safe_name(name)}.parquet"
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
