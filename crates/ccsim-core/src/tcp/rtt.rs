//! Retransmission timer computation, two estimators.
//!
//! [`Estimator::Rfc6298`] (the default), RFC 6298 §2 in floating point:
//! * first sample R: SRTT = R, RTTVAR = R/2 (§2.2);
//! * later samples: RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R'|, then
//!   SRTT = 7/8·SRTT + 1/8·R' (§2.3, RTTVAR uses the old SRTT);
//! * RTO = SRTT + max(G, 4·RTTVAR), clamped to [min_rto, max_rto] (§2.4–2.5);
//! * exponential backoff on expiry (§5.5), reset by the next valid sample;
//! * with a sample from every ACK (RFC 7323 timestamps), optionally RFC 7323
//!   Appendix G's gains: α = 1/8 and β = 1/4 divided by ExpectedSamples =
//!   ⌈FlightSize / (2·SMSS)⌉ ([`RttEstimator::sample_weighted`]), so that a
//!   window's samples move SRTT and RTTVAR as one sample per RTT did, and
//!   RTTVAR does not collapse to the spread of back-to-back samples.
//!
//! Samples can be rounded to a clock tick (nearest whole tick, at least one),
//! for period simulators described that way: the ns of 1997 that the BUC
//! experiments ran had a 0.1 s tick with RTT samples in whole ticks
//! (`ccsim.experiments.buc_rfcn`, `rtt_tick = "100ms"`).
//!
//! [`Estimator::Ns2`], ns-2.35's `TcpAgent::rtt_update`, `rtt_timeout` and
//! `rtt_backoff` (the BSD fixed-point estimator of Jacobson 1988, appendix A),
//! in integer clock ticks:
//! * a sample counts the tick boundaries crossed between sending and
//!   acknowledgement, at least one, with the agent's clock phase (`boot_time_`,
//!   drawn uniformly in [0, tick) per connection);
//! * `t_srtt` holds 8·SRTT and `t_rttvar` 4·RTTVAR in ticks; updates truncate
//!   (`t_srtt += R − (t_srtt >> 3)`; `t_rttvar += |δ| − (t_rttvar >> 2)`), both
//!   at least 1; RTO = (`t_rttvar` + `t_srtt` >> 3) ticks, RFC 2988's min_rto
//!   clamp before the backoff, at least two ticks;
//! * after more than three backoffs (multiplier > 8) SRTT is folded into
//!   RTTVAR and cleared, so the next sample starts afresh.

use crate::units::Time;

/// Which RTT estimator and timer arithmetic to use.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Estimator {
    Rfc6298,
    Ns2,
}

#[derive(Clone, Debug)]
pub struct RttParams {
    /// Initial RTO before any sample (RFC 6298: 1 s; ns-2: 3 s).
    pub init_rto: Time,
    /// Lower bound on the RTO (RFC 6298: 1 s; ns-2.35: 0.2 s).
    pub min_rto: Time,
    /// Upper bound on the RTO (≥ 60 s).
    pub max_rto: Time,
    /// Clock granularity G in the RTO formula (RFC 6298 estimator).
    pub granularity: Time,
    /// Clock tick: RFC 6298 estimator, samples rounded to whole ticks if
    /// non-zero; ns-2 estimator, its `tcpTick_` (must be non-zero).
    pub tick: Time,
    pub estimator: Estimator,
}

impl Default for RttParams {
    fn default() -> Self {
        RttParams {
            init_rto: Time::from_secs(1),
            min_rto: Time::from_millis(200),
            max_rto: Time::from_secs(60),
            granularity: Time::ZERO,
            tick: Time::ZERO,
            estimator: Estimator::Rfc6298,
        }
    }
}

#[derive(Clone, Debug)]
enum State {
    /// SRTT and RTTVAR in nanoseconds.
    Rfc6298 { srtt: f64, rttvar: f64 },
    /// ns-2's scaled integers (ticks × 8, ticks × 4) and the clock phase (ns).
    Ns2 { t_srtt: i64, t_rttvar: i64, boot: u64 },
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    p: RttParams,
    state: State,
    has_sample: bool,
    /// RTO before backoff (clamped to [min_rto, max_rto]).
    base_rto: Time,
    backoff: u32,
    min_rtt: Option<Time>,
    last: Option<Time>,
    /// What [`RttEstimator::srtt`] and [`RttEstimator::rto`] report, derived
    /// from the fields above by `refresh` after each change (the sender
    /// reads them on every ACK).
    srtt: Option<Time>,
    timeout: Time,
}

