"""The classic results a user checks first with today's congestion controls and AQMs
(issue 27), each with its expectation stated beforehand:

1. **RTT fairness, CUBIC against NewReno** (Ha, Rhee & Xu 2008, §5; RFC 9438 §5.4): two
   flows of one algorithm share a bottleneck, one with a 4× longer RTT. NewReno's window
   grows one segment per RTT, so the short-RTT flow takes many times the long one's
   throughput (≈ (RTT ratio)^1–2); CUBIC's window grows with real time, so the ratio is
   much nearer 1.
2. **BBR against CUBIC, shallow and deep buffers** (Hock, Bless & Zitterbart, ICNP 2017;
   Ware et al., IMC 2019): one flow each. In a shallow buffer (0.5 BDP) CUBIC's losses
   leave BBR most of the link; in a deep one (8 BDP) CUBIC fills the buffer and BBR,
   whose in-flight is capped at 2 BDP, gets a smaller share.
3. **DCTCP's queue at K** (Alizadeh et al., SIGCOMM 2010, §3.3–3.4; RFC 8257): flows
   over a step-marking queue keep the queue near the threshold K with the link full,
   where NewReno with ECN over the same marker halves its window at each mark and loses
   throughput.
4. **FQ-CoDel isolates a sparse flow** (RFC 8290 §1.3, §4.1): short transfers sharing a
   link with bulk flows finish in about their RTTs under FQ-CoDel (their queues are new
   flows, served first), and wait behind the bulk flows' standing queue in a FIFO.
"""

from __future__ import annotations

from ccsim.experiments.framework import Check, Data, Experiment, Run

RATE = "20Mbps"
RATE_BPS = 20e6
#: Send jitter of up to one service time (1500 B at 20 Mb/s) on every flow over a
#: drop-tail queue, so that replications differ and no result rests on phase locking
#: (docs/validation.md, "BUC FIFO phase locking").
JITTER = "0.6ms"


def _dumbbell(
    name: str,
    pairs: int,
    delay_ms: float,
    queue: dict,
    duration: float,
    seed: int,
    access_delays: list[float] | None = None,
) -> dict:
    acc = {"rate": "1Gbps", "delay": [f"{d}ms" for d in access_delays] if access_delays else "1ms"}
    return {
        "name": name,
        "seed": seed,
        "duration": f"{duration}s",
        "warmup": f"{duration / 4}s",
        "topology": {
            "kind": "dumbbell",
            "pairs": pairs,
            "bottleneck": {"rate": RATE, "delay": f"{delay_ms}ms", "queue": queue},
            "access": acc,
        },
        "flows": [],
    }


def _bdp_pkts(rtt_ms: float) -> float:
    return RATE_BPS * rtt_ms / 1e3 / 8 / 1500


def rtt_fairness(cc: str, seed: int, duration: float) -> dict:
    """Two flows of ``cc`` over an 8-ms bottleneck: sender access delays of 1 ms and
    31 ms and receiver access delays of 1 ms give RTTs of 20 and 80 ms; the buffer is 0.2
    BDP at the long RTT (27 packets, 16 ms), so queueing does not even the RTTs out."""
    limit = f"{round(0.2 * _bdp_pkts(80))}pkt"
    sc = _dumbbell(
        f"rtt-fairness-{cc}",
        2,
        8.0,
        {"kind": "droptail", "limit": limit},
        duration,
        seed,
        [1.0, 31.0],
    )
    sc["topology"]["receiver_access"] = {"rate": "1Gbps", "delay": "1ms"}
    sc["flows"] = [
        {
            "pairs": [i],
            "cc": cc,
            "sack": True,
            "init_cwnd": 10,
            "start": f"{0.1 * i}s",
            "send_jitter": JITTER,
        }
        for i in range(2)
    ]
    return sc


