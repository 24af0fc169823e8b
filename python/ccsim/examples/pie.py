"""PIE, Proportional Integral controller Enhanced, as a Python queue discipline: a port
of the built-in ``kind = "pie"`` (crates/ccsim-core/src/qdisc/pie.rs; model page
docs/models/pie.md) written only against :mod:`ccsim.extend`, which gives the
built-in's results to the last bit (tests/test_extend_aqm.py).

Sources, as the built-in module cites them: R. Pan, P. Natarajan, F. Baker, G. White,
"Proportional Integral Controller Enhanced (PIE): A Lightweight Control Scheme to Address
the Bufferbloat Problem", RFC 8033 (2017), §4–5; Linux's sch_pie (``pie_drop_early``,
``pie_calculate_probability``) with its defaults (queue delay from timestamps,
de-randomized drops, decay by 1/64); with ``burst = "ns3"``, ns-3's ``PieQueueDisc``
burst periods.

Use it as the built-in, with the same keys and defaults::

    queue = {kind = "python", class = "ccsim.examples.pie:PIE", target = "15ms",
             t_update = "15ms", alpha = 0.125, beta = 1.25, max_burst = "150ms",
             ecn = false, mtu = "1500B", derandomize = true, burst = "rfc8033"}

Times are strings with a unit as in a scenario ("15ms") or a number of seconds; ``mtu``
a size ("1500B") or a whole number of bytes; ``alpha`` and ``beta`` numbers in [0, 32]
(per second, RFC 8033 §4.2). The units are read by :func:`ccsim.extend.parse_time` and
:func:`ccsim.extend.parse_size`, the engine's own parsers, which read "15ms" as the
scenario reader does. A parameter the built-in refuses is refused with a
:class:`ccsim.ParameterError` in the built-in's words (a unit of the wrong form in the
parser's): the scenario is refused with a ``ScenarioError`` naming the same key
(``topology.bottleneck.queue.burst``).

The port. Everything PIE decides, it decides at enqueue (the early drop or mark of
RFC 8033 §5.1); at dequeue it only measures the queue delay (the packet's sojourn, 0 when
it leaves the queue empty: Linux's default without the departure-rate estimator). The
probability update every ``t_update`` (§4.2, §4.4) needs no timer: its inputs change only
at enqueue and dequeue, so the updates due since the last event are run, in order, first
thing in each hook, exactly as the built-in does; ``empty`` runs them for a dequeue that
finds the queue empty, as the built-in's dequeue does. The built-in runs them before it
takes the head out, so "the queue is empty" during an update is
``q.backlog_packets == 0`` at enqueue (the arrival not yet counted) and in ``empty``, and
false in ``dequeue`` (a packet was there). An arrival that does not fit (``q.full``) gets
PASS, which the engine counts as an overflow, after resetting the accumulated
probability as the built-in does, with no early-drop test (and so no random draw). The
random draw is ``q.random()``, the queue's own stream, which is the one the built-in
draws from. Delays are kept in integer nanoseconds and turned into seconds as the
engine's ``Time::as_secs_f64`` does (``ns * 1e-9``), so the probability is computed with
the same doubles in the same order.

:meth:`PIE.trace` gives the ``ts_qdisc`` series the built-in does: ``prob``,
``qdelay_s`` and ``burst_s`` (the burst allowance left).
"""

from __future__ import annotations

from ccsim import ParameterError, QueueDiscipline, Verdict
from ccsim.extend import parse_size, parse_time

__all__ = ["PIE"]

#: ns-3's BURST_RESET_TIMEOUT (ns): light updates that end a burst period.
BURST_RESET_TIMEOUT = 1_500_000_000

# ns-3's burst states (PieQueueDisc::BurstStateT).
NO_BURST, IN_BURST, IN_BURST_PROTECTING = 0, 1, 2


# ---------------------------------------------------------------- parameters


def _secs(ns: int) -> str:
    """A time as the engine writes it in a message: exact decimal seconds ("0.1s")."""
    s, f = divmod(ns, 1_000_000_000)
    return f"{s}s" if f == 0 else f"{s}.{f:09d}".rstrip("0") + "s"


