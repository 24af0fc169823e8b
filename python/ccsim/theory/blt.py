"""BLT's hand calculations: one transfer alone on an idle path of store-and-forward
hops (the response time at very low load) and the processor-sharing response time.

Source: H. Kim, D. J. Farber, "Congestion control by bandwidth-delay tradeoff in very
high-speed networks: the case of window-based control", Univ. of Pennsylvania
MS-CIS-94-55, 1994, §4 (its network, Fig. 4, and the results of §4.2-§4.3); the
reproduction is described in docs/models/blt.md.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from typing import NamedTuple

from ._args import check_nonneg, check_pos

__all__ = [
    "idle_path_transfer",
    "IdlePath",
    "processor_sharing_response_time",
]


class IdlePath(NamedTuple):
    """What :func:`idle_path_transfer` computes: the response time to the last ACK (s),
    and the largest number of packets waiting (not in service) at each hop's queue."""

    response_s: float
    peak_waiting: tuple[int, ...]


def idle_path_transfer(
    size_bytes: int,
    packet_bytes: int,
    hops: Iterable[tuple[float, float]],
    ack_bytes: int = 40,
    sender: str = "slow-start",
    init_cwnd: int = 1,
) -> IdlePath:
    """One transfer alone on a path of store-and-forward hops, no loss: the hand
    calculation a protocol's response time at very low load is checked against (BLT paper,
    Kim & Farber 1994, §4; it makes exact the lower bounds "R_BLT ≥ D + 0.8 ms" and "≥ 8
    RTTs of slow start" of docs/models/blt.md, "Reproduction targets").

    ``hops`` are (rate bit/s, one-way delay s) from sender to receiver; ACKs cross them
    back in reverse order, each ``ack_bytes`` long. Every hop is a FIFO that serializes
    one packet after another; the receiver acknowledges each packet on arrival. The file is
    ``ceil(size/packet)`` packets (the last one shorter). ``sender``:

    * ``"burst"`` (BLT, Bully-Tyrant): every packet handed to the first hop at t = 0;
    * ``"slow-start"`` (TCP with ``init_cwnd`` segments, one ACK per segment, no
      ssthresh): ``init_cwnd`` packets at t = 0, then two more on each ACK (cwnd + 1, one
      segment acknowledged).

    The packet-by-packet recursion (departure = max(arrival, previous departure) +
    serialization) is exact for this idle path. ``peak_waiting`` tells whether the
    transfer alone overflows a buffer: a hop whose queue holds fewer packets than its peak
    drops some, and the protocol's loss response then adds to the response time (for a
    burst, the first hop's queue is the sender's own: it paces the file at that rate).

    Examples
    --------
    One 1000-byte packet over a 1 Mb/s hop of 10 ms: 8 ms out, 10 ms, the 40-byte ACK
    0.32 ms and 10 ms back.

    >>> round(idle_path_transfer(1000, 1000, [(1e6, 0.01)]).response_s, 5)
    0.02832
    >>> r = idle_path_transfer(100_000, 500, [(150e6, 0.005), (30e6, 0.005), (150e6, 0.005)])
    >>> round(r.response_s, 4), r.peak_waiting    # TCP, 8 rounds of slow start
    (0.2512, (1, 36, 0))
    >>> b = idle_path_transfer(100_000, 500, [(150e6, 0.005), (30e6, 0.005), (150e6, 0.005)],
    ...                        sender="burst")
    >>> round(b.response_s, 4), b.peak_waiting[1]  # 160 of 200 packets wait at 30 Mb/s
    (0.0567, 160)
    """
    if sender not in ("burst", "slow-start"):
        raise ValueError(f"sender must be 'burst' or 'slow-start', not {sender!r}")
    size = int(check_pos("size_bytes", size_bytes))
    pkt = int(check_pos("packet_bytes", packet_bytes))
    hops = [(check_pos("rate", float(r)), check_nonneg("delay", float(d))) for r, d in hops]
    if not hops:
        raise ValueError("hops must name at least one (rate, delay)")
    if init_cwnd < 1:
        raise ValueError(f"init_cwnd must be at least 1, not {init_cwnd}")
    n = -(-size // pkt)
    sizes = [pkt] * (n - 1) + [size - pkt * (n - 1)]
    fwd_free = [0.0] * len(hops)  # when each hop's transmitter is next free
    back_free = [0.0] * len(hops)
    starts: list[list[float]] = [[] for _ in hops]  # service starts, per hop
    peak = [0] * len(hops)
    acks: list[float] = []
    for i, b in enumerate(sizes):
        if sender == "burst" or i < init_cwnd:
            t = 0.0
        else:
            t = acks[(i - init_cwnd) // 2]
        for h, (rate, delay) in enumerate(hops):
            start = max(t, fwd_free[h])
            # Packets that arrived before this one and have not started: waiting now.
            waiting = i - bisect.bisect_right(starts[h], t) + (start > t)
            peak[h] = max(peak[h], waiting)
            starts[h].append(start)
            fwd_free[h] = start + 8.0 * b / rate
            t = fwd_free[h] + delay
        for h in reversed(range(len(hops))):
            rate, delay = hops[h]
            start = max(t, back_free[h])
            back_free[h] = start + 8.0 * ack_bytes / rate
            t = back_free[h] + delay
        acks.append(t)
    return IdlePath(acks[-1], tuple(peak))


def processor_sharing_response_time(idle_s: float, service_s: float, load: float) -> float:
    """Mean response time of a transfer when the bottleneck is shared as an M/G/1
    processor-sharing queue (Kleinrock, Queueing Systems Vol. 2, §4.4): the file's own
    service time ``service_s`` (its bits over the bottleneck rate) stretched to
    ``service_s / (1 − load)``, plus what the idle path adds to it (``idle_s − service_s``:
    propagation, the other hops, the protocol's start-up). The ideal of a fair, work-
    conserving transport: a protocol above it wastes capacity or time (slow start,
    retransmissions), one below it is unfair to some transfers.

    >>> processor_sharing_response_time(0.06, 0.0267, 0.5)
    0.0867
    >>> processor_sharing_response_time(0.06, 0.0267, 1.0)
    inf
    """
    idle_s, service_s = check_nonneg("idle_s", idle_s), check_nonneg("service_s", service_s)
    load = check_nonneg("load", load)
    if service_s > idle_s:
        raise ValueError("service_s is part of idle_s: it cannot be larger")
    if load >= 1.0:
        return math.inf
    return idle_s - service_s + service_s / (1.0 - load)
