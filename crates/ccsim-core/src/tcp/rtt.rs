//! Retransmission timer computation, RFC 6298 §2.
//!
//! * first sample R: SRTT = R, RTTVAR = R/2 (§2.2);
//! * later samples: RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R'|, then
//!   SRTT = 7/8·SRTT + 1/8·R' (§2.3, RTTVAR uses the old SRTT);
//! * RTO = SRTT + max(G, 4·RTTVAR), clamped to [min_rto, max_rto] (§2.4–2.5);
//! * exponential backoff on expiry (§5.5), reset by the next valid sample.
//!
//! Samples can be quantized to a clock tick (ns-1/ns-2 `tcpTick_`), rounded up
//! to at least one tick, to reproduce period simulators (corrections.md, BUC).

use crate::units::Time;

#[derive(Clone, Debug)]
pub struct RttParams {
    /// Initial RTO before any sample (RFC 6298: 1 s; ns-2: 3 s).
    pub init_rto: Time,
    /// Lower bound on the RTO (RFC 6298: 1 s; ns-2.35: 0.2 s).
    pub min_rto: Time,
    /// Upper bound on the RTO (≥ 60 s).
    pub max_rto: Time,
    /// Clock granularity G in the RTO formula.
    pub granularity: Time,
    /// If non-zero, RTT samples are rounded to whole ticks (≥ 1 tick).
    pub tick: Time,
}

impl Default for RttParams {
    fn default() -> Self {
        RttParams {
            init_rto: Time::from_secs(1),
            min_rto: Time::from_millis(200),
            max_rto: Time::from_secs(60),
            granularity: Time::ZERO,
            tick: Time::ZERO,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    p: RttParams,
    srtt: f64,
    rttvar: f64,
    has_sample: bool,
    rto: Time,
    backoff: u32,
    min_rtt: Option<Time>,
    last: Option<Time>,
}

impl RttEstimator {
    pub fn new(p: RttParams) -> Self {
        let rto = p.init_rto;
        RttEstimator {
            p,
            srtt: 0.0,
            rttvar: 0.0,
            has_sample: false,
            rto,
            backoff: 0,
            min_rtt: None,
            last: None,
        }
    }

    /// Feeds one RTT measurement.
    pub fn sample(&mut self, r: Time) {
        let r = if self.p.tick.0 > 0 {
            let t = self.p.tick.0;
            Time(((r.0 + t / 2) / t).max(1) * t)
        } else {
            r
        };
        self.last = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        let rf = r.0 as f64;
        if !self.has_sample {
            self.srtt = rf;
            self.rttvar = rf / 2.0;
            self.has_sample = true;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - rf).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * rf;
        }
        let rto = self.srtt + (self.p.granularity.0 as f64).max(4.0 * self.rttvar);
        self.rto = Time(rto.round() as u64).max(self.p.min_rto).min(self.p.max_rto);
        self.backoff = 0;
    }

    /// Current timeout including backoff.
    pub fn rto(&self) -> Time {
        let shifted = self.rto.0.checked_shl(self.backoff).unwrap_or(u64::MAX);
        let shifted = if self.backoff > 0 && shifted >> self.backoff != self.rto.0 {
            u64::MAX
        } else {
            shifted
        };
        Time(shifted).min(self.p.max_rto)
    }

    /// Doubles the timeout (RFC 6298 §5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.p.max_rto {
            self.backoff += 1;
        }
    }

    pub fn srtt(&self) -> Option<Time> {
        self.has_sample.then(|| Time(self.srtt.round() as u64))
    }
    pub fn rttvar(&self) -> Option<Time> {
        self.has_sample.then(|| Time(self.rttvar.round() as u64))
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
        RttEstimator::new(RttParams {
            min_rto,
            ..RttParams::default()
        })
    }

    #[test]
    fn rfc6298_first_sample_gives_three_r() {
        let mut e = est(Time::ZERO);
        e.sample(Time::from_millis(100));
        assert_eq!(e.rto(), Time::from_millis(300));
        assert_eq!(e.srtt(), Some(Time::from_millis(100)));
        assert_eq!(e.rttvar(), Some(Time::from_millis(50)));
    }

    #[test]
    fn rfc6298_second_sample_uses_old_srtt() {
        let mut e = est(Time::ZERO);
        e.sample(Time::from_millis(100));
        e.sample(Time::from_millis(200));
        // RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5
        assert_eq!(e.rttvar(), Some(Time::from_micros(62_500)));
        assert_eq!(e.srtt(), Some(Time::from_micros(112_500)));
        assert_eq!(e.rto(), Time::from_micros(112_500 + 250_000));
    }

    #[test]
    fn min_rto_clamp_backoff_and_reset() {
        let mut e = est(Time::from_secs(1));
        assert_eq!(e.rto(), Time::from_secs(1), "initial RTO");
        e.sample(Time::from_millis(10));
        assert_eq!(e.rto(), Time::from_secs(1));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), Time::from_secs(4));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Time::from_secs(60), "capped at max_rto");
        e.sample(Time::from_millis(10));
        assert_eq!(e.rto(), Time::from_secs(1), "new sample resets backoff");
    }

    #[test]
    fn tick_quantization_rounds_to_whole_ticks() {
        let mut e = RttEstimator::new(RttParams {
            tick: Time::from_millis(100),
            ..RttParams::default()
        });
        e.sample(Time::from_millis(30));
        assert_eq!(e.last(), Some(Time::from_millis(100)), "at least one tick");
        e.sample(Time::from_millis(260));
        assert_eq!(e.last(), Some(Time::from_millis(300)));
    }
}
