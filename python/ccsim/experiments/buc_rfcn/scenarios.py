"""The BUC + RFCN reproductions' settings and scenarios: TCP Tahoe in packet mode with
the 1997 ns timers, the BUC router component, experiment 1's convergence network
(paper §5) and experiment 2's comparison network (paper §6), and the runs of each.

Source: Ziegler & Clausen, IEEE IPCCC 1997, §5 and §6; the lost topologies (Figs. 6 and
8) are inferred as docs/models/buc-rfcn.md, "The experiments' settings", describes.
"""

from __future__ import annotations

import numpy as np

from ccsim.experiments.framework import Run


MSS, HEADER = 960, 40
PKT = MSS + HEADER  # 1000 B on the wire
TBU = 60  # packets (60 000 B)
JOINS = (0.0, 10.0, 20.0)  # experiment 1: FTP1, FTP2, FTP3
PORT1 = "G->R"
PORT2 = "G1->G2"
#: Experiment 2 access-link delays (ms): heterogeneous RTTs (inferred, decision A1).
ACCESS_MS = (1, 3, 5, 8, 12, 18, 25, 35)
#: Experiment 2's sweep over the number of conversations (N is not given; full mode).
SWEEP_FLOWS = (2, 4, 16)
SCHEMES = {
    "buc": "BUC + RFCN (FQ)",
    "droptail": "FIFO drop-tail",
    "red": "RED (drop)",
    "red-ecn": "RED + ECN",
}
#: Bottleneck variants of experiment 1 (rate, one-way delay): 2·C·delay = 16 000 B.
VARIANTS = {"2mbps": ("2Mbps", "30ms"), "geo": ("256kbps", "248ms")}


def tcp(
    name: str,
    src: str,
    dst: str,
    start: float,
    rwnd_pkts: int,
    cc: str = "tahoe",
    ecn: bool = False,
) -> dict:
    """A packet-mode FTP source with the 1997 ns timers (docs/models/buc-rfcn.md, A2)."""
    return {
        "name": name,
        "src": src,
        "dst": dst,
        "cc": cc,
        "mss": MSS,
        "header": HEADER,
        "init_cwnd": 1,
        "rwnd": f"{rwnd_pkts * MSS}B",
        "conventions": "ns2",
        "rtt_tick": "100ms",
        "min_rto": "200ms",
        "init_rto": "3s",
        "limited_transmit": False,
        "ecn": ecn,
        "start": f"{start:.6f}s",
    }


def buc_component(node: str, port: str, events: bool = True, **keys) -> dict:
    """The BUC gateway with the paper's parameters on ``node``'s output ``port``."""
    return {
        "node": node,
        "kind": "buc",
        "ports": [port],
        "tbu": f"{TBU * PKT}B",
        "packet_size": f"{PKT}B",
        "w_init": 64,
        "up": 1.25,
        "down": 0.5,
        "events": events,
        **keys,
    }


def convergence_scenario(
    variant: str = "2mbps",
    cc: str = "tahoe",
    duration: float = 50.0,
    offsets: tuple[float, float, float] = (0.0, 0.0, 0.0),
    **buc_keys,
) -> dict:
    """Three FTPs s1..s3 → G → R → D joining at 0, 10, 20 s (plus ``offsets``); 1 MB
    shared buffer; receiver window 64 packets; both directions fair-queued at G (A13)."""
    rate, delay = VARIANTS[variant]
    links = [{"from": f"s{i + 1}", "to": "G", "rate": "10Mbps", "delay": "1ms"} for i in range(3)]
    fq = {"kind": "fq", "limit": "1000pkt"}
    links += [
        {"from": "G", "to": "R", "rate": rate, "delay": delay, "queue": fq, "reverse_queue": fq},
        {"from": "R", "to": "D", "rate": "10Mbps", "delay": "1ms"},
    ]
    return {
        "name": f"buc-convergence-{variant}-{cc}",
        "seed": 1,
        "duration": f"{duration}s",
        "topology": {"kind": "graph", "nodes": ["G", "R", "D", "s1", "s2", "s3"], "links": links},
        "flows": [
            tcp(f"ftp{i + 1}", f"s{i + 1}", "D", t + dt, 64, cc)
            for i, (t, dt) in enumerate(zip(JOINS, offsets))
        ],
        "components": [buc_component("G", PORT1, **buc_keys)],
        "monitor": {"interval": "100ms", "queues": [PORT1], "flows": "all"},
    }


