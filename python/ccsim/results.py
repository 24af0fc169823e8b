"""Results of one run: tables as pandas DataFrames, a summary dict, Parquet I/O."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Results"]


def _frame(cols: dict) -> pd.DataFrame:
    data = {}
    for name, (dtype, payload) in cols.items():
        if dtype == "str":
            data[name] = pd.Series(payload)
        else:
            data[name] = np.frombuffer(payload, dtype=dtype)
    return pd.DataFrame(data)


class Results:
    """Results of one run.

    Attributes
    ----------
    scenario : dict
        The fully resolved scenario (every default filled in).
    summary : dict
        Run facts: seed, duration, events, packet counts, wall time, speed.
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
    """

    def __init__(
        self,
        scenario: dict,
        summary: dict,
        flows: pd.DataFrame,
        queues: pd.DataFrame,
        timeseries: dict[str, pd.DataFrame],
    ):
        self.scenario = scenario
        self.summary = summary
        self.flows = flows
        self.queues = queues
        self.timeseries = timeseries

    @classmethod
    def _from_native(cls, raw: dict, wall_s: float) -> Results:
        summary = json.loads(raw["summary"])
        scenario = json.loads(raw["resolved"])
        tables = {k: _frame(v) for k, v in raw["tables"].items()}
        flows = tables.pop("flows")
        queues = tables.pop("queues")
        ts = {k.removeprefix("ts_"): v for k, v in tables.items()}
        data_pkts = int(flows["packets_sent"].sum()) if len(flows) else 0
        summary["wall_s"] = wall_s
        summary["events_per_s"] = summary["events"] / wall_s if wall_s > 0 else float("nan")
        summary["sim_s_per_wall_s"] = summary["duration_s"] / wall_s if wall_s > 0 else float("nan")
        summary["data_packets_sent"] = data_pkts
        return cls(scenario, summary, flows, queues, ts)

    def queue(self, name: str) -> pd.Series:
        """The row of ``queues`` for one link direction, e.g. ``"R1->R2"``."""
        q = self.queues.set_index("queue")
        if name not in q.index:
            raise KeyError(f"no queue {name!r}; queues: {', '.join(q.index[:10])}")
        return q.loc[name]

    def save(self, directory: str | Path) -> Path:
        """Write ``flows.parquet``, ``queues.parquet``, ``ts_<name>.parquet``,
        ``summary.json`` and ``scenario.json`` into ``directory``."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.flows.to_parquet(d / "flows.parquet", index=False)
        self.queues.to_parquet(d / "queues.parquet", index=False)
        for name, df in self.timeseries.items():
            df.to_parquet(d / f"ts_{name}.parquet", index=False)
        (d / "summary.json").write_text(json.dumps(self.summary, indent=2, default=_jsonable))
        (d / "scenario.json").write_text(json.dumps(self.scenario, indent=2))
        return d

    @classmethod
    def load(cls, directory: str | Path) -> Results:
        """Read results written by :meth:`save`."""
        d = Path(directory)
        ts = {
            p.stem.removeprefix("ts_"): pd.read_parquet(p) for p in sorted(d.glob("ts_*.parquet"))
        }
        return cls(
            json.loads((d / "scenario.json").read_text()),
            json.loads((d / "summary.json").read_text()),
            pd.read_parquet(d / "flows.parquet"),
            pd.read_parquet(d / "queues.parquet"),
            ts,
        )

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<ccsim.Results {s.get('flows')} flows, {s.get('links')} links, "
            f"{s.get('duration_s')} s simulated in {s.get('wall_s', float('nan')):.3f} s>"
        )


def _jsonable(o: Any) -> Any:
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    raise TypeError(f"not JSON serializable: {type(o).__name__}")
