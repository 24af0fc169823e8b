"""Parameter sweeps: a base scenario times axes, run in parallel, stored, resumable.

A sweep is a list of points (:mod:`ccsim.points`: a base scenario expanded with axes and
replications, each point identified by a hash of its resolved scenario and the engine
fingerprint). :func:`run_sweep` runs the points that are not yet in the results store in
local worker processes (or on a Dask cluster) and records each one as soon as it
finishes (see :mod:`ccsim.store`); a rerun skips what is done.

This module drives a sweep and aggregates its results (and re-exports
:mod:`ccsim.points`); :mod:`ccsim.pool` runs the points (local processes or Dask),
:mod:`ccsim.worker` is what a worker does with one point and :mod:`ccsim.recorder`
stores the outcomes.

Examples
--------
>>> import ccsim.sweep as sw  # doctest: +SKIP
>>> sweep = sw.Sweep(
...     "scenarios/dumbbell.toml",
...     axes={"topology.bottleneck.queue.limit": ["20pkt", "50pkt", "100pkt"]},
...     replications=5,
...     experiment="buffer-size",
... )  # doctest: +SKIP
>>> df = sweep.run("ccsim-results", jobs=4)  # doctest: +SKIP
>>> sw.aggregate(df, by=["topology.bottleneck.queue.limit"])  # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ._ccsim import __version__
from .engine import fingerprint
from .errors import SweepError  # defined there so the CLI imports it cheaply
from .points import (  # re-exported: the sweep's API
    DEFAULT_EXPERIMENT,
    Point,
    canonical_json,
    dimensions,
    expand,
    make_point,
    point_id,
)
from .pool import WORKER_DIED, check_importable, run_dask, run_local  # noqa: F401 (re-exported)
from .progress import ProgressBar
from .recorder import Recorder
from .store import ResultsStore, Store
from .store.writer import interrupted_query as _interrupted_query
from .theory import confidence_interval
from .worker import default_metrics

__all__ = [
    "Point",
    "Sweep",
    "SweepError",
    "aggregate",
    "canonical_json",
    "default_metrics",
    "expand",
    "make_point",
    "point_id",
    "run_sweep",
]

DEFAULT_RESULTS_DIR = "./ccsim-results"


@dataclass
class Sweep:
    """A base scenario times axes (times replications).

    Parameters
    ----------
    base : dict or path
        Base scenario (dict or TOML file).
    axes : dict, optional
        Dotted key path -> list of values (see :func:`expand`).
    zip : list of list of str, optional
        Groups of axes that vary together.
    replications : int
        Seeds per combination (``base_seed + i``).
    experiment : str
        Label for the store.

    Examples
    --------
    >>> sweep = Sweep(
    ...     {"seed": 1, "duration": "2s"},
    ...     axes={"duration": ["1s", "2s"]},
    ...     experiment="demo",
    ... )  # doctest: +SKIP
    >>> len(sweep)  # doctest: +SKIP
    2
    """

    base: Any
    axes: dict = field(default_factory=dict)
    zip: list = field(default_factory=list)
    replications: int = 1
    experiment: str = DEFAULT_EXPERIMENT

    def points(self) -> list[Point]:
        """The expanded points (resolved, hashed)."""
        return expand(
            self.base,
            self.axes,
            zip=self.zip,
            replications=self.replications,
            experiment=self.experiment,
        )

    def __iter__(self):
        return iter(self.points())

    def __len__(self) -> int:
        n = 1
        for dim in dimensions(self.axes, [list(g) for g in self.zip]):
            n *= len(dim)
        return n * self.replications

    def run(self, results_dir=DEFAULT_RESULTS_DIR, **kwargs) -> pd.DataFrame:
        """Run the sweep; keyword arguments as for :func:`run_sweep`."""
        return run_sweep(self.points(), results_dir, **kwargs)


# --------------------------------------------------------------------------- run_sweep


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return canonical_json(value)


def run_sweep(
    points: Iterable[Point] | Sweep,
    results_dir=DEFAULT_RESULTS_DIR,
    *,
    jobs: int | None = None,
    metrics: Callable[[Any], Mapping[str, float]] | None = None,
    keep_timeseries: bool | str | Sequence[str] = False,
    progress: bool = True,
    scheduler: Any = None,
) -> pd.DataFrame:
    """Run the points that are not yet done and store their results.

    Parameters
    ----------
    points : iterable of Point, or Sweep
        From :func:`expand` or :meth:`Sweep.points`.
    results_dir : str or os.PathLike
        Where the store lives (``ccsim.duckdb`` and ``timeseries/``).
    jobs : int, optional
        Worker processes (default: all cores). Ignored with ``scheduler``.
    metrics : callable, optional
        ``metrics(results) -> dict`` of name -> number (nested dicts are flattened
        with dots; ``None``/NaN are stored as NULL). It runs in the worker, so it must
        be picklable: a module-level function (not a lambda or a function defined in
        ``__main__`` of ``python -c``). Default: :func:`default_metrics` (the numeric
        entries of ``results.summary``).
    keep_timeseries : bool, str or list of str
        Which of ``results.timeseries`` to keep as Parquet files (``True``: all).
    progress : bool
        Draw a progress bar with count and ETA on stderr.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``"tcp://host:8786"``) or a ``Client`` (e.g. on a
        dask-jobqueue cluster): run the points there instead of in local processes.
        ccsim must be installed on the workers; results come back to this process,
        which stays the only writer of the store.

    Returns
    -------
    pandas.DataFrame
        One row per requested point: ``experiment, point_id, seed``, the parameters,
        ``status`` (``"done"`` or ``"failed"``), ``error``, ``engine`` (the fingerprint
        of the engine that computed the point) and the metric columns.
        ``df.attrs["ccsim_params"]`` and ``df.attrs["ccsim_metrics"]`` list the
        parameter and metric columns, ``df.attrs["ccsim_ran"]`` how many points this
        call tried (done or failed; skipped points not counted).

    Raises
    ------
    StoreLockedError
        If another sweep is writing to ``results_dir``.
    KeyboardInterrupt
        On Ctrl-C, after stopping the workers; finished points are kept.

    Notes
    -----
    A point is done when its row is in the ``points`` table and its files are intact
    (present, same size and SHA-256; a point with a damaged file is computed again); a
    rerun skips done points (same experiment label and point id, which includes the
    engine fingerprint) and retries failed ones. If a worker process
    dies, the point it was running is recorded as failed, the worker is replaced and
    the sweep goes on. A point whose run raises is recorded in ``failures`` with its message.
    Failures are summarised on stderr at the end; nothing is raised for them.

    On platforms that start workers with ``spawn``, a script that calls
    :func:`run_sweep` must guard it with ``if __name__ == "__main__":``.
    """
    points, jobs = _checked(points, jobs, metrics, scheduler)
    engine = fingerprint()
    store = Store(results_dir).open_for_writing()
    ran = 0
    try:
        todo, invalid, seen = _todo(store, points)
        bar = ProgressBar("sweep", total=len(todo) + len(invalid), enabled=progress)
        if progress and (len(points) - len(todo) - len(invalid)):
            bar.message(
                f"sweep: {len(seen)} of {len(points)} points to run "
                f"({len(points) - len(seen)} already done or duplicates) in {results_dir}"
            )
        rec = Recorder(store, __version__, engine, bar)
        if invalid:
            rec.fail([(p, p.error, None) for p in invalid])
        _run_todo(
            todo, len(todo) + len(invalid), jobs, metrics, keep_timeseries, scheduler, rec, bar
        )
        bar.close()
        ran = rec.done + len(rec.failed)
        if rec.failed:
            _report_failures(rec.failed)
    finally:
        store.close()
    df = _collect(points, results_dir)
    df.attrs["ccsim_ran"] = ran
    return df


def _checked(points, jobs: int | None, metrics, scheduler) -> tuple[list[Point], int]:
    """The points as a list and the number of worker processes, checked (a local run's
    ``metrics`` must be importable by the workers)."""
    if isinstance(points, Sweep):
        points = points.points()
    points = list(points)
    if any(not isinstance(p, Point) for p in points):
        raise SweepError("run_sweep takes Point objects: use expand(...) or Sweep(...)")
    if scheduler is None and metrics is not None:
        check_importable(metrics)
    if jobs is None:
        jobs = os.cpu_count() or 1
    if jobs < 1:
        raise SweepError(f"jobs must be >= 1, got {jobs}")
    return points, jobs


def _done(store, points: list[Point]) -> set[tuple[str, str]]:
    """The (experiment, point id) of the points already done in ``store``; done points
    with missing or damaged files are forgotten (to be computed again), with a note."""
    done: set[tuple[str, str]] = set()
    for exp in sorted({p.experiment for p in points}):
        ids = store.done_ids(exp) & {p.point_id for p in points if p.experiment == exp}
        damaged = store.damaged_points(exp, ids)
        if damaged:
            store.forget_points(exp, sorted(damaged))
            pid, why = next(iter(sorted(damaged.items())))
            print(
                f"sweep: {len(damaged)} done point(s) of {exp!r} have missing or damaged "
                f"files and will be computed again (e.g. {pid}: {why})",
                file=sys.stderr,
                flush=True,
            )
        done.update((exp, pid) for pid in ids - set(damaged))
    return done


def _todo(store, points: list[Point]):
    """The points to run (not done, duplicates dropped), those whose scenario is invalid
    (recorded as failed without a run), and the keys of both."""
    done = _done(store, points)
    todo: list[Point] = []
    invalid: list[Point] = []
    seen: set[tuple[str, str]] = set()
    for p in points:
        key = (p.experiment, p.point_id)
        if key in done or key in seen:
            continue
        seen.add(key)
        (invalid if p.error else todo).append(p)
    return todo, invalid, seen


def _run_todo(todo, pending: int, jobs, metrics, keep_timeseries, scheduler, rec, bar) -> None:
    """Runs ``todo`` on the Dask ``scheduler`` or in ``jobs`` local processes, ``rec``
    recording each outcome. On Ctrl-C (or the store's query interrupted) it says how many
    of the ``pending`` points finished and raises KeyboardInterrupt."""
    try:
        if todo and scheduler is not None:
            run_dask(todo, scheduler, metrics, keep_timeseries, rec)
        elif todo:
            run_local(todo, jobs, metrics, keep_timeseries, rec)
    except (KeyboardInterrupt, Exception) as e:
        if not isinstance(e, KeyboardInterrupt) and not _interrupted_query(e):
            raise
        bar.close()
        left = pending - rec.done - len(rec.failed)
        print(
            f"sweep interrupted: {rec.done} points finished this run and are kept; "
            f"{left} not run. Run the sweep again to resume.",
            file=sys.stderr,
            flush=True,
        )
        if isinstance(e, KeyboardInterrupt):
            raise
        raise KeyboardInterrupt from e


def _report_failures(failed) -> None:
    """The failed points on stderr (the first 20, each with its error's first line)."""
    lines = [f"sweep: {len(failed)} point(s) failed (see the 'failures' table):"]
    for p, err in failed[:20]:
        first = (err or "").strip().splitlines()[0] if err else ""
        lines.append(f"  {p.point_id} {canonical_json(p.params)}: {first}")
    if len(failed) > 20:
        lines.append(f"  ... and {len(failed) - 20} more")
    print("\n".join(lines), file=sys.stderr, flush=True)


def _collect(points: list[Point], results_dir) -> pd.DataFrame:
    reader = ResultsStore(results_dir)
    exps = sorted({p.experiment for p in points})
    marks = ", ".join("?" for _ in exps)
    with_clause = f" WHERE experiment IN ({marks})" if exps else ""
    wide = reader.sql(f"SELECT * FROM metrics_wide{with_clause}", exps)
    names = reader.sql(f"SELECT DISTINCT name FROM metrics{with_clause}", exps)["name"]
    fails = reader.sql(f"SELECT experiment, point_id, error FROM failures{with_clause}", exps)
    engines = reader.sql(f"SELECT experiment, point_id, engine FROM points{with_clause}", exps)
    engine_of = {(e, pid): eng for e, pid, eng in engines.itertuples(index=False)}
    params: list[str] = []
    for p in points:
        for k in p.params:
            if k not in params and k not in ("experiment", "point_id", "seed"):
                params.append(k)
    metric_cols = [
        c
        for c in wide.columns
        if c not in ("experiment", "point_id", "seed")
        and c not in params
        and (c in set(names) or c.removeprefix("metric.") in set(names))
    ]
    by_key = {(r.experiment, r.point_id): r for r in wide.itertuples(index=False)}
    col_pos = {c: i for i, c in enumerate(wide.columns)}
    errors = {(e, pid): err for e, pid, err in fails.itertuples(index=False)}
    rows = []
    for p in points:
        key = (p.experiment, p.point_id)
        row = {"experiment": p.experiment, "point_id": p.point_id, "seed": p.seed}
        for k in params:
            row[k] = _scalar(p.params.get(k))
        hit = by_key.get(key)
        if hit is not None:
            row["status"], row["error"] = "done", None
        elif key in errors:
            row["status"], row["error"] = "failed", errors[key]
        else:
            row["status"], row["error"] = "not run", None
        row["engine"] = engine_of.get(key)
        for c in metric_cols:
            row[c] = hit[col_pos[c]] if hit is not None else None
        rows.append(row)
    cols = ["experiment", "point_id", "seed", *params, "status", "error", "engine", *metric_cols]
    df = pd.DataFrame(rows, columns=cols)
    for c in metric_cols:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    df.attrs["ccsim_params"] = params
    df.attrs["ccsim_metrics"] = metric_cols
    return df


# --------------------------------------------------------------------------- statistics


def aggregate(
    df: pd.DataFrame,
    by: Sequence[str] | str | None = None,
    metrics: Sequence[str] | str | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Mean and Student-t confidence half-width of metrics over replications.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per run, e.g. from :func:`run_sweep` or ``open_results(d).metrics``.
    by : str or list of str, optional
        Columns that identify a configuration (default: the sweep parameters,
        ``df.attrs["ccsim_params"]``, without ``seed``).
    metrics : str or list of str, optional
        Metric columns (default: ``df.attrs["ccsim_metrics"]``).
    level : float
        Two-sided confidence level.

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, then for each metric ``<m>_mean``, ``<m>_half_width`` (NaN
        with fewer than two values) and ``<m>_n`` (non-missing values). Rows of
        ``status`` other than ``"done"`` are ignored.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"buf": [10, 10, 10, 20], "util": [0.8, 0.9, 1.0, 0.95]})
    >>> out = aggregate(df, by="buf", metrics="util", level=0.95)
    >>> out[["buf", "util_mean", "util_n"]].round(3).values.tolist()
    [[10.0, 0.9, 3.0], [20.0, 0.95, 1.0]]
    >>> round(float(out["util_half_width"][0]), 4)
    0.2484
    """
    if isinstance(by, str):
        by = [by]
    if isinstance(metrics, str):
        metrics = [metrics]
    if by is None:
        by = [c for c in df.attrs.get("ccsim_params", []) if c != "seed"]
    if metrics is None:
        metrics = list(df.attrs.get("ccsim_metrics", []))
        if not metrics:
            raise ValueError("aggregate: name the metric columns (metrics=[...])")
    missing = [c for c in [*by, *metrics] if c not in df.columns]
    if missing:
        raise KeyError(f"aggregate: no such column(s) {missing}; have {list(df.columns)}")
    if "status" in df.columns:
        df = df[df["status"] == "done"]
    rows = []
    identical = []
    groups = df.groupby(list(by), sort=True, dropna=False) if by else [((), df)]
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key))
        for m in metrics:
            values = pd.to_numeric(group[m], errors="coerce").dropna().astype(float).tolist()
            if len(values) > 1 and len(set(values)) == 1:
                identical.append(m)
            if values:
                mean, hw = confidence_interval(values, level)
            else:
                mean, hw = math.nan, math.nan
            row[f"{m}_mean"] = mean
            row[f"{m}_half_width"] = hw
            row[f"{m}_n"] = len(values)
        rows.append(row)
    if identical:
        warnings.warn(
            f"aggregate: replications gave identical values of {', '.join(sorted(set(identical)))}"
            ": the scenario draws nothing at random (give flows random start times, "
            'start = {uniform = ["0s", "1s"]}, or access delays), so the confidence '
            "intervals of 0 say nothing",
            IdenticalReplicationsWarning,
            stacklevel=2,
        )
    return pd.DataFrame(rows)


class IdenticalReplicationsWarning(UserWarning):
    """Replications of a configuration gave the same values: nothing in it is random."""