def _weight(key: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 32.0:
        raise ParameterError(key, v, "a number in [0, 32]")
    return float(v)


class PIE(QueueDiscipline):
    """PIE (RFC 8033) over the engine's FIFO: early drops (or, with ``ecn``, marks while
    p ≤ 10 %) at enqueue with a probability updated every ``t_update`` from the queue
    delay.

    Parameters (the built-in's keys and defaults): ``target`` ("15ms"), ``t_update``
    ("15ms"), ``alpha`` (0.125), ``beta`` (1.25), ``max_burst`` ("150ms"), ``ecn``
    (False), ``mtu`` ("1500B": no early drop below two of them queued), ``derandomize``
    (True, §5.1), ``burst`` ("rfc8033" or "ns3")."""

    def __init__(
        self,
        target="15ms",
        t_update="15ms",
        alpha: float = 0.125,
        beta: float = 1.25,
        max_burst="150ms",
        ecn: bool = False,
        mtu="1500B",
        derandomize: bool = True,
        burst: str = "rfc8033",
    ):
        # (the built-in's checks, in its order and with its wording)
        self.target = parse_time(target, "target")
        self.t_update = parse_time(t_update, "t_update")
        self.alpha = _weight("alpha", alpha)
        self.beta = _weight("beta", beta)
        self.max_burst = parse_time(max_burst, "max_burst")
        if not isinstance(ecn, bool):
            raise ParameterError("ecn", ecn, "true or false")
        self.mtu = parse_size(mtu, "mtu")
        if not isinstance(derandomize, bool):
            raise ParameterError("derandomize", derandomize, "true or false")
        if burst not in ("rfc8033", "ns3"):
            raise ParameterError("burst", burst, 'one of "rfc8033", "ns3"')
        for key, ns in (("target", self.target), ("t_update", self.t_update)):
            if ns == 0:
                raise ParameterError(key, _secs(ns), "a positive time (RFC 8033 §4.1)")
        self.ecn = ecn
        self.derandomize = derandomize
        self.ns3_burst = burst == "ns3"
        # State (times in ns).
        self.prob = 0.0  # drop probability
        self.qdelay = 0  # sojourn of the last departure (0 once the queue is empty)
        self.qdelay_old = 0  # qdelay at the last update
        # ns-3 arms the allowance at the first early-drop test
        self.burst = 0 if self.ns3_burst else self.max_burst
        self.burst_state = NO_BURST
        self.burst_reset = 0  # ns-3: light updates since the allowance ran out
        self.accu_prob = 0.0
        self.next_update = self.t_update

    def _vars(self) -> tuple:
        return (
            self.prob,
            self.qdelay,
            self.qdelay_old,
            self.burst,
            self.burst_state,
            self.burst_reset,
            self.accu_prob,
        )

    def _update(self, empty: bool) -> None:
        """One probability update (RFC 8033 §4.2, §4.4; Linux pie_calculate_probability)."""
        qd = self.qdelay * 1e-9
        qd_old = self.qdelay_old * 1e-9
        target = self.target * 1e-9
        # (Linux: a zero delay with packets queued means a tiny backlog: no update.)
        update = self.qdelay != 0 or empty
        p = self.prob
        if p < 1e-6:
            scale = 1.0 / 2048.0
        elif p < 1e-5:
            scale = 1.0 / 512.0
        elif p < 1e-4:
            scale = 1.0 / 128.0
        elif p < 1e-3:
            scale = 1.0 / 32.0
        elif p < 1e-2:
            scale = 1.0 / 8.0
        elif p < 0.1:
            scale = 1.0 / 2.0
        else:
            scale = 1.0
        delta = scale * (self.alpha * (qd - target) + self.beta * (qd - qd_old))
        if delta > 0.02 and p >= 0.1:
            delta = 0.02
        if qd > 0.25:
            delta += 0.02
        if self.ns3_burst and self.burst > 0:
            self.prob = 0.0  # ns-3: p is held at zero while the allowance lasts
        elif update:
            p = p + delta
            if p < 0.0:
                p = 0.0
            if p > 1.0:
                p = 1.0
            if self.qdelay == 0 and self.qdelay_old == 0:
                p -= p / 64.0
            self.prob = p
        self.burst = max(self.burst - self.t_update, 0)
        half = self.target // 2
        light = self.qdelay < half and self.qdelay_old < half and self.prob == 0.0
        if not self.ns3_burst:
            if light:
                self.burst = self.max_burst
                self.accu_prob = 0.0
        elif light and self.burst == 0:
            if self.burst_state == IN_BURST_PROTECTING:
                self.burst_state = IN_BURST
                self.burst_reset = 0
            elif self.burst_state == IN_BURST:
                self.burst_reset += 1
                if self.burst_reset > BURST_RESET_TIMEOUT // self.t_update:
                    self.burst_reset = 0
                    self.burst_state = NO_BURST
        elif self.burst_state == IN_BURST:
            self.burst_reset = 0
        self.qdelay_old = self.qdelay

    def _catch_up(self, now: int, empty: bool) -> None:
        """Runs the updates due by ``now``, as a timer would have run them; after one
        that changes nothing (a fixed point) the rest are skipped."""
        step = self.t_update
        while self.next_update <= now:
            before = self._vars()
            self._update(empty)
            self.next_update += step
            if self.next_update <= now and self._vars() == before:
                self.next_update += ((now - self.next_update) // step + 1) * step

    def _drop_early(self, q) -> bool:
        """Early drop decision for an arrival (RFC 8033 §5.1, Linux pie_drop_early)."""
        if self.burst > 0:
            return False
        if self.ns3_burst and self.burst_state == NO_BURST:
            # ns-3 arms the allowance here and goes on to the test
            self.burst_state = IN_BURST_PROTECTING
            self.burst = self.max_burst
        if self.qdelay < self.target // 2 and self.prob < 0.2:
            return False
        if q.backlog_bytes < 2 * self.mtu:
            return False
        if self.derandomize:
            if self.prob == 0.0:
                self.accu_prob = 0.0
            self.accu_prob += self.prob
            if self.accu_prob < 0.85:
                return False
            if self.accu_prob >= 8.5:
                return True
        if q.random() < self.prob:
            self.accu_prob = 0.0
            return True
        return False

    # -- hooks

    def enqueue(self, q, p) -> int:
        self._catch_up(q.now_ns, q.backlog_packets == 0)
        if q.full:
            self.accu_prob = 0.0
            return Verdict.PASS  # the engine drops it as an overflow
        if self._drop_early(q):
            if self.ecn and self.prob <= 0.1 and p.ect:
                return Verdict.MARK
            self.accu_prob = 0.0
            return Verdict.DROP
        return Verdict.PASS

    def dequeue(self, q, p) -> int:
        self._catch_up(q.now_ns, False)
        self.qdelay = 0 if q.backlog_packets == 0 else p.sojourn_ns
        return Verdict.PASS

    def empty(self, q) -> None:
        self._catch_up(q.now_ns, True)

    def trace(self) -> dict[str, float]:
        return {
            "prob": self.prob,
            "qdelay_s": self.qdelay * 1e-9,
            "burst_s": self.burst * 1e-9,
        }
