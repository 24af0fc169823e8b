"""What the data-centre experiments share: the 1-Gb/s switch port of the DCTCP paper's
testbed (a static 100-packet buffer, DCTCP's marking threshold K = 20), the transports
compared, the fat-tree's host and link names, and the slowdown bookkeeping of the
flow-size experiments (the connections measured, the loads, the by-size tables).

Sources: Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.4 (K = 20 packets
at 1 Gb/s, g = 1/16) and §4.2.2 (the incast microbenchmark with a static buffer of 100
packets per port); Al-Fares, Loukissas & Vahdat, SIGCOMM 2008, §3 (the k-ary fat-tree).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.experiments.framework import Data

#: The switch ports' rate (the DCTCP paper's 1-Gb/s testbed, §4).
RATE = "1Gbps"
RATE_BPS = 1e9
#: Segment payload and wire size (bytes): a TCP goodput of C·MSS/PKT fills the link.
MSS = 1460
PKT = MSS + 40
#: Per-port buffer (packets): the static 100-packet buffer of DCTCP §4.2.2.
BUFFER = 100
#: DCTCP's marking threshold at 1 Gb/s (§3.4: K = 20 packets).
K = 20

#: The transports compared, by label: a table of flow keys each. TCP is NewReno with
#: SACK (RFC 6675), the loss recovery of the stacks the papers ran.
TRANSPORTS = {
    "tcp": {"cc": "newreno", "sack": True},
    "cubic": {"cc": "cubic", "sack": True},
    "dctcp": {"cc": "dctcp", "sack": True, "ecn": True},
}


def queue(label: str) -> dict:
    """The port's queue for a transport: drop-tail of :data:`BUFFER` packets, or for
    DCTCP the same buffer with step marking at K. Packets that are not ECN-capable
    (pure ACKs, retransmissions) go into the buffer as on the paper's switch, which
    marks ECN-capable packets and drops only on overflow (``non_ect = "pass"``; with
    ccsim's default they would be dropped above K, the ACK-drop pitfall of Judd,
    NSDI 2015, which is not DCTCP)."""
    if label == "dctcp":
        return {"kind": "step", "threshold": K, "limit": f"{BUFFER}pkt", "non_ect": "pass"}
    return {"kind": "droptail", "limit": f"{BUFFER}pkt"}


def transport(label: str, min_rto: str, init_cwnd: int) -> dict:
    """Flow keys of a transport with its retransmission timer floor. ``init_rto`` is
    set to ``min_rto`` too: the papers' servers answer over persistent connections,
    whose RTO is at its floor (an RTT of 100 µs is far below it), where ccsim's flows
    are new connections that would otherwise wait the initial RTO (1 s) on an early
    loss."""
    return {
        **TRANSPORTS[label],
        "init_cwnd": init_cwnd,
        "min_rto": min_rto,
        "init_rto": min_rto,
    }


def fat_tree_hosts(k: int) -> list[str]:
    """The hosts of a k-ary fat-tree, ``h<pod>_<edge>_<index>``."""
    h = k // 2
    return [f"h{p}_{e}_{i}" for p in range(k) for e in range(h) for i in range(h)]


def host_links(host: str) -> tuple[str, str]:
    """A fat-tree host's uplink and downlink names (``h0_1_0->edge0_1`` and back)."""
    edge = "edge" + host[1:].rsplit("_", 1)[0]
    return f"{host}->{edge}", f"{edge}->{host}"


def fabric_links(k: int) -> list[str]:
    """Every switch-to-switch link direction of a k-ary fat-tree (edge–aggregation and
    aggregation–core, both ways): the links a flow's ECMP choice is seen on."""
    h = k // 2
    out = []
    for p in range(k):
        for e in range(h):
            for a in range(h):
                out += [f"edge{p}_{e}->agg{p}_{a}", f"agg{p}_{a}->edge{p}_{e}"]
        for a in range(h):
            for j in range(a * h, a * h + h):
                out += [f"agg{p}_{a}->core{j}", f"core{j}->agg{p}_{a}"]
    return out


def measured_slowdowns(r) -> pd.DataFrame:
    """``ccsim.fct.slowdown`` of the connections of run ``r`` that arrived after the
    first tenth of the run (the fabric filled)."""
    from ccsim import fct

    s = fct.slowdown(r)
    return s[s["start_s"] >= 0.1 * r.summary["duration_s"]]


def loads(d: Data) -> list[float]:
    """The experiment's loads, in increasing order."""
    return sorted(float(x) for x in d.table["load"].unique())


def by_size(d: Data, buckets: tuple, q: str, **where: Any) -> pd.DataFrame:
    """The ``q`` slowdown of each size bucket (``b<i>_<q>`` metrics, mean over the
    runs matching ``where``), as ``ccsim.fct.plot`` takes it."""
    import pandas as pd

    return pd.DataFrame(
        {
            "size_low_bytes": buckets[:-1],
            "size_high_bytes": buckets[1:],
            q: [d.one(f"b{b}_{q}", **where) for b in range(len(buckets) - 1)],
        }
    )
