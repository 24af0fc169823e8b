//! CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks", 2023; Ha,
//! Rhee & Xu, "CUBIC: a new TCP-friendly high-speed TCP variant", SIGOPS OSR
//! 42(5), 2008), with HyStart++ (RFC 9406, [`super::hystart`]) as an option.
//!
//! * Window (§4.2, eq. 1–2): in congestion avoidance, `W_cubic(t) = C·(t −
//!   K)³ + W_max`, t the time since the epoch began (the first ACK of
//!   congestion avoidance after slow start or a reduction), `K = ∛((W_max −
//!   cwnd_epoch)/C)` with `cwnd_epoch` the window when the epoch began (0
//!   when `cwnd_epoch ≥ W_max`, with `W_max = cwnd_epoch`: after the initial
//!   slow start there is no W_max). Windows in segments, t and K in seconds.
//! * Reno-friendly region (§4.3): `W_est` starts at `cwnd_epoch` and grows by
//!   `α_cubic · segments_acked / cwnd` per ACK, `α_cubic = 3(1 − β)/(1 + β)`
//!   until `W_est ≥ cwnd_prior` (the window before the last reduction), 1
//!   after; when `W_cubic(t) < W_est`, cwnd = W_est.
//! * Concave and convex regions (§4.4–4.5): `target = W_cubic(t + RTT)`
//!   clamped to [cwnd, 1.5·cwnd], and cwnd grows by `(target − cwnd)/cwnd`
//!   per segment acknowledged (byte counting: per `acked/SMSS`; the fraction
//!   of a byte is carried). RTT is the smoothed RTT (§4.1 "RTT: smoothed
//!   round-trip time", RFC 6298), the minimum before the first sample of srtt.
//! * Multiplicative decrease (§4.6) on a loss by duplicate ACKs and an ECN
//!   echo: `cwnd_prior = W`, `ssthresh = max(β·W, 2 segments)`, with W the
//!   window the sender's `loss_window` names (FlightSize, which §4.6 allows;
//!   with `loss_window = "cwnd"`, cwnd as Linux and ns-3 use).
//! * Fast convergence (§4.7): if `W < W_max` (the previous one), `W_max =
//!   W·(1 + β)/2`, else `W_max = W`.
//! * Timeout (§4.8): ssthresh as §4.6; the first congestion avoidance after it
//!   starts with `K = 0` and `W_max = cwnd_epoch` (Linux: `bictcp_reset` at
//!   `TCP_CA_Loss`). With `timeout_w_max = "keep"`, as ns-3's `TcpCubic`
//!   (whose `CubicReset` leaves `m_lastMaxCwnd`), the W_max that the
//!   timeout's §4.6–4.7 reduction set stays: the window plateaus there first.
//! * Slow start below ssthresh: the sender's (RFC 5681, RFC 3465 L = 1), or
//!   HyStart++ with `hystart = "hystart++"` (initial slow start only).
//!
//! Not implemented: spurious congestion events (§4.9, undo; the sender has no
//! spurious-loss detection, F-RTO or Eifel), and Linux's `tcp_friendliness`
//! and `bic_scale` integer arithmetic (the window here is real-valued, as in
//! the RFC; Linux and ns-3 measure `t + RTT` with the minimum RTT).

use super::hystart::HyStart;
use super::{slow_start, AckSample, CaEvent, CcSpec, CcState, CongestionOps, Needs};
use crate::cfg::{Res, Tab};
use crate::units::Time;
use serde_json::Value;
use std::sync::Arc;

/// Configuration.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// C, in segments/s³ (RFC 9438 §5: 0.4); > 0.
    pub c: f64,
    /// β_cubic, the window kept at a reduction (§4.6: 0.7); in (0, 1).
    pub beta: f64,
    /// Fast convergence (§4.7; on by default, SHOULD).
    pub fast_convergence: bool,
    /// HyStart++ (RFC 9406) in the initial slow start.
    pub hystart: bool,
    /// After a timeout the first epoch starts with K = 0 and W_max =
    /// cwnd_epoch (§4.8; Linux `bictcp_reset` zeroes `last_max_cwnd`): true,
    /// `timeout_w_max = "reset"`. False, `"keep"`: the W_max of the timeout's
    /// reduction stays, and the window climbs back to it as after any loss
    /// (ns-3's `TcpCubic::CubicReset` leaves `m_lastMaxCwnd`).
    pub timeout_reset: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            hystart: false,
            timeout_reset: true,
        }
    }
}