def convergence_runs(quick: bool) -> list[Run]:
    """The paper's run plus the sensitivity runs of decisions A2, A3, A7 and the
    256 kbps variant (each a fraction of a second)."""
    out = [
        Run({"run": "paper", "variant": "2mbps", "cc": "tahoe"}, convergence_scenario()),
        Run({"run": "reno", "variant": "2mbps", "cc": "reno"}, convergence_scenario(cc="reno")),
        Run({"run": "geo", "variant": "geo", "cc": "tahoe"}, convergence_scenario("geo")),
        Run(
            {"run": "measure-before", "variant": "2mbps", "cc": "tahoe"},
            convergence_scenario(measure="before"),
        ),
        Run(
            {"run": "floor", "variant": "2mbps", "cc": "tahoe"},
            convergence_scenario(rounding="floor"),
        ),
    ]
    # Replications: every join moved by a random offset in [0, 0.5 s) (ccsim is
    # deterministic; this is the only variation).
    for k in range(1, JITTER_REPS + 1):
        offsets = tuple(float(x) for x in np.random.default_rng(k).uniform(0.0, 0.5, 3))
        out.append(
            Run(
                {"run": f"jitter-{k}", "variant": "2mbps", "cc": "tahoe"},
                convergence_scenario(offsets=offsets),
            )
        )
    return out


JITTER_REPS = 5


#: Experiment 2's replications: every sender waits a random time uniform in [0, 4 ms)
#: before each window-driven burst (``send_jitter``, ns-2's ``overhead_``), one service
#: time of a 1000-byte packet at the 2 Mbps bottleneck: Floyd & Jacobson's (1992)
#: remedy for the phase effects that otherwise decide drop-tail shares
#: (docs/notes/buc-fifo-phase-locking.md).
SEND_JITTER = "4ms"


def comparison_scenario(
    scheme: str, duration: float, seed: int, flows: int = 8, jitter: str = "0s"
) -> dict:
    """N FTPs → G1 → 2 Mbps/30 ms → G2 → N receivers, every source started at 0 s as
    in the paper; the scheme at G1's port; a 300-packet buffer; receiver window 300
    packets; each sender's ``send_jitter`` (0: the paper's deterministic run, where
    only the seed's clock phases vary)."""
    delays = [ACCESS_MS[i % len(ACCESS_MS)] for i in range(flows)]
    nodes = ["G1", "G2", *[f"s{i + 1}" for i in range(flows)], *[f"d{i + 1}" for i in range(flows)]]
    links = [
        {"from": f"s{i + 1}", "to": "G1", "rate": "10Mbps", "delay": f"{d}ms"}
        for i, d in enumerate(delays)
    ]
    links += [
        {"from": "G2", "to": f"d{i + 1}", "rate": "10Mbps", "delay": "1ms"} for i in range(flows)
    ]
    red = {
        "kind": "red",
        "limit": "300pkt",
        "min_th": 40,
        "max_th": 80,
        # The paper's "maxp = 50" is ns's linterm_: max_p = 1/50
        # (docs/models/buc-rfcn.md, "The experiments' settings").
        "max_p": 0.02,
        "q_weight": 0.002,
        "wait": True,
        "gentle": False,
        "byte_mode": False,
        "queue_in_bytes": True,
        "mean_pktsize": f"{PKT}B",
        "use_mark_p": False,
    }
    queue = {
        "buc": {"kind": "fq", "limit": "300pkt"},
        "droptail": {"kind": "droptail", "limit": "300pkt"},
        "red": red,
        "red-ecn": {**red, "ecn": True},
    }[scheme]
    reverse = {"kind": "fq", "limit": "300pkt"} if scheme == "buc" else {"limit": "300pkt"}
    links.append(
        {
            "from": "G1",
            "to": "G2",
            "rate": "2Mbps",
            "delay": "30ms",
            "queue": queue,
            "reverse_queue": reverse,
        }
    )
    sc = {
        "name": f"buc-comparison-{scheme}-{flows}",
        "seed": seed,
        "duration": f"{duration}s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "flows": [
            {
                **tcp(f"ftp{i + 1}", f"s{i + 1}", f"d{i + 1}", 0.0, 300, ecn=scheme == "red-ecn"),
                "send_jitter": jitter,
            }
            for i in range(flows)
        ],
        "monitor": {"interval": "100ms", "queues": [PORT2]},
    }
    if scheme == "buc":
        sc["components"] = [buc_component("G1", PORT2, events=False)]
    return sc


def comparison_runs(quick: bool) -> list[Run]:
    """Each scheme with 8 flows: the paper's run (no jitter, ``rep`` 0) and the
    replications with ``SEND_JITTER`` (seeds 1..R); in full mode the sweep over
    N = 2, 4, 16 (one jittered replication each). Drop-tail shares are compared on the
    jittered replications only; the paper's run shows the phase locking."""
    duration, reps = (300.0, 3) if quick else (2000.0, 5)
    out = [
        Run(
            {"scheme": s, "rep": 0, "flows": 8, "jitter": "0s"}, comparison_scenario(s, duration, 1)
        )
        for s in SCHEMES
    ]
    out += [
        Run(
            {"scheme": s, "rep": k, "flows": 8, "jitter": SEND_JITTER},
            comparison_scenario(s, duration, k, jitter=SEND_JITTER),
        )
        for s in SCHEMES
        for k in range(1, reps + 1)
    ]
    if not quick:
        out += [
            Run(
                {"scheme": s, "rep": 1, "flows": n, "jitter": SEND_JITTER},
                comparison_scenario(s, duration, 1, n, jitter=SEND_JITTER),
            )
            for n in SWEEP_FLOWS
            for s in SCHEMES
        ]
    return out