def bbr_cubic(buffer_bdp: float, seed: int, duration: float) -> dict:
    """One BBR and one CUBIC flow, RTT 40 ms, buffer ``buffer_bdp`` × BDP."""
    sc = _dumbbell(
        f"bbr-cubic-{buffer_bdp:g}bdp",
        2,
        18.0,
        {"kind": "droptail", "limit": f"{max(2, round(buffer_bdp * _bdp_pkts(40)))}pkt"},
        duration,
        seed,
    )
    sc["flows"] = [
        {
            "pairs": [0],
            "name": "bbr",
            "cc": "bbr",
            "sack": True,
            "init_cwnd": 10,
            "send_jitter": JITTER,
        },
        {
            "pairs": [1],
            "name": "cubic",
            "cc": "cubic",
            "sack": True,
            "init_cwnd": 10,
            "start": "0.05s",
        },
    ]
    return sc


K = 20


def dctcp_queue(cc: str, seed: int, duration: float) -> dict:
    """Four flows of ``cc`` with ECN over a step marker at K = 20 packets, RTT 60 ms
    (BDP 100 packets at 20 Mb/s, so K ≈ BDP/5: DCTCP's α keeps the window near BDP + K,
    where NewReno's halving from BDP + K falls below the BDP)."""
    sc = _dumbbell(
        f"dctcp-queue-{cc}",
        4,
        28.0,
        {"kind": "step", "threshold": K, "limit": "400pkt"},
        duration,
        seed,
    )
    sc["flows"] = [
        {
            "pairs": [i],
            "cc": cc,
            "ecn": True,
            "sack": True,
            "init_cwnd": 10,
            "start": f"{0.01 * i}s",
        }
        for i in range(4)
    ]
    return sc


def sparse_isolation(queue: str, seed: int, duration: float) -> dict:
    """Four bulk NewReno flows and Poisson arrivals of 15-KB transfers (2 per second) on
    a fifth pair, RTT 20 ms, a 4-BDP buffer: FIFO drop-tail against FQ-CoDel."""
    limit = f"{round(4 * _bdp_pkts(20))}pkt"
    q = (
        {"kind": "droptail", "limit": limit}
        if queue == "fifo"
        else {"kind": "fq_codel", "limit": limit}
    )
    sc = _dumbbell(f"sparse-{queue}", 5, 8.0, q, duration, seed)
    sc["flows"] = [
        {"pairs": [i], "cc": "newreno", "sack": True, "init_cwnd": 10, "send_jitter": JITTER}
        for i in range(4)
    ]
    sc["workloads"] = [
        {
            "name": "short",
            "pairs": [4],
            "arrival_rate": 2,
            "size": "15KB",
            "transport": {"kind": "tcp", "cc": "newreno", "sack": True, "init_cwnd": 10},
        }
    ]
    return sc


def runs(quick: bool) -> list[Run]:
    seeds = range(1, 3 if quick else 6)
    d = 30.0 if quick else 120.0
    out: list[Run] = []
    for s in seeds:
        for cc in ("newreno", "cubic"):
            out.append(Run({"study": "rtt", "cc": cc, "seed_": s}, rtt_fairness(cc, s, d)))
        for b in (0.5, 8.0):
            out.append(Run({"study": "bbr", "buffer_bdp": b, "seed_": s}, bbr_cubic(b, s, d)))
        for cc in ("dctcp", "newreno"):
            out.append(Run({"study": "dctcp", "cc": cc, "seed_": s}, dctcp_queue(cc, s, d / 2)))
        for q in ("fifo", "fq_codel"):
            out.append(Run({"study": "sparse", "queue": q, "seed_": s}, sparse_isolation(q, s, d)))
    return out


def metrics(r) -> dict:
    f = r.flows
    gp = f["goodput_bps"].tolist()
    q = r.queue("R1->R2")
    m = {
        "utilization": float(q["utilization"]),
        "mean_queue_pkts": float(q["mean_len_pkts"]),
        "goodput0_bps": gp[0] if gp else float("nan"),
        "goodput1_bps": gp[1] if len(gp) > 1 else float("nan"),
        "marks": float(q.get("marks", float("nan"))),
    }
    c = r.connections
    if len(c):
        rt = c["response_time_s"].dropna()
        m["short_response_s"] = float(rt.mean()) if len(rt) else float("nan")
        m["short_response_p95_s"] = float(rt.quantile(0.95)) if len(rt) else float("nan")
    return m


