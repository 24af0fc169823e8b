"""Router buffer sizing for NewReno and Westwood+: the rule of thumb, idle times,
utilization bounds and the fluid model.

Source: S. Mascolo, F. Vacirca, "Congestion Control and Sizing Router Buffers in the
Internet", IEEE CDC-ECC 2005, §III-IV, with the corrections of ``docs/theory.md`` §1.1
(its §1 gives all the equations).
Capacities in packets/s, buffers and windows in packets, times in seconds.
"""

from __future__ import annotations

import math

from ._args import check_flows, check_nonneg, check_pos

__all__ = [
    "bdp_packets",
    "buffer_rule_of_thumb",
    "fluid_phases_newreno",
    "fluid_utilization_newreno",
    "fluid_utilization_westwood",
    "gaussian_window_utilization",
    "idle_time_newreno",
    "idle_time_westwood",
    "sigma_q_bound",
    "util_bound_reno",
    "util_bound_westwood",
    "util_bound_westwood_as_printed",
]


def bdp_packets(capacity_bps: float, rtt_s: float, packet_bytes: float) -> float:
    """Bandwidth-delay product in packets.

    ``BDP = C * RTT_m / (8 * packet_bytes)``, the quantity that Mascolo &
    Vacirca (2005) call ``C * RTT_m`` (their §III, with C in packets/s).

    Parameters
    ----------
    capacity_bps : float
        Bottleneck capacity in bit/s.
    rtt_s : float
        Round-trip propagation delay RTT_m in seconds.
    packet_bytes : float
        Size of a data packet on the wire, in bytes.

    Returns
    -------
    float
        BDP in packets (not rounded).

    Examples
    --------
    The single-flow scenario of the paper's Fig. 4 (40 Mbps, 1000-B packets):

    >>> bdp_packets(40e6, 0.100, 1000)
    500.0
    >>> bdp_packets(200e6, 0.300, 1000)
    7500.0
    """
    capacity_bps = check_nonneg("capacity_bps", capacity_bps)
    rtt_s = check_nonneg("rtt_s", rtt_s)
    packet_bytes = check_pos("packet_bytes", packet_bytes)
    return capacity_bps * rtt_s / (8.0 * packet_bytes)


def buffer_rule_of_thumb(C: float, rtt_m: float, eps: float = 0.0) -> float:
    """Buffer needed by a single NewReno flow for full utilization.

    Mascolo & Vacirca (2005), eq. (1): ``B >= C * RTT_m + eps``.

    Parameters
    ----------
    C : float
        Bottleneck capacity in packets/s.
    rtt_m : float
        Round-trip propagation delay in seconds.
    eps : float, optional
        Packets lost in one congestion episode (default 0).

    Returns
    -------
    float
        Minimum buffer in packets.

    Examples
    --------
    >>> buffer_rule_of_thumb(5000, 0.1)
    500.0
    >>> buffer_rule_of_thumb(5000, 0.1, eps=3)
    503.0
    """
    C = check_nonneg("C", C)
    rtt_m = check_nonneg("rtt_m", rtt_m)
    eps = check_nonneg("eps", eps)
    return C * rtt_m + eps


def idle_time_newreno(B: float, C: float, rtt_m: float, eps: float = 0.0) -> float:
    """Link idle time per congestion episode for one NewReno flow.

    Mascolo & Vacirca (2005), eq. (3):
    ``idT = [RTT_m/2 + eps/(2C) - B/(2C)]^+``.
    It is zero when the rule of thumb (eq. 1) holds and reaches
    ``RTT_m/2 + eps/(2C)`` at ``B = 0``.

    Parameters
    ----------
    B : float
        Buffer in packets.
    C : float
        Bottleneck capacity in packets/s (> 0).
    rtt_m : float
        Round-trip propagation delay in seconds.
    eps : float, optional
        Packets lost in the episode (default 0).

    Returns
    -------
    float
        Idle time in seconds (>= 0).

    Examples
    --------
    40 Mbps of 1000-B packets (C = 5000 pkts/s), RTT_m = 100 ms, B = 0.1 BDP:

    >>> round(idle_time_newreno(50, 5000, 0.1), 6)
    0.045
    >>> idle_time_newreno(500, 5000, 0.1)
    0.0
    >>> round(idle_time_newreno(0, 5000, 0.1, eps=10), 6)
    0.051
    """
    B = check_nonneg("B", B)
    C = check_pos("C", C)
    rtt_m = check_nonneg("rtt_m", rtt_m)
    eps = check_nonneg("eps", eps)
    # (C*RTT_m + eps - B) / (2C): same expression, exactly 0 at the rule of thumb (1)
    return max(0.0, (C * rtt_m + eps - B) / (2.0 * C))


