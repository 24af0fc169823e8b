"""TCP incast: goodput collapse as synchronized senders grow, and DCTCP avoiding it
(``ccsim reproduce dc-incast``).

Sources: Vasudevan et al., "Safe and effective fine-grained TCP retransmissions for
datacenter communication", SIGCOMM 2009, §2-§3 (the collapse of synchronized reads; a
retransmission timer floor of 200 ms against round trips of 100 µs) and §5 (timers of
about 1 ms and below avoid it); Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM
2010, §4.2.2 and its incast figure (repeated queries to n servers through a port with a
static 100-packet buffer: TCP's queries suffer timeouts, DCTCP's do not, until the
servers' first windows alone overflow the buffer).

The setup: a client and n servers on one switch (1 Gb/s ports, 20 µs per hop: a round
trip of about 100 µs), the client's port with a static buffer of 100 packets (DCTCP at
K = 20). A query asks every server for a fixed server request unit (SRU) of 64 KB; the
next query is issued when the last response of this one has arrived (``after``: a
barrier), and the queries repeat. Goodput is the bytes of all queries over the time from
each query's first request to its last response (Vasudevan et al.'s "application
throughput"). Each server's response starts a uniform 0-50 µs after the request and its
bursts wait up to one service time (12 µs, ``send_jitter``), so servers are synchronized
as closely as real ones but not in lock step.

Hand-worked expectations (``ccsim.theory.datacenter``, docs/theory.md §6): a 64-KB
response is 44 segments, sent by slow start from an initial window of 3 (RFC 3390, the
kernels of 2009-10) in rounds of 3, 6, 12 and 23 segments. No packet is lost while the n
servers' last rounds fit in the buffer plus the path, n·23 ≤ 100 + 8: n ≤ 4. Beyond,
drops come at the end of short responses, where too few duplicate ACKs follow to
trigger a fast retransmit, so a timeout ends the query: with RTOmin = 200 ms a query of
n·64 KB then takes at least 200 ms, and the goodput falls below n·64 KB/200 ms (82 Mb/s
at n = 32), an order of magnitude below the link. DCTCP's marks return after one round
trip, so it can protect at most the initial windows: n·3 ≤ 108, n ≤ 36; beyond that its
first windows overflow the buffer too.
"""

from __future__ import annotations

from pathlib import Path

from ccsim import theory
from ccsim.experiments.framework import Check, Data, Experiment, Run, save_figure

from .common import BUFFER, MSS, RATE, RATE_BPS, queue, transport

#: Bytes each server sends per query (a fixed SRU of 64 KB).
SRU = 64_000
#: Initial window (segments): RFC 3390's 3 segments of 1460 B.
IW = 3
#: Propagation delay of each hop (client and servers to the switch).
HOP_DELAY = "20us"
#: Round trip in packets of the path (2·2·20 µs plus two data serializations, ≈ 104 µs
#: at 1 Gb/s = 8.7 packets of 1500 B, rounded down).
BDP_PKTS = 8
#: The compared senders: (transport, RTOmin).
VARIANTS = {
    "tcp-200ms": ("tcp", "200ms"),
    "tcp-1ms": ("tcp", "1ms"),
    "dctcp-200ms": ("dctcp", "200ms"),
}
N_QUICK = [1, 2, 4, 8, 16, 24, 32, 40]
N_FULL = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 28, 32, 36, 40, 48]

