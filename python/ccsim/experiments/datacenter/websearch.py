"""Short-flow FCT slowdown under the web-search workload at 30-70 % load: DCTCP against
TCP and CUBIC (``ccsim reproduce dc-websearch``).

Source: Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §4.3 (the benchmark
built from the measured web-search traffic, §2.2, and its scaled version: DCTCP's short
messages and queries complete much faster than TCP's, in the mean and far more in the
tail, because DCTCP keeps the switch queues near K where TCP's long flows fill the
buffers, and the difference grows as the traffic is scaled up). The slowdown measure is
that of the later data-centre papers (pFabric §5, HPCC §5.1: the FCT over the FCT of
the same flow alone on the idle network, :mod:`ccsim.fct`).

The setup: a k = 4 fat-tree (16 hosts, full bisection, ECMP per flow), 1-Gb/s links of
5 µs, every port with a static 100-packet buffer (DCTCP: step marking at K = 20);
connections between random host pairs as a Poisson process with sizes from the
web-search distribution (DCTCP §2.2, Fig. 4), at an offered load of 30 % to 70 % of the
hosts' capacity. TCP is NewReno with SACK, CUBIC is RFC 9438's, DCTCP RFC 8257's (g =
1/16); every transport with an initial window of 10 and RTOmin = 10 ms (the DCTCP
paper lowers RTOmin to 10 ms for both TCP and DCTCP in its benchmark). Short flows are
those under 100 KB (the paper's "short messages" and "queries" are under 1 MB and a few
KB; pFabric's small flows are under 100 KB).

Expectations, each checked at every load: DCTCP's short-flow p99 slowdown well below
TCP's and CUBIC's (at most half: "much lower" read as a factor of two), its mean
slowdown lower, the ordering significant against the sampling error over seeds and
connections (bootstrap), and TCP's excess over DCTCP growing with load.
"""

from __future__ import annotations

import math
from pathlib import Path

from ccsim.experiments.framework import Check, Data, Experiment, Run, save_figure

from .common import RATE, by_size, fat_tree_hosts, loads, measured_slowdowns, queue, transport

K_TREE = 4
CCS = ["dctcp", "tcp", "cubic"]
LOADS_QUICK = [0.3, 0.7]
LOADS_FULL = [0.3, 0.4, 0.5, 0.6, 0.7]
SHORT = 100_000
#: Size buckets of the by-size figure (bytes; ccsim.fct's defaults).
BUCKETS = (0, 10_000, 100_000, 1_000_000, 10_000_000, math.inf)
BOOTSTRAP = 200


def scenario(cc: str, load: float, duration: float, seed: int) -> dict:
    """Web-search connections at ``load`` on a k = 4 fat-tree, all of transport ``cc``;
    arrivals stop at 3/4 of the run so that the long ones can finish."""
    link = {"rate": RATE, "delay": "5us", "queue": queue(cc)}
    hosts = fat_tree_hosts(K_TREE)
    return {
        "name": f"websearch-{cc}-{load:g}",
        "seed": seed,
        "duration": f"{duration}s",
        "topology": {"kind": "fat_tree", "k": K_TREE, "host_link": link, "fabric_link": link},
        "flows": [],
        "workloads": [
            {
                "name": "web",
                "sources": hosts,
                "destinations": hosts,
                "load": load,
                "size": {"dist": "empirical", "cdf": "web_search"},
                "stop": f"{0.75 * duration}s",
                "transport": {"kind": "tcp", **transport(cc, "10ms", 10)},
            }
        ],
    }


def runs(quick: bool) -> list[Run]:
    levels, seeds, duration = (
        (LOADS_QUICK, [1, 2], 2.0) if quick else (LOADS_FULL, [1, 2, 3, 4], 5.0)
    )
    return [
        Run({"cc": cc, "load": load, "seed_": s}, scenario(cc, load, duration, s))
        for cc in CCS
        for load in levels
        for s in seeds
    ]


def _bootstrap_se(x, stat, rng) -> float:
    import numpy as np

    if len(x) < 2:
        return float("nan")
    draws = [stat(rng.choice(x, len(x))) for _ in range(BOOTSTRAP)]
    return float(np.std(draws, ddof=1))