def idle_time_westwood(C: float, eps: float) -> float:
    """Link idle time per congestion episode for one Westwood+ flow.

    Mascolo & Vacirca (2005), eq. (4): ``idT = eps / C``, independent of the
    buffer size.

    Parameters
    ----------
    C : float
        Bottleneck capacity in packets/s (> 0).
    eps : float
        Packets lost in the episode.

    Returns
    -------
    float
        Idle time in seconds.

    Examples
    --------
    >>> idle_time_westwood(5000, 10)
    0.002
    >>> idle_time_westwood(5000, 0)
    0.0
    """
    C = check_pos("C", C)
    eps = check_nonneg("eps", eps)
    return eps / C


def sigma_q_bound(B: float, bdp: float, n: float) -> float:
    """Upper bound on the standard deviation of the queue, n desynchronized flows.

    Mascolo & Vacirca (2005), eq. (8) **corrected**:
    ``sigma_Q <= (B + C*RTT_m) / (3*sqrt(3)*sqrt(n))``.
    The paper prints ``n`` instead of ``sqrt(n)`` in the denominator of eqs. (7)
    and (8); the derivation (``sigma_W = sqrt(n) * W_i / (3*sqrt(3))`` with
    ``W_i = W / n``) and the paper's own eq. (9) use ``sqrt(n)``.

    Parameters
    ----------
    B : float
        Buffer in packets.
    bdp : float
        Aggregate bandwidth-delay product ``C * mean(RTT_m)`` in packets.
    n : float
        Number of flows (>= 1).

    Returns
    -------
    float
        Bound on sigma_Q in packets.

    Examples
    --------
    >>> round(sigma_q_bound(500, 500, 1), 3)
    192.45
    >>> round(sigma_q_bound(250, 2500, 100), 4)
    52.9238
    """
    B = check_nonneg("B", B)
    bdp = check_nonneg("bdp", bdp)
    n = check_flows(n)
    return (B + bdp) / (3.0 * math.sqrt(3.0) * math.sqrt(n))


def gaussian_window_utilization(B: float, sigma_w: float) -> float:
    """Utilization when the aggregate window is Gaussian with std ``sigma_w``.

    Mascolo & Vacirca (2005), step between eqs. (8) and (9) (after Appenzeller
    et al. 2004): the link stays busy while the aggregate window is within
    ``W_mean +- B/2``, so ``U = erf(B / (2*sqrt(2)*sigma_W))``.

    Parameters
    ----------
    B : float
        Buffer in packets.
    sigma_w : float
        Standard deviation of the aggregate window in packets. ``0`` means a
        constant window and gives ``U = 1`` (for ``B > 0``).

    Returns
    -------
    float
        Utilization in [0, 1].

    Examples
    --------
    >>> round(gaussian_window_utilization(50, 10), 4)
    0.9876
    >>> gaussian_window_utilization(10, 0)
    1.0
    """
    B = check_nonneg("B", B)
    sigma_w = check_nonneg("sigma_w", sigma_w)
    if sigma_w == 0.0:
        return 1.0 if B > 0.0 else 0.0
    return math.erf(B / (2.0 * math.sqrt(2.0) * sigma_w))


