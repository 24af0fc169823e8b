"""NewReno (and Reno, Tahoe) in Python: a port of the built-in ``newreno``, ``reno`` and
``tahoe`` modules (crates/ccsim-core/src/cc/reno.rs and the helpers of
crates/ccsim-core/src/cc/mod.rs) written only against :mod:`ccsim.extend`.

The algorithm is TCP's standard congestion control, RFC 5681 (§3.1 slow start and
congestion avoidance, eq. 3 and 4; §3.2 fast retransmit and fast recovery) with
appropriate byte counting, RFC 3465 (L = 1 SMSS), and NewReno's treatment of partial
ACKs, RFC 6582. Tahoe is Jacobson's 1988 original (V. Jacobson, "Congestion Avoidance
and Control", SIGCOMM 1988): go-back-N from a one-segment window on every loss.

The three variants share one window rule and differ only in the loss recovery the
sender runs, which the class attribute ``recovery`` selects. The sender does the
recovery mechanics (fast retransmit, partial ACKs, SACK, timeouts); the module decides:

- ``ssthresh``: max(FlightSize/2, 2·SMSS) at a loss (and, by default, at a timeout and
  an ECN echo), where the sender's ``loss_window`` says what ``s.flight`` holds (the
  engine's ``halve_flight``);
- ``cong_avoid``: slow start below ssthresh (cwnd += min(acked, SMSS), not past
  ssthresh), then additive increase with what the ACK had left over (the engine's
  ``reno_cong_avoid``, ``slow_start`` and ``cong_avoid_ai``). With the sender's
  ``byte_counting`` (the default) the increase is one SMSS per cwnd of acknowledged
  bytes, counted in ``s.cwnd_cnt``; without it (``byte_counting = false``, or
  ``conventions = "ns2"``/``"ns3"``) it is RFC 5681 eq. 3, SMSS·SMSS/cwnd per ACK,
  exact: the fraction of a byte left over is carried in ``s.cwnd_cnt`` (in units of
  1/cwnd byte) to the next ACK, as ns-2's floating-point window keeps it.

Everything is integer arithmetic on whole bytes, as in the engine, so a run with this
class gives the built-in module's results to the last bit
(tests/test_extend_newreno_vegas.py). Neither ``pkts_acked`` nor ``cong_control`` is
defined: like the built-in, the module sees no ACK but those that grow the window.
"""

from __future__ import annotations

from ccsim import CongestionControl

__all__ = ["NewReno", "Reno", "Tahoe", "slow_start", "cong_avoid_ai", "reno_cong_avoid"]


def slow_start(s, acked: int) -> int:
    """RFC 5681 §3.1 with RFC 3465 L = 1 SMSS: cwnd grows by min(acked, SMSS), not past
    ssthresh. Returns the acknowledged bytes left over once ssthresh is reached."""
    cwnd, ssthresh = s.cwnd, s.ssthresh
    inc = min(acked, s.mss)
    room = ssthresh - cwnd if ssthresh > cwnd else 0
    if inc <= room:
        s.cwnd = cwnd + inc
        return 0
    s.cwnd = cwnd + room
    return acked - room


def cong_avoid_ai(s, acked: int) -> None:
    """Additive increase: one SMSS per cwnd of acknowledged bytes with byte counting;
    without, SMSS·SMSS/cwnd per ACK with the fraction of a byte carried in cwnd_cnt."""
    cwnd = s.cwnd
    if not s.byte_counting:
        c = cwnd if cwnd > 1 else 1
        cnt = s.cwnd_cnt + s.mss * s.mss
        inc = cnt // c
        s.cwnd_cnt = cnt - inc * c
        s.cwnd = cwnd + inc
        return
    cnt = s.cwnd_cnt + acked
    if cnt >= cwnd > 0:
        mss = s.mss
        while cnt >= cwnd:
            cnt -= cwnd
            cwnd += mss
        s.cwnd = cwnd
    s.cwnd_cnt = cnt


def reno_cong_avoid(s, acked: int) -> None:
    """Linux ``tcp_reno_cong_avoid``: slow start below ssthresh, then additive increase
    with whatever the ACK had left over."""
    if s.cwnd < s.ssthresh:
        acked = slow_start(s, acked)
    if acked > 0 and s.cwnd >= s.ssthresh:
        cong_avoid_ai(s, acked)


class NewReno(CongestionControl):
    """AIMD with NewReno loss recovery (RFC 5681, RFC 6582): the built-in ``newreno``."""

    recovery = "newreno"

    def ssthresh(self, s) -> int:
        # RFC 5681 eq. 4: max(FlightSize/2, 2*SMSS)
        half = s.flight // 2
        two = 2 * s.mss
        return half if half > two else two

    def cong_avoid(self, s, acked: int) -> None:
        # reno_cong_avoid, inlined (this hook runs on nearly every ACK)
        cwnd, ssthresh = s.cwnd, s.ssthresh
        if cwnd < ssthresh:
            inc = min(acked, s.mss)
            room = ssthresh - cwnd
            if inc <= room:
                s.cwnd = cwnd + inc
                return
            cwnd += room
            s.cwnd = cwnd
            acked -= room
        if acked > 0:
            cong_avoid_ai(s, acked)


class Reno(NewReno):
    """The same window rule with Reno fast recovery (RFC 5681 §3.2): the built-in
    ``reno``."""

    recovery = "reno"


class Tahoe(NewReno):
    """The same window rule with Tahoe's go-back-N from one segment: the built-in
    ``tahoe``."""

    recovery = "tahoe"
