"""Flow completion time (FCT) and FCT slowdown of a workload's connections, the measure of
data-centre transport studies (Alizadeh et al., "pFabric", SIGCOMM 2013, §5: FCT
normalized to the best possible FCT of the flow's size; Li et al., "HPCC", SIGCOMM 2019,
§5.1; Kumar et al., "Swift", SIGCOMM 2020, §5).

The slowdown of a connection is its FCT (arrival to the ACK of its last byte at the
sender, ``response_time_s``) over the FCT the same transfer has **alone on the idle
network**: the same source, destination, size and transport, computed exactly by running
it, not by a formula (a formula would have to know the transport's slow start, delayed
ACKs, pacing and every hop's store-and-forward). :func:`ideal` runs the connections one
after another in one simulation of the same topology, each starting after the one before
has completed, and checks that none overlapped (re-running with wider gaps where one
did), so each sees the network as its own. On a fabric whose equal-cost paths have equal
rates and delays (fat-trees, leaf-spines) the path ECMP picks does not change the result;
on a graph whose equal-cost paths differ in delay it may.

:func:`by_size` summarizes slowdowns by size bucket (mean, p50, p95, p99, the figure every
data-centre paper shows); :func:`plot` draws it.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd

#: Connections per solo simulation (each solo flow's state is allocated for the run).
CHUNK = 2000

#: Default size buckets (bytes), as pFabric and HPCC report small, medium and large flows.
BUCKETS = (0, 10_000, 100_000, 1_000_000, 10_000_000, math.inf)


def _solo_scenario(scenario: dict, conns: pd.DataFrame, gaps: np.ndarray) -> dict:
    """The scenario's topology with one flow per connection, each started ``gaps`` after
    the previous one (the first at 0), and no workloads."""
    transports = {
        w.get("name", f"w{i}"): w["transport"] for i, w in enumerate(scenario["workloads"])
    }
    starts = np.concatenate([[0.0], np.cumsum(gaps[:-1])])
    flows = []
    for (_, c), start in zip(conns.iterrows(), starts):
        f = copy.deepcopy(transports[c["workload"]])
        f.update(
            name=f"solo{c['conn']}",
            src=c["src"],
            dst=c["dst"],
            size=f"{int(c['size_bytes'])}B",
            start=f"{start:.9f}s",
        )
        flows.append(f)
    sc = {
        k: v
        for k, v in scenario.items()
        if k not in ("workloads", "flows", "monitor", "trace", "capture")
    }
    sc["flows"] = flows
    sc["warmup"] = "0s"
    sc["duration"] = f"{float(starts[-1] + gaps[-1]):.9f}s"
    return sc


def _first_gaps(conns: pd.DataFrame) -> np.ndarray:
    """A first guess of each solo run's length: twice the connection's own FCT in the
    loaded run (an idle network is not slower) or, if it did not complete, 10 ms plus
    its size at 1 Gb/s."""
    own = conns["response_time_s"].to_numpy(dtype=float)
    guess = 0.01 + conns["size_bytes"].to_numpy(dtype=float) * 8 / 1e9
    return np.where(np.isfinite(own), 2 * own + 1e-4, guess)


def ideal(result, max_rounds: int = 6) -> pd.Series:
    """The FCT (s) of each connection of ``result`` (a :class:`ccsim.Results` of a run
    with workloads) alone on the idle network, indexed like ``result.connections``.
    Raises ``RuntimeError`` if a connection cannot complete alone."""
    import ccsim

    conns = result.connections
    out = pd.Series(np.nan, index=conns.index, name="ideal_fct_s")
    for lo in range(0, len(conns), CHUNK):
        part = conns.iloc[lo : lo + CHUNK]
        gaps = _first_gaps(part)
        for _ in range(max_rounds):
            r = ccsim.run(_solo_scenario(result.scenario, part, gaps))
            f = r.flows
            fct = f["fct_s"].to_numpy(dtype=float)
            starts = f["start_s"].to_numpy(dtype=float)
            done = np.isfinite(fct)
            # each must complete before the next one starts (an idle network for each)
            overlap = np.zeros(len(part), bool)
            overlap[:-1] = ~done[:-1] | (
                starts[:-1] + np.where(done, fct, np.inf)[:-1] >= starts[1:]
            )
            overlap[-1] = not done[-1]
            if not overlap.any():
                out.iloc[lo : lo + len(part)] = fct
                break
            gaps = np.where(overlap, gaps * 4, gaps)
        else:
            raise RuntimeError(
                f"connections {part['conn'][overlap].tolist()[:5]} did not complete alone "
                f"within {max_rounds} widenings of their solo window"
            )
    return out


def slowdown(result) -> pd.DataFrame:
    """``result.connections`` with ``fct_s`` (the response time), ``ideal_fct_s``
    (:func:`ideal`) and ``slowdown`` (their ratio, ≥ 1 up to rounding; NaN for a
    connection that did not complete in the run)."""
    c = result.connections.copy()
    c["fct_s"] = c["response_time_s"]
    c["ideal_fct_s"] = ideal(result)
    c["slowdown"] = c["fct_s"] / c["ideal_fct_s"]
    return c


def by_size(df: pd.DataFrame, buckets=BUCKETS) -> pd.DataFrame:
    """Slowdown by size bucket (``df`` from :func:`slowdown`): per bucket of
    ``size_bytes`` in [low, high), the completed connections' count and the mean, p50,
    p95 and p99 of their slowdown."""
    done = df[np.isfinite(df["slowdown"])]
    rows = []
    for low, high in zip(buckets[:-1], buckets[1:]):
        s = done[(done["size_bytes"] >= low) & (done["size_bytes"] < high)]["slowdown"]
        rows.append(
            {
                "size_low_bytes": low,
                "size_high_bytes": high,
                "connections": len(s),
                "mean": s.mean() if len(s) else math.nan,
                "p50": s.quantile(0.5) if len(s) else math.nan,
                "p95": s.quantile(0.95) if len(s) else math.nan,
                "p99": s.quantile(0.99) if len(s) else math.nan,
            }
        )
    return pd.DataFrame(rows)


def plot(tables: dict[str, pd.DataFrame], out=None, quantile: str = "p99"):
    """Slowdown by size bucket for several runs (``tables``: label → :func:`by_size`),
    bars of ``quantile`` per bucket; saved to ``out`` if given. Returns the figure."""
    from ccsim.plots import _mpl

    plt = _mpl()
    fig, ax = plt.subplots(figsize=(7, 3.5))
    first = next(iter(tables.values()))
    labels = [
        _bucket_label(lo, hi) for lo, hi in zip(first["size_low_bytes"], first["size_high_bytes"])
    ]
    width = 0.8 / max(1, len(tables))
    for k, (name, t) in enumerate(tables.items()):
        x = np.arange(len(t)) + k * width
        ax.bar(x, t[quantile], width, label=name)
    ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2, labels)
    ax.set_xlabel("flow size")
    ax.set_ylabel(f"FCT slowdown ({quantile})")
    ax.legend()
    fig.tight_layout()
    if out is not None:
        fig.savefig(out)
    return fig


def _bucket_label(low: float, high: float) -> str:
    def size(b: float) -> str:
        for unit, f in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
            if b >= f:
                return f"{b / f:g}{unit}"
        return f"{b:g}B"

    return f"≥{size(low)}" if math.isinf(high) else f"{size(low)}–{size(high)}"