def util_bound_reno(b: float, n: float) -> float:
    """Lower bound on link utilization with n desynchronized NewReno flows.

    Mascolo & Vacirca (2005), eq. (9), written with ``b = B / BDP``:
    ``U_Reno >= erf(3*sqrt(3)*sqrt(n)*b / (2*sqrt(2)*(b + 1)))``.
    This is :func:`gaussian_window_utilization` with sigma_W equal to the
    corrected bound (8), :func:`sigma_q_bound`.

    Parameters
    ----------
    b : float
        Buffer as a fraction of the BDP (>= 0).
    n : float
        Number of flows (>= 1).

    Returns
    -------
    float
        Lower bound on utilization, in [0, 1).

    Examples
    --------
    Cells of the table in ``docs/theory.md`` §1.1:

    >>> round(util_bound_reno(0.1, 1), 3)
    0.187
    >>> round(util_bound_reno(0.05, 200), 3)
    0.92
    >>> round(util_bound_reno(0.1, 200), 4)
    0.9992
    """
    b = check_nonneg("b", b)
    n = check_flows(n)
    x = 3.0 * math.sqrt(3.0) * math.sqrt(n) * b / (2.0 * math.sqrt(2.0) * (b + 1.0))
    return math.erf(x)


def util_bound_westwood(n: float) -> float:
    """Lower bound on link utilization with n desynchronized Westwood+ flows.

    Mascolo & Vacirca (2005), eq. (10) **corrected**:
    ``U_West >= erf(sqrt(3n/2))``, independent of the buffer. It follows from
    ``W_i ~ Uniform[C_i*RTT_mi, C_i*RTT_mi + B/n]``, so
    ``sigma_W = B / (sqrt(12)*sqrt(n))`` and ``erf(B / (2*sqrt(2)*sigma_W))``.
    The paper prints ``erf(sqrt(3/2)*n)``; see
    :func:`util_bound_westwood_as_printed`. Both agree at n = 1.

    Parameters
    ----------
    n : float
        Number of flows (>= 1).

    Returns
    -------
    float
        Lower bound on utilization.

    Examples
    --------
    >>> round(util_bound_westwood(1), 4)
    0.9167
    >>> round(util_bound_westwood(2), 4)
    0.9857
    >>> round(util_bound_westwood(5), 5)
    0.99989
    """
    n = check_flows(n)
    return math.erf(math.sqrt(1.5 * n))


def util_bound_westwood_as_printed(n: float) -> float:
    """Eq. (10) of Mascolo & Vacirca (2005) exactly as printed: ``erf(sqrt(3/2)*n)``.

    Kept only to plot next to the corrected :func:`util_bound_westwood`
    (``docs/theory.md`` §1.1, W8); it is not what the derivation gives.

    Parameters
    ----------
    n : float
        Number of flows (>= 1).

    Returns
    -------
    float
        The printed expression's value.

    Examples
    --------
    >>> round(util_bound_westwood_as_printed(1), 4)
    0.9167
    >>> round(util_bound_westwood_as_printed(2), 4)
    0.9995
    """
    n = check_flows(n)
    return math.erf(math.sqrt(1.5) * n)


def fluid_utilization_newreno(b: float) -> float:
    """Single-flow fluid model of NewReno utilization vs buffer.

    Derived in ``docs/theory.md`` §1.2 (not in the paper; it
    checks the paper's Fig. 4 and its "below 82 % at B = 0.1 BDP"). With the
    window in BDP units, ``W_max = 1 + b`` and ``W_min = W_max / 2``; the
    window grows by one packet per RTT. Phase 1 (``W_min -> 1``, empty queue,
    rate ``W/RTT_m``) and phase 2 (``1 -> W_max``, full link, RTT = W/C) give

    ``U(b) = [(1 - W_min^2)/2 + (W_max^2 - 1)/2] / [(1 - W_min) + (W_max^2 - 1)/2]``.

    The result does not depend on C or RTT_m. Fast-recovery time and losses
    are neglected.

    Parameters
    ----------
    b : float
        Buffer as a fraction of the BDP (>= 0). For ``b >= 1`` the queue never
        empties and the function returns exactly 1.0. ``b = 0`` is a valid
        input (the formula has no singularity there): the window oscillates
        between BDP/2 and BDP and ``U = 0.75``.

    Returns
    -------
    float
        Utilization in [0.75, 1].

    Examples
    --------
    >>> round(100 * fluid_utilization_newreno(0.1), 1)
    81.8
    >>> fluid_utilization_newreno(0.0)
    0.75
    >>> fluid_utilization_newreno(1.0)
    1.0
    """
    b = check_nonneg("b", b)
    if b >= 1.0:
        return 1.0
    w_max = 1.0 + b
    w_min = w_max / 2.0
    phase2 = (w_max * w_max - 1.0) / 2.0
    num = (w_min + 1.0) * (1.0 - w_min) / 2.0 + phase2
    den = (1.0 - w_min) + phase2
    return num / den