impl Params {
    /// Reads `cc = {kind = "cubic", c, beta, fast_convergence, hystart,
    /// timeout_w_max}`.
    pub fn read(t: &mut Tab) -> Res<Params> {
        let d = Params::default();
        let c = t.float("c", Some(d.c), 0.0, 1000.0)?;
        if c <= 0.0 {
            return Err(t.error(
                "c",
                &Value::from(c),
                "a number in the open interval (0, 1000] (RFC 9438 §5: C > 0)",
            ));
        }
        let beta = t.float("beta", Some(d.beta), 0.0, 1.0)?;
        if beta <= 0.0 || beta >= 1.0 {
            return Err(t.error(
                "beta",
                &Value::from(beta),
                "a number in the open interval (0, 1) (RFC 9438 §4.6: β_cubic)",
            ));
        }
        let fast_convergence = t.boolean("fast_convergence", d.fast_convergence)?;
        let hystart = t.choice("hystart", Some("off"), &["off", "hystart++"])? == "hystart++";
        let timeout_reset = t.choice("timeout_w_max", Some("reset"), &["reset", "keep"])? == "reset";
        Ok(Params {
            c,
            beta,
            fast_convergence,
            hystart,
            timeout_reset,
        })
    }

    /// α_cubic = 3(1 − β)/(1 + β) (§4.3).
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// K = ∛((W_max − cwnd_epoch)/C) in seconds (eq. 2), 0 if cwnd_epoch ≥ W_max.
    pub fn k(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / self.c).cbrt()
    }
}

impl CcSpec for Params {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn build(&self) -> Box<dyn CongestionOps> {
        Box::new(Cubic::new(*self))
    }
    fn needs(&self) -> Needs {
        Needs {
            // SACK recovery by default, as Linux and ns-3 (TcpSocketBase::Sack) run it
            sack: true,
            timestamps: self.hystart,
            ..Needs::default()
        }
    }
}

/// The current epoch (§4.2).
#[derive(Copy, Clone, Debug)]
struct Epoch {
    start: Time,
    /// K, seconds.
    k: f64,
    /// The W_max of eq. 1 for this epoch, segments.
    w_max: f64,
    /// W_est, segments.
    w_est: f64,
}

pub struct Cubic {
    p: Params,
    alpha: f64,
    /// W_max (segments) from the last reduction; 0 before any.
    w_max: f64,
    /// cwnd_prior (segments): the window before the last reduction.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// The first epoch after a timeout starts with K = 0 (§4.8).
    after_timeout: bool,
    /// Fraction of a byte of cwnd carried to the next ACK.
    frac: f64,
    hystart: Option<HyStart>,
    reductions: u64,
}

impl Cubic {
    pub fn new(p: Params) -> Cubic {
        Cubic {
            alpha: p.alpha(),
            p,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            after_timeout: false,
            frac: 0.0,
            hystart: p.hystart.then(HyStart::new),
            reductions: 0,
        }
    }

    /// W_cubic(t) in segments (eq. 1).
    fn w_cubic(&self, e: &Epoch, t: f64) -> f64 {
        self.p.c * (t - e.k).powi(3) + e.w_max
    }

