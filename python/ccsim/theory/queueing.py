"""Textbook queueing results: the M/M/1/K queue, the M/G/1 and M/D/1 mean waits
(Pollaczek-Khinchine) and the Mathis square-root law of TCP throughput
(``docs/theory.md`` §3). Rates in packets/s (or per second), times in seconds.
"""

from __future__ import annotations

import math

from ._args import check_nonneg, check_pos

__all__ = [
    "mathis_throughput",
    "mathis_window_packets",
    "md1_mean_wait",
    "mg1_mean_wait",
    "mm1k_distribution",
    "mm1k_loss",
    "mm1k_mean_number",
]


def _check_capacity(K: int) -> int:
    if isinstance(K, bool) or int(K) != K or K < 0:
        raise ValueError(f"K must be a non-negative integer, got {K!r}")
    return int(K)


def mm1k_distribution(rho: float, K: int) -> list[float]:
    """Stationary distribution of the M/M/1/K queue.

    ``P(n) = (1 - rho) * rho^n / (1 - rho^(K+1))`` for ``n = 0..K``, and
    ``P(n) = 1/(K+1)`` at ``rho = 1`` (Kleinrock, *Queueing Systems* Vol. 1,
    1975, §3.6; Gross & Harris, *Fundamentals of Queueing Theory*, M/M/1/K).
    Computed as normalized weights ``rho^n``, which is exact at and near
    ``rho = 1`` and does not overflow for large ``rho`` or K.

    ``K`` is the **system** capacity, including the packet in service. A
    drop-tail buffer that holds L waiting packets besides the one being
    serialized (the ns-2 convention) is an M/M/1/(L+1) system.

    Parameters
    ----------
    rho : float
        Offered load ``lambda / mu`` (>= 0; values > 1 are allowed).
    K : int
        System capacity (>= 0).

    Returns
    -------
    list of float
        ``[P(0), ..., P(K)]``, summing to 1.

    Examples
    --------
    >>> [round(p, 4) for p in mm1k_distribution(0.5, 3)]
    [0.5333, 0.2667, 0.1333, 0.0667]
    >>> mm1k_distribution(1.0, 3)
    [0.25, 0.25, 0.25, 0.25]
    """
    rho = check_nonneg("rho", rho)
    K = _check_capacity(K)
    if rho == 0.0:
        return [1.0] + [0.0] * K
    if rho <= 1.0:
        weights = [rho**n for n in range(K + 1)]
    else:  # scale by rho^-K so the largest weight is 1
        inv = 1.0 / rho
        weights = [inv ** (K - n) for n in range(K + 1)]
    total = math.fsum(weights)
    return [w / total for w in weights]


def mm1k_loss(rho: float, K: int) -> float:
    """Blocking (loss) probability of the M/M/1/K queue.

    By PASTA an arrival sees the stationary distribution, so the loss
    probability is ``P(K) = (1 - rho) * rho^K / (1 - rho^(K+1))``
    (Kleinrock Vol. 1, §3.6). At ``rho = 1`` it is ``1/(K+1)``.

    Parameters
    ----------
    rho : float
        Offered load ``lambda / mu``.
    K : int
        System capacity including the one in service.

    Returns
    -------
    float
        Probability that an arriving packet is dropped.

    Examples
    --------
    >>> round(mm1k_loss(0.5, 3), 6)
    0.066667
    >>> round(mm1k_loss(0.9, 10), 6)
    0.050814
    >>> mm1k_loss(1.0, 9)
    0.1
    """
    return mm1k_distribution(rho, K)[-1]


def mm1k_mean_number(rho: float, K: int) -> float:
    """Mean number in an M/M/1/K system (queue plus server).

    ``L = sum_n n*P(n)``; closed form
    ``rho/(1 - rho) - (K + 1)*rho^(K+1) / (1 - rho^(K+1))`` for ``rho != 1``
    and ``K/2`` at ``rho = 1`` (Kleinrock Vol. 1, §3.6). By Little's law the
    mean time in system is ``L / (lambda * (1 - P(K)))``.

    Parameters
    ----------
    rho : float
        Offered load ``lambda / mu``.
    K : int
        System capacity including the one in service.

    Returns
    -------
    float
        Mean number in system.

    Examples
    --------
    >>> round(mm1k_mean_number(0.5, 3), 6)
    0.733333
    >>> mm1k_mean_number(1.0, 10)
    5.0
    """
    dist = mm1k_distribution(rho, K)
    return math.fsum(n * p for n, p in enumerate(dist))