def metrics(r) -> dict:
    """Slowdowns of the connections that arrived after the first tenth of the run
    (the fabric filled): short flows' mean and p99 with bootstrap standard errors, and
    the mean and p99 of every size bucket."""
    import numpy as np

    from ccsim import fct

    s = measured_slowdowns(r)
    short = s[s["size_bytes"] < SHORT]
    done = short["slowdown"].dropna().to_numpy()
    rng = np.random.default_rng(0)
    p99 = lambda x: float(np.quantile(x, 0.99))  # noqa: E731
    m = {
        "short_count": float(len(done)),
        "short_unfinished": float(short["slowdown"].isna().sum()),
        "short_timeouts": float(short["timeouts"].sum()),
        "short_mean": float(done.mean()) if len(done) else math.nan,
        "short_mean_se": _bootstrap_se(done, np.mean, rng),
        "short_p99": p99(done) if len(done) else math.nan,
        "short_p99_se": _bootstrap_se(done, p99, rng),
        "all_unfinished": float(s["slowdown"].isna().sum()),
    }
    for b, row in fct.by_size(s, BUCKETS).iterrows():
        m[f"b{b}_count"] = float(row["connections"])
        m[f"b{b}_mean"] = float(row["mean"])
        m[f"b{b}_p99"] = float(row["p99"])
    return m


