"""DCTCP in Python: a port of the built-in ``dctcp`` module (with the engine's round
counter) written only against :mod:`ccsim.extend`.

The algorithm is the sender side of RFC 8257, "Data Center TCP (DCTCP): TCP Congestion
Control for Data Centers" (2017), after M. Alizadeh, A. Greenberg, D. A. Maltz,
J. Padhye, P. Patel, B. Prabhakar, S. Sengupta and M. Sridharan, "Data Center TCP
(DCTCP)", SIGCOMM 2010:

- per window of data (a round: until the bytes acknowledged reach those in flight when
  it began, i.e. the cumulative ACK passes SND.NXT as it was) the bytes acknowledged
  and those acknowledged by ACKs with ECE; at the window's end M = marked/acked and
  α ← (1 − g)·α + g·M (§3.3), in ``pkts_acked``, which sees every ACK before the
  sender reacts to it;
- on an ECN echo, at most once per window (the sender's RFC 3168 gate):
  cwnd = ssthresh = max(⌊cwnd·(1 − α/2)⌋, 2 segments) (``ecn_echo``);
- a loss is answered as by standard TCP: max(FlightSize/2, 2 segments) (§3.4);
- window growth is Reno's as the sender counts it (RFC 5681, ``byte_counting``), or,
  with ``variant = "ns3"``, ns-3.44's ``TcpDctcp`` (``TcpLinuxReno``: slow start in
  whole segments up to ssthresh, then one segment per ⌊cwnd/SMSS⌋ segments
  acknowledged, counted in the module's own count, which no reduction clears).

Parameters, as the built-in reads them: ``g`` (1/16, in (0, 1]), ``alpha_init`` (1, in
[0, 1]) and ``variant`` ("rfc8257" or "ns3"). As the built-in, the class asks for ECN,
for the receiver's exact echo of each segment's CE state (``accurate_ce``, RFC 8257
§3.2) and SACK recovery, and grows the window on ACKs that carry ECE
(``grow_on_ece``: the echo reports the marking fraction, not a congestion event). The
``cc_state`` column traces α; the run summary holds ``ecn_reductions`` and ``alpha``.

The arithmetic is the engine's (whole bytes as integers; α in double precision from the
same byte counts in the same order), so a run with this class gives the built-in
module's results to the last bit, as ccsim's tests check. The helpers are repeated here
so that this file alone is the module's source (a sweep's fingerprint digests it).
"""

from __future__ import annotations

from ccsim import CongestionControl

__all__ = ["DCTCP"]

_VARIANTS = ("rfc8257", "ns3")


class DCTCP(CongestionControl):
    """DCTCP (RFC 8257): the built-in ``dctcp``, both variants."""

    recovery = "newreno"
    needs = {
        # SACK recovery by default, as Linux and ns-3 (TcpSocketBase::Sack) run it
        "sack": True,
        "ecn": "DCTCP reacts to the fraction of CE-marked bytes (RFC 8257 §3)",
        "accurate_ce": True,
    }
    grow_on_ece = True

    def __init__(self, g: float = 1.0 / 16.0, alpha_init: float = 1.0, variant: str = "rfc8257"):
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0.0 < g <= 1.0:
            raise ValueError(f"g = {g!r}: a number in the open interval (0, 1] (RFC 8257 §3.3)")
        if (
            isinstance(alpha_init, bool)
            or not isinstance(alpha_init, (int, float))
            or not 0.0 <= alpha_init <= 1.0
        ):
            raise ValueError(f"alpha_init = {alpha_init!r}: a number in [0, 1]")
        if variant not in _VARIANTS:
            raise ValueError(f"variant = {variant!r}: one of {', '.join(_VARIANTS)}")
        self.g = float(g)
        self.ns3 = variant == "ns3"
        #: DCTCP.Alpha
        self.alpha = float(alpha_init)
        #: The window's end (bytes acknowledged), the count so far (RoundCounter).
        self.delivered = 0
        self.end = None
        #: DCTCP.BytesAcked and DCTCP.BytesMarked of the window.
        self.acked = 0
        self.marked = 0
        self.reductions = 0
        #: variant "ns3": TcpLinuxReno's ACK count (m_cWndCnt, bytes).
        self.ns3_cnt = 0

    def ssthresh(self, s) -> int:
        # RFC 5681 eq. 4 (halve_flight)
        half = s.flight // 2
        two = 2 * s.mss
        return half if half > two else two

    def cong_avoid(self, s, acked: int) -> None:
        cwnd, ssthresh, mss = s.cwnd, s.ssthresh, s.mss
        if not self.ns3:
            # reno_cong_avoid: slow_start, then cong_avoid_ai with what is left over
            if cwnd < ssthresh:
                inc = min(acked, mss)
                room = ssthresh - cwnd
                if inc <= room:
                    s.cwnd = cwnd + inc
                    return
                cwnd += room
                s.cwnd = cwnd
                acked -= room
            if acked > 0:
                if not s.byte_counting:
                    # RFC 5681 eq. 3, the fraction of a byte carried in cwnd_cnt
                    c = cwnd if cwnd > 1 else 1
                    cnt = s.cwnd_cnt + mss * mss
                    inc = cnt // c
                    s.cwnd_cnt = cnt - inc * c
                    s.cwnd = cwnd + inc
                    return
                cnt = s.cwnd_cnt + acked
                if cnt >= cwnd > 0:
                    while cnt >= cwnd:
                        cnt -= cwnd
                        cwnd += mss
                    s.cwnd = cwnd
                s.cwnd_cnt = cnt
            return
        # TcpLinuxReno::IncreaseWindow: slow start in whole segments, then one segment
        # per ⌊cwnd/SMSS⌋ segments acknowledged
        if cwnd < ssthresh:
            inc = min(acked // mss * mss, ssthresh - cwnd)
            cwnd += inc
            s.cwnd = cwnd
            acked -= inc
        if acked > 0 and cwnd >= ssthresh:
            # cong_avoid_ai_w(cwnd, ns3_cnt, mss, cwnd/mss, acked)
            w = max(cwnd // mss, 1) * mss
            cnt = self.ns3_cnt
            if cnt >= w:
                cnt = 0
                cwnd += mss
            cnt += acked
            if cnt >= w:
                delta = cnt // w
                cnt -= delta * w
                cwnd += delta * mss
            self.ns3_cnt = cnt
            s.cwnd = cwnd

    def pkts_acked(self, s, a) -> None:
        acked = a.acked
        if acked == 0:
            return
        # §3.3: the window's end is checked before this ACK's bytes are counted into
        # the next window (the ACK that passes SND.NXT closes it)
        self.delivered += acked
        end = self.end
        if end is None or self.delivered >= end:
            flight = s.flight
            self.end = self.delivered + (flight if flight > 1 else 1)
            if self.acked > 0:
                m = float(self.marked) / float(self.acked)
                self.alpha = (1.0 - self.g) * self.alpha + self.g * m
                self.acked = 0
                self.marked = 0
        self.acked += acked
        if a.ece:
            self.marked += acked

    def ecn_echo(self, s) -> int:
        self.reductions += 1
        w = int(float(s.cwnd) * (1.0 - self.alpha / 2.0))
        two = 2 * s.mss
        return w if w > two else two

    def trace(self) -> float:
        return self.alpha

    def stats(self) -> dict[str, float]:
        return {"ecn_reductions": float(self.reductions), "alpha": self.alpha}