def fluid_phases_newreno(b: float, bdp: float, rtt_m: float) -> tuple[float, float]:
    """Durations of the two phases of the single-flow NewReno fluid cycle.

    Same model as :func:`fluid_utilization_newreno` (``docs/theory.md`` §1.2), in seconds:

    * empty-queue phase ``t1 = (1 - W_min) * BDP * RTT_m`` (window grows from
      ``W_min`` to BDP at one packet per RTT_m);
    * queueing phase ``t2 = RTT_m * BDP * (W_max^2 - 1) / 2`` (RTT = W/C).

    The sum is the saw-tooth period. For ``b >= 1`` the queue never empties:
    ``t1 = 0`` and ``t2`` is the time from ``W_max/2`` to ``W_max``.

    Parameters
    ----------
    b : float
        Buffer as a fraction of the BDP (>= 0).
    bdp : float
        BDP in packets.
    rtt_m : float
        Round-trip propagation delay in seconds.

    Returns
    -------
    (float, float)
        ``(t_empty, t_queue)`` in seconds.

    Examples
    --------
    Fig. 5(d) (C = 40 Mbps, RTT_m = 100 ms, BDP = 500, B = 0.1 BDP): the
    queue is empty for about 22.5 s of each ~28 s cycle.

    >>> t1, t2 = fluid_phases_newreno(0.1, 500, 0.1)
    >>> round(t1, 3), round(t2, 3), round(t1 + t2, 2)
    (22.5, 5.25, 27.75)
    """
    b = check_nonneg("b", b)
    bdp = check_nonneg("bdp", bdp)
    rtt_m = check_nonneg("rtt_m", rtt_m)
    w_max = 1.0 + b
    w_min = w_max / 2.0
    if w_min >= 1.0:
        return 0.0, rtt_m * bdp * (w_max * w_max - w_min * w_min) / 2.0
    return (1.0 - w_min) * bdp * rtt_m, rtt_m * bdp * (w_max * w_max - 1.0) / 2.0


def fluid_utilization_westwood(b: float, bdp: float | None = None, eps: float = 0.0) -> float:
    """Single-flow fluid model of Westwood+ utilization vs buffer.

    Model (``docs/theory.md`` §1.3; paper §III, eqs. (2) and (4)): after a loss,
    Westwood+ sets ``cwnd = BWE * RTT_m ~= C * RTT_m = BDP``, so the pipe stays
    full and the link only idles for ``eps / C`` per episode (eq. 4). The
    window then grows from BDP to ``(1 + b) * BDP`` at one packet per RTT, with
    RTT = W/C, which takes ``RTT_m * BDP * ((1 + b)^2 - 1) / 2`` seconds
    (at least one RTT_m: an episode cannot repeat faster than once per RTT).
    Hence

    ``U = T_busy / (T_busy + eps * RTT_m / BDP)``,

    which is exactly 1 for ``eps = 0`` and close to 1 otherwise. ``C`` and
    ``RTT_m`` cancel out.

    Parameters
    ----------
    b : float
        Buffer as a fraction of the BDP (>= 0).
    bdp : float, optional
        BDP in packets; required only when ``eps > 0``.
    eps : float, optional
        Packets lost per congestion episode (default 0).

    Returns
    -------
    float
        Utilization in (0, 1].

    Examples
    --------
    >>> fluid_utilization_westwood(0.1)
    1.0
    >>> round(fluid_utilization_westwood(0.1, bdp=500, eps=1), 5)
    0.99996
    >>> round(fluid_utilization_westwood(0.01, bdp=500, eps=5), 4)
    0.998
    """
    b = check_nonneg("b", b)
    eps = check_nonneg("eps", eps)
    if eps == 0.0:
        return 1.0
    if bdp is None:
        raise ValueError("bdp is required when eps > 0")
    bdp = check_pos("bdp", bdp)
    busy_rtts = max(bdp * ((1.0 + b) ** 2 - 1.0) / 2.0, 1.0)  # in units of RTT_m
    idle_rtts = eps / bdp  # eps / C in units of RTT_m
    return busy_rtts / (busy_rtts + idle_rtts)