#: Segments of one response and its slow-start rounds; the largest synchronized incast
#: TCP survives without a drop, and the largest whose initial windows fit.
SRU_SEGMENTS = -(-SRU // MSS)
N_TCP_SAFE = theory.incast_no_loss_senders(
    max(theory.slow_start_rounds(SRU_SEGMENTS, IW)), BUFFER, BDP_PKTS
)
N_FIRST_WINDOW = theory.incast_no_loss_senders(IW, BUFFER, BDP_PKTS)


def scenario(variant: str, n: int, queries: int, seed: int) -> dict:
    """``queries`` incast queries of ``n`` servers to one client, each after the last."""
    label, min_rto = VARIANTS[variant]
    q = queue(label)
    servers = [f"s{i}" for i in range(n)]
    links = [{"from": "sw", "to": "client", "rate": RATE, "delay": HOP_DELAY, "queue": q}]
    links += [
        {"from": s, "to": "sw", "rate": RATE, "delay": HOP_DELAY, "queue": q} for s in servers
    ]
    flows = []
    for i in range(queries):
        f = {
            "name": f"q{i}",
            "matrix": {"kind": "incast", "receiver": "client", "senders": n},
            "size": f"{SRU}B",
            "start": {"uniform": ["0us", "50us"]},
            "send_jitter": "12us",
            **transport(label, min_rto, IW),
        }
        if i:
            f["after"] = [f"q{i - 1}"]
        flows.append(f)
    return {
        "name": f"incast-{variant}-n{n}",
        "seed": seed,
        # long enough for every query to time out twice at 200 ms; the run ends earlier
        # only if the flows are done (the last query's completion is the measure)
        "duration": f"{0.5 * queries + 1}s",
        "topology": {"kind": "graph", "nodes": ["sw", "client", *servers], "links": links},
        "flows": flows,
    }


def runs(quick: bool) -> list[Run]:
    grid, queries, seeds = (N_QUICK, 20, [1]) if quick else (N_FULL, 100, [1, 2, 3])
    return [
        Run({"variant": v, "n": n, "seed_": s}, scenario(v, n, queries, s))
        for v in VARIANTS
        for n in grid
        for s in seeds
    ]


def metrics(r) -> dict:
    """Goodput over all queries, the fraction of queries with a timeout and the
    queries completed."""
    f = r.flows.copy()
    f["query"] = f["name"].str.split(".").str[0]
    g = f.groupby("query").agg(
        start=("start_s", "min"),
        end=("completion_s", "max"),
        done=("completion_s", lambda c: bool(c.notna().all())),
        timeouts=("timeouts", "sum"),
        bytes=("bytes_delivered", "sum"),
    )
    g = g[g["done"]]
    span = float((g["end"] - g["start"]).sum())
    return {
        "queries_done": float(len(g)),
        "goodput_bps": float(g["bytes"].sum()) * 8 / span if span > 0 else float("nan"),
        "timeout_fraction": float((g["timeouts"] > 0).mean()) if len(g) else float("nan"),
        "mean_query_s": float((g["end"] - g["start"]).mean()) if len(g) else float("nan"),
    }


def _goodput(d: Data, variant: str, n: int) -> float:
    """Mean goodput over the seeds, as a fraction of the link."""
    return d.one("goodput_bps", variant=variant, n=n) / RATE_BPS


def _ns(d: Data) -> list[int]:
    return sorted(int(n) for n in d.table["n"].unique())


def _worst(d: Data, variant: str, lo: int, hi: float, pick=min, metric=None) -> float:
    """The smallest (``pick``) goodput fraction, or ``metric``, over lo ≤ n ≤ hi."""
    vals = [
        (d.one(metric, variant=variant, n=n) if metric else _goodput(d, variant, n))
        for n in _ns(d)
        if lo <= n <= hi
    ]
    return pick(vals)


def _safe_range(d: Data, variant: str) -> int:
    """The largest n up to which no query of ``variant`` timed out (0 if even n = 1 did)."""
    last = 0
    for n in _ns(d):
        if d.one("timeout_fraction", variant=variant, n=n) > 0:
            break
        last = n
    return last


def _why_tcp_small(d: Data) -> str:
    return (
        f"TCP at n = {N_TCP_SAFE}: {d.one('timeout_fraction', variant='tcp-200ms', n=N_TCP_SAFE):.2f} "
        "of the queries had a timeout; by the hand-worked bound its last slow-start "
        "rounds fit in the buffer, so a drop means the senders were burstier than "
        "ACK-clocked slow start (the send jitter bunching bursts)."
    )


def _why_collapse(d: Data) -> str:
    rows = ", ".join(
        f"n = {n}: {_goodput(d, 'tcp-200ms', n) * 1e3:.0f} Mb/s, "
        f"{d.one('timeout_fraction', variant='tcp-200ms', n=n):.2f} of queries with a timeout"
        for n in _ns(d)
        if n >= 2 * N_TCP_SAFE
    )
    return f"TCP with RTOmin = 200 ms: {rows}."


def _why_dctcp(d: Data) -> str:
    rows = ", ".join(
        f"n = {n}: {_goodput(d, 'dctcp-200ms', n) * 1e3:.0f} Mb/s "
        f"({d.one('timeout_fraction', variant='dctcp-200ms', n=n):.2f} with a timeout)"
        for n in _ns(d)
    )
    return f"DCTCP: {rows}."


def _why_fine(d: Data) -> str:
    rows = ", ".join(f"n = {n}: {_goodput(d, 'tcp-1ms', n) * 1e3:.0f} Mb/s" for n in _ns(d))
    return f"TCP with RTOmin = 1 ms: {rows}."


CHECKS = [
    Check(
        f"TCP (RTOmin 200 ms), n = {N_TCP_SAFE} servers (the largest whose last slow-start "
        "rounds fit in buffer + path): goodput / link",
        "near the link (no collapse with few servers; Vasudevan et al. 2009 Fig. 1; hand-worked bound)",
        lambda d: _goodput(d, "tcp-200ms", N_TCP_SAFE),
        0.85,
        1.0,
        "≥ 0.85",
        "{:.3f}",
        why=_why_tcp_small,
    ),
    Check(
        f"TCP (RTOmin 200 ms), every n from {2 * N_TCP_SAFE} to 32: largest goodput / link",
        "collapse, an order of magnitude below the link (Vasudevan et al. 2009 §2, Fig. 1; "
        "hand-worked: a query with a timeout lasts ≥ 200 ms, ≤ 82 Mb/s at n = 32)",
        lambda d: _worst(d, "tcp-200ms", 2 * N_TCP_SAFE, 32, pick=max),
        0.0,
        0.1,
        "≤ 0.1",
        "{:.3f}",
        why=_why_collapse,
    ),
    Check(
        f"TCP (RTOmin 200 ms), every n from {2 * N_TCP_SAFE} to 32: smallest fraction of "
        "queries with a timeout",
        "most queries time out (DCTCP §4.2.2, the incast figure's fraction of queries with "
        "timeouts; Vasudevan et al. 2009 §3)",
        lambda d: _worst(d, "tcp-200ms", 2 * N_TCP_SAFE, 32, metric="timeout_fraction"),
        0.5,
        1.0,
        "≥ 0.5",
        "{:.2f}",
        why=_why_collapse,
    ),
    Check(
        f"DCTCP, every n from {N_TCP_SAFE} to 24: smallest goodput / link",
        "no collapse where TCP's collapses (DCTCP §4.2.2, incast figure: no timeouts with the "
        "static buffer)",
        lambda d: _worst(d, "dctcp-200ms", N_TCP_SAFE, 24),
        0.85,
        1.0,
        "≥ 0.85",
        "{:.3f}",
        why=_why_dctcp,
    ),
    Check(
        "DCTCP's range without timeouts over TCP's (largest n without a timeout)",
        "DCTCP holds much longer (DCTCP §4.2.2)",
        lambda d: _safe_range(d, "dctcp-200ms") / max(1, _safe_range(d, "tcp-200ms")),
        3.0,
        float("inf"),
        "≥ 3",
        "{:.1f}",
        why=_why_dctcp,
    ),
    Check(
        f"DCTCP beyond its first-window bound (n·{IW} > {BUFFER} + {BDP_PKTS}: n > "
        f"{N_FIRST_WINDOW}): smallest fraction of queries with a timeout",
        "hand-worked: ECN acts only after the first round trip, so the initial windows "
        "alone overflow the buffer",
        lambda d: _worst(d, "dctcp-200ms", N_FIRST_WINDOW + 1, 10**9, metric="timeout_fraction"),
        0.9,
        1.0,
        "≥ 0.9",
        "{:.2f}",
        why=_why_dctcp,
    ),
    Check(
        "TCP with RTOmin 1 ms, every n ≥ 2: smallest goodput / link",
        "no collapse (Vasudevan et al. 2009 §5: fine-grained timers avoid it)",
        lambda d: _worst(d, "tcp-1ms", 2, 10**9),
        0.6,
        1.0,
        "≥ 0.6",
        "{:.3f}",
        why=_why_fine,
    ),
]


def plot(d: Data, outdir: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.6))
    names = {
        "tcp-200ms": "TCP, RTOmin 200 ms",
        "tcp-1ms": "TCP, RTOmin 1 ms",
        "dctcp-200ms": "DCTCP, RTOmin 200 ms",
    }
    ns = _ns(d)
    for v, label in names.items():
        ax.plot(ns, [_goodput(d, v, n) * 1e3 for n in ns], "o-", ms=3, label=label)
        bx.plot(
            ns, [d.one("timeout_fraction", variant=v, n=n) for n in ns], "o-", ms=3, label=label
        )
    for a in (ax, bx):
        a.axvline(N_TCP_SAFE, color="gray", ls=":", lw=0.8)
        a.axvline(N_FIRST_WINDOW, color="gray", ls="--", lw=0.8)
        a.set_xlabel("servers n (64 KB each per query)")
        a.grid(True, alpha=0.3)
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_yscale("log")
    bx.set_ylabel("fraction of queries with a timeout")
    ax.legend(fontsize=8)
    ax.set_title("incast goodput (dotted: TCP's no-loss bound; dashed: first windows)", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, outdir, "incast_goodput")