impl RttEstimator {
    /// An estimator; `phase` in [0, 1) places the ns-2 estimator's clock
    /// ticks (`boot_time_` = phase · tick) and is ignored by RFC 6298's.
    pub fn new(p: RttParams, phase: f64) -> Self {
        let rto = p.init_rto;
        let state = match p.estimator {
            Estimator::Rfc6298 => State::Rfc6298 { srtt: 0.0, rttvar: 0.0 },
            Estimator::Ns2 => State::Ns2 {
                t_srtt: 0,
                t_rttvar: 0,
                boot: (phase.clamp(0.0, 1.0) * p.tick.0 as f64) as u64,
            },
        };
        let mut e = RttEstimator {
            p,
            state,
            has_sample: false,
            base_rto: rto,
            backoff: 0,
            min_rtt: None,
            last: None,
            srtt: None,
            timeout: rto,
        };
        e.refresh();
        e
    }

    /// Feeds the measurement of a segment sent at `sent` and acknowledged at `now`.
    pub fn sample(&mut self, sent: Time, now: Time) {
        self.sample_weighted(sent, now, 1)
    }

    /// [`RttEstimator::sample`] as one of `expected` samples per RTT (RFC
    /// 7323 Appendix G): the RFC 6298 gains divided by `expected` (≥ 1). The
    /// ns-2 estimator ignores `expected`.
    pub fn sample_weighted(&mut self, sent: Time, now: Time, expected: u64) {
        let tick = self.p.tick.0;
        let k = expected.max(1) as f64;
        let (r, rto) = match &mut self.state {
            State::Rfc6298 { srtt, rttvar } => {
                let mut r = now - sent;
                if let Some(ticks) = (r.0 + tick / 2).checked_div(tick) {
                    r = Time(ticks.max(1) * tick);
                }
                let rf = r.0 as f64;
                if !self.has_sample {
                    *srtt = rf;
                    *rttvar = rf / 2.0;
                } else {
                    let (alpha, beta) = (0.125 / k, 0.25 / k);
                    *rttvar = (1.0 - beta) * *rttvar + beta * (*srtt - rf).abs();
                    *srtt = (1.0 - alpha) * *srtt + alpha * rf;
                }
                let rto = *srtt + (self.p.granularity.0 as f64).max(4.0 * *rttvar);
                (r, Time(rto.round() as u64))
            }
            State::Ns2 { t_srtt, t_rttvar, boot } => {
                // Tick boundaries crossed (ns-2: int((tao + fmod(sendtime, tick)) / tick)).
                let ticks = ((now.0 + *boot) / tick - (sent.0 + *boot) / tick).max(1) as i64;
                if *t_srtt != 0 {
                    let mut delta = ticks - (*t_srtt >> 3);
                    *t_srtt += delta;
                    if *t_srtt <= 0 {
                        *t_srtt = 1;
                    }
                    delta = delta.abs() - (*t_rttvar >> 2);
                    *t_rttvar += delta;
                    if *t_rttvar <= 0 {
                        *t_rttvar = 1;
                    }
                } else {
                    *t_srtt = ticks << 3;
                    *t_rttvar = ticks << 1;
                }
                let rtxcur = ((*t_rttvar << 3) + *t_srtt) >> 3;
                (Time(ticks as u64 * tick), Time(rtxcur as u64 * tick))
            }
        };
        self.has_sample = true;
        self.last = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.base_rto = rto.max(self.p.min_rto).min(self.p.max_rto);
        self.backoff = 0;
        self.refresh();
    }

    /// Current timeout including backoff.
    pub fn rto(&self) -> Time {
        self.timeout
    }

    /// Brings the reported SRTT and timeout up to date with the state.
    fn refresh(&mut self) {
        self.srtt = self.current_srtt();
        self.timeout = self.current_rto();
    }

    /// The timeout from `base_rto` and `backoff`: doubled per backoff, at most
    /// max_rto.
    fn current_rto(&self) -> Time {
        let shifted = self.base_rto.0.checked_shl(self.backoff).unwrap_or(u64::MAX);
        let shifted = if self.backoff > 0 && shifted >> self.backoff != self.base_rto.0 {
            u64::MAX
        } else {
            shifted
        };
        let t = Time(shifted).min(self.p.max_rto);
        match self.state {
            // ns-2 `rtt_timeout`: never below two ticks.
            State::Ns2 { .. } => t.max(Time(2 * self.p.tick.0)),
            State::Rfc6298 { .. } => t,
        }
    }

    /// Restarts the timeout at `rto` (clamped to [min_rto, max_rto]) without
    /// backoff, unless a sample has set it or it is already at least `rto`:
    /// RFC 6298 §5.7, data after a SYN that timed out.
    pub fn restart(&mut self, rto: Time) {
        if self.has_sample || self.base_rto >= rto {
            return;
        }
        self.base_rto = rto.max(self.p.min_rto).min(self.p.max_rto);
        self.backoff = 0;
        self.refresh();
    }

