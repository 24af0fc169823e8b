"""CoDel, Controlled Delay, as a Python queue discipline: a port of the built-in
``kind = "codel"`` (crates/ccsim-core/src/qdisc/codel.rs; model page docs/models/codel.md)
written only against :mod:`ccsim.extend`, which gives the built-in's results to the last
bit (tests/test_extend_aqm.py).

Sources, as the built-in module cites them: K. Nichols, V. Jacobson, A. McGregor,
J. Iyengar, "Controlled Delay Active Queue Management", RFC 8289 (2018), §5 pseudocode
(after K. Nichols, V. Jacobson, "Controlling Queue Delay", ACM Queue 10(5), 2012); Linux's
CoDel (``codel_should_drop``, ``codel_dequeue``, ``codel_Newton_step``,
``codel_control_law``), whose re-entry rule RFC 8289 §5.3 adopts.

Use it as the built-in, with the same keys and defaults::

    queue = {kind = "python", class = "ccsim.examples.codel:CoDel",
             target = "5ms", interval = "100ms", mtu = "1500B", ecn = false,
             inv_sqrt = "exact"}

``target`` and ``interval`` are times with a unit, as in a scenario ("5ms", "250us",
"0.1s"), or a number of seconds; ``mtu`` a size ("1500B", "1.5KB") or a whole number of
bytes; ``inv_sqrt`` is "exact" (interval/√count in floating point, RFC 8289 §5.5) or
"newton" (Linux's and ns-3's 16-bit fixed-point reciprocal square root, one Newton step
per change of count). The units are read by :func:`ccsim.extend.parse_time` and
:func:`ccsim.extend.parse_size`, the engine's own parsers, so "5ms" here is the
built-in's 5 000 000 ns. A parameter the built-in refuses is refused with a
:class:`ccsim.ParameterError` in the built-in's words (a unit of the wrong form in the
parser's): the scenario is refused with a ``ScenarioError`` naming the same key
(``topology.bottleneck.queue.target``).

How the port maps the built-in's dequeue onto the hooks. The built-in's dequeue is one
loop (RFC 8289 §5.3–5.4): it takes the head, decides, and after each drop takes the next
head and decides again. Here the engine keeps the FIFO and runs that loop: it takes the
head out and calls ``dequeue(q, p)``; after a DROP it takes the next head and calls
``dequeue`` again, or calls ``empty(q)`` when none is left. ``q.dropped`` (the packets
this dequeue has dropped so far) tells the first head (0) from the ones that follow a
drop, and ``self._after`` remembers which drop it followed: the one that entered the
dropping state (the built-in then only re-evaluates ``should_drop`` for its side effects
and sends the packet) or one of the dropping state's (the next head is tested, and the
next drop scheduled, before the loop's test). ``q.backlog_bytes`` at dequeue excludes the
packet taken out, as the built-in's backlog after its ``pop``. Times are integer
nanoseconds throughout (``q.now_ns``, ``p.sojourn_ns``), as the engine's ``Time``, and
the control laws are computed with the built-in's arithmetic: the exact one as the
double ``interval / sqrt(count)`` truncated to whole nanoseconds, Linux's in 64-bit
wrapping (Newton step) and unbounded (control law) integer arithmetic.

:meth:`CoDel.trace` gives the ``ts_qdisc`` series the built-in does: ``count``,
``dropping`` (0 or 1) and ``ldelay_s`` (the last sojourn, ``ns * 1e-9``).
"""

from __future__ import annotations

import math

from ccsim import ParameterError, QueueDiscipline, Verdict
from ccsim.extend import parse_size, parse_time

__all__ = ["CoDel"]

_M64 = (1 << 64) - 1
_M32 = (1 << 32) - 1

# What follows a drop in this dequeue (self._after).
_ENTERED = 1  # the drop that entered the dropping state (RFC 8289 §5.3)
_DROPPING = 2  # a drop of the dropping state (§5.4)


# ---------------------------------------------------------------- parameters


def _secs(ns: int) -> str:
    """A time as the engine writes it in a message: exact decimal seconds ("0.1s")."""
    s, f = divmod(ns, 1_000_000_000)
    return f"{s}s" if f == 0 else f"{s}.{f:09d}".rstrip("0") + "s"


# ---------------------------------------------------------------- Linux's fixed point


def _newton_step(rec_inv_sqrt: int, count: int) -> int:
    """Linux ``codel_Newton_step``: one Newton iteration of 1/√count from the previous
    estimate (Q0.16), in 64-bit wrapping arithmetic."""
    invsqrt = rec_inv_sqrt << 16
    invsqrt2 = (invsqrt * invsqrt) >> 32
    val = (((3 << 32) - count * invsqrt2) & _M64) >> 2
    val = ((val * invsqrt) & _M64) >> (32 - 2 + 1)
    return (val >> 16) & 0xFFFF


