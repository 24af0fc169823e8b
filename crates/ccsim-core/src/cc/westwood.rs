//! TCP Westwood+ (L. A. Grieco, S. Mascolo, "Performance evaluation and
//! comparison of Westwood+, New Reno and Vegas TCP congestion control", ACM
//! CCR 34(2), 2004; as used in S. Mascolo, F. Vacirca, "Congestion Control and
//! Sizing Router Buffers in the Internet", IEEE CDC-ECC 2005, §II). Model
//! page: docs/models/westwood.md; "step n" below is step n of its section
//! "What it implements", and W1–W3, W12 are its "Modelling decisions".
//!
//! * Slow start, congestion avoidance, fast retransmit and fast recovery are
//!   NewReno's (the sender's [`Recovery::NewReno`] mechanics; growth through
//!   [`super::slow_start`] and [`super::cong_avoid_ai`], as [`super::Reno`]).
//! * Bandwidth estimate (steps 1–3; W1): the bytes acknowledged by arriving
//!   ACKs are summed (a duplicate ACK counts one segment, a later cumulative
//!   ACK only the excess over what the dupacks already counted); once per RTT
//!   the sum over the interval gives a sample `b_k = d_k / Δ_k`, which is
//!   low-pass filtered: `BWE_k = α·BWE_{k−1} + (1 − α)·b_k`, α = 0.9,
//!   `BWE_1 = b_1` ([`Filter::Ewma`]). The Linux `tcp_westwood.c` filter (two
//!   cascaded 7/8 EWMAs, [`Filter::LinuxCascade`]) is an option.
//! * Reaction (step 4; the paper's §II pseudo-code): on three duplicate ACKs,
//!   an ECN echo and a timeout, `ssthresh = max(2, BWE·RTT_min / seg_size)`
//!   segments; the sender then sets cwnd = ssthresh (+ fast-recovery
//!   inflation, deflated to ssthresh on exit) after dupacks (W2) and cwnd = 1
//!   segment after a timeout (W3).
//!
//! Deviations and choices:
//! * The RTT interval is closed against the sender's smoothed RTT (srtt), with
//!   no lower bound by default (the paper has no parameter here); Linux's
//!   `max(RTT, 50 ms)` is [`Params::min_interval`] = 50 ms. Linux compares
//!   against the latest RTT sample rather than srtt.
//! * RTT_min is the sender's exact minimum RTT sample (W12: ns-2 quantizes it
//!   to 10 ms ticks; set the flow's `rtt_tick` to reproduce that).
//! * Before the first bandwidth sample there is no estimate, and the loss
//!   response falls back to Reno's `max(FlightSize/2, 2·SMSS)`.
//! * ssthresh is truncated to whole segments (ns-2 packet mode and Linux both
//!   compute it in integer segments).
//! * BWE counts payload bytes (acknowledged sequence space), so with
//!   headers it is below the wire rate by a factor mss/(mss + header);
//!   BWE·RTT_min is then a window in payload bytes, as cwnd is.

use super::{halve_flight, reno_cong_avoid, AckSample, CcState, CongestionOps, Recovery};
use crate::units::Time;

/// The low-pass filter applied to the per-RTT bandwidth samples.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Filter {
    /// `BWE_k = α·BWE_{k−1} + (1 − α)·b_k`, `BWE_1 = b_1` (Westwood+ paper;
    /// ns-2 `fr_alpha_`). α is dimensionless, in [0, 1).
    Ewma { alpha: f64 },
    /// Linux `tcp_westwood.c`: `x ← (7x + b_k)/8`, then `BWE ← (7·BWE + x)/8`;
    /// both start at `b_1`.
    LinuxCascade,
}

/// Configuration (immutable during a run).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// Sample filter; default [`Filter::Ewma`] with α = 0.9.
    pub filter: Filter,
    /// Lower bound on a sampling interval (ns), in addition to srtt; default 0,
    /// Linux 50 ms (`TCP_WESTWOOD_RTT_MIN`).
    pub min_interval: Time,
    /// Name reported by [`CongestionOps::name`].
    pub name: &'static str,
}

impl Params {
    /// The Westwood+ paper's estimator: α = 0.9, interval = srtt.
    pub const PAPER: Params = Params {
        filter: Filter::Ewma { alpha: 0.9 },
        min_interval: Time::ZERO,
        name: "westwood",
    };
    /// Linux `tcp_westwood.c`: cascaded 7/8 filter, interval ≥ max(srtt, 50 ms).
    pub const LINUX: Params = Params {
        filter: Filter::LinuxCascade,
        min_interval: Time::from_millis(50),
        name: "westwood-linux",
    };
}

impl Default for Params {
    fn default() -> Self {
        Params::PAPER
    }
}

