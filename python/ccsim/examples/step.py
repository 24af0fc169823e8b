"""Step marking at a threshold K, as a Python queue discipline: a port of the built-in
``kind = "step"`` (crates/ccsim-core/src/qdisc/step.rs) written only against
:mod:`ccsim.extend`, which gives the built-in's results to the last bit
(tests/test_extend_aqm.py).

Sources, as the built-in module cites them: M. Alizadeh et al., "Data Center TCP
(DCTCP)", SIGCOMM 2010, §3.1 ("a very simple active queue management scheme [...] an
arriving packet is marked with the CE codepoint if the queue occupancy is greater than K
upon its arrival"); S. Bensley et al., "Data Center TCP (DCTCP): TCP Congestion Control
for Data Centers", RFC 8257 (2017), §3.1. The comparison ≥ K with the packets waiting
(the one being serialized not counted) is ns-2's convention and ns-3's RED
(``m_qAvg >= m_maxTh``) with ``q_weight = 1``, as the built-in documents.

Use it as the built-in, with the same keys and defaults::

    queue = {kind = "python", class = "ccsim.examples.step:Step", threshold = 20,
             non_ect = "drop", limit = "100pkt"}

``threshold`` is K, a number of packets (an integer ≥ 1); ``non_ect`` is "drop" (a
packet that is not ECN-capable is dropped where an ECN-capable one would be marked, as
RED with ECN treats it) or "pass" (it is let in).

The port. The whole decision is made at enqueue, from ``q.backlog_packets`` (the packets
waiting, without the arrival): an ECN-capable arrival that finds K or more is marked
(``MARK_FORCED``: a deterministic mark, the built-in's ``marks_forced``), a Not-ECT one
dropped (``DROP_FORCED``) or passed. An arrival that does not fit (``q.full``) gets PASS,
which the engine counts as an overflow, as the built-in does before any test. An
arrival that finds the queue empty and the link idle only passes (K ≥ 1), so the class
declares ``passes_idle`` as the built-in does, and the engine hands such a packet
straight to the transmitter without calling ``enqueue``.

Parameters the built-in refuses are refused with a :class:`ccsim.ParameterError` with
its wording: from the constructor a threshold outside [1, 1000000] or an unknown
``non_ect``; from ``setup``, called once per link as the scenario is built, a buffer of
fewer than K packets (the built-in's check when it builds the link's queue). Either way
the scenario is refused with a ``ScenarioError`` naming the same key
(``topology.bottleneck.queue.threshold``, ``topology.bottleneck.queue.limit``).
"""

from __future__ import annotations

from ccsim import ParameterError, QueueDiscipline, Verdict

__all__ = ["Step"]


class Step(QueueDiscipline):
    """Marks CE on an arrival that finds ``threshold`` (K) packets or more waiting (the
    instantaneous queue); drops it instead if it is not ECN-capable and ``non_ect`` is
    "drop" (the default), lets it in with "pass"."""

    #: An arrival to an empty queue and an idle link finds fewer than K waiting: PASS.
    passes_idle = True

    def __init__(self, threshold: int = 20, non_ect: str = "drop"):
        integer = isinstance(threshold, int) and not isinstance(threshold, bool)
        if not (integer and 1 <= threshold <= 1_000_000):
            raise ParameterError("threshold", threshold, "an integer in [1, 1000000]")
        if non_ect not in ("drop", "pass"):
            raise ParameterError("non_ect", non_ect, 'one of "drop", "pass"')
        self.threshold = threshold
        self.drop_non_ect = non_ect == "drop"

    def setup(self, q) -> None:
        limit = q.limit_packets
        if limit is not None and limit < self.threshold:
            raise ParameterError(
                "limit",
                f"{limit}pkt",
                f"a buffer of at least threshold = {self.threshold} packets",
            )

    def enqueue(self, q, p) -> int:
        if q.full:
            return Verdict.PASS  # the engine drops it as an overflow
        if q.backlog_packets >= self.threshold:
            if p.ect:
                return Verdict.MARK_FORCED
            if not p.ce and self.drop_non_ect:
                return Verdict.DROP_FORCED
        return Verdict.PASS
