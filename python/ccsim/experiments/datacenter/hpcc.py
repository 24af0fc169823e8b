"""Web-search FCT slowdown by flow size on a lossless fat-tree: HPCC against DCQCN,
TIMELY and DCTCP (``ccsim reproduce dc-hpcc``).

Source: Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, §5.1 (the
setup: a fat-tree, PFC, the web-search and Hadoop workloads at 30 % and 50 % load,
slowdown = FCT over the FCT alone on the idle network), §5.2-5.3 and Fig. 9/11 (HPCC's
short flows far faster than DCQCN's, TIMELY's and DCTCP's at the 95th and 99th
percentiles, because HPCC keeps the queues near empty; far fewer PFC pauses than DCQCN
and TIMELY). The models: docs/models/hpcc.md, dcqcn.md, timely.md, switch-buffers.md.

The setup: a k = 4 fat-tree (16 hosts, full bisection, ECMP per flow), every link
25 Gb/s with 1 µs of delay, every switch with a 1-MB shared buffer (the 32-MB switches of
HPCC §5.1 scaled down with the switch's capacity, here 4 ports of 25 Gb/s) and PFC
(lossless; dynamic XOFF). Connections between random host pairs as a Poisson process with
web-search sizes (DCTCP §2.2) at 30 % and 50 % of the hosts' capacity; arrivals stop at
3/4 of the run so the long ones can finish. HPCC with the paper's η = 0.95, maxStage = 5
and INT on every switch; DCQCN with ECN marking between Kmin = 100 KB and Kmax = 400 KB,
Pmax = 0.2, and DCTCP (RFC 8257, g = 1/16) with step marking at K = 50 packets
(≈ 75 KB): the values of the HPCC authors' ns-3 scripts at 25 Gb/s
(alibaba-edu/High-Precision-Congestion-Control, ``simulation/run.py``: Kmin = 100·bw/25 KB,
Kmax = 400·bw/25 KB, DCTCP's K = 30·bw/10 KB); TIMELY with its defaults
(docs/models/timely.md). DCTCP has an initial window of 10 and an RTO floor of 1 ms and
runs on the same PFC fabric. Short flows are those under 100 KB.

Expectations (HPCC Fig. 9, web search, without incast): HPCC's short-flow p99 slowdown
below DCQCN's, TIMELY's and DCTCP's at each load; HPCC sending no more PFC pauses than
DCQCN; and HPCC completing every connection that arrived.
"""

from __future__ import annotations

import math
from pathlib import Path

from ccsim.experiments.framework import Check, Data, Experiment, Run, save_figure

from .common import by_size, fat_tree_hosts, loads, measured_slowdowns

K_TREE = 4
RATE = "25Gbps"
BUFFER = "1MB"
CCS = ["hpcc", "dcqcn", "timely", "dctcp"]
NAMES = {"hpcc": "HPCC", "dcqcn": "DCQCN", "timely": "TIMELY", "dctcp": "DCTCP"}
LOADS = [0.3, 0.5]
SHORT = 100_000
#: Size buckets (bytes): ccsim.fct's, short flows are the first two.
BUCKETS = (0, 10_000, 100_000, 1_000_000, 10_000_000, math.inf)
QS = ("p50", "p95", "p99")


def _queue(cc: str) -> dict | None:
    """The ports' marking: DCQCN's RED-like Kmin/Kmax, DCTCP's step at K; HPCC and
    TIMELY read no ECN (the shared buffer and PFC hold the packets)."""
    if cc == "dcqcn":
        return {"kind": "kmin_kmax", "kmin": "100KB", "kmax": "400KB", "pmax": 0.2}
    if cc == "dctcp":
        return {"kind": "step", "threshold": 50, "non_ect": "pass"}
    return None


def _transport(cc: str) -> dict:
    if cc == "dctcp":
        return {
            "kind": "tcp",
            "cc": "dctcp",
            "sack": True,
            "ecn": True,
            "init_cwnd": 10,
            "min_rto": "1ms",
            "init_rto": "1ms",
        }
    return {"kind": "roce", "rate_control": cc}


def scenario(cc: str, load: float, duration: float, seed: int) -> dict:
    """Web-search connections at ``load`` on the lossless k = 4 fat-tree, all of ``cc``."""
    link: dict = {"rate": RATE, "delay": "1us"}
    if _queue(cc):
        link["queue"] = _queue(cc)
    switches: dict = {"buffer": BUFFER, "pfc": {}}
    if cc == "hpcc":
        switches["int"] = True
    hosts = fat_tree_hosts(K_TREE)
    return {
        "name": f"hpcc-{cc}-{load:g}",
        "seed": seed,
        "duration": f"{duration}s",
        "topology": {"kind": "fat_tree", "k": K_TREE, "host_link": link, "fabric_link": link},
        "switches": switches,
        "flows": [],
        "workloads": [
            {
                "name": "web",
                "sources": hosts,
                "destinations": hosts,
                "load": load,
                "size": {"dist": "empirical", "cdf": "web_search"},
                "stop": f"{0.75 * duration}s",
                "transport": _transport(cc),
            }
        ],
    }


