"""Sweeps described in a TOML file (``ccsim sweep SWEEP.toml``), and metrics by name.

A sweep file names what :class:`ccsim.sweep.Sweep` takes, plus the metrics to keep::

    experiment = "buffer-sizing"
    base = "dumbbell.toml"          # a scenario file, relative to this file; or a [base] table
    replications = 5
    zip = [["flows.0.cc", "flows.0.mss"]]          # optional: axes that vary together
    metrics = ["queues[R1->R2].utilization", "queues[R1->R2].drops",
               "flows.goodput_bps:sum", "summary.events"]

    [axes]
    "topology.bottleneck.queue.limit" = ["0.25bdp", "0.5bdp", "1bdp"]
    "flows.0.cc" = ["reno", "newreno"]

A metric is ``TABLE.COLUMN`` of a run's results:

* ``summary.KEY`` (dotted for nested entries): a number of ``Results.summary``;
* ``queues[NAME].COLUMN``, ``flows[NAME].COLUMN``, ``workloads[NAME].COLUMN``: the
  row whose name (``queue``, ``name`` or ``workload`` column) is NAME;
* ``queues.COLUMN:AGG``, ``flows.COLUMN:AGG``, ...: ``sum``, ``mean``, ``min``,
  ``max`` or ``count`` over the rows.

Without ``metrics`` every number of the summary is kept. :func:`read` checks every key
and metric and raises :class:`SweepFileError` naming the key, the value and what is
accepted.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from pathlib import Path
from typing import Any

from ccsim.errors import SweepError
from ccsim.sweep import Sweep

#: Tables a metric may read, and the column that names their rows.
TABLES = {"flows": "name", "queues": "queue", "workloads": "workload", "connections": "name"}
AGGREGATES = ("sum", "mean", "min", "max", "count")
KEYS = ("experiment", "base", "axes", "zip", "replications", "metrics")

_METRIC = re.compile(
    r"^(?:summary\.(?P<key>[A-Za-z0-9_.]+)"
    r"|(?P<table>[a-z]+)(?:\[(?P<row>[^\]]+)\])?\.(?P<col>[A-Za-z0-9_]+)(?::(?P<agg>[a-z]+))?)$"
)


class SweepFileError(SweepError):
    """A sweep file that cannot be used; the message names the key, value and fix."""


@dataclasses.dataclass(frozen=True)
class Metric:
    """One named metric (see the module docstring for the syntax)."""

    name: str
    table: str  # "summary" or a key of TABLES
    column: str  # the summary key, or the table's column
    row: str | None = None
    agg: str | None = None

    @classmethod
    def parse(cls, text: str) -> Metric:
        m = _METRIC.match(text.strip()) if isinstance(text, str) else None
        accepted = (
            "summary.KEY, TABLE[NAME].COLUMN or TABLE.COLUMN:AGG with TABLE one of "
            f"{', '.join(TABLES)} and AGG one of {', '.join(AGGREGATES)}"
        )
        if m is None:
            raise SweepFileError(f"metrics: got {text!r}, expected {accepted}")
        if m["key"]:
            return cls(text, "summary", m["key"])
        table, row, agg = m["table"], m["row"], m["agg"]
        if table not in TABLES:
            raise SweepFileError(f"metrics: got {text!r}: no table {table!r}; expected {accepted}")
        if (row is None) == (agg is None):
            raise SweepFileError(
                f"metrics: got {text!r}: name one row ({table}[NAME].{m['col']}) or "
                f"aggregate the rows ({table}.{m['col']}:sum), not "
                + ("both" if row else "neither")
            )
        if agg is not None and agg not in AGGREGATES:
            raise SweepFileError(
                f"metrics: got {text!r}: no aggregate {agg!r}; expected one of "
                f"{', '.join(AGGREGATES)}"
            )
        return cls(text, table, m["col"], row, agg)

    def value(self, results) -> float:
        """This metric of one run's ``ccsim.Results`` (NaN where the row is absent)."""
        if self.table == "summary":
            v: Any = results.summary or {}
            for part in self.column.split("."):
                v = v.get(part) if isinstance(v, dict) else None
            return float(v) if isinstance(v, (int, float)) else math.nan
        df = getattr(results, self.table)
        if self.column not in df.columns:
            raise KeyError(
                f"metric {self.name!r}: the {self.table} table has no column {self.column!r}; "
                f"columns: {', '.join(map(str, df.columns))}"
            )
        if self.row is not None:
            rows = df[df[TABLES[self.table]] == self.row]
            if rows.empty:
                names = ", ".join(map(str, df[TABLES[self.table]].head(20)))
                raise KeyError(
                    f"metric {self.name!r}: no {self.table} row named {self.row!r}; rows: {names}"
                )
            return float(rows[self.column].iloc[0])
        col = df[self.column]
        return float(len(col) if self.agg == "count" else getattr(col, self.agg)())


@dataclasses.dataclass(frozen=True)
class NamedMetrics:
    """A picklable ``metrics(results)`` for :func:`ccsim.sweep.run_sweep` that keeps the
    named metrics (it runs in the workers)."""

    metrics: tuple[Metric, ...]

    def __call__(self, results) -> dict[str, float]:
        return {m.name: m.value(results) for m in self.metrics}


@dataclasses.dataclass
class SweepFile:
    """A read sweep file: the sweep, the metrics to keep (None: the summary's)."""

    path: Path
    sweep: Sweep
    metrics: NamedMetrics | None


def read(path: str | Path) -> SweepFile:
    """Read and check a sweep file (see the module docstring)."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise SweepFileError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepFileError(f"{path}: not valid TOML ({e})") from None
    unknown = [k for k in doc if k not in KEYS]
    if unknown:
        raise SweepFileError(f"{unknown[0]}: unknown key in a sweep file; keys: {', '.join(KEYS)}")
    base = doc.get("base")
    if isinstance(base, str):
        bp = (path.parent / base).resolve()
        if not bp.exists():
            raise SweepFileError(f"base: got {base!r}: no scenario file {bp}")
        base = bp  # read by the sweep, as any scenario file
    elif not isinstance(base, dict):
        raise SweepFileError(f"base: got {base!r}, expected a scenario file name or a [base] table")
    axes = doc.get("axes", {})
    if not isinstance(axes, dict) or not all(isinstance(v, list) and v for v in axes.values()):
        raise SweepFileError(
            f"axes: got {axes!r}, expected a table of key path = [non-empty list of values]"
        )
    zip_ = doc.get("zip", [])
    if not (isinstance(zip_, list) and all(isinstance(g, list) for g in zip_)):
        raise SweepFileError(f"zip: got {zip_!r}, expected a list of lists of axis names")
    for g in zip_:
        for k in g:
            if k not in axes:
                raise SweepFileError(f"zip: got {k!r}, expected one of the axes: {', '.join(axes)}")
    reps = doc.get("replications", 1)
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise SweepFileError(f"replications: got {reps!r}, expected a positive integer")
    experiment = doc.get("experiment", path.stem)
    if not isinstance(experiment, str) or not experiment:
        raise SweepFileError(f"experiment: got {experiment!r}, expected a non-empty name")
    names = doc.get("metrics")
    metrics = None
    if names is not None:
        if not isinstance(names, list) or not names:
            raise SweepFileError(f"metrics: got {names!r}, expected a list of metric names")
        metrics = NamedMetrics(tuple(Metric.parse(n) for n in names))
    sweep = Sweep(base, axes=axes, zip=zip_, replications=reps, experiment=experiment)
    return SweepFile(path, sweep, metrics)
