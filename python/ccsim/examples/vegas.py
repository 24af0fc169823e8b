"""TCP Vegas in Python: a port of the built-in ``vegas`` module
(crates/ccsim-core/src/cc/vegas.rs, with the round counter of
crates/ccsim-core/src/cc/hystart.rs and the helpers of crates/ccsim-core/src/cc/mod.rs)
written only against :mod:`ccsim.extend`.

The algorithm is L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion
Avoidance on a Global Internet", IEEE JSAC 13(8), 1995, §3.2 (congestion avoidance) and
§3.3 (modified slow start), as ns-3's ``TcpVegas`` (after Linux's ``tcp_vegas``) runs
it, which is what the built-in module follows:

- BaseRTT is the smallest RTT sample of the flow; per round (until the bytes
  acknowledged reach those in flight when the round began: the cumulative ACK reaches
  SND.NXT as it was, ns-3's ``m_lastAckedSeq >= m_begSndNxt``) the smallest sample of
  the round and their number (``pkts_acked``, which sees every ACK before the sender
  reacts to it, so the ACK that ends a round counts in it).
- Once per round, with more than two samples (fewer: Reno's growth),
  Diff = cwnd − ⌊cwnd·BaseRTT/minRTT⌋ in whole segments. In slow start, Diff > γ ends
  it: cwnd = min(cwnd, target + 1), ssthresh = max(min(ssthresh, cwnd − 1), 2)
  segments; otherwise slow start goes on. In congestion avoidance Diff > β takes a
  segment off (then ssthresh as above, from the decreased window), Diff < α adds one.
  Then ssthresh = max(ssthresh, ¾·cwnd). Between round ends slow start grows as Reno's and
  congestion avoidance does not grow.
- Losses: Reno's halving of the flight (``loss = "halve"``, as Linux) or ns-3's one
  segment below cwnd (``loss = "one_segment"``), with NewReno recovery. Vegas is off
  from a recovery's or a timeout's start until the sender is open again
  (``cwnd_event``: "enter_recovery"/"timeout" to "exit_recovery"/"exit_loss"), with
  Reno's growth meanwhile, and restarts its round when it is on again.

Parameters, as the built-in reads them: ``alpha`` (2), ``beta`` (4), ``gamma`` (1),
segments from 0 to 10 000 with alpha < beta, and ``loss``. ``needs`` asks, as the
built-in does, for SACK recovery and for an RTT sample from every ACK's timestamp echo
(Vegas needs several samples per round). The ``cc_state`` column traces the last Diff.

The arithmetic is the engine's: whole bytes as integers, and the expected window in
double precision from the same nanosecond counts, in the same order, so a run with this
class gives the built-in module's results to the last bit
(tests/test_extend_newreno_vegas.py). The Reno helpers are repeated here rather than
imported from :mod:`ccsim.examples.newreno`, so that this file alone is the module's
source (a sweep's fingerprint digests it).
"""

from __future__ import annotations

import math

from ccsim import CongestionControl

__all__ = ["Vegas"]

_LOSSES = ("halve", "one_segment")


def _slow_start(s, acked: int) -> int:
    """RFC 5681 §3.1, RFC 3465 L = 1 SMSS (the engine's ``slow_start``)."""
    cwnd, ssthresh = s.cwnd, s.ssthresh
    inc = min(acked, s.mss)
    room = ssthresh - cwnd if ssthresh > cwnd else 0
    if inc <= room:
        s.cwnd = cwnd + inc
        return 0
    s.cwnd = cwnd + room
    return acked - room


def _cong_avoid_ai(s, acked: int) -> None:
    """Additive increase, with or without byte counting (the engine's ``cong_avoid_ai``)."""
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


def _reno_cong_avoid(s, acked: int) -> None:
    """Slow start, then additive increase with the rest (the engine's
    ``reno_cong_avoid``)."""
    if s.cwnd < s.ssthresh:
        acked = _slow_start(s, acked)
    if acked > 0 and s.cwnd >= s.ssthresh:
        _cong_avoid_ai(s, acked)


def _one_segment_below(ssthresh: int, cwnd: int, mss: int) -> int:
    """ns-3's ``TcpVegas::GetSsThresh``: max(min(ssthresh, cwnd − 1), 2) segments."""
    return max(min(ssthresh, cwnd - mss if cwnd > mss else 0), 2 * mss)