class CoDel(QueueDiscipline):
    """CoDel (RFC 8289) over the engine's FIFO: drops (or, with ``ecn``, marks) at
    dequeue once the sojourn has stayed at or above ``target`` for ``interval``.

    Parameters (the built-in's keys and defaults): ``target`` ("5ms"), ``interval``
    ("100ms"), ``mtu`` ("1500B": no drop while at most this many bytes stay queued),
    ``ecn`` (False), ``inv_sqrt`` ("exact" or "newton")."""

    def __init__(
        self,
        target="5ms",
        interval="100ms",
        mtu="1500B",
        ecn: bool = False,
        inv_sqrt: str = "exact",
    ):
        # (the built-in's checks, in its order and with its wording)
        self.target = parse_time(target, "target")
        self.interval = parse_time(interval, "interval")
        self.mtu = parse_size(mtu, "mtu")
        if not isinstance(ecn, bool):
            raise ParameterError("ecn", ecn, "true or false")
        if inv_sqrt not in ("exact", "newton"):
            raise ParameterError("inv_sqrt", inv_sqrt, 'one of "exact", "newton"')
        if self.target == 0:
            raise ParameterError("target", _secs(self.target), "a positive time below interval")
        if self.interval == 0:
            raise ParameterError("interval", _secs(self.interval), "a positive time")
        if self.target >= self.interval:
            raise ParameterError(
                "target",
                _secs(self.target),
                f"a time below interval ({_secs(self.interval)}; "
                "RFC 8289 §4.3: target is 5-10 % of interval)",
            )
        self.ecn = ecn
        self.newton = inv_sqrt == "newton"
        # RFC 8289 §5.1 state (Linux codel_vars), times in ns.
        self.count = 0  # drops (marks) since entering the dropping state (+ carry-over)
        self.lastcount = 0  # count when the dropping state was last entered
        self.dropping = False
        self.first_above_time: int | None = None  # None while the sojourn is below target
        self.drop_next = 0
        self.ldelay = 0  # sojourn of the last packet dequeued
        self.rec_inv_sqrt = 0  # Linux's 1/√count in Q0.16 (inv_sqrt = "newton")
        self._after = 0  # which drop the next head of this dequeue follows

    # -- RFC 8289 §5.2 dodequeue's ok_to_drop (Linux codel_should_drop)

    def _should_drop(self, sojourn: int, backlog: int, now: int) -> bool:
        self.ldelay = sojourn
        if sojourn < self.target or backlog <= self.mtu:
            self.first_above_time = None
            return False
        if self.first_above_time is None:
            self.first_above_time = now + self.interval
            return False
        return now >= self.first_above_time

    def _law(self, t: int) -> int:
        """The next drop time after ``t`` (RFC 8289 §5.5, or Linux's fixed point)."""
        if self.newton:
            return t + ((self.interval * (self.rec_inv_sqrt << 16)) >> 32)
        return t + int(self.interval / math.sqrt(max(self.count, 1)))

    def _drop_or_send(self, p, now: int) -> int:
        """The dropping state's loop test (§5.4): drop (mark) ``p`` if it is time."""
        if self.dropping and now >= self.drop_next:
            self.count = (self.count + 1) & _M32
            self.rec_inv_sqrt = _newton_step(self.rec_inv_sqrt, self.count)
            if self.ecn and p.ect:
                self.drop_next = self._law(self.drop_next)
                return Verdict.MARK
            self._after = _DROPPING
            return Verdict.DROP
        return Verdict.PASS

    # -- hooks

    def dequeue(self, q, p) -> int:
        now = q.now_ns
        if q.dropped:
            # A head after a drop of this dequeue.
            if self._after == _ENTERED:
                # (Linux evaluates should_drop for its side effects on
                # first_above_time and ignores the verdict.)
                self._should_drop(p.sojourn_ns, q.backlog_bytes, now)
                return Verdict.PASS
            if not self._should_drop(p.sojourn_ns, q.backlog_bytes, now):
                self.dropping = False
            else:
                self.drop_next = self._law(self.drop_next)
            return self._drop_or_send(p, now)
        drop = self._should_drop(p.sojourn_ns, q.backlog_bytes, now)
        if self.dropping:
            if not drop:
                self.dropping = False  # sojourn below target: leave (§5.4)
            return self._drop_or_send(p, now)
        if not drop:
            return Verdict.PASS
        # Enter the dropping state (§5.3): drop (or mark) this packet.
        if self.ecn and p.ect:
            verdict = Verdict.MARK
        else:
            verdict = Verdict.DROP
            self._after = _ENTERED
        self.dropping = True
        # §5.3: reuse the last cycle's drop rate if it ended recently.
        delta = (self.count - self.lastcount) & _M32
        if delta > 1 and now < self.drop_next + 16 * self.interval:
            self.count = delta
            self.rec_inv_sqrt = _newton_step(self.rec_inv_sqrt, self.count)
        else:
            self.count = 1
            self.rec_inv_sqrt = 0xFFFF
        self.lastcount = self.count
        self.drop_next = self._law(now)
        return verdict

    def empty(self, q) -> None:
        if not q.dropped:
            self.dropping = False  # nothing queued when the transmitter asked
            return
        # The queue ran dry after a drop: should_drop of no packet.
        self.first_above_time = None
        if self._after == _DROPPING:
            self.dropping = False

    def trace(self) -> dict[str, float]:
        return {
            "count": float(self.count),
            "dropping": 1.0 if self.dropping else 0.0,
            "ldelay_s": self.ldelay * 1e-9,
        }