def runs(quick: bool) -> list[Run]:
    seeds, duration = ([1, 2], 0.05) if quick else ([1, 2, 3, 4], 0.2)
    return [
        Run({"cc": cc, "load": load, "seed_": s}, scenario(cc, load, duration, s))
        for cc in CCS
        for load in LOADS
        for s in seeds
    ]


def metrics(r) -> dict:
    """Slowdown quantiles per size bucket and of the short flows, of the connections
    that arrived after the first tenth of the run; completion; PFC pauses and switch
    drops."""
    from ccsim import fct

    s = measured_slowdowns(r)
    short = s[s["size_bytes"] < SHORT]["slowdown"].dropna()
    q = r.queues
    switch = q["from"].str.startswith(("edge", "agg", "core"))
    unfinished = s[s["slowdown"].isna()]
    m = {
        "connections": float(len(s)),
        "completed": float(s["slowdown"].notna().mean()) if len(s) else math.nan,
        "unfinished_min_bytes": float(unfinished["size_bytes"].min()) if len(unfinished) else 0.0,
        "host_queue_max_bytes": float(q.loc[~switch, "max_len_bytes"].max()),
        "switch_queue_max_bytes": float(q.loc[switch, "max_len_bytes"].max()),
        "short_count": float(len(short)),
        "pauses": float(q["pfc_pauses"].sum()),
        "paused_s": float(q["pfc_paused_s"].sum()),
        "switch_drops": float(q.loc[switch, "drops"].sum()),
    }
    for name in QS:
        m[f"short_{name}"] = float(short.quantile(int(name[1:]) / 100)) if len(short) else math.nan
    for b, row in fct.by_size(s, BUCKETS).iterrows():
        m[f"b{b}_count"] = float(row["connections"])
        for name in QS:
            m[f"b{b}_{name}"] = float(row[name])
    return m


def _ratio(d: Data, other: str) -> float:
    """The largest over loads of HPCC's short-flow p99 slowdown (mean over seeds) over
    ``other``'s: below 1 when HPCC is lower at every load."""
    return max(
        d.one("short_p99", cc="hpcc", load=x) / d.one("short_p99", cc=other, load=x)
        for x in loads(d)
    )


def _pauses(d: Data) -> float:
    """The largest over loads of HPCC's PFC pauses minus DCQCN's (means over seeds)."""
    return max(
        d.one("pauses", cc="hpcc", load=x) - d.one("pauses", cc="dcqcn", load=x) for x in loads(d)
    )


def _queues(d: Data) -> str:
    return (
        "Largest queue (bytes, mean over runs of each run's largest), at the senders' own NIC / in the switches: "
        + ", ".join(
            f"{NAMES[cc]} {d.rows(cc=cc)['host_queue_max_bytes'].mean() / 1e3:.0f} KB / "
            f"{d.rows(cc=cc)['switch_queue_max_bytes'].mean() / 1e3:.0f} KB"
            for cc in CCS
        )
        + "."
    )


def _why_tail(d: Data) -> str:
    long = ", ".join(f"{NAMES[cc]} {d.one('b3_p99', cc=cc, load=loads(d)[-1]):.1f}" for cc in CCS)
    return (
        _why(d)
        + " "
        + _queues(d)
        + " HPCC keeps the switches' queues the shortest but not the queue at the sending "
        "host's own NIC, the cause of its short-flow tail (a run with fair-queueing NICs "
        "bears it out: docs/experiments.md): its "
        "telemetry is stamped by switches only (hosts stamp nothing, docs/models/hpcc.md), "
        "and ccsim's RoCE NIC serves the flows of one host FIFO from one queue, each pacing "
        "itself, where the paper's NIC schedules its queue pairs round-robin "
        "(docs/models/dcqcn.md, not modelled), so a short flow waits behind the packets its "
        "host's other flows, each starting at line rate, have queued there. TIMELY's short "
        "flows gain from its long flows' starvation: p99 slowdown of 1-10 MB flows at the "
        f"highest load {long}."
    )


def _why_completed(d: Data) -> str:
    return (
        "Completed fraction, lowest run per transport: "
        + ", ".join(f"{NAMES[cc]} {d.rows(cc=cc)['completed'].min():.4f}" for cc in CCS)
        + "; the smallest unfinished HPCC connection, largest over runs: "
        f"{d.rows(cc='hpcc')['unfinished_min_bytes'].max() / 1e6:.2f} MB (0: none; a long "
        "flow still running at the end of the run, the last arrivals being at 3/4 of it: "
        "quick mode's 50-ms runs are short for the web-search's largest flows)."
    )


def _why(d: Data) -> str:
    cells = []
    for x in loads(d):
        cells.append(
            f"load {x:g}: "
            + ", ".join(
                f"{NAMES[cc]} short p99 {d.one('short_p99', cc=cc, load=x):.2f} "
                f"(seeds {'/'.join(f'{v:.2f}' for v in d.rows(cc=cc, load=x)['short_p99'])}), "
                f"pauses {d.one('pauses', cc=cc, load=x):.0f}"
                for cc in CCS
            )
        )
    return "Means over seeds: " + "; ".join(cells) + "."