/// Estimator state.
#[derive(Clone, Debug, Default)]
struct Vars {
    /// Start of the current sampling interval (None before the first ACK).
    interval_start: Option<Time>,
    /// Bytes counted as delivered in the current interval (`d_k`, Linux `bk`).
    delivered: u64,
    /// Bytes counted by duplicate ACKs and not yet covered by a cumulative ACK
    /// (Linux `accounted`).
    unaccounted: u64,
    /// Last sample b_k in bytes/s.
    sample: Option<f64>,
    /// First filter stage (Linux `bw_ns_est`), bytes/s; only for the cascade.
    stage1: f64,
    /// Filtered estimate BWE in bytes/s (None before the first sample).
    bwe: Option<f64>,
}

pub struct Westwood {
    p: Params,
    v: Vars,
}

impl Westwood {
    /// The paper's Westwood+ (registered as "westwood").
    pub fn new() -> Westwood {
        Westwood::with_params(Params::PAPER)
    }

    /// Any filter / interval combination. Panics on α outside [0, 1).
    pub fn with_params(p: Params) -> Westwood {
        if let Filter::Ewma { alpha } = p.filter {
            assert!(
                (0.0..1.0).contains(&alpha),
                "westwood: alpha must be in [0, 1), got {alpha}"
            );
        }
        Westwood { p, v: Vars::default() }
    }

    /// The bandwidth estimate in bytes/s, if a sample has been taken.
    pub fn bwe(&self) -> Option<f64> {
        self.v.bwe
    }

    /// Step 1: bytes this ACK counts as delivered (Linux
    /// `westwood_acked_count`, in the model page's form).
    fn acked_count(&mut self, mss: u64, sample: &AckSample) -> u64 {
        if sample.dup {
            // A duplicate ACK: the receiver got one segment out of order.
            self.v.unaccounted += mss;
            return mss;
        }
        let k = sample.acked;
        if self.v.unaccounted >= k {
            // Everything newly acked was already counted by dupacks; the ACK
            // itself still reports one segment (the one that filled the hole).
            self.v.unaccounted -= k;
            mss.min(k)
        } else {
            let n = k - self.v.unaccounted;
            self.v.unaccounted = 0;
            n
        }
    }

    /// Step 3: low-pass filter one sample (bytes/s).
    fn filter(&mut self, b: f64) {
        self.v.sample = Some(b);
        self.v.bwe = Some(match (self.v.bwe, self.p.filter) {
            (None, _) => {
                self.v.stage1 = b;
                b
            }
            (Some(prev), Filter::Ewma { alpha }) => alpha * prev + (1.0 - alpha) * b,
            (Some(prev), Filter::LinuxCascade) => {
                self.v.stage1 = (7.0 * self.v.stage1 + b) / 8.0;
                (7.0 * prev + self.v.stage1) / 8.0
            }
        });
    }

    /// `max(2, BWE·RTT_min / seg_size)` segments, in bytes; None without an estimate.
    fn bw_rttmin(&self, s: &CcState) -> Option<u64> {
        let bwe = self.v.bwe?;
        let rtt_min = s.min_rtt?;
        let bytes = bwe * rtt_min.as_nanos() as f64 / 1e9;
        // Whole segments (ns-2 / Linux integer arithmetic); the epsilon keeps an
        // exact product such as 100 000.0 from truncating to 99 999.99….
        let segs = (bytes / s.mss as f64 + 1e-9).floor() as u64;
        Some(segs.max(2) * s.mss)
    }
}

impl Default for Westwood {
    fn default() -> Self {
        Westwood::new()
    }
}

