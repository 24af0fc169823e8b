"""What a worker does with one sweep point: run it, compute its metrics, and
return what the parent stores (see :mod:`ccsim.recorder`).

These functions run in worker processes (local or Dask), so they must stay
importable by module name.
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Mapping
from typing import Any

import pandas as pd

from .api import run
from .engine import fingerprint
from .store import jsonable

__all__ = ["default_metrics", "failure", "run_point"]


def _flatten(obj: Any, prefix: str, out: dict) -> None:
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    else:
        out[prefix] = obj


def default_metrics(results) -> dict[str, float]:
    """The numeric entries of ``results.summary``, nested keys joined with dots.

    ``seed`` is left out (it is a column of its own).

    Parameters
    ----------
    results : ccsim.Results

    Returns
    -------
    dict
        Metric name -> float.
    """
    flat: dict[str, Any] = {}
    _flatten(results.summary or {}, "", flat)
    out = {}
    for k, v in flat.items():
        if k == "seed":
            continue
        if hasattr(v, "item") and getattr(v, "ndim", 0) == 0:
            v = v.item()
        if isinstance(v, (bool, int, float)) and math.isfinite(float(v)):
            out[k] = float(v)
    return out


def _metric_values(raw: Any) -> dict[str, float | None]:
    if not isinstance(raw, Mapping):
        raise TypeError(f"the metrics function must return a dict, got {type(raw).__name__}")
    flat: dict[str, Any] = {}
    _flatten(raw, "", flat)
    out: dict[str, float | None] = {}
    for k, v in flat.items():
        if v is None:
            out[k] = None
            continue
        if hasattr(v, "item") and getattr(v, "ndim", 0) == 0:
            v = v.item()
        if not isinstance(v, (bool, int, float)):
            raise TypeError(f"metric {k!r} is not a number: {v!r}")
        fv = float(v)
        out[k] = fv if not math.isnan(fv) else None
    return out


def _select_timeseries(results, keep) -> dict[str, pd.DataFrame]:
    if not keep:
        return {}
    ts = getattr(results, "timeseries", None) or {}
    if keep is True:
        return dict(ts)
    names = [keep] if isinstance(keep, str) else list(keep)
    return {n: ts[n] for n in names if n in ts}


def _arrow(df: Any) -> Any:
    """A DataFrame as a pyarrow Table (cheaper to pickle and to insert into DuckDB)."""
    if df is None:
        return None
    import pyarrow as pa

    if isinstance(df, pa.Table):
        return df
    return pa.Table.from_pandas(pd.DataFrame(df), preserve_index=False)


def run_point(scenario: dict, metrics=None, keep_timeseries=False) -> dict:
    """Worker entry point: run one scenario, return what the parent stores.

    Never raises for a failing run: the error is returned, so that exceptions that do
    not pickle cannot break the pool.
    """
    t0 = time.perf_counter()
    try:
        results = run(scenario)
        wall = time.perf_counter() - t0
        values = _metric_values(metrics(results) if metrics else default_metrics(results))
        ts = _select_timeseries(results, keep_timeseries)
        return {
            "ok": True,
            "engine": fingerprint(),
            "wall_s": wall,
            "summary": jsonable(getattr(results, "summary", None)),
            "metrics": values,
            "flows": _arrow(getattr(results, "flows", None)),
            "queues": _arrow(getattr(results, "queues", None)),
            "timeseries": {name: _arrow(df) for name, df in ts.items()},
        }
    except Exception as exc:  # noqa: BLE001 - reported as the point's failure
        return {**failure(exc, traceback.format_exc()), "wall_s": time.perf_counter() - t0}


def failure(exc: BaseException, tb: str | None = None) -> dict:
    """The outcome of a point that failed (its run raised, or its task or result could
    not cross between processes): what the recorder stores in ``failures``."""
    return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": tb}