CHECKS = [
    Check(
        f"HPCC's short-flow p99 slowdown over {NAMES[other]}'s, largest over the loads",
        f"< 1 at 30 % and 50 % load (HPCC §5.2, Fig. 9: short flows' tail far below {NAMES[other]}'s)",
        lambda d, other=other: _ratio(d, other),
        0.0,
        1.0,
        "< 1",
        "{:.3f}",
        why=_why_tail,
    )
    for other in ("dcqcn", "timely", "dctcp")
] + [
    Check(
        "HPCC's PFC pauses minus DCQCN's (mean over seeds), largest over the loads",
        "≤ 0: HPCC keeps the queues short, so fewer pauses (HPCC §5.2-5.3)",
        _pauses,
        -math.inf,
        0.0,
        "≤ 0",
        "{:.0f}",
        why=_why,
    ),
    Check(
        "HPCC: fraction of the measured connections completed (lowest run)",
        "1: every connection finishes (arrivals stop at 3/4 of the run)",
        lambda d: float(d.rows(cc="hpcc")["completed"].min()),
        1.0,
        1.0,
        "= 1",
        "{:.4f}",
        why=lambda d: (
            "Completed fraction, lowest run per transport: "
            + ", ".join(f"{NAMES[cc]} {d.rows(cc=cc)['completed'].min():.4f}" for cc in CCS)
            + "."
        ),
    ),
]


def tables(d: Data) -> list[str]:
    """Slowdown by size bucket, p50/p95/p99 (means over seeds of each run's quantile)."""
    from ccsim.fct import _bucket_label

    labels = [_bucket_label(lo, hi) for lo, hi in zip(BUCKETS[:-1], BUCKETS[1:])]
    out = []
    for x in loads(d):
        out += [
            f"**Web search at {x:.0%} load: FCT slowdown by flow size, p50 / p95 / p99** "
            "(mean over seeds; last columns: PFC pauses and switch drops per run, completed "
            "fraction)",
            "",
            "| transport | " + " | ".join(labels) + " | pauses | drops | completed |",
            "|---|" + "---|" * (len(labels) + 3),
        ]
        for cc in CCS:
            cells = [
                " / ".join(f"{d.one(f'b{b}_{q}', cc=cc, load=x):.2f}" for q in QS)
                for b in range(len(labels))
            ]
            out.append(
                f"| {NAMES[cc]} | "
                + " | ".join(cells)
                + f" | {d.one('pauses', cc=cc, load=x):.0f} | "
                f"{d.one('switch_drops', cc=cc, load=x):.0f} | "
                f"{d.one('completed', cc=cc, load=x):.4f} |"
            )
        out.append("")
    return out


def plot(d: Data, outdir: Path) -> list[Path]:

    from ccsim import fct

    paths = []
    for x in loads(d):
        for q in ("p50", "p99"):
            tabs = {NAMES[cc]: by_size(d, BUCKETS, q, cc=cc, load=x) for cc in CCS}
            fig = fct.plot(tabs, quantile=q)
            fig.axes[0].set_yscale("log")
            fig.axes[0].set_title(
                f"web search at {x:.0%} load, k = 4 fat-tree, 25 Gb/s, PFC ({q})", fontsize=9
            )
            paths += save_figure(fig, outdir, f"hpcc_by_size_{q}_{int(x * 100)}")
    return paths


def findings(d: Data) -> list[str]:
    return [
        _why(d),
        _queues(d),
        _why_completed(d),
        "Switch drops on the PFC fabric (sum over runs): "
        + ", ".join(f"{NAMES[cc]} {d.rows(cc=cc)['switch_drops'].sum():.0f}" for cc in CCS)
        + ".",
    ]


EXPERIMENT = Experiment(
    name="dc-hpcc",
    title="Web-search FCT slowdown by size on a lossless fat-tree: HPCC, DCQCN, TIMELY, DCTCP",
    paper="Li et al., HPCC: High Precision Congestion Control, SIGCOMM 2019, §5.1-5.3, Fig. 9",
    runs=runs,
    metrics=metrics,
    checks=CHECKS,
    plot=plot,
    findings=findings,
    tables=tables,
    notes=[
        "Quick: loads 30 % and 50 %, two seeds, 50-ms runs; full: the same loads, four seeds, "
        "200-ms runs. Arrivals stop at 3/4 of the run; connections arriving in the first "
        "tenth are left out.",
        "A k = 4 fat-tree at 25 Gb/s stands for the paper's 320-host fat-tree at 100 Gb/s "
        "(affordable on two cores); the 32-MB switch buffer is scaled down with the switch's capacity.",
        "Not run: the Hadoop workload and the 2 % incast variant of Fig. 11 (time), NDP and "
        "Swift (issue 47's other parts).",
    ],
)
