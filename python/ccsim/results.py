"""Results of one run: tables as pandas DataFrames, a summary dict, Parquet I/O.

A saved results directory holds ``summary.json``, ``scenario.json``, ``flows.parquet``,
``queues.parquet``, ``ts_<name>.parquet``, ``trace.parquet`` (with ``[trace]``), the
capture files (``[[capture]]``: ``*.pcap``/``*.pcapng``, ``hosts``), the ns-2 text trace
(``*.tr``) and ``manifest.json``, which lists every file of the run with its size and
SHA-256 (plus a run id and the engine fingerprint).
:meth:`Results.save` writes a new directory beside the target and renames it into
place, so a directory always holds the files of one run; :meth:`Results.load` reads
only the files the manifest lists and verifies each.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim import plots
from ccsim.checksums import digest, read_checked
from ccsim.engine import fingerprint
from ccsim.errors import CorruptResultError
from ccsim.report import results_html

if TYPE_CHECKING:  # pandas is imported when first needed: `ccsim --help` stays instant
    import pandas as pd

__all__ = ["MANIFEST", "Results", "check_output_dir"]

MANIFEST = "manifest.json"
_FORMAT = "ccsim-results"
# What Results.save wrote before manifests existed.
_LEGACY = re.compile(r"(summary|scenario)\.json|(flows|queues|ts_[A-Za-z0-9_.-]+)\.parquet")
# Table files of a run; any other file a manifest lists is a result file (capture, ns-2 trace).
_TABLES = re.compile(
    r"(summary|scenario)\.json|(flows|queues|trace|connections|workloads|ts_[A-Za-z0-9_.-]+)\.parquet"
)
_LEGACY_CORE = {"summary.json", "scenario.json", "flows.parquet", "queues.parquet"}


def _manifest(d: Path) -> dict | None:
    try:
        m = json.loads((d / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    ok = isinstance(m, dict) and m.get("format") == _FORMAT and isinstance(m.get("files"), dict)
    return m if ok else None


def check_output_dir(directory: str | os.PathLike, force: bool = False) -> str:
    """How :meth:`Results.save` may write into ``directory``, or why it may not.

    Returns ``"new"`` (missing or empty), ``"replace"`` (it holds the files of an
    earlier ccsim run and nothing else) or ``"merge"`` (it holds other files too and
    ``force`` is set: ccsim's files are replaced, the others left alone).

    Raises
    ------
    FileExistsError
        ``directory`` is a file or a symbolic link, or holds files ccsim did not write
        and ``force`` is not set.
    """
    d = Path(directory)
    if d.is_symlink():
        raise FileExistsError(f"{d} is a symbolic link; give the directory itself")
    if not d.exists():
        parent = d.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir():
            raise FileExistsError(f"{parent} is a file, not a directory")
        return "new"
    if not d.is_dir():
        raise FileExistsError(f"{d} is a file, not a directory")
    entries = sorted(e.name for e in d.iterdir())
    if not entries:
        return "new"
    m = _manifest(d)
    if m:
        ours = set(m["files"]) | {MANIFEST}
    elif _LEGACY_CORE <= set(entries):  # saved before manifests existed
        ours = {e for e in entries if _LEGACY.fullmatch(e)}
    else:
        ours = set()
    others = [e for e in entries if e not in ours or (d / e).is_symlink() or (d / e).is_dir()]
    if not others:
        return "replace"
    if force:
        return "merge"
    shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
    raise FileExistsError(
        f"{d} holds files that are not the results of one ccsim run ({shown}); "
        "write to a new or empty directory, or use --force (force=True) to add the "
        "results beside them"
    )


def _frame(cols: dict) -> pd.DataFrame:
    """A DataFrame of a table as the engine returns it: ``{column: (dtype, payload)}``."""
    import numpy as np
    import pandas as pd

    data = {}
    for name, (dtype, payload) in cols.items():
        if dtype == "str":
            data[name] = pd.Series(payload, dtype=str)  # also when empty, as read back
        elif dtype == "cat":
            codes, labels = payload
            codes = np.frombuffer(codes, dtype="<u4").astype(np.int32)
            data[name] = pd.Categorical.from_codes(codes, categories=labels)
        else:
            data[name] = np.frombuffer(payload, dtype=dtype)
    return pd.DataFrame(data)


def _read_parquet(data: bytes) -> pd.DataFrame:
    """A DataFrame of a saved table; the columns the engine's writer lists as
    categorical (``ccsim.categorical``) come back as pandas categoricals."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(io.BytesIO(data)).metadata or {}
    cats = json.loads(meta.get(b"ccsim.categorical", b"[]"))
    return pq.read_table(io.BytesIO(data), read_dictionary=cats or None).to_pandas()


def _engine_columns(df: pd.DataFrame) -> dict | None:
    """``df`` in the engine's column form, or None if a column has a type the engine's
    tables never have (then pyarrow writes it)."""
    import pandas as pd

    cols = {}
    for name in df.columns:
        s = df[name]
        if not isinstance(name, str):
            return None
        if isinstance(s.dtype, pd.CategoricalDtype):
            labels = list(s.cat.categories)
            codes = s.cat.codes.to_numpy()
            if (codes < 0).any() or not all(isinstance(x, str) for x in labels):
                return None
            cols[name] = ("cat", (codes.astype("<u4").tobytes(), labels))
        elif s.dtype in ("float64", "int64"):
            cols[name] = (s.dtype.str, s.to_numpy().astype(s.dtype.str).tobytes())
        else:
            values = s.tolist()
            if not all(isinstance(x, str) for x in values) or not (
                pd.api.types.is_string_dtype(s.dtype) or s.dtype == object
            ):
                return None
            cols[name] = ("str", values)
    return cols


def _values(table, name: str) -> list:
    """The values of column ``name`` of a table in any of its forms, as a list
    (what the command line's summary reads without building DataFrames)."""
    if isinstance(table, dict):
        dtype, payload = table[name]
        if dtype == "str":
            return list(payload)
        if dtype == "cat":
            codes, labels = payload
            return [labels[c] for c in memoryview(codes).cast("I")]
        return memoryview(payload).cast({"<f8": "d", "<i8": "q"}[dtype]).tolist()
    return table[name].tolist()


# Tables every run has (the others exist only for some runs).
_ALWAYS = ("flows", "queues")


class Results:
    """Results of one run.

    The tables are built as pandas DataFrames when first read (``r.flows``): until
    then they are kept as the engine returned them (or as their saved Parquet
    bytes), so a run whose tables are only saved, as ``ccsim run --out`` does,
    never imports pandas. :meth:`save` writes the engine's columns to Parquet
    without pandas or pyarrow (:func:`ccsim._ccsim.parquet`).

    Attributes
    ----------
    scenario : dict
        The fully resolved scenario (every default filled in).
    summary : dict
        Run facts: seed, duration, events, packet counts, wall time and CPU time
        of the run (``wall_s``, ``cpu_s``: building, simulating, collecting), speed.
    flows : pandas.DataFrame
        One row per flow: bytes sent/delivered, goodput over the measurement
        window, retransmissions, timeouts, completion time, final cwnd, RTTs.
    queues : pandas.DataFrame
        One row per link direction (``"R1->R2"``): arrivals, drops by reason,
        marks, utilization, mean and maximum backlog, over the measurement
        window (``warmup`` to ``duration``).
    timeseries : dict of str to pandas.DataFrame
        ``"queue"``, ``"flow"``, ``"component"`` samples when ``[monitor]`` has
        an interval; empty otherwise.
    connections : pandas.DataFrame
        One row per connection of the ``[[workloads]]`` (empty without them):
        start, size, first byte and last byte at the receiver, last ACK at the
        sender, response time (last ACK − start; NaN if unfinished),
        retransmissions, timeouts.
    workloads : pandas.DataFrame
        One row per arrival process: requested and realised arrival rate, mean
        size and offered load (empty without workloads).
    collectives : pandas.DataFrame
        One row per ``[[collectives]]`` all-reduce: its completion time from its
        flows (empty without them).
    trace : pandas.DataFrame or None
        One row per packet event on the traced links (``[trace]``), else None.
    files : dict of str to bytes
        Result files by name: packet captures (``[[capture]]``, with a ``hosts``
        file naming their addresses) and the ns-2 text trace. :meth:`save` writes
        them into the results directory.
    """

    def __init__(
        self,
        scenario: dict,
        summary: dict,
        flows: pd.DataFrame,
        queues: pd.DataFrame,
        timeseries: dict[str, pd.DataFrame],
        connections: pd.DataFrame | None = None,
        workloads: pd.DataFrame | None = None,
        trace: pd.DataFrame | None = None,
        files: dict[str, bytes] | None = None,
    ):
        tables = {"flows": flows, "queues": queues, "connections": connections}
        tables |= {"workloads": workloads, "trace": trace}
        tables |= {f"ts_{k}": v for k, v in timeseries.items()}
        self._init(scenario, summary, tables, files)

    def _init(self, scenario: dict, summary: dict, tables: dict, files) -> None:
        self.scenario = scenario
        self.summary = summary
        # name -> the engine's columns (dict), Parquet bytes, or a DataFrame
        self._tables = {k: v for k, v in tables.items() if v is not None}
        self.files = dict(files or {})

    @classmethod
    def _of(cls, scenario: dict, summary: dict, tables: dict, files=None) -> Results:
        r = cls.__new__(cls)
        r._init(scenario, summary, tables, files)
        return r

    def _frame(self, name: str) -> pd.DataFrame | None:
        t = self._tables.get(name)
        if not isinstance(t, (dict, bytes)):
            return t  # a DataFrame, or None
        df = _frame(t) if isinstance(t, dict) else _read_parquet(t)
        self._tables[name] = df
        return df

    def _empty(self, name: str) -> pd.DataFrame:
        df = self._frame(name)
        if df is None:
            import pandas as pd

            df = pd.DataFrame()
        return df

    flows = property(
        lambda self: self._frame("flows"),
        lambda self, df: self._tables.__setitem__("flows", df),
        doc="One row per flow (see the class docstring).",
    )
    queues = property(
        lambda self: self._frame("queues"),
        lambda self, df: self._tables.__setitem__("queues", df),
        doc="One row per link direction (see the class docstring).",
    )
    connections = property(
        lambda self: self._empty("connections"),
        lambda self, df: self._tables.__setitem__("connections", df),
        doc="One row per workload connection; empty without workloads.",
    )
    workloads = property(
        lambda self: self._empty("workloads"),
        lambda self, df: self._tables.__setitem__("workloads", df),
        doc="One row per arrival process; empty without workloads.",
    )

    @property
    def collectives(self) -> pd.DataFrame:
        """One row per ``[[collectives]]`` entry (empty without them), from its flows
        (``<name>/<step>/<host>``): ``collective``, ``algorithm``, ``hosts``,
        ``size_bytes`` (each host's buffer), ``start_s``, ``completion_s`` (its last
        flow's completion; NaN unless every flow completed), ``duration_s`` and
        ``flows_completed`` of ``flows``."""
        import pandas as pd

        from ccsim.extend import parse_size, parse_time

        rows = []
        f = self.flows
        for c in self.scenario.get("collectives", []):
            mine = f[f["name"].str.startswith(c["name"] + "/")]
            done = mine["completion_s"].notna()
            start = parse_time(c["start"]) / 1e9
            end = mine["completion_s"].max() if done.all() and len(mine) else float("nan")
            rows.append(
                {
                    "collective": c["name"],
                    "algorithm": c["algorithm"],
                    "hosts": int((mine["name"].str.split("/").str[1] == "0").sum()),
                    "size_bytes": parse_size(c["size"]),
                    "start_s": start,
                    "completion_s": end,
                    "duration_s": end - start,
                    "flows": len(mine),
                    "flows_completed": int(done.sum()),
                }
            )
        return pd.DataFrame(rows)

    trace = property(
        lambda self: self._frame("trace"),
        lambda self, df: self._tables.__setitem__("trace", df),
        doc="One row per packet event on the traced links, or None.",
    )

    @property
    def timeseries(self) -> dict[str, pd.DataFrame]:
        """Time series by name (``"queue"``, ``"flow"``, ``"component"``)."""
        ts = getattr(self, "_timeseries", None)
        if ts is None:
            names = sorted(k for k in self._tables if k.startswith("ts_"))
            ts = self._timeseries = {k.removeprefix("ts_"): self._frame(k) for k in names}
        return ts

    @timeseries.setter
    def timeseries(self, ts: dict[str, pd.DataFrame]) -> None:
        self._timeseries = dict(ts)

    def _current_tables(self) -> dict:
        """Every table by file stem, in its current form (the timeseries dict, once
        handed out, is the one that counts)."""
        tables = {k: v for k, v in self._tables.items() if v is not None}
        ts = getattr(self, "_timeseries", None)
        if ts is not None:
            tables = {k: v for k, v in tables.items() if not k.startswith("ts_")}
            tables |= {f"ts_{k}": v for k, v in ts.items()}
        return tables

    def column(self, table: str, name: str) -> list:
        """The values of column ``name`` of ``table`` (``"flows"``, ``"queues"``,
        ``"connections"``, ``"workloads"``, ``"trace"`` or ``"ts_<name>"``) as a
        list, without building a DataFrame (an absent table has no rows).

        Raises
        ------
        KeyError
            The table exists but has no such column.
        """
        t = self._current_tables().get(table)
        if t is None:
            return []
        if isinstance(t, bytes):
            t = self._frame(table)
        if name not in t:
            raise KeyError(f"{table} has no column {name!r}")
        return _values(t, name)

    @classmethod
    def _from_native(cls, raw: dict, wall_s: float, cpu_s: float = float("nan")) -> Results:
        summary = json.loads(raw["summary"])
        scenario = json.loads(raw["resolved"])
        tables = dict(raw["tables"])
        flows = tables["flows"]
        data_pkts = int(
            sum(_values(flows, "packets_sent"))
        )  # the engine's flows table has every column
        summary["wall_s"] = wall_s
        summary["cpu_s"] = cpu_s
        summary["events_per_s"] = summary["events"] / wall_s if wall_s > 0 else float("nan")
        summary["sim_s_per_wall_s"] = summary["duration_s"] / wall_s if wall_s > 0 else float("nan")
        summary["data_packets_sent"] = data_pkts
        return cls._of(scenario, summary, tables, dict(raw.get("files", {})))

    def queue(self, name: str) -> pd.Series:
        """The row of ``queues`` for one link direction, e.g. ``"R1->R2"``."""
        q = self.queues.set_index("queue")
        if name not in q.index:  # (pandas is loaded: self.queues is a DataFrame)
            raise KeyError(f"no queue {name!r}; queues: {', '.join(q.index[:10])}")
        return q.loc[name]

    def save(self, directory: str | Path, force: bool = False) -> Path:
        """Write ``flows.parquet``, ``queues.parquet``, ``ts_<name>.parquet``,
        ``connections.parquet`` and ``workloads.parquet`` (runs with workloads),
        ``summary.json``, ``scenario.json`` and ``manifest.json`` into ``directory``.

        The files are written into a new directory beside it, which is then renamed
        into place (replacing the results of an earlier run), so the directory never
        mixes two runs and never receives half a run. A directory holding files ccsim
        did not write is refused unless ``force`` (then ccsim's files are replaced
        one by one and the others left alone). Symbolic links are never followed.

        Raises
        ------
        FileExistsError
            See :func:`check_output_dir`.
        """
        d = Path(directory)
        mode = check_output_dir(d, force)
        tables = self._current_tables()
        files: dict[str, bytes] = {
            **{
                f"{name}.parquet": _parquet(name, t)
                for name, t in tables.items()
                if name in _ALWAYS or len(t if isinstance(t, (dict, bytes)) else t.columns)
            },
            **self.files,
            "summary.json": json.dumps(self.summary, indent=2, default=_jsonable).encode(),
            "scenario.json": json.dumps(self.scenario, indent=2).encode(),
        }
        manifest = {
            "format": _FORMAT,
            "version": 1,
            "run_id": uuid.uuid4().hex,
            "engine": fingerprint(),
            "files": {n: {"bytes": len(b), "sha256": digest(b)} for n, b in files.items()},
        }
        files[MANIFEST] = json.dumps(manifest, indent=2).encode()
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = d.parent / f".{d.name}.tmp-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            for name, data in files.items():  # the manifest last
                with open(tmp / name, "xb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            if mode == "new":
                if d.exists():
                    d.rmdir()  # empty (checked); rename cannot replace it portably
                os.rename(tmp, d)
            elif mode == "replace":
                old = d.parent / f".{d.name}.old-{uuid.uuid4().hex[:8]}"
                os.rename(d, old)
                os.rename(tmp, d)
                shutil.rmtree(old, ignore_errors=True)  # only files of the earlier run
            else:  # merge: replace ccsim's files one by one, manifest last
                earlier = _manifest(d)
                (d / MANIFEST).unlink(missing_ok=True)
                for name in set(earlier["files"] if earlier else ()) - set(files):
                    (d / name).unlink(missing_ok=True)
                for name in files:
                    os.replace(tmp / name, d / name)  # replaces a symlink, never follows it
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return d

    @classmethod
    def load(cls, directory: str | Path) -> Results:
        """Read results written by :meth:`save`.

        Only the files listed in ``manifest.json`` are read, each verified against its
        recorded size and SHA-256, so what is returned is one run's, whole.

        Raises
        ------
        ccsim.store.CorruptResultError
            A file is missing or differs from what was written.
        FileNotFoundError
            ``directory`` holds no saved results.
        """
        d = Path(directory)
        m = _manifest(d)
        if m is None:
            if (d / MANIFEST).exists():
                raise CorruptResultError(f"{d / MANIFEST} is not a ccsim results manifest")
            if not (d / "summary.json").exists():
                raise FileNotFoundError(f"{d}: no saved ccsim results (no {MANIFEST})")
            return cls._load_unchecked(d)  # saved before manifests existed
        data = {}
        for name, meta in m["files"].items():
            raw, why = read_checked(d / name, meta.get("bytes"), meta.get("sha256"))
            if why:
                raise CorruptResultError(
                    f"{d / name} is {why}; this directory does not hold run {m.get('run_id')} whole"
                )
            data[name] = raw
        tables = {
            n.removesuffix(".parquet"): b
            for n, b in data.items()
            if n.endswith(".parquet") and _TABLES.fullmatch(n)
        }
        return cls._of(
            json.loads(data["scenario.json"]),
            json.loads(data["summary.json"]),
            tables,
            {n: b for n, b in data.items() if not _TABLES.fullmatch(n)},
        )

    @classmethod
    def _load_unchecked(cls, d: Path) -> Results:
        tables = {
            p.stem: p.read_bytes() for p in sorted(d.glob("*.parquet")) if _TABLES.fullmatch(p.name)
        }
        return cls._of(
            json.loads((d / "scenario.json").read_text()),
            json.loads((d / "summary.json").read_text()),
            tables,
        )

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<ccsim.Results {s.get('flows')} flows, {s.get('links')} links, "
            f"{s.get('duration_s', float('nan')):g} s simulated in "
            f"{s.get('wall_s', float('nan')):.3f} s>"
        )

    def _repr_html_(self) -> str:
        """Jupyter: the run's facts, then the flows and queues tables."""
        return results_html(self)

    def plot(self, what=None, fmt: str = "png", out: str | Path | None = None):
        """Plot the run: queue length, cwnd/ssthresh, throughput and RTT per flow over
        time, drops and marks per queue (the panels its data allows).

        With ``out``, also write one file per panel (``<out>/<panel>.<fmt>``, PNG or
        SVG) and return their paths; else return the matplotlib figure. See
        :mod:`ccsim.plots`.
        """
        if out is not None:
            return plots.save(self, out, fmt=fmt, what=what)
        return plots.figure(self, what=what)


def _parquet(name: str, table) -> bytes:
    """Table ``name`` as Parquet bytes: the engine's columns (or a DataFrame of the
    same four column types) by the engine's writer, so that a run's files are the
    same bytes whether or not its DataFrames were built; saved bytes as they were; a
    DataFrame holding other types by pyarrow."""
    if isinstance(table, bytes):
        return table
    cols = table if isinstance(table, dict) else _engine_columns(table)
    if cols is not None:
        from ccsim import _ccsim

        return _ccsim.parquet(name, cols)
    buf = io.BytesIO()
    table.to_parquet(buf, index=False)
    return buf.getvalue()


def _jsonable(o: Any) -> Any:
    import numpy as np

    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    raise TypeError(f"not JSON serializable: {type(o).__name__}")