impl CongestionOps for Westwood {
    fn name(&self) -> &'static str {
        self.p.name
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    /// 3 dupacks (and ECN): `ssthresh = max(2, BWE·RTT_m/seg_size)`; Reno's
    /// rule before the first sample.
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        self.bw_rttmin(s).unwrap_or_else(|| halve_flight(s))
    }
    /// RTO: the same value (step 4; the sender sets cwnd = 1 segment, W3).
    fn ssthresh_timeout(&mut self, s: &CcState) -> u64 {
        self.ssthresh(s)
    }
    /// Identical to Reno.
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        reno_cong_avoid(s, acked);
    }
    /// Step 2: close the interval once `now − start ≥ max(srtt,
    /// min_interval)` (before counting this ACK, as Linux), then count the ACK.
    fn pkts_acked(&mut self, s: &CcState, sample: &AckSample) {
        let now = s.now;
        let start = *self.v.interval_start.get_or_insert(now);
        if let Some(srtt) = s.srtt {
            let span = now - start;
            if span > Time::ZERO && span >= srtt.max(self.p.min_interval) {
                let b = self.v.delivered as f64 * 1e9 / span.as_nanos() as f64;
                self.filter(b);
                self.v.delivered = 0;
                self.v.interval_start = Some(now);
            }
        }
        let n = self.acked_count(s.mss, sample);
        self.v.delivered += n;
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        self.v.bwe.map(|b| ("bwe_bps", b * 8.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn st(now_us: u64, srtt_ms: u64, min_rtt_ms: u64) -> CcState {
        CcState {
            now: Time::from_micros(now_us),
            mss: MSS,
            cwnd: 100 * MSS,
            ssthresh: u64::MAX,
            flight: 100 * MSS,
            cwnd_cnt: 0,
            byte_counting: true,
            srtt: Some(Time::from_millis(srtt_ms)),
            min_rtt: Some(Time::from_millis(min_rtt_ms)),
            pipe: 0,
            delivered: 0,
            pacing_rate: 0,
            stamp: 0.0,
        }
    }

    fn ack(bytes: u64) -> AckSample {
        AckSample {
            acked: bytes,
            ..AckSample::default()
        }
    }

    fn dupack() -> AckSample {
        AckSample {
            dup: true,
            in_recovery: true,
            ..AckSample::default()
        }
    }

    /// Feeds ACKs of `bytes` every 1 ms at t = from, from+1, … (ms), srtt 100 ms.
    fn stream(w: &mut Westwood, from_ms: u64, count: u64, bytes: u64) {
        for i in 0..count {
            w.pkts_acked(&st((from_ms + i) * 1000, 100, 100), &ack(bytes));
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Steps 2–3: 1000 B per 1 ms with srtt 100 ms is b = 8 Mbit/s per
    /// interval; BWE_1 = b_1 and then BWE_k = 0.9·BWE_{k−1} + 0.1·b_k — flat on
    /// a steady stream, and 8.8, 9.52, 10.168 Mbit/s after a step to 16 Mbit/s.
    #[test]
    fn spec_1_2_steady_ack_stream_and_alpha_0_9_recursion() {
        let mut w = Westwood::new();
        assert_eq!(w.trace(), None);
        // ACKs at 0, 1, …, 99 ms fill the first interval (it opens at 0 ms).
        stream(&mut w, 0, 100, 1000);
        assert_eq!(w.bwe(), None);
        for k in 1..=3 {
            // The ACK at k·100 ms closes interval k: d = 100 000 B, Δ = 100 ms.
            stream(&mut w, k * 100, 100, 1000);
            let b = w.v.sample.unwrap() * 8.0;
            assert!(close(b, 8e6), "b_{k} = {b}");
            let (name, bwe) = w.trace().unwrap();
            assert_eq!(name, "bwe_bps");
            assert!(close(bwe, 8e6), "BWE_{k} = {bwe}");
        }
        // Step to 2000 B/ms = 16 Mbit/s from 400 ms on. The ACK at 400 ms
        // still closes a 1000 B/ms interval (BWE_4 = 8 Mbit/s); then
        // BWE_5..7 = 0.9·BWE + 0.1·16 = 8.8, 9.52, 10.168 Mbit/s.
        stream(&mut w, 400, 100, 2000);
        assert!(close(w.trace().unwrap().1, 8e6));
        for (k, want) in [(5, 8.8e6), (6, 9.52e6), (7, 10.168e6)] {
            stream(&mut w, k * 100, 100, 2000);
            assert!(close(w.v.sample.unwrap() * 8.0, 16e6));
            let got = w.trace().unwrap().1;
            assert!(close(got, want), "BWE_{k} = {got}, want {want}");
        }
    }

    /// Step 1 (ns-2 / Linux accounting): three dupacks count one segment
    /// each; the cumulative ACK then covering 4 segments adds only the one
    /// not already counted — 4 segments in all, not 7.
    #[test]
    fn spec_1_2_dupacks_then_cumulative_ack_count_four_segments_not_seven() {
        let mut w = Westwood::new();
        for t in 0..3 {
            w.pkts_acked(&st(t * 1000, 100, 100), &dupack());
        }
        assert_eq!(w.v.delivered, 3 * MSS);
        assert_eq!(w.v.unaccounted, 3 * MSS);
        w.pkts_acked(&st(3000, 100, 100), &ack(4 * MSS));
        assert_eq!(w.v.delivered, 4 * MSS);
        assert_eq!(w.v.unaccounted, 0);

        // A partial ACK wholly covered by earlier dupacks counts one segment
        // and consumes the dupacks it covers.
        let mut w = Westwood::new();
        for t in 0..5 {
            w.pkts_acked(&st(t * 1000, 100, 100), &dupack());
        }
        w.pkts_acked(&st(5000, 100, 100), &ack(2 * MSS));
        assert_eq!(w.v.delivered, 6 * MSS);
        assert_eq!(w.v.unaccounted, 3 * MSS);
    }

    /// Step 4 (the paper's reaction): ssthresh = BWE·RTT_min — 8 Mbit/s × 100 ms =
    /// 100 000 B — on dupacks and timeout alike, with a floor of 2 segments.
    #[test]
    fn spec_1_2_ssthresh_is_bwe_times_rtt_min_with_two_segment_floor() {
        let mut w = Westwood::new();
        stream(&mut w, 0, 101, 1000);
        assert!(close(w.bwe().unwrap() * 8.0, 8e6));
        let s = st(100_000, 120, 100);
        assert_eq!(w.ssthresh(&s), 100_000);
        assert_eq!(w.ssthresh_timeout(&s), 100_000);
        // RTT_min, not srtt, scales the estimate.
        assert_eq!(w.ssthresh(&st(100_000, 300, 50)), 50_000);
        // Tiny pipe: 8 Mbit/s × 1 ms = 1000 B < 2·MSS.
        assert_eq!(w.ssthresh(&st(100_000, 100, 1)), 2 * MSS);
        // Truncated to whole segments: 8 Mbit/s × 3.5 ms = 3500 B → 3 segments.
        let mut s = st(100_000, 100, 0);
        s.min_rtt = Some(Time::from_micros(3500));
        assert_eq!(w.ssthresh(&s), 3 * MSS);
    }

    /// No sample yet (first interval still open): Reno's max(FlightSize/2, 2·SMSS).
    #[test]
    fn spec_1_2_before_first_sample_ssthresh_falls_back_to_reno() {
        let mut w = Westwood::new();
        stream(&mut w, 0, 50, 1000);
        assert_eq!(w.bwe(), None);
        let mut s = st(50_000, 100, 100);
        s.flight = 30 * MSS;
        assert_eq!(w.ssthresh(&s), 15 * MSS);
        assert_eq!(w.ssthresh_timeout(&s), 15 * MSS);
        s.flight = MSS;
        assert_eq!(w.ssthresh(&s), 2 * MSS);
        // No srtt yet: bytes accumulate but no interval closes.
        let mut w = Westwood::new();
        let mut s = st(0, 100, 100);
        s.srtt = None;
        for t in 0..300 {
            s.now = Time::from_millis(t);
            w.pkts_acked(&s, &ack(MSS));
        }
        assert_eq!(w.bwe(), None);
        assert_eq!(w.v.delivered, 300 * MSS);
    }

    /// Growth is Reno's: slow start below ssthresh, +1 MSS per window above.
    #[test]
    fn growth_is_reno() {
        let mut w = Westwood::new();
        let mut s = st(0, 100, 100);
        s.cwnd = 10 * MSS;
        s.ssthresh = 11 * MSS;
        w.cong_avoid(&mut s, MSS);
        assert_eq!(s.cwnd, 11 * MSS);
        for _ in 0..11 {
            w.cong_avoid(&mut s, MSS);
        }
        assert_eq!(s.cwnd, 12 * MSS);
        assert_eq!(w.recovery(), Recovery::NewReno);
    }

    /// Linux `tcp_westwood.c`: two cascaded 7/8 EWMAs, and no sample before
    /// 50 ms even when srtt is shorter.
    #[test]
    fn linux_cascade_and_50ms_floor() {
        let mut w = Westwood::with_params(Params::LINUX);
        assert_eq!(w.name(), "westwood-linux");
        // srtt 10 ms: intervals still last 50 ms. 1000 B/ms = 8 Mbit/s.
        let mut s = st(0, 10, 10);
        for t in 0..=50 {
            s.now = Time::from_millis(t);
            w.pkts_acked(&s, &ack(MSS));
            if t < 50 {
                assert_eq!(w.bwe(), None, "t = {t} ms");
            }
        }
        assert!(close(w.bwe().unwrap() * 8.0, 8e6));
        // Step to 16 Mbit/s: stage 1 = (7·8 + 16)/8 = 9, BWE = (7·8 + 9)/8 = 8.125.
        for t in 51..=100 {
            s.now = Time::from_millis(t);
            w.pkts_acked(&s, &ack(2 * MSS));
        }
        // The ACK at 50 ms (1000 B) opened this interval; 49 × 2000 B + 1000 B
        // = 99 000 B over 50 ms = 15.84 Mbit/s.
        let b = w.v.sample.unwrap() * 8.0;
        assert!(close(b, 15.84e6), "{b}");
        let s1 = (7.0 * 8e6 + b) / 8.0;
        assert!(close(w.trace().unwrap().1, (7.0 * 8e6 + s1) / 8.0));
    }
}