def mg1_mean_wait(lam: float, mean_s: float, second_moment_s: float) -> float:
    """Mean waiting time in queue of the M/G/1 queue (Pollaczek-Khinchine).

    ``W_q = lam * E[S^2] / (2 * (1 - rho))`` with ``rho = lam * E[S]``
    (Pollaczek-Khinchine mean-value formula; Kleinrock Vol. 1, Ch. 5).
    The mean time in system is ``W_q + E[S]``.

    Parameters
    ----------
    lam : float
        Arrival rate (1/s).
    mean_s : float
        Mean service time E[S] (s).
    second_moment_s : float
        Second moment E[S^2] (s^2). Must be >= ``mean_s**2``.

    Returns
    -------
    float
        Mean wait in queue (s); ``math.inf`` when ``rho >= 1`` (no steady
        state).

    Examples
    --------
    M/M/1 with lam = 0.5, mu = 1 (E[S^2] = 2/mu^2): ``W_q = rho/(mu - lam)``.

    >>> mg1_mean_wait(0.5, 1.0, 2.0)
    1.0
    >>> mg1_mean_wait(1.0, 1.0, 1.0)
    inf
    """
    lam = check_nonneg("lam", lam)
    mean_s = check_nonneg("mean_s", mean_s)
    second_moment_s = check_nonneg("second_moment_s", second_moment_s)
    if second_moment_s < mean_s * mean_s * (1.0 - 1e-12):
        raise ValueError("second_moment_s must be >= mean_s**2 (variance >= 0)")
    rho = lam * mean_s
    if rho >= 1.0:
        return math.inf
    return lam * second_moment_s / (2.0 * (1.0 - rho))


def md1_mean_wait(lam: float, service_time: float) -> float:
    """Mean waiting time in queue of the M/D/1 queue.

    Pollaczek-Khinchine with deterministic service (``E[S^2] = S^2``):
    ``W_q = rho * S / (2 * (1 - rho))``, ``rho = lam * S`` -- half the M/M/1
    wait at the same load (Kleinrock Vol. 1, Ch. 5). This is the queue
    seen by Poisson packet arrivals of fixed size on a link.

    Parameters
    ----------
    lam : float
        Arrival rate (packets/s).
    service_time : float
        Deterministic service time S (s), e.g. ``8 * bytes / capacity_bps``.

    Returns
    -------
    float
        Mean wait in queue (s); ``math.inf`` when ``rho >= 1``.

    Examples
    --------
    1000-B packets on 10 Mbps (S = 0.8 ms) at 80 % load:

    >>> round(md1_mean_wait(1000.0, 0.0008), 9)
    0.0016
    """
    service_time = check_nonneg("service_time", service_time)
    return mg1_mean_wait(lam, service_time, service_time * service_time)


def mathis_throughput(mss_bytes: float, rtt_s: float, p: float, C: float = math.sqrt(1.5)) -> float:
    """TCP Reno throughput under random loss (the "square-root formula").

    Mathis, Semke, Mahdavi & Ott, "The macroscopic behavior of the TCP
    congestion avoidance algorithm", ACM CCR 27(3), 1997, §2:
    ``BW = (MSS / RTT) * C / sqrt(p)``, with ``C = sqrt(3/2)`` for periodic
    loss and one ACK per segment (``sqrt(3/4)`` with delayed ACKs). Valid for
    small p without timeouts or receiver-window limits.

    Parameters
    ----------
    mss_bytes : float
        Segment size in bytes.
    rtt_s : float
        Round-trip time in seconds (> 0).
    p : float
        Loss probability per packet, in (0, 1].
    C : float, optional
        Model constant (default ``sqrt(3/2)``).

    Returns
    -------
    float
        Throughput in bytes/s.

    Examples
    --------
    >>> round(mathis_throughput(1000, 0.1, 0.01))
    122474
    """
    mss_bytes = check_nonneg("mss_bytes", mss_bytes)
    rtt_s = check_pos("rtt_s", rtt_s)
    p = check_pos("p", p)
    if p > 1.0:
        raise ValueError(f"p must be <= 1, got {p!r}")
    return mss_bytes * C / (rtt_s * math.sqrt(p))


def mathis_window_packets(p: float) -> float:
    """Mean congestion window of the Mathis et al. (1997) saw-tooth, in packets.

    The window oscillates between ``W/2`` and ``W`` with ``(3/8)*W^2 = 1/p``
    packets per cycle (Mathis et al. 1997, §2), so its mean is
    ``(3/4)*W = sqrt(3/(2p))`` and ``mathis_throughput = MSS * mean / RTT``.
    (The peak is ``W = sqrt(8/(3p))``.)

    Parameters
    ----------
    p : float
        Loss probability per packet, in (0, 1].

    Returns
    -------
    float
        Mean window in packets.

    Examples
    --------
    >>> round(mathis_window_packets(0.01), 4)
    12.2474
    >>> mathis_window_packets(1.5e-2)
    10.0
    """
    p = check_pos("p", p)
    if p > 1.0:
        raise ValueError(f"p must be <= 1, got {p!r}")
    return math.sqrt(3.0 / (2.0 * p))
