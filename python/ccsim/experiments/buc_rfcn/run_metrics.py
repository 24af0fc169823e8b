"""What the sweep workers measure in one run of the BUC + RFCN experiments: the
per-conversation queues and their convergence (experiment 1, paper §5) and the
comparison's throughput, queue and fairness numbers (experiment 2, paper §6).

Source: Ziegler & Clausen, IEEE IPCCC 1997; the metrics' formulas are lost with the
paper's tables and reconstructed in docs/models/buc-rfcn.md (decision A14).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ccsim import theory

from .scenarios import MSS, PKT, PORT2, TBU

if TYPE_CHECKING:  # pandas is imported where first used: the CLI starts fast
    import pandas as pd


def _log(r) -> pd.DataFrame:
    return r.timeseries["component_events"]


def queue_steps(events: pd.DataFrame, flow: str) -> tuple[np.ndarray, np.ndarray]:
    """(times, values) of a conversation's forward queue, recorded on every change."""
    d = events[(events["name"] == "queue") & (events["flow"] == flow)]
    return d["time_s"].to_numpy(), d["value"].to_numpy()


def at_times(t: np.ndarray, v: np.ndarray, grid: np.ndarray, before: float = 0.0) -> np.ndarray:
    """A step function recorded at changes, read at ``grid`` (``before`` the first)."""
    i = np.searchsorted(t, grid, side="right") - 1
    return np.where(i >= 0, v[np.maximum(i, 0)], before)


GRID_STEP = 0.001  # s: finer than the 4 ms service time of a packet at 2 Mbps


def _queues(events: pd.DataFrame, duration: float) -> tuple[np.ndarray, dict]:
    grid = np.arange(0.0, duration, GRID_STEP)
    flows = sorted(f for f in events["flow"].unique() if f)
    return grid, {f: at_times(*queue_steps(events, f), grid) for f in flows}


def convergence_metrics(r) -> dict:
    ev = _log(r)
    duration = float(r.summary["duration_s"])
    grid, q = _queues(ev, duration)
    total = sum(q.values())
    starts = sorted(float(x) for x in r.flows["start_s"])
    joins = [*starts, duration]

    def mean(x, a, b):
        m = (grid >= a) & (grid < b)
        return float(x[m].mean())

    tql = ev[ev["name"] == "tql"]
    m = {
        "drops": float(r.queues["drops"].sum()),
        "data_drops": float(r.summary["components"]["G"]["stats"]["data_drops"]),
        "tql_changes": float(len(tql)),
    }
    for k, t0 in enumerate(starts):
        after = tql[tql["time_s"] >= t0]
        m[f"tql_{k + 1}"] = float(after["value"].iloc[0]) if len(after) else math.nan
        m[f"tql_{k + 1}_at_s"] = float(after["time_s"].iloc[0]) if len(after) else math.nan
    win = ev[ev["name"] == "window"]
    alone = (win["flow"] == "ftp1") & (win["time_s"] < starts[1])
    m["buc_windows_ftp1_alone"] = float(alone.sum())
    m["q1_alone"] = mean(q["ftp1"], starts[1] - 5, starts[1])
    m["tql_at_join_max_s"] = max(m[f"tql_{k + 1}_at_s"] - t for k, t in enumerate(starts))
    # Settled phases: from 5 s (10 s) after the join (±3 after ≈ 2-5 s: docs/models/buc-rfcn.md,
    # "Expected results and tolerances").
    for n, (a, b) in ((2, (starts[1] + 5, starts[2])), (3, (starts[2] + 10, duration))):
        active = [f"ftp{i + 1}" for i in range(n)]
        means = [mean(q[f], a, b) for f in active]
        for f, v in zip(active, means):
            m[f"q{n}_{f}"] = v
        m[f"q{n}_max_dev"] = max(abs(v - TBU / n) for v in means)
        m[f"q{n}_max_dev_any"] = float(
            max(np.abs(q[f][(grid >= a) & (grid < b)] - TBU / n).max() for f in active)
        )
        m[f"sum{n}"] = mean(total, a, b)
        w = win[(win["time_s"] >= a) & (win["time_s"] < b)]
        m[f"w{n}_mean"] = float(w["value"].mean()) if len(w) else math.nan
    for k in (1, 2):
        t0, t1 = joins[k], joins[k + 1]
        n = k + 1
        newcomer = q[f"ftp{n}"]
        ph = (grid >= t0) & (grid < t1)
        off = np.zeros(len(grid), dtype=bool)
        for i in range(n):
            off |= np.abs(q[f"ftp{i + 1}"] - TBU / n) > 3
        bad = grid[ph & off]
        # From the join until every queue stays within TQL ± 3 for the rest of the phase.
        m[f"conv_{n}_s"] = float(bad[-1] + GRID_STEP - t0) if len(bad) else 0.0
        if len(bad) and bad[-1] > t1 - 1.0:
            m[f"conv_{n}_s"] = math.inf  # never settled
        spike = (grid >= t0) & (grid < t0 + 3)
        m[f"spike_{n}"] = float(newcomer[spike].max())
        m[f"sum_spike_{n}"] = float(total[spike].max())
    epochs = ev[ev["name"] == "epoch"]
    m["epochs"] = float(len(epochs))
    return m


def comparison_metrics(r) -> dict:
    flows = r.flows
    duration = float(r.summary["duration_s"])
    tp = flows["bytes_delivered"].to_numpy() / MSS  # in-order packets delivered (goodput)
    mean = tp.mean()
    q = r.queue(PORT2)
    ts = r.timeseries["queue"]
    ts = ts[ts["queue"] == PORT2]
    late = ts[ts["time_s"] >= 10.0]["packets"].to_numpy()
    # FIFO fill episodes: samples at the full buffer after one below 290 packets.
    full = late >= 299
    fills = int(np.sum(full[1:] & ~full[:-1])) + int(full[:1].sum())
    m = {
        "sum_tp": float(tp.sum()),
        "lutil": float(tp.sum() * PKT * 8 / (2e6 * duration)),
        "busy": float(q["utilization"]),
        "md": theory.mean_deviation(tp),
        "md_norm": theory.mean_deviation(tp, normalized=True),
        "jain": theory.jain_index(tp),
        "min_share": float(tp.min() / mean),
        "max_share": float(tp.max() / mean),
        "drops": float(q["drops"]),
        "marks": float(q["marks"]),
        "retransmits": float(flows["retransmits"].sum()),
        "mean_queue": float(late.mean()),
        "max_queue": float(q["max_len_pkts"]),
        "fills": float(fills),
    }
    for i, v in enumerate(tp):
        m[f"tp_{i + 1}"] = float(v)
    comps = r.summary.get("components") or {}
    if "G1" in comps:
        st = comps["G1"]["stats"]
        m["last_drop_s"] = float(st["last_drop_s"]) if st["last_drop_s"] is not None else 0.0
    return m
