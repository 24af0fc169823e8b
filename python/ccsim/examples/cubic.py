"""CUBIC in Python: a port of the built-in ``cubic`` module (with the engine's
HyStart++ and round counter) written only against :mod:`ccsim.extend`.

The algorithm is RFC 9438, "CUBIC for Fast and Long-Distance Networks" (2023), after
S. Ha, I. Rhee and L. Xu, "CUBIC: a new TCP-friendly high-speed TCP variant", ACM
SIGOPS Operating Systems Review 42(5), 2008, with HyStart++ (RFC 9406, "HyStart++:
Modified Slow Start for TCP") as an option in the initial slow start:

- slow start below ssthresh is the sender's (RFC 5681 §3.1, RFC 3465 L = 1 SMSS), or
  HyStart++ with ``hystart = "hystart++"``: after 8 RTT samples in a round whose
  minimum grew by RttThresh, Conservative Slow Start (a quarter of the growth) for 5
  rounds, then ssthresh = cwnd;
- congestion avoidance follows W_cubic(t) = C·(t − K)³ + W_max (§4.2, eq. 1–2), with
  the Reno-friendly W_est (§4.3) and the target W_cubic(t + RTT) clamped to
  [cwnd, 1.5·cwnd] (§4.4–4.5), RTT the smoothed RTT; the fraction of a byte the growth
  leaves is carried to the next ACK;
- a loss or ECN echo keeps max(β·W, 2 segments), W what the sender's ``loss_window``
  names (§4.6), with fast convergence (§4.7); after a timeout the first epoch starts at
  K = 0 (§4.8), or, with ``timeout_w_max = "keep"`` (ns-3), climbs back to W_max;
- ``variant = "linux"`` runs the arithmetic of Linux's tcp_cubic (``bictcp_update``,
  ``cubictcp_recalc_ssthresh``: whole segments, 1/1024 fractions and time units, the
  integer cube root, one segment per ``cnt`` ACKs), ``variant = "ns3"`` ns-3.44's
  ``TcpCubic`` (Linux's arithmetic with its own ACK count, kept across reductions, and
  the smoothed RTT as its delay input).

Parameters, as the built-in reads them: ``c`` (0.4, in (0, 1000]), ``beta`` (0.7, in
(0, 1)), ``fast_convergence`` (true), ``hystart`` ("off" or "hystart++"),
``timeout_w_max`` ("reset" or "keep") and ``variant`` ("rfc9438", "linux", "ns3"). The
``cc_state`` column traces W_max (segments); the run summary counts ``reductions`` (and,
with HyStart++, ``css_entries`` and ``css_spurious``).

What the module asks of the sender depends on its parameters, and the constructor
sets it on the instance, as the built-in decides it per parameter set:

- ``counts_acked``: in the Linux and ns-3 variants ``cong_avoid`` gets the data each
  ACK delivered (RFC 9937 DeliveredData); the RFC variant gets what the sender hands
  any module, the cumulative ACK's advance (at most one segment without the sender's
  ``byte_counting``);
- ``needs``: SACK recovery by default (as Linux and ns-3 run CUBIC), an RTT sample from
  every ACK's timestamp echo with HyStart++ (RFC 9406 takes the minimum of 8 samples
  per round), and ``reduces_cwnd``: the loss response reduces from cwnd, so that under
  ``conventions = "ns3"`` the sender's ``loss_window`` defaults to "cwnd" (ns-3's
  ``TcpCubic``, as Linux, reduces whole segments of cwnd).

``pkts_acked`` keeps the Linux and ns-3 variants' delay input and HyStart++'s rounds;
the RFC variant without HyStart++ has no use for it, and its constructor sets it to
None, so the engine does not call it.

The arithmetic is the engine's: windows in whole bytes as integers, the real-valued
window in double precision from the same nanosecond counts in the same order (the cube
as x·x·x, as Rust's ``powi(3)``; Rust's ``round``, half away from zero; K's cube root
correctly rounded, as Rust's ``cbrt``, where the C library's ``math.cbrt`` is an ulp
away for about half of all arguments), Linux's in integers. A run with this class gives
the built-in module's results to the last bit, as ccsim's tests check. The round counter
and HyStart++ are repeated here so that this file alone is the module's source (a
sweep's fingerprint digests it).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ccsim import CongestionControl

__all__ = ["Cubic"]

_VARIANTS = ("rfc9438", "linux", "ns3")

# ---------------------------------------------------------------- HyStart++ (RFC 9406)

#: N_RTT_SAMPLE, MIN_RTT_THRESH, MAX_RTT_THRESH (ns), MIN_RTT_DIVISOR,
#: CSS_GROWTH_DIVISOR, CSS_ROUNDS.
_N_RTT_SAMPLE = 8
_MIN_RTT_THRESH = 4_000_000
_MAX_RTT_THRESH = 16_000_000
_MIN_RTT_DIVISOR = 8
_CSS_GROWTH_DIVISOR = 4
_CSS_ROUNDS = 5

_SLOW_START, _CSS, _DONE = 0, 1, 2


class _HyStart:
    """HyStart++ (the engine's ``HyStart``): rounds counted from the bytes acknowledged
    (a round ends once they reach those in flight when it began), the minimum RTT of
    each round after 8 samples, Conservative Slow Start for 5 rounds."""

    __slots__ = (
        "phase",
        "css_rounds",
        "baseline",
        "delivered",
        "end",
        "last_round_min",
        "round_min",
        "samples",
        "exit",
        "css_entries",
        "css_spurious",
    )

    def __init__(self) -> None:
        self.phase = _SLOW_START
        self.css_rounds = 0
        self.baseline = 0
        self.delivered = 0  # the round counter (RoundCounter)
        self.end = None
        self.last_round_min = None
        self.round_min = None
        self.samples = 0
        self.exit = False
        self.css_entries = 0
        self.css_spurious = 0

    def on_ack(self, acked: int, rtt: int | None, flight: int) -> None:
        if self.phase == _DONE or acked == 0:
            return
        self.delivered += acked
        if self.end is None or self.delivered >= self.end:
            # a round ended (RoundCounter::on_ack)
            self.end = self.delivered + (flight if flight > 1 else 1)
            if self.phase == _CSS:
                if self.css_rounds >= _CSS_ROUNDS:
                    self.phase = _DONE
                    self.exit = True
                    return
                self.css_rounds += 1
            self.last_round_min = self.round_min
            self.round_min = None
            self.samples = 0
        if rtt is None:
            return
        if self.round_min is None or rtt < self.round_min:
            self.round_min = rtt
        self.samples += 1
        if self.samples < _N_RTT_SAMPLE:
            return
        cur, last = self.round_min, self.last_round_min
        if last is None:
            return
        if self.phase == _SLOW_START:
            thresh = min(max(last // _MIN_RTT_DIVISOR, _MIN_RTT_THRESH), _MAX_RTT_THRESH)
            if cur >= last + thresh:
                self.phase = _CSS
                self.css_rounds = 1
                self.baseline = cur
                self.css_entries += 1
        elif self.phase == _CSS and cur < self.baseline:
            self.phase = _SLOW_START
            self.css_spurious += 1

    def divisor(self) -> int:
        return _CSS_GROWTH_DIVISOR if self.phase == _CSS else 1

    def take_exit(self) -> bool:
        e = self.exit
        self.exit = False
        return e

    def stop(self) -> None:
        self.phase = _DONE
        self.exit = False


# ---------------------------------------------------------------- Linux's tcp_cubic

#: 1/1024 fractions (BETA_SCALE) and BICTCP_HZ (t and K in 1/2^10 s).
_BETA_SCALE = 1024
_BICTCP_HZ = 10
_U64_MAX = (1 << 64) - 1


def _cbrt(x: float) -> float:
    """∛x correctly rounded, as Rust's ``f64::cbrt`` (CORE-MATH's cube root in Rust's
    libm); the C library's, ``math.cbrt``, is often an ulp or more away. From that
    estimate, the double whose rounding interval holds the exact root, found by
    comparing x with the cubes of the midpoints between neighbouring doubles, exactly."""
    if x < 0.0:
        return -_cbrt(-x)
    y = math.cbrt(x)
    if not 0.0 < x < math.inf:
        return y
    exact = Fraction(x)
    while True:
        lo = math.nextafter(y, 0.0)
        if exact < ((Fraction(lo) + Fraction(y)) / 2) ** 3:
            y = lo
            continue
        hi = math.nextafter(y, math.inf)
        if exact > ((Fraction(y) + Fraction(hi)) / 2) ** 3:
            y = hi
            continue
        return y


def _round(x: float) -> int:
    """Rust's ``f64::round`` (half away from zero) for x ≥ 0."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


