"""Parameter sweeps: a base scenario times axes, run in parallel, stored, resumable.

A sweep expands a base scenario with *axes* (dotted key path -> list of values;
cartesian product, optionally with *zip* groups whose keys vary together) and
*replications* (seeds ``base_seed + i``). Each resulting :class:`Point` is identified by

    ``point_id = sha256(canonical_json(ccsim.resolve(scenario)) + ccsim.fingerprint())[:16]``

so the same fully resolved scenario always gets the same id, whatever way it was
written, and another engine (any change to the Rust or Python sources, see
:mod:`ccsim.engine`) gives other ids: its points are computed again, never reused. :func:`run_sweep` runs the points that are not yet in the results store in
local worker processes (or on a Dask cluster) and records each one as soon as it
finishes (see :mod:`ccsim.store`); a rerun skips what is done.

This module plans and drives a sweep; :mod:`ccsim.pool` runs the points (local
processes or Dask), :mod:`ccsim.worker` is what a worker does with one point and
:mod:`ccsim.recorder` stores the outcomes.

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

import copy
import hashlib
import itertools
import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .errors import SweepError  # defined there so the CLI imports it cheaply
from .pool import WORKER_DIED, check_importable, run_dask, run_local  # noqa: F401 (re-exported)
from .progress import ProgressBar
from .recorder import Recorder
from .store import Store, dumps
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
DEFAULT_EXPERIMENT = "default"


# --------------------------------------------------------------------------- points


def canonical_json(obj: Any) -> str:
    """Canonical JSON text used for hashing: sorted keys, no whitespace, no NaN.

    Examples
    --------
    >>> canonical_json({"b": 1, "a": [1.5, "x"]})
    '{"a":[1.5,"x"],"b":1}'
    """
    return dumps(obj)


def _engine() -> str:
    import ccsim

    return ccsim.fingerprint()


def point_id(resolved: Mapping[str, Any], engine: str | None = None) -> str:
    """Id of a fully resolved scenario: 16 hex digits of a SHA-256.

    Parameters
    ----------
    resolved : dict
        The output of :func:`ccsim.resolve`.
    engine : str, optional
        The engine fingerprint to mix in (default: :func:`ccsim.fingerprint`), so that
        results of another engine are never taken for these.

    Returns
    -------
    str

    Examples
    --------
    >>> point_id({"seed": 1}, engine="0.1.0")
    'bcb430a1a5876c89'
    """
    if engine is None:
        engine = _engine()
    text = canonical_json(resolved) + engine
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Point:
    """One point of a sweep.

    Attributes
    ----------
    experiment : str
        Label shared by the points of one experiment in a store.
    point_id : str
        Hash of the resolved scenario and the engine fingerprint (see :func:`point_id`).
    params : dict
        The axis values of this point, by dotted key path.
    scenario : dict
        The scenario given to :func:`ccsim.run` (base with the axis values set).
    resolved : dict or None
        ``ccsim.resolve(scenario)``; ``None`` if the scenario is invalid.
    seed : int or None
        The point's random seed.
    error : str or None
        Why the scenario is invalid; such a point is recorded in ``failures`` without
        being run.
    """

    experiment: str
    point_id: str
    params: dict = field(compare=False)
    scenario: dict = field(compare=False, repr=False)
    resolved: dict | None = field(compare=False, repr=False)
    seed: int | None = None
    error: str | None = field(default=None, compare=False)


def _set_path(dct: dict, dotted: str, value: Any) -> None:
    from ccsim.scenario import set_path

    try:
        set_path(dct, dotted, value)
    except Exception as exc:
        raise SweepError(f"axis {dotted!r}: {exc}") from exc


def _load_base(base: Any) -> dict:
    from ccsim.scenario import load_scenario

    return load_scenario(base)


def make_point(
    scenario: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    experiment: str = DEFAULT_EXPERIMENT,
    engine: str | None = None,
) -> Point:
    """Resolve one scenario and make a :class:`Point` of it.

    Parameters
    ----------
    scenario : dict
        The scenario (as given to :func:`ccsim.run`).
    params : dict, optional
        The values that identify the point in result tables (axis values).
    experiment : str
        Experiment label.
    engine : str, optional
        Engine fingerprint for the id (default :func:`ccsim.fingerprint`).

    Returns
    -------
    Point
        If :func:`ccsim.resolve` rejects the scenario, ``point.error`` holds the message
        and the id is a hash of the unresolved scenario (so the point still has a
        stable identity in ``failures``).
    """
    import ccsim

    scenario = copy.deepcopy(dict(scenario))
    if engine is None:
        engine = _engine()
    try:
        resolved = ccsim.resolve(scenario)
        error = None
        pid = point_id(resolved, engine)
    except Exception as exc:  # noqa: BLE001 - any rejection makes an invalid point
        resolved = None
        error = f"{type(exc).__name__}: {exc}"
        pid = point_id({"unresolved": scenario}, engine)
    seed = (resolved or scenario).get("seed")
    return Point(
        experiment=experiment,
        point_id=pid,
        params=dict(params or {}),
        scenario=scenario,
        resolved=resolved,
        seed=seed if isinstance(seed, int) else None,
        error=error,
    )


def _dimensions(
    axes: Mapping[str, Sequence[Any]], zip_groups: Sequence[Sequence[str]]
) -> list[list[dict]]:
    """Each dimension is a list of {key: value} assignments."""
    group_of: dict[str, int] = {}
    for gi, group in enumerate(zip_groups):
        for key in group:
            if key not in axes:
                raise SweepError(f"zip group {list(group)} names {key!r}, which is not an axis")
            if key in group_of:
                raise SweepError(f"axis {key!r} is in more than one zip group")
            group_of[key] = gi
    dims: list[list[dict]] = []
    seen_groups: set[int] = set()
    for key, values in axes.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise SweepError(f"axis {key!r} must be a list of values, got {values!r}")
        if key not in group_of:
            dims.append([{key: v} for v in values])
            continue
        gi = group_of[key]
        if gi in seen_groups:
            continue
        seen_groups.add(gi)
        keys = list(zip_groups[gi])
        lists = [list(axes[k]) for k in keys]
        if len({len(v) for v in lists}) != 1:
            sizes = ", ".join(f"{k}: {len(v)}" for k, v in zip(keys, lists))
            raise SweepError(f"zipped axes must have equal lengths ({sizes})")
        dims.append([dict(zip(keys, vals)) for vals in zip(*lists)])
    return dims


def expand(
    base: Mapping[str, Any] | str | os.PathLike,
    axes: Mapping[str, Sequence[Any]] | None = None,
    *,
    zip: Sequence[Sequence[str]] = (),
    replications: int = 1,
    experiment: str = DEFAULT_EXPERIMENT,
) -> list[Point]:
    """Expand a base scenario into sweep points.

    Parameters
    ----------
    base : dict, path or ccsim.Scenario
        The base scenario, as a dict, a TOML file or a builder.
    axes : dict, optional
        Dotted key path -> list of values, e.g.
        ``{"topology.bottleneck.queue.limit": ["20pkt", "50pkt"]}``; list elements are
        addressed by index (``"flows.0.cc"`` or ``"flows[0].cc"``). Axes are combined
        as a cartesian product, in the order given (the last axis varies fastest).
    zip : list of list of str, optional
        Groups of axis keys that vary together instead of being crossed (their lists
        must have equal lengths), e.g. ``[["topology.bottleneck.rate",
        "topology.bottleneck.queue.limit"]]``.
    replications : int
        Number of independent runs per combination: replication ``i`` uses seed
        ``base_seed + i`` (``base_seed`` is the base scenario's ``seed``, or the default
        seed from :func:`ccsim.resolve`). Replications vary fastest.
    experiment : str
        Label stored with every point.

    Returns
    -------
    list of Point
    """
    import ccsim

    base_dict = _load_base(base)
    axes = dict(axes or {})
    if replications < 1:
        raise SweepError(f"replications must be >= 1, got {replications}")
    if "seed" in axes and replications > 1:
        raise SweepError("use either a 'seed' axis or replications > 1, not both")
    dims = _dimensions(axes, [list(g) for g in zip])
    engine = _engine()
    base_seed = base_dict.get("seed")
    if base_seed is None and replications > 1:
        try:
            base_seed = ccsim.resolve(base_dict).get("seed")
        except Exception:  # noqa: BLE001 - fall back to 0 if the base alone is incomplete
            base_seed = None
        if not isinstance(base_seed, int):
            base_seed = 0
    points = []
    for combo in itertools.product(*dims):
        params: dict[str, Any] = {}
        for assignment in combo:
            params.update(assignment)
        for rep in range(replications):
            scenario = copy.deepcopy(base_dict)
            for key, value in params.items():
                _set_path(scenario, key, copy.deepcopy(value))
            if replications > 1:
                scenario["seed"] = base_seed + rep
            points.append(make_point(scenario, params, experiment=experiment, engine=engine))
    return points


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
        for dim in _dimensions(self.axes, [list(g) for g in self.zip]):
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
    import ccsim

    engine = _engine()
    store = Store(results_dir).open_for_writing()
    ran = 0
    try:
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
        todo: list[Point] = []
        invalid: list[Point] = []
        seen: set[tuple[str, str]] = set()
        for p in points:
            key = (p.experiment, p.point_id)
            if key in done or key in seen:
                continue
            seen.add(key)
            (invalid if p.error else todo).append(p)
        bar = ProgressBar("sweep", total=len(todo) + len(invalid), enabled=progress)
        if progress and (len(points) - len(todo) - len(invalid)):
            bar.message(
                f"sweep: {len(seen)} of {len(points)} points to run "
                f"({len(points) - len(seen)} already done or duplicates) in {results_dir}"
            )
        rec = Recorder(store, ccsim.__version__, engine, bar)
        if invalid:
            rec.fail([(p, p.error, None) for p in invalid])
        try:
            if todo and scheduler is not None:
                run_dask(todo, scheduler, metrics, keep_timeseries, rec)
            elif todo:
                run_local(todo, jobs, metrics, keep_timeseries, rec)
        except KeyboardInterrupt:
            bar.close()
            left = len(todo) + len(invalid) - rec.done - len(rec.failed)
            print(
                f"sweep interrupted: {rec.done} points finished this run and are kept; "
                f"{left} not run. Run the sweep again to resume.",
                file=sys.stderr,
                flush=True,
            )
            raise
        bar.close()
        ran = rec.done + len(rec.failed)
        if rec.failed:
            lines = [f"sweep: {len(rec.failed)} point(s) failed (see the 'failures' table):"]
            for p, err in rec.failed[:20]:
                first = (err or "").strip().splitlines()[0] if err else ""
                lines.append(f"  {p.point_id} {canonical_json(p.params)}: {first}")
            if len(rec.failed) > 20:
                lines.append(f"  ... and {len(rec.failed) - 20} more")
            print("\n".join(lines), file=sys.stderr, flush=True)
    finally:
        store.close()
    df = _collect(points, results_dir)
    df.attrs["ccsim_ran"] = ran
    return df


def _collect(points: list[Point], results_dir) -> pd.DataFrame:
    from .store import ResultsStore

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
    from ccsim.theory import confidence_interval

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
        import warnings

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
