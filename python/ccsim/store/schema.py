"""What a results directory holds: its file layout, the DuckDB tables (``SCHEMA``) and
the ``metrics_wide`` view over them, and how values are written into the JSON columns
(:func:`jsonable`, :func:`dumps`). :mod:`ccsim.store` describes the tables; the writer
(:mod:`ccsim.store.writer`) and the readers (:mod:`ccsim.store.queries`) build on this.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "BASE_WIDE_COLUMNS",
    "DB_NAME",
    "FORMAT",
    "LOCK_NAME",
    "SCHEMA",
    "SCHEMA_VERSION",
    "TIMESERIES_DIR",
    "TMP_MARK",
    "dumps",
    "jsonable",
    "safe_name",
    "wide_view_sql",
]

DB_NAME = "ccsim.duckdb"
TIMESERIES_DIR = "timeseries"
LOCK_NAME = ".writer.lock"
SCHEMA_VERSION = "2"
FORMAT = "ccsim-results"
TMP_MARK = ".tmp-"

SCHEMA = [
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

BASE_WIDE_COLUMNS = ("experiment", "point_id", "seed")


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


def safe_name(name: str) -> str:
    safe = "".join(c if (c.isalnum() or c in "-_.") else "_" for c in str(name))
    return safe.lstrip(".") or "_"


def ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def json_pointer(key: str) -> str:
    return "/" + str(key).replace("~", "~0").replace("/", "~1")


def value_type(value: Any) -> str | None:
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


def merge_type(old: str | None, new: str | None) -> str | None:
    if old is None or old == new:
        return new or old
    if new is None:
        return old
    if {old, new} == {"BIGINT", "DOUBLE"}:
        return "DOUBLE"
    return "VARCHAR"


def wide_view_sql(param_types: Mapping[str, str | None], metric_names: Iterable[str]) -> str:
    """``CREATE OR REPLACE VIEW metrics_wide``: ``experiment, point_id, seed``, a column
    per parameter (typed by ``param_types``, read from the ``params`` JSON) and one per
    metric (a metric named like a parameter becomes ``metric.<name>``)."""
    used = set(BASE_WIDE_COLUMNS)
    cols = ["p.experiment", "p.point_id", "p.seed"]
    for key, typ in param_types.items():
        if key in used:
            continue
        used.add(key)
        ptr = literal(json_pointer(key))
        if typ == "JSON":
            expr = f"json_extract(p.params, {ptr})"
        elif typ in (None, "VARCHAR"):
            expr = f"json_extract_string(p.params, {ptr})"
        else:
            expr = f"TRY_CAST(json_extract_string(p.params, {ptr}) AS {typ})"
        cols.append(f"{expr} AS {ident(key)}")
    pivots = []
    for name in metric_names:
        col = name if name not in used else f"metric.{name}"
        used.add(col)
        pivots.append(f"max(value) FILTER (WHERE name = {literal(name)}) AS {ident(col)}")
        cols.append(f"m.{ident(col)}")
    sql = f"CREATE OR REPLACE VIEW metrics_wide AS SELECT {', '.join(cols)} FROM points p"
    if pivots:
        sql += (
            f" LEFT JOIN (SELECT experiment, point_id, {', '.join(pivots)} FROM metrics "
            "GROUP BY experiment, point_id) m "
            "ON p.experiment = m.experiment AND p.point_id = m.point_id"
        )
    return sql
