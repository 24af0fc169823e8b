"""RCP, the Rate Control Protocol, as a sketch of explicit feedback written in Python.

Source: N. Dukkipati and N. McKeown, "Why Flow-Completion Time is the Right Metric for
Congestion Control", ACM CCR 36(1), 2006, and N. Dukkipati, "Rate Control Protocol
(RCP): Congestion Control to Make Flows Complete Quickly", PhD thesis, Stanford, 2007
(§2.2). Every router keeps one rate R for all the flows through a link and updates it
once per control interval T::

    R ← R · (1 + (T/d) · (α·(C − y) − β·q/d) / C)

where C is the link's capacity, y the rate of the traffic that arrived in the last
interval, q the queue, d the flows' mean round-trip time, α and β gains (0.1 and 1 in
the thesis). Each data packet carries the smallest R of the routers it crossed; the
receiver echoes it; the sender sends at that rate.

Here the header field is the packet's ``stamp`` (:mod:`ccsim.extend`: a number any queue
may rewrite, echoed to the sender in every ACK), ``RcpRouter`` is a queue discipline
that only rewrites it (drop-tail otherwise), and ``Rcp`` a congestion control that
paces at the echoed rate and keeps a window of that rate times its RTT (and a little
more, so that the window never limits a paced sender). Rates travel in payload bytes
per second, as ``s.pacing_rate``.

A sketch, not a validated model: d is a parameter of the router (the thesis
estimates it from a field the senders write), the sender has no slow start (it starts
at the rate the first ACK brings, after a first window of ``init_cwnd`` segments),
and a loss halves the rate until the next echo. ``docs/extending.md`` builds it step
by step and compares it with CUBIC and BBR.
"""

from __future__ import annotations

from ccsim.extend import (
    PASS,
    CongestionControl,
    ParameterError,
    QueueDiscipline,
    parse_rate,
    parse_time,
)

#: What a sender writes in the field: no router has spoken yet (a rate above any link).
UNLIMITED = 1e15


class RcpRouter(QueueDiscipline):
    """The router's rate R on one link, written into every data packet that passes.

    ``interval``: the control interval T (default 10 ms); ``rtt``: d, the flows' mean
    round-trip time (default 100 ms); ``alpha``, ``beta``: the gains (0.1, 1).
    ``initial``: R before the first update, as a rate (default: the link's capacity).
    """

    passes_idle = False

    def __init__(self, interval="10ms", rtt="100ms", alpha=0.1, beta=1.0, initial=None):
        self.t_ns = parse_time(interval, "interval")
        self.d_ns = parse_time(rtt, "rtt")
        if self.t_ns <= 0:
            raise ParameterError("interval", interval, "a positive time")
        if self.d_ns <= 0:
            raise ParameterError("rtt", rtt, "a positive time")
        if not 0 < alpha <= 1 or not 0 <= beta <= 2:
            raise ParameterError("alpha", alpha, "alpha in (0, 1] and beta in [0, 2]")
        self.alpha, self.beta = alpha, beta
        self.initial = initial
        self.rate = 0.0  # R, payload bytes/s
        self.next_ns = 0
        self.arrived = 0  # bytes in this interval

    def setup(self, q):
        self.capacity = q.rate / 8  # bytes/s
        self.rate = (
            self.capacity if self.initial is None else parse_rate(self.initial, "initial") / 8
        )

    def _update(self, q):
        t = self.t_ns * 1e-9
        d = self.d_ns * 1e-9
        y = self.arrived / t
        spare = self.alpha * (self.capacity - y) - self.beta * q.backlog_bytes / d
        self.rate *= 1 + (t / d) * spare / self.capacity
        self.rate = min(max(self.rate, 1e3), self.capacity)
        self.arrived = 0

    def enqueue(self, q, p):
        if q.now_ns >= self.next_ns:
            if self.next_ns:
                self._update(q)
            self.next_ns = q.now_ns + self.t_ns
        self.arrived += p.size
        if p.kind == "data":
            p.stamp = min(p.stamp or UNLIMITED, self.rate)
        return PASS

    def trace(self):
        return {"rate_bps": self.rate * 8}


class Rcp(CongestionControl):
    """Sends at the rate the routers wrote (paced), with a window of that rate times the
    smoothed RTT plus ``headroom`` segments."""

    controls_window = True
    paces = True

    def __init__(self, headroom=4):
        self.headroom = headroom
        self.rate = 0.0

    def ssthresh(self, s):
        self.rate /= 2  # until the next echo
        return max(s.cwnd // 2, 2 * s.mss)

    def cong_avoid(self, s, acked):
        pass  # the window follows the rate (cong_control)

    def cong_control(self, s, a):
        s.stamp = UNLIMITED
        if a.stamp and a.stamp < UNLIMITED:
            self.rate = a.stamp
        if self.rate <= 0 or s.srtt_ns is None:
            return False  # nothing heard yet: the initial window stands
        s.pacing_rate = int(self.rate)
        s.cwnd = int(self.rate * s.srtt_ns * 1e-9) + self.headroom * s.mss
        s.ssthresh = s.cwnd
        return True

    def trace(self):
        return self.rate * 8