def _icbrt(x: int) -> int:
    """⌊∛x⌋."""
    r = int(math.cbrt(float(x)))
    while r * r * r > x:
        r -= 1
    while (r + 1) * (r + 1) * (r + 1) <= x:
        r += 1
    return r


class _Bictcp:
    """Linux's ``struct bictcp`` (the engine's ``Bictcp``): windows in segments, times
    in ns, ACK counts in bytes."""

    __slots__ = (
        "beta",
        "cube_rtt_scale",
        "beta_scale",
        "cnt",
        "last_max_cwnd",
        "bic_origin_point",
        "bic_k",
        "delay_min",
        "epoch_start",
        "ack_cnt",
        "tcp_cwnd",
        "ns3_cnt",
        "recovery_ack",
        "exit_ack",
    )

    def __init__(self, c: float, beta: float, ns3: bool) -> None:
        b = min(max(_round(beta * float(_BETA_SCALE)), 1), _BETA_SCALE - 1)
        self.beta = b
        self.cube_rtt_scale = max(_round(c * float(_BETA_SCALE)), 1)
        self.beta_scale = 8 * (_BETA_SCALE + b) // 3 // (_BETA_SCALE - b)
        self.cnt = 0
        self.last_max_cwnd = 0
        self.bic_origin_point = 0
        self.bic_k = 0
        self.delay_min = None
        self.epoch_start = None
        self.ack_cnt = 0
        self.tcp_cwnd = 0
        self.ns3_cnt = 0 if ns3 else None
        self.recovery_ack = 0
        self.exit_ack = None

    def reset(self, keep_w_max: bool) -> None:
        """``bictcp_reset`` at a timeout."""
        if not keep_w_max:
            self.last_max_cwnd = 0
        self.cnt = 0
        self.bic_origin_point = 0
        self.bic_k = 0
        self.delay_min = None
        self.epoch_start = None
        self.ack_cnt = 0
        self.tcp_cwnd = 0

    def recalc_ssthresh(self, w: int, fast_convergence: bool) -> int:
        """``cubictcp_recalc_ssthresh`` for a loss at ``w`` segments."""
        self.epoch_start = None
        if w < self.last_max_cwnd and fast_convergence:
            self.last_max_cwnd = w * (_BETA_SCALE + self.beta) // (2 * _BETA_SCALE)
        else:
            self.last_max_cwnd = w
        r = w * self.beta // _BETA_SCALE
        return r if r > 2 else 2

    def update(self, now: int, cwnd: int, acked: int, mss: int) -> None:
        """``bictcp_update``: ``cnt`` for an ACK of ``acked`` bytes at ``cwnd``
        segments."""
        self.ack_cnt += acked
        epoch_start = self.epoch_start
        if epoch_start is None:
            epoch_start = self.epoch_start = now
            self.ack_cnt = acked
            self.tcp_cwnd = cwnd
            if self.last_max_cwnd <= cwnd:
                self.bic_k = 0
                self.bic_origin_point = cwnd
            else:
                cube_factor = (1 << (10 + 3 * _BICTCP_HZ)) // self.cube_rtt_scale
                self.bic_k = _icbrt(cube_factor * (self.last_max_cwnd - cwnd))
                self.bic_origin_point = self.last_max_cwnd
        since = now - epoch_start + (self.delay_min or 0)
        t = (since << _BICTCP_HZ) // 1_000_000_000
        k = self.bic_k
        offs = t - k if t >= k else k - t
        delta = min((self.cube_rtt_scale * offs * offs * offs) >> (10 + 3 * _BICTCP_HZ), _U64_MAX)
        origin = self.bic_origin_point
        if t < k:
            target = origin - delta if origin > delta else 0
        else:
            target = min(origin + delta, _U64_MAX)
        cnt = cwnd // (target - cwnd) if target > cwnd else 100 * cwnd
        if self.last_max_cwnd == 0 and cnt > 20:
            cnt = 20
        # tcp_friendliness
        per = max((cwnd * self.beta_scale) >> 3, 1) * mss
        while self.ack_cnt > per:
            self.ack_cnt -= per
            self.tcp_cwnd += 1
        if self.tcp_cwnd > cwnd:
            cnt = min(cnt, cwnd // (self.tcp_cwnd - cwnd))
        self.cnt = cnt if cnt > 2 else 2


# ---------------------------------------------------------------- the module


class Cubic(CongestionControl):
    """CUBIC (RFC 9438): the built-in ``cubic``, every parameter and variant."""

    recovery = "newreno"

    def __init__(
        self,
        c: float = 0.4,
        beta: float = 0.7,
        fast_convergence: bool = True,
        hystart: str = "off",
        timeout_w_max: str = "reset",
        variant: str = "rfc9438",
    ):
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 < c <= 1000.0:
            raise ValueError(f"c = {c!r}: a number in the open interval (0, 1000] (RFC 9438 §5)")
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not 0.0 < beta < 1.0:
            raise ValueError(f"beta = {beta!r}: a number in the open interval (0, 1) (§4.6)")
        if not isinstance(fast_convergence, bool):
            raise ValueError(f"fast_convergence = {fast_convergence!r}: true or false")
        if hystart not in ("off", "hystart++"):
            raise ValueError(f'hystart = {hystart!r}: "off" or "hystart++"')
        if timeout_w_max not in ("reset", "keep"):
            raise ValueError(f'timeout_w_max = {timeout_w_max!r}: "reset" or "keep"')
        if variant not in _VARIANTS:
            raise ValueError(f"variant = {variant!r}: one of {', '.join(_VARIANTS)}")
        #: SACK recovery by default, as Linux and ns-3 run it; with HyStart++ an RTT
        #: sample from every ACK; the loss response reduces from cwnd (ns-3's
        #: ``loss_window``).
        self.needs = {"sack": True, "timestamps": hystart == "hystart++", "reduces_cwnd": True}
        #: ``cong_avoid`` gets the data each ACK delivered (Linux, ns-3) or the
        #: cumulative ACK's advance as the sender counts it (RFC 9438).
        self.counts_acked = variant != "rfc9438"
        self.c = float(c)
        self.beta = float(beta)
        self.fast_convergence = fast_convergence
        self.timeout_reset = timeout_w_max == "reset"
        self.variant = variant
        self.ns3 = variant == "ns3"
        #: α_cubic = 3(1 − β)/(1 + β) (§4.3).
        self.alpha = 3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        #: W_max (segments) from the last reduction, 0 before any; cwnd_prior.
        self.w_max = 0.0
        self.cwnd_prior = 0.0
        #: The epoch (§4.2): [start (ns), K (s), W_max, W_est], or None.
        self.epoch = None
        self.after_timeout = False
        #: Fraction of a byte of cwnd carried to the next ACK.
        self.frac = 0.0
        self.hystart = _HyStart() if hystart == "hystart++" else None
        self.reductions = 0
        self.bic = _Bictcp(self.c, self.beta, self.ns3) if variant != "rfc9438" else None
        if self.bic is None and self.hystart is None:
            self.pkts_acked = None  # nothing to do per ACK: the engine skips the hook

    # -- RFC 9438 congestion avoidance

    def _cubic_update(self, s, acked: int) -> None:
        """§4.2–4.5 for an ACK of ``acked`` bytes (``Cubic::cubic_update``)."""
        mss = float(s.mss)
        cwnd_b = s.cwnd
        cwnd = float(cwnd_b) / mss
        now = s.now_ns
        c = self.c
        e = self.epoch
        if e is None:
            w_max = self.w_max
            if self.after_timeout or w_max <= cwnd:
                w_max = cwnd
            self.after_timeout = False
            d = w_max - cwnd
            k = _cbrt((d if d > 0.0 else 0.0) / c)
            e = self.epoch = [now, k, w_max, cwnd]
        start, k, e_w_max, w_est = e
        t = float(now - start) * 1e-9
        segs = float(acked) / mss
        # §4.3: W_est grows at Reno's rate scaled by α_cubic (1 once at cwnd_prior)
        alpha = 1.0 if w_est >= self.cwnd_prior else self.alpha
        w_est_new = w_est + alpha * segs / cwnd
        e[3] = w_est_new
        x = t - k
        if c * (x * x * x) + e_w_max < w_est_new:
            # Reno-friendly region: cwnd = W_est
            nxt = w_est_new if w_est_new > cwnd else cwnd
        else:
            # §4.4–4.5: target = W_cubic(t + RTT) in [cwnd, 1.5 cwnd]
            rtt = s.srtt_ns
            if rtt is None:
                rtt = s.min_rtt_ns
                if rtt is None:
                    rtt = 0
            x = (t + float(rtt) * 1e-9) - k
            target = c * (x * x * x) + e_w_max
            if target < cwnd:
                target = cwnd
            hi = 1.5 * cwnd
            if target > hi:
                target = hi
            nxt = cwnd + (target - cwnd) / cwnd * segs
        b = nxt * mss - float(cwnd_b) + self.frac
        whole = math.floor(b)
        if whole < 0:
            whole = 0
        self.frac = b - whole if b > 0.0 else 0.0
        s.cwnd = cwnd_b + whole

    def _slow_start(self, s, acked: int) -> int:
        """Slow start; returns the bytes left for congestion avoidance."""
        cwnd, ssthresh = s.cwnd, s.ssthresh
        if self.variant == "rfc9438":
            # the sender's rule (RFC 5681, RFC 3465 L = 1)
            inc = min(acked, s.mss)
            room = ssthresh - cwnd if ssthresh > cwnd else 0
            if inc <= room:
                s.cwnd = cwnd + inc
                return 0
            s.cwnd = cwnd + room
            return acked - room
        if self.variant == "linux":
            # tcp_slow_start: not past ssthresh, the rest left over
            grown = min(cwnd + acked, max(ssthresh, cwnd))
            s.cwnd = grown
            return acked - (grown - cwnd)
        # ns-3: all of it, past ssthresh too
        s.cwnd = cwnd + acked
        return 0

    def _reduce(self, s) -> int:
        """W_max and ssthresh after a congestion event (§4.6–4.7)."""
        if self.hystart is not None:
            self.hystart.stop()
        mss = s.mss
        b = self.bic
        if b is not None:
            self.reductions += 1
            ssthresh = b.recalc_ssthresh(s.flight // mss, self.fast_convergence)
            self.w_max = float(b.last_max_cwnd)
            return ssthresh * mss
        w = float(s.flight) / float(mss)
        if self.fast_convergence and w < self.w_max:
            self.w_max = w * (1.0 + self.beta) / 2.0
        else:
            self.w_max = w
        self.cwnd_prior = w
        self.epoch = None
        self.frac = 0.0
        self.reductions += 1
        r = int(w * self.beta * float(mss))
        return r if r > 2 * mss else 2 * mss

    # -- hooks

    def ssthresh(self, s) -> int:
        return self._reduce(s)

    def cong_avoid(self, s, acked: int) -> None:
        b = self.bic
        if b is not None and b.exit_ack is not None:
            acked = b.exit_ack
            b.exit_ack = None
        cwnd, ssthresh = s.cwnd, s.ssthresh
        if cwnd < ssthresh:
            h = self.hystart
            if h is not None and h.take_exit():
                # RFC 9406 §4.2: CSS_ROUNDS done, ssthresh = cwnd
                s.ssthresh = ssthresh = cwnd
            elif h is not None and h.phase == _CSS:
                # CSS: a quarter of slow start's increase
                mss = s.mss
                s.cwnd = min(cwnd + min(acked, mss) // _CSS_GROWTH_DIVISOR, ssthresh)
                acked = 0
            else:
                acked = self._slow_start(s, acked)
            cwnd = s.cwnd
        if acked > 0 and cwnd >= ssthresh:
            if b is None:
                self._cubic_update(s, acked)
                return
            mss = s.mss
            b.update(s.now_ns, cwnd // mss, acked, mss)
            if b.ns3_cnt is not None:
                # ns-3: one segment when the count reaches cnt, the rest kept, never
                # cleared (not even by a reduction)
                n = b.ns3_cnt + acked
                if n >= b.cnt * mss:
                    n -= b.cnt * mss
                    s.cwnd = cwnd + mss
                b.ns3_cnt = n
            else:
                # cong_avoid_ai_w(cwnd, cwnd_cnt, mss, cnt, acked)
                w = max(b.cnt, 1) * mss
                cnt = s.cwnd_cnt
                if cnt >= w:
                    cnt = 0
                    cwnd += mss
                cnt += acked
                if cnt >= w:
                    delta = cnt // w
                    cnt -= delta * w
                    cwnd += delta * mss
                s.cwnd_cnt = cnt
                s.cwnd = cwnd

    def pkts_acked(self, s, a) -> None:
        # (not called for the RFC variant without HyStart++: __init__)
        b = self.bic
        if b is not None:
            if self.ns3:
                if a.in_recovery and not a.dup:
                    b.recovery_ack = a.acked
                # ns-3: the sample is srtt, none in an epoch's first 10 ms
                rtt, quiet = s.srtt_ns, 10_000_000
            else:
                # cubictcp_acked: none in an epoch's first second
                rtt, quiet = a.rtt_ns, 1_000_000_000
            if rtt is not None:
                e = b.epoch_start
                if (e is None or s.now_ns - e >= quiet) and (
                    b.delay_min is None or rtt < b.delay_min
                ):
                    b.delay_min = rtt
        h = self.hystart
        if h is not None and s.cwnd < s.ssthresh and not a.dup and not a.in_recovery:
            h.on_ack(a.acked, a.rtt_ns, s.flight)

    def cwnd_event(self, s, event: str) -> None:
        b = self.bic
        if b is not None and self.ns3:
            b.exit_ack = b.recovery_ack if event == "exit_recovery" else None
        if event == "timeout":
            self.epoch = None
            self.after_timeout = self.timeout_reset
            if b is not None:
                b.reset(not self.timeout_reset)
                self.w_max = float(b.last_max_cwnd)
            if self.hystart is not None:
                self.hystart.stop()

    def trace(self) -> float:
        return self.w_max

    def stats(self) -> dict[str, float]:
        out = {"reductions": float(self.reductions)}
        if self.hystart is not None:
            out["css_entries"] = float(self.hystart.css_entries)
            out["css_spurious"] = float(self.hystart.css_spurious)
        return out