    /// Congestion avoidance for an ACK of `acked` bytes (§4.2–4.5).
    fn cubic_update(&mut self, s: &mut CcState, acked: u64) {
        let mss = s.mss as f64;
        let cwnd = s.cwnd as f64 / mss;
        let e = match self.epoch {
            Some(e) => e,
            None => {
                let mut w_max = self.w_max;
                if self.after_timeout || w_max <= cwnd {
                    w_max = cwnd;
                }
                self.after_timeout = false;
                let e = Epoch {
                    start: s.now,
                    k: self.p.k(w_max, cwnd),
                    w_max,
                    w_est: cwnd,
                };
                self.epoch = Some(e);
                e
            }
        };
        let t = (s.now - e.start).as_secs_f64();
        let segs = acked as f64 / mss;
        // §4.3: W_est grows at Reno's rate scaled by α_cubic (1 once it
        // reaches cwnd_prior).
        let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { self.alpha };
        let w_est = e.w_est + alpha * segs / cwnd;
        self.epoch = Some(Epoch { w_est, ..e });
        let next = if self.w_cubic(&e, t) < w_est {
            // Reno-friendly region: cwnd = W_est.
            w_est.max(cwnd)
        } else {
            // §4.4–4.5: target = W_cubic(t + RTT) in [cwnd, 1.5 cwnd].
            let rtt = s.srtt.or(s.min_rtt).unwrap_or(Time::ZERO).as_secs_f64();
            let target = self.w_cubic(&e, t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * segs
        };
        let bytes = next * mss - s.cwnd as f64 + self.frac;
        let whole = bytes.floor().max(0.0);
        self.frac = if bytes > 0.0 { bytes - whole } else { 0.0 };
        s.cwnd += whole as u64;
    }

    /// W_max and ssthresh after a congestion event (§4.6–4.7).
    fn reduce(&mut self, s: &CcState) -> u64 {
        let w = s.flight as f64 / s.mss as f64;
        self.w_max = if self.p.fast_convergence && w < self.w_max {
            w * (1.0 + self.p.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        self.epoch = None;
        self.frac = 0.0;
        self.reductions += 1;
        if let Some(h) = self.hystart.as_mut() {
            h.stop();
        }
        ((w * self.p.beta * s.mss as f64) as u64).max(2 * s.mss)
    }
}

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn ssthresh(&mut self, s: &CcState) -> u64 {
        self.reduce(s)
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let mut acked = acked;
        if s.cwnd < s.ssthresh {
            let exit = self.hystart.as_mut().is_some_and(|h| h.take_exit());
            let divisor = match &self.hystart {
                // RFC 9406 §4.2: CSS_ROUNDS done, ssthresh = cwnd.
                _ if exit => {
                    s.ssthresh = s.cwnd;
                    0
                }
                Some(h) => h.divisor(),
                None => 1,
            };
            match divisor {
                0 => {}
                1 => acked = slow_start(s, acked),
                d => {
                    // CSS: a quarter of slow start's increase.
                    s.cwnd = (s.cwnd + acked.min(s.mss) / d).min(s.ssthresh);
                    acked = 0;
                }
            }
        }
        if acked > 0 && s.cwnd >= s.ssthresh {
            self.cubic_update(s, acked);
        }
    }
    fn pkts_acked(&mut self, s: &CcState, a: &AckSample) {
        if let Some(h) = self.hystart.as_mut() {
            if s.cwnd < s.ssthresh && !a.dup && !a.in_recovery {
                h.on_ack(a.acked, a.rtt, s.flight);
            }
        }
    }
    fn per_ack_hooks(&self) -> bool {
        self.hystart.is_some()
    }
    fn cwnd_event(&mut self, _s: &mut CcState, ev: CaEvent) {
        if ev == CaEvent::Timeout {
            self.epoch = None;
            self.after_timeout = self.p.timeout_reset;
            if let Some(h) = self.hystart.as_mut() {
                h.stop();
            }
        }
    }
    fn trace(&self) -> Option<(&'static str, f64)> {
        Some(("w_max", self.w_max))
    }
    fn stats(&self) -> Vec<(&'static str, f64)> {
        let mut v = vec![("reductions", self.reductions as f64)];
        if let Some(h) = &self.hystart {
            v.push(("css_entries", h.css_entries as f64));
            v.push(("css_spurious", h.css_spurious as f64));
        }
        v
    }
}

/// The registry's reader.
pub fn read(t: &mut Tab) -> Res<Arc<dyn CcSpec>> {
    Ok(Arc::new(Params::read(t)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn st(cwnd_segs: u64, ssthresh_segs: u64, now: Time, srtt: Time) -> CcState {
        CcState {
            now,
            mss: MSS,
            cwnd: cwnd_segs * MSS,
            ssthresh: ssthresh_segs * MSS,
            flight: cwnd_segs * MSS,
            cwnd_cnt: 0,
            byte_counting: true,
            srtt: Some(srtt),
            min_rtt: Some(srtt),
            pipe: 0,
            delivered: 0,
            pacing_rate: 0,
        }
    }

    #[test]
    fn k_for_a_given_w_max() {
        // RFC 9438 eq. 2 with W_max = 100, cwnd_epoch = 70 (β = 0.7), C = 0.4:
        // K = ∛(30/0.4) = ∛75 = 4.2172 s.
        let p = Params::default();
        assert!((p.k(100.0, 70.0) - 4.217_163).abs() < 1e-5);
        assert_eq!(p.k(50.0, 70.0), 0.0);
        // α_cubic = 3·0.3/1.7 = 0.5294
        assert!((p.alpha() - 0.529_411_8).abs() < 1e-6);
    }

    /// Drives `c` with one ACK per segment of the window, spread evenly over
    /// each RTT, from `s.now` to `until`; returns cwnd (segments) at the end
    /// of each RTT.
    fn drive(c: &mut Cubic, s: &mut CcState, until: Time, rtt: Time) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        while s.now < until {
            let n = s.cwnd / MSS;
            for _ in 0..n {
                s.now += Time(rtt.0 / n);
                c.cong_avoid(s, MSS);
            }
            out.push((s.now.as_secs_f64(), s.cwnd as f64 / MSS as f64));
        }
        out
    }

    fn at(series: &[(f64, f64)], t: f64) -> f64 {
        series.iter().find(|p| p.0 >= t).expect("sampled").1
    }

    /// After a loss at W = 1000 segments (RTT 100 ms, where the cubic curve
    /// is far above Reno's line) cwnd follows W_cubic: at t = K = ∛(300/0.4)
    /// = 9.09 s it is back at W_max (the plateau), and at 14 s, 0.4·(14 −
    /// K)³ = 47.5 segments above it; halfway to K, 1000 − 0.4·(K/2)³.
    #[test]
    fn window_after_t_seconds_follows_w_cubic() {
        let mut c = Cubic::new(Params::default());
        let rtt = Time::from_millis(100);
        assert_eq!(c.ssthresh(&st(1000, 10_000, Time::ZERO, rtt)), 700 * MSS);
        let mut s = st(700, 700, Time::ZERO, rtt);
        let k = Params::default().k(1000.0, 700.0);
        assert!((k - 9.0856).abs() < 1e-3);
        let series = drive(&mut c, &mut s, Time::from_secs(14), rtt);
        for t in [k / 2.0, k, 14.0] {
            let want = 0.4 * (t - k).powi(3) + 1000.0;
            let got = at(&series, t);
            assert!(
                (got - want).abs() / want < 0.01,
                "cwnd at {t} s: {got}, W_cubic: {want}"
            );
        }
    }

    /// With a small W_max and a long RTT the cubic curve is slower than
    /// Reno's: W_est takes over (§4.3). W_max = 10, cwnd_epoch = 7: K =
    /// ∛7.5 = 1.96 s, while at RTT 100 ms W_est grows by α ≈ 0.53 segment per
    /// RTT to 10 (cwnd_prior), then 1 per RTT: 10 is reached after ~5.7 RTTs,
    /// and by 1 s W_est ≈ 14.3, while W_cubic(1 s) = 10 − 0.4·0.96³ ≈ 9.65.
    #[test]
    fn reno_friendly_region_takes_over_at_small_rtt_times_w() {
        let mut c = Cubic::new(Params::default());
        let rtt = Time::from_millis(100);
        c.ssthresh(&st(10, 1000, Time::ZERO, rtt));
        let mut s = st(7, 7, Time::ZERO, rtt);
        drive(&mut c, &mut s, Time::from_secs(1), rtt);
        let e = c.epoch.unwrap();
        let cwnd = s.cwnd as f64 / MSS as f64;
        assert!(c.w_cubic(&e, 1.0) < 9.7);
        assert!((cwnd - e.w_est).abs() < 0.01, "cwnd {cwnd} is W_est {}", e.w_est);
        assert!(cwnd > 13.0 && cwnd < 15.0, "{cwnd}");
    }

    #[test]
    fn fast_convergence_releases_bandwidth() {
        let mut c = Cubic::new(Params::default());
        let rtt = Time::from_millis(10);
        c.ssthresh(&st(100, 1000, Time::ZERO, rtt));
        assert_eq!(c.w_max, 100.0);
        // the next loss at 80 < W_max: W_max = 80·1.7/2 = 68
        assert_eq!(c.ssthresh(&st(80, 70, Time::ZERO, rtt)), 56 * MSS);
        assert!((c.w_max - 68.0).abs() < 1e-9);
        let mut off = Cubic::new(Params {
            fast_convergence: false,
            ..Params::default()
        });
        off.ssthresh(&st(100, 1000, Time::ZERO, rtt));
        off.ssthresh(&st(80, 70, Time::ZERO, rtt));
        assert_eq!(off.w_max, 80.0);
    }

    /// The epoch that begins at the first congestion avoidance after a
    /// timeout at cwnd 100 (no earlier W_max), slow start having reached 70.
    fn epoch_after_a_timeout(p: Params) -> Epoch {
        let mut c = Cubic::new(p);
        let rtt = Time::from_millis(10);
        let mut s = st(100, 1000, Time::ZERO, rtt);
        c.ssthresh_timeout(&s);
        c.cwnd_event(&mut s, CaEvent::Timeout);
        let mut s = st(70, 70, Time::from_secs(1), rtt);
        c.cong_avoid(&mut s, MSS);
        c.epoch.unwrap()
    }

    /// §4.8: the first congestion avoidance after a timeout starts at K = 0.
    #[test]
    fn after_a_timeout_k_is_zero() {
        let e = epoch_after_a_timeout(Params::default());
        assert_eq!((e.k, e.w_max), (0.0, 70.0));
    }

    /// `timeout_w_max = "keep"` (ns-3): the timeout's reduction sets W_max as
    /// any loss (here 100, no earlier W_max) and the epoch after slow start
    /// climbs back to it: K = ∛((100 − 70)/0.4) = ∛75 ≈ 4.22 s.
    #[test]
    fn keep_leaves_the_timeouts_w_max() {
        let j = serde_json::json!({"timeout_w_max": "keep"});
        let e = epoch_after_a_timeout(Params::read(&mut Tab::new("cc".into(), &j).unwrap()).unwrap());
        assert_eq!(e.w_max, 100.0);
        assert!((e.k - 75f64.cbrt()).abs() < 1e-12, "K {}", e.k);
        let bad = serde_json::json!({"timeout_w_max": "zero"});
        let err = Params::read(&mut Tab::new("flows[0].cc".into(), &bad).unwrap()).unwrap_err();
        assert_eq!(err.path, "flows[0].cc.timeout_w_max");
    }

    #[test]
    fn bad_parameters_are_refused_with_the_key() {
        for (k, v) in [("beta", 1.0), ("beta", 0.0), ("c", 0.0)] {
            let j = serde_json::json!({ k: v });
            let mut t = Tab::new("flows[0].cc".into(), &j).unwrap();
            let e = Params::read(&mut t).unwrap_err();
            assert_eq!(e.path, format!("flows[0].cc.{k}"));
            assert!(e.expected.contains("open interval"), "{e}");
        }
        let j = serde_json::json!({"hystart": "hystart++", "beta": 0.5});
        let mut t = Tab::new("cc".into(), &j).unwrap();
        let p = Params::read(&mut t).unwrap();
        assert!(p.hystart && p.needs().timestamps);
        assert_eq!(p.beta, 0.5);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Whatever the ACK times, sizes, RTTs and losses: congestion
            /// avoidance never shrinks cwnd and grows it by at most half a
            /// segment per segment acknowledged (the 1.5·cwnd clamp of §4.4)
            /// unless the Reno-friendly W_est (which grows by at most one
            /// segment per window) is above it; a reduction keeps
            /// max(β·W, 2 segments) and W_max is positive.
            #[test]
            fn window_stays_within_the_rfc_bounds(
                events in proptest::collection::vec((0u64..50, 1u64..4, 1u64..300, 0u8..20), 1..400),
                beta in 0.05f64..0.95,
                c in 0.01f64..4.0,
            ) {
                let p = Params { c, beta, ..Params::default() };
                let mut cc = Cubic::new(p);
                let mut s = st(10, 10, Time::ZERO, Time::from_millis(50));
                for (dt, segs, rtt, loss) in events {
                    s.now += Time::from_millis(dt);
                    s.srtt = Some(Time::from_millis(rtt));
                    if loss == 0 {
                        s.flight = s.cwnd;
                        let w = cc.ssthresh(&s);
                        prop_assert_eq!(w, ((s.cwnd as f64 * beta) as u64).max(2 * MSS));
                        prop_assert!(cc.w_max > 0.0);
                        s.cwnd = w;
                        s.ssthresh = w;
                        continue;
                    }
                    let before = s.cwnd;
                    cc.cong_avoid(&mut s, segs * MSS);
                    prop_assert!(s.cwnd >= before);
                    let est = cc.epoch.map_or(0.0, |e| e.w_est * MSS as f64);
                    let bound = (before + segs * MSS / 2 + 1) as f64;
                    prop_assert!(s.cwnd as f64 <= bound.max(est + 1.0), "{} -> {} (W_est {})", before, s.cwnd, est);
                }
            }
        }
    }
}