def _count(name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 10_000:
        raise ValueError(f"{name} = {v!r}: expected a number of segments from 0 to 10000")
    return v


class Vegas(CongestionControl):
    """TCP Vegas (Brakmo & Peterson 1995, as ns-3 runs it): the built-in ``vegas``."""

    recovery = "newreno"
    # SACK recovery by default, as Linux and ns-3 run it; an RTT sample from every ACK
    needs = {"sack": True, "timestamps": True}

    def __init__(self, alpha: int = 2, beta: int = 4, gamma: int = 1, loss: str = "halve"):
        self.alpha = _count("alpha", alpha)
        self.beta = _count("beta", beta)
        self.gamma = _count("gamma", gamma)
        if alpha >= beta:
            raise ValueError(
                f"beta = {beta}: expected a number of segments above alpha = {alpha} "
                "(Vegas needs alpha < beta)"
            )
        if loss not in _LOSSES:
            raise ValueError(f"loss = {loss!r}: expected one of {_LOSSES}")
        self.one_segment_loss = loss == "one_segment"
        self.base_rtt = None  # ns
        self.round_min = None  # ns
        self.samples = 0
        # the round counter: bytes acknowledged, and the count that ends the round
        self.delivered = 0
        self.end = None
        # a round ended with the last ACK: adjust in cong_avoid
        self.round_end = False
        # the last Diff computed, segments
        self.diff = 0.0
        # off from a recovery's or a timeout's start until the sender is open again
        self.off = False

    def ssthresh(self, s) -> int:
        if self.one_segment_loss:
            return _one_segment_below(s.ssthresh, s.cwnd, s.mss)
        half, two = s.flight // 2, 2 * s.mss
        return half if half > two else two

    def pkts_acked(self, s, a) -> None:
        # the sample first: the ACK that ends a round counts in it
        r = a.rtt_ns
        if r:  # a sample, and not zero
            b = self.base_rtt
            if b is None or r < b:
                self.base_rtt = r
            m = self.round_min
            if m is None or r < m:
                self.round_min = r
            self.samples += 1
        acked = a.acked
        if acked > 0 and not a.in_recovery:
            self.delivered += acked
            if self.end is None or self.delivered >= self.end:
                flight = s.flight
                self.end = self.delivered + (flight if flight > 1 else 1)
                self.round_end = True

    def cong_avoid(self, s, acked: int) -> None:
        if self.off:
            # the go-back-N slow start after a timeout, and Reno's growth
            if s.cwnd < s.ssthresh:
                _slow_start(s, acked)
            else:
                _reno_cong_avoid(s, acked)
            return
        if not self.round_end:
            if s.cwnd < s.ssthresh:
                _slow_start(s, acked)
            return
        self.round_end = False
        base, mn = self.base_rtt, self.round_min
        if self.samples > 2 and base is not None and mn is not None:
            self._adjust(s, acked, base, mn)
        else:
            _reno_cong_avoid(s, acked)
        self.samples = 0
        self.round_min = None

    def _adjust(self, s, acked: int, base: int, mn: int) -> None:
        """The once-per-round adjustment (ns-3 ``TcpVegas::IncreaseWindow``)."""
        mss, cwnd, ssthresh = s.mss, s.cwnd, s.ssthresh
        seg = cwnd // mss
        # whole segments, as ns-3 (the target is truncated, so Diff rounds up); the
        # engine's f64 expression: seg * (base * 1e-9) / (min * 1e-9)
        target = math.floor(seg * (base * 1e-9) / (mn * 1e-9))
        diff = seg - target
        self.diff = float(diff)
        if diff > self.gamma and cwnd < ssthresh:
            # §3.3: slow start is too fast; leave it
            cwnd = min(seg, target + 1) * mss
            ssthresh = _one_segment_below(ssthresh, cwnd, mss)
        elif cwnd < ssthresh:
            _slow_start(s, acked)
            cwnd = s.cwnd
        else:
            if diff > self.beta:
                # ssthresh from the decreased window (ns-3 decrements m_cWnd, then
                # calls GetSsThresh)
                seg = max(seg - 1, 2)
                ssthresh = _one_segment_below(ssthresh, seg * mss, mss)
            elif diff < self.alpha:
                seg += 1
            cwnd = seg * mss
        s.cwnd = cwnd
        s.ssthresh = max(ssthresh, 3 * cwnd // 4)

    def cwnd_event(self, s, event: str) -> None:
        # off outside the open state, and a fresh round when on again
        if event == "enter_recovery" or event == "timeout":
            self.off = True
        elif event == "exit_recovery" or event == "exit_loss":
            self.off = False
        else:  # "ecn_reduce"
            return
        self.end = None
        self.round_end = False
        self.samples = 0
        self.round_min = None

    def trace(self) -> float:
        return self.diff
