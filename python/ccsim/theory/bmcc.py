"""BMCC's control laws: multiplicative increase, additive increase and
multiplicative decrease as functions of the load factor, and the cross traffic's
arrival rate.

Source: Qazi, Znati & Andrew, "Incremental deployment of new ECN-compatible congestion
control", PFLDNeT 2009, eqs. 2-6 (§3.3) and the cross traffic of §4 (model page:
docs/models/bmcc.md).
"""

from __future__ import annotations


from ._args import check_nonneg, check_pos

__all__ = [
    "bmcc_ai_increment",
    "bmcc_cross_arrival_rate",
    "bmcc_md_factor",
    "bmcc_mi_factor",
]


BMCC_ETA0, BMCC_U = 0.15, 1.2


def bmcc_mi_factor(f: float, rtt: float, tp: float = 0.2, kappa2: float = 0.35) -> float:
    """BMCC's multiplicative increase per RTT in low load (eqs. 2-3).

    ``(1 + xi(f))^(rtt/tp)`` with ``xi(f) = kappa2 (1 - f) / f``; ``f`` is the echoed
    load-factor estimate (no lower than eta0 = 0.15), ``rtt`` the flow's RTT and
    ``tp`` the routers' measurement interval (s). Per ``tp`` the factor is
    ``1 + xi`` whatever the RTT: windows grow at a rate independent of T.

    Examples
    --------
    >>> round(bmcc_mi_factor(0.15, 0.2), 4)   # the paper's "factor of 3 per t_p"
    2.9833
    >>> round(bmcc_mi_factor(0.15, 0.04), 3), round(bmcc_mi_factor(0.15, 0.3), 3)
    (1.244, 5.153)
    """
    f = max(check_pos("f", f), BMCC_ETA0)
    rtt, tp = check_nonneg("rtt", rtt), check_pos("tp", tp)
    return (1.0 + kappa2 * (1.0 - f) / f) ** (rtt / tp)


def bmcc_ai_increment(rtt: float, tp: float = 0.2) -> float:
    """BMCC's additive increase per RTT in high load (eq. 4): ``alpha = (rtt/tp)^2``
    packets, which makes the equilibrium window proportional to the RTT.

    Examples
    --------
    >>> round(bmcc_ai_increment(0.04), 6), round(bmcc_ai_increment(0.3), 6)
    (0.04, 2.25)
    """
    rtt, tp = check_nonneg("rtt", rtt), check_pos("tp", tp)
    return (rtt / tp) ** 2


def bmcc_md_factor(f: float, beta_max: float = 0.875, beta_min: float = 0.65) -> float:
    """BMCC's multiplicative decrease in overload (eqs. 5-6): ``beta(f)``, linear from
    ``beta_max`` at f = 1 to ``beta_min`` at f = u = 1.2, held outside that range.

    Examples
    --------
    >>> bmcc_md_factor(1.0), round(bmcc_md_factor(1.1), 4), bmcc_md_factor(1.2)
    (0.875, 0.7625, 0.65)
    """
    x = min(max((float(f) - 1.0) / (BMCC_U - 1.0), 0.0), 1.0)
    return beta_max - (beta_max - beta_min) * x


def bmcc_cross_arrival_rate(capacity_bps: float, share: float, mean_bytes: float) -> float:
    """Poisson arrival rate (files/s) of cross traffic offering ``share`` of a link of
    ``capacity_bps`` with files of ``mean_bytes`` (the paper's §4: 10 % of C, 30-kB mean).

    Examples
    --------
    >>> bmcc_cross_arrival_rate(45e6, 0.1, 30_000)
    18.75
    """
    return check_pos("capacity_bps", capacity_bps) * share / (8.0 * check_pos("mean", mean_bytes))