    /// Doubles the timeout (RFC 6298 §5.5; ns-2 `rtt_backoff`).
    pub fn back_off(&mut self) {
        match &mut self.state {
            State::Rfc6298 { .. } => {
                if self.rto() < self.p.max_rto {
                    self.backoff += 1;
                }
            }
            State::Ns2 { t_srtt, t_rttvar, .. } => {
                // `t_backoff_ < 64 || rtt_timeout() < maxrto_`.
                let capped = self
                    .base_rto
                    .0
                    .checked_shl(self.backoff)
                    .is_none_or(|x| x >= self.p.max_rto.0);
                if self.backoff < 6 || !capped {
                    self.backoff += 1;
                }
                if self.backoff > 3 {
                    *t_rttvar += *t_srtt >> 3;
                    *t_srtt = 0;
                }
            }
        }
        self.refresh();
    }

    /// Smoothed RTT, if the estimator holds one.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// SRTT from the estimator's state, rounded to the nanosecond (ns-2: the
    /// scaled `t_srtt` in ticks; none once a backoff has cleared it).
    fn current_srtt(&self) -> Option<Time> {
        match self.state {
            _ if !self.has_sample => None,
            State::Rfc6298 { srtt, .. } => Some(Time(srtt.round() as u64)),
            State::Ns2 { t_srtt: 0, .. } => None,
            State::Ns2 { t_srtt, .. } => Some(Time(t_srtt as u64 * self.p.tick.0 / 8)),
        }
    }
    pub fn rttvar(&self) -> Option<Time> {
        match self.state {
            _ if !self.has_sample => None,
            State::Rfc6298 { rttvar, .. } => Some(Time(rttvar.round() as u64)),
            State::Ns2 { t_rttvar, .. } => Some(Time(t_rttvar as u64 * self.p.tick.0 / 4)),
        }
    }
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }
    pub fn last(&self) -> Option<Time> {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(min_rto: Time) -> RttEstimator {
        RttEstimator::new(
            RttParams {
                min_rto,
                ..RttParams::default()
            },
            0.0,
        )
    }

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    #[test]
    fn rfc6298_first_sample_gives_three_r() {
        let mut e = est(Time::ZERO);
        e.sample(ms(0), ms(100));
        assert_eq!(e.rto(), ms(300));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), Some(ms(50)));
    }

    #[test]
    fn rfc6298_second_sample_uses_old_srtt() {
        let mut e = est(Time::ZERO);
        e.sample(ms(0), ms(100));
        e.sample(ms(100), ms(300));
        // RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5
        assert_eq!(e.rttvar(), Some(Time::from_micros(62_500)));
        assert_eq!(e.srtt(), Some(Time::from_micros(112_500)));
        assert_eq!(e.rto(), Time::from_micros(112_500 + 250_000));
    }

    #[test]
    fn min_rto_clamp_backoff_and_reset() {
        let mut e = est(Time::from_secs(1));
        assert_eq!(e.rto(), Time::from_secs(1), "initial RTO");
        e.sample(ms(0), ms(10));
        assert_eq!(e.rto(), Time::from_secs(1));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), Time::from_secs(4));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Time::from_secs(60), "capped at max_rto");
        e.sample(ms(0), ms(10));
        assert_eq!(e.rto(), Time::from_secs(1), "new sample resets backoff");
    }

    #[test]
    fn tick_quantization_rounds_to_whole_ticks() {
        let mut e = RttEstimator::new(
            RttParams {
                tick: ms(100),
                ..RttParams::default()
            },
            0.0,
        );
        e.sample(ms(0), ms(30));
        assert_eq!(e.last(), Some(ms(100)), "at least one tick");
        e.sample(ms(0), ms(260));
        assert_eq!(e.last(), Some(ms(300)));
    }

    fn ns2(tick_ms: u64, phase: f64) -> RttEstimator {
        RttEstimator::new(
            RttParams {
                tick: ms(tick_ms),
                min_rto: ms(200),
                init_rto: Time::from_secs(3),
                estimator: Estimator::Ns2,
                ..RttParams::default()
            },
            phase,
        )
    }

    /// ns-2 `rtt_update` by hand, 10 ms ticks, clock phase 4 ms: a 95 ms RTT
    /// sent at 0 crosses the boundaries at 6, 16, …, 86 ms: 9 ticks; sent at
    /// 3 ms (ack 98 ms) it crosses 6..96: 10 ticks.
    #[test]
    fn ns2_samples_count_tick_boundaries_with_the_clock_phase() {
        let mut e = ns2(10, 0.4);
        assert_eq!(e.rto(), Time::from_secs(3), "rtxcur_init_");
        e.sample(ms(0), ms(95));
        assert_eq!(e.last(), Some(ms(90)));
        // t_srtt = 72, t_rttvar = 18: RTO = 18 + 9 = 27 ticks.
        assert_eq!(e.srtt(), Some(ms(90)));
        assert_eq!(e.rto(), ms(270));
        e.sample(ms(3), ms(98));
        assert_eq!(e.last(), Some(ms(100)));
        // δ = 10 − 9 = 1: t_srtt = 73; δ = 1 − (18 >> 2) = −3: t_rttvar = 15;
        // RTO = 15 + (73 >> 3) = 24 ticks.
        assert_eq!(e.rto(), ms(240));
        // A sample of 1 tick under a 3 ms RTT still counts as one tick.
        e.sample(ms(5), ms(6));
        assert_eq!(e.last(), Some(ms(10)));
    }

    /// Constant 10-tick RTT: t_rttvar decays to 1–3, the truncation leaves
    /// SRTT within 7/8 tick above R, and RTO ≥ min_rto applies first.
    #[test]
    fn ns2_steady_state_and_min_rto_before_backoff() {
        let mut e = ns2(10, 0.0);
        for k in 0..200 {
            e.sample(ms(1000 * k), ms(1000 * k + 100));
        }
        let srtt = e.srtt().unwrap();
        assert!(srtt >= ms(100) && srtt < ms(109), "{srtt}");
        assert!(e.rttvar().unwrap() <= Time::from_micros(7500));
        assert_eq!(e.rto(), ms(200), "(1..3) + 10 ticks < min_rto");
        e.back_off();
        assert_eq!(e.rto(), ms(400), "minrto_ · t_backoff_");
    }

    /// ns-2 `rtt_backoff`: past a multiplier of 8, SRTT is folded into RTTVAR
    /// and cleared; the next sample initializes the estimator again.
    #[test]
    fn ns2_backoff_clobbers_srtt_after_eight() {
        let mut e = ns2(10, 0.0);
        e.sample(ms(0), ms(500));
        assert_eq!(e.rto(), Time::from_secs(1) + ms(500), "t_rttvar 100 + 50 ticks");
        for _ in 0..3 {
            e.back_off();
        }
        assert!(e.srtt().is_some());
        e.back_off();
        assert_eq!(e.srtt(), None, "cleared at t_backoff_ = 16");
        assert_eq!(e.rto(), Time::from_secs(24), "1.5 s × 16");
        e.sample(ms(0), ms(100));
        assert_eq!((e.srtt(), e.rto()), (Some(ms(100)), ms(300)), "fresh start");
    }

    /// RFC 7323 Appendix G: four samples with ExpectedSamples = 4 move SRTT
    /// about as far as one sample with the RFC 6298 gains (1 − (1 − 1/32)⁴ =
    /// 0.119 against 1/8), and a run of identical samples shrinks RTTVAR four
    /// times more slowly.
    #[test]
    fn appendix_g_gains_divide_by_expected_samples() {
        let mut one = est(ms(200));
        let mut four = est(ms(200));
        one.sample(ms(0), ms(100));
        four.sample(ms(0), ms(100));
        one.sample(ms(0), ms(200));
        for _ in 0..4 {
            four.sample_weighted(ms(0), ms(200), 4);
        }
        let (a, b) = (one.srtt().unwrap().as_secs_f64(), four.srtt().unwrap().as_secs_f64());
        assert!((a - 0.1125).abs() < 1e-9, "{a}");
        let want = 0.1 + 0.1 * (1.0 - (1.0 - 1.0 / 32.0_f64).powi(4));
        assert!((b - want).abs() < 1e-9, "{b} against {want}");
        let mut per_ack = est(ms(1));
        let mut scaled = est(ms(1));
        per_ack.sample(ms(0), ms(100));
        scaled.sample(ms(0), ms(100));
        for _ in 0..8 {
            per_ack.sample(ms(0), ms(100));
            scaled.sample_weighted(ms(0), ms(100), 4);
        }
        let var = |e: &RttEstimator| (e.rto().as_secs_f64() - e.srtt().unwrap().as_secs_f64()) / 4.0;
        // RTTVAR from 50 ms: 50·(3/4)⁸ = 5.0 ms against 50·(15/16)⁸ = 29.8 ms.
        assert!((var(&per_ack) - 0.05 * 0.75_f64.powi(8)).abs() < 1e-9);
        assert!((var(&scaled) - 0.05 * (15.0 / 16.0_f64).powi(8)).abs() < 1e-9);
    }
}
