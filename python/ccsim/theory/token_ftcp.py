"""Token-based Fast-TCP, the ACK-delaying gateway: packets sent in congestion
avoidance, throughput, the peak buffer of plain TCP, the gate's cap and the paper's
conditions.

Source: the token-based Fast-TCP paper (an OPNET study whose surviving text lacks title
and authors), §2-§3; its OCR-damaged equations as reconstructed in
``docs/models/token-gate.md`` ("Modelling decisions") and ``docs/theory.md`` §2.
Windows in packets, times in seconds.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ._args import check_nonneg, check_pos

__all__ = [
    "token_ftcp_ca_packets",
    "token_ftcp_conditions",
    "token_ftcp_gate_cap",
    "token_ftcp_tcp_peak_buffer",
    "token_ftcp_throughput",
    "TokenConditions",
]


def token_ftcp_ca_packets(ws: float) -> float:
    """Packets sent during congestion avoidance, plain TCP without loss.

    Token F-TCP paper, §2.2, eq. (13) as reconstructed in
    ``docs/models/token-gate.md``: the window is ``ws + i`` in CA cycle
    ``i = 1..ws`` (up to the maximum window ``2*ws``), so
    ``n = sum_{i=1}^{ws} (ws + i) = ws^2 + ws*(ws+1)/2``.

    Parameters
    ----------
    ws : float
        Slow-start threshold in packets (may be non-integer, as in the paper).

    Returns
    -------
    float
        Number of packets.

    Examples
    --------
    >>> round(token_ftcp_ca_packets(32768 / 576), 1)
    4883.0
    >>> token_ftcp_ca_packets(57)
    4902.0
    """
    ws = check_nonneg("ws", ws)
    return ws * ws + ws * (ws + 1.0) / 2.0


def token_ftcp_throughput(ws_packets: float, T: float) -> float:
    """Average throughput over slow start plus congestion avoidance.

    Token F-TCP paper, §2.2, eq. (14) (``docs/models/token-gate.md``, "Throughput
    against eq. (14)"):
    ``lambda = (ws + n) / (T*(log2(ws) + 1) + T*ws)`` packets/s, with ``n`` from
    eq. (13) (:func:`token_ftcp_ca_packets`). Slow start lasts
    ``log2(ws) + 1`` epochs and is credited with ``ws`` packets; CA lasts
    ``ws`` epochs. Holds for plain TCP and Token F-TCP alike when eqs. (10)
    and (12) hold.

    The paper's 276.877 pkts/s needs ``ws = 32768/576`` (576-byte datagrams,
    non-integer) and ``T = 0.28 s`` (the 2 x 140 ms long-haul delay only). The
    real RTT of the simulated path is about 287.45 ms (access hops and
    serialization), which gives about 269.7 pkts/s: an explained ~2 % gap, not
    a simulator bug.

    Parameters
    ----------
    ws_packets : float
        Slow-start threshold in packets (> 1).
    T : float
        Epoch length in seconds (``tau + 1/u``; the paper uses 0.28).

    Returns
    -------
    float
        Throughput in packets/s.

    Examples
    --------
    >>> round(token_ftcp_throughput(32768 / 576, 0.28), 3)
    276.877
    >>> round(token_ftcp_throughput(57, 0.28), 3)
    277.454
    """
    ws = check_pos("ws_packets", ws_packets)
    if ws < 1.0:
        raise ValueError(f"ws_packets must be >= 1, got {ws!r}")
    T = check_pos("T", T)
    n = token_ftcp_ca_packets(ws)
    return (ws + n) / (T * (math.log2(ws) + 1.0) + T * ws)


def token_ftcp_tcp_peak_buffer(ws: float) -> float:
    """Plain-TCP buffer needed for zero loss (peak queue in slow start).

    Token F-TCP paper, eq. (11): ``B > ws / 2``; the queue peak of a slow-start
    cycle is half that cycle's final window, largest in the last one. Units
    follow ``ws`` (packets, bytes or bits).

    Parameters
    ----------
    ws : float
        Slow-start threshold.

    Returns
    -------
    float
        ``ws / 2`` in the units of ``ws``.

    Examples
    --------
    >>> token_ftcp_tcp_peak_buffer(32768)  # bytes
    16384.0
    >>> round(token_ftcp_tcp_peak_buffer(32768 / 576), 2)  # 576-B packets
    28.44
    """
    ws = check_nonneg("ws", ws)
    return ws / 2.0


def token_ftcp_gate_cap(Bf_bits: float, Lp_bits: float, Th: int) -> float:
    """Maximum forward-buffer occupancy under the token gateway, in bits.

    Token F-TCP paper, §3.1 eqs. (17)-(18) and §4.1: the queue is capped at
    ``B_T - Th + 1`` packets with ``B_T = floor(Bf / Lp)`` (floor: decision T2 of
    ``docs/models/token-gate.md``), i.e.
    ``(floor(Bf/Lp) - Th + 1) * Lp`` bits.

    Parameters
    ----------
    Bf_bits : float
        Forward buffer in bits.
    Lp_bits : float
        (Average) packet length in bits.
    Th : int
        Token threshold in packets.

    Returns
    -------
    float
        Cap in bits.

    Examples
    --------
    The paper's 27 648 bits (Bf = 40 000 bits, 576-byte packets, Th = 3):

    >>> token_ftcp_gate_cap(40000, 4608, 3)
    27648.0
    """
    Bf_bits = check_nonneg("Bf_bits", Bf_bits)
    Lp_bits = check_pos("Lp_bits", Lp_bits)
    Th = check_nonneg("Th", Th)
    tokens = math.floor(Bf_bits / Lp_bits)
    return (tokens - Th + 1.0) * Lp_bits


class TokenConditions(NamedTuple):
    """Result of :func:`token_ftcp_conditions`."""

    uT: float
    """Pipe size ``u * T`` in packets."""
    slow_start_ok: bool
    """Eq. (10): ``ws < u*T`` (no standing queue between slow-start cycles)."""
    congestion_avoidance_ok: bool
    """Eq. (12): ``2*ws < u*T`` (maximum window fits in the pipe during CA)."""


def token_ftcp_conditions(u: float, T: float, ws: float) -> TokenConditions:
    """Check the no-standing-queue conditions of the token F-TCP analysis.

    Token F-TCP paper, eq. (10) ``ws < u*T`` (slow start) and eq. (12)
    ``2*ws < u*T`` (congestion avoidance), §2.1-2.2.
    When both hold, every cycle lasts one epoch T and eq. (14) applies to plain
    TCP and Token F-TCP alike.

    Parameters
    ----------
    u : float
        Bottleneck rate in packets/s.
    T : float
        Epoch in seconds.
    ws : float
        Slow-start threshold in packets.

    Returns
    -------
    TokenConditions
        ``(uT, slow_start_ok, congestion_avoidance_ok)``.

    Examples
    --------
    The paper's path: 2 Mbps of 4608-bit packets, T = 0.28 s, ws = 56.89:

    >>> c = token_ftcp_conditions(2e6 / 4608, 0.28, 32768 / 576)
    >>> round(c.uT, 1), c.slow_start_ok, c.congestion_avoidance_ok
    (121.5, True, True)
    >>> token_ftcp_conditions(434.0, 0.28, 70).congestion_avoidance_ok
    False
    """
    u = check_nonneg("u", u)
    T = check_nonneg("T", T)
    ws = check_nonneg("ws", ws)
    uT = u * T
    return TokenConditions(uT=uT, slow_start_ok=ws < uT, congestion_avoidance_ok=2.0 * ws < uT)
