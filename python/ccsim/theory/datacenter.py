"""Hand-worked expectations of the data-centre classics (``docs/theory.md`` §6): the
windows of a synchronized incast (Vasudevan et al., SIGCOMM 2009; Alizadeh et al.,
"Data Center TCP", SIGCOMM 2010, §4.2.2) and the throughput of a random permutation on a
k-ary fat-tree under per-flow ECMP hashing (Al-Fares, Loukissas & Vahdat, SIGCOMM 2008,
§3; Raiciu et al., "Improving datacenter performance and robustness with multipath
TCP", SIGCOMM 2011, §4).

Plain Python (``math`` and ``random``): the Monte-Carlo expectation draws its
permutations and hash choices from a seeded :class:`random.Random`.
"""

from __future__ import annotations

import math
import random

from .fairness import max_min_fair

__all__ = [
    "ecmp_permutation_throughput",
    "fat_tree_ecmp_path",
    "incast_no_loss_senders",
    "slow_start_rounds",
]


def slow_start_rounds(segments: int, init_cwnd: int) -> list[int]:
    """The segments a transfer sends in each round trip of a loss-free slow start.

    The window doubles every round trip from ``init_cwnd`` (RFC 5681 §3.1, one
    segment more per ACK), and the last round sends what is left.

    Examples
    --------
    A 64-KB response (44 segments of 1460 B) from an initial window of 3 (RFC 3390):

    >>> slow_start_rounds(44, 3)
    [3, 6, 12, 23]
    >>> slow_start_rounds(2, 10)
    [2]
    """
    if segments < 1 or init_cwnd < 1:
        raise ValueError("slow_start_rounds needs at least one segment and a window")
    rounds, left, w = [], segments, init_cwnd
    while left > 0:
        rounds.append(min(w, left))
        left -= rounds[-1]
        w *= 2
    return rounds


def incast_no_loss_senders(window: float, buffer: float, bdp: float) -> int:
    """The most synchronized senders whose windows of ``window`` packets all fit in the
    bottleneck's ``buffer`` plus the ``bdp`` packets the path holds: n·window ≤ B + BDP
    (the incast overflow condition: Vasudevan et al. 2009 §2; Alizadeh et al. 2010
    §2.3.2). With the last slow-start round as ``window`` it is the largest incast a
    loss-based TCP survives without a drop; with the initial window, the largest one
    ECN can protect at all (its marks return only after the first round trip).

    Examples
    --------
    >>> incast_no_loss_senders(23, 100, 8)   # TCP, a 64-KB response: 4 senders
    4
    >>> incast_no_loss_senders(3, 100, 8)    # the initial windows of 3: 36 senders
    36
    """
    return int(math.floor((buffer + bdp) / window))


def fat_tree_ecmp_path(k: int, src: tuple, dst: tuple, rng: random.Random) -> list[tuple]:
    """The directed links of one flow's path on a k-ary fat-tree (Al-Fares et al. 2008
    §3) under per-flow ECMP: each switch with several shortest next hops picks one
    uniformly (the edge switch an aggregation switch of its pod, the aggregation switch
    one of its k/2 cores); the way down is then fixed. Hosts are ``(pod, edge, index)``;
    links are tuples naming their ends, host links included.
    """
    h = k // 2
    (p, e, _), (q, f, _) = src, dst
    path = [("host-up", src), ("host-down", dst)]
    if (p, e) != (q, f):
        a = rng.randrange(h)
        path += [("edge-agg", p, e, a), ("agg-edge", q, f, a)]
        if p != q:
            c = rng.randrange(h)
            path += [("agg-core", p, a, c), ("core-agg", q, a, c)]
    return path


def ecmp_permutation_throughput(k: int, trials: int, seed: int = 1) -> tuple[float, float]:
    """The expected max-min fair throughput of a random permutation on a k-ary
    fat-tree with per-flow ECMP, as a fraction of full bisection: mean and standard
    deviation over ``trials`` draws (Monte Carlo).

    Each trial draws a permutation without fixed points uniformly (as ccsim's
    ``permutation`` matrix), a path per flow by :func:`fat_tree_ecmp_path` and gives
    the flows their max-min fair rates (:func:`ccsim.theory.max_min_fair`, links of
    capacity 1); full bisection is every host sending at its link rate. Collisions of
    flows on one uplink are what pull it below 1 (Al-Fares et al. 2008 §2.3; Raiciu et
    al. 2011 §4: "a single-path TCP with ECMP" on a permutation).

    Examples
    --------
    >>> m, s = ecmp_permutation_throughput(4, 200)
    >>> 0.5 < m < 0.7 and 0.03 < s < 0.15
    True
    """
    if k < 2 or k % 2:
        raise ValueError("k must be even and at least 2")
    rng = random.Random(seed)
    h = k // 2
    hosts = [(p, e, i) for p in range(k) for e in range(h) for i in range(h)]
    n = len(hosts)
    fractions = []
    for _ in range(trials):
        while True:  # rejection: a uniform permutation without fixed points
            perm = list(range(n))
            rng.shuffle(perm)
            if all(perm[i] != i for i in range(n)):
                break
        paths = {s: fat_tree_ecmp_path(k, hosts[s], hosts[d], rng) for s, d in enumerate(perm)}
        capacity = {link: 1.0 for p in paths.values() for link in p}
        fractions.append(math.fsum(max_min_fair(paths, capacity).values()) / n)
    mean = math.fsum(fractions) / trials
    var = math.fsum((x - mean) ** 2 for x in fractions) / max(1, trials - 1)
    return mean, math.sqrt(var)