def _ratio(d: Data, **params) -> float:
    return d.one("goodput0_bps", **params) / d.one("goodput1_bps", **params)


def _bbr_share(d: Data, b: float) -> float:
    g0, g1 = (
        d.one("goodput0_bps", study="bbr", buffer_bdp=b),
        d.one("goodput1_bps", study="bbr", buffer_bdp=b),
    )
    return g0 / (g0 + g1)


EXPERIMENT = Experiment(
    name="classics",
    title="Classic results of today's congestion control and AQM (CUBIC, BBR, DCTCP, FQ-CoDel)",
    paper="Ha, Rhee & Xu 2008; Hock et al. 2017; Alizadeh et al. 2010; RFC 8290 (expectations stated in the module)",
    runs=runs,
    metrics=metrics,
    checks=[
        Check(
            "RTT fairness: NewReno short/long-RTT throughput ratio (RTT 20 vs 80 ms)",
            "≫ 1 (≈ 4–16)",
            lambda d: _ratio(d, study="rtt", cc="newreno"),
            3.0,
            float("inf"),
            "≥ 3",
            "{:.2f}",
        ),
        Check(
            "RTT fairness: CUBIC's ratio, as a fraction of NewReno's",
            "well below 1 (CUBIC is RTT-fairer)",
            lambda d: _ratio(d, study="rtt", cc="cubic") / _ratio(d, study="rtt", cc="newreno"),
            0.0,
            0.7,
            "≤ 0.7",
            "{:.2f}",
        ),
        Check(
            "BBR's share against CUBIC, 0.5-BDP buffer",
            "most of the link",
            lambda d: _bbr_share(d, 0.5),
            0.6,
            1.0,
            "≥ 0.6",
            "{:.2f}",
        ),
        Check(
            "BBR's share, 8-BDP buffer, less than at 0.5 BDP by",
            "a clear drop (CUBIC fills the deep buffer)",
            lambda d: _bbr_share(d, 0.5) - _bbr_share(d, 8.0),
            0.15,
            1.0,
            "≥ 0.15",
            "{:.2f}",
        ),
        Check(
            "DCTCP: utilization with K = 20 packets",
            "full link",
            lambda d: d.one("utilization", study="dctcp", cc="dctcp"),
            0.95,
            1.0,
            "≥ 0.95",
            "{:.3f}",
        ),
        Check(
            "DCTCP: mean queue (packets) near K = 20",
            "≈ K",
            lambda d: d.one("mean_queue_pkts", study="dctcp", cc="dctcp"),
            0.5 * K,
            1.5 * K,
            "K/2 to 3K/2",
            "{:.1f}",
        ),
        Check(
            "NewReno + ECN over the same marker: utilization below DCTCP's",
            "lower (halving at each mark)",
            lambda d: (
                d.one("utilization", study="dctcp", cc="newreno")
                - d.one("utilization", study="dctcp", cc="dctcp")
            ),
            -1.0,
            -0.01,
            "at least 1 point lower",
            "{:+.3f}",
        ),
        Check(
            "FQ-CoDel: short transfers' mean response time, as a fraction of FIFO's",
            "far shorter (sparse flows served first)",
            lambda d: (
                d.one("short_response_s", study="sparse", queue="fq_codel")
                / d.one("short_response_s", study="sparse", queue="fifo")
            ),
            0.0,
            0.5,
            "≤ 0.5",
            "{:.2f}",
        ),
    ],
    notes=[
        "Not a paper reproduction: each check states the published qualitative result "
        "(module docstring) as a band; the numbers are ccsim's.",
    ],
)

EXPERIMENTS = [EXPERIMENT]
