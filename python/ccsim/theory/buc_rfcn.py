"""The equilibrium of N conversations under a BUC gateway with RFCN.

Source: Ziegler & Clausen, "Congestion avoidance with BUC (buffer utilization control)
gateways and RFCN (reverse feedback congestion notification)", IEEE IPCCC 1997, §3.2,
§3.4 and §5 (``docs/models/buc-rfcn.md``, "What the analysis predicts";
``docs/theory.md`` §2b). Queues and windows in packets.
"""

from __future__ import annotations

import math

from ._args import check_flows, check_nonneg, check_pos

__all__ = [
    "buc_equilibrium",
]


def buc_equilibrium(tbu: float, n: int, pipe: float, rwnd: float = math.inf) -> tuple[float, float]:
    """Equilibrium of N identical BUC-controlled conversations: (queue, window) per flow.

    Ziegler & Clausen 1997, §3.2, §3.4 and §5 footnote 11
    (``docs/models/buc-rfcn.md``, "What the analysis predicts"): each
    conversation's queue converges to ``TQL = TBU / N`` and its window to what keeps
    that queue plus its share of the pipe in flight, ``TQL + pipe / N``. A receiver
    window below that caps the window; BUC is then never invoked and the queue is
    ``rwnd - pipe / N`` (FTP1 alone in the convergence experiment: 64 - 16 = 48).

    Parameters
    ----------
    tbu : float
        Target buffer utilization, packets.
    n : int
        Conversations sharing the port (>= 1).
    pipe : float
        Packets in flight on the path without queueing (bandwidth x RTT_prop).
    rwnd : float, optional
        Receiver window, packets (default unlimited).

    Returns
    -------
    (float, float)
        ``(queue, window)`` per conversation, packets.

    Examples
    --------
    The convergence experiment (TBU 60, 16 packets in the pipe, receiver window 64):

    >>> buc_equilibrium(60, 1, 16, rwnd=64)
    (48.0, 64.0)
    >>> buc_equilibrium(60, 2, 16, rwnd=64)
    (30.0, 38.0)
    >>> [round(x, 2) for x in buc_equilibrium(60, 3, 16, rwnd=64)]
    [20.0, 25.33]
    """
    tbu = check_pos("tbu", tbu)
    n = check_flows(n)
    pipe = check_nonneg("pipe", pipe)
    rwnd = check_pos("rwnd", rwnd)
    share = pipe / n
    window = tbu / n + share
    if rwnd < window:
        return max(rwnd - share, 0.0), rwnd
    return tbu / n, window