def _stat(d: Data, cc: str, load: float, what: str) -> tuple[float, float]:
    """Mean over the seeds of ``short_<what>`` and its standard error: the larger of
    the seeds' spread (σ/√n) and the runs' bootstrap errors combined."""
    rows = d.rows(cc=cc, load=load)
    vals = rows[f"short_{what}"].dropna()
    ses = rows[f"short_{what}_se"].dropna()
    n = len(vals)
    between = float(vals.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    within = math.sqrt(float((ses**2).sum())) / n if n else math.nan
    return float(vals.mean()), max(between, within)


def _ratio(d: Data, other: str, what: str) -> float:
    """The largest over loads of DCTCP's short-flow ``what`` over ``other``'s."""
    return max(_stat(d, "dctcp", x, what)[0] / _stat(d, other, x, what)[0] for x in loads(d))


def _z_lower(d: Data, other: str) -> float:
    """The smallest over loads of (other's p99 − DCTCP's p99) / its standard error."""
    zs = []
    for x in loads(d):
        (a, sa), (b, sb) = _stat(d, other, x, "p99"), _stat(d, "dctcp", x, "p99")
        zs.append((a - b) / math.hypot(sa, sb))
    return min(zs)


def _z_growth(d: Data) -> float:
    """(TCP's p99 excess over DCTCP's at the highest load − at the lowest) / its SE."""
    lo, hi = loads(d)[0], loads(d)[-1]
    parts = [
        _stat(d, cc, x, "p99") for cc, x in (("tcp", hi), ("dctcp", hi), ("tcp", lo), ("dctcp", lo))
    ]
    gap = (parts[0][0] - parts[1][0]) - (parts[2][0] - parts[3][0])
    return gap / math.sqrt(sum(se**2 for _, se in parts))


def _table_line(d: Data) -> str:
    cells = []
    for x in loads(d):
        cells.append(
            f"load {x:g}: "
            + ", ".join(
                f"{cc} p99 {_stat(d, cc, x, 'p99')[0]:.1f} ± {_stat(d, cc, x, 'p99')[1]:.1f}, "
                f"mean {_stat(d, cc, x, 'mean')[0]:.2f}"
                for cc in CCS
            )
        )
    return "Short-flow slowdowns (mean over seeds ± SE): " + "; ".join(cells) + "."


CHECKS = [
    Check(
        "DCTCP's short-flow p99 slowdown over TCP's, largest over the loads",
        "much lower at every load (DCTCP §4.3, benchmark and scaled benchmark)",
        lambda d: _ratio(d, "tcp", "p99"),
        0.0,
        0.5,
        "≤ 0.5",
        "{:.3f}",
        why=_table_line,
    ),
    Check(
        "DCTCP's short-flow p99 slowdown over CUBIC's, largest over the loads",
        "much lower at every load (DCTCP §4.3: TCP's queue build-up, CUBIC fills buffers alike)",
        lambda d: _ratio(d, "cubic", "p99"),
        0.0,
        0.5,
        "≤ 0.5",
        "{:.3f}",
        why=_table_line,
    ),
    Check(
        "DCTCP's short-flow mean slowdown over TCP's, largest over the loads",
        "lower at every load (DCTCP §4.3)",
        lambda d: _ratio(d, "tcp", "mean"),
        0.0,
        0.7,
        "≤ 0.7",
        "{:.3f}",
        why=_table_line,
    ),
    Check(
        "TCP's p99 above DCTCP's, in standard errors (smallest over loads)",
        "a real difference, not sampling noise (seeds and bootstrap over connections)",
        lambda d: _z_lower(d, "tcp"),
        3.0,
        float("inf"),
        "≥ 3 SE",
        "{:.1f}",
        why=_table_line,
    ),
    Check(
        "TCP's p99 excess over DCTCP's grows from the lowest load to the highest (in SE)",
        "the gap grows with load (DCTCP §4.3, the scaled benchmark)",
        _z_growth,
        2.0,
        float("inf"),
        "≥ 2 SE",
        "{:.1f}",
        why=_table_line,
    ),
]


def plot(d: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    from ccsim import fct

    names = {"dctcp": "DCTCP", "tcp": "TCP (NewReno + SACK)", "cubic": "CUBIC"}
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    xs = loads(d)
    for cc, label in names.items():
        for ax, what in zip(axes, ("p99", "mean")):
            st = [_stat(d, cc, x, what) for x in xs]
            ax.errorbar(
                [x * 100 for x in xs],
                [m for m, _ in st],
                [2 * s for _, s in st],
                marker="o",
                ms=3,
                capsize=2,
                label=label,
            )
    for ax, what in zip(axes, ("p99", "mean")):
        ax.set_xlabel("load (% of host capacity)")
        ax.set_ylabel(f"short flows (<100 KB): {what} slowdown")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    paths = save_figure(fig, outdir, "websearch_short_slowdown")
    hi = xs[-1]
    for q in ("p99", "mean"):
        tables = {label: by_size(d, BUCKETS, q, cc=cc, load=hi) for cc, label in names.items()}
        fig = fct.plot(tables, quantile=q)
        fig.axes[0].set_yscale("log")
        fig.axes[0].set_title(
            f"web search at {hi:.0%} load: slowdown by flow size ({q})", fontsize=9
        )
        paths += save_figure(fig, outdir, f"websearch_by_size_{q}")
    return paths


def findings(d: Data) -> list[str]:
    out = [_table_line(d)]
    unf = d.table.groupby(["cc", "load"])["short_unfinished"].sum()
    if unf.sum():
        out.append(
            f"Short flows unfinished at the end (left out of the slowdowns): {unf[unf > 0].to_dict()}."
        )
    out.append(
        "Short flows' retransmission timeouts per run (mean): "
        + ", ".join(
            f"{cc} at {x:g}: {d.one('short_timeouts', cc=cc, load=x):.0f}"
            for cc in CCS
            for x in loads(d)
        )
        + "."
    )
    return out


EXPERIMENT = Experiment(
    name="dc-websearch",
    title="Web-search FCT slowdown at 30-70 % load: DCTCP against TCP and CUBIC",
    paper="Alizadeh et al., Data Center TCP (DCTCP), SIGCOMM 2010, §2.2 and §4.3",
    runs=runs,
    metrics=metrics,
    checks=CHECKS,
    plot=plot,
    findings=findings,
    notes=[
        "Quick: loads 30 % and 70 %, two seeds, 2-s runs; full: 30-70 % in steps of 10 %, "
        "four seeds, 5-s runs. Arrivals stop at 3/4 of the run; connections arriving in "
        "the first tenth are left out (the fabric filling up).",
        "The ideal FCT of each connection is measured alone on the idle fabric (ccsim.fct), "
        "so slowdown 1 is the best the transport can do, slow start included.",
        "A k = 4 fat-tree with 1-Gb/s ports and 100-packet buffers stands for the paper's "
        "racks; the DCTCP paper's benchmark ran on a real cluster with a shared-memory "
        "switch, so the numbers are ccsim's; the checks are the paper's orderings.",
    ],
)