def findings(d: Data) -> list[str]:
    return [
        f"No query without a timeout: TCP (RTOmin 200 ms) up to n = {_safe_range(d, 'tcp-200ms')}, "
        f"DCTCP up to n = {_safe_range(d, 'dctcp-200ms')}; the hand-worked bounds are n ≤ "
        f"{N_TCP_SAFE} (TCP's last slow-start rounds fit) and n ≤ {N_FIRST_WINDOW} (the initial "
        "windows fit, the most ECN could protect).",
        "Mean query time at the largest n: "
        + ", ".join(
            f"{v} {d.one('mean_query_s', variant=v, n=_ns(d)[-1]) * 1e3:.1f} ms" for v in VARIANTS
        )
        + ".",
    ]


EXPERIMENT = Experiment(
    name="dc-incast",
    title="TCP incast collapse and DCTCP avoiding it (goodput against synchronized servers)",
    paper="Vasudevan et al., SIGCOMM 2009 §2-§5; Alizadeh et al. (DCTCP), SIGCOMM 2010 §4.2.2",
    runs=runs,
    metrics=metrics,
    checks=CHECKS,
    plot=plot,
    findings=findings,
    notes=[
        "Workload: a fixed SRU of 64 KB per server per query (the size is ours), queries "
        "repeated behind a barrier (quick: 20 queries, one seed; full: 100 queries, three "
        "seeds). DCTCP §4.2.2 asks each of n servers for 1 MB/n over persistent "
        "connections; ccsim's responses are new connections in slow start, and with 1 MB/n "
        "a few servers' large responses (250-500 KB) overshoot the buffer in slow start and "
        "time out (TCP with this setup and 1 MB/n: 100 % of 20 queries at n = 2, 95 % at "
        "n = 4), a slow-start effect rather than incast, so the fixed-SRU workload of the "
        "incast literature is used instead.",
        "init_rto is set to min_rto: a persistent connection's RTO sits at its floor.",
        "DCTCP's port marks ECN-capable packets above K = 20 and lets others (ACKs, "
        'retransmissions) into the buffer (`non_ect = "pass"`), as the paper\'s switch.',
    ],
)
